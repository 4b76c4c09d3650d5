//===- PruneOnConvert.cpp - sparse_tensor.convert into 2:4 prunes -*- C++
//-*-===//
//
// Upstream's cuSPARSELt path prunes a matrix when it is given the 2:4 form;
// its CPU conversion silently keeps wrong values for a group with more than
// two non-zeros. STC gives `sparse_tensor.convert` into an encoding with a
// structured[2, 4] level one meaning everywhere: the source is pruned by
// magnitude along that level's dimension (StructuredPrune.h), at compile
// time when it is a constant and at run time otherwise, unless it is known
// to be 2:4 already. Everything downstream (STC's kernels and upstream's
// sparsifier) then sees 2:4 data.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"
#include "passes/SparsityPolicy.h"
#include "passes/StructuredPrune.h"

#include "mlir/Dialect/SparseTensor/IR/SparseTensor.h"
#include "mlir/IR/Matchers.h"

namespace mlir::stc {
#define GEN_PASS_DEF_STCPRUNEONCONVERT
#include "passes/Passes.h.inc"
} // namespace mlir::stc

using namespace mlir;
using namespace mlir::stc;

namespace {

struct StcPruneOnConvertPass
    : public stc::impl::StcPruneOnConvertBase<StcPruneOnConvertPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<sparse_tensor::ConvertOp> converts;
    getOperation().walk([&](sparse_tensor::ConvertOp op) {
      bool hasEncoding = false;
      if (getStructuredDim(op.getType(), hasEncoding) >= 0)
        converts.push_back(op);
    });
    for (sparse_tensor::ConvertOp op : converts)
      prune(op);
  }

private:
  void prune(sparse_tensor::ConvertOp op) {
    bool hasEncoding = false;
    int64_t dim = getStructuredDim(op.getType(), hasEncoding);
    Value source = op.getSource();
    if (isKnown2To4(source, dim))
      return;
    OpBuilder b(op);
    Location loc = op.getLoc();
    auto sourceType = cast<RankedTensorType>(source.getType());
    if (sourceType.getEncoding()) {
      // From another sparse format: prune its dense form.
      if (getStructuredDim(sourceType, hasEncoding) == dim)
        return;
      source = sparse_tensor::ConvertOp::create(
          b, loc,
          RankedTensorType::get(sourceType.getShape(),
                                sourceType.getElementType()),
          source);
    }
    DenseElementsAttr constant;
    if (matchPattern(source, m_Constant(&constant))) {
      int64_t groups = countNon2To4Groups(constant, dim);
      if (groups == 0)
        return;
      Value pruned = arith::ConstantOp::create(
          b, loc, cast<TypedAttr>(pruneConstant2To4(constant, dim)));
      op.getSourceMutable().assign(pruned);
      op.emitRemark() << "stc: sparse_tensor.convert into structured[2, 4] "
                         "pruned this constant at compile time: "
                      << groups << " group" << (groups == 1 ? "" : "s")
                      << " of 4 along dimension " << dim
                      << " had more than 2 non-zeros (the 2 of largest "
                         "magnitude are kept)";
      ++numConstantsPruned;
      return;
    }
    op.getSourceMutable().assign(buildRuntimePrune2To4(b, loc, source, dim));
    op.emitRemark() << "stc: sparse_tensor.convert into structured[2, 4] "
                       "prunes its input at run time (the 2 of largest "
                       "magnitude in every 4 along dimension "
                    << dim << ")";
    ++numRuntimePrunes;
  }
};

} // namespace
