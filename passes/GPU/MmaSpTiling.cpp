//===- MmaSpTiling.cpp - block tile choice of the mma.sp kernels -*- C++ -*-=//
//
// See MmaSpTiling.h.
//
//===----------------------------------------------------------------------===//
#include "passes/GPU/MmaSpTiling.h"

#include <algorithm>

std::pair<int64_t, int64_t> mlir::stc::chooseMmaSpBlockTile(int64_t rows,
                                                            int64_t cols) {
  constexpr int64_t kMinBlocks = 256;
  if (rows < 0 || cols < 0)
    return {64, 64};
  auto blocks = [&](int64_t tr, int64_t tc) {
    return ((rows + tr - 1) / tr) * ((cols + tc - 1) / tc);
  };
  if (blocks(128, 128) >= kMinBlocks)
    return {128, 128};
  if (rows >= cols && blocks(128, 64) >= kMinBlocks)
    return {128, 64};
  if (cols > rows && blocks(64, 128) >= kMinBlocks)
    return {64, 128};
  return {64, 64};
}

std::pair<int64_t, int64_t> mlir::stc::chooseMmaSpWarpTile(int64_t blockRows,
                                                           int64_t blockCols) {
  auto half = [](int64_t v) { return std::clamp<int64_t>(v / 2, 32, 64); };
  return {half(blockRows), half(blockCols)};
}
