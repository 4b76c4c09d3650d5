//===- NormalizationOps.cpp - LayerNorm, Softmax, reductions -*- C++ -*-===//
//
// LayerNormalization, Softmax and ReduceMean/ReduceSum/ReduceMax as
// linalg.generic reductions and element-wise ops. Reductions accumulate in
// f32 whatever the element type (LayerNormalization's stash_type=1), and
// half-precision results are rounded once, at the end.
//
//===----------------------------------------------------------------------===//
#include "compiler/onnx/Builders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <limits>

using namespace mlir;
using namespace mlir::stc::onnx_import;

namespace {

/// The dimensions of `rank` not in `reduced`.
SmallVector<int64_t> keptDims(int64_t rank, ArrayRef<int64_t> reduced) {
  SmallVector<int64_t> kept;
  for (int64_t d = 0; d < rank; ++d)
    if (!llvm::is_contained(reduced, d))
      kept.push_back(d);
  return kept;
}

/// The number of elements each reduction combines, as an f32 scalar.
Value reducedCount(OpBuilder &b, Location loc, Value x,
                   ArrayRef<int64_t> reduced) {
  SmallVector<OpFoldResult> sizes = getSizes(b, loc, x);
  SmallVector<OpFoldResult> picked;
  for (int64_t d : reduced)
    picked.push_back(sizes[d]);
  OpFoldResult count = productOf(b, loc, picked);
  if (std::optional<int64_t> c = getConstantIntValue(count))
    return scalarConstant(b, loc, b.getF32Type(), static_cast<double>(*c));
  Value i64 =
      arith::IndexCastOp::create(b, loc, b.getI64Type(), cast<Value>(count));
  return arith::SIToFPOp::create(b, loc, b.getF32Type(), i64);
}

Value addF(OpBuilder &b, Location loc, Value acc, Value x) {
  return arith::AddFOp::create(b, loc, acc, x);
}

Value maxF(OpBuilder &b, Location loc, Value acc, Value x) {
  return arith::MaximumFOp::create(b, loc, acc, x);
}

/// Sum over `reduced` of (x - mean)^2, in f32; `mean` has the kept
/// dimensions.
Value sumOfSquares(OpBuilder &b, Location loc, Value x, Value mean,
                   ArrayRef<int64_t> reduced) {
  int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
  SmallVector<int64_t> kept = keptDims(rank, reduced);
  Type f32 = b.getF32Type();
  Value acc = filledTensor(b, loc, getSizes(b, loc, mean),
                           scalarConstant(b, loc, f32, 0.0));
  AffineMap keptMap = keptDimsMap(b.getContext(), rank, kept);
  SmallVector<utils::IteratorType> iterators;
  for (int64_t d = 0; d < rank; ++d)
    iterators.push_back(llvm::is_contained(reduced, d)
                            ? utils::IteratorType::reduction
                            : utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, TypeRange{acc.getType()}, ValueRange{x, mean},
             ValueRange{acc},
             {b.getMultiDimIdentityMap(rank), keptMap, keptMap}, iterators,
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               Value d = arith::SubFOp::create(
                   nb, nl, convertScalar(nb, nl, args[0], f32), args[1]);
               Value sq = arith::MulFOp::create(nb, nl, d, d);
               linalg::YieldOp::create(
                   nb, nl,
                   arith::AddFOp::create(nb, nl, args[2], sq).getResult());
             })
      .getResult(0);
}

