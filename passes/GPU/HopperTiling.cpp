//===- HopperTiling.cpp - tile, stage and cluster choice for sm_90a -------===//
//
// See HopperTiling.h; the reasoning is in docs/HOPPER.md ("Tile choice").
//
//===----------------------------------------------------------------------===//
#include "passes/GPU/HopperTiling.h"

#include <algorithm>

using namespace mlir::stc;

namespace {

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// Bytes kept out of the ring: the mbarriers, and up to 1 KiB lost when
/// the kernel aligns the ring to 1024 bytes (HopperKernelShape).
constexpr int64_t kReservedSharedBytes = 2048;
constexpr int64_t kMaxStages = 6;
/// Tiles within this fraction of the best utilization count as equal.
constexpr double kUtilizationSlack = 0.05;

} // namespace

std::string HopperTiling::str() const {
  return std::to_string(blockRows) + "x" + std::to_string(blockCols) + "x" +
         std::to_string(blockDepth) + " s" + std::to_string(stages) + " c" +
         std::to_string(clusterRows);
}

int64_t mlir::stc::hopperStageBytes(int64_t blockRows, int64_t blockCols,
                                    int64_t blockDepth, int64_t elementBytes,
                                    bool denseA) {
  int64_t values =
      blockRows * (denseA ? blockDepth : blockDepth / 2) * elementBytes;
  int64_t dense = blockDepth * blockCols * elementBytes;
  return values + dense;
}

int64_t mlir::stc::hopperStagesThatFit(int64_t stageBytes,
                                       const HopperDevice &device,
                                       int64_t maxStages) {
  return std::clamp<int64_t>(
      (device.sharedBytesPerBlock - kReservedSharedBytes) /
          std::max<int64_t>(stageBytes, 1),
      2, maxStages);
}

int64_t mlir::stc::hopperUsefulStages(int64_t fit, int64_t fills) {
  if (fills <= 0)
    return fit;
  return std::max<int64_t>(2, std::min(fit, fills));
}

HopperPixelTile mlir::stc::chooseHopperPixelTile(int64_t blockCols,
                                                 const HopperPixelGrid &grid) {
  HopperPixelTile best;
  int64_t bestTiles = 0, bestSkew = 0;
  for (int64_t cols = 4; cols <= 64; cols *= 2) {
    int64_t rows = blockCols / cols;
    if (rows < 1 || rows * cols != blockCols ||
        rows * std::max<int64_t>(grid.strideH, 1) > 256 ||
        cols * std::max<int64_t>(grid.strideW, 1) > 256)
      continue;
    // Tiles per image; with an unknown size every tile counts as one.
    int64_t tiles = (grid.outH > 0 ? ceilDiv(grid.outH, rows) : 1) *
                    (grid.outW > 0 ? ceilDiv(grid.outW, cols) : 1);
    // How far from square: |log2(rows / cols)|, rows and cols being powers
    // of two.
    int64_t skew = 0;
    for (int64_t r = rows, c = cols; r != c; ++skew)
      r > c ? r /= 2 : c /= 2;
    bool better = best.cols == 0 || tiles < bestTiles ||
                  (tiles == bestTiles &&
                   (skew < bestSkew || (skew == bestSkew && cols > best.cols)));
    if (better) {
      best = {rows, cols};
      bestTiles = tiles;
      bestSkew = skew;
    }
  }
  return best;
}

HopperTiling mlir::stc::chooseHopperTiling(const HopperProblem &problem,
                                           const HopperDevice &device) {
  HopperTiling best;
  int64_t elementBytes = std::max<int64_t>(problem.elementBytes, 1);
  best.blockDepth = 128 / elementBytes;
  int64_t rows = std::max<int64_t>(problem.rows, 1);
  int64_t cols = std::max<int64_t>(problem.cols, 1);
  int64_t sms = std::max<int64_t>(device.sms, 1);
  int64_t batch = std::max<int64_t>(problem.batch, 1);

  struct Candidate {
    int64_t bm, bn;
    double utilization, intensity;
  };
  Candidate chosen{0, 0, -1.0, 0.0};
  double bestUtilization = 0.0;
  const int64_t bms[] = {64, 128}, bns[] = {64, 128, 256};
  // A convolution's column tiles: its pixel tiles, image by image.
  const HopperPixelGrid &pixels = problem.pixels;
  bool perImage = pixels.images > 0 && pixels.outH > 0 && pixels.outW > 0;
  auto columnTiles = [&](int64_t bn) {
    if (!perImage)
      return ceilDiv(cols, bn);
    HopperPixelTile tile = chooseHopperPixelTile(bn, pixels);
    return pixels.images * ceilDiv(pixels.outH, tile.rows) *
           ceilDiv(pixels.outW, tile.cols);
  };
  for (int64_t bm : bms)
    for (int64_t bn : bns) {
      int64_t tiles = ceilDiv(rows, bm) * columnTiles(bn) * batch;
      int64_t waves = ceilDiv(tiles, sms);
      double u = double(rows) * double(cols) * double(batch) /
                 (double(waves) * double(sms) * double(bm) * double(bn));
      bestUtilization = std::max(bestUtilization, u);
    }
  for (int64_t bm : bms)
    for (int64_t bn : bns) {
      if (hopperStageBytes(bm, bn, best.blockDepth, elementBytes,
                           problem.denseA) *
              2 >
          device.sharedBytesPerBlock - kReservedSharedBytes)
        continue;
      int64_t tiles = ceilDiv(rows, bm) * columnTiles(bn) * batch;
      int64_t waves = ceilDiv(tiles, sms);
      double u = double(rows) * double(cols) * double(batch) /
                 (double(waves) * double(sms) * double(bm) * double(bn));
      if (u < bestUtilization * (1.0 - kUtilizationSlack))
        continue;
      // A 2:4 A is stored compressed: half the bytes of a dense tile per
      // row.
      double aRows = problem.denseA ? double(bm) : double(bm) / 2.0;
      double intensity = double(bm * bn) / (aRows + double(bn));
      bool better = intensity > chosen.intensity ||
                    (intensity == chosen.intensity && bm > chosen.bm);
      if (chosen.bm == 0 || better)
        chosen = {bm, bn, u, intensity};
    }
  best.blockRows = chosen.bm;
  best.blockCols = chosen.bn;
  best.utilization = chosen.utilization;
  best.stageBytes =
      hopperStageBytes(best.blockRows, best.blockCols, best.blockDepth,
                       elementBytes, problem.denseA);
  best.stages = hopperUsefulStages(
      hopperStagesThatFit(best.stageBytes, device),
      problem.depth > 0 ? ceilDiv(problem.depth, best.blockDepth) : 0);
  if (perImage)
    best.pixelTile = chooseHopperPixelTile(best.blockCols, pixels);
  int64_t rowTiles = ceilDiv(rows, best.blockRows);
  int64_t tiles = rowTiles * columnTiles(best.blockCols);
  best.clusterRows = (rowTiles >= 2 && tiles >= sms) ? 2 : 1;
  return best;
}
