//===- Pipelines.cpp - the stc compilation pipeline ---------*- C++ -*-===//
//
// Builds the pass pipeline shared by every tool. Post-conditions of each
// stage are stated where the stage ends.
//
//===----------------------------------------------------------------------===//
#include "passes/Pipelines.h"
#include "passes/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::stc;

void mlir::stc::buildStcHighLevelPipeline(OpPassManager &pm,
                                          const StcPipelineOptions &options) {
  // Shapes and constants too large to compile or run are refused before any
  // folder expands them.
  pm.addPass(createStcCheckSizes());
  // Convolutions first: they consume the structured[2, 4] encoding of
  // their filters, which stc-sparsify-contractions would otherwise report
  // as used by an op it cannot lower.
  StcSparsifyConvolutionsOptions convolutions;
  convolutions.sparsity = options.sparsity;
  convolutions.pattern = options.pattern;
  pm.addPass(createStcSparsifyConvolutions(convolutions));
  StcSparsifyContractionsOptions sparsify;
  sparsify.sparsity = options.sparsity;
  sparsify.pattern = options.pattern;
  sparsify.pruneMethod = options.pruneMethod;
  sparsify.permuteChannels = options.permuteChannels;
  pm.addPass(createStcSparsifyContractions(sparsify));
  pm.addNestedPass<func::FuncOp>(createStcFuseEpilogue());
  // Post-condition: contractions with a sparse operand are stc.spmm, and
  // 2-D convolutions with a sparse filter stc.conv, of
  // stc.compress(stc.prune(weight)); element-wise tails are fused.

  // Channel permutations go after the fusion, so that the bias and ReLU of
  // a producing stc.spmm are its own operands and attributes rather than
  // separate ops, and before the canonicalizer, which folds the stc.prune
  // whose constant the permutation replaces. Always present: an explicit
  // program may ask with permute_channels; without it the pass does nothing.
  StcPermuteChannelsOptions permute;
  permute.seed = options.permuteSeed;
  permute.maxRounds = options.permuteMaxRounds;
  pm.addNestedPass<func::FuncOp>(createStcPermuteChannels(permute));
  // Post-condition: no stc.prune carries permute_channels.

  // Folds stc.prune / stc.compress / stc.check of constants.
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // Post-condition: contractions with a sparse operand are stc.spmm; what is
  // left of stc.prune/compress works on run-time values.
}

namespace {

/// Tensors to memrefs with ownership-based deallocation.
void addBufferization(OpPassManager &pm) {
  pm.addNestedPass<func::FuncOp>(createConvertElementwiseToLinalgPass());
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  // Run-time errors (docs/RELIABILITY.md): allocations whose size is known
  // only at run time are checked first, then every call that can record an
  // error is followed by an early return. Both before the deallocation
  // pipeline, which then frees on the early returns what the normal return
  // frees.
  pm.addPass(createStcCheckAllocations());
  pm.addPass(createStcReturnOnError());
  bufferization::BufferDeallocationPipelineOptions dealloc;
  bufferization::buildBufferDeallocationPipeline(pm, dealloc);
  // Results the function does not own (constants, arguments) are cloned.
  pm.addPass(createConvertBufferizationToMemRefPass());
  // Post-condition: memrefs only; every temporary is freed and every
  // returned buffer is a fresh allocation the caller frees.
}

/// Host code (memrefs, scf, vector, math) to the LLVM dialect. For a GPU
/// host, gpu.* host ops become mgpu* runtime calls (gpu-to-llvm) on the
/// way.
void addHostToLLVM(OpPassManager &pm, bool gpuHost) {
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  pm.addPass(createConvertVectorToSCFPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createConvertVectorToLLVMPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createUBToLLVMConversionPass());
  if (gpuHost)
    pm.addPass(createGpuToLLVMConversionPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
}

} // namespace

void mlir::stc::buildStcCpuLoweringPipeline(OpPassManager &pm,
                                            const StcPipelineOptions &options) {
  StcLowerSpmmToCpuOptions spmm;
  spmm.rowsPerTile = options.rowsPerTile;
  spmm.vectorsPerTile = options.vectorsPerTile;
  spmm.reductionBlock = options.reductionBlock;
  spmm.rowBlock = options.rowBlock;
  spmm.colBlock = options.colBlock;
  spmm.reference = options.reference;
  // Convolutions become tiles of im2col and stc.spmm (or, for the
  // reference, a direct dense convolution).
  StcLowerConvToCpuOptions conv;
  conv.reference = options.reference;
  pm.addNestedPass<func::FuncOp>(createStcLowerConvToCpu(conv));
  pm.addPass(createStcLowerSpmmToCpu(spmm));
  // The reference lowering creates stc.decompress of constants: fold them.
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createStcLowerToRuntime());
  pm.addPass(createCanonicalizerPass());
  // Post-condition: no stc op is left; tensors, linalg, scf, vector only.

