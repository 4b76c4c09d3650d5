//===- Quantization.h - QDQ around contractions -------------*- C++ -*-===//
//
// TensorRT-style quantized models mark quantized tensors with
// QuantizeLinear/DequantizeLinear (QDQ) pairs: a MatMul (or Gemm) whose
// operands are both DequantizeLinear outputs, of an int8 activation with a
// per-tensor scale and an int8 constant weight with a per-tensor or
// per-output-channel scale, zero points 0, is an int8 product.
// QuantizationOps.cpp emits it as linalg.matmul i8 x i8 -> i32 (which
// stc-sparsify-contractions turns into the i8 stc.spmm) followed by the
// per-channel rescaling to float, which stc-fuse-epilogue folds into the
// stc.spmm's scaling epilogue.
//
//===----------------------------------------------------------------------===//
#ifndef STC_COMPILER_ONNX_QUANTIZATION_H
#define STC_COMPILER_ONNX_QUANTIZATION_H

#include "compiler/onnx/Importer.h"

namespace mlir::stc::onnx_import {

/// Converts the MatMul `node` as an int8 product when its operands are QDQ
/// outputs as described above; returns false (emitting nothing) when they
/// are not.
FailureOr<bool> convertQdqMatMul(NodeContext &node);

/// The same for a Gemm (transA = 0): a weight N x K with transB = 1
/// (per-output-channel scales along axis 0) is transposed at import, alpha
/// joins the per-channel factors, and beta * C is added to the rescaled
/// product.
FailureOr<bool> convertQdqGemm(NodeContext &node);

} // namespace mlir::stc::onnx_import

#endif // STC_COMPILER_ONNX_QUANTIZATION_H
