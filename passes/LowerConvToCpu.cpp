//===- LowerConvToCpu.cpp - stc.conv as im2col tiles x stc.spmm -*- C++ -*-===//
//
// Lowers stc.conv for the CPU as an implicit GEMM. The input is padded once
// (spatial zeros and per-group channels up to Cp) to
//
//   Xp[N, Hp, Wp, G, Cp]
//
// and the flattened output pixels p = (n, oh, ow) are walked in tiles of
// `pixels`. For each tile and group the im2col rows
//
//   A[p, (kh, kw, c)] = Xp[n, oh*sh + kh*dh, ow*sw + kw*dw, g, c]
//
// are gathered (a tile x KH*KW*Cp matrix; the full im2col matrix never
// exists) and multiplied with the group's compressed filter rows by
// stc.spmm (sparse rhs), which carries the epilogue; stc-lower-spmm-to-cpu
// then generates the microkernel. The reference lowering is a direct
// convolution over Xp and the decompressed filter.
//
//===----------------------------------------------------------------------===//
#include "passes/CpuEpilogue.h"
#include "passes/Passes.h"

#include "dialects/Stc/StcConstants.h"
#include "dialects/Stc/StcOps.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/Matchers.h"

namespace mlir::stc {
#define GEN_PASS_DEF_STCLOWERCONVTOCPU
#include "passes/Passes.h.inc"
} // namespace mlir::stc

using namespace mlir;
using namespace mlir::stc;

namespace {

/// Groups up to this count get one unrolled GEMM each (static filter slices,
/// which stay constants for constant weights); more groups are a loop.
constexpr int64_t kMaxUnrolledGroups = 8;

class ConvLowering {
public:
  ConvLowering(ConvOp op, int64_t pixels)
      : op(op), b(op.getLoc(), op), pixels(pixels) {}

  /// Builds the lowering and returns the value replacing op's result.
  Value lowerToKernel();
  Value lowerToReference();

private:
  Value constIndex(int64_t v) { return arith::ConstantIndexOp::create(b, v); }
  /// Size of dimension `i` of `t` as an index value.
  Value dimOf(Value t, int64_t i) {
    auto type = cast<RankedTensorType>(t.getType());
    if (!type.isDynamicDim(i))
      return constIndex(type.getDimSize(i));
    return tensor::DimOp::create(b, t, i);
  }
  Value mul(Value x, Value y) { return b.createOrFold<arith::MulIOp>(x, y); }
  Value add(Value x, Value y) { return b.createOrFold<arith::AddIOp>(x, y); }
  Value sub(Value x, Value y) { return b.createOrFold<arith::SubIOp>(x, y); }
  Value div(Value x, Value y) { return b.createOrFold<arith::DivUIOp>(x, y); }
  /// Static value of `v`, or ShapedType::kDynamic.
  static int64_t staticOf(Value v) {
    std::optional<int64_t> c = getConstantIntValue(v);
    return c ? *c : ShapedType::kDynamic;
  }

  /// Computes the geometry (sizes as index values that fold when static).
  void computeSizes();
  /// Output size along spatial dimension `d` (0: H, 1: W), following
  /// ConvOp::getOutputSize: max(floor(span / stride) + 1, 0).
  Value outputSize(int64_t d);
  /// The input as N x Hp x Wp x G x Cp with zero padding.
  Value padInput();
  /// Rows [g*F, (g+1)*F) of a compressed operand (values or meta); for
  /// constants a new constant, so that the spmm lowering still sees one.
  Value groupRows(Value compressed, Value g);
  /// Whether the im2col rows are the input's rows as they are: 1x1,
  /// stride 1, no padding, C a multiple of M.
  bool isPointwise();
  /// The im2col rows of pixels [p0, p0 + tile) for group g: tile x K.
  /// `source` is the padded input, or for a pointwise convolution the input
  /// as (N*H*W) x G*C.
  Value im2colTile(Value source, Value p0, Value tile, Value g);
  /// The filter rows and bias of group g.
  struct GroupOperands {
    Value values, meta, bias, scale;
  };
  GroupOperands groupOperands(Value g);
  /// One group's GEMM of one tile, inserted into `out` (P x G*F).
  Value tileGroup(Value source, Value accFlat, const GroupOperands &operands,
                  Value p0, Value tile, Value g, Value out);
  /// Static result shape with the dynamic sizes of the result.
  SmallVector<Value> resultDynamicSizes();
  SmallVector<OpFoldResult> resultSizes();