  addBufferization(pm);
  addHostToLLVM(pm, /*gpuHost=*/false);
  // Post-condition: the module is in the LLVM dialect.
}

bool mlir::stc::isStcGpuTarget(llvm::StringRef target) {
  return llvm::is_contained({"sm_80", "sm_86", "sm_89", "sm_90", "sm_90a"},
                            target);
}

void mlir::stc::buildStcGpuKernelPipeline(OpPassManager &pm,
                                          const StcPipelineOptions &options) {
  buildStcHighLevelPipeline(pm, options);
  if (options.stopAfterStc)
    return;
  StcLowerSpmmToGpuOptions spmm;
  spmm.blockRows = options.gpuBlockRows; // 0: the heuristic's choice
  spmm.blockCols = options.gpuBlockCols;
  spmm.orderedMetadata = options.gpuOrderedMetadata;
  spmm.stages = options.gpuStages;
  spmm.accumulate = options.gpuAccumulate;
  spmm.kernelVariant = options.gpuKernel;
  spmm.target = options.target;
  spmm.wgmmaStages = options.gpuWgmmaStages;
  spmm.clusterRows = options.gpuClusterRows;
  spmm.groupRows = options.gpuGroupRows;
  spmm.tmaMulticast = options.gpuTmaMulticast;
  spmm.wgmmaA = options.gpuWgmmaA;
  pm.addPass(createStcLowerSpmmToGpu(spmm));
  pm.addPass(createCanonicalizerPass());
  // Weights that are function arguments are pruned/compressed on the host.
  pm.addPass(createStcLowerToRuntime());
  pm.addPass(createCanonicalizerPass());
  // Post-condition: no stc op is left; kernels are in gpu.module
  // @stc_kernels, the host calls declared launch functions on buffers.
  addBufferization(pm);
  pm.addPass(createStcGpuHostLaunch());
  // Post-condition: memrefs only; the host launches kernels with
  // gpu.launch_func between gpu.alloc/gpu.memcpy/gpu.dealloc.
}

void mlir::stc::buildStcGpuFinalizePipeline(OpPassManager &pm,
                                            const StcPipelineOptions &options) {
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  // stc.wgmma_sp to inline PTX, and the NVVM ops that are PTX templates
  // (mbarrier.try_wait.parity's retry loop) to inline assembly.
  kernels.addPass(createStcLowerWgmmaSpToNvvm());
  kernels.addPass(createSCFToControlFlowPass());
  kernels.addPass(createConvertGpuOpsToNVVMOps());
  kernels.addPass(createConvertNVVMToLLVMPass());
  kernels.addPass(createReconcileUnrealizedCastsPass());
  kernels.addPass(createCanonicalizerPass());
  GpuNVVMAttachTargetOptions target;
  target.chip = options.target;
  // ordered_metadata needs PTX ISA 8.5 (CUDA 12.5 drivers); the plain form
  // PTX 7.1; sm_90a (wgmma.mma_async.sp, TMA) PTX 8.0 at least.
  target.features = options.gpuOrderedMetadata || options.target == "sm_90a"
                        ? "+ptx85"
                        : "+ptx71";
  target.optLevel = 3;
  pm.addPass(createGpuNVVMAttachTarget(target));
  pm.addNestedPass<func::FuncOp>(createGpuAsyncRegionPass());
  addHostToLLVM(pm, /*gpuHost=*/true);
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = options.gpuBinaryFormat;
  binary.toolkitPath = options.cudaToolkitPath;
  pm.addPass(createGpuModuleToBinaryPass(binary));
  // Post-condition: the host is in the LLVM dialect and the kernels are a
  // gpu.binary (PTX or cubin) it loads at start-up.
}

void mlir::stc::buildStcGpuEmulationPipeline(
    OpPassManager &pm, const StcPipelineOptions &options) {
  buildStcGpuKernelPipeline(pm, options);
  if (options.stopAfterStc)
    return;
  pm.addPass(createStcEmulateGpuKernels());
  addHostToLLVM(pm, /*gpuHost=*/false);
  // Post-condition: a CPU module in the LLVM dialect that calls
  // stc_emu_launch and stc_emu_mma_sp.
}

LogicalResult mlir::stc::buildStcPipeline(OpPassManager &pm,
                                          const StcPipelineOptions &options) {
  bool cpu = options.target == "cpu";
  if (!cpu && !isStcGpuTarget(options.target))
    return failure();
  if (options.stopAfterStc) {
    buildStcHighLevelPipeline(pm, options);
    return success();
  }
  if (cpu) {
    buildStcHighLevelPipeline(pm, options);
    buildStcCpuLoweringPipeline(pm, options);
    return success();
  }
  // The GPU pipelines include the high level.
  if (options.gpuEmulate) {
    buildStcGpuEmulationPipeline(pm, options);
    return success();
  }
  buildStcGpuKernelPipeline(pm, options);
  buildStcGpuFinalizePipeline(pm, options);
  return success();
}

