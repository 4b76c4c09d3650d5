//===- DevicePoolPolicy.h - the caching device allocator's policy -*- C++ -*-=//
//
// Which freed device blocks the runtime keeps for reuse, shared by the CUDA
// runtime (runtime/cuda/DeviceMemory.cpp, over cuMemAlloc) and the emulator
// (which counts the allocations the same policy would make on a GPU, so that
// `stc-run --device=emulate --profile` reports what a GPU would do).
//
// Requests round up to a size class; a freed block goes to the free list of
// its class; a request takes the free block of its class that was made
// first (the CUDA pool numbers its blocks in the order cuMemAlloc made
// them). That choice depends only on which blocks are free, not on the
// order they were freed in nor on where the driver put them, so a program
// that makes the same requests on every call gets the same addresses on
// every call, the first included: a fresh block is made exactly when no
// free one exists, and it is the latest made. The tensor maps that describe
// those buffers (runtime/cuda/TensorMaps.cpp, cached by content, address
// included) are then made once. Taking the most recently freed block
// instead swapped the addresses of buffers freed in the order they were
// made on every other call: on an H200 (2026-11-27) the second call of a
// transformer block built one more tensor map than the first and the
// third. Taking the lowest-addressed block (until 2026-11-28) depended on
// the order of the driver's addresses: where it did not match the order the
// blocks were made in (on the fake driver, whose device memory is malloc's),
// the second call moved buffers and built tensor maps again, in about half
// of the runs. Cached bytes are bounded: a
// free past the limit gives back the oldest cached blocks. As in PyTorch's
// caching allocator, small blocks round to 512 bytes and large ones to
// 2 MiB, so that the activations of one shape reuse one block per call.
//
//===----------------------------------------------------------------------===//
#ifndef STC_RUNTIME_DEVICEPOOLPOLICY_H
#define STC_RUNTIME_DEVICEPOOLPOLICY_H

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <map>
#include <optional>
#include <utility>
#include <vector>

namespace stc {

/// The bytes a request of `bytes` occupies in the pool.
inline uint64_t poolSizeClass(uint64_t bytes) {
  constexpr uint64_t kSmall = 512, kLarge = uint64_t(2) << 20;
  uint64_t unit = bytes <= (uint64_t(1) << 20) ? kSmall : kLarge;
  return (bytes + unit - 1) / unit * unit;
}

/// The most bytes the pool keeps cached: $STC_GPU_POOL_LIMIT_MB (0 turns
/// caching off), default 4 GiB.
inline uint64_t poolCacheLimitBytes() {
  if (const char *env = std::getenv("STC_GPU_POOL_LIMIT_MB")) {
    char *end = nullptr;
    unsigned long long mb = std::strtoull(env, &end, 10);
    if (end != env && *end == '\0')
      return uint64_t(mb) << 20;
  }
  return uint64_t(4) << 30;
}

/// Free blocks by size class. `Block` is what the owner needs to reuse or
/// release one (a device pointer and the event its last user recorded).
template <typename Block>
class SizeClassCache {
public:
  explicit SizeClassCache(uint64_t limitBytes) : limit(limitBytes) {}

  /// The least cached block of class `sizeClass` by `Block`'s `<` (the
  /// CUDA pool's: the block made first).
  std::optional<Block> take(uint64_t sizeClass) {
    auto it = free.find(sizeClass);
    if (it == free.end() || it->second.empty())
      return std::nullopt;
    auto lowest = std::min_element(it->second.begin(), it->second.end());
    Block block = *lowest;
    it->second.erase(lowest);
    cached -= sizeClass;
    forgetAge(sizeClass, block);
    return block;
  }

  /// Caches `block`; returns the blocks that must really be released to
  /// stay within the limit (oldest first; `block` itself when it alone is
  /// over the limit).
  std::vector<std::pair<uint64_t, Block>> put(uint64_t sizeClass, Block block) {
    std::vector<std::pair<uint64_t, Block>> evicted;
    if (sizeClass > limit) {
      evicted.emplace_back(sizeClass, block);
      return evicted;
    }
    free[sizeClass].push_back(block);
    age.emplace_back(sizeClass, block);
    cached += sizeClass;
    while (cached > limit && !age.empty()) {
      auto [oldClass, oldBlock] = age.front();
      age.pop_front();
      auto &list = free[oldClass];
      for (auto it = list.begin(); it != list.end(); ++it)
        if (*it == oldBlock) {
          list.erase(it);
          break;
        }
      cached -= oldClass;
      evicted.emplace_back(oldClass, oldBlock);
    }
    return evicted;
  }

  /// Empties the cache; returns every block it held.
  std::vector<std::pair<uint64_t, Block>> drain() {
    std::vector<std::pair<uint64_t, Block>> all(age.begin(), age.end());
    free.clear();
    age.clear();
    cached = 0;
    return all;
  }

  uint64_t cachedBytes() const { return cached; }

private:
  void forgetAge(uint64_t sizeClass, const Block &block) {
    for (auto it = age.begin(); it != age.end(); ++it)
      if (it->first == sizeClass && it->second == block) {
        age.erase(it);
        return;
      }
  }

  uint64_t limit;
  uint64_t cached = 0;
  std::map<uint64_t, std::vector<Block>> free;
  /// Every cached block, oldest first, for eviction.
  std::deque<std::pair<uint64_t, Block>> age;
};

} // namespace stc

#endif // STC_RUNTIME_DEVICEPOOLPOLICY_H
