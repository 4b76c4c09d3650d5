//===- PermuteChannels.cpp - channel permutations for N:M ----*- C++ -*-===//
//
// Channel permutations (Pool & Yu, NeurIPS 2021): strip pruning keeps the
// largest N of every M consecutive reduction channels, and which channels
// share a group is an accident of the layout. Permuting the reduction
// channels of a constant weight W can keep much more of its magnitude. The
// product is unchanged when the other operand's channels are permuted the
// same way, and that permutation is free when it can be folded into the
// constants of the layer that produces those channels: its weight's output
// channels, its bias, and the per-channel constants of the element-wise ops
// in between. This pass searches the permutation (runtime/format/StcPrune.h)
// and does that folding; it never adds an op.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"
#include "passes/TransposeMatch.h"

#include "dialects/Stc/StcConstants.h"
#include "dialects/Stc/StcOps.h"

#include "runtime/format/StcPrune.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <cstring>
#include <string>

#define DEBUG_TYPE "stc-permute-channels"

namespace mlir::stc {
#define GEN_PASS_DEF_STCPERMUTECHANNELS
#include "passes/Passes.h.inc"
} // namespace mlir::stc

using namespace mlir;
using namespace mlir::stc;
namespace fmt = ::stc::format;

namespace {

//===----------------------------------------------------------------------===//
// Permuting constants
//===----------------------------------------------------------------------===//

/// The raw little-endian bytes of a non-splat dense<> or dense_resource<>
/// constant, or an empty array.
static ArrayRef<char> rawBytes(Attribute attr) {
  if (auto dense = dyn_cast<DenseElementsAttr>(attr))
    return dense.isSplat() ? ArrayRef<char>() : dense.getRawData();
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(attr))
    if (AsmResourceBlob *blob = resource.getRawHandle().getBlob())
      return blob->getData();
  return {};
}

/// Whether a constant's value is the same under any permutation (a splat).
static bool isSplat(Attribute attr) {
  auto dense = dyn_cast<DenseElementsAttr>(attr);
  return dense && dense.isSplat();
}

/// Whether permuteConstant can handle `attr` of `type`.
static bool isPermutableConstant(Attribute attr, Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return false;
  unsigned bits = tensor.getElementTypeBitWidth();
  if (bits < 8 || bits % 8 != 0)
    return false;
  return rawBytes(attr).size() >= size_t(tensor.getNumElements()) * (bits / 8);
}

/// `attr` with its slices along `axis` reordered: new slice i = old slice
/// perm[i]. Works on the bytes, so every element type is copied exactly.
static DenseElementsAttr permuteConstant(Attribute attr, RankedTensorType type,
                                         int64_t axis, ArrayRef<int64_t> perm) {
  ArrayRef<char> src = rawBytes(attr);
  ArrayRef<int64_t> shape = type.getShape();
  size_t width = type.getElementTypeBitWidth() / 8;
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d)
    outer *= shape[d];
  for (int64_t d = axis + 1; d < type.getRank(); ++d)
    inner *= shape[d];
  int64_t n = shape[axis];
  size_t slice = size_t(inner) * width;
  std::vector<char> dst(size_t(outer * n) * slice);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < n; ++i)
      std::memcpy(dst.data() + size_t(o * n + i) * slice,
                  src.data() + size_t(o * n + perm[i]) * slice, slice);
  return DenseElementsAttr::getFromRawBuffer(type, dst);
}

//===----------------------------------------------------------------------===//
// Plans: what must change for one permutation, found before anything changes
//===----------------------------------------------------------------------===//

/// The edits that fold one permutation into a program: every listed use
/// gets a copy of its constant permuted along `axis`.
struct Plan {
  struct ConstantUse {
    OpOperand *use;
    int64_t axis;
  };
  SmallVector<ConstantUse> constants;
  /// The op whose output channels absorb the permutation.
  Operation *producer = nullptr;

  void append(const Plan &other) {
    constants.append(other.constants.begin(), other.constants.end());
  }

  /// Performs the edits (each reads the use's current constant, so edits of
  /// the same constant by earlier permutations compose).
  void apply(ArrayRef<int64_t> perm) const {
    for (const ConstantUse &c : constants) {
      Value v = c.use->get();
      Attribute attr;
      if (!matchPattern(v, m_Constant(&attr)) || isSplat(attr))
        continue;
      auto type = cast<RankedTensorType>(v.getType());
      OpBuilder b(c.use->getOwner());
      Value permuted = arith::ConstantOp::create(
          b, v.getLoc(), type, permuteConstant(attr, type, c.axis, perm));
      c.use->set(permuted);
    }
  }
};

