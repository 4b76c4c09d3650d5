//===- HopperKernelShape.h - geometry of the sm_90a kernel ----*- C++ -*-===//
//
// The block tile, ring, warpgroups and register budget of the sm_90a
// (wgmma.mma_async.sp) kernel for one kernel configuration, shared by the
// configuration pass (does the ring fit?) and the kernel builder.
//
//===----------------------------------------------------------------------===//
#ifndef STC_PASSES_GPU_HOPPERKERNELSHAPE_H
#define STC_PASSES_GPU_HOPPERKERNELSHAPE_H

#include <algorithm>
#include <cstdint>

namespace mlir::stc::gpu_kernel {

/// Geometry of the sm_90a kernel (docs/HOPPER.md): one consumer warpgroup
/// per 64 rows of the block tile plus a producer warpgroup, and a ring of
/// `stages` shared-memory slots, each one K step (64 dense K of f16/bf16,
/// 128 of s8; or two steps' regions one after the other, stepsPerSlot):
///   [B tile: blockCols x K step, 128-byte swizzled (K-major: one 128-byte
///    row per column; MN-major, f16/bf16 only: blockCols / 64 atoms of 64
///    k-rows x 128 bytes)]
///   [A values: blockRows x half a K step of stored elements, 64-byte
///    swizzled rows; a dense A: a whole K step, 128-byte swizzled rows]
/// then two mbarriers per slot (full, empty). Every region starts on a
/// multiple of 1024 bytes (the 128-byte swizzle's period) from a base the
/// kernel rounds up to 1024, hence the 1 KiB of slack.
struct HopperKernelShape {
  int64_t blockRows = 128, blockCols = 128, stages = 4, clusterRows = 1;
  /// A through a shared-memory descriptor (the values tile as TMA wrote
  /// it), or from registers loaded with ld.shared. Either way each step
  /// waits for its wgmmas (HopperKernel.cpp says why).
  bool aFromSharedMemory = true;
  /// Convolutions: the block's B tile is TH x TW output pixels of one image
  /// (pixelTileH x pixelTileW = blockCols), gathered by one 4-D TMA box per
  /// K step (64 channels of one filter tap; needs C % 64 == 0). 0 x 0 for
  /// a pointwise convolution (isPointwiseConv): its B tile is blockCols
  /// consecutive pixels of N x OH x OW, one 2-D box of the input viewed as
  /// the [N*H*W, C] matrix, as a GEMM's K-contiguous B.
  int64_t pixelTileH = 0, pixelTileW = 0;
  /// A convolution tiled image by image (a GEMM or a pointwise convolution
  /// tiled flat has no pixel tile).
  bool tilesPerImage() const { return pixelTileH > 0; }
  /// Grouped block order: the blocks of each group of groupRows row tiles
  /// (whole clusters) take their tiles column by column, so that the
  /// blocks in flight together read a few columns of B rather than all of
  /// them (0: block (x, y) computes column tile x of row tile y).
  int64_t groupRows = 0;
  /// TMA multicast of B (clusterRows == 2, GEMM): each block of the pair
  /// loads half of the B tile both share into both, so a block reads half
  /// of B from L2. The consumers release a slot in both blocks' `empty`.
  bool multicastB = false;

  /// The kernel-ready metadata through the TMA ring (a 2:4 A only): the
  /// producer copies the 128-bit vectors of every consumer thread's words
  /// (2 KiB per 64-row tile, four K steps of f16/bf16, two of s8) into a
  /// ring of metaSlots() slots, on the `full` mbarrier of the vector's
  /// first K step; the consumers read their vector from there at that step.
  /// Otherwise each consumer thread loads its vectors from global memory.
  bool metaThroughTma = false;
  /// K steps per ring slot, 1 or 2 (a 2:4 A, an even number of K steps):
  /// with 2, a slot holds two consecutive steps' regions, and the
  /// consumers issue both steps' wgmmas (four per 64-row tile) before one
  /// wgmma.wait_group: half the waits, barriers and releases per K. The
  /// two steps read distinct metadata words, so nothing a wgmma in flight
  /// reads is overwritten.
  int64_t stepsPerSlot = 1;
  /// The epilogue's stores (HopperEpilogue.h): each consumer warp stages
  /// its results, at most 32 columns at a time (FragmentStores.h), in
  /// shared memory (the ring, which every consumer is done with by then)
  /// and writes them with 16-byte stores along Out's contiguous dimension;
  /// otherwise each thread stores its accumulators' results one element at
  /// a time. The staging of every consumer warp (at most 8 warps x 32
  /// columns x 80 bytes, 20 KiB, for f32 results of a 128-row block) fits
  /// in the smallest ring (two slots: 24 KiB for 128 x 32, 12 KiB for 64 x
  /// 16).
  bool vectorStores = false;

  /// Bytes per operand element: 2 (f16/bf16: m64nNk32, f32 accumulators)
  /// or 1 (s8: m64nNk64, s32 accumulators).
  int64_t elementBytes = 2;
  /// A dense S (Problem::denseS): the dense wgmma (m64nNk16 for f16/bf16)
  /// on a whole 128-byte swizzle row of A per row and K step, four
  /// instructions a step, no metadata.
  bool denseA = false;

