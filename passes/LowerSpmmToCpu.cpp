//===- LowerSpmmToCpu.cpp - stc.spmm to a CPU microkernel ----*- C++ -*-===//
//
// Lowers stc.spmm to a cache-blocked, register-tiled loop nest on tensors.
// Every shape is first brought to one canonical problem
//
//   Out[R, P] = S[R, Kp] . D[Kp, P]
//
// where S is the sparse operand (R compressed rows, values + decoded column
// indices) and D the dense one, packed to f32 and zero-padded: for a sparse
// rhs (X . W) the kernel computes the transposed product and the epilogue
// transposes it back. The inner kernel keeps mr x nv vector<16xf32>
// accumulators in registers and, for each stored value, does one broadcast
// and nv FMAs with a contiguous row of D: no gathers, no scalar FMAs.
//
//===----------------------------------------------------------------------===//
#include "passes/CpuEpilogue.h"
#include "passes/Passes.h"
#include "passes/RuntimeCalls.h"

#include "dialects/Stc/StcConstants.h"
#include "dialects/Stc/StcOps.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/Matchers.h"

namespace mlir::stc {
#define GEN_PASS_DEF_STCLOWERSPMMTOCPU
#include "passes/Passes.h.inc"
} // namespace mlir::stc

using namespace mlir;
using namespace mlir::stc;

namespace {

/// Lanes of the vector type the kernel is written in (one AVX-512 register;
/// LLVM splits it on narrower targets).
constexpr int64_t kLanes = 16;

/// Tiling of the microkernel, validated by the pass.
struct KernelTiling {
  int64_t mr, nv, kc, mc, nc;
};

class SpmmLowering {
public:
  SpmmLowering(SpmmOp op, const KernelTiling &tiling, RuntimeCallBuilder &calls)
      : op(op), b(op.getLoc(), op), tiling(tiling), calls(calls) {}

  /// Builds the lowering and returns the value replacing op's result.
  Value lowerToKernel();
  Value lowerToReference();

private:
  Value constIndex(int64_t v) { return arith::ConstantIndexOp::create(b, v); }
  /// What products accumulate in: f32, or i32 (exact) for i8 operands.
  Type accumulatorType() {
    return op.isQuantized() ? Type(b.getI32Type()) : Type(b.getF32Type());
  }
  /// Size of dimension `i` of `t` as an index value.
  Value dimOf(Value t, int64_t i) {
    auto type = cast<RankedTensorType>(t.getType());
    if (!type.isDynamicDim(i))
      return constIndex(type.getDimSize(i));
    return tensor::DimOp::create(b, t, i);
  }
  /// `v` rounded up to a multiple of `m`.
  Value roundUp(Value v, int64_t m) {
    Value mm = constIndex(m);
    Value q = b.createOrFold<arith::CeilDivUIOp>(v, mm);
    return b.createOrFold<arith::MulIOp>(q, mm);
  }
  Value zeroTensor(ArrayRef<Value> sizes, Type elementType);
  /// Copies `src` (optionally transposed, converted to `elementType`) into
  /// the top-left corner of a zero tensor of `sizes`.
  Value packInto(Value src, bool transpose, ArrayRef<Value> sizes,
                 Type elementType);
  Value decodeIndices();
  /// Kp x Pp -> (Pp / nr) x Kp x nr.
  Value panelize(Value d, Value colsPadded);
  /// Rp x J -> (Rp / mr) x J x mr.
  Value tileRows(Value s, Value rowsPadded);
  Value splitAndTranspose(Value t, int64_t dim, Value size, int64_t block,
                          ArrayRef<int64_t> permutation);
  /// For constant values and metadata: the tiled values (in the
  /// accumulator type) and i32 indices as constants. Returns false when they
  /// are not constants.
  bool buildConstantTiles(Value &vals, Value &idx);
  Value microkernel(Value vals, Value idx, Value dense, Value rowsPadded,
                    Value colsPadded, Value kPadded, Value valuesPerRow);
  /// act(alpha * prod + beta * acc + bias) in the result type. `prod` is
  /// M x N, or N x M when `prodTransposed`.
  Value epilogue(Value prod, bool prodTransposed);

  /// Checks at run time that the dense operand's reduction size `k` fits
  /// the compressed operand (`kPadded` columns); dynamic shapes only.
  LogicalResult checkReductionSize(Value k, Value kPadded);

