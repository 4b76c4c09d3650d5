//===- HopperTilingTest.cpp - the sm_90a tile heuristic -------------------===//
//
// chooseHopperTiling on the shapes of docs/DESIGN.md §8 and on small and
// skewed problems: the values below follow from the rules in
// passes/GPU/HopperTiling.h, worked out by hand.
//
//===----------------------------------------------------------------------===//
#include "passes/GPU/HopperTiling.h"

#include <gtest/gtest.h>

using namespace mlir::stc;

namespace {

TEST(HopperTiling, LargeSquareF16TakesTheWidestTileAndAClusterPair) {
  // 8192^3: 128x128, 64x256 and 128x256 all use 96.97 % of 16 waves; the
  // widest (most arithmetic per byte) wins. A stage is 8 KiB of values
  // and 32 KiB of B (the metadata is not staged): five fit in 227 KiB less
  // 2 KiB (5 x 40 KiB = 200 KiB; six would be 240 KiB).
  HopperTiling t = chooseHopperTiling({8192, 8192, 8192, 2});
  EXPECT_EQ(t.blockRows, 128);
  EXPECT_EQ(t.blockCols, 256);
  EXPECT_EQ(t.blockDepth, 64);
  EXPECT_EQ(t.stageBytes, 8192 + 32768);
  EXPECT_EQ(t.stages, 5);
  EXPECT_EQ(t.clusterRows, 2);
  EXPECT_NEAR(t.utilization, 8192.0 * 8192 / (16.0 * 132 * 128 * 256), 1e-12);
  EXPECT_EQ(t.str(), "128x256x64 s5 c2");
}

TEST(HopperTiling, SmallProblemSpreadsOverTheSms) {
  // 256 x 256: sixteen 64x64 tiles beat two 128x256 ones; no cluster (far
  // from a full wave).
  HopperTiling t = chooseHopperTiling({256, 256, 4096, 2});
  EXPECT_EQ(t.blockRows, 64);
  EXPECT_EQ(t.blockCols, 64);
  EXPECT_EQ(t.clusterRows, 1);
  EXPECT_EQ(t.stages, 6); // small stages: capped
}

TEST(HopperTiling, ElementWidthSetsTheKStep) {
  EXPECT_EQ(chooseHopperTiling({4096, 4096, 4096, 1}).blockDepth, 128);
  EXPECT_EQ(chooseHopperTiling({4096, 4096, 4096, 4}).blockDepth, 32);
  // The same bytes of values and B per stage at every width.
  EXPECT_EQ(hopperStageBytes(128, 256, 128, 1),
            hopperStageBytes(128, 256, 64, 2));
  EXPECT_EQ(hopperStageBytes(64, 128, 64, 2), 64 * 32 * 2 + 64 * 128 * 2);
}

TEST(HopperTiling, StagesThatFitLeaveTwoKiB) {
  // (232448 - 2048) / 40960 = 5.6; 24 KiB stages: 9, capped at 6; 120 KiB
  // stages: 1, raised to 2 (the pass then reports that it does not fit).
  EXPECT_EQ(hopperStagesThatFit(40960), 5);
  EXPECT_EQ(hopperStagesThatFit(24 * 1024), 6);
  EXPECT_EQ(hopperStagesThatFit(120 * 1024), 2);
  HopperDevice small;
  small.sharedBytesPerBlock = 100 * 1024;
  EXPECT_EQ(hopperStagesThatFit(32 * 1024, small), 3);
}

TEST(HopperTiling, ChoiceIsWithinTheSlackOfTheBestUtilization) {
  const int64_t sizes[] = {1, 17, 64, 100, 257, 1000, 4096, 5120, 12288};
  for (int64_t r : sizes)
    for (int64_t p : sizes) {
      HopperTiling t = chooseHopperTiling({r, p, 1024, 2});
      double best = 0.0;
      for (int64_t bm : {64, 128})
        for (int64_t bn : {64, 128, 256}) {
          int64_t tiles = ((r + bm - 1) / bm) * ((p + bn - 1) / bn);
          int64_t waves = (tiles + 131) / 132;
          best = std::max(best, double(r) * double(p) /
                                    (double(waves) * 132.0 * bm * bn));
        }
      EXPECT_GE(t.utilization, best * 0.95 - 1e-12) << r << " x " << p;
      EXPECT_LE(t.utilization, 1.0 + 1e-12);
      EXPECT_GE(t.stages, 2);
      EXPECT_LE(t.stages * t.stageBytes, 227 * 1024 - 2048);
      EXPECT_TRUE(t.clusterRows == 1 ||
                  (r + t.blockRows - 1) / t.blockRows >= 2);
    }
}

TEST(HopperTiling, FewerSmsMeansFewerTilesPerWave) {
  // A device with 8 SMs: 1024 x 1024 in 64 tiles of 128x128 is 8 full
  // waves; the 128x256 tile (32 tiles, 4 waves) is as well used and wider.
  HopperTiling t = chooseHopperTiling({1024, 1024, 1024, 2}, {8, 227 * 1024});
  EXPECT_EQ(t.blockRows, 128);
  EXPECT_EQ(t.blockCols, 256);
  EXPECT_DOUBLE_EQ(t.utilization, 1.0);
  EXPECT_EQ(t.clusterRows, 2);
}

} // namespace

