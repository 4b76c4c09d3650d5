//===- CpuEpilogue.h - fused epilogue of the CPU lowerings ---*- C++ -*-===//
//
// The element-wise epilogue shared by the CPU lowerings of stc.spmm and
// stc.conv: act(alpha * prod + beta * acc + bias) in f32, converted to the
// result element type, as one linalg.generic over the result.
//
//===----------------------------------------------------------------------===//
#ifndef STC_PASSES_CPUEPILOGUE_H
#define STC_PASSES_CPUEPILOGUE_H

#include "dialects/Stc/StcAttrs.h"

#include "mlir/IR/AffineMap.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

namespace mlir::stc {

/// What the epilogue adds to the product (f32, or i32 for i8 operands).
struct EpilogueSpec {
  /// Rank-1 bias (any float type) read through `biasMap`, or null.
  Value bias;
  AffineMap biasMap;
  /// Rank-1 f32 per-channel factor read through `biasMap`, or null.
  Value scale;
  /// Accumulator (float, i8 or i32) with the result's shape, or null.
  Value acc;
  double alpha = 1.0;
  double beta = 0.0;
  Activation activation = Activation::none;
};

/// Builds `act(alpha * scale * prod + beta * acc + bias)` of type
/// `resultType` (whose dynamic sizes are `dynamicSizes`, in order) as one
/// element-wise linalg.generic. `prod` (f32, or i32) is read through
/// `prodMap`; `acc` through the identity. An i32 product with an i32 result
/// is copied as it is (stc.spmm allows no epilogue there).
Value buildCpuEpilogue(ImplicitLocOpBuilder &b, Value prod, AffineMap prodMap,
                       RankedTensorType resultType, ValueRange dynamicSizes,
                       const EpilogueSpec &spec);

/// `v` (a float or signed integer) as f32.
Value epilogueToF32(ImplicitLocOpBuilder &b, Value v);

/// The f32 epilogue value `x` in the result element type `outElem`: itself,
/// rounded to f16/bf16, or requantized to i8 (round to nearest even,
/// saturated; NaN gives 0). Shared by the CPU and GPU lowerings so that
/// both round alike.
Value convertEpilogueResult(ImplicitLocOpBuilder &b, Value x, Type outElem);

} // namespace mlir::stc

#endif // STC_PASSES_CPUEPILOGUE_H