/// "'linalg.generic'" for messages.
static std::string describeOp(Operation *op) {
  return "'" + op->getName().getStringRef().str() + "'";
}

/// Plans permuting the value of `use` along `axis`, where that value is
/// known at compile time: a constant (through transposes, broadcasts and a
/// strip stc.prune along another dimension), or a value that every
/// permutation leaves alone (splat, linalg.fill, tensor.empty).
static LogicalResult planConstant(OpOperand &use, int64_t axis, Plan &plan,
                                  std::string &why) {
  Value v = use.get();
  Attribute attr;
  if (matchPattern(v, m_Constant(&attr))) {
    if (isSplat(attr))
      return success();
    if (!isPermutableConstant(attr, v.getType())) {
      why = "a constant of type that cannot be permuted";
      return failure();
    }
    plan.constants.push_back({&use, axis});
    return success();
  }
  Operation *def = v.getDefiningOp();
  if (!def) {
    why = "a function argument";
    return failure();
  }
  if (isa<tensor::EmptyOp, linalg::FillOp>(def))
    return success();
  // The ops below are changed in place: nobody else may see them change.
  if (!v.hasOneUse()) {
    why = "the result of " + describeOp(def) + ", which has other uses";
    return failure();
  }
  if (OpOperand *in = getTransposeInputOperand(def))
    return planConstant(*in, 1 - axis, plan, why);
  if (auto broadcast = dyn_cast<linalg::BroadcastOp>(def)) {
    ArrayRef<int64_t> added = broadcast.getDimensions();
    if (llvm::is_contained(added, axis))
      return success();
    int64_t inAxis =
        axis - llvm::count_if(added, [&](int64_t d) { return d < axis; });
    return planConstant(*broadcast.getDpsInputOperand(0), inAxis, plan, why);
  }
  if (auto prune = dyn_cast<PruneOp>(def)) {
    // Strip pruning treats every row of the reduction view alone, so its
    // rows can be permuted before it; its groups (along the reduction
    // dimension) and tile pruning's 4x4 tiles cannot.
    if (static_cast<uint64_t>(axis) == prune.getReductionDim()) {
      why = "pruned along the permuted dimension";
      return failure();
    }
    if (prune.getMethod() != PruneMethod::strip) {
      why = "tile-pruned (its rows share 4x4 tiles)";
      return failure();
    }
    std::string inner;
    if (failed(planConstant(prune.getInputMutable(), axis, plan, inner))) {
      why = "an stc.prune of " + inner;
      return failure();
    }
    return success();
  }
  why = "computed by " + describeOp(def) + " at run time";
  return failure();
}

/// Whether the body of `op` reads the iteration indices.
static bool usesIndices(linalg::LinalgOp op) {
  bool found = false;
  op->walk([&](linalg::IndexOp) { found = true; });
  return found;
}

/// Plans the permutation of the output channels `axis` of a matmul-like
/// linalg op: the operand that supplies that dimension must be a constant.
static LogicalResult planMatmulProducer(linalg::LinalgOp op, int64_t axis,
                                        Plan &plan, std::string &why) {
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  OpOperand *init = op.getDpsInitOperand(0);
  AffineMap outMap = op.getMatchingIndexingMap(init);
  if (failed(dims) || !dims->batch.empty() || dims->m.size() != 1 ||
      dims->n.size() != 1 || dims->k.size() != 1 ||
      outMap.getNumResults() != 2) {
    why = "the producing " + describeOp(op) + " is not a 2-D matmul";
    return failure();
  }
  AffineExpr channel = outMap.getResult(axis);
  for (OpOperand *in : op.getDpsInputOperands()) {
    std::optional<unsigned> pos =
        op.getMatchingIndexingMap(in).getResultPosition(channel);
    if (!pos)
      continue;
    std::string inner;
    if (failed(planConstant(*in, *pos, plan, inner))) {
      why = "the weight of the producing " + describeOp(op) + " is " + inner;
      return failure();
    }
  }
  std::string inner;
  if (op.payloadUsesValueFromOperand(init) &&
      failed(planConstant(*init, axis, plan, inner))) {
    why = "the producing " + describeOp(op) + " accumulates into " + inner;
    return failure();
  }
  plan.producer = op;
  return success();
}

