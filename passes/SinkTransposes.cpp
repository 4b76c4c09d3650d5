//===- SinkTransposes.cpp - transposes past element-wise ops --*- C++ -*-===//
//
// stc-sink-transposes (Passes.td): an element-wise linalg.generic reading a
// linalg.transpose that nothing else reads is computed in the transpose's
// input layout instead, and the transpose moves behind it. Repeated, a
// transpose travels down a chain of element-wise ops until it meets
// something else; where that is its inverse (the NHWC transpose in front
// of the next convolution), the canonicalizer folds the pair away.
//
// This is what keeps a network of convolutions in NHWC between them: the
// convolutions compute in NHWC and stc-sparsify-convolutions transposes
// at each one's boundary, so an NCHW program has conv -> to NCHW -> bias,
// ReLU, residual add -> to NHWC -> conv. Where stc-fuse-epilogue folds the
// tail into an stc.conv the two transposes already meet; a convolution
// that stays dense, or a tail the epilogue cannot take, left both.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::stc {
#define GEN_PASS_DEF_STCSINKTRANSPOSES
#include "passes/Passes.h.inc"
} // namespace mlir::stc

using namespace mlir;
using namespace mlir::stc;

namespace {

/// Whether `op` computes each result element from the inputs at the same
/// point only: parallel loops, one result written in loop order, a body
/// that does not read the result's init.
bool isElementwise(linalg::GenericOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInits() != 1 ||
      op->getNumResults() != 1 ||
      op.getNumLoops() != op.getNumParallelLoops() ||
      !op.getMatchingIndexingMap(op.getDpsInitOperand(0)).isIdentity() ||
      op.payloadUsesValueFromOperand(op.getDpsInitOperand(0)))
    return false;
  return llvm::all_of(op.getIndexingMapsArray(), [](AffineMap map) {
    return map.isProjectedPermutation(/*allowZeroInResults=*/true);
  });
}

/// generic(..., transpose(x, perm), ...) -> transpose(generic'(..., x, ...),
/// perm), with generic' iterating in x's layout: loop d_i of the old op is
/// loop e_perm[i] of the new one, so every other operand's map is composed
/// with d_i -> e_perm[i], the transposed operands read x through the
/// identity and the result is written in x's layout. Every input that is a
/// single-use transpose by the same permutation is read in place.
struct SinkTransposeThroughElementwise
    : public OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (!isElementwise(op))
      return failure();
    // The first input that is a transpose only this op reads, read through
    // the identity; its permutation is the one sunk.
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    auto sinkable = [&](OpOperand *in, ArrayRef<int64_t> perm) {
      auto t = in->get().getDefiningOp<linalg::TransposeOp>();
      return t && t->hasOneUse() && maps[in->getOperandNumber()].isIdentity() &&
             (perm.empty() || t.getPermutation() == perm);
    };
    ArrayRef<int64_t> perm;
    for (OpOperand *in : op.getDpsInputOperands())
      if (sinkable(in, {})) {
        perm = in->get().getDefiningOp<linalg::TransposeOp>().getPermutation();
        break;
      }
    if (perm.empty() || isIdentityPermutation(perm))
      return failure();

    // Old loop d_i is new loop e_perm[i].
    MLIRContext *ctx = op.getContext();
    int64_t rank = perm.size();
    SmallVector<AffineExpr> oldToNew;
    for (int64_t i = 0; i < rank; ++i)
      oldToNew.push_back(getAffineDimExpr(perm[i], ctx));
    AffineMap substitution = AffineMap::get(rank, 0, oldToNew, ctx);
    SmallVector<Value> inputs;
    SmallVector<AffineMap> newMaps;
    for (OpOperand *in : op.getDpsInputOperands()) {
      if (sinkable(in, perm)) {
        inputs.push_back(
            in->get().getDefiningOp<linalg::TransposeOp>().getInput());
        newMaps.push_back(AffineMap::getMultiDimIdentityMap(rank, ctx));
        continue;
      }
      inputs.push_back(in->get());
      newMaps.push_back(maps[in->getOperandNumber()].compose(substitution));
    }
    newMaps.push_back(AffineMap::getMultiDimIdentityMap(rank, ctx));

    // The result in x's layout: old result dimension i is new dimension
    // perm[i].
    Location loc = op.getLoc();
    Value init = op.getDpsInitOperand(0)->get();
    SmallVector<OpFoldResult> sizes =
        tensor::getMixedSizes(rewriter, loc, init);
    SmallVector<OpFoldResult> newSizes(rank);
    for (int64_t i = 0; i < rank; ++i)
      newSizes[perm[i]] = sizes[i];
    Type elementType = getElementTypeOrSelf(init.getType());
    Value newInit =
        tensor::EmptyOp::create(rewriter, loc, newSizes, elementType);
    auto sunk = linalg::GenericOp::create(
        rewriter, loc, TypeRange{newInit.getType()}, inputs,
        ValueRange{newInit}, newMaps, op.getIteratorTypesArray());
    rewriter.inlineRegionBefore(op.getRegion(), sunk.getRegion(),
                                sunk.getRegion().begin());
    // Back to the old layout: result dimension i is new dimension perm[i].
    Value back = tensor::EmptyOp::create(rewriter, loc, sizes, elementType);
    auto transpose = linalg::TransposeOp::create(
        rewriter, loc, sunk->getResult(0), back, perm);
    rewriter.replaceOp(op, transpose->getResults());
    return success();
  }
};

/// transpose(transpose(x, p), q) -> x when q undoes p (the pair the sunk
/// transposes meet), else transpose(x, p then q).
struct FoldTransposePair : public OpRewritePattern<linalg::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getInput().getDefiningOp<linalg::TransposeOp>();
    if (!inner)
      return failure();
    ArrayRef<int64_t> p = inner.getPermutation(), q = op.getPermutation();
    // Result dimension i is inner's dimension q[i], which is x's p[q[i]].
    SmallVector<int64_t> combined;
    for (int64_t i : q)
      combined.push_back(p[i]);
    if (isIdentityPermutation(combined)) {
      rewriter.replaceOp(op, inner.getInput());
      return success();
    }
    rewriter.replaceOpWithNewOp<linalg::TransposeOp>(op, inner.getInput(),
                                                     op.getInit(), combined);
    return success();
  }
};

struct StcSinkTransposesPass
    : public mlir::stc::impl::StcSinkTransposesBase<StcSinkTransposesPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<SinkTransposeThroughElementwise, FoldTransposePair>(
        &getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