  SpmmOp op;
  ImplicitLocOpBuilder b;
  KernelTiling tiling;
  RuntimeCallBuilder &calls;
};

LogicalResult SpmmLowering::checkReductionSize(Value k, Value kPadded) {
  if (getConstantIntValue(k) && getConstantIntValue(kPadded))
    return success(); // Verified statically.
  Type i64 = b.getI64Type();
  Value where = calls.locationString(b, op.getLoc());
  StringRef name = runtimeSymbol(RuntimeEntryPoint::CheckReduction);
  if (!calls.declare(name, {i64, i64, i64, where.getType()}, {b.getI8Type()}))
    return failure();
  int64_t granule = op.getPattern().getColumnsPerMetaWord();
  func::CallOp::create(b, name, TypeRange{b.getI8Type()},
                       ValueRange{arith::IndexCastOp::create(b, i64, k),
                                  arith::IndexCastOp::create(b, i64, kPadded),
                                  arith::ConstantIntOp::create(b, granule, 64),
                                  where});
  return success();
}

Value SpmmLowering::zeroTensor(ArrayRef<Value> sizes, Type elementType) {
  SmallVector<OpFoldResult> ofr;
  for (Value s : sizes)
    ofr.push_back(getAsOpFoldResult(s));
  Value empty = tensor::EmptyOp::create(b, ofr, elementType);
  Value zero = arith::ConstantOp::create(b, b.getZeroAttr(elementType));
  return linalg::FillOp::create(b, zero, empty).getResult(0);
}

Value SpmmLowering::packInto(Value src, bool transpose, ArrayRef<Value> sizes,
                             Type elementType) {
  auto srcType = cast<RankedTensorType>(src.getType());
  Value dst = zeroTensor(sizes, elementType);
  SmallVector<OpFoldResult> offsets(2, b.getIndexAttr(0));
  SmallVector<OpFoldResult> strides(2, b.getIndexAttr(1));
  // The copied region is clamped to the destination, so that inconsistent
  // dynamic sizes (reported by the run-time check) never write out of
  // bounds.
  SmallVector<OpFoldResult> inner, srcInner;
  for (int64_t i = 0; i < 2; ++i) {
    Value extent = b.createOrFold<arith::MinUIOp>(
        dimOf(src, transpose ? 1 - i : i), sizes[i]);
    inner.push_back(getAsOpFoldResult(extent));
  }
  srcInner = transpose ? SmallVector<OpFoldResult>{inner[1], inner[0]} : inner;
  src = b.createOrFold<tensor::ExtractSliceOp>(src, offsets, srcInner, strides);
  Value slice =
      b.createOrFold<tensor::ExtractSliceOp>(dst, offsets, inner, strides);
  MLIRContext *ctx = b.getContext();
  AffineMap id = AffineMap::getMultiDimIdentityMap(2, ctx);
  AffineMap inMap =
      transpose ? AffineMap::getPermutationMap(ArrayRef<unsigned>{1, 0}, ctx)
                : id;
  SmallVector<utils::IteratorType> iters(2, utils::IteratorType::parallel);
  Type srcElem = srcType.getElementType();
  auto copy = linalg::GenericOp::create(
      b, slice.getType(), ValueRange{src}, ValueRange{slice},
      ArrayRef<AffineMap>{inMap, id}, iters,
      [&](OpBuilder &nb, Location loc, ValueRange args) {
        Value v = args[0];
        if (srcElem != elementType && isa<IntegerType>(elementType))
          v = arith::ExtSIOp::create(nb, loc, elementType, v);
        else if (srcElem != elementType)
          v = arith::ExtFOp::create(nb, loc, elementType, v);
        linalg::YieldOp::create(nb, loc, v);
      });
  return tensor::InsertSliceOp::create(b, copy.getResult(0), dst, offsets,
                                       inner, strides);
}

/// Splits dimension `dim` of the 2-D `t` into (sizes[dim] / block, block)
/// and transposes the result by `permutation`: the packing of both operands
/// into the blocked layouts the kernel walks.
Value SpmmLowering::splitAndTranspose(Value t, int64_t dim, Value size,
                                      int64_t block,
                                      ArrayRef<int64_t> permutation) {
  auto type = cast<RankedTensorType>(t.getType());
  Value blocks = b.createOrFold<arith::DivUIOp>(size, constIndex(block));
  SmallVector<OpFoldResult> sizes;
  for (int64_t i = 0; i < 2; ++i) {
    if (i != dim) {
      sizes.push_back(getAsOpFoldResult(dimOf(t, i)));
      continue;
    }
    sizes.push_back(getAsOpFoldResult(blocks));
    sizes.push_back(b.getIndexAttr(block));
  }
  SmallVector<int64_t> shape;
  for (OpFoldResult ofr : sizes) {
    std::optional<int64_t> c = getConstantIntValue(ofr);
    shape.push_back(c ? *c : ShapedType::kDynamic);
  }
  SmallVector<ReassociationIndices> reassociation =
      dim == 0 ? SmallVector<ReassociationIndices>{{0, 1}, {2}}
               : SmallVector<ReassociationIndices>{{0}, {1, 2}};
  Value expanded = tensor::ExpandShapeOp::create(
      b, RankedTensorType::get(shape, type.getElementType()), t, reassociation,
      sizes);
  SmallVector<OpFoldResult> permuted;
  for (int64_t p : permutation)
    permuted.push_back(sizes[p]);
  Value init = tensor::EmptyOp::create(b, permuted, type.getElementType());
  return linalg::TransposeOp::create(b, expanded, init, permutation)
      .getResult()[0];
}

Value SpmmLowering::panelize(Value d, Value colsPadded) {
  // Kp x Pp -> Kp x (Pp / nr) x nr -> (Pp / nr) x Kp x nr.
  return splitAndTranspose(d, 1, colsPadded, tiling.nv * kLanes, {1, 0, 2});
}

Value SpmmLowering::tileRows(Value s, Value rowsPadded) {
  // Rp x J -> (Rp / mr) x mr x J -> (Rp / mr) x J x mr.
  return splitAndTranspose(s, 0, rowsPadded, tiling.mr, {0, 2, 1});
}

bool SpmmLowering::buildConstantTiles(Value &vals, Value &idx) {
  auto valuesType = op.getValues().getType();
  Attribute valuesAttr, metaAttr;
  if (!valuesType.hasStaticShape() ||
      !matchPattern(op.getValues(), m_Constant(&valuesAttr)) ||
      !matchPattern(op.getMeta(), m_Constant(&metaAttr)))
    return false;
  std::optional<std::vector<uint16_t>> meta =
      readMetaConstant(metaAttr, op.getMeta().getType());
  std::optional<std::vector<float>> v =
      readFloatConstant(valuesAttr, valuesType);
  if (!meta || !v)
    return false;
  int64_t rows = valuesType.getDimSize(0), perRow = valuesType.getDimSize(1);
  std::vector<int32_t> columns =
      decodeConstantIndices(*meta, rows, perRow, op.getPattern());
  int64_t mr = tiling.mr;
  int64_t tiles = (rows + mr - 1) / mr;
  // Padded rows: value 0 at column 0.
  std::vector<float> tiledValues(tiles * perRow * mr, 0.0f);
  std::vector<int32_t> tiledColumns(tiles * perRow * mr, 0);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < perRow; ++j) {
      int64_t at = ((r / mr) * perRow + j) * mr + r % mr;
      tiledValues[at] = (*v)[r * perRow + j];
      tiledColumns[at] = columns[r * perRow + j];
    }
  auto tiledType =
      RankedTensorType::get({tiles, perRow, mr}, accumulatorType());
  if (op.isQuantized()) {
    // i8 values are exact floats; the kernel multiplies them as i32.
    std::vector<int32_t> ints(tiledValues.begin(), tiledValues.end());
    vals = arith::ConstantOp::create(
        b, DenseElementsAttr::get(tiledType, ArrayRef<int32_t>(ints)));
  } else {
    vals = arith::ConstantOp::create(
        b, DenseElementsAttr::get(tiledType, ArrayRef<float>(tiledValues)));
  }
  idx = arith::ConstantOp::create(
      b, DenseElementsAttr::get(
             RankedTensorType::get({tiles, perRow, mr}, b.getI32Type()),
             ArrayRef<int32_t>(tiledColumns)));
  return true;
}

