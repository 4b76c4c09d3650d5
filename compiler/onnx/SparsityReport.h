//===- SparsityReport.h - 2:4 weights found at import -------*- C++ -*-===//
//
// ASP/TensorRT prune weights 2:4 along their reduction dimension: K for
// MatMul/Gemm, the input channels for Conv (for each output channel and
// filter position). The importer checks every constant weight it converts
// and says with a remark (`--remarks`) which already have that pattern:
// those are what `--sparsity=enable` turns into sparse operations, by the
// same rule (groups of 4 consecutive elements, the last zero-padded, at
// most 2 non-zeros each).
//
//===----------------------------------------------------------------------===//
#ifndef STC_COMPILER_ONNX_SPARSITYREPORT_H
#define STC_COMPILER_ONNX_SPARSITYREPORT_H

#include "compiler/onnx/Importer.h"

namespace mlir::stc::onnx_import {

/// Whether every group of 4 consecutive elements along dimension
/// `reductionDim` of the rank-2 `weight` holds at most 2 non-zeros.
bool isMatrix2To4(const HostTensor &weight, int64_t reductionDim);

/// Whether the F x C x KH x KW `filter` is 2:4 along C for every (f, kh,
/// kw).
bool isFilter2To4(const HostTensor &filter);

/// Remarks that the weight of `node` is 2:4 when it is: a rank-2 matrix
/// reduced along `reductionDim` (named `dimName`, "K"), or a filter.
void reportMatrixSparsity(NodeContext &node, const HostTensor &weight,
                          int64_t reductionDim, StringRef dimName);
void reportFilterSparsity(NodeContext &node, const HostTensor &filter);

} // namespace mlir::stc::onnx_import

#endif // STC_COMPILER_ONNX_SPARSITYREPORT_H
