//===- Builders.cpp - IR building blocks of the converters --*- C++ -*-===//
//
// See Builders.h.
//
//===----------------------------------------------------------------------===//
#include "compiler/onnx/Builders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"

using namespace mlir;
using namespace mlir::stc::onnx_import;

/// Size `d` of tensor `v`, traced back through the ops that produced it
/// to the function arguments: a tensor.dim of an intermediate result
/// would be one more use of it, and stc-fuse-epilogue only folds the
/// single user of a contraction.
static OpFoldResult dimOf(OpBuilder &b, Location loc, Value v, int64_t d) {
  auto type = cast<RankedTensorType>(v.getType());
  if (!type.isDynamicDim(d))
    return b.getIndexAttr(type.getDimSize(d));
  Operation *def = v.getDefiningOp();
  if (auto dps = dyn_cast_or_null<DestinationStyleOpInterface>(def))
    return dimOf(b, loc, dps.getTiedOpOperand(cast<OpResult>(v))->get(), d);
  if (auto empty = dyn_cast_or_null<tensor::EmptyOp>(def))
    return empty.getMixedSizes()[d];
  if (auto cast = dyn_cast_or_null<tensor::CastOp>(def))
    return dimOf(b, loc, cast.getSource(), d);
  if (auto expand = dyn_cast_or_null<tensor::ExpandShapeOp>(def))
    return expand.getMixedOutputShape()[d];
  if (auto collapse = dyn_cast_or_null<tensor::CollapseShapeOp>(def)) {
    // Held in a local: a range-for over an element of the returned vector
    // would read it after the temporary is gone (ASan found it).
    SmallVector<ReassociationIndices> groups =
        collapse.getReassociationIndices();
    SmallVector<OpFoldResult> group;
    for (int64_t i : groups[d])
      group.push_back(dimOf(b, loc, collapse.getSrc(), i));
    return productOf(b, loc, group);
  }
  return tensor::DimOp::create(b, loc, v, d).getResult();
}

SmallVector<OpFoldResult>
mlir::stc::onnx_import::getSizes(OpBuilder &b, Location loc, Value v) {
  SmallVector<OpFoldResult> sizes;
  for (int64_t d = 0, e = cast<RankedTensorType>(v.getType()).getRank(); d < e;
       ++d)
    sizes.push_back(dimOf(b, loc, v, d));
  return sizes;
}

SmallVector<int64_t>
mlir::stc::onnx_import::staticShape(ArrayRef<OpFoldResult> sizes) {
  SmallVector<int64_t> shape;
  for (OpFoldResult s : sizes)
    shape.push_back(getConstantIntValue(s).value_or(ShapedType::kDynamic));
  return shape;
}

Value mlir::stc::onnx_import::emptyTensor(OpBuilder &b, Location loc,
                                          ArrayRef<OpFoldResult> sizes,
                                          Type elementType) {
  return tensor::EmptyOp::create(b, loc, sizes, elementType);
}

Value mlir::stc::onnx_import::filledTensor(OpBuilder &b, Location loc,
                                           ArrayRef<OpFoldResult> sizes,
                                           Value value) {
  Value empty = emptyTensor(b, loc, sizes, value.getType());
  return linalg::FillOp::create(b, loc, ValueRange{value}, ValueRange{empty})
      .getResult(0);
}

Value mlir::stc::onnx_import::scalarConstant(OpBuilder &b, Location loc,
                                             Type type, double value) {
  if (auto f = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(f, value));
  return arith::ConstantOp::create(
      b, loc, b.getIntegerAttr(type, static_cast<int64_t>(value)));
}

Value mlir::stc::onnx_import::convertScalar(OpBuilder &b, Location loc, Value v,
                                            Type to) {
  Type from = v.getType();
  if (from == to)
    return v;
  auto fromFloat = dyn_cast<FloatType>(from);
  auto toFloat = dyn_cast<FloatType>(to);
  if (fromFloat && toFloat) {
    if (fromFloat.getWidth() < toFloat.getWidth())
      return arith::ExtFOp::create(b, loc, to, v);
    if (fromFloat.getWidth() > toFloat.getWidth())
      return arith::TruncFOp::create(b, loc, to, v);
    // f16 <-> bf16: through f32.
    Value wide = arith::ExtFOp::create(b, loc, b.getF32Type(), v);
    return arith::TruncFOp::create(b, loc, to, wide);
  }
  if (fromFloat)
    return arith::FPToSIOp::create(b, loc, to, v);
  if (toFloat)
    return arith::SIToFPOp::create(b, loc, to, v);
  if (from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth())
    return arith::ExtSIOp::create(b, loc, to, v);
  return arith::TruncIOp::create(b, loc, to, v);
}

