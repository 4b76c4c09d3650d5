//===- QuantizationOps.cpp - QuantizeLinear, DequantizeLinear -*- C++ -*-===//
//
// Symmetric int8 quantization only: zero points must be int8 zeros (what
// TensorRT consumes; STC does not model zero points). QuantizeLinear is
// saturate(round_half_even(x / scale)) to i8; DequantizeLinear of a
// constant is folded at import, of a run-time tensor it is
// float(x) * scale. MatMul between QDQ pairs becomes an int8 product (see
// Quantization.h); any other consumer of DequantizeLinear computes in float
// on the dequantized values (the fake-quantized semantics of the model).
//
//===----------------------------------------------------------------------===//
#include "compiler/onnx/Builders.h"
#include "compiler/onnx/Quantization.h"
#include "compiler/onnx/SparsityReport.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::stc::onnx_import;

namespace {

/// The scale of a QuantizeLinear/DequantizeLinear node: one value, or one
/// per index of dimension `axis`.
struct QuantScale {
  const HostTensor *scale = nullptr;
  int64_t axis = 1;
  bool perAxis() const { return scale->numElements() > 1; }
};

/// Reads and checks the scale and zero point of Q/DQ `node` whose
/// quantized side has rank `rank`.
FailureOr<QuantScale> readScale(NodeContext &node, int64_t rank) {
  FailureOr<int64_t> axis = node.getInt("axis", 1);
  if (failed(axis))
    return failure();
  FailureOr<const HostTensor *> scale = node.requireConstant(1, "scale");
  if (failed(scale))
    return failure();
  if (!isFloatDType((*scale)->dtype) || (*scale)->shape.size() > 1)
    return node.fail("its scale must be a float scalar or 1-D tensor");
  if (node.hasInput(2)) {
    FailureOr<const HostTensor *> zero = node.requireConstant(2, "zero point");
    if (failed(zero))
      return failure();
    if ((*zero)->dtype != DType::I8)
      return node.fail("only int8 quantization is supported (zero point of "
                       "type " +
                       dtypeName(static_cast<int32_t>((*zero)->dtype)) + ")");
    for (int64_t v : (*zero)->toInts())
      if (v != 0)
        return node.fail("only symmetric quantization is supported (zero "
                         "points must be 0)");
  } else if (node.node.op_type() == "QuantizeLinear") {
    return node.fail("only int8 quantization is supported (without a zero "
                     "point the output is UINT8)");
  }
  QuantScale q;
  q.scale = *scale;
  if (q.perAxis()) {
    FailureOr<int64_t> normalized = normalizeAxis(node, *axis, rank);
    if (failed(normalized))
      return failure();
    q.axis = *normalized;
  }
  return q;
}

/// The scale as a tensor that broadcasts against a rank-`rank` operand of
/// sizes `sizes` (along the axis when per-axis).
FailureOr<Value> scaleOperand(NodeContext &node, const QuantScale &q,
                              ArrayRef<OpFoldResult> sizes) {
  OpBuilder &b = node.b;
  Value scale = node.importer.materialize(*q.scale, node.loc);
  if (!scale)
    return failure();
  if (!q.perAxis())
    return reshapeTo(b, node.loc, scale, {});
  std::optional<int64_t> size = getConstantIntValue(sizes[q.axis]);
  if (size && *size != q.scale->numElements())
    return node.fail("has " + Twine(q.scale->numElements()) +
                     " scales for axis " + Twine(q.axis) + " of size " +
                     Twine(*size));
  SmallVector<OpFoldResult> shape(sizes.size(), b.getIndexAttr(1));
  shape[q.axis] = b.getIndexAttr(q.scale->numElements());
  return reshapeTo(b, node.loc, scale, shape);
}

LogicalResult convertQuantize(NodeContext &node) {
  FailureOr<Value> x = node.input(0);
  if (failed(x))
    return failure();
  auto type = cast<RankedTensorType>(x->getType());
  if (!isa<FloatType>(type.getElementType()))
    return node.fail("needs a float input");
  FailureOr<QuantScale> q = readScale(node, type.getRank());
  if (failed(q))
    return failure();
  FailureOr<Value> scale =
      scaleOperand(node, *q, getSizes(node.b, node.loc, *x));
  if (failed(scale))
    return failure();
  Type i8 = node.b.getI8Type();
  FailureOr<Value> y = buildElementwise(
      node, {*x, *scale}, i8, [](OpBuilder &b, Location loc, ValueRange args) {
        Type f32 = b.getF32Type();
        Value v =
            arith::DivFOp::create(b, loc, convertScalar(b, loc, args[0], f32),
                                  convertScalar(b, loc, args[1], f32));
        v = math::RoundEvenOp::create(b, loc, v);
        // maxnumf/minnumf: NaN saturates to -128 instead of being poison.
        v = arith::MaxNumFOp::create(b, loc, v,
                                     scalarConstant(b, loc, f32, -128.0));
        v = arith::MinNumFOp::create(b, loc, v,
                                     scalarConstant(b, loc, f32, 127.0));
        return arith::FPToSIOp::create(b, loc, b.getI8Type(), v).getResult();
      });
  if (failed(y))
    return failure();
  node.setOutput(0, *y);
  return success();
}

LogicalResult convertDequantize(NodeContext &node) {
  const HostTensor *constant = node.constant(0);
  int64_t rank = 0;
  Value x;
  if (constant) {
    rank = constant->shape.size();
  } else {
    FailureOr<Value> in = node.input(0);
    if (failed(in))
      return failure();
    x = *in;
    rank = cast<RankedTensorType>(x.getType()).getRank();
  }
  FailureOr<QuantScale> q = readScale(node, rank);
  if (failed(q))
    return failure();
  DType outType = q->scale->dtype;
  if (constant) {
    // A quantized weight: dequantized once, here.
    if (constant->dtype != DType::I8 && constant->dtype != DType::I32)
      return node.fail("needs an INT8 (or INT32) input");
    int64_t inner = 1;
    for (int64_t d = q->axis + 1; d < rank; ++d)
      inner *= constant->shape[d];
    std::vector<double> values = constant->toDoubles();
    for (int64_t i = 0, e = values.size(); i < e; ++i) {
      int64_t channel =
          q->perAxis() ? (i / inner) % constant->shape[q->axis] : 0;
      values[i] *= q->scale->getDouble(channel);
    }
    node.setConstantOutput(
        0, HostTensor::fromDoubles(outType, constant->shape, values, ""));
    return success();
  }
  Type elementType = getElementTypeOrSelf(x.getType());
  if (!elementType.isInteger(8) && !elementType.isInteger(32))
    return node.fail("needs an INT8 (or INT32) input");
  FailureOr<Value> scale =
      scaleOperand(node, *q, getSizes(node.b, node.loc, x));
  if (failed(scale))
    return failure();
  Type resultType =
      mlirElementType(node.getContext(), static_cast<int32_t>(outType));
  FailureOr<Value> y =
      buildElementwise(node, {x, *scale}, resultType,
                       [&](OpBuilder &b, Location loc, ValueRange args) {
                         Type f32 = b.getF32Type();
                         Value v = arith::MulFOp::create(
                             b, loc, convertScalar(b, loc, args[0], f32),
                             convertScalar(b, loc, args[1], f32));
                         return convertScalar(b, loc, v, resultType);
                       });
  if (failed(y))
    return failure();
  node.setOutput(0, *y);
  return success();
}

const OpConverter kConverters[] = {
    {"QuantizeLinear", convertQuantize, "axis", 1},
    {"DequantizeLinear", convertDequantize, "axis", 1},
};

} // namespace

