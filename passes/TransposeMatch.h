//===- TransposeMatch.h - recognise a 2-D transpose ------------*- C++ -*-===//
//
// Frontends put a transpose in front of a weight (torch-mlir's nn.Linear
// writes W^T as a linalg.generic); the sparsifier looks through it and
// channel permutation folds into it. One matcher for both.
//
//===----------------------------------------------------------------------===//
#ifndef STC_PASSES_TRANSPOSEMATCH_H
#define STC_PASSES_TRANSPOSEMATCH_H

#include "mlir/IR/Operation.h"

namespace mlir::stc {

/// The input operand of a 2-D transpose (`linalg.transpose` with permutation
/// [1, 0], or a `linalg.generic` that only transposes), or null.
OpOperand *getTransposeInputOperand(Operation *op);

/// The transposed value when `v` is the result of such a transpose, or null.
inline Value getTransposeInput(Value v) {
  Operation *def = v.getDefiningOp();
  OpOperand *input = def ? getTransposeInputOperand(def) : nullptr;
  return input ? input->get() : Value();
}

} // namespace mlir::stc

#endif // STC_PASSES_TRANSPOSEMATCH_H
