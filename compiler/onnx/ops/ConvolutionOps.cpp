//===- ConvolutionOps.cpp - Conv and BatchNormalization -----*- C++ -*-===//
//
// Conv (2-D, NCHW activations, FCHW filters) becomes a zero tensor.pad (which
// stc-sparsify-convolutions folds into the convolution) and
// linalg.conv_2d_nchw_fchw, or, grouped, linalg.conv_2d_ngchw_gfchw on the
// same data seen with a group dimension; the bias is a broadcast add along
// the channels (fused into stc.conv by stc-fuse-epilogue). A 1-D Conv (NCL
// activations, FCK filters: audio, sequence models) is the 2-D one over a
// height of 1, reshaped in and out, so that it takes the same sparse
// convolution kernels.
//
// BatchNormalization after a Conv whose filter and bias are constants, and
// whose output nothing else reads, is folded into that Conv's filter and
// bias at import (w' = w * s, b' = (b - mean) * s + B with s = scale /
// sqrt(var + eps)), as inference compilers do; likewise after a Gemm with
// constant B and C (BatchNorm1d after nn.Linear). Any other
// BatchNormalization is one element-wise op.
//
//===----------------------------------------------------------------------===//
#include "compiler/onnx/Builders.h"
#include "compiler/onnx/Contraction.h"
#include "compiler/onnx/Quantization.h"
#include "compiler/onnx/SparsityReport.h"
#include "compiler/onnx/Window.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>

using namespace mlir;
using namespace mlir::stc::onnx_import;

namespace {

/// The filter-related constants of a Conv, with a BatchNormalization folded
/// in where one follows.
struct ConvWeights {
  const HostTensor *filter = nullptr;
  const HostTensor *bias = nullptr;
  /// Replacements when a BatchNormalization was folded.
  std::optional<HostTensor> foldedFilter, foldedBias;
};

} // namespace