ArrayRef<OpConverter> mlir::stc::onnx_import::getQuantizationConverters() {
  return kConverters;
}

//===----------------------------------------------------------------------===//
// QDQ MatMul
//===----------------------------------------------------------------------===//

/// The DequantizeLinear producing input `i` of `node`, as a context of its
/// own (its index is the producer's), or nullopt.
static std::optional<NodeContext> dequantizeProducer(NodeContext &node,
                                                     unsigned i) {
  const onnx::NodeProto *producer = node.producer(i);
  if (!producer || producer->op_type() != "DequantizeLinear")
    return std::nullopt;
  int index = node.importer.lookup(node.node.input(i))->producer;
  return NodeContext(node.importer, *producer, index);
}

/// The int8 product of `node` (a MatMul, or a Gemm with `gemm`): input 0
/// the DequantizeLinear of an int8 activation with one scale, input 1 that
/// of a constant int8 weight, K x N (a Gemm's transB = 1: N x K) with
/// per-tensor or per-output-channel scales. `alpha` multiplies the
/// product. Returns the product rescaled to the weight scale's float type,
/// or a null Value (emitting nothing) when the pattern does not hold.
static FailureOr<Value> emitQdqProduct(NodeContext &node, bool transB,
                                       double alpha) {
  std::optional<NodeContext> dqA = dequantizeProducer(node, 0);
  std::optional<NodeContext> dqW = dequantizeProducer(node, 1);
  if (!dqA || !dqW)
    return Value();
  // The weight: a constant int8 matrix, per-tensor or per-output-channel
  // scales. The activation: an int8 tensor, one scale. Anything else
  // computes in float on the dequantized values.
  const HostTensor *stored = dqW->constant(0);
  const HostTensor *wScale = dqW->constant(1);
  const HostTensor *aScale = dqA->constant(1);
  if (!stored || stored->dtype != DType::I8 || stored->shape.size() != 2 ||
      !wScale || !aScale || aScale->numElements() != 1)
    return Value();
  FailureOr<QuantScale> wq8 = readScale(*dqW, 2);
  FailureOr<QuantScale> aq8 = readScale(*dqA, 1);
  if (failed(wq8) || failed(aq8))
    return failure();
  // The output channels are the weight's columns, or its rows (transB).
  int64_t n = stored->shape[transB ? 0 : 1];
  if (wq8->perAxis() &&
      (wq8->axis != (transB ? 0 : 1) || wScale->numElements() != n))
    return Value();
  // K x N for the product: an N x K weight is transposed at import.
  std::optional<HostTensor> transposed;
  if (transB) {
    int64_t k = stored->shape[1];
    std::vector<double> values(stored->numElements());
    for (int64_t r = 0; r < n; ++r)
      for (int64_t c = 0; c < k; ++c)
        values[c * n + r] = stored->getDouble(r * k + c);
    transposed =
        HostTensor::fromDoubles(DType::I8, {k, n}, values, stored->name + "_t");
  }
  const HostTensor *wq = transposed ? &*transposed : stored;
  FailureOr<Value> a = dqA->input(0);
  if (failed(a))
    return failure();
  auto aType = cast<RankedTensorType>(a->getType());
  if (!aType.getElementType().isInteger(8) || aType.getRank() < 2)
    return Value();

  OpBuilder &b = node.b;
  Location loc = node.loc;
  reportMatrixSparsity(node, *wq, 0, "K");
  Value w = node.importer.materialize(*wq, loc);
  if (!w)
    return failure();
  SmallVector<OpFoldResult> aSizes = getSizes(b, loc, *a);
  std::optional<int64_t> k = getConstantIntValue(aSizes.back());
  if (k && *k != wq->shape[0])
    return node.fail("inner dimensions differ (" + Twine(*k) + " and " +
                     Twine(wq->shape[0]) + ")");
  Value flat = *a;
  int64_t rank = aType.getRank();
  if (rank > 2)
    flat = reshapeTo(
        b, loc, flat,
        {productOf(b, loc, ArrayRef(aSizes).drop_back()), aSizes.back()});
  // i8 x i8 accumulated exactly in i32 (linalg.matmul sign-extends).
  Type i32 = b.getI32Type();
  SmallVector<OpFoldResult> accSizes = {getSizes(b, loc, flat)[0],
                                        b.getIndexAttr(n)};
  Value init = filledTensor(b, loc, accSizes, scalarConstant(b, loc, i32, 0));
  Value acc = linalg::MatmulOp::create(b, loc, TypeRange{init.getType()},
                                       ValueRange{flat, w}, ValueRange{init})
                  .getResult(0);
  // One f32 factor per output column: alpha x activation scale x weight
  // scale.
  std::vector<double> factors(n);
  for (int64_t j = 0; j < n; ++j)
    factors[j] = alpha * aScale->getDouble(0) *
                 wScale->getDouble(wq8->perAxis() ? j : 0);
  Value scale = node.importer.materialize(
      HostTensor::fromDoubles(DType::F32, {n}, factors, wq->name + "_scale"),
      loc);
  if (!scale)
    return failure();
  Type resultType =
      mlirElementType(node.getContext(), static_cast<int32_t>(wScale->dtype));
  Value result = buildParallelGeneric(
      b, loc, accSizes, resultType, ValueRange{acc, scale},
      {b.getMultiDimIdentityMap(2),
       AffineMap::get(2, 0, {b.getAffineDimExpr(1)}, b.getContext())},
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        Type f32 = nb.getF32Type();
        Value v = arith::MulFOp::create(
            nb, nl, arith::SIToFPOp::create(nb, nl, f32, args[0]), args[1]);
        return convertScalar(nb, nl, v, resultType);
      });
  if (rank > 2) {
    SmallVector<OpFoldResult> sizes(aSizes.begin(), aSizes.end() - 1);
    sizes.push_back(b.getIndexAttr(n));
    result = tensor::ExpandShapeOp::create(
        b, loc, RankedTensorType::get(staticShape(sizes), resultType), result,
        {llvm::to_vector(llvm::seq<int64_t>(0, rank - 1)), {rank - 1}}, sizes);
  }
  return result;
}

