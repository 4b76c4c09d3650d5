//===- Contraction.h - Gemm for the other converters --------*- C++ -*-===//
//
// The Gemm emission of ContractionOps.cpp, for the BatchNormalization
// folding of ConvolutionOps.cpp, which re-emits a Gemm with folded
// constants.
//
//===----------------------------------------------------------------------===//
#ifndef STC_COMPILER_ONNX_CONTRACTION_H
#define STC_COMPILER_ONNX_CONTRACTION_H

#include "compiler/onnx/Importer.h"

namespace mlir::stc::onnx_import {

/// Y = alpha * A' B' + cScale * C of the Gemm `node` (its transA and
/// transB) with A = `a`, B = `w` and C = `c` (null: none); `wConstant` is
/// B's elements when known (for the 2:4 report).
FailureOr<Value> emitGemm(NodeContext &node, Value a, Value w,
                          const HostTensor *wConstant, double alpha, Value c,
                          double cScale);

} // namespace mlir::stc::onnx_import

#endif // STC_COMPILER_ONNX_CONTRACTION_H