Type mlir::stc::onnx_import::computeTypeOf(Type type) {
  if (type.isF16() || type.isBF16())
    return Float32Type::get(type.getContext());
  return type;
}

Value mlir::stc::onnx_import::buildParallelGeneric(
    OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes, Type elementType,
    ValueRange inputs, ArrayRef<AffineMap> maps, BodyFn body) {
  Value init = emptyTensor(b, loc, sizes, elementType);
  SmallVector<AffineMap> allMaps(maps);
  allMaps.push_back(b.getMultiDimIdentityMap(sizes.size()));
  SmallVector<utils::IteratorType> iterators(sizes.size(),
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, inputs, ValueRange{init}, allMaps,
      iterators, [&](OpBuilder &nb, Location nl, ValueRange args) {
        Value result = body(nb, nl, args.drop_back());
        linalg::YieldOp::create(nb, nl, result);
      });
  return generic.getResult(0);
}

AffineMap mlir::stc::onnx_import::keptDimsMap(MLIRContext *ctx,
                                              unsigned numLoops,
                                              ArrayRef<int64_t> kept) {
  SmallVector<AffineExpr> exprs;
  for (int64_t d : kept)
    exprs.push_back(getAffineDimExpr(d, ctx));
  return AffineMap::get(numLoops, 0, exprs, ctx);
}

Value mlir::stc::onnx_import::buildReduction(
    OpBuilder &b, Location loc, Value input, ArrayRef<int64_t> reduced,
    Value init,
    function_ref<Value(OpBuilder &, Location, Value, Value)> combine) {
  auto type = cast<RankedTensorType>(input.getType());
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> sizes = getSizes(b, loc, input);
  SmallVector<OpFoldResult> keptSizes;
  SmallVector<int64_t> kept;
  SmallVector<utils::IteratorType> iterators;
  for (int64_t d = 0; d < rank; ++d) {
    bool isReduced = llvm::is_contained(reduced, d);
    iterators.push_back(isReduced ? utils::IteratorType::reduction
                                  : utils::IteratorType::parallel);
    if (!isReduced) {
      kept.push_back(d);
      keptSizes.push_back(sizes[d]);
    }
  }
  Value acc = filledTensor(b, loc, keptSizes, init);
  SmallVector<AffineMap> maps = {b.getMultiDimIdentityMap(rank),
                                 keptDimsMap(b.getContext(), rank, kept)};
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{acc.getType()}, ValueRange{input}, ValueRange{acc},
      maps, iterators, [&](OpBuilder &nb, Location nl, ValueRange args) {
        Value element = convertScalar(nb, nl, args[0], args[1].getType());
        linalg::YieldOp::create(nb, nl, combine(nb, nl, args[1], element));
      });
  return generic.getResult(0);
}

//===----------------------------------------------------------------------===//
// Broadcasting
//===----------------------------------------------------------------------===//

static std::string shapeString(ArrayRef<int64_t> shape) {
  std::string s = "[";
  for (auto [i, d] : llvm::enumerate(shape))
    s += (i ? "," : "") +
         (ShapedType::isDynamic(d) ? std::string("?") : std::to_string(d));
  return s + "]";
}

FailureOr<SmallVector<OpFoldResult>> mlir::stc::onnx_import::broadcastSizes(
    NodeContext &node, ArrayRef<SmallVector<OpFoldResult>> shapes) {
  size_t rank = 0;
  for (const SmallVector<OpFoldResult> &s : shapes)
    rank = std::max(rank, s.size());
  SmallVector<OpFoldResult> result;
  for (size_t d = 0; d < rank; ++d) {
    OpFoldResult size = node.b.getIndexAttr(1);
    std::optional<int64_t> fixed;
    for (const SmallVector<OpFoldResult> &s : shapes) {
      if (d + s.size() < rank)
        continue;
      OpFoldResult here = s[d + s.size() - rank];
      std::optional<int64_t> c = getConstantIntValue(here);
      if (!c) {
        if (!fixed && isConstantIntValue(size, 1))
          size = here;
        continue;
      }
      if (*c == 1)
        continue;
      if (fixed && *fixed != *c) {
        std::string text;
        for (auto [k, o] : llvm::enumerate(shapes))
          text += (k ? " and " : "") + shapeString(staticShape(o));
        return node.fail("shapes " + text + " do not broadcast");
      }
      fixed = *c;
      size = here;
    }
    result.push_back(size);
  }
  return result;
}

