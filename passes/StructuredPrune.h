//===- StructuredPrune.h - 2:4 pruning for sparse_tensor idioms -*- C++ -*-===//
//
// What `sparse_tensor.convert` into a structured[2, 4] encoding means in STC:
// the 2 elements of largest magnitude of every 4 consecutive ones along the
// level's dimension are kept (NaN counting as the largest, the lower index
// winning ties: the rule of stc.prune `strip` and of runtime/format), the
// others become zero. Constants are pruned here at compile time, for any
// element type; run-time values by stc.prune where the runtime has an entry
// point (rank 2, f32/f16/bf16/i8) and otherwise by generated tensor code
// with the same rule. Shared by stc-prune-on-convert and
// stc-densify-entry-points.
//
//===----------------------------------------------------------------------===//
#ifndef STC_PASSES_STRUCTUREDPRUNE_H
#define STC_PASSES_STRUCTUREDPRUNE_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Value.h"

namespace mlir::stc {

/// The number of groups of 4 consecutive elements along `dim` that have more
/// than 2 non-zeros (NaN counts as non-zero). A last group cut short by the
/// dimension's size counts its elements only.
int64_t countNon2To4Groups(DenseElementsAttr attr, int64_t dim);

/// `attr` pruned to 2:4 along `dim` by magnitude (see the file comment).
/// Integers are compared by absolute value (|-128| = 128).
DenseElementsAttr pruneConstant2To4(DenseElementsAttr attr, int64_t dim);

/// Whether `value` is known to satisfy 2:4 along `dim` without looking at
/// data: produced by an stc.prune (2:4 or 1:2) or stc.decompress along
/// `dim`, or by a conversion from an encoding whose structured[2, 4] level
/// runs along `dim`.
bool isKnown2To4(Value value, int64_t dim);

/// Code that prunes the run-time tensor `value` to 2:4 along `dim`.
Value buildRuntimePrune2To4(OpBuilder &b, Location loc, Value value,
                            int64_t dim);

} // namespace mlir::stc

#endif // STC_PASSES_STRUCTUREDPRUNE_H
