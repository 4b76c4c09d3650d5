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

/// A Conv whose input is the DequantizeLinear of an int8 activation with
/// one scale, and whose filter is that of a constant int8 filter with
/// per-tensor or per-output-channel (axis 0) scales, zero points 0: an
/// i8 x i8 -> i32 convolution (which stc-sparsify-convolutions turns into
/// the i8 stc.conv) rescaled per output channel to float, then the bias.
/// Returns false (emitting nothing) when the pattern does not hold.
FailureOr<bool> convertQdqConv(NodeContext &node);

/// The int8 side of emitConv: the per-output-channel f32 factors (the
/// activation scale times each filter scale) and the float result type.
struct QuantizedConv {
  Value scale;
  Type resultType;
};

/// Emits the Conv of the Conv node `node` over `x` (NCHW, or NCL for 1-D)
/// with the given filter and bias (may be null) and returns its result in
/// the same layout (ConvolutionOps.cpp). With `quantized`, x and the filter
/// are int8 and the i32 result is rescaled before the bias.
FailureOr<Value> emitConv(NodeContext &node, Value x, Value filter, Value bias,
                          const QuantizedConv *quantized = nullptr);

/// The same for a Gemm (transA = 0): a weight N x K with transB = 1
/// (per-output-channel scales along axis 0) is transposed at import, alpha
/// joins the per-channel factors, and beta * C is added to the rescaled
/// product.
FailureOr<bool> convertQdqGemm(NodeContext &node);

} // namespace mlir::stc::onnx_import

#endif // STC_COMPILER_ONNX_QUANTIZATION_H
