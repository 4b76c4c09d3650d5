//===- SparsityPolicy.h - which weights the sparsifiers pick ---*- C++ -*-===//
//
// The parts of the `sparsity` / `pattern` policy that the contraction and
// the convolution sparsifiers share: the option values, the upstream
// structured[2, 4] encoding, and what a zero accumulator looks like.
//
//===----------------------------------------------------------------------===//
#ifndef STC_PASSES_SPARSITYPOLICY_H
#define STC_PASSES_SPARSITYPOLICY_H

#include "dialects/Stc/StcAttrs.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"

namespace mlir::stc {

/// Which operands the `sparsity` option makes sparse (docs/DESIGN.md §5).
/// Auto is Force where the target's cost model predicts the 2:4 kernel to
/// be faster (docs/TUNING.md).
enum class SparsityMode { Explicit, Enable, Force, Auto };

/// Whether `mode` prunes weights that are not 2:4 yet (force and auto).
inline bool prunesWeights(SparsityMode mode) {
  return mode == SparsityMode::Force || mode == SparsityMode::Auto;
}

/// Parses the `sparsity` option (explicit, enable, force or auto); emits an
/// error on `where` otherwise.
FailureOr<SparsityMode> parseSparsityMode(Operation *where, StringRef value);

/// Parses the `pattern` option (2:4 or 1:2); emits an error on `where`
/// otherwise.
FailureOr<NMPatternAttr> parsePatternOption(Operation *where, StringRef value);

/// Whether `pattern` may be applied to elements of type `elementType`: 1:2 is
/// defined for f32 only.
bool isPatternEligible(NMPatternAttr pattern, Type elementType);

/// Position of the dimension a structured[2, 4] level of `type`'s
/// #sparse_tensor.encoding runs along, or -1 when the type has no such
/// level. `hasEncoding` says whether the type has an encoding at all.
int64_t getStructuredDim(Type type, bool &hasEncoding);

/// True when `init` is a linalg.fill of zero, so the op that writes into it
/// does not accumulate into existing values.
bool isZeroFilled(Value init);

/// `result + init` as a linalg.add: a sparse op whose result is the exact
/// i32 accumulator takes no epilogue, so a non-zero i32 init of the
/// contraction or convolution it replaces is added after it, exactly.
Value addIntegerInit(OpBuilder &b, Location loc, Value result, Value init);

} // namespace mlir::stc

#endif // STC_PASSES_SPARSITYPOLICY_H
