//===- SparsifyContractions.cpp - contractions to stc.spmm ---*- C++ -*-===//
//
// Finds matmul-like linalg ops whose operand is sparse (stc.prune, the
// upstream structured[2, 4] encoding, or the sparsity option) and rewrites
// them to stc.compress + stc.spmm. Contractions with encodings STC does not
// specialize (other formats, 2:4 along another dimension, element types
// without a 2:4 kernel) are left, with a remark, to upstream's sparsifier
// (stc-bufferize runs it).
//
//===----------------------------------------------------------------------===//
#include "passes/GPU/SparseOrDense.h"
#include "passes/Passes.h"
#include "passes/RuntimeCalls.h"
#include "passes/SparsityPolicy.h"
#include "passes/TransposeMatch.h"

#include "dialects/Stc/StcConstants.h"
#include "dialects/Stc/StcOps.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/SparseTensor/IR/SparseTensor.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::stc {
#define GEN_PASS_DEF_STCSPARSIFYCONTRACTIONS
#include "passes/Passes.h.inc"
} // namespace mlir::stc

using namespace mlir;
using namespace mlir::stc;

namespace {

/// What we learned about one contraction operand by walking back through
/// transposes, an stc.prune and a sparse_tensor.convert.
struct OperandTrace {
  /// The value at the end of the chain: the one to compress (after pruning,
  /// when `pruned`).
  Value source;
  /// The reduction dimension in `source`'s coordinates.
  int64_t reductionDim = 1;
  /// The chain contained a stc.prune along the reduction dimension.
  bool pruned = false;
  /// That stc.prune (its method and permute_channels carry over).
  PruneOp prune;
  /// The pattern that makes the operand sparse (from stc.prune or the
  /// encoding); null when the operand is not explicitly sparse.
  NMPatternAttr pattern;
  /// The operand's type carried #sparse_tensor.encoding structured[2, 4]
  /// along the reduction dimension.
  bool encoded = false;
  /// A structured[2, 4] level runs along a dimension other than the
  /// reduction one.
  bool encodedWrongDim = false;
  /// The operand has a sparse encoding without a structured[2, 4] level
  /// (CSR, COO, BSR, ...).
  bool otherEncoding = false;