/// Plans the permutation of the output channels `axis` of an stc.spmm: they
/// must be its sparse operand's rows, compressed from a constant.
static LogicalResult planSpmmProducer(SpmmOp spmm, int64_t axis, Plan &plan,
                                      std::string &why) {
  int64_t rowsDim = spmm.getSparse() == SparseOperand::lhs ? 0 : 1;
  if (axis != rowsDim) {
    why = "the channels come from the dense operand of the producing "
          "'stc.spmm'";
    return failure();
  }
  std::string inner;
  if (spmm.getBias() &&
      failed(planConstant(spmm.getBiasMutable()[0], 0, plan, inner))) {
    why = "the bias of the producing 'stc.spmm' is " + inner;
    return failure();
  }
  if (spmm.getAcc() &&
      failed(planConstant(spmm.getAccMutable()[0], axis, plan, inner))) {
    why = "the producing 'stc.spmm' accumulates into " + inner;
    return failure();
  }
  // Already folded: the compressed rows themselves are constants, and
  // reordering rows keeps every row's values and metadata valid.
  Attribute values, meta;
  if (matchPattern(spmm.getValues(), m_Constant(&values)) &&
      matchPattern(spmm.getMeta(), m_Constant(&meta))) {
    if (failed(planConstant(spmm.getValuesMutable(), 0, plan, inner)) ||
        failed(planConstant(spmm.getMetaMutable(), 0, plan, inner))) {
      why = "the weight of the producing 'stc.spmm' is " + inner;
      return failure();
    }
    plan.producer = spmm;
    return success();
  }
  auto compress = spmm.getValues().getDefiningOp<CompressOp>();
  if (!compress || spmm.getMeta().getDefiningOp() != compress ||
      !compress.getValues().hasOneUse() || !compress.getMeta().hasOneUse()) {
    why = "the weight of the producing 'stc.spmm' is not an stc.compress "
          "used by it alone";
    return failure();
  }
  int64_t rows = 1 - static_cast<int64_t>(compress.getReductionDim());
  if (failed(planConstant(compress.getInputMutable(), rows, plan, inner))) {
    why = "the weight of the producing 'stc.spmm' is " + inner;
    return failure();
  }
  plan.producer = spmm;
  return success();
}

/// Plans an element-wise step: returns the operand that carries the
/// channels on toward their producer, or null when every operand is known
/// at compile time (then the op itself is the producer).
static FailureOr<OpOperand *> planElementwise(linalg::LinalgOp op, int64_t axis,
                                              Plan &plan, std::string &why) {
  OpOperand *chain = nullptr;
  for (OpOperand *in : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(in);
    // Broadcast along the channels (e.g. a per-row scale): nothing to do.
    if (!map.isFunctionOfDim(axis))
      continue;
    std::optional<unsigned> pos =
        map.getResultPosition(getAffineDimExpr(axis, op.getContext()));
    if (!pos) {
      why = "operand #" + std::to_string(in->getOperandNumber()) + " of " +
            describeOp(op) + " mixes channels";
      return failure();
    }
    Plan probe;
    std::string inner;
    if (succeeded(planConstant(*in, *pos, probe, inner))) {
      plan.append(probe);
      continue;
    }
    if (map.isIdentity() && !chain) {
      chain = in;
      continue;
    }
    why = chain ? describeOp(op) + " combines two run-time tensors (e.g. a "
                                   "residual connection)"
                : "operand #" + std::to_string(in->getOperandNumber()) +
                      " of " + describeOp(op) + " is " + inner;
    return failure();
  }
  OpOperand *init = op.getDpsInitOperand(0);
  std::string inner;
  if (op.payloadUsesValueFromOperand(init) &&
      failed(planConstant(*init, axis, plan, inner))) {
    why = describeOp(op) + " reads its init, which is " + inner;
    return failure();
  }
  return chain;
}

/// An all-parallel linalg op with one result, an identity output map and a
/// body that does not look at indices: it computes each element from the
/// elements of its operands at the positions its maps give.
static bool isElementwise(linalg::LinalgOp op) {
  return op.hasPureTensorSemantics() && op->getNumResults() == 1 &&
         op.getNumDpsInits() == 1 &&
         op.getNumLoops() == op.getNumParallelLoops() &&
         op.getMatchingIndexingMap(op.getDpsInitOperand(0)).isIdentity() &&
         !usesIndices(op);
}

