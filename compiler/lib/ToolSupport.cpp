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

struct SharedOptions {
  cl::opt<std::string> target{
      "target",
      cl::desc("Code generation target: cpu (default), or a GPU "
               "architecture: sm_80, sm_86, sm_89, sm_90, sm_90a"),
      cl::init("cpu")};
  cl::opt<std::string> cudaPath{
      "cuda-path",
      cl::desc("CUDA toolkit directory, for ptxas (--emit=cubin) "
               "(default: $CUDA_PATH, else $CUDA_HOME, else /usr/local/cuda)"),
      cl::value_desc("dir"), cl::init("")};
  cl::opt<std::string> sparsity{
      "sparsity",
      cl::desc("Which operands are sparse: explicit (default), enable, force"),
      cl::init("explicit")};
  cl::opt<std::string> pattern{
      "pattern", cl::desc("N:M pattern of pruned weights: 2:4 or 1:2 (f32)"),
      cl::init("2:4")};
  cl::opt<std::string> pruneMethod{
      "prune-method",
      cl::desc("How --sparsity=force prunes: strip (the largest of each "
               "group, default) or tile (2 per row and column of each 4x4 "
               "tile, 2:4 only)"),
      cl::init("strip")};
  cl::opt<bool> permuteChannels{
      "permute-channels",
      cl::desc("With --sparsity=force: permute the reduction channels of "
               "constant weights so that pruning keeps more magnitude, folded "
               "into the producing layer (see --remarks)"),
      cl::init(false)};
  cl::opt<uint64_t> permuteSeed{
      "permute-seed", cl::desc("Seed of the channel permutation search"),
      cl::init(0)};
  cl::opt<int> permuteMaxRounds{
      "permute-max-rounds",
      cl::desc("Improvement rounds of the channel permutation search per "
               "weight (the result depends only on them and the seed)"),
      cl::init(100)};
  // Removed (a wall-clock budget made the permutation depend on the
  // machine's speed); still recognised so that old command lines get a
  // clear error.
  cl::opt<std::string> permuteTimeBudget{"permute-time-budget", cl::Hidden};
  cl::opt<int64_t> mr{"mr", cl::desc("CPU kernel: sparse rows per tile"),
                      cl::init(8)};
  cl::opt<int64_t> nv{
      "nv", cl::desc("CPU kernel: 16-wide vectors per tile row"), cl::init(2)};
  cl::opt<int64_t> kc{"kc", cl::desc("CPU kernel: reduction block"),
                      cl::init(256)};
  cl::opt<int64_t> mc{"mc", cl::desc("CPU kernel: row block"), cl::init(128)};
  cl::opt<int64_t> nc{"nc", cl::desc("CPU kernel: column block"),
                      cl::init(256)};
  cl::opt<std::string> gpuKernel{
      "gpu-kernel",
      cl::desc("GPU kernel: auto (default), direct (fragments from global "
               "memory), staged (cp.async pipeline, ldmatrix) or wgmma "
               "(--target=sm_90a: TMA + wgmma.mma_async.sp)"),
      cl::init("auto")};
  cl::opt<int64_t> gpuBlockRows{
      "gpu-block-rows",
      cl::desc("GPU kernel: block tile rows, 64 or 128, or 256 for the "
               "sm_90a kernel (at most 128 columns then) (0: by shape)"),
      cl::init(0)};
  cl::opt<int64_t> gpuBlockCols{
      "gpu-block-cols",
      cl::desc("GPU kernel: block tile columns, 64 or 128, or 256 for the "
               "sm_90a kernel (0: by shape)"),
      cl::init(0)};
  cl::opt<int64_t> gpuWgmmaStages{
      "gpu-wgmma-stages",
      cl::desc("sm_90a kernel: shared-memory ring depth, 2 to 6 (0: as many "
               "as fit)"),
      cl::init(0)};
  cl::opt<std::string> gpuWgmmaA{
      "gpu-wgmma-a",
      cl::desc("sm_90a kernel: where wgmma reads the sparse operand, smem "
               "(default: a descriptor of the TMA-written tile) or registers"),
      cl::init("smem")};
  cl::opt<int64_t> gpuGroupRows{
      "gpu-group-rows",
      cl::desc("sm_90a kernel: blocks in groups of this many row tiles, "
               "column by column, so that a wave shares B's tiles in L2 "
               "(0: the launch order)"),
      cl::init(0)};
  cl::opt<bool> gpuTmaMulticast{
      "gpu-tma-multicast",
      cl::desc("sm_90a kernel: the two blocks of a cluster each load half "
               "of the B tile they share into both (TMA multicast; needs "
               "a cluster of 2)"),
      cl::init(false)};
  cl::opt<int64_t> gpuClusterRows{
      "gpu-cluster-rows",
      cl::desc("sm_90a kernel: thread-block cluster along the rows, 1 or 2 "
               "(0: by shape)"),
      cl::init(0)};
  cl::opt<int64_t> gpuStages{"gpu-stages",
                             cl::desc("GPU kernel: pipeline stages, 2 to 4"),
                             cl::init(3)};
  cl::opt<std::string> gpuAccumulate{
      "gpu-accumulate",
      cl::desc("GPU kernel: mma.sp accumulator, f32 (default) or f16 (f16 "
               "operands only; less precise)"),
      cl::init("f32")};
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
  options.target = shared->target;
  options.sparsity = shared->sparsity;
  options.pattern = shared->pattern;
  options.pruneMethod = shared->pruneMethod;
  options.permuteChannels = shared->permuteChannels;
  options.permuteSeed = shared->permuteSeed;
  options.permuteMaxRounds = shared->permuteMaxRounds;
  options.rowsPerTile = shared->mr;
  options.vectorsPerTile = shared->nv;
  options.reductionBlock = shared->kc;
  options.rowBlock = shared->mc;
  options.colBlock = shared->nc;
  options.gpuKernel = shared->gpuKernel;
  options.gpuBlockRows = shared->gpuBlockRows;
  options.gpuBlockCols = shared->gpuBlockCols;
  options.gpuStages = shared->gpuStages;
  options.gpuWgmmaStages = shared->gpuWgmmaStages;
  options.gpuClusterRows = shared->gpuClusterRows;
  options.gpuGroupRows = shared->gpuGroupRows;
  options.gpuTmaMulticast = shared->gpuTmaMulticast;
  options.gpuWgmmaA = shared->gpuWgmmaA;
  options.gpuAccumulate = shared->gpuAccumulate;
  auto fail = [&](const llvm::Twine &msg) {
    reportError(tool, msg);
    return failure();
  };
  if (options.sparsity != "explicit" && options.sparsity != "enable" &&
      options.sparsity != "force")
    return fail("--sparsity must be explicit, enable or force, got '" +
                options.sparsity + "'");
  if (options.gpuKernel != "auto" && options.gpuKernel != "direct" &&
      options.gpuKernel != "staged" && options.gpuKernel != "wgmma")
    return fail("--gpu-kernel must be auto, direct, staged or wgmma, got '" +
                options.gpuKernel + "'");
  if (options.gpuKernel == "wgmma" && options.target != "sm_90a")
    return fail("--gpu-kernel=wgmma needs --target=sm_90a, got --target=" +
                options.target);
  for (int64_t tile : {options.gpuBlockRows, options.gpuBlockCols}) {
    bool wide = tile == 256 && options.target == "sm_90a";
    if (tile != 0 && tile != 64 && tile != 128 && !wide)
      return fail("--gpu-block-rows and --gpu-block-cols must be 64 or 128 "
                  "(or 0; 256 with --target=sm_90a), got " +
                  std::to_string(tile));
  }
  if (options.gpuBlockRows == 256 && options.gpuBlockCols == 256)
    return fail("--gpu-block-rows=256 takes at most 128 columns (a 256 x 256 "
                "tile needs 256 accumulators per thread)");
  if (options.gpuBlockRows == 256 && options.gpuWgmmaA == "registers")
    return fail("--gpu-block-rows=256 takes A from shared memory "
                "(--gpu-wgmma-a=smem)");
  if (options.gpuWgmmaStages != 0 &&
      (options.gpuWgmmaStages < 2 || options.gpuWgmmaStages > 6))
    return fail("--gpu-wgmma-stages must be 2 to 6 (or 0), got " +
                std::to_string(options.gpuWgmmaStages));
  if (options.gpuWgmmaA != "smem" && options.gpuWgmmaA != "registers")
    return fail("--gpu-wgmma-a must be smem or registers, got '" +
                options.gpuWgmmaA + "'");
  if (options.gpuClusterRows < 0 || options.gpuClusterRows > 2)
    return fail("--gpu-cluster-rows must be 1 or 2 (or 0), got " +
                std::to_string(options.gpuClusterRows));
  if (options.gpuGroupRows < 0 || options.gpuGroupRows > 64)
    return fail("--gpu-group-rows must be 0 to 64, got " +
                std::to_string(options.gpuGroupRows));
  if (options.gpuStages < 2 || options.gpuStages > 4)
    return fail("--gpu-stages must be 2, 3 or 4, got " +
                std::to_string(options.gpuStages));
  if (options.gpuAccumulate != "f32" && options.gpuAccumulate != "f16")
    return fail("--gpu-accumulate must be f32 or f16, got '" +
                options.gpuAccumulate + "'");
  if (options.pattern != "2:4" && options.pattern != "1:2")
    return fail("--pattern must be 2:4 or 1:2, got '" + options.pattern + "'");
  if (options.pruneMethod != "strip" && options.pruneMethod != "tile")
    return fail("--prune-method must be strip or tile, got '" +
                options.pruneMethod + "'");
  // Both only shape the prunes that force adds: elsewhere they would be
  // silently ignored.
  if (options.sparsity != "force" && options.pruneMethod != "strip")
    return fail("--prune-method=" + options.pruneMethod +
                " needs --sparsity=force (an explicit stc.prune says `method " +
                options.pruneMethod + "`)");
  if (options.sparsity != "force" && options.permuteChannels)
    return fail("--permute-channels needs --sparsity=force (an explicit "
                "stc.prune says `permute_channels`)");
  if (shared->permuteTimeBudget.getNumOccurrences())
    return fail("--permute-time-budget was removed: the channel permutation "
                "search is bounded by --permute-max-rounds alone (rounds of "
                "work), so that its result does not depend on the machine's "
                "speed");
  if (options.permuteMaxRounds < 1)
    return fail("--permute-max-rounds must be at least 1, got " +
                llvm::Twine(options.permuteMaxRounds));
  if (options.pruneMethod == "tile" && options.pattern != "2:4")
    return fail("--prune-method=tile requires --pattern=2:4, got '" +
                options.pattern + "'");
  if (options.target != "cpu" && !isStcGpuTarget(options.target))
    return fail("unknown --target '" + options.target +
                "' (expected cpu, sm_80, sm_86, sm_89, sm_90 or sm_90a)");
  options.cudaToolkitPath = cudaToolkitPath();
  if (shared->cudaPath.getNumOccurrences() && options.cudaToolkitPath.empty())
    return fail("--cuda-path must name a directory, got ''");
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
