//===- StcDialect.cpp - stc dialect -------------------------*- C++ -*-===//
//
// Dialect registration, the #stc.nm attribute verifier and the constant
// materializer that lets folded prune/compress results become constants.
//
//===----------------------------------------------------------------------===//
#include "dialects/Stc/StcDialect.h"
#include "dialects/Stc/StcAttrs.h"
#include "dialects/Stc/StcOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::stc;

#include "dialects/Stc/StcDialect.cpp.inc"
#include "dialects/Stc/StcEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/Stc/StcAttrs.cpp.inc"

void StcDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/Stc/StcAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "dialects/Stc/StcOps.cpp.inc"
      >();
}

Operation *StcDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                           Type type, Location loc) {
  auto typed = dyn_cast<TypedAttr>(value);
  if (!typed || typed.getType() != type)
    return nullptr;
  return arith::ConstantOp::create(builder, loc, type, typed);
}

//===----------------------------------------------------------------------===//
// NMPatternAttr
//===----------------------------------------------------------------------===//

LogicalResult
NMPatternAttr::verify(function_ref<InFlightDiagnostic()> emitError, int64_t n,
                      int64_t m) {
  // Sparse Tensor Cores implement exactly these two patterns; the canonical
  // metadata (2-bit indices, four groups to an i16) is defined for them only.
  if ((n == 2 && m == 4) || (n == 1 && m == 2))
    return success();
  return emitError() << "unsupported N:M pattern " << n << ":" << m
                     << " (supported: 2:4, 1:2)";
}

Attribute NMPatternAttr::parse(AsmParser &parser, Type) {
  // `<` N `:` M `>`; the lexer reads "2:4" as integer, colon, integer.
  int64_t n = 0, m = 0;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseLess() || parser.parseInteger(n) || parser.parseColon() ||
      parser.parseInteger(m) || parser.parseGreater())
    return {};
  return NMPatternAttr::getChecked([&] { return parser.emitError(loc); },
                                   parser.getContext(), n, m);
}

void NMPatternAttr::print(AsmPrinter &printer) const {
  printer << "<" << getN() << ":" << getM() << ">";
}
