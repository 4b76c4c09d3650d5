//===- Pipelines.cpp - the stc compilation pipeline ---------*- C++ -*-===//
//
// Builds the pass pipeline shared by every tool. Post-conditions of each
// stage are stated where the stage ends.
//
//===----------------------------------------------------------------------===//
#include "passes/Pipelines.h"
#include "passes/GPU/ConfigureGpuKernels.h"
#include "passes/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
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
  // Upstream's 2:4 idioms (docs/INTEROP.md): gpu.spmm on 2:4 matrices
  // becomes stc.spmm; calls passing 2:4-encoded tensors are inlined; a
  // conversion into a structured[2, 4] encoding prunes its source.
  pm.addPass(createStcRaiseGpuSparseOps());
  pm.addPass(createStcInlineEncodedCalls());
  pm.addPass(createStcPruneOnConvert());
  // Post-condition: no gpu sparse op; every encoded value STC may
  // specialize is defined in the function that uses it, from 2:4 data.

  // Convolutions first: they consume the structured[2, 4] encoding of
  // their filters, which stc-sparsify-contractions would otherwise see.
  StcSparsifyConvolutionsOptions convolutions;
  convolutions.sparsity = options.sparsity;
  convolutions.pattern = options.pattern;
  convolutions.gpuDenseForm = options.target != "cpu";
  convolutions.target = options.target;
  convolutions.tuningDb = options.tuningDb;
  convolutions.tuningDevice = options.tuningDevice;
  convolutions.tuningBuiltin = options.tuningBuiltin;
  pm.addPass(createStcSparsifyConvolutions(convolutions));
  StcSparsifyContractionsOptions sparsify;
  sparsify.sparsity = options.sparsity;
  sparsify.pattern = options.pattern;
  sparsify.pruneMethod = options.pruneMethod;
  sparsify.permuteChannels = options.permuteChannels;
  sparsify.target = options.target;
  sparsify.tuningDb = options.tuningDb;
  sparsify.tuningDevice = options.tuningDevice;
  sparsify.tuningBuiltin = options.tuningBuiltin;
  pm.addPass(createStcSparsifyContractions(sparsify));
  // What STC did not specialize keeps its encodings for upstream's
  // sparsifier (stc-bufferize); public functions take dense tensors.
  pm.addPass(createStcDensifyEntryPoints());
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

  // What the epilogues did not take sits between a convolution's
  // transposes: the transposes move behind it and meet (NHWC stays NHWC).
  pm.addNestedPass<func::FuncOp>(createStcSinkTransposes());

  // Folds stc.prune / stc.compress / stc.check of constants.
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // Post-condition: contractions with a sparse operand are stc.spmm; what is
  // left of stc.prune/compress works on run-time values.
}

namespace {

/// Tensors to memrefs: one-shot bufferization with ownership-based
/// deallocation, or upstream's sparsifier where sparse tensors remain
/// (stc-bufferize).
void addBufferization(OpPassManager &pm) {
  pm.addPass(createStcBufferize());
  // Post-condition: memrefs only (sparse tensors are the runtime library's
  // objects). Without sparse tensors, every temporary is freed and every
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
  // What upstream's sparsifier leaves in the programs stc-bufferize hands
  // it (complex elements, arith ops without an LLVM counterpart); nothing
  // in STC's own code.
  pm.addNestedPass<func::FuncOp>(createConvertComplexToStandardPass());
  pm.addNestedPass<func::FuncOp>(arith::createArithExpandOpsPass());
  pm.addPass(createConvertComplexToLibm());
  // libm has no rsqrt: math-to-libm would call a `rsqrtf` that no library
  // defines (the LayerNorm of a transformer block failed to link). 1/sqrt,
  // which math-to-llvm lowers to the sqrt intrinsic.
  {
    math::MathExpandOpsPassOptions expand;
    expand.opMnemonics = {"rsqrt"};
    pm.addPass(math::createMathExpandOpsPass(expand));
  }
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createConvertVectorToLLVMPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createUBToLLVMConversionPass());
  pm.addPass(createConvertComplexToLLVMPass());
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
  // Dense half-precision reductions accumulate in f32, as the sparse
  // kernels do.
  pm.addNestedPass<func::FuncOp>(createStcWidenAccumulation());
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
  return stc_gpu::symbolizeGpuArch(target).has_value();
}

