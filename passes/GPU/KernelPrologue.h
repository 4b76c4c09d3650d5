//===- KernelPrologue.h - what every generated kernel starts with -*- C++ -*-//
//
// Every kernel of stc-lower-spmm-to-gpu takes the same parameters (see
// kernelParams in LowerSpmmToGpu.cpp) and starts the same way: its
// parameters as global pointers and sizes, the thread's coordinates in the
// mma.sp warp layout, the block's first row and column of the canonical
// problem, the kernel-ready metadata geometry and, for a convolution, the
// group of the block (grid y stacks the groups' row tiles) with the operand
// pointers advanced to it. emitKernelPrologue writes that once and returns
// it; the builders take the parts they need from the result.
//
//===----------------------------------------------------------------------===//
#ifndef STC_PASSES_GPU_KERNELPROLOGUE_H
#define STC_PASSES_GPU_KERNELPROLOGUE_H

#include "passes/GPU/KernelIR.h"
#include "passes/GPU/KernelProblem.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mlir::stc::gpu_kernel {

constexpr int64_t kWarpSize = 32;
/// The mma.sp instruction tile: 16 rows by 8 columns (m16n8kK).
constexpr int64_t kMmaM = 16;
constexpr int64_t kMmaN = 8;

/// One warp's tile of the sm_80 (mma.sp) kernels: rows x cols of the
/// canonical Out, 32 or 64 each (#stc_gpu.kernel_config's warp_rows and
/// warp_cols), as rowTiles() x colTiles() mma.sp instructions per K step.
/// Kernels without one (sm_90a) keep the default.
struct WarpTile {
  int64_t rows = 32, cols = 32;
  int64_t rowTiles() const { return rows / kMmaM; }
  int64_t colTiles() const { return cols / kMmaN; }
  /// Warps of a block tile.
  int64_t warpsIn(int64_t blockRows, int64_t blockCols) const {
    return (blockRows / rows) * (blockCols / cols);
  }
};

/// The kernel's parameters.
struct KernelArgs {
  /// Global pointers (address space 1); bias, accIn, scale null when the
  /// problem has none. For a convolution already advanced to the block's
  /// group.
  Value values, meta, dense, bias, accIn, scale, out;
  /// i32 sizes: the canonical R, P, K and the compressed operand's values
  /// and metadata per row.
  Value rows, cols, depth, valueCols, metaCols;
  /// A convolution's N, H, W, OH, OW (null otherwise).
  Value batch, inH, inW, outH, outW;
};

/// The start of a kernel.
struct KernelPrologue {
  KernelArgs args;
  /// The warp tile, and the thread's coordinates: thread id, lane, its quad
  /// row g = lane / 4 and column t = lane % 4, and the warp's place in the
  /// block tile (in warp tiles).
  WarpTile warp;
  Value tid, lane, g, t, warpRow, warpCol;
  /// First row and column of the block tile, and of the warp's tile.
  Value blockRow, blockCol, rowBase, colBase;
  /// ceil(K / instruction K) steps; the mma.sp kernel-ready metadata's
  /// 32-row blocks of one group and 128-bit vectors per lane and block.
  Value steps, metaRowBlocks, metaVectors;
  /// Leading dimension of Out for a sparse rhs (R, or all output channels
  /// of a convolution) and of D (P when D is k-major, else K).
  Value outLd, denseLd;
  /// Zero of the operand type.
  Value inputZero;
  /// A batched product's matrix (i32; grid y stacks the row tiles of every
  /// one), null otherwise: the sm_90a kernel's TMA coordinate.
  Value batchElement;
};

/// Dense K of one mma.sp: 32 for f16/bf16 (2:4), 16 for tf32 (1:2), 64 for
/// i8 (2:4); in bytes of a K step, i8 and f16/bf16 are the same.
int64_t mmaSpInstructionK(const Problem &pb);

/// Writes the prologue at the start of `func`'s entry block (the insertion
/// point stays after it) for a block tile of `blockRows` x `blockCols` in
/// warp tiles of `warp`; `groupRows` > 0: blocks in the grouped order
/// (groupedBlockOrder), else the launch order.
KernelPrologue emitKernelPrologue(KernelIR &ir, const Problem &pb,
                                  int64_t blockRows, int64_t blockCols,
                                  gpu::GPUFuncOp func, WarpTile warp = {},
                                  int64_t groupRows = 0);

/// The grouped block order (#stc_gpu.kernel_config's group_rows): the
/// block at (tileX, tileY) of a launch `gridX` tiles wide and `rowTiles`
/// high gets the (column, row) tile it computes. Blocks start in launch
/// order, x fastest, a cluster's `clusterRows` blocks (rank = y % c)
/// together; counted in clusters, group j holds the row tiles [j G, j G +
/// G) (G = groupRows / c, the last group what is left) and its blocks go
/// down a column before the next one, so that the blocks in flight read G
/// row tiles of the sparse operand and few column tiles of D, which stay
/// in L2, instead of all of D's columns for one row of blocks.
std::pair<Value, Value> groupedBlockOrder(KernelIR &ir, Value tileX,
                                          Value tileY, Value gridX,
                                          Value rowTiles, int64_t groupRows,
                                          int64_t clusterRows);

} // namespace mlir::stc::gpu_kernel

#endif // STC_PASSES_GPU_KERNELPROLOGUE_H
