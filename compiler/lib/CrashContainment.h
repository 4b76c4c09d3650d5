//===- CrashContainment.h - upstream crashes as error lines ------*- C++
//-*-===//
//
// Upstream MLIR and LLVM crash on some inputs STC cannot refuse up front
// (hand-written GPU kernels handed to the NVPTX back end, IR that an
// upstream verifier aborts on). The tools run parsing and their pass
// pipelines under LLVM's crash-recovery context: a crash on the calling
// thread (a signal, an LLVM fatal error) becomes one error line that names
// what was running -- the pass, or the parser -- and exit status 1, with
// no output written (docs/RELIABILITY.md, "Upstream reports"). Crashes on
// MLIR's worker threads are not contained, and a crash in one of STC's own
// passes is still a bug: the message names the pass, so that the mutation
// fuzzer can tell the two apart.
//
//===----------------------------------------------------------------------===//
#ifndef STC_COMPILER_LIB_CRASHCONTAINMENT_H
#define STC_COMPILER_LIB_CRASHCONTAINMENT_H

#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace mlir::stc {

/// LLVM fatal errors ("Cannot select: ...") print "<tool>: error: LLVM:
/// <reason>" instead of "LLVM ERROR: <reason>"; the process then aborts as
/// before, which runContained turns into an error exit.
void installFatalErrorHandler(llvm::StringRef tool);

/// Makes `pm` record the pass it is running (on each thread), for the
/// message of a contained crash.
void recordRunningPass(PassManager &pm);

/// Runs `body` on this thread under the crash-recovery context; returns
/// false if it crashed (then `crashedPass` is the pass that was running on
/// this thread, or ""). The state it left is not to be trusted: for the
/// fuzz targets, which go on with a fresh context.
bool runRecovering(llvm::function_ref<void()> body, std::string &crashedPass);

/// Runs `body` on this thread; if it crashes, prints "<tool>: error: <what>
/// crashed in pass '<pass>' (...)" or "<tool>: error: <what> crashed (...)"
/// (the tool of installFatalErrorHandler) and ends the process with status
/// 1: the state it left cannot be trusted, not even to be destroyed.
/// Otherwise returns body's result.
LogicalResult runContained(llvm::StringRef what,
                           llvm::function_ref<LogicalResult()> body);

} // namespace mlir::stc

#endif // STC_COMPILER_LIB_CRASHCONTAINMENT_H