TEST(HopperTiling, ABatchFillsTheWavesAndADenseAWeighsFull) {
  // 256 x 256 once: small tiles spread over the SMs; 48 times (attention's
  // heads): 128 x 256 tiles already fill every wave.
  HopperProblem one{256, 256, 64, 2, /*denseA=*/true};
  EXPECT_EQ(chooseHopperTiling(one).blockRows, 64);
  HopperProblem heads = one;
  heads.batch = 48;
  HopperTiling t = chooseHopperTiling(heads);
  EXPECT_GT(t.blockRows * t.blockCols, 64 * 64);
  EXPECT_GE(t.utilization, 0.95);
  // A dense A doubles the A bytes of a stage.
  EXPECT_EQ(hopperStageBytes(128, 128, 64, 2, /*denseA=*/true),
            hopperStageBytes(128, 128, 64, 2) + 128 * 32 * 2);
}

TEST(HopperTiling, PixelTilesCoverTheImageInTheFewestTiles) {
  auto tile = [](int64_t bn, int64_t oh, int64_t ow, int64_t stride = 1) {
    HopperPixelTile t = chooseHopperPixelTile(bn, {1, oh, ow, stride, stride});
    return std::pair<int64_t, int64_t>{t.rows, t.cols};
  };
  using Tile = std::pair<int64_t, int64_t>;
  // Unknown sizes: the square-ish tiles of before.
  EXPECT_EQ(tile(64, 0, 0), Tile(8, 8));
  EXPECT_EQ(tile(128, 0, 0), Tile(8, 16));
  EXPECT_EQ(tile(256, 0, 0), Tile(16, 16));
  // 7 x 7 in one tile of any width; 56 x 56: 8 x 8 is exact, and 256
  // columns take 14 tiles as 8 x 32 where 16 x 16 takes 16.
  EXPECT_EQ(tile(64, 7, 7), Tile(8, 8));
  EXPECT_EQ(tile(64, 56, 56), Tile(8, 8));
  EXPECT_EQ(tile(256, 56, 56), Tile(8, 32));
  // 28 x 28 in 128 columns: 7 tiles of 4 x 32 (8 x 16 takes 8).
  EXPECT_EQ(tile(128, 28, 28), Tile(4, 32));
  // A 1 x 100 row: the widest tile.
  EXPECT_EQ(tile(64, 1, 100), Tile(1, 64));
  // Stride 8: a box may span 256 input columns, so at most 32 pixels wide.
  EXPECT_EQ(tile(64, 1, 100, 8), Tile(2, 32));
  // Every tile covers the block's columns with TMA-legal boxes.
  for (int64_t bn : {32, 64, 128, 256})
    for (int64_t oh : {0, 1, 7, 14, 28, 56, 112})
      for (int64_t s : {1, 2, 4, 8}) {
        auto [rows, cols] = tile(bn, oh, oh + 3, s);
        EXPECT_EQ(rows * cols, bn);
        EXPECT_LE(rows * s, 256);
        EXPECT_LE(cols * s, 256);
      }
}

TEST(HopperTiling, ConvolutionTilesCountTheirWastedPixels) {
  // ResNet-50's l4 1x1 at batch 256: 2048 filters over 256 images of 7 x 7.
  // Counted as 12544 flat columns, 128 x 256 tiles fill 99 % of 6 waves;
  // per image a 256-pixel tile holds 49 real pixels. 8 x 8 tiles of 64
  // columns waste the least.
  HopperProblem flat{2048, 256 * 49, 512, 2};
  EXPECT_EQ(chooseHopperTiling(flat).blockCols, 256);
  HopperProblem conv = flat;
  conv.pixels = {256, 7, 7, 1, 1};
  HopperTiling t = chooseHopperTiling(conv);
  EXPECT_EQ(t.blockRows, 128);
  EXPECT_EQ(t.blockCols, 64);
  EXPECT_EQ(t.pixelTile.rows, 8);
  EXPECT_EQ(t.pixelTile.cols, 8);
  // 49 of 64 pixels, 4096 tiles in 32 waves of 132 (31.03 full).
  EXPECT_NEAR(t.utilization, 2048.0 * 12544 / (32.0 * 132 * 128 * 64), 1e-9);
  // A GEMM's pixel tile is empty.
  EXPECT_EQ(chooseHopperTiling(flat).pixelTile.cols, 0);
}

// The ring has no slots past the op's fills (a slot never written still
// takes shared memory), at least 2, and all that fit when K is unknown.
TEST(HopperTiling, RingNoDeeperThanItsFills) {
  EXPECT_EQ(mlir::stc::hopperUsefulStages(6, 1), 2);
  EXPECT_EQ(mlir::stc::hopperUsefulStages(6, 4), 4);
  EXPECT_EQ(mlir::stc::hopperUsefulStages(6, 16), 6);
  EXPECT_EQ(mlir::stc::hopperUsefulStages(5, 0), 5);
  // The heuristic's own: a 1x1 convolution of 64 channels is one K step.
  EXPECT_EQ(chooseHopperTiling({64, 802816, 64, 2}).stages, 2);
  EXPECT_EQ(chooseHopperTiling({256, 256, 4 * 64, 2}).stages, 4);
}