/// Absolute column index of every stored value (the CPU kernel-ready
/// layout): folded at compile time for constant metadata.
Value SpmmLowering::decodeIndices() {
  NMPatternAttr pattern = op.getPattern();
  auto valuesType = op.getValues().getType();
  auto idxType = RankedTensorType::get(valuesType.getShape(), b.getI32Type());
  Attribute metaAttr;
  if (matchPattern(op.getMeta(), m_Constant(&metaAttr)) &&
      valuesType.hasStaticShape()) {
    if (std::optional<std::vector<uint16_t>> meta =
            readMetaConstant(metaAttr, op.getMeta().getType())) {
      std::vector<int32_t> idx = decodeConstantIndices(
          *meta, valuesType.getDimSize(0), valuesType.getDimSize(1), pattern);
      return arith::ConstantOp::create(
          b, DenseIntElementsAttr::get(idxType, ArrayRef<int32_t>(idx)));
    }
  }
  // Run time: group g = j / n holds this value; its nibble is in word g / 4
  // at bits 4 * (g % 4); the value is the (j % n)-th index of the nibble.
  // 2:4 indices are 2-bit fields; a 1:2 nibble is 0x4 or 0xE, whose low
  // field is 0 or 2, i.e. twice the kept index.
  int64_t n = pattern.getN(), m = pattern.getM();
  Value meta = op.getMeta();
  SmallVector<Value> dyn;
  for (int64_t i = 0; i < 2; ++i)
    if (valuesType.isDynamicDim(i))
      dyn.push_back(dimOf(op.getValues(), i));
  Value empty =
      tensor::EmptyOp::create(b, idxType.getShape(), b.getI32Type(), dyn);
  MLIRContext *ctx = b.getContext();
  AffineMap id = AffineMap::getMultiDimIdentityMap(2, ctx);
  SmallVector<utils::IteratorType> iters(2, utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, idxType, ValueRange{}, ValueRange{empty}, ArrayRef<AffineMap>{id},
      iters, [&](OpBuilder &nb, Location loc, ValueRange) {
        ImplicitLocOpBuilder ib(loc, nb);
        Value r = linalg::IndexOp::create(ib, 0);
        Value j = linalg::IndexOp::create(ib, 1);
        auto cI = [&](int64_t v) {
          return arith::ConstantIndexOp::create(ib, v);
        };
        Value g = arith::DivUIOp::create(ib, j, cI(n));
        Value within = arith::RemUIOp::create(ib, j, cI(n));
        Value word = arith::DivUIOp::create(ib, g, cI(4));
        Value slot = arith::RemUIOp::create(ib, g, cI(4));
        Value w16 = tensor::ExtractOp::create(ib, meta, ValueRange{r, word});
        Value w = arith::ExtUIOp::create(ib, ib.getI32Type(), w16);
        auto cI32 = [&](int64_t v) {
          return arith::ConstantIntOp::create(ib, v, 32);
        };
        Value shift = arith::AddIOp::create(
            ib,
            arith::MulIOp::create(
                ib, arith::IndexCastOp::create(ib, ib.getI32Type(), slot),
                cI32(4)),
            arith::MulIOp::create(
                ib, arith::IndexCastOp::create(ib, ib.getI32Type(), within),
                cI32(2)));
        Value field = arith::AndIOp::create(
            ib, arith::ShRUIOp::create(ib, w, shift), cI32(3));
        if (m == 2)
          field = arith::ShRUIOp::create(ib, field, cI32(1));
        Value base = arith::MulIOp::create(
            ib, arith::IndexCastOp::create(ib, ib.getI32Type(), g), cI32(m));
        linalg::YieldOp::create(
            ib, ValueRange{arith::AddIOp::create(ib, base, field)});
      });
  return generic.getResult(0);
}

