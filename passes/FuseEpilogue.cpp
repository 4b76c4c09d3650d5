//===- FuseEpilogue.cpp - element-wise tails into stc.spmm ---*- C++ -*-===//
//
// Folds the bias add, residual add and ReLU that frontends emit after a
// contraction or convolution into the fused epilogue of stc.spmm / stc.conv,
// so that the CPU and GPU lowerings apply them in registers instead of in
// extra passes over memory; after a stc.spmm also the erf GELU (as the ONNX
// importer writes it), the per-channel rescaling of an i32 accumulator to
// float (a QDQ MatMul), and a whole tail in one generic, act(x + bias +
// residual) cast to a narrower float (a transformer's linear + tanh GELU
// to f16, or + bias + residual), which becomes bias, acc, activation and
// the result type at once. tensor.dim users of the op (a dynamic batch)
// are rewritten to read the size from its operands first, so that they do
// not stop the fusion.
//
//===----------------------------------------------------------------------===//
#include "passes/FuseEpilogue.h"
#include "passes/Passes.h"

#include "dialects/Stc/StcOps.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

#include <cmath>

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

/// Whether `v` is a float constant within 1e-6 (relative) of `expected`.
static bool isConstantNear(Value v, double expected) {
  Attribute attr;
  if (!matchPattern(v, m_Constant(&attr)))
    return false;
  auto f = dyn_cast<FloatAttr>(attr);
  return f && std::fabs(f.getValueAsDouble() - expected) <=
                  1e-6 * std::fabs(expected);
}

/// Rewrites the tensor.dim users of `v`, a stc.spmm/stc.conv result about
/// to be replaced by its fused form, to read the same size from `source`,
/// an operand of its producer that dominates them: dimension `d` of `v` has
/// the size of dimension `sourceDim[d]` of `source` (-1: none). Static
/// sizes become constants. Returns the single remaining user of `v`, or null
/// when there is none, more than one, or a size has no source (then
/// nothing was changed).
static Operation *singleConsumer(Value v, Value source,
                                 ArrayRef<int64_t> sourceDim) {
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<tensor::DimOp> dims;
  Operation *found = nullptr;
  for (OpOperand &use : v.getUses()) {
    auto dim = dyn_cast<tensor::DimOp>(use.getOwner());
    if (!dim) {
      if (found)
        return nullptr;
      found = use.getOwner();
      continue;
    }
    std::optional<int64_t> d = dim.getConstantIndex();
    if (!d || (type.isDynamicDim(*d) && sourceDim[*d] < 0))
      return nullptr;
    dims.push_back(dim);
  }
  if (!found)
    return nullptr;
  for (tensor::DimOp dim : dims) {
    OpBuilder b(dim);
    int64_t d = *dim.getConstantIndex();
    Value size =
        type.isDynamicDim(d)
            ? tensor::DimOp::create(b, dim.getLoc(), source, sourceDim[d])
                  .getResult()
            : arith::ConstantIndexOp::create(b, dim.getLoc(),
                                             type.getDimSize(d))
                  .getResult();
    dim.getResult().replaceAllUsesWith(size);
    dim.erase();
  }
  return found;
}

