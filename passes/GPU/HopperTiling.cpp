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
  for (int64_t bm : bms)
    for (int64_t bn : bns) {
      int64_t tiles = ceilDiv(rows, bm) * ceilDiv(cols, bn) * batch;
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
      int64_t tiles = ceilDiv(rows, bm) * ceilDiv(cols, bn) * batch;
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
  best.stages = hopperStagesThatFit(best.stageBytes, device);
  int64_t rowTiles = ceilDiv(rows, best.blockRows);
  int64_t tiles = rowTiles * ceilDiv(cols, best.blockCols);
  best.clusterRows = (rowTiles >= 2 && tiles >= sms) ? 2 : 1;
  return best;
}