FailureOr<Broadcast>
mlir::stc::onnx_import::broadcastOperands(NodeContext &node,
                                          ArrayRef<Value> operands) {
  OpBuilder &b = node.b;
  Location loc = node.loc;
  SmallVector<SmallVector<OpFoldResult>> shapes;
  for (Value v : operands)
    shapes.push_back(getSizes(b, loc, v));
  FailureOr<SmallVector<OpFoldResult>> sizes = broadcastSizes(node, shapes);
  if (failed(sizes))
    return failure();
  Broadcast result;
  result.sizes = *sizes;
  int64_t rank = result.sizes.size();
  SmallVector<int64_t> shape = staticShape(result.sizes);
  for (Value v : operands) {
    auto type = cast<RankedTensorType>(v.getType());
    int64_t offset = rank - type.getRank();
    SmallVector<bool> drop;
    SmallVector<AffineExpr> exprs;
    for (int64_t i = 0; i < type.getRank(); ++i) {
      bool broadcast = type.getDimSize(i) == 1 && shape[offset + i] != 1;
      drop.push_back(broadcast);
      if (!broadcast)
        exprs.push_back(b.getAffineDimExpr(offset + i));
    }
    result.operands.push_back(dropUnitDims(b, loc, v, drop));
    result.maps.push_back(AffineMap::get(rank, 0, exprs, b.getContext()));
  }
  return result;
}

/// The rank-2 source of `v` when `v` is a tensor.expand_shape that splits
/// only its first dimension (what a MatMul of a rank-3 input produces).
static tensor::ExpandShapeOp leadingExpand(Value v) {
  auto expand = v.getDefiningOp<tensor::ExpandShapeOp>();
  if (!expand || expand.getSrcType().getRank() != 2)
    return nullptr;
  int64_t rank = expand.getResultType().getRank();
  SmallVector<ReassociationIndices> groups = expand.getReassociationIndices();
  if (groups.size() != 2 || groups[1] != ReassociationIndices{rank - 1})
    return nullptr;
  return expand;
}

FailureOr<Value> mlir::stc::onnx_import::buildElementwise(
    NodeContext &node, ArrayRef<Value> operands, Type resultType, BodyFn body) {
  FailureOr<Broadcast> bc = broadcastOperands(node, operands);
  if (failed(bc))
    return failure();
  OpBuilder &b = node.b;
  Location loc = node.loc;
  int64_t rank = bc->sizes.size();
  MLIRContext *ctx = b.getContext();
  AffineExpr last = getAffineDimExpr(rank - 1, ctx);
  for (auto [i, v] : llvm::enumerate(bc->operands)) {
    tensor::ExpandShapeOp expand = rank >= 3 ? leadingExpand(v) : nullptr;
    if (!expand || !bc->maps[i].isIdentity())
      continue;
    // Every other operand must vary along the last dimension at most.
    bool onlyLast = true;
    for (auto [j, map] : llvm::enumerate(bc->maps))
      if (j != i)
        onlyLast &= map.getNumResults() == 0 ||
                    (map.getNumResults() == 1 && map.getResult(0) == last);
    if (!onlyLast)
      continue;
    SmallVector<AffineMap> maps;
    for (auto [j, map] : llvm::enumerate(bc->maps)) {
      if (j == i)
        maps.push_back(b.getMultiDimIdentityMap(2));
      else
        maps.push_back(
            map.getNumResults() == 0
                ? AffineMap::get(2, 0, {}, ctx)
                : AffineMap::get(2, 0, {b.getAffineDimExpr(1)}, ctx));
    }
    SmallVector<Value> inputs(bc->operands);
    inputs[i] = expand.getSrc();
    Value flat = buildParallelGeneric(b, loc, getSizes(b, loc, inputs[i]),
                                      resultType, inputs, maps, body);
    auto type =
        RankedTensorType::get(expand.getResultType().getShape(), resultType);
    return tensor::ExpandShapeOp::create(b, loc, type, flat,
                                         expand.getReassociationIndices(),
                                         expand.getMixedOutputShape())
        .getResult();
  }
  return buildParallelGeneric(b, loc, bc->sizes, resultType, bc->operands,
                              bc->maps, body);
}

//===----------------------------------------------------------------------===//
// Reshaping
//===----------------------------------------------------------------------===//

Value mlir::stc::onnx_import::reshapeConstant(OpBuilder &b, Location loc,
                                              Value v, RankedTensorType type) {
  auto constant = v.getDefiningOp<arith::ConstantOp>();
  if (!constant)
    return nullptr;
  Attribute attr = constant.getValue();
  if (auto dense = dyn_cast<DenseElementsAttr>(attr))
    return arith::ConstantOp::create(b, loc, dense.reshape(type));
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(attr))
    return arith::ConstantOp::create(
        b, loc, DenseResourceElementsAttr::get(type, resource.getRawHandle()));
  return nullptr;
}

