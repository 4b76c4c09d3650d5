//===- ConstantFolding.h - small expressions at import time -*- C++ -*-===//
//
// Element-wise operators whose inputs are all known at import time and
// small (shape arithmetic, mostly: torch exports Shape -> Gather -> Mul ->
// Concat -> Reshape chains) are evaluated while importing, so that the
// shapes they compute are constants the shape operators can read.
//
//===----------------------------------------------------------------------===//
#ifndef STC_COMPILER_ONNX_CONSTANTFOLDING_H
#define STC_COMPILER_ONNX_CONSTANTFOLDING_H

#include "compiler/onnx/Importer.h"

namespace mlir::stc::onnx_import {

/// Largest tensor (in elements) folded at import time.
constexpr int64_t kMaxFoldedElements = 4096;

/// Evaluates the binary operator `kind` (0 Add, 1 Sub, 2 Mul, 3 Div, 4 Pow,
/// as ElementwiseOps.cpp numbers them) of node `node` when both inputs are
/// small constants with a common broadcast shape; sets the node's output
/// and returns true then.
bool foldBinary(NodeContext &node, int kind);

} // namespace mlir::stc::onnx_import

#endif // STC_COMPILER_ONNX_CONSTANTFOLDING_H
