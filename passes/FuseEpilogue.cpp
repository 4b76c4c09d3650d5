//===- FuseEpilogue.cpp - element-wise tails into stc.spmm ---*- C++ -*-===//
//
// Folds the bias add and ReLU that frontends emit after a contraction into
// the fused epilogue of stc.spmm, so that the CPU and GPU lowerings apply
// them in registers instead of in extra passes over memory.
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

/// An element-wise 2-D linalg.generic whose body does not read its init.
static bool isElementwise2D(linalg::GenericOp g) {
  if (g.getNumDpsInits() != 1 || g.getNumLoops() != 2 ||
      g.getNumParallelLoops() != 2 || g->getNumResults() != 1)
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

/// Matches `generic(spmm, bias)` with body `addf(a, b)` where bias is rank 1
/// and indexed by the sparse operand's rows. Returns the bias or null.
static Value matchBiasAdd(linalg::GenericOp g, SpmmOp spmm) {
  if (!isElementwise2D(g) || g.getNumDpsInputs() != 2)
    return nullptr;
  int spmmIdx = g.getDpsInputs()[0] == spmm.getResult()   ? 0
                : g.getDpsInputs()[1] == spmm.getResult() ? 1
                                                          : -1;
  if (spmmIdx < 0)
    return nullptr;
  Value bias = g.getDpsInputs()[1 - spmmIdx];
  SmallVector<AffineMap> maps = g.getIndexingMapsArray();
  if (!maps[spmmIdx].isIdentity())
    return nullptr;
  auto biasType = dyn_cast<RankedTensorType>(bias.getType());
  if (!biasType || biasType.getRank() != 1)
    return nullptr;
  // Bias is per output column for a sparse rhs, per output row for lhs.
  unsigned biasDim = spmm.getSparse() == SparseOperand::rhs ? 1 : 0;
  AffineMap biasMap = maps[1 - spmmIdx];
  if (biasMap.getNumResults() != 1 ||
      biasMap.getResult(0) != getAffineDimExpr(biasDim, g.getContext()))
    return nullptr;
  Block &body = g.getRegion().front();
  auto add = dyn_cast_or_null<arith::AddFOp>(yielded(g).getDefiningOp());
  if (!add || add->getBlock() != &body || body.getOperations().size() != 2)
    return nullptr;
  Value a = body.getArgument(0), b = body.getArgument(1);
  bool operandsMatch = (add.getLhs() == a && add.getRhs() == b) ||
                       (add.getLhs() == b && add.getRhs() == a);
  return operandsMatch ? bias : nullptr;
}

/// Matches `generic(spmm)` whose body is max(x, 0) or select(x > 0, x, 0).
static bool matchRelu(linalg::GenericOp g, SpmmOp spmm) {
  if (!isElementwise2D(g) || g.getNumDpsInputs() != 1 ||
      g.getDpsInputs()[0] != spmm.getResult() ||
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

/// Matches linalg.add(spmm, linalg.broadcast(bias)) and returns the bias.
static Value matchNamedBiasAdd(linalg::AddOp add, SpmmOp spmm) {
  Value other;
  if (add.getInputs()[0] == spmm.getResult())
    other = add.getInputs()[1];
  else if (add.getInputs()[1] == spmm.getResult())
    other = add.getInputs()[0];
  else
    return nullptr;
  auto broadcast = other.getDefiningOp<linalg::BroadcastOp>();
  if (!broadcast)
    return nullptr;
  // linalg.broadcast lists the *added* dimensions: a per-column bias (rhs)
  // is broadcast along rows (dimension 0).
  int64_t added = spmm.getSparse() == SparseOperand::rhs ? 0 : 1;
  if (broadcast.getDimensions() != ArrayRef<int64_t>{added})
    return nullptr;
  return broadcast.getInput();
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

struct StcFuseEpiloguePass
    : public stc::impl::StcFuseEpilogueBase<StcFuseEpiloguePass> {
  void runOnOperation() override {
    bool changed = true;
    while (changed) {
      changed = false;
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
            if (Value bias = matchBiasAdd(g, spmm)) {
              fuse(spmm, g, bias, Activation::none);
              changed = true;
              continue;
            }
          }
          if (spmm.getActivation() == Activation::none && matchRelu(g, spmm)) {
            fuse(spmm, g, Value(), Activation::relu);
            changed = true;
          }
          continue;
        }
        if (auto add = dyn_cast<linalg::AddOp>(user); add && canAddBias) {
          if (Value bias = matchNamedBiasAdd(add, spmm)) {
            fuse(spmm, add, bias, Activation::none);
            changed = true;
          }
        }
      }
    }
  }
};

} // namespace