std::optional<stc_gpu::GpuArch> StcPipelineOptions::gpuArch() const {
  return stc_gpu::symbolizeGpuArch(target);
}

LogicalResult
StcPipelineOptions::verify(Spelling spelling,
                           function_ref<void(const Twine &)> error) const {
  auto fail = [&](const Twine &message) {
    error(message);
    return failure();
  };
  // Option names as the tools spell them, or as stc-pipeline does.
  auto name = [&](StringRef option) {
    return (spelling.prefix + option).str();
  };
  bool prunes = sparsity == "force" || sparsity == "auto";
  if (sparsity != "explicit" && sparsity != "enable" && !prunes)
    return fail(name("sparsity") +
                " must be explicit, enable, force or auto, got '" + sparsity +
                "'");
  if (failed(gpu.verify(gpuArch(), spelling, error)))
    return failure();
  if (pattern != "2:4" && pattern != "1:2")
    return fail(name("pattern") + " must be 2:4 or 1:2, got '" + pattern + "'");
  if (pruneMethod != "strip" && pruneMethod != "tile")
    return fail(name("prune-method") + " must be strip or tile, got '" +
                pruneMethod + "'");
  // Both only shape the prunes that force adds: elsewhere they would be
  // silently ignored.
  if (!prunes && pruneMethod != "strip")
    return fail(name("prune-method") + "=" + pruneMethod + " needs " +
                name("sparsity") +
                "=force or auto (an explicit stc.prune says `method " +
                pruneMethod + "`)");
  if (!prunes && permuteChannels)
    return fail(name("permute-channels") + " needs " + name("sparsity") +
                "=force or auto (an explicit stc.prune says "
                "`permute_channels`)");
  if (!tuningDevice.empty() && !gpuArch())
    return fail(name("tuning-device") + " needs a GPU " + name("target"));
  if (permuteMaxRounds < 1)
    return fail(name("permute-max-rounds") + " must be at least 1, got " +
                Twine(permuteMaxRounds));
  if (pruneMethod == "tile" && pattern != "2:4")
    return fail(name("prune-method") + "=tile requires " + name("pattern") +
                "=2:4, got '" + pattern + "'");
  if (target != "cpu" && !gpuArch())
    return fail("unknown " + name("target") + " '" + target +
                "' (expected cpu, " + stc_gpu::listGpuArchs() + ")");
  return success();
}

void mlir::stc::buildStcGpuKernelPipeline(OpPassManager &pm,
                                          const StcPipelineOptions &options) {
  buildStcHighLevelPipeline(pm, options);
  if (options.stopAfterStc)
    return;
  // Every stc.spmm / stc.conv gets a #stc_gpu.kernel_config (the
  // heuristics' choice with the knobs on top), then exactly that kernel.
  StcConfigureGpuKernelsOptions configure;
  configure.target = options.target;
  configure.tuningDb = options.tuningDb;
  configure.tuningDevice = options.tuningDevice;
  configure.tuningBuiltin = options.tuningBuiltin;
  pm.addPass(createStcConfigureGpuKernels(configure, options.gpu));
  pm.addPass(createStcLowerSpmmToGpu());
  // Dense half reductions the tensor-core kernels did not take accumulate
  // in f32 as well.
  pm.addNestedPass<func::FuncOp>(createStcWidenAccumulation());
  // What is left of the tensor computation (bias adds, activations,
  // residual adds, transposes) to the GPU too.
  pm.addPass(createStcLowerElementwiseToGpu());
  pm.addPass(createCanonicalizerPass());
  // Weights that are function arguments are pruned/compressed on the host.
  pm.addPass(createStcLowerToRuntime());
  pm.addPass(createCanonicalizerPass());
  // Post-condition: no stc op is left; kernels are in gpu.module
  // @stc_kernels, the host calls declared launch functions on buffers.
  addBufferization(pm);
  StcGpuHostLaunchOptions hostLaunch;
  hostLaunch.deviceEntry = options.gpuDeviceEntry;
  pm.addPass(createStcGpuHostLaunch(hostLaunch));
  // Post-condition: memrefs only; the host launches kernels with
  // gpu.launch_func between gpu.alloc/gpu.memcpy/gpu.dealloc.
}