/// Plans folding a permutation of the channels `axis` of `use`'s value into
/// the ops that produce it.
static LogicalResult planProducer(OpOperand &start, int64_t axis, Plan &plan,
                                  std::string &why) {
  OpOperand *use = &start;
  while (true) {
    Value v = use->get();
    // A value known at compile time absorbs the permutation itself.
    Plan probe;
    std::string inner;
    if (succeeded(planConstant(*use, axis, probe, inner))) {
      plan.append(probe);
      plan.producer = v.getDefiningOp();
      return success();
    }
    Operation *def = v.getDefiningOp();
    if (!def) {
      why = "the activations are a function argument";
      return failure();
    }
    // Another user would see the permuted order.
    if (!v.hasOneUse()) {
      why = "the result of " + describeOp(def) +
            " has other uses that need the original channel order";
      return failure();
    }
    if (auto spmm = dyn_cast<SpmmOp>(def))
      return planSpmmProducer(spmm, axis, plan, why);
    if (OpOperand *in = getTransposeInputOperand(def)) {
      use = in;
      axis = 1 - axis;
      continue;
    }
    auto linalgOp = dyn_cast<linalg::LinalgOp>(def);
    if (linalgOp && linalg::isaContractionOpInterface(linalgOp) &&
        linalgOp.hasPureTensorSemantics())
      return planMatmulProducer(linalgOp, axis, plan, why);
    if (linalgOp && isElementwise(linalgOp)) {
      FailureOr<OpOperand *> next = planElementwise(linalgOp, axis, plan, why);
      if (failed(next))
        return failure();
      if (!*next) {
        plan.producer = def;
        return success();
      }
      use = *next;
      continue;
    }
    why = describeOp(def) + " does not act on each channel alone";
    return failure();
  }
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

/// Where a permuted weight is used: the operand whose channels must follow,
/// and that operand's reduction dimension.
struct Consumer {
  OpOperand *dense = nullptr;
  int64_t axis = 0;
  /// True for a linalg contraction that is not yet sparsified.
  bool denseContraction = false;
};

/// The contraction whose sparse operand `prune` is, or none (with `why`).
static std::optional<Consumer> findConsumer(PruneOp prune, std::string &why) {
  Value v = prune.getResult();
  int64_t k = prune.getReductionDim();
  why = "it is not the sparse operand of a contraction (stc.spmm or a "
        "matmul-like linalg op)";
  if (!v.hasOneUse()) {
    why = "the pruned weight has several uses";
    return std::nullopt;
  }
  Operation *user = *v.getUsers().begin();
  // Sparsified: stc.compress feeding one stc.spmm.
  if (auto compress = dyn_cast<CompressOp>(user)) {
    if (compress.getReductionDim() != prune.getReductionDim() ||
        !compress.getValues().hasOneUse() || !compress.getMeta().hasOneUse())
      return std::nullopt;
    auto spmm = dyn_cast<SpmmOp>(*compress.getValues().getUsers().begin());
    if (!spmm || spmm.getValues() != compress.getValues() ||
        spmm.getMeta() != compress.getMeta())
      return std::nullopt;
    return Consumer{&spmm.getDenseMutable(), spmm.getDenseReductionDim(),
                    false};
  }
  // Not yet sparsified: through transposes into a 2-D contraction.
  OpOperand *use = &*v.getUses().begin();
  while (true) {
    Operation *owner = use->getOwner();
    if (getTransposeInputOperand(owner) == use) {
      Value t = owner->getResult(0);
      if (!t.hasOneUse()) {
        why = "the transposed weight has several uses";
        return std::nullopt;
      }
      use = &*t.getUses().begin();
      k = 1 - k;
      continue;
    }
    auto op = dyn_cast<linalg::LinalgOp>(owner);
    if (!op || !linalg::isaContractionOpInterface(op) ||
        !op.hasPureTensorSemantics() || op.getNumDpsInputs() != 2 ||
        !op.isDpsInput(use))
      return std::nullopt;
    FailureOr<linalg::ContractionDimensions> dims =
        linalg::inferContractionDims(op);
    if (failed(dims) || !dims->batch.empty() || dims->k.size() != 1)
      return std::nullopt;
    AffineExpr kExpr = getAffineDimExpr(dims->k[0], op.getContext());
    std::optional<unsigned> myK =
        op.getMatchingIndexingMap(use).getResultPosition(kExpr);
    if (!myK || static_cast<int64_t>(*myK) != k) {
      why = "it prunes along a dimension that is not the reduction dimension "
            "of its contraction";
      return std::nullopt;
    }
    OpOperand *other =
        op.getDpsInputOperand(use->getOperandNumber() == 0 ? 1 : 0);
    std::optional<unsigned> otherK =
        op.getMatchingIndexingMap(other).getResultPosition(kExpr);
    if (!otherK ||
        cast<RankedTensorType>(other->get().getType()).getRank() != 2)
      return std::nullopt;
    return Consumer{other, static_cast<int64_t>(*otherK), true};
  }
}

/// Whether nothing observable uses `v`: every user is free of side effects
/// and its results are unused in the same way (e.g. the transpose of a
/// prune that the sparsifier replaced by its own copy).
static bool isDead(Value v) {
  return llvm::all_of(v.getUsers(), [](Operation *user) {
    return isMemoryEffectFree(user) &&
           !user->hasTrait<OpTrait::IsTerminator>() &&
           user->getNumResults() > 0 &&
           llvm::all_of(user->getResults(), isDead);
  });
}

struct StcPermuteChannelsPass
    : public mlir::stc::impl::StcPermuteChannelsBase<StcPermuteChannelsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<PruneOp> requests;
    getOperation().walk([&](PruneOp prune) {
      if (prune.getPermuteChannels())
        requests.push_back(prune);
    });
    for (PruneOp prune : requests) {
      prune.removePermuteChannelsAttr();
      // A prune the sparsifier replaced by its own copy is dead (so may be
      // the transpose behind it): the copy carries the request.
      if (isDead(prune.getResult()))
        continue;
      permute(prune);
    }
  }