  bool isExplicitlySparse() const { return pruned || encoded; }
  bool isConstant() const {
    return source && matchPattern(source, m_Constant());
  }
};

static OperandTrace traceOperand(Value v, int64_t reductionDim) {
  OperandTrace trace;
  MLIRContext *ctx = v.getContext();
  bool hasEncoding = false;
  int64_t structured = getStructuredDim(v.getType(), hasEncoding);
  if (hasEncoding) {
    trace.encoded = structured == reductionDim;
    trace.encodedWrongDim = structured >= 0 && structured != reductionDim;
    trace.otherEncoding = structured < 0;
    if (trace.encoded) {
      trace.pattern = NMPatternAttr::get(ctx, 2, 4);
      // stc-prune-on-convert made a dense source 2:4: compress that.
      if (auto convert = v.getDefiningOp<sparse_tensor::ConvertOp>())
        if (!sparse_tensor::getSparseTensorEncoding(
                convert.getSource().getType()))
          v = convert.getSource();
    }
  }
  while (true) {
    if (Value in = getTransposeInput(v)) {
      v = in;
      reductionDim = 1 - reductionDim;
      continue;
    }
    auto prune = v.getDefiningOp<PruneOp>();
    if (prune && !trace.pruned &&
        prune.getReductionDim() == static_cast<uint64_t>(reductionDim)) {
      trace.pruned = true;
      trace.prune = prune;
      trace.pattern = prune.getPattern();
      v = prune.getInput();
      continue;
    }
    break;
  }
  trace.source = v;
  trace.reductionDim = reductionDim;
  return trace;
}

/// Whether `trace` names a constant that already satisfies `pattern`.
static bool isConstantWithPattern(const OperandTrace &trace,
                                  NMPatternAttr pattern) {
  Attribute attr;
  if (!matchPattern(trace.source, m_Constant(&attr)))
    return false;
  auto type = cast<RankedTensorType>(trace.source.getType());
  std::optional<std::vector<float>> data = readFloatConstant(attr, type);
  if (!data)
    return false;
  return constantSatisfiesPattern(*data, type.getDimSize(0), type.getDimSize(1),
                                  trace.reductionDim, pattern);
}

/// The information about one 2-D contraction needed to build stc.spmm.
struct Contraction {
  linalg::LinalgOp op;
  Value lhs, rhs, init;
  /// Reduction dimension of lhs / rhs in their own coordinates.
  int64_t lhsK = 1, rhsK = 0;
};

/// Matches a 2-D (m, n, k) float contraction, or an i8 x i8 -> i32 one,
/// whose output is indexed (m, n).
static std::optional<Contraction> matchContraction(linalg::LinalgOp op) {
  if (!linalg::isaContractionOpInterface(op) || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || !op.hasPureTensorSemantics())
    return std::nullopt;
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || !dims->batch.empty() || dims->m.size() != 1 ||
      dims->n.size() != 1 || dims->k.size() != 1)
    return std::nullopt;
  MLIRContext *ctx = op.getContext();
  AffineExpr m = getAffineDimExpr(dims->m[0], ctx);
  AffineExpr n = getAffineDimExpr(dims->n[0], ctx);
  AffineExpr k = getAffineDimExpr(dims->k[0], ctx);
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  auto positions = [](AffineMap map, AffineExpr a,
                      AffineExpr b) -> std::optional<int64_t> {
    // Returns the position of `b` when the map is exactly (a, b) or (b, a).
    if (map.getNumResults() != 2)
      return std::nullopt;
    if (map.getResult(0) == a && map.getResult(1) == b)
      return 1;
    if (map.getResult(0) == b && map.getResult(1) == a)
      return 0;
    return std::nullopt;
  };
  std::optional<int64_t> lhsK = positions(maps[0], m, k);
  std::optional<int64_t> rhsK = positions(maps[1], n, k);
  if (!lhsK || !rhsK || maps[2].getNumResults() != 2 ||
      maps[2].getResult(0) != m || maps[2].getResult(1) != n)
    return std::nullopt;
  Contraction c;
  c.op = op;
  c.lhs = op.getDpsInputs()[0];
  c.rhs = op.getDpsInputs()[1];
  c.init = op.getDpsInits()[0];
  c.lhsK = *lhsK;
  c.rhsK = *rhsK;
  auto isFloat = [](Value v) {
    Type t = getElementTypeOrSelf(v.getType());
    return t.isF32() || t.isF16() || t.isBF16();
  };
  auto elementWidth = [](Value v, unsigned width) {
    return getElementTypeOrSelf(v.getType()).isInteger(width);
  };
  Type lhsType = getElementTypeOrSelf(c.lhs.getType());
  if (lhsType != getElementTypeOrSelf(c.rhs.getType()))
    return std::nullopt;
  // Quantized: i8 x i8 accumulated in i32, with signed extension (the
  // default of linalg.matmul; cast_unsigned or extui in a generic would
  // read the bytes as unsigned, which stc.spmm does not).
  if (elementWidth(c.lhs, 8) && elementWidth(c.init, 32)) {
    bool isUnsigned = false;
    op->walk([&](Operation *inner) {
      isUnsigned |= isa<arith::ExtUIOp, arith::UIToFPOp>(inner);
    });
    if (auto matmul = dyn_cast<linalg::MatmulOp>(op.getOperation()))
      isUnsigned |= matmul.getCast() == linalg::TypeFn::cast_unsigned;
    if (isUnsigned) {
      op->emitRemark("stc: unsigned i8 operands stay dense (stc.spmm reads "
                     "i8 as signed)");
      return std::nullopt;
    }
    return c;
  }
  if (!isFloat(c.lhs) || !isFloat(c.rhs) || !isFloat(c.init))
    return std::nullopt;
  return c;
}