Value SpmmLowering::microkernel(Value vals, Value idx, Value dense,
                                Value rowsPadded, Value colsPadded,
                                Value kPadded, Value valuesPerRow) {
  Type accType = accumulatorType();
  bool integer = op.isQuantized();
  auto vecType = VectorType::get({kLanes}, accType);
  int64_t n = op.getPattern().getN(), m = op.getPattern().getM();
  int64_t mr = tiling.mr, nv = tiling.nv, nr = tiling.nv * kLanes;
  Value out = zeroTensor({rowsPadded, colsPadded}, accType);
  Value c0 = constIndex(0);
  Value kc = constIndex(tiling.kc);
  Value jc = constIndex(tiling.kc / m * n);
  Value mc = constIndex(tiling.mc);
  Value nc = constIndex(tiling.nc);
  Value padF = arith::ConstantOp::create(b, b.getZeroAttr(accType));
  SmallVector<bool> inBounds = {true};

  // for kb (reduction block) / pb (column block) / rb (row block) /
  //   p0 (column panel) / r0 (register tile rows) / j (stored values).
  auto kLoop = scf::ForOp::create(
      b, c0, kPadded, kc, ValueRange{out},
      [&](OpBuilder &nb, Location loc, Value kb, ValueRange kArgs) {
        ImplicitLocOpBuilder kB(loc, nb);
        Value jb = arith::MulIOp::create(
            kB, arith::DivUIOp::create(kB, kb, constIndex(m)), constIndex(n));
        Value jEnd = arith::MinUIOp::create(
            kB, arith::AddIOp::create(kB, jb, jc), valuesPerRow);
        // Column blocks of nc: the D block (kc x nc) a row block sweeps
        // stays in L2 instead of streaming all of D once per row block.
        auto cLoop = scf::ForOp::create(
            kB, c0, colsPadded, nc, kArgs,
            [&](OpBuilder &nbc, Location locc, Value pb, ValueRange cArgs) {
              ImplicitLocOpBuilder cB(locc, nbc);
              Value pEnd = arith::MinUIOp::create(
                  cB, arith::AddIOp::create(cB, pb, nc), colsPadded);
              auto rLoop = scf::ForOp::create(
                  cB, c0, rowsPadded, mc, cArgs,
                  [&](OpBuilder &nb2, Location loc2, Value rb,
                      ValueRange rArgs) {
                    ImplicitLocOpBuilder rB(loc2, nb2);
                    Value rEnd = arith::MinUIOp::create(
                        rB, arith::AddIOp::create(rB, rb, mc), rowsPadded);
                    auto pLoop = scf::ForOp::create(
                        rB, pb, pEnd, constIndex(nr), rArgs,
                        [&](OpBuilder &nb3, Location loc3, Value p0,
                            ValueRange pArgs) {
                          ImplicitLocOpBuilder pB(loc3, nb3);
                          auto tLoop = scf::ForOp::create(
                              pB, rb, rEnd, constIndex(mr), pArgs,
                              [&](OpBuilder &nb4, Location loc4, Value r0,
                                  ValueRange tArgs) {
                                ImplicitLocOpBuilder tB(loc4, nb4);
                                Value acc = tArgs[0];
                                SmallVector<Value> rows, cols, inPanel, inTile;
                                Value tile = arith::DivUIOp::create(
                                    tB, r0,
                                    arith::ConstantIndexOp::create(tB, mr));
                                Value panel = arith::DivUIOp::create(
                                    tB, p0,
                                    arith::ConstantIndexOp::create(tB, nr));
                                for (int64_t r = 0; r < mr; ++r) {
                                  inTile.push_back(
                                      arith::ConstantIndexOp::create(tB, r));
                                  rows.push_back(
                                      arith::AddIOp::create(tB, r0, inTile[r]));
                                }
                                for (int64_t c = 0; c < nv; ++c) {
                                  inPanel.push_back(
                                      arith::ConstantIndexOp::create(
                                          tB, c * kLanes));
                                  cols.push_back(arith::AddIOp::create(
                                      tB, p0, inPanel[c]));
                                }
                                SmallVector<Value> accs;
                                for (int64_t r = 0; r < mr; ++r)
                                  for (int64_t c = 0; c < nv; ++c)
                                    accs.push_back(
                                        vector::TransferReadOp::create(
                                            tB, vecType, acc,
                                            ValueRange{rows[r], cols[c]}, padF,
                                            ArrayRef<bool>(inBounds)));
                                auto jLoop = scf::ForOp::create(
                                    tB, jb, jEnd,
                                    arith::ConstantIndexOp::create(tB, 1), accs,
                                    [&](OpBuilder &nb5, Location loc5, Value j,
                                        ValueRange jArgs) {
                                      ImplicitLocOpBuilder jB(loc5, nb5);
                                      SmallVector<Value> next(jArgs.begin(),
                                                              jArgs.end());
                                      for (int64_t r = 0; r < mr; ++r) {
                                        Value k = arith::IndexCastOp::create(
                                            jB, jB.getIndexType(),
                                            tensor::ExtractOp::create(
                                                jB, idx,
                                                ValueRange{tile, j,
                                                           inTile[r]}));
                                        Value v = tensor::ExtractOp::create(
                                            jB, vals,
                                            ValueRange{tile, j, inTile[r]});
                                        Value vb = vector::BroadcastOp::create(
                                            jB, vecType, v);
                                        for (int64_t c = 0; c < nv; ++c) {
                                          Value d =
                                              vector::TransferReadOp::create(
                                                  jB, vecType, dense,
                                                  ValueRange{panel, k,
                                                             inPanel[c]},
                                                  padF,
                                                  ArrayRef<bool>(inBounds));
                                          // i8 operands: exact i32
                                          // multiply-add (wrapping, as
                                          // the GPU's s32 accumulator).
                                          Value &accum = next[r * nv + c];
                                          if (integer)
                                            accum = arith::AddIOp::create(
                                                jB,
                                                arith::MulIOp::create(jB, vb,
                                                                      d),
                                                accum);
                                          else
                                            accum = vector::FMAOp::create(
                                                jB, vb, d, accum);
                                        }
                                      }
                                      scf::YieldOp::create(jB, next);
                                    });
                                for (int64_t r = 0; r < mr; ++r)
                                  for (int64_t c = 0; c < nv; ++c)
                                    acc = vector::TransferWriteOp::create(
                                              tB, jLoop.getResult(r * nv + c),
                                              acc, ValueRange{rows[r], cols[c]},
                                              ArrayRef<bool>(inBounds))
                                              .getResult();
                                scf::YieldOp::create(tB, acc);
                              });
                          scf::YieldOp::create(pB, tLoop.getResults());
                        });
                    scf::YieldOp::create(rB, pLoop.getResults());
                  });
              scf::YieldOp::create(cB, rLoop.getResults());
            });
        scf::YieldOp::create(kB, cLoop.getResults());
      });
  return kLoop.getResult(0);
}