LogicalResult convertLayerNorm(NodeContext &node) {
  FailureOr<int64_t> axisAttr = node.getInt("axis", -1);
  FailureOr<double> epsilon = node.getFloat("epsilon", 1e-5);
  FailureOr<int64_t> stash = node.getInt("stash_type", 1);
  if (failed(axisAttr) || failed(epsilon) || failed(stash))
    return failure();
  if (*stash != 1)
    return node.fail("stash_type " + Twine(*stash) +
                     " is not supported (1: statistics in f32)");
  FailureOr<Value> xOr = node.input(0);
  if (failed(xOr))
    return failure();
  Value x = *xOr;
  auto type = cast<RankedTensorType>(x.getType());
  Type elementType = type.getElementType();
  if (!isa<FloatType>(elementType))
    return node.fail("needs a float input");
  int64_t rank = type.getRank();
  FailureOr<int64_t> axis = normalizeAxis(node, *axisAttr, rank);
  if (failed(axis))
    return failure();
  OpBuilder &b = node.b;
  Location loc = node.loc;
  SmallVector<int64_t> reduced =
      llvm::to_vector(llvm::seq<int64_t>(*axis, rank));
  SmallVector<int64_t> kept = keptDims(rank, reduced);
  Type f32 = b.getF32Type();

  Value count = reducedCount(b, loc, x, reduced);
  Value sum =
      buildReduction(b, loc, x, reduced, scalarConstant(b, loc, f32, 0), addF);
  AffineMap keptFlat = b.getMultiDimIdentityMap(kept.size());
  Value mean = buildParallelGeneric(
      b, loc, getSizes(b, loc, sum), f32, ValueRange{sum}, {keptFlat},
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        return arith::DivFOp::create(nb, nl, args[0], count).getResult();
      });
  Value squares = sumOfSquares(b, loc, x, mean, reduced);

  // y = (x - mean) / sqrt(var + eps) * scale + bias, scale and bias
  // indexed by the normalized dimensions.
  SmallVector<Value> inputs = {x, mean, squares};
  AffineMap keptMap = keptDimsMap(b.getContext(), rank, kept);
  SmallVector<AffineMap> maps = {b.getMultiDimIdentityMap(rank), keptMap,
                                 keptMap};
  for (unsigned i = 1; i <= 2; ++i) {
    if (i == 2 && !node.hasInput(i))
      continue;
    FailureOr<Value> p = node.input(i);
    if (failed(p))
      return failure();
    auto pType = cast<RankedTensorType>(p->getType());
    if (pType.getElementType() != elementType ||
        pType.getRank() != rank - *axis)
      return node.fail(Twine(i == 1 ? "Scale" : "B") +
                       " must have the input's element type and the rank "
                       "of the normalized dimensions (" +
                       Twine(rank - *axis) + ")");
    inputs.push_back(*p);
    maps.push_back(keptDimsMap(b.getContext(), rank, reduced));
  }
  bool hasBias = node.hasInput(2);
  double eps = *epsilon;
  Value y = buildParallelGeneric(
      b, loc, getSizes(b, loc, x), elementType, inputs, maps,
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        Value var = arith::DivFOp::create(nb, nl, args[2], count);
        // 1 / sqrt (math.rsqrt has no libm function to lower to).
        Value inv = arith::DivFOp::create(
            nb, nl, scalarConstant(nb, nl, f32, 1.0),
            math::SqrtOp::create(
                nb, nl,
                arith::AddFOp::create(nb, nl, var,
                                      scalarConstant(nb, nl, f32, eps))));
        Value v = arith::MulFOp::create(
            nb, nl,
            arith::SubFOp::create(nb, nl, convertScalar(nb, nl, args[0], f32),
                                  args[1]),
            inv);
        v = arith::MulFOp::create(nb, nl, v,
                                  convertScalar(nb, nl, args[3], f32));
        if (hasBias)
          v = arith::AddFOp::create(nb, nl, v,
                                    convertScalar(nb, nl, args[4], f32));
        return convertScalar(nb, nl, v, elementType);
      });
  node.setOutput(0, y);
  return success();
}

LogicalResult convertSoftmax(NodeContext &node) {
  FailureOr<int64_t> axisAttr = node.getInt("axis", -1);
  FailureOr<Value> xOr = node.input(0);
  if (failed(axisAttr) || failed(xOr))
    return failure();
  Value x = *xOr;
  auto type = cast<RankedTensorType>(x.getType());
  Type elementType = type.getElementType();
  if (!isa<FloatType>(elementType))
    return node.fail("needs a float input");
  int64_t rank = type.getRank();
  FailureOr<int64_t> axis = normalizeAxis(node, *axisAttr, rank);
  if (failed(axis))
    return failure();
  OpBuilder &b = node.b;
  Location loc = node.loc;
  Type f32 = b.getF32Type();
  SmallVector<int64_t> reduced = {*axis};
  AffineMap keptMap =
      keptDimsMap(b.getContext(), rank, keptDims(rank, reduced));
  AffineMap identity = b.getMultiDimIdentityMap(rank);
  SmallVector<OpFoldResult> sizes = getSizes(b, loc, x);
  // exp(x - max) / sum(exp(x - max)), max and sum along the axis.
  Value max = buildReduction(
      b, loc, x, reduced,
      scalarConstant(b, loc, f32, -std::numeric_limits<double>::infinity()),
      maxF);
  Value exps = buildParallelGeneric(
      b, loc, sizes, f32, ValueRange{x, max}, {identity, keptMap},
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        Value d = arith::SubFOp::create(
            nb, nl, convertScalar(nb, nl, args[0], f32), args[1]);
        return math::ExpOp::create(nb, nl, d).getResult();
      });
  Value sum = buildReduction(b, loc, exps, reduced,
                             scalarConstant(b, loc, f32, 0.0), addF);
  Value y = buildParallelGeneric(
      b, loc, sizes, elementType, ValueRange{exps, sum}, {identity, keptMap},
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        Value v = arith::DivFOp::create(nb, nl, args[0], args[1]);
        return convertScalar(nb, nl, v, elementType);
      });
  node.setOutput(0, y);
  return success();
}