struct StcSparsifyContractionsPass
    : public mlir::stc::impl::StcSparsifyContractionsBase<
          StcSparsifyContractionsPass> {
  using Base::Base;

  void runOnOperation() override;

private:
  /// Chooses the sparse operand of `c` (0 = lhs, 1 = rhs) or -1.
  int chooseSparseOperand(const Contraction &c, const OperandTrace &lhs,
                          const OperandTrace &rhs, NMPatternAttr pruneAs);
  LogicalResult rewrite(const Contraction &c, int sparse,
                        const OperandTrace &trace, NMPatternAttr pattern);
  /// Why `c` is left to upstream's sparsifier, or "" when STC takes it.
  static std::string upstreamReason(const Contraction &c,
                                    const OperandTrace &lhs,
                                    const OperandTrace &rhs);
  /// sparsity=auto: whether `c` with operand `sparse` pruned is predicted
  /// faster than dense (a remark says why either way); failure after an
  /// error reading the tuning data.
  /// `atRunTime`: the operand is not a constant (pruned on every call).
  FailureOr<bool> autoKeepsSparse(const Contraction &c, int sparse,
                                  bool atRunTime);
  /// Strips the encodings the rewrites consumed (see runOnOperation).
  void stripConsumedEncodings();

  SparsityMode mode = SparsityMode::Explicit;
  /// sparsity=auto on a GPU target: the tuning data, loaded at first use.
  /// (shared: the pass is copied when a pass manager clones it).
  std::shared_ptr<gpu_kernel::TuningData> tuning;
  /// How weights pruned under sparsity=force are pruned.
  PruneMethod forceMethod = PruneMethod::strip;
  /// Valid during runOnOperation only.
  RuntimeCallBuilder *calls = nullptr;
  /// The dense views (sparse_tensor.convert to the plain tensor type) the
  /// rewrites made of encoded values, and the conversions into an encoding
  /// whose dense source a rewrite used instead.
  llvm::SmallSetVector<Operation *, 4> denseViews;
  llvm::SmallSetVector<Operation *, 4> bypassedConverts;
};

/// The text STC's kernels accept, for remarks about what they do not.
constexpr const char *kStcSupports =
    "STC's kernels take 2-D contractions (m, n, k) of f32, f16 or bf16 "
    "operands (or i8 x i8 -> i32) whose structured[2, 4] level runs along "
    "the reduction dimension";

/// Largest batch that is unrolled into 2-D products.
constexpr int64_t kMaxUnrolledBatch = 64;

/// Offsets, sizes and strides of batch element `index` of a rank-3 tensor.
static void batchSliceBounds(OpBuilder &b, RankedTensorType type, int64_t index,
                             SmallVectorImpl<OpFoldResult> &offsets,
                             SmallVectorImpl<OpFoldResult> &sizes,
                             SmallVectorImpl<OpFoldResult> &strides) {
  offsets.assign({b.getIndexAttr(index), b.getIndexAttr(0), b.getIndexAttr(0)});
  sizes.assign({b.getIndexAttr(1), b.getIndexAttr(type.getDimSize(1)),
                b.getIndexAttr(type.getDimSize(2))});
  strides.assign(3, b.getIndexAttr(1));
}

/// Batch element `b` of a rank-3 value: a new constant when `v` is a dense<>
/// constant (so that its pruning still folds), else a rank-reducing slice.
static Value sliceBatch(OpBuilder &b, Location loc, Value v, int64_t index) {
  auto type = cast<RankedTensorType>(v.getType());
  auto sliceType = RankedTensorType::get(type.getShape().drop_front(),
                                         type.getElementType());
  Attribute attr;
  if (matchPattern(v, m_Constant(&attr))) {
    if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
      if (dense.isSplat())
        return arith::ConstantOp::create(b, loc, dense.resizeSplat(sliceType));
      size_t bytes =
          sliceType.getNumElements() * (type.getElementTypeBitWidth() / 8);
      ArrayRef<char> raw = dense.getRawData();
      return arith::ConstantOp::create(
          b, loc,
          DenseElementsAttr::getFromRawBuffer(sliceType,
                                              raw.slice(index * bytes, bytes)));
    }
  }
  SmallVector<OpFoldResult> offsets, sizes, strides;
  batchSliceBounds(b, type, index, offsets, sizes, strides);
  return tensor::ExtractSliceOp::create(b, loc, sliceType, v, offsets, sizes,
                                        strides);
}