void mlir::stc::buildStcGpuFinalizePipeline(OpPassManager &pm,
                                            const StcPipelineOptions &options) {
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  // stc_gpu.wgmma_sp to inline PTX, and the NVVM ops that are PTX templates
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
  bool hopper = stc_gpu::hasWgmma(*options.gpuArch());
  target.features = options.gpu.orderedMetadata || hopper ? "+ptx85" : "+ptx71";
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
  if (!cpu && !options.isGpuTarget())
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
/// Command-line form of StcPipelineOptions for `stc-opt --stc-pipeline` and
/// the C API, generated from the same rows.
struct StcPipelineCLOptions : public PassPipelineOptions<StcPipelineCLOptions> {
  // NOLINTBEGIN(bugprone-macro-parentheses): the rows declare members.
#define STC_PIPELINE_CL_Tools(TYPE, FIELD, NAME, DEFAULT, HELP)                \
  PassOptions::Option<TYPE> FIELD{*this, NAME, llvm::cl::desc(HELP),           \
                                  llvm::cl::init(DEFAULT)};
#define STC_PIPELINE_CL_Pipeline STC_PIPELINE_CL_Tools
#define STC_PIPELINE_CL_Internal(TYPE, FIELD, NAME, DEFAULT, HELP)
#define STC_OPTION(TYPE, FIELD, NAME, DEFAULT, USE, HELP)                      \
  STC_PIPELINE_CL_##USE(TYPE, FIELD, NAME, DEFAULT, HELP)
#include "passes/PipelineOptions.def"
#undef STC_PIPELINE_CL_Tools
#undef STC_PIPELINE_CL_Pipeline
#undef STC_PIPELINE_CL_Internal
#define STC_GPU_KERNEL_OPTION(TYPE, FIELD, NAME, DEFAULT, HELP)                \
  PassOptions::Option<TYPE> gpu_##FIELD{                                       \
      *this, "gpu-" NAME, llvm::cl::desc(HELP), llvm::cl::init(DEFAULT)};
#include "passes/GPU/KernelOptions.def"
  // NOLINTEND(bugprone-macro-parentheses)

  StcPipelineOptions get() const {
    StcPipelineOptions options;
#define STC_PIPELINE_COPY_Tools(FIELD) options.FIELD = FIELD;
#define STC_PIPELINE_COPY_Pipeline STC_PIPELINE_COPY_Tools
#define STC_PIPELINE_COPY_Internal(FIELD)
#define STC_OPTION(TYPE, FIELD, NAME, DEFAULT, USE, HELP)                      \
  STC_PIPELINE_COPY_##USE(FIELD)
#include "passes/PipelineOptions.def"
#undef STC_PIPELINE_COPY_Tools
#undef STC_PIPELINE_COPY_Pipeline
#undef STC_PIPELINE_COPY_Internal
#define STC_GPU_KERNEL_OPTION(TYPE, FIELD, NAME, DEFAULT, HELP)                \
  options.gpu.FIELD = gpu_##FIELD;
#include "passes/GPU/KernelOptions.def"
    return options;
  }
};
} // namespace

void mlir::stc::registerStcPipelines() {
  // Registered by hand (not PassPipelineRegistration) so that bad options
  // fail the pipeline with StcPipelineOptions::verify's message instead of
  // silently building half of it.
  registerPassPipeline(
      "stc-pipeline", "The whole stc compilation (see passes/Pipelines.h)",
      [](OpPassManager &pm, StringRef text,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        StcPipelineCLOptions cl;
        if (failed(cl.parseFromString(text)))
          return failure();
        StcPipelineOptions options = cl.get();
        std::string message;
        if (failed(options.verify(StcPipelineOptions::Spelling::pipeline(),
                                  [&](const Twine &m) { message = m.str(); })))
          return errorHandler("stc-pipeline: " + message);
        if (failed(buildStcPipeline(pm, options)))
          return errorHandler("stc-pipeline: cannot build the pipeline for "
                              "target '" +
                              options.target + "'");
        return success();
      },
      [](function_ref<void(const detail::PassOptions &)> optHandler) {
        optHandler(StcPipelineCLOptions());
      });
}