/// Emits the Conv of `conv` (a Conv node's context) over `x` with the
/// given filter/bias values, and returns the NCHW (1-D: NCL) result. With
/// `quantized`, x and the filter are int8, the convolution accumulates in
/// i32 and is rescaled per output channel to `quantized->resultType`
/// before the bias is added.
FailureOr<Value>
mlir::stc::onnx_import::emitConv(NodeContext &node, Value x, Value filter,
                                 Value bias, const QuantizedConv *quantized) {
  OpBuilder &b = node.b;
  Location loc = node.loc;
  auto xType = cast<RankedTensorType>(x.getType());
  auto fType = cast<RankedTensorType>(filter.getType());
  Type type = xType.getElementType();
  const bool oneD = xType.getRank() == 3 && fType.getRank() == 3;
  if (!oneD && (xType.getRank() != 4 || fType.getRank() != 4))
    return node.fail("only 1-D and 2-D convolutions (input and filter both "
                     "of rank 3 or both of rank 4) are supported");
  // (convertQdqConv passes int8 input and filter only.)
  assert(!quantized || (type.isInteger(8) && fType.getElementType() == type));
  if (!quantized && (!isa<FloatType>(type) || fType.getElementType() != type))
    return node.fail("needs input and filter of the same float type");
  // i8 products accumulate exactly in i32 (linalg sign-extends).
  Type accType = quantized ? Type(b.getI32Type()) : type;
  FailureOr<int64_t> group = node.getInt("group", 1);
  if (failed(group))
    return failure();
  SmallVector<int64_t> kernel(fType.getShape().drop_front(2));
  // The attributes are read over the input as it is (1-D: one value each).
  FailureOr<Window> window = readWindow(node, x, kernel);
  if (failed(window))
    return failure();
  if (oneD) {
    x = liftTo2d(b, loc, x);
    filter = liftTo2d(b, loc, filter);
    xType = cast<RankedTensorType>(x.getType());
    fType = cast<RankedTensorType>(filter.getType());
    kernel.insert(kernel.begin(), 1);
  }
  const Window &w = *window;
  int64_t channels = xType.getDimSize(1);
  int64_t filters = fType.getDimSize(0), perGroup = fType.getDimSize(1);
  if (*group < 1 || filters % *group != 0)
    return node.fail("group " + Twine(*group) +
                     " does not divide the filter count " + Twine(filters));
  if (ShapedType::isDynamic(channels))
    return node.fail("dynamic input channels are not supported");
  if (channels != perGroup * *group)
    return node.fail("input has " + Twine(channels) +
                     " channels, the filter expects " +
                     Twine(perGroup * *group) + " (" + Twine(perGroup) +
                     " per group, group " + Twine(*group) + ")");
  FailureOr<int64_t> oh =
      windowOutputSize(node, xType.getDimSize(2), w, 0, false);
  FailureOr<int64_t> ow =
      windowOutputSize(node, xType.getDimSize(3), w, 1, false);
  if (failed(oh) || failed(ow))
    return failure();
  Value zero = scalarConstant(b, loc, type, 0.0);
  Value accZero = scalarConstant(b, loc, accType, 0.0);
  SmallVector<OpFoldResult> sizes = getSizes(b, loc, x);
  OpFoldResult outH = b.getIndexAttr(*oh), outW = b.getIndexAttr(*ow);
  auto strides = b.getI64TensorAttr(w.strides);
  auto dilations = b.getI64TensorAttr(w.dilations);
  Value result;
  if (*group == 1) {
    Value padded = padSpatial(b, loc, x, w, zero);
    Value init = filledTensor(
        b, loc, {sizes[0], b.getIndexAttr(filters), outH, outW}, accZero);
    result = linalg::Conv2DNchwFchwOp::create(
                 b, loc, TypeRange{init.getType()}, ValueRange{padded, filter},
                 ValueRange{init}, strides, dilations)
                 .getResult(0);
  } else {
    // The same data with a group dimension: N x G x C/G x H x W input,
    // G x F/G x C/G x KH x KW filter (a constant stays one).
    int64_t g = *group;
    OpFoldResult perGroupAttr = b.getIndexAttr(perGroup);
    // Padded after the reshape, so that the pad stays right in front of the
    // convolution (stc-sparsify-convolutions folds it there).
    Value x5 = padSpatial(b, loc,
                          reshapeTo(b, loc, x,
                                    {sizes[0], b.getIndexAttr(g), perGroupAttr,
                                     sizes[2], sizes[3]}),
                          w, zero);
    Value f5 =
        reshapeTo(b, loc, filter,
                  {b.getIndexAttr(g), b.getIndexAttr(filters / g), perGroupAttr,
                   b.getIndexAttr(kernel[0]), b.getIndexAttr(kernel[1])});
    Value init = filledTensor(
        b, loc,
        {sizes[0], b.getIndexAttr(g), b.getIndexAttr(filters / g), outH, outW},
        accZero);
    Value conv = linalg::Conv2DNgchwGfchwOp::create(
                     b, loc, TypeRange{init.getType()}, ValueRange{x5, f5},
                     ValueRange{init}, strides, dilations)
                     .getResult(0);
    result = reshapeTo(b, loc, conv,
                       {sizes[0], b.getIndexAttr(filters), outH, outW});
  }
  if (quantized) {
    // float(acc) * scale[f]: the per-output-channel rescale that
    // stc-fuse-epilogue folds into the stc.conv's scaling epilogue.
    type = quantized->resultType;
    SmallVector<OpFoldResult> outSizes = getSizes(b, loc, result);
    result = buildParallelGeneric(
        b, loc, outSizes, type, ValueRange{result, quantized->scale},
        {b.getMultiDimIdentityMap(4),
         AffineMap::get(4, 0, {b.getAffineDimExpr(1)}, b.getContext())},
        [&](OpBuilder &nb, Location nl, ValueRange args) {
          Type f32 = nb.getF32Type();
          Value v = arith::MulFOp::create(
              nb, nl, arith::SIToFPOp::create(nb, nl, f32, args[0]), args[1]);
          return convertScalar(nb, nl, v, type);
        });
  }
  if (bias) {
    // Per output channel: read as (d1) by the broadcast.
    Value bias4 = reshapeTo(b, loc, bias,
                            {b.getIndexAttr(1), b.getIndexAttr(filters),
                             b.getIndexAttr(1), b.getIndexAttr(1)});
    FailureOr<Value> biased = buildElementwise(
        node, {result, bias4}, type,
        [](OpBuilder &nb, Location nl, ValueRange args) {
          return arith::AddFOp::create(nb, nl, args[0], args[1]).getResult();
        });
    if (failed(biased))
      return failure();
    result = *biased;
  }
  if (!oneD)
    return result;
  return dropHeight(b, loc, result);
}