/// Whether an operand of a (b, m, k) x (b, k, n) batch_matmul is a constant
/// that satisfies `pattern` along its reduction dimension in every batch.
static bool hasConstant2To4Operand(linalg::BatchMatmulOp op,
                                   NMPatternAttr pattern) {
  for (int operand = 0; operand < 2; ++operand) {
    Value v = op.getDpsInputs()[operand];
    Attribute attr;
    auto type = dyn_cast<RankedTensorType>(v.getType());
    if (!type || type.getRank() != 3 || !matchPattern(v, m_Constant(&attr)))
      continue;
    std::optional<std::vector<float>> data = readFloatConstant(attr, type);
    if (!data)
      continue;
    // lhs (b, m, k): every batch is m x k along 1, i.e. (b*m) x k along 1.
    // rhs (b, k, n): each batch is k x n along 0.
    int64_t batch = type.getDimSize(0), d1 = type.getDimSize(1),
            d2 = type.getDimSize(2);
    bool ok = true;
    if (operand == 0) {
      ok = constantSatisfiesPattern(*data, batch * d1, d2, 1, pattern);
    } else {
      for (int64_t b = 0; ok && b < batch; ++b) {
        std::vector<float> slice(data->begin() + b * d1 * d2,
                                 data->begin() + (b + 1) * d1 * d2);
        ok = constantSatisfiesPattern(slice, d1, d2, 0, pattern);
      }
    }
    if (ok)
      return true;
  }
  return false;
}

/// Rewrites a static batch_matmul into per-batch linalg.matmul ops whose
/// results are inserted into the accumulator; returns false when it does
/// not apply (dynamic shapes, large batch, transposed variants).
static bool splitBatchMatmul(linalg::BatchMatmulOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInputs() != 2)
    return false;
  Value lhs = op.getDpsInputs()[0], rhs = op.getDpsInputs()[1];
  Value init = op.getDpsInits()[0];
  auto lhsType = cast<RankedTensorType>(lhs.getType());
  auto rhsType = cast<RankedTensorType>(rhs.getType());
  auto initType = cast<RankedTensorType>(init.getType());
  if (!lhsType.hasStaticShape() || !rhsType.hasStaticShape() ||
      !initType.hasStaticShape())
    return false;
  // Only the default (b, m, k) x (b, k, n) -> (b, m, n) form.
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  MLIRContext *ctx = op.getContext();
  AffineExpr bb = getAffineDimExpr(0, ctx), m = getAffineDimExpr(1, ctx),
             n = getAffineDimExpr(2, ctx), k = getAffineDimExpr(3, ctx);
  if (maps.size() != 3 || maps[0] != AffineMap::get(4, 0, {bb, m, k}, ctx) ||
      maps[1] != AffineMap::get(4, 0, {bb, k, n}, ctx) ||
      maps[2] != AffineMap::get(4, 0, {bb, m, n}, ctx))
    return false;
  int64_t batch = lhsType.getDimSize(0);
  if (batch > kMaxUnrolledBatch) {
    op.emitRemark() << "stc: batch of " << batch
                    << " is not unrolled (more than " << kMaxUnrolledBatch
                    << "); left dense";
    return false;
  }
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value result = init;
  for (int64_t i = 0; i < batch; ++i) {
    Value a = sliceBatch(b, loc, lhs, i);
    Value w = sliceBatch(b, loc, rhs, i);
    // A filled accumulator stays a fill, so that a zero one is recognised.
    Value c;
    if (auto fill = init.getDefiningOp<linalg::FillOp>()) {
      auto sliceType = RankedTensorType::get(initType.getShape().drop_front(),
                                             initType.getElementType());
      Value empty = tensor::EmptyOp::create(b, loc, sliceType.getShape(),
                                            sliceType.getElementType());
      c = linalg::FillOp::create(b, loc, fill.getInputs()[0], empty)
              .getResult(0);
    } else {
      c = sliceBatch(b, loc, init, i);
    }
    Value product = linalg::MatmulOp::create(b, loc, TypeRange{c.getType()},
                                             ValueRange{a, w}, ValueRange{c})
                        .getResult(0);
    SmallVector<OpFoldResult> offsets, sizes, strides;
    batchSliceBounds(b, initType, i, offsets, sizes, strides);
    result = tensor::InsertSliceOp::create(b, loc, product, result, offsets,
                                           sizes, strides);
  }
  op->getResult(0).replaceAllUsesWith(result);
  op->erase();
  return true;
}