Value SpmmLowering::epilogue(Value prod, bool prodTransposed) {
  auto resultType = op.getResult().getType();
  bool lhs = op.getSparse() == SparseOperand::lhs;
  // Result sizes: M x N.
  SmallVector<Value> dyn;
  for (int64_t i = 0; i < 2; ++i)
    if (resultType.isDynamicDim(i))
      dyn.push_back(dimOf(prod, prodTransposed ? 1 - i : i));
  MLIRContext *ctx = b.getContext();
  AffineMap prodMap =
      prodTransposed
          ? AffineMap::getPermutationMap(ArrayRef<unsigned>{1, 0}, ctx)
          : AffineMap::getMultiDimIdentityMap(2, ctx);
  EpilogueSpec spec;
  spec.bias = op.getBias();
  spec.biasMap = AffineMap::get(2, 0, getAffineDimExpr(lhs ? 0 : 1, ctx));
  spec.acc = op.getAcc();
  spec.scale = op.getScale();
  spec.alpha = op.getAlpha().convertToDouble();
  spec.beta = op.getBeta().convertToDouble();
  spec.activation = op.getActivation();
  return buildCpuEpilogue(b, prod, prodMap, resultType, dyn, spec);
}

Value SpmmLowering::lowerToKernel() {
  Type accType = accumulatorType();
  int64_t n = op.getPattern().getN(), m = op.getPattern().getM();
  Value values = op.getValues(), dense = op.getDense();
  int64_t kDim = op.getDenseReductionDim();

  Value rows = dimOf(values, 0);
  Value valuesPerRow = dimOf(values, 1);
  // Kp = valuesPerRow * m / n: every stored value stands for m/n columns.
  Value kPadded = b.createOrFold<arith::DivUIOp>(
      b.createOrFold<arith::MulIOp>(valuesPerRow, constIndex(m)),
      constIndex(n));
  Value cols = dimOf(dense, 1 - kDim);
  if (failed(checkReductionSize(dimOf(dense, kDim), kPadded)))
    return nullptr;
  Value rowsPadded = roundUp(rows, tiling.mr);
  Value colsPadded = roundUp(cols, tiling.nv * kLanes);

  // S: f32 (i32 for i8 operands) values and i32 column indices, rows padded
  // to the register tile (padded rows have value 0 at column 0: they read a
  // valid row of D). Row tiles of mr, each j-major (Rp/mr x J x mr): the kernel
  // reads the mr values of one j from one cache line instead of mr rows a row
  // stride apart (a power-of-two stride puts them all in the same L1 set).
  // Constant weights get this layout at compile time.
  Value vals, idx;
  if (!buildConstantTiles(vals, idx)) {
    idx = decodeIndices();
    vals = packInto(values, /*transpose=*/false, {rowsPadded, valuesPerRow},
                    accType);
    idx = packInto(idx, false, {rowsPadded, valuesPerRow}, b.getI32Type());
    vals = tileRows(vals, rowsPadded);
    idx = tileRows(idx, rowsPadded);
  }
  // D: Kp x P, f32 (i32), rows past K and columns past P are zero, so that
  // padded groups and tile overhang read defined zeros.
  Value d =
      packInto(dense, /*transpose=*/kDim == 1, {kPadded, colsPadded}, accType);
  // Column panels of nr = nv * 16 floats, each contiguous (Kp x nr): the
  // kernel walks rows of one panel at data-dependent k, and a plain
  // row-major D would put those rows a power-of-two stride apart, all in
  // the same L1 sets.
  d = panelize(d, colsPadded);
  Value out =
      microkernel(vals, idx, d, rowsPadded, colsPadded, kPadded, valuesPerRow);
  SmallVector<OpFoldResult> offsets(2, b.getIndexAttr(0));
  SmallVector<OpFoldResult> strides(2, b.getIndexAttr(1));
  SmallVector<OpFoldResult> sizes = {getAsOpFoldResult(rows),
                                     getAsOpFoldResult(cols)};
  Value prod = tensor::ExtractSliceOp::create(b, out, offsets, sizes, strides);
  // Out is R x P: M x N for a sparse lhs, N x M for a sparse rhs.
  return epilogue(prod, op.getSparse() == SparseOperand::rhs);
}

