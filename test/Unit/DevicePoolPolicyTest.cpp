//===- DevicePoolPolicyTest.cpp - the caching allocator's policy ----------===//
//
// runtime/DevicePoolPolicy.h, which the CUDA runtime's pool and the
// emulator's counters share: size classes, lowest-address reuse,
// oldest-first eviction past the limit, draining.
//
//===----------------------------------------------------------------------===//

#include "runtime/DevicePoolPolicy.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <vector>

namespace {

using stc::poolSizeClass;
using Cache = stc::SizeClassCache<int>;

TEST(DevicePoolPolicyTest, SizeClasses) {
  EXPECT_EQ(poolSizeClass(1), 512u);
  EXPECT_EQ(poolSizeClass(512), 512u);
  EXPECT_EQ(poolSizeClass(513), 1024u);
  EXPECT_EQ(poolSizeClass(1 << 20), uint64_t(1) << 20);
  // Past 1 MiB, 2 MiB steps.
  EXPECT_EQ(poolSizeClass((1 << 20) + 1), uint64_t(2) << 20);
  EXPECT_EQ(poolSizeClass((5u << 20) + 7), uint64_t(6) << 20);
}

TEST(DevicePoolPolicyTest, TakesTheLowestBlockOfItsClass) {
  Cache cache(1 << 20);
  EXPECT_FALSE(cache.take(512));
  EXPECT_TRUE(cache.put(512, 2).empty());
  EXPECT_TRUE(cache.put(512, 1).empty());
  EXPECT_TRUE(cache.put(512, 4).empty());
  EXPECT_TRUE(cache.put(1024, 3).empty());
  EXPECT_EQ(cache.cachedBytes(), 2560u);
  EXPECT_EQ(cache.take(512), 1);
  EXPECT_EQ(cache.take(512), 2);
  EXPECT_EQ(cache.take(512), 4);
  EXPECT_FALSE(cache.take(512));
  EXPECT_EQ(cache.take(1024), 3);
  EXPECT_EQ(cache.cachedBytes(), 0u);
}

// What the policy is for: a program that makes the same requests on every
// call gets the same blocks on every call, whatever order it frees them in,
// so the tensor maps of its buffers are built once. Three buffers of one
// class, freed in the order they were made (which the most-recently-freed
// rule answered with another assignment on every other call), and a fourth
// that reuses the first's block within the call.
TEST(DevicePoolPolicyTest, SameRequestsGetTheSameBlocksOnEveryCall) {
  Cache cache(1 << 20);
  int next = 1;
  auto allocate = [&] {
    std::optional<int> block = cache.take(512);
    return block ? *block : next++;
  };
  std::vector<std::vector<int>> calls;
  for (int call = 0; call < 4; ++call) {
    int a = allocate(), b = allocate(), c = allocate();
    cache.put(512, a);
    int d = allocate();
    cache.put(512, b);
    cache.put(512, c);
    cache.put(512, d);
    calls.push_back({a, b, c, d});
  }
  EXPECT_EQ(next, 4) << "the pool made new blocks after the first call";
  for (size_t call = 1; call < calls.size(); ++call)
    EXPECT_EQ(calls[call], calls[0]) << "call " << call;
}

TEST(DevicePoolPolicyTest, EvictsOldestPastTheLimit) {
  Cache cache(2048);
  EXPECT_TRUE(cache.put(1024, 1).empty());
  EXPECT_TRUE(cache.put(512, 2).empty());
  EXPECT_TRUE(cache.put(512, 3).empty());
  // 2560 > 2048: block 1, the oldest, goes.
  auto evicted = cache.put(512, 4);
  ASSERT_EQ(evicted.size(), 1u);
  EXPECT_EQ(evicted[0].first, 1024u);
  EXPECT_EQ(evicted[0].second, 1);
  EXPECT_EQ(cache.cachedBytes(), 1536u);
  EXPECT_FALSE(cache.take(1024));
  // A block alone over the limit is never cached.
  evicted = cache.put(4096, 5);
  ASSERT_EQ(evicted.size(), 1u);
  EXPECT_EQ(evicted[0].second, 5);
  // Taking a block forgets its age: it is not evicted later.
  // (2, the oldest cached block, is also the lowest: take gets it.)
  EXPECT_EQ(cache.take(512), 2);
  EXPECT_TRUE(cache.put(1024, 6).empty());
  evicted = cache.put(512, 7);
  ASSERT_EQ(evicted.size(), 1u);
  EXPECT_EQ(evicted[0].second, 3);
}

TEST(DevicePoolPolicyTest, DrainReturnsEverything) {
  Cache cache(1 << 20);
  cache.put(512, 1);
  cache.put(1024, 2);
  auto all = cache.drain();
  EXPECT_EQ(all.size(), 2u);
  EXPECT_EQ(cache.cachedBytes(), 0u);
  EXPECT_FALSE(cache.take(512));
}

TEST(DevicePoolPolicyTest, LimitFromTheEnvironment) {
  setenv("STC_GPU_POOL_LIMIT_MB", "3", 1);
  EXPECT_EQ(stc::poolCacheLimitBytes(), uint64_t(3) << 20);
  setenv("STC_GPU_POOL_LIMIT_MB", "0", 1);
  EXPECT_EQ(stc::poolCacheLimitBytes(), 0u);
  // Not a number: the default.
  setenv("STC_GPU_POOL_LIMIT_MB", "lots", 1);
  EXPECT_EQ(stc::poolCacheLimitBytes(), uint64_t(4) << 30);
  unsetenv("STC_GPU_POOL_LIMIT_MB");
  EXPECT_EQ(stc::poolCacheLimitBytes(), uint64_t(4) << 30);
}

} // namespace