/// docs/DESIGN.md §5: the constant operand when exactly one is constant,
/// otherwise the right-hand one (the weight of X.W).
static int preferredOperand(const OperandTrace &lhs, const OperandTrace &rhs) {
  if (lhs.isConstant() && !rhs.isConstant())
    return 0;
  return 1;
}

int StcSparsifyContractionsPass::chooseSparseOperand(const Contraction &c,
                                                     const OperandTrace &lhs,
                                                     const OperandTrace &rhs,
                                                     NMPatternAttr pruneAs) {
  if (lhs.isExplicitlySparse() && rhs.isExplicitlySparse())
    return preferredOperand(lhs, rhs);
  if (lhs.isExplicitlySparse())
    return 0;
  if (rhs.isExplicitlySparse())
    return 1;
  auto eligible = [&](const OperandTrace &t) {
    return isPatternEligible(pruneAs, getElementTypeOrSelf(t.source.getType()));
  };
  if (mode == SparsityMode::Enable) {
    // Only where the pattern is defined for the type (1:2 is f32 only): an
    // f16 constant that happens to be 1:2 is not a 1:2 weight.
    bool lhsOk = eligible(lhs) && isConstantWithPattern(lhs, pruneAs);
    bool rhsOk = eligible(rhs) && isConstantWithPattern(rhs, pruneAs);
    if (lhsOk && rhsOk)
      return preferredOperand(lhs, rhs);
    return lhsOk ? 0 : rhsOk ? 1 : -1;
  }
  if (prunesWeights(mode)) {
    int choice = preferredOperand(lhs, rhs);
    if (eligible(choice == 0 ? lhs : rhs))
      return choice;
    c.op->emitRemark() << "stc: not sparsified: pattern " << pruneAs.getN()
                       << ":" << pruneAs.getM()
                       << " needs f32 operands; left dense";
    return -1;
  }
  return -1;
}