Value SpmmLowering::lowerToReference() {
  Type accType = accumulatorType();
  bool lhs = op.getSparse() == SparseOperand::lhs;
  TypedValue<RankedTensorType> dense = op.getDense();
  int64_t kDim = op.getDenseReductionDim();
  auto denseType = dense.getType();
  auto valuesType = op.getValues().getType();
  // The sparse operand in its logical orientation: M x K (lhs, pattern
  // along 1) or K x N (rhs, pattern along 0). With a dynamic K it is
  // decompressed to the padded size Kp and cut to the dense operand's K.
  int64_t n = op.getPattern().getN(), m = op.getPattern().getM();
  int64_t k = denseType.getDimSize(kDim);
  int64_t rows = valuesType.getDimSize(0);
  int64_t kStored = k;
  if (ShapedType::isDynamic(k) && !valuesType.isDynamicDim(1))
    kStored = valuesType.getDimSize(1) * m / n;
  SmallVector<int64_t> shape = lhs ? SmallVector<int64_t>{rows, kStored}
                                   : SmallVector<int64_t>{kStored, rows};
  auto sparseType = RankedTensorType::get(shape, valuesType.getElementType());
  Value sparse =
      DecompressOp::create(b, sparseType, op.getValues(), op.getMeta(),
                           op.getPattern(), b.getI64IntegerAttr(lhs ? 1 : 0));
  if (ShapedType::isDynamic(k)) {
    Value kPadded = b.createOrFold<arith::DivUIOp>(
        b.createOrFold<arith::MulIOp>(dimOf(op.getValues(), 1), constIndex(m)),
        constIndex(n));
    if (failed(checkReductionSize(dimOf(dense, kDim), kPadded)))
      return nullptr;
    Value kUsed = b.createOrFold<arith::MinUIOp>(dimOf(dense, kDim), kPadded);
    SmallVector<OpFoldResult> zero(2, b.getIndexAttr(0));
    SmallVector<OpFoldResult> one(2, b.getIndexAttr(1));
    SmallVector<OpFoldResult> sparseSizes = {
        getAsOpFoldResult(lhs ? dimOf(sparse, 0) : kUsed),
        getAsOpFoldResult(lhs ? kUsed : dimOf(sparse, 1))};
    sparse = tensor::ExtractSliceOp::create(b, sparse, zero, sparseSizes, one);
    SmallVector<OpFoldResult> denseSizes = {
        getAsOpFoldResult(kDim == 0 ? kUsed : dimOf(dense, 0)),
        getAsOpFoldResult(kDim == 1 ? kUsed : dimOf(dense, 1))};
    dense = cast<TypedValue<RankedTensorType>>(
        tensor::ExtractSliceOp::create(b, dense, zero, denseSizes, one)
            .getResult());
  }
  // prod[m, n] = sum_k A[m, k] * B[k, n] with A, B as given.
  Value a = lhs ? sparse : dense;
  Value bm = lhs ? dense : sparse;
  bool aT = !lhs && kDim == 0; // dense M x K given as K x M
  bool bT = lhs && kDim == 1;  // dense K x N given as N x K
  Value prodInit =
      zeroTensor({dimOf(a, aT ? 1 : 0), dimOf(bm, bT ? 0 : 1)}, accType);
  MLIRContext *ctx = b.getContext();
  AffineExpr dm = getAffineDimExpr(0, ctx), dn = getAffineDimExpr(1, ctx),
             dk = getAffineDimExpr(2, ctx);
  auto map = [&](AffineExpr x, AffineExpr y) {
    return AffineMap::get(3, 0, {x, y}, ctx);
  };
  SmallVector<AffineMap> maps = {aT ? map(dk, dm) : map(dm, dk),
                                 bT ? map(dn, dk) : map(dk, dn), map(dm, dn)};
  SmallVector<utils::IteratorType> iters = {utils::IteratorType::parallel,
                                            utils::IteratorType::parallel,
                                            utils::IteratorType::reduction};
  auto contraction = linalg::GenericOp::create(
      b, prodInit.getType(), ValueRange{a, bm}, ValueRange{prodInit}, maps,
      iters, [&](OpBuilder &nb, Location loc, ValueRange args) {
        // f32 products, or exact i32 ones for i8 operands.
        if (isa<IntegerType>(accType)) {
          Value p = arith::MulIOp::create(
              nb, loc, arith::ExtSIOp::create(nb, loc, accType, args[0]),
              arith::ExtSIOp::create(nb, loc, accType, args[1]));
          linalg::YieldOp::create(
              nb, loc, ValueRange{arith::AddIOp::create(nb, loc, args[2], p)});
          return;
        }
        auto toF32 = [&](Value v) -> Value {
          return v.getType() == accType
                     ? v
                     : arith::ExtFOp::create(nb, loc, accType, v);
        };
        Value p =
            arith::MulFOp::create(nb, loc, toF32(args[0]), toF32(args[1]));
        linalg::YieldOp::create(
            nb, loc, ValueRange{arith::AddFOp::create(nb, loc, args[2], p)});
      });
  return epilogue(contraction.getResult(0), /*prodTransposed=*/false);
}

