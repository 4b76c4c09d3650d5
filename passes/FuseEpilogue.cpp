//===- FuseEpilogue.cpp - element-wise tails into stc.spmm ---*- C++ -*-===//
//
// Folds the bias add, residual add and ReLU that frontends emit after a
// contraction or convolution into the fused epilogue of stc.spmm / stc.conv,
// so that the CPU and GPU lowerings apply them in registers instead of in
// extra passes over memory.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "dialects/Stc/StcOps.h"

#include "mlir/IR/Matchers.h"

namespace mlir::stc {
#define GEN_PASS_DEF_STCFUSEEPILOGUE
#include "passes/Passes.h.inc"
} // namespace mlir::stc

using namespace mlir;
using namespace mlir::stc;

namespace {

/// Whether `v` is a floating-point zero constant.
static bool isZero(Value v) {
  Attribute attr;
  if (!matchPattern(v, m_Constant(&attr)))
    return false;
  auto f = dyn_cast<FloatAttr>(attr);
  return f && f.getValue().isZero();
}

/// An element-wise linalg.generic of `rank` parallel loops whose body does
/// not read its init.
static bool isElementwise(linalg::GenericOp g, unsigned rank) {
  if (g.getNumDpsInits() != 1 || g.getNumLoops() != rank ||
      g.getNumParallelLoops() != rank || g->getNumResults() != 1)
    return false;
  if (!g.getIndexingMapsArray().back().isIdentity())
    return false;
  Block &body = g.getRegion().front();
  return body.getArgument(body.getNumArguments() - 1).use_empty();
}

/// The single value the body yields.
static Value yielded(linalg::GenericOp g) {
  auto yield = cast<linalg::YieldOp>(g.getRegion().front().getTerminator());
  return yield.getValues().size() == 1 ? yield.getValues()[0] : Value();
}

/// Matches `generic(x, other)` (either order) of `rank` loops whose body is
/// exactly `addf(a, b)` of its two inputs, with x read through the
/// identity. Returns `other` and its indexing map, or null.
static std::pair<Value, AffineMap> matchAdd(linalg::GenericOp g, Value x,
                                            unsigned rank) {
  if (!isElementwise(g, rank) || g.getNumDpsInputs() != 2)
    return {};
  int xIdx = g.getDpsInputs()[0] == x ? 0 : g.getDpsInputs()[1] == x ? 1 : -1;
  if (xIdx < 0)
    return {};
  SmallVector<AffineMap> maps = g.getIndexingMapsArray();
  if (!maps[xIdx].isIdentity())
    return {};
  Block &body = g.getRegion().front();
  auto add = dyn_cast_or_null<arith::AddFOp>(yielded(g).getDefiningOp());
  if (!add || add->getBlock() != &body || body.getOperations().size() != 2)
    return {};
  Value a = body.getArgument(0), b = body.getArgument(1);
  bool operandsMatch = (add.getLhs() == a && add.getRhs() == b) ||
                       (add.getLhs() == b && add.getRhs() == a);
  if (!operandsMatch)
    return {};
  return {g.getDpsInputs()[1 - xIdx], maps[1 - xIdx]};
}

/// Matches `generic(x, bias)` with body `addf(a, b)` where bias is rank 1
/// and indexed by loop `biasDim`. Returns the bias or null.
static Value matchBiasAdd(linalg::GenericOp g, Value x, unsigned rank,
                          unsigned biasDim) {
  auto [bias, biasMap] = matchAdd(g, x, rank);
  if (!bias)
    return nullptr;
  auto biasType = dyn_cast<RankedTensorType>(bias.getType());
  if (!biasType || biasType.getRank() != 1)
    return nullptr;
  if (biasMap.getNumResults() != 1 ||
      biasMap.getResult(0) != getAffineDimExpr(biasDim, g.getContext()))
    return nullptr;
  return bias;
}

/// Matches `generic(x, r)` with body `addf(a, b)` where r has x's type and
/// is read through the identity (a residual). Returns r or null.
static Value matchResidualAdd(linalg::GenericOp g, Value x, unsigned rank) {
  auto [other, map] = matchAdd(g, x, rank);
  if (!other || other.getType() != x.getType() || !map.isIdentity())
    return nullptr;
  return other;
}

/// Matches `generic(x)` whose body is max(x, 0) or select(x > 0, x, 0).
static bool matchRelu(linalg::GenericOp g, Value result, unsigned rank) {
  if (!isElementwise(g, rank) || g.getNumDpsInputs() != 1 ||
      g.getDpsInputs()[0] != result ||
      !g.getIndexingMapsArray()[0].isIdentity())
    return false;
  Value x = g.getRegion().front().getArgument(0);
  Operation *def = yielded(g) ? yielded(g).getDefiningOp() : nullptr;
  if (!def)
    return false;
  if (isa<arith::MaximumFOp, arith::MaxNumFOp>(def)) {
    Value l = def->getOperand(0), r = def->getOperand(1);
    return (l == x && isZero(r)) || (r == x && isZero(l));
  }
  if (auto select = dyn_cast<arith::SelectOp>(def)) {
    auto cmp = select.getCondition().getDefiningOp<arith::CmpFOp>();
    if (!cmp || cmp.getLhs() != x || !isZero(cmp.getRhs()))
      return false;
    bool greater = cmp.getPredicate() == arith::CmpFPredicate::UGT ||
                   cmp.getPredicate() == arith::CmpFPredicate::OGT;
    return greater && select.getTrueValue() == x &&
           isZero(select.getFalseValue());
  }
  return false;
}

/// The operand of linalg.add(x, other) or linalg.add(other, x) that is not
/// x, or null.
static Value otherAddend(linalg::AddOp add, Value x) {
  if (add.getInputs()[0] == x)
    return add.getInputs()[1];
  if (add.getInputs()[1] == x)
    return add.getInputs()[0];
  return nullptr;
}

/// Matches linalg.add(x, linalg.broadcast(bias)) where the broadcast adds
/// exactly `added` (linalg.broadcast lists the *added* dimensions) and
/// returns the bias.
static Value matchNamedBiasAdd(linalg::AddOp add, Value x,
                               ArrayRef<int64_t> added) {
  Value other = otherAddend(add, x);
  auto broadcast = other ? other.getDefiningOp<linalg::BroadcastOp>() : nullptr;
  if (!broadcast || broadcast.getDimensions() != added)
    return nullptr;
  return broadcast.getInput();
}

/// Matches linalg.add(x, r) with r of x's type that is not a broadcast
/// (a residual) and returns r.
static Value matchNamedResidualAdd(linalg::AddOp add, Value x) {
  Value other = otherAddend(add, x);
  if (!other || other.getType() != x.getType() ||
      other.getDefiningOp<linalg::BroadcastOp>())
    return nullptr;
  return other;
}

/// Replaces `consumer` (whose result has spmm's type) by a copy of `spmm`
/// with a new bias and/or activation.
static void fuse(SpmmOp spmm, Operation *consumer, Value bias,
                 Activation activation) {
  OpBuilder b(consumer);
  auto fused = cast<SpmmOp>(b.clone(*spmm.getOperation()));
  if (bias)
    fused.getBiasMutable().assign(bias);
  fused.setActivation(activation);
  consumer->getResult(0).replaceAllUsesWith(fused.getResult());
  consumer->erase();
  spmm.erase();
}

//===----------------------------------------------------------------------===//
// stc.conv
//===----------------------------------------------------------------------===//

/// NHWC -> NCHW, as stc-sparsify-convolutions writes the result of an NCHW
/// convolution, and its inverse.
constexpr int64_t kToNchw[] = {0, 3, 1, 2};
constexpr int64_t kToNhwc[] = {0, 2, 3, 1};

/// What one consumer adds to a stc.conv's epilogue.
struct ConvTail {
  Value bias, residual;
  bool relu = false;
};

/// Matches the single consumer `user` of `x` (the conv's NHWC result, or
/// its NCHW transpose), with the per-channel dimension `channelDim`.
static std::optional<ConvTail> matchConvTail(ConvOp conv, Operation *user,
                                             Value x, unsigned channelDim) {
  bool noAct = conv.getActivation() == Activation::none;
  bool canBias = !conv.getBias() && noAct;
  bool canResidual = !conv.getAcc() && noAct;
  ConvTail tail;
  if (auto g = dyn_cast<linalg::GenericOp>(user)) {
    if (canBias && (tail.bias = matchBiasAdd(g, x, 4, channelDim)))
      return tail;
    if (canResidual && (tail.residual = matchResidualAdd(g, x, 4)))
      return tail;
    if (noAct && matchRelu(g, x, 4)) {
      tail.relu = true;
      return tail;
    }
    return std::nullopt;
  }
  if (auto add = dyn_cast<linalg::AddOp>(user)) {
    SmallVector<int64_t> added;
    for (int64_t d = 0; d < 4; ++d)
      if (d != channelDim)
        added.push_back(d);
    if (canBias && (tail.bias = matchNamedBiasAdd(add, x, added)))
      return tail;
    if (canResidual && (tail.residual = matchNamedResidualAdd(add, x)))
      return tail;
  }
  return std::nullopt;
}

/// Folds the single consumer of `conv` (or of its NCHW transpose) into it
/// when it is a bias add, a residual add or a ReLU. Returns whether it did.
static bool fuseConvTail(ConvOp conv) {
  if (!conv.getResult().hasOneUse())
    return false;
  Value x = conv.getResult();
  Operation *user = *x.getUsers().begin();
  auto transpose = dyn_cast<linalg::TransposeOp>(user);
  if (transpose) {
    if (transpose.getPermutation() != ArrayRef<int64_t>(kToNchw) ||
        !transpose->getResult(0).hasOneUse())
      return false;
    x = transpose->getResult(0);
    user = *x.getUsers().begin();
  }
  if (user->getNumResults() != 1 || user->getResult(0).getType() != x.getType())
    return false;
  std::optional<ConvTail> tail =
      matchConvTail(conv, user, x, transpose ? 1 : 3);
  if (!tail)
    return false;

  OpBuilder b(user);
  Location loc = user->getLoc();
  Value residual = tail->residual;
  if (residual && transpose) {
    // The residual is added after the transpose: bring it back to NHWC.
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, residual);
    SmallVector<OpFoldResult> nhwc;
    for (int64_t p : kToNhwc)
      nhwc.push_back(sizes[p]);
    Value init = tensor::EmptyOp::create(
        b, loc, nhwc,
        cast<RankedTensorType>(residual.getType()).getElementType());
    residual = linalg::TransposeOp::create(b, loc, residual, init, kToNhwc)
                   ->getResult(0);
  }
  auto fused = cast<ConvOp>(b.clone(*conv.getOperation()));
  if (tail->bias)
    fused.getBiasMutable().assign(tail->bias);
  if (residual) {
    fused.getAccMutable().assign(residual);
    fused.setBetaAttr(b.getF64FloatAttr(1.0));
  }
  if (tail->relu)
    fused.setActivation(Activation::relu);
  Value replacement = fused.getResult();
  if (transpose)
    replacement = linalg::TransposeOp::create(b, loc, replacement,
                                              transpose.getInit(), kToNchw)
                      ->getResult(0);
  user->getResult(0).replaceAllUsesWith(replacement);
  user->erase();
  if (transpose)
    transpose.erase();
  conv.erase();
  return true;
}

