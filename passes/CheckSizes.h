//===- CheckSizes.h - the static-shape size limit, for front ends -*- C++ -*-=//
//
// The rule stc-check-sizes applies to every op (docs/RELIABILITY.md,
// "Limits"), for front ends that build types themselves (the ONNX
// importer) and must refuse a shape at the node that made it, before any
// size computation downstream overflows.
//
//===----------------------------------------------------------------------===//
#ifndef STC_PASSES_CHECKSIZES_H
#define STC_PASSES_CHECKSIZES_H

#include "mlir/IR/Types.h"

#include <string>

namespace mlir::stc {

/// Why the static shaped `type` is refused ("its element count overflows 64
/// bits", "it is N bytes, more than ..."), or "" when it is not (dynamic
/// shapes are checked at run time; non-shaped types are never refused).
std::string whyTypeTooLarge(Type type);

} // namespace mlir::stc

#endif // STC_PASSES_CHECKSIZES_H
