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

#include <cstdint>
#include <string>

namespace mlir::stc {

/// Options of the whole pipeline; stc-compile's flags map one-to-one onto
/// these.
struct StcPipelineOptions {
  /// Code generation target. Only "cpu" is implemented so far.
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
  /// Seed, rounds and per-weight time budget (seconds) of that search; the
  /// result is reproducible unless the time budget runs out first.
  uint64_t permuteSeed = 0;
  int permuteMaxRounds = 100;
  double permuteTimeBudget = 10.0;
  /// Lower stc.spmm to the dense reference instead of the sparse kernel.
  bool reference = false;
  /// Stop after the target-independent stc stage (no lowering to LLVM).
  bool stopAfterStc = false;
  /// CPU microkernel tiling (see stc-lower-spmm-to-cpu).
  int64_t rowsPerTile = 8;
  int64_t vectorsPerTile = 2;
  int64_t reductionBlock = 256;
  int64_t rowBlock = 128;
  int64_t colBlock = 256;
};

/// Target-independent part: recognise sparse contractions, fuse epilogues,
/// permute channels where asked, fold constant weights (prune/compress at
/// compile time).
void buildStcHighLevelPipeline(OpPassManager &pm,
                               const StcPipelineOptions &options);

/// CPU part: stc ops to kernels and runtime calls, bufferize, lower to the
/// LLVM dialect.
void buildStcCpuLoweringPipeline(OpPassManager &pm,
                                 const StcPipelineOptions &options);

/// The whole pipeline: high level, then (unless stopAfterStc) the lowering
/// for options.target. Fails for targets that are not implemented.
LogicalResult buildStcPipeline(OpPassManager &pm,
                               const StcPipelineOptions &options);

/// Registers `stc-pipeline` (with the options above) for stc-opt.
void registerStcPipelines();

} // namespace mlir::stc

#endif // STC_PASSES_PIPELINES_H