private:
  void permute(PruneOp prune);
};

void StcPermuteChannelsPass::permute(PruneOp prune) {
  auto skip = [&](const Twine &why) {
    prune.emitRemark() << "stc: reduction channels not permuted: " << why;
  };
  if (prune.getMethod() != PruneMethod::strip)
    return skip("the weight is pruned with method tile; the permutation "
                "search optimises strip pruning");
  Attribute attr;
  auto type = prune.getInput().getType();
  std::optional<std::vector<float>> data;
  if (matchPattern(prune.getInput(), m_Constant(&attr)))
    data = readFloatConstant(attr, type);
  if (!data)
    return skip("the weight is not a constant (it is pruned at run time)");
  if (isSplat(attr))
    return skip("the weight is a splat: every permutation prunes it alike");
  if (!isPermutableConstant(attr, type))
    return skip("the weight's constant cannot be permuted");
  std::string why;
  std::optional<Consumer> consumer = findConsumer(prune, why);
  if (!consumer)
    return skip(why);
  Plan plan;
  if (failed(planProducer(*consumer->dense, consumer->axis, plan, why)))
    return skip(why);

  // The search looks at magnitudes in the rows x K view of the weight.
  int64_t k = prune.getReductionDim();
  std::vector<float> magnitudes(data->size());
  for (size_t i = 0; i < data->size(); ++i)
    magnitudes[i] = std::fabs((*data)[i]);
  std::optional<fmt::View2D<const float>> view = fmt::viewOf(
      magnitudes, type.getDimSize(0), type.getDimSize(1), static_cast<int>(k));
  NMPatternAttr pattern = prune.getPattern();
  fmt::PermutationSearchOptions options;
  options.seed = seed;
  options.maxRounds = maxRounds;
  fmt::PermutationSearchResult found = fmt::searchChannelPermutation(
      *view,
      fmt::NMPattern{static_cast<int>(pattern.getN()),
                     static_cast<int>(pattern.getM())},
      options);
  double total = found.totalMagnitude > 0 ? found.totalMagnitude : 1.0;
  if (!fmt::isPermutation(found.perm, type.getDimSize(k)) ||
      !(found.keptPermuted > found.keptIdentity))
    return skip("no permutation found keeps more than the " +
                llvm::formatv("{0:F4}", found.keptIdentity / total).str() +
                " of the magnitude that strip pruning keeps");

  // The weight, still under the stc.prune (folded later, so the mask is
  // chosen in permuted order), and the producer of the other operand.
  OpBuilder b(prune);
  Value weight =
      arith::ConstantOp::create(b, prune.getInput().getLoc(), type,
                                permuteConstant(attr, type, k, found.perm));
  prune.getInputMutable().assign(weight);
  plan.apply(found.perm);

  {
    InFlightDiagnostic remark = prune.emitRemark();
    remark << "stc: reduction channels permuted: strip pruning keeps "
           << llvm::formatv("{0:F4}", found.keptIdentity / total).str()
           << " of the weight's magnitude without the permutation, "
           << llvm::formatv("{0:F4}", found.keptPermuted / total).str()
           << " with it (recovers "
           << llvm::formatv("{0:F4}", found.recoveredFraction).str()
           << " of the pruned magnitude); folded into "
           << (plan.producer ? describeOp(plan.producer) : std::string("?"));
  }
  if (printPermutation) {
    std::string text;
    llvm::raw_string_ostream os(text);
    llvm::interleave(found.perm, os, " ");
    prune.emitRemark() << "stc: permutation: " << text;
  }
  if (testSkipPrune && consumer->denseContraction) {
    prune.getResult().replaceAllUsesWith(prune.getInput());
    prune.erase();
  }
}

} // namespace
