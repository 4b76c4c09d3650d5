//===- RuntimeEntryPoints.h - what generated code calls --------*- C++ -*-===//
//
// The runtime functions of RuntimeEntryPoints.def as an enumeration, with
// their C symbols: the compiler's passes name every call they emit through
// this, so that the emitter and the runtime share one list. No MLIR.
//
//===----------------------------------------------------------------------===//
#ifndef STC_RUNTIME_RUNTIMEENTRYPOINTS_H
#define STC_RUNTIME_RUNTIMEENTRYPOINTS_H

#include <cstddef>
#include <string_view>

namespace stc::runtime {

enum class RuntimeEntryPoint {
#define STC_RUNTIME_ENTRY(KIND, NAME, SYMBOL) NAME,
#include "runtime/RuntimeEntryPoints.def"
};

/// How generated code calls an entry point (RuntimeEntryPoints.def).
enum class RuntimeEntryKind { CInterface, CpuPlainC, Gpu, Emulator };

struct RuntimeEntryInfo {
  RuntimeEntryKind kind;
  /// The C symbol, e.g. "stc_emu_launch" (for a CInterface entry the
  /// function itself is "_mlir_ciface_" followed by it).
  std::string_view symbol;
};

inline constexpr RuntimeEntryInfo kRuntimeEntries[] = {
#define STC_RUNTIME_ENTRY(KIND, NAME, SYMBOL) {RuntimeEntryKind::KIND, #SYMBOL},
#include "runtime/RuntimeEntryPoints.def"
};

inline constexpr const RuntimeEntryInfo &entryInfo(RuntimeEntryPoint e) {
  return kRuntimeEntries[static_cast<size_t>(e)];
}

/// The C symbol of `e`.
inline constexpr std::string_view entrySymbol(RuntimeEntryPoint e) {
  return entryInfo(e).symbol;
}

/// Whether `symbol` is one of the entry points of `kind` (for code that
/// composes a name, such as "stc_rt_" + operation + "_" + element type).
inline constexpr bool isEntrySymbol(std::string_view symbol,
                                    RuntimeEntryKind kind) {
  for (const RuntimeEntryInfo &info : kRuntimeEntries)
    if (info.kind == kind && info.symbol == symbol)
      return true;
  return false;
}

} // namespace stc::runtime

#endif // STC_RUNTIME_RUNTIMEENTRYPOINTS_H