FailureOr<bool> mlir::stc::onnx_import::convertQdqMatMul(NodeContext &node) {
  FailureOr<Value> result = emitQdqProduct(node, /*transB=*/false, 1.0);
  if (failed(result))
    return failure();
  if (!*result)
    return false;
  node.remark("QDQ MatMul imported as an int8 product (i8 x i8 -> i32, "
              "per-channel rescale)");
  node.setOutput(0, *result);
  return true;
}

FailureOr<bool> mlir::stc::onnx_import::convertQdqGemm(NodeContext &node) {
  FailureOr<double> alpha = node.getFloat("alpha", 1.0);
  FailureOr<double> beta = node.getFloat("beta", 1.0);
  FailureOr<int64_t> transA = node.getInt("transA", 0);
  FailureOr<int64_t> transB = node.getInt("transB", 0);
  if (failed(alpha) || failed(beta) || failed(transA) || failed(transB))
    return failure();
  if (*transA)
    return false;
  FailureOr<Value> product = emitQdqProduct(node, *transB != 0, *alpha);
  if (failed(product))
    return failure();
  if (!*product)
    return false;
  Value result = *product;
  if (node.hasInput(2) && *beta != 0.0) {
    // + beta * C, C broadcast to M x N (a bias: N, or 1 x N).
    FailureOr<Value> c = node.input(2);
    if (failed(c))
      return failure();
    Type type = getElementTypeOrSelf(result.getType());
    double b = *beta;
    FailureOr<Value> biased = buildElementwise(
        node, {result, *c}, type,
        [&](OpBuilder &nb, Location nl, ValueRange args) {
          Value cv = convertScalar(nb, nl, args[1], type);
          if (b != 1.0)
            cv = arith::MulFOp::create(nb, nl, cv,
                                       scalarConstant(nb, nl, type, b));
          return arith::AddFOp::create(nb, nl, args[0], cv).getResult();
        });
    if (failed(biased))
      return failure();
    result = *biased;
  }
  node.remark("QDQ Gemm imported as an int8 product (i8 x i8 -> i32, "
              "per-channel rescale)");
  node.setOutput(0, result);
  return true;
}

