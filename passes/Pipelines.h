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

#include <cstdint>
#include <string>

namespace mlir::stc {

/// Options of the whole pipeline; stc-compile's flags map one-to-one onto
/// these.
struct StcPipelineOptions {
  /// Code generation target: "cpu", or a GPU architecture "sm_80",
  /// "sm_86", "sm_89", "sm_90", "sm_90a".
  std::string target = "cpu";
  /// Which operands are sparse: "explicit", "enable" or "force".
  std::string sparsity = "explicit";
  /// Pattern for pruned operands: "2:4" or "1:2".
  std::string pattern = "2:4";
  /// How sparsity=force prunes: "strip" or "tile" (2:4 only).
  std::string pruneMethod = "strip";
  /// Under sparsity=force, search reduction-channel permutations for the
  /// pruned constant weights and fold them into the producers
  /// (stc-permute-channels; explicit programs ask with permute_channels).
  bool permuteChannels = false;
  /// Seed and rounds of that search (work, not time: the result depends on
  /// nothing else).
  uint64_t permuteSeed = 0;
  int permuteMaxRounds = 100;
  /// Lower stc.spmm to the dense reference instead of the sparse kernel.
  bool reference = false;
  /// Stop after the target-independent stc stage (no lowering to LLVM).
  bool stopAfterStc = false;
  /// With a GPU target: run the kernels on the CPU through the emulator
  /// (buildStcGpuEmulationPipeline) instead of building a GPU binary.
  bool gpuEmulate = false;
  /// CPU microkernel tiling (see stc-lower-spmm-to-cpu).
  int64_t rowsPerTile = 8;
  int64_t vectorsPerTile = 2;
  int64_t reductionBlock = 256;
  int64_t rowBlock = 128;
  int64_t colBlock = 256;
  /// GPU targets: what gpu-module-to-binary embeds, "isa" (PTX, JIT-compiled
  /// by the driver at load time) or "bin" (cubin, assembled by ptxas from
  /// cudaToolkitPath at compile time).
  std::string gpuBinaryFormat = "isa";
  std::string cudaToolkitPath = "/usr/local/cuda";
  /// GPU kernel tiling (see stc-lower-spmm-to-gpu); 0 = the heuristic's
  /// choice for the shape.
  int64_t gpuBlockRows = 0;
  int64_t gpuBlockCols = 0;
  int64_t gpuStages = 3;
  /// The sm_90a kernel's ring depth and cluster (0: chooseHopperTiling's).
  int64_t gpuWgmmaStages = 0;
  int64_t gpuClusterRows = 0;
  /// The sm_90a kernel's grouped block order: row tiles per group (0: the
  /// launch order).
  int64_t gpuGroupRows = 0;
  /// The sm_90a kernel's TMA multicast of B across its cluster pair.
  bool gpuTmaMulticast = false;
  /// Where the sm_90a kernel's wgmma reads A: "smem" or "registers".
  std::string gpuWgmmaA = "smem";
  /// mma.sp accumulator: "f32" or "f16" (f16 operands only).
  std::string gpuAccumulate = "f32";
  /// "auto", "direct", "staged" or "wgmma" (see stc-lower-spmm-to-gpu).
  std::string gpuKernel = "auto";
  /// The PTX ISA's mma.sp::ordered_metadata (PTX 8.5); false gives the
  /// plain mma.sp of older toolchains.
  bool gpuOrderedMetadata = true;
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
/// `stc.kernel_info` (entry name, launch configuration, parameter names and
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
