//===- MmaSpFragments.h - the pieces of the mma.sp kernels -----*- C++ -*-===//
//
// What the direct and staged sm_80 kernels share: the warp tile (32 or 64
// rows of 16-row mma.sp tiles by 32 or 64 columns of 8-column ones, the
// prologue's WarpTile), the staged kernel's
// shared-memory geometry, operand register packing, the lane's kernel-ready
// metadata words, one K step of 2 x 4 mma.sp, and the store of a warp
// tile's accumulators through the fused epilogue. Each takes what it needs
// explicitly.
//
//===----------------------------------------------------------------------===//
#ifndef STC_PASSES_GPU_MMASPFRAGMENTS_H
#define STC_PASSES_GPU_MMASPFRAGMENTS_H

#include "passes/GPU/Epilogue.h"
#include "passes/GPU/KernelIR.h"
#include "passes/GPU/KernelProblem.h"
#include "passes/GPU/KernelPrologue.h"

namespace mlir::stc::gpu_kernel {

/// K of one mma.sp instruction: 32 for f16/bf16 (2:4), 16 for tf32 (1:2),
/// 64 for i8 (2:4). (M and N, 16 and 8, are in KernelPrologue.h.)
constexpr int64_t kMmaK = 32;
constexpr int64_t kMmaKTf32 = 16;
constexpr int64_t kMmaKI8 = 64;
/// Rows of one block of the kernel-ready metadata (docs/GPU-LAYOUT.md).
constexpr int64_t kMetaBlockRows = 32;
/// The staged kernel: `stages` buffers of one K step each in shared memory,
/// A (block rows x 32 bytes of stored elements) then B (block cols p-rows
/// x 64 bytes, or 32 k-rows x block cols), 16-byte chunks swizzled so that
/// ldmatrix's 8 row addresses hit distinct banks.
constexpr int64_t kChunkBytes = 16;
/// The most static shared memory a kernel may declare.
constexpr int64_t kStaticSharedLimit = 48 * 1024;
constexpr int64_t kARowBytes = 32;
constexpr int64_t kDenseARowBytes = 64;
constexpr int64_t kBPMajorRowBytes = 64;

/// Shared-memory geometry of the staged kernel for a block tile. A K step
/// has the same bytes for every element type (f16/bf16: 32 k, tf32: 16 k,
/// i8: 64 k): 32 bytes of stored A values per row (64 for a dense S, whose
/// rows store all 32 k), 64 bytes of B per column. A k-major B (16-bit
/// elements only: ldmatrix.trans) is 32 rows of blockCols elements.
/// A stage holds `kSteps` K steps, each such a sub-step of stepBytes.
struct StagedLayout {
  int64_t threads, aRowBytes, aBytes, bBytes, bKMajorRowBytes, stepBytes,
      stageBytes;
  StagedLayout(int64_t blockRows, int64_t blockCols, int64_t elemBytes,
               WarpTile warp, int64_t kSteps = 1, bool denseS = false)
      : threads(warp.warpsIn(blockRows, blockCols) * kWarpSize),
        aRowBytes(denseS ? kDenseARowBytes : kARowBytes),
        aBytes(blockRows * aRowBytes), bBytes(blockCols * kBPMajorRowBytes),
        bKMajorRowBytes(blockCols * elemBytes), stepBytes(aBytes + bBytes),
        stageBytes(kSteps * stepBytes) {}
};

/// Shared memory of the staged kernel: its `stages` stages, and with
/// `vectorStores` at least every warp's staging region (FragmentStores.h),
/// which the epilogue lays over the stages once the last K step is read.
int64_t stagedSharedBytes(const Problem &pb, int64_t blockRows,
                          int64_t blockCols, WarpTile warp, int64_t stages,
                          int64_t kSteps, bool vectorStores);

/// Elements of one 16-byte cp.async chunk.
inline int64_t chunkElems(const Problem &pb) {
  return kChunkBytes / (pb.inputType.getIntOrFloatBitWidth() / 8);
}
/// Accumulator registers per mma: 4 (f32 or s32), or 2 f16x2.
inline int64_t accRegs(const Problem &pb) { return pb.f16Acc ? 2 : 4; }
/// The zero accumulators of a whole warp tile.
SmallVector<Value> zeroAccumulators(KernelIR &ir, const Problem &pb,
                                    WarpTile warp);

/// The 32-bit operand register of `elems` (1 tf32, 2 f16/bf16 or 4 i8):
/// vector<2xf16> for f16, i32 for the others (what nvvm.mma.sp.sync takes).
/// An f32 is rounded to tf32 (cvt.rna.tf32.f32, as cuBLAS does) rather
/// than left to mma.sp, which ignores the low 13 bits (truncation, a bias
/// that grows with K).
Value packRegister(KernelIR &ir, const Problem &pb, ArrayRef<Value> elems);

/// Where the lane's kernel-ready metadata words are (docs/GPU-LAYOUT.md),
/// computed once before a kernel's K loop: for each 32-row metadata block
/// its warp tile spans, whether the block exists (a ragged R's warps past
/// the last one read the padding word) and the index of its word of K
/// step 0 (of block 0 where it does not exist, so that no address leaves
/// the array).
struct MetadataStream {
  SmallVector<Value, 2> inBounds, first;
};
MetadataStream metadataStream(KernelIR &ir, const KernelPrologue &k);

/// The lane's metadata words for K step `step`: for f16/bf16/tf32 one
/// 32-bit load per block serves its two 16-row tiles, tile i reading word
/// i / 2 with selector F = i % 2; for i8 (m16n8k64, F = 0) each 16-row
/// tile has its own word, word i. With `lastStep`, a step past it (the
/// staged kernel's prefetch and the zero-filled sub-steps past K) reads
/// lastStep's words: legal words, over zeros.
SmallVector<Value, 2> metadataWords(KernelIR &ir, const Problem &pb,
                                    const KernelPrologue &k,
                                    const MetadataStream &stream, Value step,
                                    Value lastStep = Value());
/// Metadata words per K step of a warp tile: one per 16-row tile for i8,
/// one per 32-row block otherwise, none for a dense S.
inline int64_t metadataWordsPerStep(const Problem &pb, WarpTile warp) {
  if (pb.denseS)
    return 0;
  return pb.int8 ? warp.rowTiles() : warp.rows / kMetaBlockRows;
}

/// One K step of the warp tile: rowTiles x colTiles mma.sp on the A
/// registers of each 16-row tile, the B registers of each 8-column tile
/// and the metadata words, accumulating into `acc`; returns the new
/// accumulators.
SmallVector<Value> mmaSpStep(KernelIR &ir, const Problem &pb, WarpTile warp,
                             bool ordered,
                             ArrayRef<SmallVector<Value, 4>> aRegs,
                             ArrayRef<SmallVector<Value, 4>> bRegs,
                             ArrayRef<Value> metaWords, ValueRange acc);

/// One K step of 32 of the dense kernel (Problem::denseS): for each of the
/// rowTiles x colTiles tiles two mma.sync m16n8k16, on A registers 0-3
/// (k 0-15) and B registers 0-1, then A 4-7 (k 16-31) and B 2-3; A has
/// eight registers per 16-row tile, B the sparse kernel's four.
SmallVector<Value> denseMmaStep(KernelIR &ir, const Problem &pb, WarpTile warp,
                                ArrayRef<SmallVector<Value, 8>> aRegs,
                                ArrayRef<SmallVector<Value, 4>> bRegs,
                                ValueRange acc);

/// Stores the warp tile's accumulators through the epilogue, one element
/// at a time or (`staging`: the warp's region of shared memory, which no
/// other warp uses any more) as 16-byte vectors (FragmentStores.h), then
/// returns from the kernel.
void storeWarpTile(KernelIR &ir, const Problem &pb, const KernelPrologue &k,
                   ValueRange acc, Value staging = Value());

} // namespace mlir::stc::gpu_kernel

#endif // STC_PASSES_GPU_MMASPFRAGMENTS_H
