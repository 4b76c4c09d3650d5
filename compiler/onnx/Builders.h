//===- Builders.h - IR building blocks of the converters ----*- C++ -*-===//
//
// What several op families share: empty and filled tensors, scalar
// conversions, parallel and reducing linalg.generic ops, ONNX
// (NumPy-style) broadcasting, and reshapes that keep constants constant.
//
//===----------------------------------------------------------------------===//
#ifndef STC_COMPILER_ONNX_BUILDERS_H
#define STC_COMPILER_ONNX_BUILDERS_H

#include "compiler/onnx/Importer.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::stc::onnx_import {

/// Sizes of tensor `v`: attributes where static, tensor.dim where dynamic.
SmallVector<OpFoldResult> getSizes(OpBuilder &b, Location loc, Value v);

/// The static shape of `sizes` (kDynamic for values).
SmallVector<int64_t> staticShape(ArrayRef<OpFoldResult> sizes);

/// A tensor.empty of `sizes`.
Value emptyTensor(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes,
                  Type elementType);

/// A tensor of `sizes` filled with the scalar `value` (linalg.fill).
Value filledTensor(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes,
                   Value value);

/// A scalar constant of float or integer type `type`.
Value scalarConstant(OpBuilder &b, Location loc, Type type, double value);

/// Converts scalar `v` to type `to` (extf/truncf, sitofp/fptosi,
/// extsi/trunci; signed integers).
Value convertScalar(OpBuilder &b, Location loc, Value v, Type to);

/// The type element-wise math runs in for elements of `type`: f32 for f16
/// and bf16 (results are rounded once, at the end), else `type`.
Type computeTypeOf(Type type);

/// Computes the body of an op in the given scalar values, returning its
/// result.
using BodyFn = function_ref<Value(OpBuilder &, Location, ValueRange)>;

/// A linalg.generic with only parallel loops over `sizes` writing a new
/// tensor of `elementType`; input `i` is read through `maps[i]`.
Value buildParallelGeneric(OpBuilder &b, Location loc,
                           ArrayRef<OpFoldResult> sizes, Type elementType,
                           ValueRange inputs, ArrayRef<AffineMap> maps,
                           BodyFn body);

/// A linalg.generic reducing the dimensions `reduced` of `input` (read
/// through the identity) into a tensor of the other dimensions, initialized
/// to `init`; `combine(acc, element)` folds one element in (the element is
/// converted to `init`'s type first).
Value buildReduction(
    OpBuilder &b, Location loc, Value input, ArrayRef<int64_t> reduced,
    Value init,
    function_ref<Value(OpBuilder &, Location, Value, Value)> combine);

/// The map of an operand of rank `operandRank` indexed by the reduction's
/// kept dimensions: `kept` lists the loop dimensions it follows.
AffineMap keptDimsMap(MLIRContext *ctx, unsigned numLoops,
                      ArrayRef<int64_t> kept);

//===----------------------------------------------------------------------===//
// Broadcasting
//===----------------------------------------------------------------------===//

/// Operands brought to a common shape: each is read through its map, after
/// its broadcast unit dimensions were dropped (so that a [1, N] bias reads
/// as a rank-1 [N] one, the form stc-fuse-epilogue recognizes).
struct Broadcast {
  SmallVector<OpFoldResult> sizes;
  SmallVector<Value> operands;
  SmallVector<AffineMap> maps;
};

/// The NumPy broadcast of `shapes`; fails naming them when two static sizes
/// differ and neither is 1. A dynamic size is assumed to match a static one
/// (a dynamic 1 that broadcasts is not supported).
FailureOr<SmallVector<OpFoldResult>>
broadcastSizes(NodeContext &node, ArrayRef<SmallVector<OpFoldResult>> shapes);

/// ONNX multidirectional (NumPy) broadcasting of `operands`. Dynamic
/// dimensions are assumed to match their static counterparts (a dynamic 1
/// that broadcasts is not supported). Fails, naming the shapes, when two
/// static sizes differ and neither is 1.
FailureOr<Broadcast> broadcastOperands(NodeContext &node,
                                       ArrayRef<Value> operands);

/// An element-wise op over `operands` (broadcast), writing `resultType`
/// elements. When the result would be the tensor.expand_shape of a rank-2
/// value (a MatMul of a rank-3 input) and the other operands vary only
/// along its last dimension, the op runs on the rank-2 value and the
/// expand_shape moves after it, so that a bias add or activation sits next
/// to the contraction it follows.
FailureOr<Value> buildElementwise(NodeContext &node, ArrayRef<Value> operands,
                                  Type resultType, BodyFn body);

//===----------------------------------------------------------------------===//
// Reshaping
//===----------------------------------------------------------------------===//

/// `v` with type `type` (same elements in the same order) as a new
/// constant when `v` is one, else null.
Value reshapeConstant(OpBuilder &b, Location loc, Value v,
                      RankedTensorType type);

/// `v` with the dimensions where `drop` is set (all static 1) removed.
Value dropUnitDims(OpBuilder &b, Location loc, Value v, ArrayRef<bool> drop);

/// `v` reshaped to `sizes` (same number of elements, row-major order): a
/// constant stays one; otherwise collapse_shape and/or expand_shape.
Value reshapeTo(OpBuilder &b, Location loc, Value v,
                ArrayRef<OpFoldResult> sizes);

/// The product of `sizes` as an index value or attribute.
OpFoldResult productOf(OpBuilder &b, Location loc,
                       ArrayRef<OpFoldResult> sizes);

/// `linalg.transpose` of `v` by `perm`.
Value transposeTensor(OpBuilder &b, Location loc, Value v,
                      ArrayRef<int64_t> perm);

/// Normalizes axis `axis` of a rank-`rank` tensor (negative counts from the
/// end); fails naming `what` when out of range.
FailureOr<int64_t> normalizeAxis(NodeContext &node, int64_t axis, int64_t rank,
                                 StringRef what = "axis");

} // namespace mlir::stc::onnx_import

#endif // STC_COMPILER_ONNX_BUILDERS_H