Value mlir::stc::onnx_import::dropUnitDims(OpBuilder &b, Location loc, Value v,
                                           ArrayRef<bool> drop) {
  if (!llvm::is_contained(drop, true))
    return v;
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape;
  SmallVector<ReassociationIndices> groups;
  ReassociationIndices leading;
  for (int64_t i = 0; i < type.getRank(); ++i) {
    if (drop[i]) {
      if (groups.empty())
        leading.push_back(i);
      else
        groups.back().push_back(i);
      continue;
    }
    ReassociationIndices group = leading;
    leading.clear();
    group.push_back(i);
    groups.push_back(group);
    shape.push_back(type.getDimSize(i));
  }
  auto newType = RankedTensorType::get(shape, type.getElementType());
  if (Value c = reshapeConstant(b, loc, v, newType))
    return c;
  return tensor::CollapseShapeOp::create(b, loc, newType, v, groups);
}

OpFoldResult mlir::stc::onnx_import::productOf(OpBuilder &b, Location loc,
                                               ArrayRef<OpFoldResult> sizes) {
  int64_t fixed = 1;
  Value dynamic;
  for (OpFoldResult s : sizes) {
    if (std::optional<int64_t> c = getConstantIntValue(s)) {
      fixed *= *c;
      continue;
    }
    Value v = getValueOrCreateConstantIndexOp(b, loc, s);
    dynamic = dynamic ? arith::MulIOp::create(b, loc, dynamic, v) : v;
  }
  if (!dynamic)
    return b.getIndexAttr(fixed);
  if (fixed == 1)
    return dynamic;
  return arith::MulIOp::create(b, loc, dynamic,
                               arith::ConstantIndexOp::create(b, loc, fixed))
      .getResult();
}

Value mlir::stc::onnx_import::reshapeTo(OpBuilder &b, Location loc, Value v,
                                        ArrayRef<OpFoldResult> sizes) {
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape = staticShape(sizes);
  auto target = RankedTensorType::get(shape, type.getElementType());
  if (target == type && type.hasStaticShape())
    return v;
  if (target.hasStaticShape())
    if (Value c = reshapeConstant(b, loc, v, target))
      return c;
  // One collapse_shape or expand_shape where the sizes group that way.
  if (target.getRank() < type.getRank()) {
    if (std::optional<SmallVector<ReassociationIndices>> groups =
            getReassociationIndicesForReshape(type, target))
      return tensor::CollapseShapeOp::create(b, loc, target, v, *groups);
  } else if (target.getRank() > type.getRank()) {
    if (std::optional<SmallVector<ReassociationIndices>> groups =
            getReassociationIndicesForReshape(target, type))
      return tensor::ExpandShapeOp::create(b, loc, target, v, *groups, sizes);
  }
  // Otherwise through one dimension: collapse everything, then expand.
  Value flat = v;
  if (type.getRank() != 1) {
    SmallVector<ReassociationIndices> all;
    if (type.getRank() > 0)
      all.push_back(llvm::to_vector(llvm::seq<int64_t>(0, type.getRank())));
    flat = tensor::CollapseShapeOp::create(b, loc, v, all);
  }
  if (shape.size() == 1) {
    // A 1-D result is the collapsed value, with the target's static size
    // where it knows one.
    if (flat.getType() != target)
      flat = tensor::CastOp::create(b, loc, target, flat);
    return flat;
  }
  SmallVector<ReassociationIndices> groups;
  if (!shape.empty())
    groups.push_back(llvm::to_vector(llvm::seq<int64_t>(0, shape.size())));
  if (shape.empty()) {
    // To rank 0 from a collapsed rank-1 value of one element.
    auto one = RankedTensorType::get({1}, type.getElementType());
    if (flat.getType() != one)
      flat = tensor::CastOp::create(b, loc, one, flat);
    return tensor::CollapseShapeOp::create(b, loc, target, flat, groups);
  }
  return tensor::ExpandShapeOp::create(b, loc, target, flat, groups, sizes);
}

Value mlir::stc::onnx_import::transposeTensor(OpBuilder &b, Location loc,
                                              Value v, ArrayRef<int64_t> perm) {
  SmallVector<OpFoldResult> sizes = getSizes(b, loc, v);
  applyPermutationToVector(sizes, perm);
  Value init = emptyTensor(b, loc, sizes, getElementTypeOrSelf(v.getType()));
  return linalg::TransposeOp::create(b, loc, v, init, perm)->getResult(0);
}

FailureOr<int64_t> mlir::stc::onnx_import::normalizeAxis(NodeContext &node,
                                                         int64_t axis,
                                                         int64_t rank,
                                                         StringRef what) {
  int64_t normalized = axis < 0 ? axis + rank : axis;
  if (normalized < 0 || normalized >= rank)
    return node.fail(what + " " + Twine(axis) + " is out of range for rank " +
                     Twine(rank));
  return normalized;
}
