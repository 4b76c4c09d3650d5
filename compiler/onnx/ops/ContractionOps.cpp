//===- ContractionOps.cpp - MatMul and Gemm -----------------*- C++ -*-===//
//
// MatMul becomes linalg.matmul (a rank-3+ activation times a 2-D weight is
// flattened to 2-D around it, so that stc-sparsify-contractions sees one
// matrix product) or linalg.batch_matmul (both operands batched, e.g.
// attention scores). Gemm becomes linalg.matmul of its operands, with a
// linalg.transpose in front of a transposed one (the sparsifier looks
// through it) and the bias as a broadcast add (which stc-fuse-epilogue
// folds into the product). MatMul between QDQ pairs is left to
// QuantizationOps.cpp.
//
//===----------------------------------------------------------------------===//
#include "compiler/onnx/Builders.h"
#include "compiler/onnx/Contraction.h"
#include "compiler/onnx/Quantization.h"
#include "compiler/onnx/SparsityReport.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::stc::onnx_import;

namespace {

Type elementTypeOf(Value v) { return getElementTypeOrSelf(v.getType()); }

/// A zero-filled M x N accumulator and linalg.matmul of `a` (M x K) and `b`
/// (K x N), accumulating in `accType` (the operands' type unless given).
Value buildMatmul(OpBuilder &b, Location loc, Value lhs, Value rhs,
                  Type accType = {}) {
  if (!accType)
    accType = elementTypeOf(lhs);
  SmallVector<OpFoldResult> sizes = {getSizes(b, loc, lhs)[0],
                                     getSizes(b, loc, rhs)[1]};
  Value init =
      filledTensor(b, loc, sizes, scalarConstant(b, loc, accType, 0.0));
  return linalg::MatmulOp::create(b, loc, TypeRange{init.getType()},
                                  ValueRange{lhs, rhs}, ValueRange{init})
      .getResult(0);
}

/// Checks that the K dimensions of `a` (last) and `b` (second to last)
/// agree where both are static.
LogicalResult checkReduction(NodeContext &node, Value a, Value b) {
  auto at = cast<RankedTensorType>(a.getType());
  auto bt = cast<RankedTensorType>(b.getType());
  int64_t ka = at.getDimSize(at.getRank() - 1);
  int64_t kb = bt.getDimSize(bt.getRank() - 2);
  if (!ShapedType::isDynamic(ka) && !ShapedType::isDynamic(kb) && ka != kb)
    return node.fail("inner dimensions differ (" + Twine(ka) + " and " +
                     Twine(kb) + ")");
  return success();
}

/// `v` of rank >= 3 as a rank-3 [prod(batch), rows, cols] tensor,
/// broadcast to `batch` first where its batch dimensions are 1 or missing.
Value toBatch3D(OpBuilder &b, Location loc, Value v,
                ArrayRef<OpFoldResult> batch) {
  auto type = cast<RankedTensorType>(v.getType());
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> sizes = getSizes(b, loc, v);
  int64_t batchRank = batch.size();
  // Broadcast when the batch dimensions differ from the common ones.
  bool broadcast = rank - 2 != batchRank;
  for (int64_t i = 0; !broadcast && i < batchRank; ++i)
    broadcast = type.getDimSize(i) == 1 && !isConstantIntValue(batch[i], 1);
  if (broadcast) {
    SmallVector<OpFoldResult> full(batch);
    full.append({sizes[rank - 2], sizes[rank - 1]});
    int64_t fullRank = full.size();
    SmallVector<AffineExpr> exprs;
    for (int64_t i = 0; i < rank; ++i) {
      int64_t d = fullRank - rank + i;
      bool unit = i < rank - 2 && type.getDimSize(i) == 1;
      exprs.push_back(unit ? b.getAffineConstantExpr(0)
                           : b.getAffineDimExpr(d));
    }
    AffineMap map = AffineMap::get(fullRank, 0, exprs, b.getContext());
    v = buildParallelGeneric(
        b, loc, full, type.getElementType(), ValueRange{v}, {map},
        [](OpBuilder &, Location, ValueRange args) { return args[0]; });
    sizes = full;
  }
  SmallVector<OpFoldResult> flat = {
      productOf(b, loc, ArrayRef<OpFoldResult>(sizes).drop_back(2)),
      sizes[sizes.size() - 2], sizes.back()};
  return reshapeTo(b, loc, v, flat);
}

LogicalResult convertMatMul(NodeContext &node) {
  FailureOr<bool> quantized = convertQdqMatMul(node);
  if (failed(quantized) || *quantized)
    return failure(failed(quantized));
  FailureOr<Value> lhsOr = node.input(0), rhsOr = node.input(1);
  if (failed(lhsOr) || failed(rhsOr))
    return failure();
  Value lhs = *lhsOr, rhs = *rhsOr;
  Type type = elementTypeOf(lhs);
  if (type != elementTypeOf(rhs))
    return node.fail("operands have different element types");
  OpBuilder &b = node.b;
  Location loc = node.loc;
  int64_t lhsRank = cast<RankedTensorType>(lhs.getType()).getRank();
  int64_t rhsRank = cast<RankedTensorType>(rhs.getType()).getRank();
  if (lhsRank == 0 || rhsRank == 0)
    return node.fail("operands must have rank 1 or more");
  // Rank 1: a row (lhs) or column (rhs) vector, removed again at the end.
  SmallVector<OpFoldResult> lhsSizes = getSizes(b, loc, lhs);
  SmallVector<OpFoldResult> rhsSizes = getSizes(b, loc, rhs);
  if (lhsRank == 1) {
    lhs = reshapeTo(b, loc, lhs, {b.getIndexAttr(1), lhsSizes[0]});
    lhsSizes = getSizes(b, loc, lhs);
  }
  if (rhsRank == 1) {
    rhs = reshapeTo(b, loc, rhs, {rhsSizes[0], b.getIndexAttr(1)});
    rhsSizes = getSizes(b, loc, rhs);
  }
  if (failed(checkReduction(node, lhs, rhs)))
    return failure();
  int64_t m = lhsSizes.size(), r = rhsSizes.size();
  // The result's sizes before the rank-1 dimensions are dropped.
  SmallVector<OpFoldResult> resultSizes;
  Value result;
  if (r == 2) {
    // A weight matrix: flatten the activation's leading dimensions.
    if (const HostTensor *w = node.constant(1))
      if (rhsRank == 2)
        reportMatrixSparsity(node, *w, 0, "K");
    Value flat = lhs;
    if (m > 2)
      flat = reshapeTo(
          b, loc, lhs,
          {productOf(b, loc, ArrayRef(lhsSizes).drop_back()), lhsSizes.back()});
    result = buildMatmul(b, loc, flat, rhs);
    resultSizes.assign(lhsSizes.begin(), lhsSizes.end() - 1);
    resultSizes.push_back(rhsSizes[1]);
    if (m > 2)
      result = tensor::ExpandShapeOp::create(
          b, loc, RankedTensorType::get(staticShape(resultSizes), type), result,
          {llvm::to_vector(llvm::seq<int64_t>(0, m - 1)), {m - 1}},
          resultSizes);
  } else {
    if (m == 2)
      if (const HostTensor *w = node.constant(0))
        if (lhsRank == 2)
          reportMatrixSparsity(node, *w, 1, "K");
    // Batched: broadcast the batch dimensions, flatten them to one.
    SmallVector<SmallVector<OpFoldResult>> batchShapes = {
        SmallVector<OpFoldResult>(ArrayRef(lhsSizes).drop_back(2)),
        SmallVector<OpFoldResult>(ArrayRef(rhsSizes).drop_back(2))};
    FailureOr<SmallVector<OpFoldResult>> batch =
        broadcastSizes(node, batchShapes);
    if (failed(batch))
      return failure();
    Value lhs3 = toBatch3D(b, loc, lhs, *batch);
    Value rhs3 = toBatch3D(b, loc, rhs, *batch);
    SmallVector<OpFoldResult> sizes3 = {getSizes(b, loc, lhs3)[0],
                                        lhsSizes[m - 2], rhsSizes[r - 1]};
    Value init =
        filledTensor(b, loc, sizes3, scalarConstant(b, loc, type, 0.0));
    result =
        linalg::BatchMatmulOp::create(b, loc, TypeRange{init.getType()},
                                      ValueRange{lhs3, rhs3}, ValueRange{init})
            .getResult(0);
    resultSizes.assign(batch->begin(), batch->end());
    resultSizes.append({lhsSizes[m - 2], rhsSizes[r - 1]});
    result = reshapeTo(b, loc, result, resultSizes);
  }
  // Drop the dimensions the rank-1 operands added.
  if (lhsRank == 1 || rhsRank == 1) {
    SmallVector<OpFoldResult> final(resultSizes);
    if (rhsRank == 1)
      final.pop_back();
    if (lhsRank == 1)
      final.erase(final.end() - (rhsRank == 1 ? 1 : 2));
    result = reshapeTo(b, loc, result, final);
  }
  node.setOutput(0, result);
  return success();
}

LogicalResult convertGemm(NodeContext &node) {
  FailureOr<bool> quantized = convertQdqGemm(node);
  if (failed(quantized) || *quantized)
    return failure(failed(quantized));
  FailureOr<double> alpha = node.getFloat("alpha", 1.0);
  FailureOr<double> beta = node.getFloat("beta", 1.0);
  if (failed(alpha) || failed(beta))
    return failure();
  FailureOr<Value> a = node.input(0), w = node.input(1);
  if (failed(a) || failed(w))
    return failure();
  // alpha * B: on the data when B is a constant, so that the product is
  // followed directly by its bias add.
  double scale = *alpha;
  const HostTensor *weight = node.constant(1);
  if (weight && scale != 1.0 && isFloatDType(weight->dtype)) {
    std::vector<double> values = weight->toDoubles();
    for (double &v : values)
      v *= scale;
    *w = node.importer.materialize(
        HostTensor::fromDoubles(weight->dtype, weight->shape, values,
                                weight->name),
        node.loc);
    if (!*w)
      return failure();
    scale = 1.0;
  }
  // beta * C: on the data when C is a constant.
  Value c;
  double cScale = 1.0;
  if (node.hasInput(2) && *beta != 0.0) {
    const HostTensor *bias = node.constant(2);
    if (bias && *beta != 1.0 && isFloatDType(bias->dtype)) {
      std::vector<double> values = bias->toDoubles();
      for (double &v : values)
        v *= *beta;
      c = node.importer.materialize(
          HostTensor::fromDoubles(bias->dtype, bias->shape, values, bias->name),
          node.loc);
      if (!c)
        return failure();
    } else {
      FailureOr<Value> cOr = node.input(2);
      if (failed(cOr))
        return failure();
      c = *cOr;
      cScale = *beta;
    }
  }
  FailureOr<Value> y = emitGemm(node, *a, *w, weight, scale, c, cScale);
  if (failed(y))
    return failure();
  node.setOutput(0, *y);
  return success();
}

const OpConverter kConverters[] = {
    {"MatMul", convertMatMul, "", 1},
    {"Gemm", convertGemm, "alpha,beta,transA,transB", 1},
};

} // namespace