LogicalResult StcSparsifyContractionsPass::rewrite(const Contraction &c,
                                                   int sparse,
                                                   const OperandTrace &trace,
                                                   NMPatternAttr pattern) {
  Operation *op = c.op;
  OpBuilder b(op);
  Location loc = op->getLoc();
  Value toCompress = trace.source;
  // An encoded value other than a conversion of a dense one (a function
  // argument, say) is compressed from its dense view; the view of an
  // argument that only STC uses disappears with the argument's encoding.
  if (auto type = dyn_cast<RankedTensorType>(toCompress.getType());
      type && type.getEncoding()) {
    auto view = sparse_tensor::ConvertOp::create(
        b, loc, RankedTensorType::get(type.getShape(), type.getElementType()),
        toCompress);
    denseViews.insert(view);
    toCompress = view;
  }
  if (trace.encoded)
    if (auto convert = (sparse == 0 ? c.lhs : c.rhs)
                           .getDefiningOp<sparse_tensor::ConvertOp>())
      bypassedConverts.insert(convert);
  // Prune in the stored orientation: pruning commutes with transposes as
  // long as it runs along the reduction dimension.
  bool prune =
      trace.pruned || (prunesWeights(mode) && !trace.isExplicitlySparse());
  if (prune) {
    // An explicit stc.prune keeps its own method and permutation request;
    // the ones force adds follow the pass options.
    PruneOp original = trace.prune;
    PruneMethod method = original ? original.getMethod() : forceMethod;
    bool permute = original ? original.getPermuteChannels() : permuteChannels;
    toCompress = PruneOp::create(b, loc, toCompress, pattern,
                                 b.getI64IntegerAttr(trace.reductionDim),
                                 PruneMethodAttr::get(b.getContext(), method),
                                 permute ? b.getUnitAttr() : UnitAttr());
  }
  auto srcType = cast<RankedTensorType>(toCompress.getType());
  int64_t rows = srcType.getDimSize(1 - trace.reductionDim);
  int64_t k = srcType.getDimSize(trace.reductionDim);
  int64_t valuesPerRow = ShapedType::isDynamic(k) ? ShapedType::kDynamic
                                                  : pattern.getValuesPerRow(k);
  int64_t wordsPerRow = ShapedType::isDynamic(k)
                            ? ShapedType::kDynamic
                            : pattern.getMetaWordsPerRow(k);
  auto valuesType =
      RankedTensorType::get({rows, valuesPerRow}, srcType.getElementType());
  auto metaType = RankedTensorType::get({rows, wordsPerRow}, b.getI16Type());
  auto compress =
      CompressOp::create(b, loc, valuesType, metaType, toCompress, pattern,
                         b.getI64IntegerAttr(trace.reductionDim));

  bool lhsSparse = sparse == 0;
  Value dense = lhsSparse ? c.rhs : c.lhs;
  // Both operands 2:4 along the reduction: the other one is read dense.
  if (auto type = cast<RankedTensorType>(dense.getType()); type.getEncoding())
    dense = sparse_tensor::ConvertOp::create(
        b, loc, RankedTensorType::get(type.getShape(), type.getElementType()),
        dense);
  int64_t denseK = lhsSparse ? c.rhsK : c.lhsK;
  // With dynamic sizes nothing has checked that both operands agree on K,
  // and the compressed form only knows K up to its padding: check exactly
  // here, at run time, with the contraction's location.
  if (ShapedType::isDynamic(k) ||
      cast<RankedTensorType>(dense.getType()).isDynamicDim(denseK)) {
    ImplicitLocOpBuilder ib(loc, b);
    Type i64 = ib.getI64Type();
    Value where = calls->locationString(ib, loc);
    StringRef name = runtimeSymbol(RuntimeEntryPoint::CheckReduction);
    if (!calls->declare(name, {i64, i64, i64, where.getType()},
                        {ib.getI8Type()}))
      return failure();
    auto dimAsI64 = [&](Value t, int64_t d) -> Value {
      return arith::IndexCastOp::create(ib, i64,
                                        tensor::DimOp::create(ib, t, d));
    };
    func::CallOp::create(ib, name, TypeRange{ib.getI8Type()},
                         ValueRange{dimAsI64(dense, denseK),
                                    dimAsI64(toCompress, trace.reductionDim),
                                    arith::ConstantIntOp::create(ib, 1, 64),
                                    where});
  }
  // lhs sparse: dense is K x N, transposed when its K is dimension 1.
  // rhs sparse: dense is M x K, transposed when its K is dimension 0.
  bool denseTransposed = lhsSparse ? c.rhsK == 1 : c.lhsK == 0;
  Value acc = isZeroFilled(c.init) ? Value() : c.init;
  // An i32 result is the exact accumulator and has no epilogue: a non-zero
  // i32 init is added after the product, exactly.
  Value integerInit;
  if (acc && getElementTypeOrSelf(acc.getType()).isInteger(32)) {
    integerInit = acc;
    acc = Value();
  }
  auto spmm = SpmmOp::create(
      b, loc, op->getResult(0).getType(), compress.getValues(),
      compress.getMeta(), dense, /*bias=*/Value(), acc, /*scale=*/Value(),
      pattern,
      SparseOperandAttr::get(b.getContext(), lhsSparse ? SparseOperand::lhs
                                                       : SparseOperand::rhs),
      b.getBoolAttr(denseTransposed), b.getF64FloatAttr(1.0),
      b.getF64FloatAttr(acc ? 1.0 : 0.0),
      ActivationAttr::get(b.getContext(), Activation::none));
  op->emitRemark() << "stc: " << (lhsSparse ? "lhs" : "rhs") << " operand is "
                   << pattern.getN() << ":" << pattern.getM() << " sparse ("
                   << (trace.encoded                 ? "sparse_tensor encoding"
                       : trace.pruned                ? "stc.prune"
                       : mode == SparsityMode::Force ? "sparsity=force"
                       : mode == SparsityMode::Auto  ? "sparsity=auto"
                                                     : "sparsity=enable")
                   << "), rewritten to stc.spmm";
  Value result = spmm.getResult();
  if (integerInit)
    result = addIntegerInit(b, loc, result, integerInit);
  op->getResult(0).replaceAllUsesWith(result);
  op->erase();
  return success();
}

