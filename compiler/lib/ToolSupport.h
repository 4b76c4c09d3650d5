//===- ToolSupport.h - shared code of stc-compile and stc-run -*- C++ -*-===//
//
// The command-line options both drivers share (they map one-to-one onto
// StcPipelineOptions), input parsing with `file:line:col: error:`
// diagnostics, and the lowering of a module to LLVM IR.
//
//===----------------------------------------------------------------------===//
#ifndef STC_COMPILER_LIB_TOOLSUPPORT_H
#define STC_COMPILER_LIB_TOOLSUPPORT_H

#include "passes/Pipelines.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/SourceMgr.h"

#include <functional>
#include <memory>
#include <string>

namespace mlir::stc {

/// Registers the options shared by both drivers with llvm::cl: every
/// option of passes/PipelineOptions.def marked Tools, the GPU kernel knobs
/// of passes/GPU/KernelOptions.def as --gpu-NAME, `--cuda-path` and
/// `--remarks`; and makes LLVM fatal errors one "<tool>: error:" line
/// (compiler/lib/CrashContainment.h). Call before ParseCommandLineOptions.
void registerSharedToolOptions(llvm::StringRef tool = "stc");

/// The pipeline options from the command line; fails (with a
/// "<tool>: error: ..." line on stderr) for values outside the contract.
/// `cudaToolkitPath` is cudaToolkitPath().
LogicalResult getPipelineOptions(llvm::StringRef tool,
                                 StcPipelineOptions &options);

/// Whether `--target` was given on the command line (stc-run picks the GPU
/// architecture itself otherwise).
bool targetGiven();

/// The CUDA toolkit directory: `--cuda-path`, else $CUDA_PATH, else
/// $CUDA_HOME, else /usr/local/cuda.
std::string cudaToolkitPath();

/// The ptxas that cubin output will run: `<options.cudaToolkitPath>/bin/ptxas`,
/// or, when no toolkit was named (neither `--cuda-path` nor the environment),
/// one on $PATH, whose toolkit then becomes options.cudaToolkitPath. Fails
/// with a "<tool>: error: ptxas not found ..." line.
FailureOr<std::string> findPtxas(llvm::StringRef tool,
                                 StcPipelineOptions &options);

/// Whether remarks were asked for (`--remarks`).
bool remarksRequested();

/// Silences remarks (e.g. while compiling a second variant of the same
/// program) until called with false.
void setRemarksMuted(bool muted);

/// Drops remarks unless `--remarks` was given (and not muted); register
/// after the SourceMgr handler so it runs first.
void filterRemarks(MLIRContext &context);

/// A reader of inputs that are not MLIR text (the ONNX front end registers
/// one): `claims` says whether it reads a file, given its path and
/// contents; `import` returns null after printing its error.
struct InputImporter {
  std::function<bool(llvm::StringRef path, llvm::StringRef contents)> claims;
  std::function<OwningOpRef<ModuleOp>(
      llvm::StringRef tool, llvm::StringRef path, llvm::StringRef contents,
      MLIRContext &context)>
      import;
};

/// Makes parseInput hand the files `importer` claims to it.
void registerInputImporter(InputImporter importer);

/// Parses `path` into `context` (or imports it, when a registered
/// InputImporter claims it). Errors are printed as
/// `file:line:col: error: ...`; returns null on failure.
OwningOpRef<ModuleOp> parseInput(llvm::StringRef tool, const std::string &path,
                                 MLIRContext &context,
                                 llvm::SourceMgr &sourceMgr);

/// Marks every public function with `llvm.emit_c_interface` so that C
/// callers (and the JIT) get the `_mlir_ciface_<name>` entry points.
void addCInterfaces(ModuleOp module);

/// Runs the stc pipeline on `module`; diagnostics go to stderr. Remarks are
/// dropped unless `--remarks` was given. A crash of a pass on this thread
/// ends the process with one error line (CrashContainment.h).
LogicalResult runStcPipeline(ModuleOp module,
                             const StcPipelineOptions &options);

/// Runs the passes `build` adds on `module`; diagnostics go to stderr.
LogicalResult runPipeline(ModuleOp module,
                          llvm::function_ref<void(OpPassManager &)> build);

/// Prints "<tool>: error: <message>" to stderr.
void reportError(llvm::StringRef tool, const llvm::Twine &message);

} // namespace mlir::stc

#endif // STC_COMPILER_LIB_TOOLSUPPORT_H
