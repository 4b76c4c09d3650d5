//===- WidenAccumulation.cpp - dense half reductions in f32 ---*- C++ -*-===//
//
// stc-widen-accumulation (Passes.td): a linalg op with reduction loops and
// an f16/bf16 init becomes a linalg.generic with an f32 init (the old init
// extended), the same indexing maps and iterators, and the old body
// computed in f32: half inputs are extended on entry, every half-typed
// value of the body becomes f32, half constants f32 constants. One
// arith.truncf rounds the result to the old type.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::stc {
#define GEN_PASS_DEF_STCWIDENACCUMULATION
#include "passes/Passes.h.inc"
} // namespace mlir::stc

using namespace mlir;
using namespace mlir::stc;

namespace {

bool isHalf(Type t) { return t.isF16() || t.isBF16(); }

/// Whether every op of the body computes on floats the way its f32
/// version would (so that retyping half values to f32 keeps it valid), and
/// one of them rounds (a max or min reduction is exact in any type).
bool hasWidenableBody(linalg::LinalgOp op) {
  bool rounds = false;
  for (Operation &inner : op.getBlock()->without_terminator()) {
    rounds |= isa<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::DivFOp>(
                  inner) ||
              isa<math::MathDialect>(inner.getDialect());
    if (inner.getNumRegions() != 0)
      return false;
    if (auto constant = dyn_cast<arith::ConstantOp>(inner)) {
      if (!isa<FloatAttr>(constant.getValue()) && !isHalf(constant.getType()) &&
          !constant.getType().isIntOrIndex())
        return false;
      continue;
    }
    if (isa<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::DivFOp,
            arith::NegFOp, arith::MaximumFOp, arith::MinimumFOp,
            arith::MaxNumFOp, arith::MinNumFOp, arith::SelectOp, arith::CmpFOp,
            arith::ExtFOp>(inner) ||
        isa<math::MathDialect>(inner.getDialect()))
      continue;
    return false;
  }
  return rounds;
}

/// The f32 version of `op` (see the file comment), or failure when it does
/// not qualify.
LogicalResult widen(linalg::LinalgOp op, RewriterBase &rewriter) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInits() != 1 ||
      op->getNumResults() != 1 || op.getNumReductionLoops() == 0 ||
      !hasWidenableBody(op))
    return failure();
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  if (!isHalf(resultType.getElementType()))
    return failure();
  Location loc = op.getLoc();
  Type f32 = rewriter.getF32Type();
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(op);

  // The init in f32: a fill of the extended value, or the init extended.
  Value init = op.getDpsInits()[0];
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(rewriter, loc, init);
  Value wideEmpty = tensor::EmptyOp::create(rewriter, loc, sizes, f32);
  AffineMap id = rewriter.getMultiDimIdentityMap(resultType.getRank());
  SmallVector<utils::IteratorType> parallel(resultType.getRank(),
                                            utils::IteratorType::parallel);
  Value wideInit;
  if (auto fill = init.getDefiningOp<linalg::FillOp>()) {
    Value value =
        arith::ExtFOp::create(rewriter, loc, f32, fill.getInputs()[0]);
    wideInit =
        linalg::FillOp::create(rewriter, loc, value, wideEmpty).getResult(0);
  } else {
    wideInit =
        linalg::GenericOp::create(
            rewriter, loc, wideEmpty.getType(), ValueRange{init},
            ValueRange{wideEmpty}, ArrayRef<AffineMap>{id, id}, parallel,
            [&](OpBuilder &b, Location l, ValueRange args) {
              linalg::YieldOp::create(
                  b, l, arith::ExtFOp::create(b, l, f32, args[0]).getResult());
            })
            .getResult(0);
  }

  // The reduction in f32.
  Block *oldBody = op.getBlock();
  auto wide = linalg::GenericOp::create(
      rewriter, loc, wideEmpty.getType(), op.getDpsInputs(),
      ValueRange{wideInit}, op.getIndexingMapsArray(),
      op.getIteratorTypesArray(),
      [&](OpBuilder &b, Location l, ValueRange args) {
        IRMapping map;
        for (auto [oldArg, newArg] : llvm::zip(oldBody->getArguments(), args)) {
          Value v = newArg;
          if (isHalf(v.getType()))
            v = arith::ExtFOp::create(b, l, f32, v);
          map.map(oldArg, v);
        }
        for (Operation &inner : oldBody->without_terminator()) {
          if (auto constant = dyn_cast<arith::ConstantOp>(inner);
              constant && isHalf(constant.getType())) {
            double v = cast<FloatAttr>(constant.getValue()).getValueAsDouble();
            map.map(constant.getResult(),
                    arith::ConstantOp::create(b, l, b.getF32FloatAttr(v))
                        .getResult());
            continue;
          }
          // A widening extf of a value that is f32 now is that value.
          if (auto ext = dyn_cast<arith::ExtFOp>(inner);
              ext && map.lookup(ext.getIn()).getType() == ext.getType()) {
            map.map(ext.getResult(), map.lookup(ext.getIn()));
            continue;
          }
          Operation *copy = b.clone(inner, map);
          for (Value r : copy->getResults())
            if (isHalf(r.getType()))
              r.setType(f32);
        }
        Value yielded = map.lookup(
            cast<linalg::YieldOp>(oldBody->getTerminator()).getOperand(0));
        linalg::YieldOp::create(b, l, yielded);
      });

  // Rounded once to the result type.
  Value narrowEmpty = tensor::EmptyOp::create(rewriter, loc, sizes,
                                              resultType.getElementType());
  auto narrowed = linalg::GenericOp::create(
      rewriter, loc, resultType, ValueRange{wide.getResult(0)},
      ValueRange{narrowEmpty}, ArrayRef<AffineMap>{id, id}, parallel,
      [&](OpBuilder &b, Location l, ValueRange args) {
        linalg::YieldOp::create(
            b, l,
            arith::TruncFOp::create(b, l, resultType.getElementType(), args[0])
                .getResult());
      });
  rewriter.replaceOp(op, narrowed.getResults());
  return success();
}

struct StcWidenAccumulationPass
    : public stc::impl::StcWidenAccumulationBase<StcWidenAccumulationPass> {
  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> ops;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (op.getNumReductionLoops() != 0 && op->getNumResults() == 1 &&
          isHalf(getElementTypeOrSelf(op->getResult(0).getType())))
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : ops)
      (void)widen(op, rewriter);
  }
};

} // namespace
