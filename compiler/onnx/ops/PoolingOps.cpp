//===- PoolingOps.cpp - MaxPool, AveragePool, global pools --*- C++ -*-===//
//
// 2-D pooling on NCHW tensors (1-D, NCL, as 2-D over a height of 1, like
// Conv): MaxPool is a tensor.pad with -inf and
// linalg.pooling_nchw_max; AveragePool a zero tensor.pad,
// linalg.pooling_nchw_sum (accumulating in f32) and a division by the
// window size, or, when padding is not counted (count_include_pad=0), by
// the number of input elements under each window, computed at import.
// GlobalAveragePool/GlobalMaxPool reduce H and W, keeping them as 1s.
//
//===----------------------------------------------------------------------===//
#include "compiler/onnx/Builders.h"
#include "compiler/onnx/Window.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <limits>

using namespace mlir;
using namespace mlir::stc::onnx_import;

namespace {

/// A rank-3 or rank-4 float input, or a failure.
FailureOr<Value> poolInput(NodeContext &node) {
  FailureOr<Value> x = node.input(0);
  if (failed(x))
    return failure();
  auto type = cast<RankedTensorType>(x->getType());
  if ((type.getRank() != 3 && type.getRank() != 4) ||
      !isa<FloatType>(type.getElementType()))
    return node.fail("only 1-D and 2-D pooling of float N x C x L or "
                     "N x C x H x W tensors is supported");
  return x;
}

/// The pooling window of `node` over `x` and its output sizes; with
/// ceil_mode the end padding grows to cover the last, partial, window.
/// A 1-D pool is read over its N x C x L input and computed over the
/// N x C x 1 x L view (`x4`).
struct PoolGeometry {
  Window window;
  int64_t outH = 0, outW = 0;
  bool oneD = false;
  Value x4;
};

FailureOr<PoolGeometry> readPool(NodeContext &node, Value x, bool ceilMode) {
  FailureOr<Window> window = readWindow(node, x, {});
  if (failed(window))
    return failure();
  PoolGeometry g;
  g.oneD = cast<RankedTensorType>(x.getType()).getRank() == 3;
  g.x4 = g.oneD ? liftTo2d(node.b, node.loc, x) : x;
  auto type = cast<RankedTensorType>(g.x4.getType());
  g.window = *window;
  int64_t out[2];
  for (int i = 0; i < 2; ++i) {
    FailureOr<int64_t> o =
        windowOutputSize(node, type.getDimSize(2 + i), g.window, i, ceilMode);
    if (failed(o))
      return failure();
    out[i] = *o;
    int64_t extent = (g.window.kernel[i] - 1) * g.window.dilations[i] + 1;
    int64_t needed = (out[i] - 1) * g.window.strides[i] + extent;
    int64_t have =
        type.getDimSize(2 + i) + g.window.padBegin[i] + g.window.padEnd[i];
    g.window.padEnd[i] += std::max<int64_t>(0, needed - have);
  }
  g.outH = out[0];
  g.outW = out[1];
  return g;
}

/// Runs the pooling op `PoolOp` over `padded` into a tensor filled with
/// `init`.
template <typename PoolOp>
Value pool(OpBuilder &b, Location loc, Value padded, const PoolGeometry &g,
           Value init) {
  SmallVector<OpFoldResult> sizes = getSizes(b, loc, padded);
  Value acc = filledTensor(
      b, loc,
      {sizes[0], sizes[1], b.getIndexAttr(g.outH), b.getIndexAttr(g.outW)},
      init);
  Value windowShape = emptyTensor(
      b, loc,
      {b.getIndexAttr(g.window.kernel[0]), b.getIndexAttr(g.window.kernel[1])},
      init.getType());
  return PoolOp::create(b, loc, TypeRange{acc.getType()},
                        ValueRange{padded, windowShape}, ValueRange{acc},
                        b.getI64TensorAttr(g.window.strides),
                        b.getI64TensorAttr(g.window.dilations))
      .getResult(0);
}

LogicalResult convertMaxPool(NodeContext &node) {
  FailureOr<int64_t> ceilMode = node.getInt("ceil_mode", 0);
  FailureOr<int64_t> storageOrder = node.getInt("storage_order", 0);
  FailureOr<Value> x = poolInput(node);
  if (failed(ceilMode) || failed(storageOrder) || failed(x))
    return failure();
  FailureOr<PoolGeometry> g = readPool(node, *x, *ceilMode != 0);
  if (failed(g))
    return failure();
  OpBuilder &b = node.b;
  Location loc = node.loc;
  Type type = getElementTypeOrSelf(x->getType());
  Value lowest =
      scalarConstant(b, loc, type, -std::numeric_limits<double>::infinity());
  Value padded = padSpatial(b, loc, g->x4, g->window, lowest);
  Value y = pool<linalg::PoolingNchwMaxOp>(b, loc, padded, *g, lowest);
  node.setOutput(0, g->oneD ? dropHeight(b, loc, y) : y);
  return success();
}

LogicalResult convertAveragePool(NodeContext &node) {
  FailureOr<int64_t> ceilMode = node.getInt("ceil_mode", 0);
  FailureOr<int64_t> includePad = node.getInt("count_include_pad", 0);
  FailureOr<Value> x = poolInput(node);
  if (failed(ceilMode) || failed(includePad) || failed(x))
    return failure();
  FailureOr<PoolGeometry> g = readPool(node, *x, /*ceilMode=*/false);
  if (failed(g))
    return failure();
  if (*ceilMode) {
    // Partial windows past the end would need their own divisors.
    FailureOr<PoolGeometry> ceil = readPool(node, *x, true);
    if (failed(ceil))
      return failure();
    if (ceil->outH != g->outH || ceil->outW != g->outW)
      return node.fail("ceil_mode=1 adds a partial window; not supported "
                       "for AveragePool");
  }
  OpBuilder &b = node.b;
  Location loc = node.loc;
  auto type = cast<RankedTensorType>(g->x4.getType());
  Type elementType = type.getElementType();
  Type f32 = b.getF32Type();
  Value padded = padSpatial(b, loc, g->x4, g->window,
                            scalarConstant(b, loc, elementType, 0.0));
  Value sum = pool<linalg::PoolingNchwSumOp>(b, loc, padded, *g,
                                             scalarConstant(b, loc, f32, 0.0));
  const Window &w = g->window;
  int64_t windowSize = w.kernel[0] * w.kernel[1];
  SmallVector<OpFoldResult> sizes = getSizes(b, loc, sum);
  Value y;
  if (*includePad || !w.isPadded()) {
    y = buildParallelGeneric(
        b, loc, sizes, elementType, ValueRange{sum},
        {b.getMultiDimIdentityMap(4)},
        [&](OpBuilder &nb, Location nl, ValueRange args) {
          Value v = arith::DivFOp::create(
              nb, nl, args[0],
              scalarConstant(nb, nl, f32, static_cast<double>(windowSize)));
          return convertScalar(nb, nl, v, elementType);
        });
  } else {
    // How many input (not padding) elements each window covers.
    int64_t inH = type.getDimSize(2), inW = type.getDimSize(3);
    std::vector<double> counts;
    for (int64_t oh = 0; oh < g->outH; ++oh) {
      for (int64_t ow = 0; ow < g->outW; ++ow) {
        int64_t n = 0;
        for (int64_t kh = 0; kh < w.kernel[0]; ++kh) {
          int64_t h = oh * w.strides[0] + kh * w.dilations[0] - w.padBegin[0];
          for (int64_t kw = 0; kw < w.kernel[1]; ++kw) {
            int64_t c = ow * w.strides[1] + kw * w.dilations[1] - w.padBegin[1];
            n += h >= 0 && h < inH && c >= 0 && c < inW;
          }
        }
        counts.push_back(static_cast<double>(std::max<int64_t>(n, 1)));
      }
    }
    Value countTensor = node.importer.materialize(
        HostTensor::fromDoubles(DType::F32, {g->outH, g->outW}, counts,
                                node.node.name() + "_counts"),
        loc);
    if (!countTensor)
      return failure();
    y = buildParallelGeneric(
        b, loc, sizes, elementType, ValueRange{sum, countTensor},
        {b.getMultiDimIdentityMap(4),
         AffineMap::get(4, 0, {b.getAffineDimExpr(2), b.getAffineDimExpr(3)},
                        b.getContext())},
        [&](OpBuilder &nb, Location nl, ValueRange args) {
          Value v = arith::DivFOp::create(nb, nl, args[0], args[1]);
          return convertScalar(nb, nl, v, elementType);
        });
  }
  node.setOutput(0, g->oneD ? dropHeight(b, loc, y) : y);
  return success();
}

/// GlobalAveragePool / GlobalMaxPool: over every dimension after the
/// channels, kept as 1s.
LogicalResult convertGlobalPool(NodeContext &node) {
  FailureOr<Value> xOr = node.input(0);
  if (failed(xOr))
    return failure();
  Value x = *xOr;
  auto type = cast<RankedTensorType>(x.getType());
  Type elementType = type.getElementType();
  if (type.getRank() < 3 || !isa<FloatType>(elementType))
    return node.fail("needs a float input of rank 3 or more");
  OpBuilder &b = node.b;
  Location loc = node.loc;
  Type f32 = b.getF32Type();
  bool isMax = node.node.op_type() == "GlobalMaxPool";
  SmallVector<int64_t> reduced =
      llvm::to_vector(llvm::seq<int64_t>(2, type.getRank()));
  Value init = scalarConstant(
      b, loc, f32, isMax ? -std::numeric_limits<double>::infinity() : 0.0);
  Value r = buildReduction(
      b, loc, x, reduced, init,
      [&](OpBuilder &nb, Location nl, Value acc, Value v) -> Value {
        if (isMax)
          return arith::MaximumFOp::create(nb, nl, acc, v);
        return arith::AddFOp::create(nb, nl, acc, v);
      });
  SmallVector<OpFoldResult> sizes = getSizes(b, loc, x);
  SmallVector<OpFoldResult> spatial(sizes.begin() + 2, sizes.end());
  OpFoldResult countFold = productOf(b, loc, spatial);
  Value count;
  if (std::optional<int64_t> c = getConstantIntValue(countFold))
    count = scalarConstant(b, loc, f32, static_cast<double>(*c));
  else
    count = arith::SIToFPOp::create(
        b, loc, f32,
        arith::IndexCastOp::create(b, loc, b.getI64Type(),
                                   cast<Value>(countFold)));
  Value y =
      buildParallelGeneric(b, loc, getSizes(b, loc, r), elementType,
                           ValueRange{r}, {b.getMultiDimIdentityMap(2)},
                           [&](OpBuilder &nb, Location nl, ValueRange args) {
                             Value v = args[0];
                             if (!isMax)
                               v = arith::DivFOp::create(nb, nl, v, count);
                             return convertScalar(nb, nl, v, elementType);
                           });
  SmallVector<OpFoldResult> kept = {sizes[0], sizes[1]};
  kept.append(type.getRank() - 2, b.getIndexAttr(1));
  node.setOutput(0, reshapeTo(b, loc, y, kept));
  return success();
}

const OpConverter kConverters[] = {
    {"MaxPool", convertMaxPool,
     "auto_pad,ceil_mode,dilations,kernel_shape,pads,storage_order,strides", 1},
    {"AveragePool", convertAveragePool,
     "auto_pad,ceil_mode,count_include_pad,kernel_shape,pads,strides", 1},
    {"GlobalAveragePool", convertGlobalPool, "", 1},
    {"GlobalMaxPool", convertGlobalPool, "", 1},
};

} // namespace

ArrayRef<OpConverter> mlir::stc::onnx_import::getPoolingConverters() {
  return kConverters;
}