  /// A K step (a ring slot's region) is one 128-byte swizzle row of B per
  /// column and one 64-byte row of stored A values per row: 64 dense K of
  /// f16/bf16 or 128 of s8. Either way it is two wgmmas (k32 or k64), so every
  /// byte offset in the kernel is the same for both widths.
  static constexpr int64_t kRowBytes = 128;
  int64_t blockK() const { return kRowBytes / elementBytes; }
  /// Stored A columns of a K step: half of them for 2:4, all when dense.
  int64_t storedK() const { return denseA ? blockK() : blockK() / 2; }
  /// wgmmas of a K step (per 64-row tile): two sparse ones, or four dense
  /// ones (a dense wgmma has half the K of a sparse one).
  int64_t wgmmasPerStep() const { return denseA ? 4 : 2; }
  /// Dense K of one wgmma.
  int64_t instrK() const { return blockK() / wgmmasPerStep(); }
  /// Bytes of one row of the A tile (the swizzle width TMA writes).
  int64_t aRowBytes() const { return storedK() * elementBytes; }
  /// Kernel-ready metadata words (StcHopperLayout.h) a thread uses per K
  /// step: f16/bf16 spends the selector's thread pairs on the two wgmmas
  /// of a step (one word, sp-sel 0 and 1); s8 reads every thread's word
  /// (sp-sel 0), one word per wgmma.
  int64_t metaWordsPerStep() const { return elementBytes == 1 ? 2 : 1; }
  /// K steps one 128-bit vector of a thread's metadata words covers.
  int64_t stepsPerMetaVector() const { return 4 / metaWordsPerStep(); }
  /// Slots of the metadata ring: vector v goes to slot v % metaSlots() when
  /// the ring slot of its first step is filled, which waits for the
  /// consumers' release of the slot `stages` before it (stepsPerSlot x
  /// stages steps earlier); they read the vector's predecessor in that
  /// slot, vector v - metaSlots(), before releasing its first step's slot,
  /// in time exactly when (steps per vector) metaSlots() >= stepsPerSlot x
  /// stages.
  int64_t metaSlots() const {
    if (!metaThroughTma || denseA)
      return 0;
    int64_t steps = stepsPerSlot * stages;
    return (steps + stepsPerMetaVector() - 1) / stepsPerMetaVector();
  }
  /// One slot: a 2 KiB vector block (128 threads x 16 bytes) per 64-row
  /// tile of the block.
  static constexpr int64_t kMetaVectorBytes = 2048;
  int64_t metaSlotBytes() const {
    return blockRows / kWarpgroupRows * kMetaVectorBytes;
  }
  static constexpr int64_t kWarpgroupRows = 64;
  static constexpr int64_t kWarpgroupThreads = 128;
  static constexpr int64_t kAlignSlack = 1024;

  /// One consumer warpgroup per 64 rows, at most two; a 256-row block
  /// gives each of the two 128 rows, as two 64-row wgmma tiles with their
  /// own accumulators and metadata (warpgroupTiles() == 2).
  int64_t consumerWarpgroups() const {
    return std::min<int64_t>(blockRows / kWarpgroupRows, 2);
  }
  int64_t warpgroupTiles() const {
    return blockRows / kWarpgroupRows / consumerWarpgroups();
  }
  int64_t consumerThreads() const {
    return consumerWarpgroups() * kWarpgroupThreads;
  }
  /// Consumers, then the producer warpgroup (a whole warpgroup, so that
  /// setmaxnreg, which works per warpgroup, can move its registers to the
  /// consumers).
  int64_t threads() const { return consumerThreads() + kWarpgroupThreads; }
  /// setmaxnreg, for the tiles whose consumers need more than the 168
  /// registers a thread of a 384-thread block starts with (128 or more
  /// accumulators: 128 x 256, 256 x 128): the producer drops to 40 and the
  /// consumers rise to 232, which uses the 64 Ki register file exactly
  /// (128 x 40 + 256 x 232); the kernel is compiled for 168 at entry
  /// (.maxnreg), which ptxas needs to honour setmaxnreg. Narrower tiles
  /// need neither: fewer registers let two blocks share an SM where shared
  /// memory allows. 0: none.
  bool rebalancesRegisters() const {
    return consumerWarpgroups() == 2 && warpgroupTiles() * blockCols >= 256;
  }
  int64_t producerRegisters() const { return rebalancesRegisters() ? 40 : 0; }
  int64_t consumerRegisters() const { return rebalancesRegisters() ? 232 : 0; }
  int64_t launchRegisters() const { return rebalancesRegisters() ? 168 : 0; }
  int64_t bBytes() const { return blockCols * kRowBytes; }
  int64_t aBytes() const { return blockRows * aRowBytes(); }
  /// Bytes one K step's TMA copies deliver (the full boxes, as counted by
  /// the mbarrier's transaction count, zero-filled parts included), and a
  /// ring slot's: its steps' regions one after the other.
  int64_t stepBytes() const { return aBytes() + bBytes(); }
  int64_t stageBytes() const { return stepsPerSlot * stepBytes(); }
  /// The metadata ring follows the stages' slots (2 KiB multiples, so the
  /// barriers stay 8-byte aligned).
  int64_t metaOffset() const { return stages * stageBytes(); }
  int64_t barrierOffset() const {
    return metaOffset() + metaSlots() * metaSlotBytes();
  }
  /// Dynamic shared memory the kernel is launched with.
  int64_t sharedBytes() const {
    return barrierOffset() + 2 * 8 * stages + kAlignSlack;
  }
};

} // namespace mlir::stc::gpu_kernel

#endif // STC_PASSES_GPU_HOPPERKERNELSHAPE_H