void StcSparsifyContractionsPass::runOnOperation() {
  ModuleOp module = getOperation();
  RuntimeCallBuilder runtimeCalls(module);
  calls = &runtimeCalls;
  tuning.reset();
  FailureOr<SparsityMode> parsedMode = parseSparsityMode(module, sparsity);
  if (failed(parsedMode))
    return signalPassFailure();
  mode = *parsedMode;
  FailureOr<NMPatternAttr> parsedPattern = parsePatternOption(module, pattern);
  if (failed(parsedPattern))
    return signalPassFailure();
  NMPatternAttr pruneAs = *parsedPattern;
  std::optional<PruneMethod> method = symbolizePruneMethod(pruneMethod);
  if (!method) {
    module.emitError() << "unknown prune method '" << pruneMethod
                       << "' (expected strip or tile)";
    return signalPassFailure();
  }
  forceMethod = *method;
  if (forceMethod == PruneMethod::tile && pruneAs.getN() != 2) {
    module.emitError() << "prune method tile requires the 2:4 pattern, got "
                       << pattern;
    return signalPassFailure();
  }

  // The hardware (and our kernels) multiply one sparse matrix at a time: a
  // batched product whose operands the sparsity option makes sparse is
  // split into one 2-D product per batch element first.
  if (mode != SparsityMode::Explicit) {
    SmallVector<linalg::BatchMatmulOp> batched;
    module.walk([&](linalg::BatchMatmulOp op) { batched.push_back(op); });
    for (linalg::BatchMatmulOp op : batched) {
      // Sparse operands stay whole for upstream's sparsifier.
      if (llvm::any_of(op->getOperandTypes(), [](Type t) {
            return sparse_tensor::getSparseTensorEncoding(t) != nullptr;
          }))
        continue;
      if (prunesWeights(mode) || hasConstant2To4Operand(op, pruneAs))
        splitBatchMatmul(op);
    }
  }

  SmallVector<linalg::LinalgOp> candidates;
  module.walk([&](linalg::LinalgOp op) {
    if (linalg::isaContractionOpInterface(op))
      candidates.push_back(op);
  });
  bool failedAny = false;
  for (linalg::LinalgOp op : candidates) {
    std::optional<Contraction> c = matchContraction(op);
    if (!c) {
      // Upstream's sparsifier runs what STC has no kernel for.
      if (llvm::any_of(op->getOperandTypes(), [](Type t) {
            return sparse_tensor::getSparseTensorEncoding(t) != nullptr;
          }))
        op.emitRemark() << "stc: left to the upstream sparsifier: "
                        << kStcSupports;
      continue;
    }
    OperandTrace lhs = traceOperand(c->lhs, c->lhsK);
    OperandTrace rhs = traceOperand(c->rhs, c->rhsK);
    std::string reason = upstreamReason(*c, lhs, rhs);
    if (!reason.empty()) {
      op.emitRemark() << "stc: left to the upstream sparsifier: " << reason;
      continue;
    }
    int sparse = chooseSparseOperand(*c, lhs, rhs, pruneAs);
    if (sparse < 0)
      continue;
    const OperandTrace &trace = sparse == 0 ? lhs : rhs;
    if (mode == SparsityMode::Auto && !trace.isExplicitlySparse()) {
      FailureOr<bool> keep = autoKeepsSparse(*c, sparse, !trace.isConstant());
      if (failed(keep))
        return signalPassFailure();
      if (!*keep)
        continue;
    }
    NMPatternAttr pattern = trace.pattern ? trace.pattern : pruneAs;
    if (failed(rewrite(*c, sparse, trace, pattern)))
      failedAny = true;
  }
  if (failedAny)
    return signalPassFailure();
  stripConsumedEncodings();
}

