//===- FuseEpilogue.h - element-wise tails a kernel epilogue takes -*- C++
//-*-//
//
// The element-wise consumers of a product that stc-fuse-epilogue folds into
// a stc.spmm / stc.conv epilogue, for the other kernels with the same
// epilogue: stc-lower-spmm-to-gpu folds them into the dense tensor-core
// kernels of passes/GPU/DenseGemm.h when it lowers a linalg contraction or
// convolution. Each matcher takes the consumer `g`, the product's result
// `x` and their rank; a bias is indexed by loop `channelDim`.
//
//===----------------------------------------------------------------------===//
#ifndef STC_PASSES_FUSEEPILOGUE_H
#define STC_PASSES_FUSEEPILOGUE_H

#include "dialects/Stc/StcOps.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlir::stc::epilogue {

/// g = x + bias[c], bias of rank 1: the bias, or null.
Value matchBiasAdd(linalg::GenericOp g, Value x, unsigned rank,
                   unsigned channelDim);
/// g = x + r, r of x's type read through the identity: r, or null.
Value matchResidualAdd(linalg::GenericOp g, Value x, unsigned rank);
/// g = max(x, 0) (or select(x > 0, x, 0)).
bool matchRelu(linalg::GenericOp g, Value x, unsigned rank);
/// g = the erf GELU of x, as the ONNX importer writes it.
bool matchGeluErf(linalg::GenericOp g, Value x, unsigned rank);

} // namespace mlir::stc::epilogue

#endif // STC_PASSES_FUSEEPILOGUE_H