struct StcFuseEpiloguePass
    : public stc::impl::StcFuseEpilogueBase<StcFuseEpiloguePass> {
  void runOnOperation() override {
    bool changed = true;
    while (changed) {
      changed = false;
      SmallVector<ConvOp> convs;
      getOperation().walk([&](ConvOp op) { convs.push_back(op); });
      for (ConvOp conv : convs)
        changed |= fuseConvTail(conv);
      SmallVector<SpmmOp> spmms;
      getOperation().walk([&](SpmmOp op) { spmms.push_back(op); });
      for (SpmmOp spmm : spmms) {
        if (!spmm.getResult().hasOneUse())
          continue;
        Operation *user = *spmm.getResult().getUsers().begin();
        if (user->getNumResults() != 1 ||
            user->getResult(0).getType() != spmm.getType())
          continue;
        bool canAddBias =
            !spmm.getBias() && spmm.getActivation() == Activation::none;
        if (auto g = dyn_cast<linalg::GenericOp>(user)) {
          if (canAddBias) {
            // Bias is per output column for a sparse rhs, per output row
            // for lhs.
            unsigned biasDim = spmm.getSparse() == SparseOperand::rhs ? 1 : 0;
            if (Value bias = matchBiasAdd(g, spmm.getResult(), 2, biasDim)) {
              fuse(spmm, g, bias, Activation::none);
              changed = true;
              continue;
            }
          }
          if (spmm.getActivation() == Activation::none &&
              matchRelu(g, spmm.getResult(), 2)) {
            fuse(spmm, g, Value(), Activation::relu);
            changed = true;
          }
          continue;
        }
        if (auto add = dyn_cast<linalg::AddOp>(user); add && canAddBias) {
          // A per-column bias (rhs) is broadcast along rows (dimension 0).
          int64_t added = spmm.getSparse() == SparseOperand::rhs ? 0 : 1;
          if (Value bias =
                  matchNamedBiasAdd(add, spmm.getResult(), ArrayRef{added})) {
            fuse(spmm, add, bias, Activation::none);
            changed = true;
          }
        }
      }
    }
  }
};

} // namespace
