//===- ToolSupport.cpp - shared code of stc-compile and stc-run -*- C++ -*-===//
//
// See ToolSupport.h.
//
//===----------------------------------------------------------------------===//
#include "compiler/lib/ToolSupport.h"
#include "compiler/lib/CrashContainment.h"
#include "compiler/lib/InputText.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace mlir;
using namespace mlir::stc;

namespace {
namespace cl = llvm::cl;

/// The tools' options: the Tools rows of passes/PipelineOptions.def and the
/// GPU kernel knobs (--gpu-NAME) of passes/GPU/KernelOptions.def, plus the
/// two that only tools have.
struct SharedOptions {
  // NOLINTBEGIN(bugprone-macro-parentheses): the rows declare members.
#define STC_TOOL_CL_Tools(TYPE, FIELD, NAME, DEFAULT, HELP)                    \
  cl::opt<TYPE> FIELD{NAME, cl::desc(HELP), cl::init(DEFAULT)};
#define STC_TOOL_CL_Pipeline(TYPE, FIELD, NAME, DEFAULT, HELP)
#define STC_TOOL_CL_Internal(TYPE, FIELD, NAME, DEFAULT, HELP)
#define STC_OPTION(TYPE, FIELD, NAME, DEFAULT, USE, HELP)                      \
  STC_TOOL_CL_##USE(TYPE, FIELD, NAME, DEFAULT, HELP)
#include "passes/PipelineOptions.def"
#define STC_GPU_KERNEL_OPTION(TYPE, FIELD, NAME, DEFAULT, HELP)                \
  cl::opt<TYPE> gpu_##FIELD{"gpu-" NAME, cl::desc(HELP), cl::init(DEFAULT)};
#include "passes/GPU/KernelOptions.def"
  // NOLINTEND(bugprone-macro-parentheses)

  cl::opt<std::string> cudaPath{
      "cuda-path",
      cl::desc("CUDA toolkit directory, for ptxas (--emit=cubin) "
               "(default: $CUDA_PATH, else $CUDA_HOME, else /usr/local/cuda)"),
      cl::value_desc("dir"), cl::init("")};
  // Removed (a wall-clock budget made the permutation depend on the
  // machine's speed); still recognised so that old command lines get a
  // clear error.
  cl::opt<std::string> permuteTimeBudget{"permute-time-budget", cl::Hidden};
  cl::opt<bool> remarks{"remarks",
                        cl::desc("Print the compiler's remarks (which "
                                 "contractions became sparse, and why)"),
                        cl::init(false)};
};

SharedOptions *shared = nullptr;
} // namespace

void mlir::stc::registerSharedToolOptions(llvm::StringRef tool) {
  static SharedOptions options;
  shared = &options;
  installFatalErrorHandler(tool);
}

static bool remarksMuted = false;

bool mlir::stc::remarksRequested() {
  return shared && shared->remarks && !remarksMuted;
}

void mlir::stc::setRemarksMuted(bool muted) { remarksMuted = muted; }

void mlir::stc::reportError(llvm::StringRef tool, const llvm::Twine &message) {
  llvm::errs() << tool << ": error: " << message << "\n";
}

LogicalResult mlir::stc::getPipelineOptions(llvm::StringRef tool,
                                            StcPipelineOptions &options) {
#define STC_TOOL_COPY_Tools(FIELD) options.FIELD = shared->FIELD;
#define STC_TOOL_COPY_Pipeline(FIELD)
#define STC_TOOL_COPY_Internal(FIELD)
#define STC_OPTION(TYPE, FIELD, NAME, DEFAULT, USE, HELP)                      \
  STC_TOOL_COPY_##USE(FIELD)
#include "passes/PipelineOptions.def"
#define STC_GPU_KERNEL_OPTION(TYPE, FIELD, NAME, DEFAULT, HELP)                \
  options.gpu.FIELD = shared->gpu_##FIELD;
#include "passes/GPU/KernelOptions.def"
  if (shared->permuteTimeBudget.getNumOccurrences()) {
    reportError(tool, "--permute-time-budget was removed: the channel "
                      "permutation search is bounded by --permute-max-rounds "
                      "alone (rounds of work), so that its result does not "
                      "depend on the machine's speed");
    return failure();
  }
  if (failed(options.verify(
          StcPipelineOptions::Spelling::tool(),
          [&](const llvm::Twine &msg) { reportError(tool, msg); })))
    return failure();
  options.cudaToolkitPath = cudaToolkitPath();
  if (shared->cudaPath.getNumOccurrences() && options.cudaToolkitPath.empty()) {
    reportError(tool, "--cuda-path must name a directory, got ''");
    return failure();
  }
  return success();
}

