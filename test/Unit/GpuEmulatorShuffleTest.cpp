//===- GpuEmulatorShuffleTest.cpp - the emulator's shfl.sync.bfly --------===//
//
// stc_emu_shfl_xor, which the row kernels' butterfly reductions call on the
// emulator (passes/GPU/RowKernel.cpp): each lane gets the word of lane
// (lane XOR its mask), in every round, for every warp of a block, with
// back-to-back rounds that a slow lane must not see overwritten.
//
//===----------------------------------------------------------------------===//
#include "runtime/emulator/stc_gpu_emulator.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace {

constexpr int kThreads = 96;
constexpr int kRounds = 12;

struct Rounds {
  // [round][thread]: the word received.
  int32_t got[kRounds][kThreads];
};

/// The word thread `t` offers in `round`, and the mask it uses (lanes of
/// one warp may use different masks: each reads its own partner).
int32_t wordOf(int round, int t) { return round * 100003 + t * 7 + 1; }
int32_t maskOf(int round, int t) {
  return round < 5 ? (1 << round) : (round * 5 + t) % 32;
}

void shuffleKernel(int64_t *params, int32_t thread, int32_t, int32_t) {
  auto *rounds = reinterpret_cast<Rounds *>(params[0]);
  for (int r = 0; r < kRounds; ++r)
    rounds->got[r][thread] =
        stc_emu_shfl_xor(wordOf(r, thread), maskOf(r, thread));
}

TEST(GpuEmulatorShuffle, EachLaneGetsItsXorPartnersWord) {
  Rounds rounds{};
  int64_t params[1] = {reinterpret_cast<int64_t>(&rounds)};
  stc_emu_launch(&shuffleKernel, 2, 1, kThreads, params, "shfl");
  for (int r = 0; r < kRounds; ++r)
    for (int t = 0; t < kThreads; ++t) {
      int warpBase = t / 32 * 32;
      int partner = warpBase + ((t % 32) ^ maskOf(r, t));
      EXPECT_EQ(rounds.got[r][t], wordOf(r, partner))
          << "round " << r << " thread " << t;
    }
}

class GpuEmulatorShuffleDeathTest : public ::testing::Test {
protected:
  void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
};

void badMaskKernel(int64_t *, int32_t thread, int32_t, int32_t) {
  stc_emu_shfl_xor(thread, 32);
}

TEST_F(GpuEmulatorShuffleDeathTest, NeedsALaunchAndALaneMask) {
  EXPECT_EXIT(stc_emu_shfl_xor(1, 1), ::testing::ExitedWithCode(1),
              "stc-gpu-emulator: error: shfl.sync called outside "
              "stc_emu_launch");
  EXPECT_EXIT(stc_emu_launch(&badMaskKernel, 1, 1, 32, nullptr, "bad"),
              ::testing::ExitedWithCode(1),
              "stc-gpu-emulator: error: shfl.sync.bfly lane mask 32 "
              "\\(expected 0 .. 31\\)");
}

} // namespace
