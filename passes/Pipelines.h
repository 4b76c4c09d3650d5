//===- Pipelines.h - the stc compilation pipeline -----------*- C++ -*-===//
//
// One C++ builder for the whole compilation, used by every tool (stc-opt's
// `stc-pipeline`, stc-compile, stc-run) and by embedders.
//
//===----------------------------------------------------------------------===//
#ifndef STC_PASSES_PIPELINES_H
#define STC_PASSES_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "llvm/ADT/StringRef.h"

#include "dialects/StcGpu/StcGpuAttrs.h"
#include "passes/GPU/KernelOptions.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mlir::stc {

/// Options of the whole pipeline, declared once in PipelineOptions.def
/// (and the GPU kernel knobs in GPU/KernelOptions.def): stc-compile's and
/// stc-run's flags and stc-pipeline's options are generated from the same
/// rows.
struct StcPipelineOptions {
#define STC_OPTION(TYPE, FIELD, NAME, DEFAULT, USE, HELP) TYPE FIELD = DEFAULT;
#include "passes/PipelineOptions.def"
  /// The knobs of stc-configure-gpu-kernels.
  GpuKernelOptions gpu;

  /// How option names are spelled in verify()'s messages.
  using Spelling = GpuKernelOptions::Spelling;
  /// Checks every value and the combinations that cannot work; calls
  /// `error` with the first problem ("--sparsity must be explicit, enable or
  /// force, got 'x'") and fails.
  LogicalResult verify(Spelling spelling,
                       function_ref<void(const Twine &)> error) const;

  /// The GPU architecture of `target`; nullopt for cpu (or an invalid
  /// target, which verify() reports).
  std::optional<stc_gpu::GpuArch> gpuArch() const;
  bool isGpuTarget() const { return gpuArch().has_value(); }
};

/// True for the GPU architectures the pipeline accepts ("sm_80" ...).
bool isStcGpuTarget(llvm::StringRef target);

/// Target-independent part: recognise sparse contractions, fuse epilogues,
/// permute channels where asked, fold constant weights (prune/compress at
/// compile time).
void buildStcHighLevelPipeline(OpPassManager &pm,
                               const StcPipelineOptions &options);

/// CPU part: stc ops to kernels and runtime calls, bufferize, lower to the
/// LLVM dialect.
void buildStcCpuLoweringPipeline(OpPassManager &pm,
                                 const StcPipelineOptions &options);

/// GPU part, first half: the high-level pipeline, then stc.spmm to kernels
/// (stc-lower-spmm-to-gpu) and host code on memrefs. Afterwards the host
/// functions launch kernels with gpu.launch_func, and gpu.module
/// @stc_kernels holds one gpu.func per stc.spmm, each with a DictionaryAttr
/// `stc_gpu.kernel_info` (entry name, launch configuration, parameter names and
/// types, problem) that tools can read before the second half.
void buildStcGpuKernelPipeline(OpPassManager &pm,
                               const StcPipelineOptions &options);

/// GPU part, second half: kernels to NVVM, attached to options.target,
/// serialized into a gpu.binary (options.gpuBinaryFormat); host code to the
/// LLVM dialect, calling the runtime's mgpu* entry points.
void buildStcGpuFinalizePipeline(OpPassManager &pm,
                                 const StcPipelineOptions &options);

/// GPU kernels on the CPU (stc-run --device=emulate): the kernel pipeline,
/// then stc-emulate-gpu-kernels and the CPU lowering of the host to the
/// LLVM dialect. The program calls the emulator runtime
/// (runtime/emulator/stc_gpu_emulator.h).
void buildStcGpuEmulationPipeline(OpPassManager &pm,
                                  const StcPipelineOptions &options);

/// The whole pipeline: high level, then (unless stopAfterStc) the lowering
/// for options.target. Fails for targets that are not implemented.
LogicalResult buildStcPipeline(OpPassManager &pm,
                               const StcPipelineOptions &options);

/// Registers `stc-pipeline` (with the options above) for stc-opt.
void registerStcPipelines();

} // namespace mlir::stc

#endif // STC_PASSES_PIPELINES_H
