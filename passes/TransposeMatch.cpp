//===- TransposeMatch.cpp - recognise a 2-D transpose ---------------------===//

#include "passes/TransposeMatch.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

using namespace mlir;

OpOperand *mlir::stc::getTransposeInputOperand(Operation *op) {
  if (auto transpose = dyn_cast<linalg::TransposeOp>(op)) {
    if (transpose.getPermutation() != ArrayRef<int64_t>{1, 0})
      return nullptr;
    return transpose.getDpsInputOperand(0);
  }
  auto generic = dyn_cast<linalg::GenericOp>(op);
  if (!generic || generic.getNumDpsInputs() != 1 ||
      generic.getNumDpsInits() != 1 || generic.getNumLoops() != 2 ||
      generic.getNumReductionLoops() != 0)
    return nullptr;
  SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
  AffineMap swap =
      AffineMap::getPermutationMap(ArrayRef<unsigned>{1, 0}, op->getContext());
  bool transposing = (maps[0] == swap && maps[1].isIdentity()) ||
                     (maps[0].isIdentity() && maps[1] == swap);
  Block &body = generic.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  if (!transposing || body.getOperations().size() != 1 ||
      yield.getValues().size() != 1 ||
      yield.getValues()[0] != body.getArgument(0))
    return nullptr;
  return generic.getDpsInputOperand(0);
}