  ConvOp op;
  ImplicitLocOpBuilder b;
  int64_t pixels;

  // Geometry.
  int64_t kh = 0, kw = 0, groups = 1, m = 4;
  SmallVector<int64_t, 2> strides, dilations, padLow, padHigh;
  Value n, h, w, c, cp, f, oh, ow, pixelsTotal, k;
};

Value ConvLowering::outputSize(int64_t d) {
  int64_t filter = d == 0 ? kh : kw;
  Value in = d == 0 ? h : w;
  int64_t stat = ConvOp::getOutputSize(staticOf(in), filter, strides[d],
                                       dilations[d], padLow[d], padHigh[d]);
  if (!ShapedType::isDynamic(stat))
    return constIndex(stat);
  // span = in + pl + ph - dil * (filter - 1) - 1, possibly negative.
  Value span = add(
      in, constIndex(padLow[d] + padHigh[d] - dilations[d] * (filter - 1) - 1));
  Value q = b.createOrFold<arith::FloorDivSIOp>(span, constIndex(strides[d]));
  return b.createOrFold<arith::MaxSIOp>(add(q, constIndex(1)), constIndex(0));
}

void ConvLowering::computeSizes() {
  kh = op.getFilterSize()[0];
  kw = op.getFilterSize()[1];
  strides.assign(op.getStrides().begin(), op.getStrides().end());
  dilations.assign(op.getDilations().begin(), op.getDilations().end());
  padLow.assign(op.getPadLow().begin(), op.getPadLow().end());
  padHigh.assign(op.getPadHigh().begin(), op.getPadHigh().end());
  groups = op.getGroups();
  m = op.getPattern().getM();
  Value input = op.getInput();
  auto resultType = op.getResult().getType();
  n = dimOf(input, 0);
  h = dimOf(input, 1);
  w = dimOf(input, 2);
  Value groupsV = constIndex(groups);
  c = div(dimOf(input, 3), groupsV);
  Value mm = constIndex(m);
  cp = mul(b.createOrFold<arith::CeilDivUIOp>(c, mm), mm);
  // Output channels: from the result type, else from the filter rows.
  Value gf = !resultType.isDynamicDim(3) ? constIndex(resultType.getDimSize(3))
                                         : dimOf(op.getValues(), 0);
  f = div(gf, groupsV);
  oh = !resultType.isDynamicDim(1) ? constIndex(resultType.getDimSize(1))
                                   : outputSize(0);
  ow = !resultType.isDynamicDim(2) ? constIndex(resultType.getDimSize(2))
                                   : outputSize(1);
  if (!resultType.isDynamicDim(0))
    n = constIndex(resultType.getDimSize(0));
  pixelsTotal = mul(mul(n, oh), ow);
  k = mul(constIndex(kh * kw), cp);
}

SmallVector<OpFoldResult> ConvLowering::resultSizes() {
  return {getAsOpFoldResult(n), getAsOpFoldResult(oh), getAsOpFoldResult(ow),
          getAsOpFoldResult(mul(f, constIndex(groups)))};
}

SmallVector<Value> ConvLowering::resultDynamicSizes() {
  auto resultType = op.getResult().getType();
  SmallVector<Value> dyn;
  SmallVector<OpFoldResult> sizes = resultSizes();
  for (int64_t i = 0; i < 4; ++i)
    if (resultType.isDynamicDim(i))
      dyn.push_back(getValueOrCreateConstantIndexOp(b, b.getLoc(), sizes[i]));
  return dyn;
}

Value ConvLowering::padInput() {
  Value input = op.getInput();
  auto inputType = op.getInput().getType();
  Type elem = inputType.getElementType();
  // N x H x W x (G*C) -> N x H x W x G x C.
  SmallVector<OpFoldResult> expandedSizes = {
      getAsOpFoldResult(dimOf(input, 0)), getAsOpFoldResult(h),
      getAsOpFoldResult(w), b.getIndexAttr(groups), getAsOpFoldResult(c)};
  SmallVector<int64_t> expandedShape;
  for (OpFoldResult s : expandedSizes) {
    std::optional<int64_t> v = getConstantIntValue(s);
    expandedShape.push_back(v ? *v : ShapedType::kDynamic);
  }
  Value expanded = tensor::ExpandShapeOp::create(
      b, RankedTensorType::get(expandedShape, elem), input,
      SmallVector<ReassociationIndices>{{0}, {1}, {2}, {3, 4}}, expandedSizes);
  Value channelPad = sub(cp, c);
  bool noPad = llvm::all_of(padLow, [](int64_t p) { return p == 0; }) &&
               llvm::all_of(padHigh, [](int64_t p) { return p == 0; }) &&
               isConstantIntValue(channelPad, 0);
  if (noPad)
    return expanded;
  SmallVector<OpFoldResult> low = {b.getIndexAttr(0), b.getIndexAttr(padLow[0]),
                                   b.getIndexAttr(padLow[1]), b.getIndexAttr(0),
                                   b.getIndexAttr(0)};
  SmallVector<OpFoldResult> high = {
      b.getIndexAttr(0), b.getIndexAttr(padHigh[0]), b.getIndexAttr(padHigh[1]),
      b.getIndexAttr(0), getAsOpFoldResult(channelPad)};
  Value zero = arith::ConstantOp::create(b, b.getZeroAttr(elem));
  return tensor::PadOp::create(b, Type(), expanded, low, high, zero);
}

Value ConvLowering::groupRows(Value compressed, Value g) {
  if (groups == 1)
    return compressed;
  auto type = cast<RankedTensorType>(compressed.getType());
  std::optional<int64_t> gStatic = getConstantIntValue(g);
  int64_t fStatic = staticOf(f);
  Attribute attr;
  if (gStatic && !ShapedType::isDynamic(fStatic) && type.hasStaticShape() &&
      matchPattern(compressed, m_Constant(&attr))) {
    int64_t cols = type.getDimSize(1);
    int64_t begin = *gStatic * fStatic * cols, end = begin + fStatic * cols;
    auto sliceType =
        RankedTensorType::get({fStatic, cols}, type.getElementType());
    if (isa<FloatType>(type.getElementType())) {
      if (std::optional<std::vector<float>> data =
              readFloatConstant(attr, type)) {
        std::vector<float> rows(data->begin() + begin, data->begin() + end);
        return arith::ConstantOp::create(b, makeFloatConstant(sliceType, rows));
      }
    } else if (std::optional<std::vector<uint16_t>> data =
                   readMetaConstant(attr, type)) {
      std::vector<uint16_t> rows(data->begin() + begin, data->begin() + end);
      return arith::ConstantOp::create(
          b, DenseElementsAttr::get(sliceType, ArrayRef<uint16_t>(rows)));
    }
  }
  SmallVector<OpFoldResult> offsets = {getAsOpFoldResult(mul(g, f)),
                                       b.getIndexAttr(0)};
  SmallVector<OpFoldResult> sizes = {getAsOpFoldResult(f),
                                     getAsOpFoldResult(dimOf(compressed, 1))};
  SmallVector<OpFoldResult> ones(2, b.getIndexAttr(1));
  return tensor::ExtractSliceOp::create(b, compressed, offsets, sizes, ones);
}

bool ConvLowering::isPointwise() {
  return kh == 1 && kw == 1 && strides[0] == 1 && strides[1] == 1 &&
         llvm::all_of(padLow, [](int64_t p) { return p == 0; }) &&
         llvm::all_of(padHigh, [](int64_t p) { return p == 0; }) &&
         getConstantIntValue(c) &&
         getConstantIntValue(c) == getConstantIntValue(cp);
}

Value ConvLowering::im2colTile(Value source, Value p0, Value tile, Value g) {
  Type elem = op.getInput().getType().getElementType();
  if (isPointwise()) {
    // Rows [p0, p0 + tile) and group g's channels of (N*H*W) x G*C.
    SmallVector<OpFoldResult> offsets = {getAsOpFoldResult(p0),
                                         getAsOpFoldResult(mul(g, c))};
    SmallVector<OpFoldResult> sizes = {getAsOpFoldResult(tile),
                                       getAsOpFoldResult(c)};
    SmallVector<OpFoldResult> ones(2, b.getIndexAttr(1));
    return b.createOrFold<tensor::ExtractSliceOp>(source, offsets, sizes, ones);
  }

  // tile x KH x KW x Cp, gathered from Xp, then flattened to tile x K.
  SmallVector<OpFoldResult> sizes = {getAsOpFoldResult(tile),
                                     b.getIndexAttr(kh), b.getIndexAttr(kw),
                                     getAsOpFoldResult(cp)};
  Value init = tensor::EmptyOp::create(b, sizes, elem);
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineMap> maps = {AffineMap::getMultiDimIdentityMap(4, ctx)};
  SmallVector<utils::IteratorType> iters(4, utils::IteratorType::parallel);
  Value ohow = mul(oh, ow);
  auto gather = linalg::GenericOp::create(
      b, init.getType(), ValueRange{}, ValueRange{init}, maps, iters,
      [&](OpBuilder &nb, Location loc, ValueRange) {
        ImplicitLocOpBuilder ib(loc, nb);
        auto cI = [&](int64_t v) {
          return arith::ConstantIndexOp::create(ib, v);
        };
        Value p = arith::AddIOp::create(ib, p0, linalg::IndexOp::create(ib, 0));
        Value i = linalg::IndexOp::create(ib, 1);
        Value j = linalg::IndexOp::create(ib, 2);
        Value ch = linalg::IndexOp::create(ib, 3);
        Value img = arith::DivUIOp::create(ib, p, ohow);
        Value rem = arith::RemUIOp::create(ib, p, ohow);
        Value y = arith::DivUIOp::create(ib, rem, ow);
        Value x = arith::RemUIOp::create(ib, rem, ow);
        Value ih = arith::AddIOp::create(
            ib, arith::MulIOp::create(ib, y, cI(strides[0])),
            arith::MulIOp::create(ib, i, cI(dilations[0])));
        Value iw = arith::AddIOp::create(
            ib, arith::MulIOp::create(ib, x, cI(strides[1])),
            arith::MulIOp::create(ib, j, cI(dilations[1])));
        Value v = tensor::ExtractOp::create(ib, source,
                                            ValueRange{img, ih, iw, g, ch});
        linalg::YieldOp::create(ib, v);
      });
  return tensor::CollapseShapeOp::create(
      b, gather.getResult(0),
      SmallVector<ReassociationIndices>{{0}, {1, 2, 3}});
}

ConvLowering::GroupOperands ConvLowering::groupOperands(Value g) {
  GroupOperands operands;
  operands.values = groupRows(op.getValues(), g);
  operands.meta = groupRows(op.getMeta(), g);
  // Bias and scale: one entry per output channel, the group's F of them.
  auto groupSlice = [&](Value perChannel) -> Value {
    if (!perChannel || groups == 1)
      return perChannel;
    return tensor::ExtractSliceOp::create(
        b, perChannel, SmallVector<OpFoldResult>{getAsOpFoldResult(mul(g, f))},
        SmallVector<OpFoldResult>{getAsOpFoldResult(f)},
        SmallVector<OpFoldResult>{b.getIndexAttr(1)});
  };
  operands.bias = groupSlice(op.getBias());
  operands.scale = groupSlice(op.getScale());
  return operands;
}

Value ConvLowering::tileGroup(Value source, Value accFlat,
                              const GroupOperands &operands, Value p0,
                              Value tile, Value g, Value out) {
  auto resultType = op.getResult().getType();
  Value dense = im2colTile(source, p0, tile, g);
  SmallVector<OpFoldResult> ones(2, b.getIndexAttr(1));
  SmallVector<OpFoldResult> offsets = {getAsOpFoldResult(p0),
                                       getAsOpFoldResult(mul(g, f))};
  SmallVector<OpFoldResult> sizes = {getAsOpFoldResult(tile),
                                     getAsOpFoldResult(f)};
  Value acc;
  if (accFlat)
    acc = b.createOrFold<tensor::ExtractSliceOp>(accFlat, offsets, sizes, ones);
  auto tileType = RankedTensorType::get({staticOf(tile), staticOf(f)},
                                        resultType.getElementType());
  Value prod =
      SpmmOp::create(b, tileType, operands.values, operands.meta, dense,
                     operands.bias, acc, operands.scale, op.getPattern(),
                     SparseOperandAttr::get(b.getContext(), SparseOperand::rhs),
                     b.getBoolAttr(false), op.getAlphaAttr(), op.getBetaAttr(),
                     op.getActivationAttr());
  return tensor::InsertSliceOp::create(b, prod, out, offsets, sizes, ones);
}

Value ConvLowering::lowerToKernel() {
  computeSizes();
  auto resultType = op.getResult().getType();
  Type outElem = resultType.getElementType();
  // The gather source: the padded input, or the input's rows as they are.
  Value source = isPointwise()
                     ? tensor::CollapseShapeOp::create(
                           b, op.getInput(),
                           SmallVector<ReassociationIndices>{{0, 1, 2}, {3}})
                           .getResult()
                     : padInput();
  Value accFlat;
  if (Value acc = op.getAcc())
    accFlat = tensor::CollapseShapeOp::create(
        b, acc, SmallVector<ReassociationIndices>{{0, 1, 2}, {3}});
  Value gf = mul(f, constIndex(groups));
  SmallVector<OpFoldResult> flatSizes = {getAsOpFoldResult(pixelsTotal),
                                         getAsOpFoldResult(gf)};
  Value out = tensor::EmptyOp::create(b, flatSizes, outElem);

  // Unrolled groups: their filter operands once, outside the pixel loop.
  SmallVector<GroupOperands> unrolled;
  if (groups <= kMaxUnrolledGroups)
    for (int64_t g = 0; g < groups; ++g)
      unrolled.push_back(groupOperands(constIndex(g)));

  // All groups of one tile of pixels.
  auto allGroups = [&](Value p0, Value tile, Value acc) -> Value {
    if (groups <= kMaxUnrolledGroups) {
      for (int64_t g = 0; g < groups; ++g)
        acc = tileGroup(source, accFlat, unrolled[g], p0, tile, constIndex(g),
                        acc);
      return acc;
    }
    OpBuilder::InsertionGuard guard(b);
    auto loop = scf::ForOp::create(b, constIndex(0), constIndex(groups),
                                   constIndex(1), ValueRange{acc});
    b.setInsertionPointToStart(loop.getBody());
    Value g = loop.getInductionVar();
    Value next = tileGroup(source, accFlat, groupOperands(g), p0, tile, g,
                           loop.getRegionIterArg(0));
    scf::YieldOp::create(b, next);
    return loop.getResult(0);
  };

  int64_t total = staticOf(pixelsTotal);
  if (!ShapedType::isDynamic(total) && total <= pixels) {
    // One tile covers every pixel.
    if (total > 0)
      out = allGroups(constIndex(0), pixelsTotal, out);
  } else {
    bool evenTiles = !ShapedType::isDynamic(total) && total % pixels == 0;
    Value step = constIndex(pixels);
    auto loop = scf::ForOp::create(b, constIndex(0), pixelsTotal, step,
                                   ValueRange{out});
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value p0 = loop.getInductionVar();
    // The last tile is ragged unless the tiles divide P.
    Value tile = evenTiles
                     ? step
                     : arith::MinSIOp::create(
                           b, step, arith::SubIOp::create(b, pixelsTotal, p0));
    Value next = allGroups(p0, tile, loop.getRegionIterArg(0));
    scf::YieldOp::create(b, next);
    b.setInsertionPointAfter(loop);
    out = loop.getResult(0);
  }
  // (N*OH*OW) x G*F -> N x OH x OW x G*F. With more than one dynamic size
  // in the expanded group, expand-strided-metadata (LLVM 22) crashes on the
  // memref.expand_shape: reshape through a shape tensor instead.
  int64_t dynamicPixelDims =
      llvm::count_if(resultType.getShape().take_front(3),
                     [](int64_t d) { return ShapedType::isDynamic(d); });
  if (dynamicPixelDims > 1) {
    SmallVector<Value> shape;
    for (OpFoldResult s : resultSizes())
      shape.push_back(getValueOrCreateConstantIndexOp(b, b.getLoc(), s));
    Value shapeTensor = tensor::FromElementsOp::create(b, shape);
    return tensor::ReshapeOp::create(b, resultType, out, shapeTensor);
  }
  return tensor::ExpandShapeOp::create(
      b, resultType, out, SmallVector<ReassociationIndices>{{0, 1, 2}, {3}},
      resultSizes());
}

Value ConvLowering::lowerToReference() {
  computeSizes();
  Type f32 = b.getF32Type();
  auto resultType = op.getResult().getType();
  auto valuesType = op.getValues().getType();
  // The filter as (G*F) x K, then G x F x KH x KW x Cp. A dynamic K
  // decompresses to the padded size and is cut to KH*KW*Cp.
  int64_t kStatic = staticOf(k);
  Value filter = DecompressOp::create(
      b,
      RankedTensorType::get({valuesType.getDimSize(0), kStatic},
                            valuesType.getElementType()),
      op.getValues(), op.getMeta(), op.getPattern(), b.getI64IntegerAttr(1));
  if (ShapedType::isDynamic(kStatic)) {
    SmallVector<OpFoldResult> zero(2, b.getIndexAttr(0));
    SmallVector<OpFoldResult> ones(2, b.getIndexAttr(1));
    filter = tensor::ExtractSliceOp::create(
        b, filter, zero,
        SmallVector<OpFoldResult>{getAsOpFoldResult(dimOf(filter, 0)),
                                  getAsOpFoldResult(k)},
        ones);
  }
  SmallVector<OpFoldResult> filterSizes = {
      b.getIndexAttr(groups), getAsOpFoldResult(f), b.getIndexAttr(kh),
      b.getIndexAttr(kw), getAsOpFoldResult(cp)};
  SmallVector<int64_t> filterShape;
  for (OpFoldResult s : filterSizes)
    filterShape.push_back(
        getConstantIntValue(s).value_or(ShapedType::kDynamic));
  filter = tensor::ExpandShapeOp::create(
      b, RankedTensorType::get(filterShape, valuesType.getElementType()),
      filter, SmallVector<ReassociationIndices>{{0, 1}, {2, 3, 4}},
      filterSizes);
  Value padded = padInput();

  // out[n, oh, ow, g, f] += Xp[n, oh*sh + kh*dh, ow*sw + kw*dw, g, c]
  //                         * filter[g, f, kh, kw, c]
  SmallVector<OpFoldResult> outSizes = {
      getAsOpFoldResult(n), getAsOpFoldResult(oh), getAsOpFoldResult(ow),
      b.getIndexAttr(groups), getAsOpFoldResult(f)};
  // i8 operands accumulate exactly in i32, float ones in f32.
  const bool quantized = op.isQuantized();
  Type accType = quantized ? Type(b.getI32Type()) : Type(f32);
  Value empty = tensor::EmptyOp::create(b, outSizes, accType);
  Value zero = arith::ConstantOp::create(b, b.getZeroAttr(accType));
  Value init = linalg::FillOp::create(b, zero, empty).getResult(0);
  MLIRContext *ctx = b.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  SmallVector<AffineMap> maps = {
      AffineMap::get(8, 0,
                     {d(0), d(1) * strides[0] + d(5) * dilations[0],
                      d(2) * strides[1] + d(6) * dilations[1], d(3), d(7)},
                     ctx),
      AffineMap::get(8, 0, {d(3), d(4), d(5), d(6), d(7)}, ctx),
      AffineMap::get(8, 0, {d(0), d(1), d(2), d(3), d(4)}, ctx)};
  SmallVector<utils::IteratorType> iters(5, utils::IteratorType::parallel);
  iters.append(3, utils::IteratorType::reduction);
  auto conv = linalg::GenericOp::create(
      b, init.getType(), ValueRange{padded, filter}, ValueRange{init}, maps,
      iters, [&](OpBuilder &nb, Location loc, ValueRange args) {
        if (quantized) {
          auto toI32 = [&](Value v) -> Value {
            return arith::ExtSIOp::create(nb, loc, accType, v);
          };
          Value p =
              arith::MulIOp::create(nb, loc, toI32(args[0]), toI32(args[1]));
          linalg::YieldOp::create(
              nb, loc, ValueRange{arith::AddIOp::create(nb, loc, args[2], p)});
          return;
        }
        auto toF32 = [&](Value v) -> Value {
          return v.getType() == f32 ? v
                                    : arith::ExtFOp::create(nb, loc, f32, v);
        };
        Value p =
            arith::MulFOp::create(nb, loc, toF32(args[0]), toF32(args[1]));
        linalg::YieldOp::create(
            nb, loc, ValueRange{arith::AddFOp::create(nb, loc, args[2], p)});
      });
  // N x OH x OW x G x F -> N x OH x OW x G*F.
  Value prod = tensor::CollapseShapeOp::create(
      b, conv.getResult(0),
      SmallVector<ReassociationIndices>{{0}, {1}, {2}, {3, 4}});
  EpilogueSpec spec;
  spec.bias = op.getBias();
  spec.scale = op.getScale();
  spec.biasMap = AffineMap::get(4, 0, d(3));
  spec.acc = op.getAcc();
  spec.alpha = op.getAlpha().convertToDouble();
  spec.beta = op.getBeta().convertToDouble();
  spec.activation = op.getActivation();
  return buildCpuEpilogue(b, prod, AffineMap::getMultiDimIdentityMap(4, ctx),
                          resultType, resultDynamicSizes(), spec);
}

struct StcLowerConvToCpuPass final
    : stc::impl::StcLowerConvToCpuBase<StcLowerConvToCpuPass> {
  using Base::Base;

  void runOnOperation() override {
    int64_t tilePixels = pixels;
    if (tilePixels < 1) {
      getOperation().emitError()
          << "stc-lower-conv-to-cpu: pixels must be at least 1, got "
          << tilePixels;
      return signalPassFailure();
    }
    SmallVector<ConvOp> ops;
    getOperation().walk([&](ConvOp op) { ops.push_back(op); });
    for (ConvOp op : ops) {
      ConvLowering lowering(op, tilePixels);
      Value replacement =
          reference ? lowering.lowerToReference() : lowering.lowerToKernel();
      if (!replacement)
        return signalPassFailure();
      op.getResult().replaceAllUsesWith(replacement);
      op.erase();
    }
  }
};

} // namespace
