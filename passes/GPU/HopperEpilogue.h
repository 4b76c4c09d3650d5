//===- HopperEpilogue.h - the sm_90a kernel's epilogue ----------*- C++ -*-===//
//
// What the consumer warps of the sm_90a kernel do with their accumulators
// after the last K step: the fused epilogue (Epilogue.h) and the stores,
// either one element at a time from the registers or, with
// HopperKernelShape::vectorStores, staged in shared memory and written as
// 16-byte vectors along Out's contiguous dimension.
//
//===----------------------------------------------------------------------===//
#ifndef STC_PASSES_GPU_HOPPEREPILOGUE_H
#define STC_PASSES_GPU_HOPPEREPILOGUE_H

#include "passes/GPU/HopperKernelShape.h"
#include "passes/GPU/KernelIR.h"
#include "passes/GPU/KernelProblem.h"
#include "passes/GPU/KernelPrologue.h"

namespace mlir::stc::gpu_kernel {

/// One consumer warp's place in its block: what the epilogue needs beyond
/// the prologue.
struct HopperEpilogueWarp {
  /// The first of the warp's 16 rows in each of its warpgroup's 64-row
  /// tiles (Out's canonical rows).
  SmallVector<Value, 2> firstRow;
  /// The block's first column (a GEMM, or a convolution tiled flat).
  Value blockCol;
  /// A convolution tiled per image: the block's image and the output row
  /// and column of its pixel tile's corner (null otherwise).
  Value convImage, convRow0, convCol0;
  /// The block's ring (generic pointer to shared memory) and the warp's
  /// index among the consumer warps, for the staging.
  Value smem, consumerWarp;
};

/// The epilogue of the warp's accumulators `acc` (warpgroupTiles() x
/// blockCols / 2 per thread, as the wgmma fragments hold them: value v of
/// thread (g, t) of a 64 x BN tile is row 16 w + g + 8 ((v / 2) % 2),
/// column 8 (v / 4) + 2 t + v % 2). With vectorStores, every consumer
/// thread must reach it (it starts with a barrier of the consumers).
void emitHopperEpilogue(KernelIR &ir, const Problem &pb,
                        const HopperKernelShape &shape,
                        const KernelPrologue &kp, const HopperEpilogueWarp &w,
                        ArrayRef<Value> acc);

} // namespace mlir::stc::gpu_kernel

#endif // STC_PASSES_GPU_HOPPEREPILOGUE_H
