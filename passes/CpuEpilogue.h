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

/// What the epilogue adds to the f32 product.
struct EpilogueSpec {
  /// Rank-1 bias (any float type) read through `biasMap`, or null.
  Value bias;
  AffineMap biasMap;
  /// Accumulator (any float type) with the result's shape, or null.
  Value acc;
  double alpha = 1.0;
  double beta = 0.0;
  Activation activation = Activation::none;
};

/// Builds `act(alpha * prod + beta * acc + bias)` of type `resultType`
/// (whose dynamic sizes are `dynamicSizes`, in order) as one element-wise
/// linalg.generic. `prod` is f32 and read through `prodMap`; `acc` through
/// the identity.
Value buildCpuEpilogue(ImplicitLocOpBuilder &b, Value prod, AffineMap prodMap,
                       RankedTensorType resultType, ValueRange dynamicSizes,
                       const EpilogueSpec &spec);

} // namespace mlir::stc

#endif // STC_PASSES_CPUEPILOGUE_H