struct StcLowerSpmmToCpuPass
    : public mlir::stc::impl::StcLowerSpmmToCpuBase<StcLowerSpmmToCpuPass> {
  using Base::Base;

  void runOnOperation() override {
    KernelTiling tiling{rowsPerTile, vectorsPerTile, reductionBlock, rowBlock,
                        colBlock};
    if (tiling.mr < 1 || tiling.nv < 1 || tiling.mr * tiling.nv > 32) {
      getOperation().emitError()
          << "stc-lower-spmm-to-cpu: mr * nv must be in [1, 32] (vector "
             "registers), got mr="
          << tiling.mr << " nv=" << tiling.nv;
      return signalPassFailure();
    }
    if (tiling.kc < 16 || tiling.kc % 16 != 0 || tiling.mc < tiling.mr) {
      getOperation().emitError()
          << "stc-lower-spmm-to-cpu: kc must be a positive multiple of 16 "
             "and mc >= mr, got kc="
          << tiling.kc << " mc=" << tiling.mc;
      return signalPassFailure();
    }
    // Row blocks hold whole register tiles, column blocks whole panels.
    tiling.mc = (tiling.mc + tiling.mr - 1) / tiling.mr * tiling.mr;
    int64_t nr = tiling.nv * kLanes;
    tiling.nc = std::max<int64_t>(nr, (tiling.nc + nr - 1) / nr * nr);
    SmallVector<SpmmOp> ops;
    getOperation().walk([&](SpmmOp op) { ops.push_back(op); });
    RuntimeCallBuilder calls(getOperation());
    for (SpmmOp op : ops) {
      SpmmLowering lowering(op, tiling, calls);
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
