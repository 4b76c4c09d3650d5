//===- SparsityReport.cpp - 2:4 weights found at import -----*- C++ -*-===//
//
// See SparsityReport.h.
//
//===----------------------------------------------------------------------===//
#include "compiler/onnx/SparsityReport.h"

using namespace mlir;
using namespace mlir::stc::onnx_import;

/// Whether the `count` elements of `t` at `first`, `first + stride`, ...
/// have at most 2 non-zeros in every group of 4 (the last one short).
static bool groupsAre2To4(const HostTensor &t, int64_t first, int64_t stride,
                          int64_t count) {
  for (int64_t g = 0; g < count; g += 4) {
    int nonZeros = 0;
    for (int64_t i = g; i < std::min(g + 4, count); ++i)
      nonZeros += t.getDouble(first + i * stride) != 0.0;
    if (nonZeros > 2)
      return false;
  }
  return true;
}

bool mlir::stc::onnx_import::isMatrix2To4(const HostTensor &weight,
                                          int64_t reductionDim) {
  if (weight.shape.size() != 2 || weight.numElements() == 0)
    return false;
  int64_t rows = weight.shape[0], cols = weight.shape[1];
  if (reductionDim == 1) {
    for (int64_t r = 0; r < rows; ++r)
      if (!groupsAre2To4(weight, r * cols, 1, cols))
        return false;
    return true;
  }
  for (int64_t c = 0; c < cols; ++c)
    if (!groupsAre2To4(weight, c, cols, rows))
      return false;
  return true;
}

bool mlir::stc::onnx_import::isFilter2To4(const HostTensor &filter) {
  // F x C x KH x KW, or F x C x K (1-D).
  if ((filter.shape.size() != 4 && filter.shape.size() != 3) ||
      filter.numElements() == 0)
    return false;
  int64_t f = filter.shape[0], c = filter.shape[1], positions = 1;
  for (int64_t d : ArrayRef<int64_t>(filter.shape).drop_front(2))
    positions *= d;
  for (int64_t o = 0; o < f; ++o)
    for (int64_t p = 0; p < positions; ++p)
      if (!groupsAre2To4(filter, o * c * positions + p, positions, c))
        return false;
  return true;
}

void mlir::stc::onnx_import::reportMatrixSparsity(NodeContext &node,
                                                  const HostTensor &weight,
                                                  int64_t reductionDim,
                                                  StringRef dimName) {
  if (isMatrix2To4(weight, reductionDim))
    node.remark("weight '" + weight.name + "' is 2:4 sparse along " + dimName +
                " (--sparsity=enable keeps it sparse)");
}

void mlir::stc::onnx_import::reportFilterSparsity(NodeContext &node,
                                                  const HostTensor &filter) {
  if (filter.shape.size() >= 3 && filter.shape[1] > 1 && isFilter2To4(filter))
    node.remark("weight '" + filter.name +
                "' is 2:4 sparse along its input channels (--sparsity=enable "
                "keeps it sparse)");
}