FailureOr<bool>
StcSparsifyContractionsPass::autoKeepsSparse(const Contraction &c, int sparse,
                                             bool atRunTime) {
  Operation *op = c.op;
  std::optional<stc_gpu::GpuArch> arch = stc_gpu::symbolizeGpuArch(target);
  if (!arch) {
    // The CPU's dense path is the naive loops of convert-linalg-to-loops,
    // far slower than the sparse microkernel at any size.
    op->emitRemark() << "stc: sparsity=auto on " << target
                     << ": sparse (a dense contraction runs as scalar loops "
                        "there, the 2:4 one on the sparse microkernel)";
    return true;
  }
  if (!tuning) {
    FailureOr<std::unique_ptr<gpu_kernel::TuningData>> loaded =
        gpu_kernel::TuningData::load(op, "stc-sparsify-contractions", *arch,
                                     tuningDb, tuningDevice, tuningBuiltin);
    if (failed(loaded))
      return failure();
    tuning = std::move(*loaded);
  }
  gpu_kernel::SparsityDecision decision = gpu_kernel::decideSparsity(
      c.op, c.lhs, c.rhs, c.lhsK, c.rhsK, sparse, !isZeroFilled(c.init),
      atRunTime, *arch, *tuning);
  op->emitRemark() << "stc: sparsity=auto on " << target << ": "
                   << (decision.sparse ? "sparse" : "kept dense") << ", "
                   << decision.why;
  return decision.sparse;
}

std::string StcSparsifyContractionsPass::upstreamReason(
    const Contraction &c, const OperandTrace &lhs, const OperandTrace &rhs) {
  if (sparse_tensor::getSparseTensorEncoding(c.init.getType()))
    return "its result has a sparse encoding";
  for (const OperandTrace *t : {&lhs, &rhs}) {
    StringRef name = t == &lhs ? "lhs" : "rhs";
    if (t->otherEncoding)
      return (name +
              " has a sparse encoding without a structured[2, 4] "
              "level; " +
              kStcSupports)
          .str();
    if (t->encodedWrongDim)
      return (name +
              "'s structured[2, 4] level runs along a dimension that "
              "is not the reduction dimension; " +
              kStcSupports)
          .str();
  }
  return "";
}

void StcSparsifyContractionsPass::stripConsumedEncodings() {
  // Conversions into an encoding whose dense source the rewrites used: gone
  // when nothing else uses them; other users keep them (upstream's
  // sparsifier lowers those).
  for (Operation *convert : bypassedConverts)
    if (convert->use_empty())
      convert->erase();
  // An encoded function argument that only STC reads (through its dense
  // views, or for its shape) becomes a plain tensor: the caller passes the
  // dense data, which stc.compress checks at run time. One with other users
  // keeps its encoding and the views.
  llvm::SmallSetVector<BlockArgument, 4> args;
  for (Operation *view : denseViews)
    if (auto arg = dyn_cast<BlockArgument>(view->getOperand(0)))
      if (isa<func::FuncOp>(arg.getOwner()->getParentOp()))
        args.insert(arg);
  for (BlockArgument arg : args) {
    // Conversions nobody reads do not count as uses.
    for (Operation *user : llvm::make_early_inc_range(arg.getUsers()))
      if (isa<sparse_tensor::ConvertOp>(user) && user->use_empty() &&
          !denseViews.contains(user))
        user->erase();
    bool onlyStc = llvm::all_of(arg.getUsers(), [&](Operation *user) {
      return denseViews.contains(user) || isa<tensor::DimOp>(user);
    });
    if (!onlyStc)
      continue;
    auto type = cast<RankedTensorType>(arg.getType());
    arg.setType(RankedTensorType::get(type.getShape(), type.getElementType()));
    for (Operation *user : llvm::make_early_inc_range(arg.getUsers())) {
      if (!denseViews.contains(user))
        continue;
      user->getResult(0).replaceAllUsesWith(arg);
      user->erase();
    }
    auto func = cast<func::FuncOp>(arg.getOwner()->getParentOp());
    func.setFunctionType(
        FunctionType::get(&getContext(), func.getBody().getArgumentTypes(),
                          func.getFunctionType().getResults()));
  }
}

} // namespace