/// Where the sizes of a stc.spmm result come from: M from the dense
/// operand (sparse rhs), N likewise (sparse lhs); the other is the
/// compressed rows, static.
static SmallVector<int64_t> spmmSizeSources(SpmmOp spmm) {
  bool transposed = spmm.getDenseTransposed();
  if (spmm.getSparse() == SparseOperand::rhs)
    return {transposed ? 1 : 0, -1};
  return {-1, transposed ? 0 : 1};
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

/// `v` without a float extension/truncation in front (the importer
/// computes half-precision GELUs in f32).
static Value throughFloatCast(Value v) {
  if (auto ext = v.getDefiningOp<arith::ExtFOp>())
    return ext.getIn();
  if (auto trunc = v.getDefiningOp<arith::TruncFOp>())
    return trunc.getIn();
  return v;
}

/// Whether `a * b` (either order) is `x * c` with the constant `c` near
/// `factor`, x seen through a float cast.
static bool isScaled(arith::MulFOp mul, Value x, double factor) {
  if (!mul)
    return false;
  Value l = mul.getLhs(), r = mul.getRhs();
  return (throughFloatCast(l) == x && isConstantNear(r, factor)) ||
         (throughFloatCast(r) == x && isConstantNear(l, factor));
}

/// Matches `generic(x)` computing the erf GELU, 0.5 x (1 + erf(x / sqrt 2)),
/// as (x * 0.5) * (erf(x * 0.7071...) + 1) with the products and sums in
/// either order, optionally in f32 between an extf and a truncf.
static bool isGeluErfOf(Value result, Value x);
static bool matchGeluErf(linalg::GenericOp g, Value result, unsigned rank) {
  if (!isElementwise(g, rank) || g.getNumDpsInputs() != 1 ||
      g.getDpsInputs()[0] != result ||
      !g.getIndexingMapsArray()[0].isIdentity() || !yielded(g))
    return false;
  return isGeluErfOf(yielded(g), g.getRegion().front().getArgument(0));
}

/// Whether `result` is the erf GELU of `x` (see matchGeluErf).
static bool isGeluErfOf(Value result, Value x) {
  auto outer = throughFloatCast(result).getDefiningOp<arith::MulFOp>();
  if (!outer)
    return false;
  for (int i = 0; i < 2; ++i) {
    auto half = outer->getOperand(i).getDefiningOp<arith::MulFOp>();
    auto sum = outer->getOperand(1 - i).getDefiningOp<arith::AddFOp>();
    if (!isScaled(half, x, 0.5) || !sum)
      continue;
    for (int j = 0; j < 2; ++j) {
      auto erf = sum->getOperand(j).getDefiningOp<math::ErfOp>();
      if (erf && isConstantNear(sum->getOperand(1 - j), 1.0) &&
          isScaled(erf.getOperand().getDefiningOp<arith::MulFOp>(), x,
                   0.7071067811865476))
        return true;
    }
  }
  return false;
}

/// Whether `w` is `OpTy(x, c)`, either order, with `matches(x)` and the
/// constant c near `constant`.
template <typename OpTy, typename Pred>
static bool isWithConstant(Value w, double constant, Pred &&matches) {
  auto op = w.getDefiningOp<OpTy>();
  if (!op)
    return false;
  for (int i = 0; i < 2; ++i)
    if (matches(op->getOperand(i)) &&
        isConstantNear(op->getOperand(1 - i), constant))
      return true;
  return false;
}

/// Whether `result` is the tanh GELU of `v`, 0.5 v (1 + tanh(sqrt(2/pi)
/// (v + 0.044715 v^3))), as frontends write it: the outer product of v (or
/// of 0.5 v) with the half-sum (or the sum), v^3 as v * v * v, each
/// product and sum in either order.
static bool isGeluTanhOf(Value result, Value v) {
  auto mul = result.getDefiningOp<arith::MulFOp>();
  if (!mul)
    return false;
  // tanh(c (v + k v^3)) with c = sqrt(2/pi), k = 0.044715.
  auto isInner = [&](Value t) {
    auto tanh = t.getDefiningOp<math::TanhOp>();
    auto scaled = tanh ? tanh.getOperand().getDefiningOp<arith::MulFOp>()
                       : arith::MulFOp();
    if (!scaled)
      return false;
    for (int i = 0; i < 2; ++i) {
      auto sum = scaled->getOperand(i).getDefiningOp<arith::AddFOp>();
      if (!sum ||
          !isConstantNear(scaled->getOperand(1 - i), 0.7978845608028654))
        continue;
      for (int j = 0; j < 2; ++j) {
        if (sum->getOperand(j) != v)
          continue;
        auto cubic = sum->getOperand(1 - j).getDefiningOp<arith::MulFOp>();
        if (!cubic)
          continue;
        for (int q = 0; q < 2; ++q) {
          auto cube = cubic->getOperand(q).getDefiningOp<arith::MulFOp>();
          if (!cube || !isConstantNear(cubic->getOperand(1 - q), 0.044715))
            continue;
          for (int r = 0; r < 2; ++r) {
            auto square = cube->getOperand(r).getDefiningOp<arith::MulFOp>();
            if (square && cube->getOperand(1 - r) == v &&
                square.getLhs() == v && square.getRhs() == v)
              return true;
          }
        }
      }
    }
    return false;
  };
  // (tanh(...) + 1), and 0.5 times something.
  auto isOnePlusInner = [&](Value w) {
    return isWithConstant<arith::AddFOp>(w, 1.0, isInner);
  };
  auto isHalfOf = [&](Value w, auto &&inner) {
    return isWithConstant<arith::MulFOp>(w, 0.5, inner);
  };
  auto isV = [&](Value w) { return w == v; };
  for (int i = 0; i < 2; ++i) {
    Value a = mul->getOperand(i), b = mul->getOperand(1 - i);
    // v * (0.5 (1 + tanh)) or (0.5 v) * (1 + tanh).
    if ((isV(a) && isHalfOf(b, isOnePlusInner)) ||
        (isHalfOf(a, isV) && isOnePlusInner(b)))
      return true;
  }
  return false;
}

/// What an element-wise consumer of a stc.spmm result adds to its epilogue
/// (matchSpmmTail).
struct SpmmTail {
  Value bias, residual;
  Activation activation = Activation::none;
  /// The consumer's result type (the fused op's).
  RankedTensorType resultType;
};

/// Matches `generic(x, [bias], [residual])`, element-wise over x's two
/// dimensions, whose body computes act(x + bias[c] + residual) in any
/// order of the sums, then optionally rounds it to a narrower float: the
/// tail a frontend writes after a linear layer in one generic (bias add,
/// tanh or erf GELU or ReLU, residual add, cast to f16). x and the other
/// inputs may be widened by arith.extf first. The bias is rank 1, indexed
/// by loop `channelDim`; the residual has x's shape, read through the
/// identity. Returns the tail or nothing.
static std::optional<SpmmTail> matchSpmmTail(linalg::GenericOp g, Value x,
                                             unsigned channelDim) {
  if (!isElementwise(g, 2) || !yielded(g))
    return std::nullopt;
  Block &body = g.getRegion().front();
  SmallVector<AffineMap> maps = g.getIndexingMapsArray();
  auto xType = cast<RankedTensorType>(x.getType());
  // Each input's role, by its block argument.
  BlockArgument xArg, biasArg, residualArg;
  SpmmTail tail;
  for (auto [i, in] : llvm::enumerate(g.getDpsInputs())) {
    auto type = dyn_cast<RankedTensorType>(in.getType());
    if (!type || !isa<FloatType>(type.getElementType()))
      return std::nullopt;
    if (in == x && maps[i].isIdentity() && !xArg) {
      xArg = body.getArgument(i);
    } else if (type.getRank() == 1 && maps[i].getNumResults() == 1 &&
               maps[i].getResult(0) ==
                   getAffineDimExpr(channelDim, g.getContext()) &&
               !biasArg) {
      biasArg = body.getArgument(i);
      tail.bias = in;
    } else if (type.getShape() == xType.getShape() && maps[i].isIdentity() &&
               !residualArg) {
      residualArg = body.getArgument(i);
      tail.residual = in;
    } else {
      return std::nullopt;
    }
  }
  if (!xArg)
    return std::nullopt;
  // The value before the cast and the activation.
  Value v = yielded(g);
  if (auto trunc = v.getDefiningOp<arith::TruncFOp>())
    v = trunc.getIn();
  // Activation: identify it on the candidate pre-activation values (x, x
  // widened, every addf of the body).
  Value pre;
  SmallVector<Value> candidates = {xArg};
  for (Operation &op : body.without_terminator())
    if (isa<arith::AddFOp>(op) ||
        (isa<arith::ExtFOp>(op) && op.getOperand(0) == xArg))
      candidates.push_back(op.getResult(0));
  for (Value candidate : candidates) {
    if (candidate == v) {
      pre = candidate;
      tail.activation = Activation::none;
    } else if (isGeluTanhOf(v, candidate)) {
      pre = candidate;
      tail.activation = Activation::gelu_tanh;
    } else if (isGeluErfOf(v, candidate)) {
      pre = candidate;
      tail.activation = Activation::gelu_erf;
    } else if (auto max = v.getDefiningOp<arith::MaximumFOp>();
               max && ((max.getLhs() == candidate && isZero(max.getRhs())) ||
                       (max.getRhs() == candidate && isZero(max.getLhs())))) {
      pre = candidate;
      tail.activation = Activation::relu;
    }
  }
  if (!pre)
    return std::nullopt;
  // pre must be a tree of addf whose leaves are x, the bias and the
  // residual (each possibly widened), each exactly once.
  int seenX = 0, seenBias = 0, seenResidual = 0;
  std::function<bool(Value)> leaves = [&](Value w) -> bool {
    if (auto add = w.getDefiningOp<arith::AddFOp>();
        add && add->getBlock() == &body)
      return leaves(add.getLhs()) && leaves(add.getRhs());
    if (auto ext = w.getDefiningOp<arith::ExtFOp>())
      w = ext.getIn();
    if (w == xArg)
      return ++seenX == 1;
    if (biasArg && w == biasArg)
      return ++seenBias == 1;
    if (residualArg && w == residualArg)
      return ++seenResidual == 1;
    return false;
  };
  if (!leaves(pre) || seenX != 1 || seenBias != (biasArg ? 1 : 0) ||
      seenResidual != (residualArg ? 1 : 0))
    return std::nullopt;
  // Something must be fused, and the epilogue computes in f32: the tail
  // must too (the sums and the activation on f32 values).
  if (!tail.bias && !tail.residual && tail.activation == Activation::none)
    return std::nullopt;
  // (x itself may be narrower: the activation then reads it widened.)
  if (!v.getType().isF32() || (pre != xArg && !pre.getType().isF32()))
    return std::nullopt;
  tail.resultType = cast<RankedTensorType>(g->getResult(0).getType());
  Type out = tail.resultType.getElementType();
  if (!out.isF32() && !out.isF16() && !out.isBF16())
    return std::nullopt;
  return tail;
}

/// Matches `generic(x, s)` with x an i32 accumulator read through the
/// identity and s a rank-1 f32 tensor indexed by loop `channelDim`, whose
/// body is float(x) * s (either order), optionally rounded to a half type.
/// Returns s or null.
static Value matchChannelScale(linalg::GenericOp g, Value x,
                               unsigned channelDim, unsigned rank = 2) {
  if (!isElementwise(g, rank) || g.getNumDpsInputs() != 2 ||
      g.getDpsInputs()[0] != x || !yielded(g))
    return nullptr;
  Value s = g.getDpsInputs()[1];
  auto sType = dyn_cast<RankedTensorType>(s.getType());
  SmallVector<AffineMap> maps = g.getIndexingMapsArray();
  if (!sType || sType.getRank() != 1 || !sType.getElementType().isF32() ||
      !maps[0].isIdentity() || maps[1].getNumResults() != 1 ||
      maps[1].getResult(0) != getAffineDimExpr(channelDim, g.getContext()))
    return nullptr;
  Block &body = g.getRegion().front();
  Value result = yielded(g);
  if (auto trunc = result.getDefiningOp<arith::TruncFOp>())
    result = trunc.getIn();
  auto mul = result.getDefiningOp<arith::MulFOp>();
  if (!mul)
    return nullptr;
  for (int i = 0; i < 2; ++i) {
    auto convert = mul->getOperand(i).getDefiningOp<arith::SIToFPOp>();
    if (convert && convert.getIn() == body.getArgument(0) &&
        convert.getType().isF32() &&
        mul->getOperand(1 - i) == body.getArgument(1))
      return s;
  }
  return nullptr;
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

/// Replaces `consumer` by a copy of `spmm` with the tail's bias, residual
/// (as acc, beta = 1), activation and result type.
static void fuseTail(SpmmOp spmm, Operation *consumer, const SpmmTail &tail) {
  OpBuilder b(consumer);
  auto fused = cast<SpmmOp>(b.clone(*spmm.getOperation()));
  if (tail.bias)
    fused.getBiasMutable().assign(tail.bias);
  if (tail.residual) {
    fused.getAccMutable().assign(tail.residual);
    fused.setBetaAttr(b.getF64FloatAttr(1.0));
  }
  fused.setActivation(tail.activation);
  fused.getResult().setType(tail.resultType);
  consumer->getResult(0).replaceAllUsesWith(fused.getResult());
  consumer->erase();
  spmm.erase();
}

/// Whether a residual add after `spmm` can become its acc: none yet, and
/// no activation (the epilogue adds acc before it; a bias, added before
/// acc, commutes with the residual).
static bool canAddResidual(SpmmOp spmm) {
  return !spmm.getAcc() && spmm.getActivation() == Activation::none &&
         !getElementTypeOrSelf(spmm.getType()).isInteger(32);
}

/// Replaces `consumer`, spmm + residual, by a copy of `spmm` (which may
/// have a bias) with the residual as acc (beta = 1).
static void fuseResidual(SpmmOp spmm, Operation *consumer, Value residual) {
  SpmmTail tail;
  tail.residual = residual;
  tail.resultType = cast<RankedTensorType>(spmm.getType());
  fuseTail(spmm, consumer, tail);
}

/// Replaces `consumer`, float(spmm) * scale, by a copy of the i32 `spmm`
/// with the scale operand and the consumer's float result type.
static void fuseScale(SpmmOp spmm, Operation *consumer, Value scale) {
  OpBuilder b(consumer);
  auto fused = cast<SpmmOp>(b.clone(*spmm.getOperation()));
  fused.getScaleMutable().assign(scale);
  fused.getResult().setType(
      cast<RankedTensorType>(consumer->getResult(0).getType()));
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

/// Replaces `user` (the consumer of `conv`, or of its NCHW `transpose`) by
/// `fused`, the conv with the consumer folded in, transposed to NCHW again
/// where `conv` was; erases `user`, `transpose` and `conv`.
static void replaceConvTail(ConvOp conv, ConvOp fused, Operation *user,
                            linalg::TransposeOp transpose) {
  Value replacement = fused.getResult();
  if (transpose) {
    OpBuilder b(user);
    Location loc = user->getLoc();
    // A new init: the fused result's element type may differ (a rescale).
    Value init = tensor::EmptyOp::create(
        b, loc, tensor::getMixedSizes(b, loc, transpose.getInit()),
        getElementTypeOrSelf(fused.getType()));
    replacement =
        linalg::TransposeOp::create(b, loc, replacement, init, kToNchw)
            ->getResult(0);
  }
  user->getResult(0).replaceAllUsesWith(replacement);
  user->erase();
  if (transpose)
    transpose.erase();
  conv.erase();
}

/// Folds the rescale float(conv) * scale[c] of an i32 (quantized) `conv`,
/// through its NCHW transpose if there is one, into the conv's scale
/// operand: the conv then gives the float result. Returns whether it did.
static bool fuseConvScale(ConvOp conv, Operation *user,
                          linalg::TransposeOp transpose) {
  auto g = dyn_cast<linalg::GenericOp>(user);
  if (!g || conv.getScale() ||
      !getElementTypeOrSelf(conv.getType()).isInteger(32))
    return false;
  Value x = transpose ? transpose->getResult(0) : Value(conv.getResult());
  Value scale = matchChannelScale(g, x, transpose ? 1 : 3, /*rank=*/4);
  if (!scale)
    return false;
  Type floatType = getElementTypeOrSelf(g->getResult(0).getType());
  OpBuilder b(user);
  auto fused = cast<ConvOp>(b.clone(*conv.getOperation()));
  fused.getScaleMutable().assign(scale);
  fused.getResult().setType(
      RankedTensorType::get(conv.getType().getShape(), floatType));
  replaceConvTail(conv, fused, user, transpose);
  return true;
}

/// Folds the single consumer of `conv` (or of its NCHW transpose) into it
/// when it is a per-channel rescale (quantized), a bias add, a residual add
/// or a ReLU. Returns whether it did.
static bool fuseConvTail(ConvOp conv) {
  // Only the batch size can be dynamic; it is the input's (NHWC, as the
  // result, or NCHW after the transpose).
  Value x = conv.getResult();
  SmallVector<int64_t> batchOnly = {0, -1, -1, -1};
  Operation *user = singleConsumer(x, conv.getInput(), batchOnly);
  if (!user)
    return false;
  auto transpose = dyn_cast<linalg::TransposeOp>(user);
  if (transpose) {
    if (transpose.getPermutation() != ArrayRef<int64_t>(kToNchw))
      return false;
    x = transpose->getResult(0);
    user = singleConsumer(x, conv.getInput(), batchOnly);
    if (!user)
      return false;
  }
  if (user->getNumResults() != 1)
    return false;
  if (fuseConvScale(conv, user, transpose))
    return true;
  // An i32 result is the exact accumulator: it takes no epilogue (its adds
  // are integer ones anyway).
  if (user->getResult(0).getType() != x.getType() ||
      getElementTypeOrSelf(conv.getType()).isInteger(32))
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
  replaceConvTail(conv, fused, user, transpose);
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
        Operation *user = singleConsumer(spmm.getResult(), spmm.getDense(),
                                         spmmSizeSources(spmm));
        if (!user || user->getNumResults() != 1)
          continue;
        // Bias and scale are per output column for a sparse rhs, per output
        // row for lhs.
        unsigned channelDim = spmm.getSparse() == SparseOperand::rhs ? 1 : 0;
        auto g = dyn_cast<linalg::GenericOp>(user);
        // float(i32 accumulator) * scale[c]: the scaling epilogue.
        if (g && getElementTypeOrSelf(spmm.getType()).isInteger(32) &&
            !spmm.getScale()) {
          if (Value scale =
                  matchChannelScale(g, spmm.getResult(), channelDim)) {
            fuseScale(spmm, g, scale);
            changed = true;
          }
          continue;
        }
        // A whole tail in one generic (bias, residual, activation, cast),
        // onto a plain float product.
        if (g && !spmm.getBias() && !spmm.getAcc() &&
            spmm.getActivation() == Activation::none &&
            !getElementTypeOrSelf(spmm.getType()).isInteger(32)) {
          std::optional<SpmmTail> tail =
              matchSpmmTail(g, spmm.getResult(), channelDim);
          // A tail that only adds a bias of the same type is left to the
          // bias pattern below (same result).
          if (tail) {
            fuseTail(spmm, g, *tail);
            changed = true;
            continue;
          }
        }
        if (user->getResult(0).getType() != spmm.getType())
          continue;
        bool canAddBias =
            !spmm.getBias() && spmm.getActivation() == Activation::none;
        if (g) {
          if (canAddBias) {
            if (Value bias = matchBiasAdd(g, spmm.getResult(), 2, channelDim)) {
              fuse(spmm, g, bias, Activation::none);
              changed = true;
              continue;
            }
          }
          if (spmm.getActivation() == Activation::none &&
              matchRelu(g, spmm.getResult(), 2)) {
            fuse(spmm, g, Value(), Activation::relu);
            changed = true;
            continue;
          }
          if (spmm.getActivation() == Activation::none &&
              matchGeluErf(g, spmm.getResult(), 2)) {
            fuse(spmm, g, Value(), Activation::gelu_erf);
            changed = true;
            continue;
          }
          if (canAddResidual(spmm))
            if (Value residual = matchResidualAdd(g, spmm.getResult(), 2)) {
              fuseResidual(spmm, g, residual);
              changed = true;
            }
          continue;
        }
        if (auto add = dyn_cast<linalg::AddOp>(user);
            add && canAddResidual(spmm) && spmm.getBias()) {
          // A bias is in the epilogue already (a frontend that writes
          // stc.spmm with its bias, then the residual add of a transformer
          // block): the other addend of the same shape is the residual.
          if (Value residual = matchNamedResidualAdd(add, spmm.getResult())) {
            fuseResidual(spmm, add, residual);
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

Value mlir::stc::epilogue::matchBiasAdd(linalg::GenericOp g, Value x,
                                        unsigned rank, unsigned channelDim) {
  return ::matchBiasAdd(g, x, rank, channelDim);
}

Value mlir::stc::epilogue::matchResidualAdd(linalg::GenericOp g, Value x,
                                            unsigned rank) {
  return ::matchResidualAdd(g, x, rank);
}

bool mlir::stc::epilogue::matchRelu(linalg::GenericOp g, Value x,
                                    unsigned rank) {
  return ::matchRelu(g, x, rank);
}

bool mlir::stc::epilogue::matchGeluErf(linalg::GenericOp g, Value x,
                                       unsigned rank) {
  return ::matchGeluErf(g, x, rank);
}