/// ReduceMean, ReduceSum, ReduceMax over `axes` (attribute, or input 1 for
/// ReduceSum), keepdims.
LogicalResult convertReduce(NodeContext &node) {
  StringRef op = node.node.op_type();
  FailureOr<int64_t> keepDims = node.getInt("keepdims", 1);
  FailureOr<int64_t> noopEmpty = node.getInt("noop_with_empty_axes", 0);
  FailureOr<std::optional<SmallVector<int64_t>>> axesAttr =
      node.getInts("axes");
  FailureOr<Value> xOr = node.input(0);
  if (failed(keepDims) || failed(noopEmpty) || failed(axesAttr) || failed(xOr))
    return failure();
  Value x = *xOr;
  auto type = cast<RankedTensorType>(x.getType());
  Type elementType = type.getElementType();
  if (!isa<FloatType>(elementType))
    return node.fail("needs a float input");
  int64_t rank = type.getRank();
  SmallVector<int64_t> axes;
  if (*axesAttr) {
    axes = **axesAttr;
  } else if (node.hasInput(1)) {
    FailureOr<const HostTensor *> t = node.requireConstant(1, "axes");
    if (failed(t))
      return failure();
    axes = llvm::to_vector((*t)->toInts());
  }
  if (axes.empty()) {
    if (*noopEmpty) {
      node.setOutput(0, x);
      return success();
    }
    axes = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  }
  SmallVector<int64_t> reduced;
  for (int64_t a : axes) {
    FailureOr<int64_t> n = normalizeAxis(node, a, rank, "axis");
    if (failed(n))
      return failure();
    if (!llvm::is_contained(reduced, *n))
      reduced.push_back(*n);
  }
  llvm::sort(reduced);
  OpBuilder &b = node.b;
  Location loc = node.loc;
  Type f32 = b.getF32Type();
  bool isMax = op == "ReduceMax";
  Value init = scalarConstant(
      b, loc, f32, isMax ? -std::numeric_limits<double>::infinity() : 0.0);
  Value r = buildReduction(b, loc, x, reduced, init, isMax ? maxF : addF);
  Value count = op == "ReduceMean" ? reducedCount(b, loc, x, reduced) : Value();
  SmallVector<OpFoldResult> keptSizes = getSizes(b, loc, r);
  Value y =
      buildParallelGeneric(b, loc, keptSizes, elementType, ValueRange{r},
                           {b.getMultiDimIdentityMap(keptSizes.size())},
                           [&](OpBuilder &nb, Location nl, ValueRange args) {
                             Value v = args[0];
                             if (count)
                               v = arith::DivFOp::create(nb, nl, v, count);
                             return convertScalar(nb, nl, v, elementType);
                           });
  if (*keepDims) {
    SmallVector<OpFoldResult> sizes = getSizes(b, loc, x);
    for (int64_t d : reduced)
      sizes[d] = b.getIndexAttr(1);
    y = reshapeTo(b, loc, y, sizes);
  }
  node.setOutput(0, y);
  return success();
}

const OpConverter kConverters[] = {
    {"LayerNormalization", convertLayerNorm, "axis,epsilon,stash_type", 1},
    {"Softmax", convertSoftmax, "axis", 1},
    {"ReduceMean", convertReduce, "axes,keepdims", 1},
    {"ReduceMax", convertReduce, "axes,keepdims", 1},
    {"ReduceSum", convertReduce, "keepdims,noop_with_empty_axes", 1},
};

} // namespace

ArrayRef<OpConverter> mlir::stc::onnx_import::getNormalizationConverters() {
  return kConverters;
}