bool mlir::stc::targetGiven() {
  return shared && shared->target.getNumOccurrences() > 0;
}

std::string mlir::stc::cudaToolkitPath() {
  if (shared && shared->cudaPath.getNumOccurrences())
    return shared->cudaPath;
  for (const char *var : {"CUDA_PATH", "CUDA_HOME"})
    if (const char *value = std::getenv(var); value && *value)
      return value;
  return "/usr/local/cuda";
}

FailureOr<std::string> mlir::stc::findPtxas(llvm::StringRef tool,
                                            StcPipelineOptions &options) {
  llvm::SmallString<256> path(options.cudaToolkitPath);
  llvm::sys::path::append(path, "bin", "ptxas");
  if (llvm::sys::fs::can_execute(path))
    return std::string(path);
  // Only the default location falls back to $PATH: a toolkit named on the
  // command line or in the environment is what the user wants used.
  auto set = [](const char *var) {
    const char *value = std::getenv(var);
    return value && *value;
  };
  bool named = (shared && shared->cudaPath.getNumOccurrences()) ||
               set("CUDA_PATH") || set("CUDA_HOME");
  if (!named) {
    if (llvm::ErrorOr<std::string> found =
            llvm::sys::findProgramByName("ptxas")) {
      // <toolkit>/bin/ptxas: the pass wants the toolkit directory.
      llvm::SmallString<256> toolkit(*found);
      llvm::sys::path::remove_filename(toolkit);
      llvm::sys::path::remove_filename(toolkit);
      options.cudaToolkitPath = std::string(toolkit);
      return *found;
    }
  }
  reportError(tool, "ptxas not found at " + path +
                        " (cubin output needs the CUDA toolkit: give its "
                        "directory with --cuda-path=DIR or $CUDA_PATH)");
  return failure();
}

static std::vector<InputImporter> &inputImporters() {
  static std::vector<InputImporter> importers;
  return importers;
}

void mlir::stc::registerInputImporter(InputImporter importer) {
  inputImporters().push_back(std::move(importer));
}

OwningOpRef<ModuleOp> mlir::stc::parseInput(llvm::StringRef tool,
                                            const std::string &path,
                                            MLIRContext &context,
                                            llvm::SourceMgr &sourceMgr) {
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> file = openInputFile(path, &error);
  if (!file) {
    reportError(tool, error);
    return nullptr;
  }
  for (const InputImporter &importer : inputImporters())
    if (importer.claims(path, file->getBuffer()))
      return importer.import(tool, path, file->getBuffer(), context);
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  // Binary files and inputs that crash the upstream parser are refused
  // before parsing (compiler/lib/InputText.h).
  if (failed(checkInputText(tool, path, sourceMgr)))
    return nullptr;
  return parseWithCrashRecovery(tool, path, sourceMgr, context);
}

void mlir::stc::filterRemarks(MLIRContext &context) {
  context.getDiagEngine().registerHandler([](Diagnostic &d) {
    return success(d.getSeverity() == DiagnosticSeverity::Remark &&
                   !remarksRequested());
  });
}

void mlir::stc::addCInterfaces(ModuleOp module) {
  module.walk([&](func::FuncOp func) {
    if (func.isPublic() && !func.isExternal())
      func->setAttr("llvm.emit_c_interface",
                    UnitAttr::get(module.getContext()));
  });
}

LogicalResult mlir::stc::runStcPipeline(ModuleOp module,
                                        const StcPipelineOptions &options) {
  PassManager pm(module.getContext());
  if (failed(buildStcPipeline(pm, options)))
    return failure();
  recordRunningPass(pm);
  return runContained("the pipeline", [&] { return pm.run(module); });
}

LogicalResult
mlir::stc::runPipeline(ModuleOp module,
                       llvm::function_ref<void(OpPassManager &)> build) {
  PassManager pm(module.getContext());
  build(pm);
  recordRunningPass(pm);
  return runContained("the pipeline", [&] { return pm.run(module); });
}
