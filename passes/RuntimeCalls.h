//===- RuntimeCalls.h - calls from generated code to stc_runtime -*- C++
//-*-===//
//
// Shared by the passes that emit calls into stc_runtime: declaring the
// C-interface functions once per module and passing an op's source location
// as a string, so that run-time errors name the line of the program.
//
//===----------------------------------------------------------------------===//
#ifndef STC_PASSES_RUNTIMECALLS_H
#define STC_PASSES_RUNTIMECALLS_H

#include "runtime/RuntimeEntryPoints.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "llvm/ADT/StringMap.h"

#include <string>

namespace mlir::stc {

using ::stc::runtime::RuntimeEntryPoint;

/// The C symbol of runtime entry point `e` (runtime/RuntimeEntryPoints.def).
inline StringRef runtimeSymbol(RuntimeEntryPoint e) {
  std::string_view symbol = ::stc::runtime::entrySymbol(e);
  return StringRef(symbol.data(), symbol.size());
}

class RuntimeCallBuilder {
public:
  explicit RuntimeCallBuilder(ModuleOp module) : module(module) {}

  /// Declares (once) `func.func private @name(...)` with the C interface.
  /// Returns null (after an error on the clashing op) when the module
  /// already holds a different symbol of that name.
  func::FuncOp declare(StringRef name, TypeRange args, TypeRange results);

  /// A memref<?xi8> holding "file:line:col" of `loc` (one private constant
  /// global per distinct location).
  Value locationString(ImplicitLocOpBuilder &b, Location loc);

private:
  ModuleOp module;
  unsigned numLocations = 0;
  llvm::StringMap<std::string> locationSymbols;
};

} // namespace mlir::stc

#endif // STC_PASSES_RUNTIMECALLS_H
