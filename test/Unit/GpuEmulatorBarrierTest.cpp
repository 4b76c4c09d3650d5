//===- GpuEmulatorBarrierTest.cpp - named barriers and bar.warp.sync ------===//
//
// stc_emu_named_barrier and stc_emu_warp_sync, which the sm_90a kernel's
// staged epilogue calls on the emulator (passes/GPU/HopperEpilogue.cpp):
// no thread passes before every participant has arrived, the threads that
// do not take part are not waited for, and rounds back to back reuse the
// barrier.
//
//===----------------------------------------------------------------------===//
#include "runtime/emulator/stc_gpu_emulator.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>

namespace {

constexpr int kThreads = 256;
constexpr int kParticipants = 128;
constexpr int kRounds = 8;

struct Shared {
  // Each participant writes its word of a round, passes the barrier and
  // reads its neighbours'; a read before the barrier completes would see
  // the previous round's word.
  std::atomic<int32_t> word[kThreads];
  int32_t seen[kRounds][kThreads];
};

int32_t wordOf(int round, int t) { return round * 1000 + t; }

void namedKernel(int64_t *params, int32_t thread, int32_t, int32_t) {
  auto *s = reinterpret_cast<Shared *>(params[0]);
  // Threads past the participants leave at once, as a producer warpgroup
  // that is done would: the consumers' barrier must not wait for them.
  if (thread >= kParticipants)
    return;
  for (int r = 0; r < kRounds; ++r) {
    s->word[thread].store(wordOf(r, thread));
    stc_emu_named_barrier(1, kParticipants);
    s->seen[r][thread] = s->word[(thread + 37) % kParticipants].load();
    // Nobody overwrites a word before everyone has read it.
    stc_emu_named_barrier(1, kParticipants);
  }
}

TEST(GpuEmulatorBarrier, NamedBarrierWaitsForItsParticipantsOnly) {
  Shared s{};
  int64_t params[1] = {reinterpret_cast<int64_t>(&s)};
  stc_emu_launch(&namedKernel, 1, 1, kThreads, params, "named");
  for (int r = 0; r < kRounds; ++r)
    for (int t = 0; t < kParticipants; ++t)
      EXPECT_EQ(s.seen[r][t], wordOf(r, (t + 37) % kParticipants))
          << "round " << r << " thread " << t;
}

void warpKernel(int64_t *params, int32_t thread, int32_t, int32_t) {
  auto *s = reinterpret_cast<Shared *>(params[0]);
  int warpBase = thread / 32 * 32;
  for (int r = 0; r < kRounds; ++r) {
    s->word[thread].store(wordOf(r, thread));
    stc_emu_warp_sync(-1);
    s->seen[r][thread] = s->word[warpBase + (thread + 5) % 32].load();
    stc_emu_warp_sync(-1);
  }
}

TEST(GpuEmulatorBarrier, WarpSyncWaitsForTheWholeWarp) {
  Shared s{};
  int64_t params[1] = {reinterpret_cast<int64_t>(&s)};
  stc_emu_launch(&warpKernel, 1, 1, kThreads, params, "warp");
  for (int r = 0; r < kRounds; ++r)
    for (int t = 0; t < kThreads; ++t)
      EXPECT_EQ(s.seen[r][t], wordOf(r, t / 32 * 32 + (t + 5) % 32))
          << "round " << r << " thread " << t;
}

class GpuEmulatorBarrierDeathTest : public ::testing::Test {
protected:
  void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
};

void barrierZeroKernel(int64_t *, int32_t, int32_t, int32_t) {
  stc_emu_named_barrier(0, 32);
}
void oddCountKernel(int64_t *, int32_t, int32_t, int32_t) {
  stc_emu_named_barrier(1, 48);
}
void partialMaskKernel(int64_t *, int32_t, int32_t, int32_t) {
  stc_emu_warp_sync(0xffff);
}

TEST_F(GpuEmulatorBarrierDeathTest, RefusesWhatItDoesNotEmulate) {
  EXPECT_EXIT(stc_emu_named_barrier(1, 32), ::testing::ExitedWithCode(1),
              "stc-gpu-emulator: error: bar.sync called outside "
              "stc_emu_launch");
  EXPECT_EXIT(stc_emu_warp_sync(-1), ::testing::ExitedWithCode(1),
              "stc-gpu-emulator: error: bar.warp.sync called outside "
              "stc_emu_launch");
  EXPECT_EXIT(stc_emu_launch(&barrierZeroKernel, 1, 1, 32, nullptr, "b0"),
              ::testing::ExitedWithCode(1),
              "stc-gpu-emulator: error: bar.sync 0, 32 in a block of 32 "
              "threads \\(expected barrier 1 .. 15 and a thread count that "
              "is a multiple of 32 up to the block's\\)");
  EXPECT_EXIT(stc_emu_launch(&oddCountKernel, 1, 1, 64, nullptr, "odd"),
              ::testing::ExitedWithCode(1),
              "stc-gpu-emulator: error: bar.sync 1, 48 in a block of 64");
  EXPECT_EXIT(stc_emu_launch(&partialMaskKernel, 1, 1, 32, nullptr, "mask"),
              ::testing::ExitedWithCode(1),
              "stc-gpu-emulator: error: bar.warp.sync with member mask 65535 "
              "\\(only the full mask 0xffffffff is emulated\\)");
}

} // namespace