FailureOr<Value> mlir::stc::onnx_import::emitGemm(NodeContext &node, Value a,
                                                  Value w,
                                                  const HostTensor *wConstant,
                                                  double alpha, Value c,
                                                  double cScale) {
  FailureOr<int64_t> transA = node.getInt("transA", 0);
  FailureOr<int64_t> transB = node.getInt("transB", 0);
  if (failed(transA) || failed(transB))
    return failure();
  Type type = elementTypeOf(a);
  if (type != elementTypeOf(w) || !isa<FloatType>(type))
    return node.fail("needs A and B of the same float type");
  if (cast<RankedTensorType>(a.getType()).getRank() != 2 ||
      cast<RankedTensorType>(w.getType()).getRank() != 2)
    return node.fail("A and B must have rank 2");
  OpBuilder &b = node.b;
  Location loc = node.loc;
  if (wConstant)
    reportMatrixSparsity(node, *wConstant, *transB ? 1 : 0, "K");
  if (*transA)
    a = transposeTensor(b, loc, a, {1, 0});
  if (*transB)
    w = transposeTensor(b, loc, w, {1, 0});
  if (failed(checkReduction(node, a, w)))
    return failure();
  Value y = buildMatmul(b, loc, a, w);
  if (alpha != 1.0) {
    double scale = alpha;
    FailureOr<Value> scaled = buildElementwise(
        node, {y}, type, [&](OpBuilder &nb, Location nl, ValueRange args) {
          return arith::MulFOp::create(nb, nl, args[0],
                                       scalarConstant(nb, nl, type, scale))
              .getResult();
        });
    if (failed(scaled))
      return failure();
    y = *scaled;
  }
  if (!c)
    return y;
  if (elementTypeOf(c) != type)
    return node.fail("C must have A's element type");
  return buildElementwise(
      node, {y, c}, type, [&](OpBuilder &nb, Location nl, ValueRange args) {
        Value addend = args[1];
        if (cScale != 1.0)
          addend = arith::MulFOp::create(nb, nl, addend,
                                         scalarConstant(nb, nl, type, cScale));
        return arith::AddFOp::create(nb, nl, args[0], addend).getResult();
      });
}

ArrayRef<OpConverter> mlir::stc::onnx_import::getContractionConverters() {
  return kConverters;
}