namespace {
/// Command-line form of StcPipelineOptions for `stc-opt --stc-pipeline`.
struct StcPipelineCLOptions : public PassPipelineOptions<StcPipelineCLOptions> {
  PassOptions::Option<std::string> target{*this, "target",
                                          llvm::cl::init("cpu")};
  PassOptions::Option<std::string> sparsity{*this, "sparsity",
                                            llvm::cl::init("explicit")};
  PassOptions::Option<std::string> pattern{*this, "pattern",
                                           llvm::cl::init("2:4")};
  PassOptions::Option<std::string> pruneMethod{*this, "prune-method",
                                               llvm::cl::init("strip")};
  PassOptions::Option<bool> permuteChannels{*this, "permute-channels",
                                            llvm::cl::init(false)};
  PassOptions::Option<uint64_t> permuteSeed{*this, "permute-seed",
                                            llvm::cl::init(0)};
  PassOptions::Option<int> permuteMaxRounds{*this, "permute-max-rounds",
                                            llvm::cl::init(100)};
  PassOptions::Option<bool> reference{*this, "reference",
                                      llvm::cl::init(false)};
  PassOptions::Option<bool> gpuEmulate{*this, "gpu-emulate",
                                       llvm::cl::init(false)};
  PassOptions::Option<std::string> gpuKernel{*this, "gpu-kernel",
                                             llvm::cl::init("auto")};
  PassOptions::Option<int64_t> gpuBlockRows{*this, "gpu-block-rows",
                                            llvm::cl::init(0)};
  PassOptions::Option<int64_t> gpuBlockCols{*this, "gpu-block-cols",
                                            llvm::cl::init(0)};
  PassOptions::Option<int64_t> gpuStages{*this, "gpu-stages",
                                         llvm::cl::init(3)};
  PassOptions::Option<std::string> gpuAccumulate{*this, "gpu-accumulate",
                                                 llvm::cl::init("f32")};
  PassOptions::Option<int64_t> gpuWgmmaStages{*this, "gpu-wgmma-stages",
                                              llvm::cl::init(0)};
  PassOptions::Option<int64_t> gpuClusterRows{*this, "gpu-cluster-rows",
                                              llvm::cl::init(0)};
  PassOptions::Option<int64_t> gpuGroupRows{*this, "gpu-group-rows",
                                            llvm::cl::init(0)};
  PassOptions::Option<bool> gpuTmaMulticast{*this, "gpu-tma-multicast",
                                            llvm::cl::init(false)};
  PassOptions::Option<std::string> gpuWgmmaA{*this, "gpu-wgmma-a",
                                             llvm::cl::init("smem")};
  PassOptions::Option<bool> stopAfterStc{*this, "stop-after-stc",
                                         llvm::cl::init(false)};
};
} // namespace

void mlir::stc::registerStcPipelines() {
  // Registered by hand (not PassPipelineRegistration) so that an unsupported
  // target fails the pipeline instead of silently building half of it.
  registerPassPipeline(
      "stc-pipeline", "The whole stc compilation (see passes/Pipelines.h)",
      [](OpPassManager &pm, StringRef text,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        StcPipelineCLOptions cl;
        if (failed(cl.parseFromString(text)))
          return failure();
        StcPipelineOptions options;
        options.target = cl.target;
        options.sparsity = cl.sparsity;
        options.pattern = cl.pattern;
        options.pruneMethod = cl.pruneMethod;
        options.permuteChannels = cl.permuteChannels;
        options.permuteSeed = cl.permuteSeed;
        options.permuteMaxRounds = cl.permuteMaxRounds;
        options.reference = cl.reference;
        options.stopAfterStc = cl.stopAfterStc;
        options.gpuEmulate = cl.gpuEmulate;
        options.gpuKernel = cl.gpuKernel;
        options.gpuBlockRows = cl.gpuBlockRows;
        options.gpuBlockCols = cl.gpuBlockCols;
        options.gpuStages = cl.gpuStages;
        options.gpuAccumulate = cl.gpuAccumulate;
        options.gpuWgmmaStages = cl.gpuWgmmaStages;
        options.gpuClusterRows = cl.gpuClusterRows;
        options.gpuGroupRows = cl.gpuGroupRows;
        options.gpuTmaMulticast = cl.gpuTmaMulticast;
        options.gpuWgmmaA = cl.gpuWgmmaA;
        if (failed(buildStcPipeline(pm, options)))
          return errorHandler(
              "stc-pipeline: unsupported target '" + options.target +
              "' (expected cpu, sm_80, sm_86, sm_89, sm_90 or sm_90a)");
        return success();
      },
      [](function_ref<void(const detail::PassOptions &)> optHandler) {
        optHandler(StcPipelineCLOptions());
      });
}