namespace {

LogicalResult convertConv(NodeContext &node) {
  FailureOr<bool> qdq = convertQdqConv(node);
  if (failed(qdq))
    return failure();
  if (*qdq)
    return success();
  FailureOr<Value> x = node.input(0);
  if (failed(x))
    return failure();
  if (const HostTensor *filter = node.constant(1))
    reportFilterSparsity(node, *filter);
  FailureOr<Value> filter = node.input(1);
  if (failed(filter))
    return failure();
  FailureOr<Value> bias = node.optionalInput(2);
  if (failed(bias))
    return failure();
  FailureOr<Value> y = emitConv(node, *x, *filter, *bias);
  if (failed(y))
    return failure();
  node.setOutput(0, *y);
  return success();
}

//===----------------------------------------------------------------------===//
// BatchNormalization
//===----------------------------------------------------------------------===//

/// Per-channel factor and offset of an inference BatchNormalization whose
/// parameters are constants: y = x * factor + offset.
struct BatchNormAffine {
  std::vector<double> factor, offset;
};

std::optional<BatchNormAffine> constantBatchNorm(NodeContext &node,
                                                 double epsilon) {
  const HostTensor *p[4];
  for (int i = 0; i < 4; ++i) {
    p[i] = node.constant(1 + i);
    if (!p[i] || p[i]->shape.size() != 1)
      return std::nullopt;
  }
  int64_t c = p[0]->numElements();
  for (const HostTensor *t : p)
    if (t->numElements() != c)
      return std::nullopt;
  BatchNormAffine a;
  for (int64_t i = 0; i < c; ++i) {
    double s = p[0]->getDouble(i) / std::sqrt(p[3]->getDouble(i) + epsilon);
    a.factor.push_back(s);
    a.offset.push_back(p[1]->getDouble(i) - p[2]->getDouble(i) * s);
  }
  return a;
}

/// Folds the BatchNormalization `node` into the Conv producing its input
/// when that Conv has constant weights and no other reader; returns
/// whether it did.
FailureOr<bool> foldIntoConv(NodeContext &node, const BatchNormAffine &bn) {
  const onnx::NodeProto *convNode = node.producer(0);
  if (!convNode || convNode->op_type() != "Conv" || node.useCount(0) != 1)
    return false;
  ValueEntry *filterEntry = node.importer.lookup(convNode->input(1));
  if (!filterEntry || !filterEntry->constant)
    return false;
  const HostTensor &filter = *filterEntry->constant;
  int64_t filters = filter.shape.empty() ? 0 : filter.shape[0];
  if ((filter.shape.size() != 4 && filter.shape.size() != 3) ||
      !isFloatDType(filter.dtype) ||
      filters != static_cast<int64_t>(bn.factor.size()))
    return false;
  const HostTensor *bias = nullptr;
  if (convNode->input_size() > 2 && !convNode->input(2).empty()) {
    ValueEntry *biasEntry = node.importer.lookup(convNode->input(2));
    if (!biasEntry || !biasEntry->constant ||
        biasEntry->constant->numElements() != filters)
      return false;
    bias = biasEntry->constant.get();
  }
  std::vector<double> w = filter.toDoubles();
  int64_t perFilter = filter.numElements() / std::max<int64_t>(filters, 1);
  for (int64_t f = 0; f < filters; ++f)
    for (int64_t i = 0; i < perFilter; ++i)
      w[f * perFilter + i] *= bn.factor[f];
  std::vector<double> b(filters);
  for (int64_t f = 0; f < filters; ++f)
    b[f] = (bias ? bias->getDouble(f) : 0.0) * bn.factor[f] + bn.offset[f];

  // Re-emit the Conv (at its own location) with the folded constants; the
  // original has no other user and is erased at the end of the import.
  int convIndex = node.importer.lookup(node.node.input(0))->producer;
  NodeContext conv(node.importer, *convNode, convIndex);
  FailureOr<Value> x = conv.input(0);
  if (failed(x))
    return failure();
  Value wValue = node.importer.materialize(
      HostTensor::fromDoubles(filter.dtype, filter.shape, w,
                              filter.name + "_bn"),
      conv.loc);
  Value bValue = node.importer.materialize(
      HostTensor::fromDoubles(filter.dtype, {filters}, b,
                              (bias ? bias->name : filter.name) + "_bn"),
      conv.loc);
  if (!wValue || !bValue)
    return failure();
  FailureOr<Value> y = emitConv(conv, *x, wValue, bValue);
  if (failed(y))
    return failure();
  node.remark("folded into the Conv " + conv.describe());
  node.setOutput(0, *y);
  return true;
}

/// Folds the BatchNormalization `node` over [M, N] into the Gemm producing
/// its input when that Gemm's B is a constant, its C a constant of N
/// elements (or absent), and nothing else reads it: B' = alpha B s (per
/// output column), C' = beta C s + o. Returns whether it did.
FailureOr<bool> foldIntoGemm(NodeContext &node, const BatchNormAffine &bn) {
  const onnx::NodeProto *gemmNode = node.producer(0);
  if (!gemmNode || gemmNode->op_type() != "Gemm" || node.useCount(0) != 1)
    return false;
  int gemmIndex = node.importer.lookup(node.node.input(0))->producer;
  NodeContext gemm(node.importer, *gemmNode, gemmIndex);
  const HostTensor *w = gemm.constant(1);
  int64_t n = bn.factor.size();
  FailureOr<int64_t> transB = gemm.getInt("transB", 0);
  FailureOr<double> alpha = gemm.getFloat("alpha", 1.0);
  FailureOr<double> beta = gemm.getFloat("beta", 1.0);
  if (failed(transB) || failed(alpha) || failed(beta))
    return failure();
  if (!w || w->shape.size() != 2 || !isFloatDType(w->dtype) ||
      w->shape[*transB ? 0 : 1] != n)
    return false;
  const HostTensor *c = gemm.hasInput(2) ? gemm.constant(2) : nullptr;
  if (gemm.hasInput(2) && (!c || c->numElements() != n))
    return false;
  std::vector<double> wf = w->toDoubles();
  int64_t cols = w->shape[1];
  for (int64_t i = 0, e = wf.size(); i < e; ++i)
    wf[i] *= *alpha * bn.factor[*transB ? i / cols : i % cols];
  std::vector<double> cf(n);
  for (int64_t j = 0; j < n; ++j)
    cf[j] = (c ? *beta * c->getDouble(j) : 0.0) * bn.factor[j] + bn.offset[j];
  HostTensor folded =
      HostTensor::fromDoubles(w->dtype, w->shape, wf, w->name + "_bn");
  Value wValue = node.importer.materialize(folded, gemm.loc);
  Value cValue = node.importer.materialize(
      HostTensor::fromDoubles(w->dtype, {n}, cf,
                              (c ? c->name : w->name) + "_bn"),
      gemm.loc);
  FailureOr<Value> a = gemm.input(0);
  if (!wValue || !cValue || failed(a))
    return failure();
  // (The Gemm reported its weight already.)
  FailureOr<Value> y = emitGemm(gemm, *a, wValue, nullptr, 1.0, cValue, 1.0);
  if (failed(y))
    return failure();
  node.remark("folded into the Gemm " + gemm.describe());
  node.setOutput(0, *y);
  return true;
}

LogicalResult convertBatchNorm(NodeContext &node) {
  FailureOr<double> epsilon = node.getFloat("epsilon", 1e-5);
  FailureOr<int64_t> training = node.getInt("training_mode", 0);
  if (failed(epsilon) || failed(training))
    return failure();
  if (*training)
    return node.fail("training_mode=1 is not supported (inference only)");
  FailureOr<Value> x = node.input(0);
  if (failed(x))
    return failure();
  auto type = cast<RankedTensorType>(x->getType());
  if (type.getRank() < 2 || !isa<FloatType>(type.getElementType()))
    return node.fail("needs a float input of rank 2 or more");
  if (std::optional<BatchNormAffine> bn = constantBatchNorm(node, *epsilon)) {
    FailureOr<bool> folded =
        type.getRank() == 2 ? foldIntoGemm(node, *bn) : foldIntoConv(node, *bn);
    if (failed(folded))
      return failure();
    if (*folded)
      return success();
  }
  // y = (x - mean) / sqrt(var + eps) * scale + B, per channel (dimension
  // 1), in f32.
  OpBuilder &b = node.b;
  Location loc = node.loc;
  SmallVector<Value> operands = {*x};
  for (unsigned i = 1; i <= 4; ++i) {
    FailureOr<Value> p = node.input(i);
    if (failed(p))
      return failure();
    if (cast<RankedTensorType>(p->getType()).getRank() != 1)
      return node.fail("its scale, bias, mean and var must have rank 1");
    SmallVector<OpFoldResult> shape(type.getRank(), b.getIndexAttr(1));
    shape[1] = getSizes(b, loc, *p)[0];
    operands.push_back(reshapeTo(b, loc, *p, shape));
  }
  double eps = *epsilon;
  Type elementType = type.getElementType();
  FailureOr<Value> y = buildElementwise(
      node, operands, elementType,
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        Type f32 = nb.getF32Type();
        auto arg = [&](int i) { return convertScalar(nb, nl, args[i], f32); };
        Value var = arith::AddFOp::create(nb, nl, arg(4),
                                          scalarConstant(nb, nl, f32, eps));
        // 1 / sqrt (math.rsqrt has no libm function to lower to).
        Value inv =
            arith::DivFOp::create(nb, nl, scalarConstant(nb, nl, f32, 1.0),
                                  math::SqrtOp::create(nb, nl, var));
        Value centered = arith::SubFOp::create(nb, nl, arg(0), arg(3));
        Value scaled = arith::MulFOp::create(
            nb, nl, arith::MulFOp::create(nb, nl, centered, inv), arg(1));
        Value r = arith::AddFOp::create(nb, nl, scaled, arg(2));
        return convertScalar(nb, nl, r, elementType);
      });
  if (failed(y))
    return failure();
  node.setOutput(0, *y);
  return success();
}

const OpConverter kConverters[] = {
    {"Conv", convertConv, "auto_pad,dilations,group,kernel_shape,pads,strides",
     1},
    {"BatchNormalization", convertBatchNorm, "epsilon,momentum,training_mode",
     1},
};

} // namespace

ArrayRef<OpConverter> mlir::stc::onnx_import::getConvolutionConverters() {
  return kConverters;
}