//===----------------------------------------------------------------------===//
// QDQ Conv
//===----------------------------------------------------------------------===//

FailureOr<bool> mlir::stc::onnx_import::convertQdqConv(NodeContext &node) {
  std::optional<NodeContext> dqX = dequantizeProducer(node, 0);
  std::optional<NodeContext> dqW = dequantizeProducer(node, 1);
  if (!dqX || !dqW)
    return false;
  // The filter: a constant int8 F x C/G x KH [x KW] tensor, per-tensor or
  // per-output-channel (axis 0) scales. The activation: an int8 tensor,
  // one scale. Anything else computes in float on the dequantized values.
  const HostTensor *stored = dqW->constant(0);
  const HostTensor *wScale = dqW->constant(1);
  const HostTensor *xScale = dqX->constant(1);
  if (!stored || stored->dtype != DType::I8 ||
      (stored->shape.size() != 3 && stored->shape.size() != 4) || !wScale ||
      !xScale || xScale->numElements() != 1)
    return false;
  int64_t rank = stored->shape.size();
  FailureOr<QuantScale> wq8 = readScale(*dqW, rank);
  FailureOr<QuantScale> xq8 = readScale(*dqX, rank);
  if (failed(wq8) || failed(xq8))
    return failure();
  int64_t filters = stored->shape[0];
  if (wq8->perAxis() && (wq8->axis != 0 || wScale->numElements() != filters))
    return false;
  FailureOr<Value> x = dqX->input(0);
  if (failed(x))
    return failure();
  if (!getElementTypeOrSelf(x->getType()).isInteger(8))
    return false;

  Location loc = node.loc;
  reportFilterSparsity(node, *stored);
  Value filter = node.importer.materialize(*stored, loc);
  if (!filter)
    return failure();
  // One f32 factor per output channel: activation scale x filter scale.
  std::vector<double> factors(filters);
  for (int64_t f = 0; f < filters; ++f)
    factors[f] =
        xScale->getDouble(0) * wScale->getDouble(wq8->perAxis() ? f : 0);
  QuantizedConv quantized;
  quantized.scale = node.importer.materialize(
      HostTensor::fromDoubles(DType::F32, {filters}, factors,
                              stored->name + "_scale"),
      loc);
  if (!quantized.scale)
    return failure();
  quantized.resultType =
      mlirElementType(node.getContext(), static_cast<int32_t>(wScale->dtype));
  FailureOr<Value> bias = node.optionalInput(2);
  if (failed(bias))
    return failure();
  FailureOr<Value> y = emitConv(node, *x, filter, *bias, &quantized);
  if (failed(y))
    return failure();
  node.remark("QDQ Conv imported as an int8 convolution (i8 x i8 -> i32, "
              "per-channel rescale)");
  node.setOutput(0, *y);
  return true;
}
