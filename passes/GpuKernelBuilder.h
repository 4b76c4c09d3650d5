//===- GpuKernelBuilder.h - shared pieces of the GPU kernel builders -*- C++
//-*-===//
//
// What stc-lower-spmm-to-gpu's kernel builders share: the canonical problem
// a stc.spmm or stc.conv maps to (Problem), the sm_80 mma.sp kernel builder
// (KernelBuilder: direct and staged kernels, LowerSpmmToGpu.cpp) and the
// sm_90a wgmma.mma_async.sp builder derived from it (HopperKernelBuilder,
// HopperKernelBuilder.cpp), which reuses its prologue, epilogue and helpers.
//
//===----------------------------------------------------------------------===//
#ifndef STC_PASSES_GPUKERNELBUILDER_H
#define STC_PASSES_GPUKERNELBUILDER_H

#include "dialects/Stc/StcOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

namespace mlir::stc::gpu_kernel {

/// The kernel's fixed shape (see the file comment). Warp tile 32 x 32: two
/// 16-row mma tiles by four 8-column ones.
constexpr int64_t kWarpSize = 32;
constexpr int64_t kWarpRows = 32;
constexpr int64_t kWarpCols = 32;
constexpr int64_t kMmaM = 16;
constexpr int64_t kMmaN = 8;
/// K of one instruction: 32 for f16/bf16 (2:4), 16 for tf32 (1:2), 64 for
/// i8 (2:4). In bytes of a K step, i8 and f16/bf16 are the same: 32 bytes
/// of stored A values per row and 64 bytes of B per column.
constexpr int64_t kMmaK = 32;
constexpr int64_t kMmaKTf32 = 16;
constexpr int64_t kMmaKI8 = 64;
constexpr int64_t kRowTiles = kWarpRows / kMmaM; // 2
constexpr int64_t kColTiles = kWarpCols / kMmaN; // 4
/// Metadata word for padding: every nibble 0x4 keeps elements (0, 1), a
/// legal pattern, of values that are zero.
/// The staged kernel: `stages` buffers of one K step each in shared memory,
/// A (block rows x 16 stored elements = 32 bytes each) then B (block cols
/// p-rows x 32 k = 64 bytes each, or 32 k-rows x block cols), 16-byte
/// chunks swizzled so that ldmatrix's 8 row addresses hit distinct banks.
constexpr int64_t kChunkBytes = 16;
/// 2^x, approximately (ex2.approx.f32), for the GELU epilogues.
constexpr llvm::StringLiteral kEx2Intrinsic = "llvm.nvvm.ex2.approx";
constexpr int64_t kARowBytes = 32;
constexpr int64_t kBPMajorRowBytes = 64;

/// The convolution behind an implicit GEMM (stc.conv): D[k][p] is the
/// im2col element of output pixel p = (n, oh, ow) and filter column
/// k = (kh, kw, c), gathered from the NHWC input.
struct ConvGeometry {
  int64_t kh, kw, strideH, strideW, dilationH, dilationW, padH, padW;
  /// Input channels per group, padded per group, and in all; output
  /// channels in all; groups.
  int64_t c, cp, ic, oc, groups;
};

/// How one stc.spmm or stc.conv maps onto the canonical problem.
struct Problem {
  bool sparseLhs;
  /// D[k][p] is at k * ld + p (true) or p * ld + k (false).
  bool denseKMajor;
  Type inputType; // f16, bf16, f32 (computed as tf32) or i8
  bool tf32;
  /// i8 operands: m16n8k64.s8 with s32 accumulators and the scaling
  /// epilogue.
  bool int8;
  Type outputType; // f32, f16, bf16, i8 or i32
  Type biasType, accType;
  bool hasBias, hasAcc, hasScale = false;
  double alpha, beta;
  Activation activation;
  /// Accumulate in f16 (f16 inputs only): C/D are 2 registers of f16x2
  /// per mma instead of 4 f32.
  bool f16Acc = false;
  /// Set for stc.conv: D is the implicit im2col matrix (p-major), R the
  /// output channels of one group, and block row tiles of all groups are
  /// stacked along the grid's y.
  std::optional<ConvGeometry> conv;
};

/// Builds the body of one kernel.
class KernelBuilder {
public:
  KernelBuilder(ImplicitLocOpBuilder &b, const Problem &problem,
                int64_t blockRows, int64_t blockCols, int64_t stages,
                bool ordered)
      : b(b), pb(problem), blockRows(blockRows), blockCols(blockCols),
        stages(stages), ordered(ordered) {}

  /// Emits the kernel body into the entry block of `func`, whose arguments
  /// follow kernelParamNames(): fragments loaded from global memory.
  void build(gpu::GPUFuncOp func);
  /// The same kernel with A and B staged through shared memory
  /// (`sharedMemory`, stages x StagedLayout::stageBytes) by a cp.async
  /// pipeline and read with ldmatrix (b16; for tf32 each 32-bit register is
  /// one element, rounded with cvt.rna.tf32.f32 as in build()). Needs
  /// 16-byte aligned rows of D and of the values, and for tf32 and i8 a
  /// p-major D (checked by the caller, or at run time by the host when a
  /// direct fallback exists).
  void buildStaged(gpu::GPUFuncOp func, LLVM::GlobalOp sharedMemory);

protected:
  Value i32(int64_t v) { return arith::ConstantIntOp::create(b, v, 32); }
  Value i64(int64_t v) { return arith::ConstantIntOp::create(b, v, 64); }
  Value f32(double v) {
    return arith::ConstantFloatOp::create(b, b.getF32Type(),
                                          APFloat(static_cast<float>(v)));
  }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, x, y); }
  Value lt(Value x, Value y) {
    return arith::CmpIOp::create(b, arith::CmpIPredicate::slt, x, y);
  }
  Value both(Value x, Value y) { return arith::AndIOp::create(b, x, y); }
  Value wide(Value v) { return arith::ExtSIOp::create(b, b.getI64Type(), v); }
  /// Element `index` (i64) of global array `base` (type `type`).
  Value loadAt(Value base, Type type, Value index) {
    Value ptr =
        LLVM::GEPOp::create(b, base.getType(), type, base, ValueRange{index});
    return LLVM::LoadOp::create(b, type, ptr);
  }
  /// loadAt when `inBounds`, else `fallback`; the address is clamped to
  /// element 0 so that no out-of-bounds address is ever formed.
  Value loadIf(Value inBounds, Value base, Type type, Value index,
               Value fallback) {
    Value safe = arith::SelectOp::create(b, inBounds, index, i64(0));
    Value v = loadAt(base, type, safe);
    return arith::SelectOp::create(b, inBounds, v, fallback);
  }
  int64_t mmaK() const {
    return pb.tf32 ? kMmaKTf32 : pb.int8 ? kMmaKI8 : kMmaK;
  }
  /// Elements of one 16-byte cp.async chunk.
  int64_t chunkElems() const {
    return kChunkBytes / (pb.inputType.getIntOrFloatBitWidth() / 8);
  }
  /// Accumulator registers per mma: 4 f32, or 2 f16x2.
  int64_t accRegs() const { return pb.f16Acc ? 2 : 4; }
  /// The zero accumulators of a whole warp tile.
  SmallVector<Value> zeroAccumulators() {
    Value zero = pb.f16Acc ? zeroOf(VectorType::get({2}, b.getF16Type()))
                 : pb.int8 ? i32(0)
                           : f32(0.0);
    return SmallVector<Value>(kRowTiles * kColTiles * accRegs(), zero);
  }
  Value zeroOf(Type t) {
    return arith::ConstantOp::create(b, t, b.getZeroAttr(t));
  }
  /// Two elements packed as one mma operand register: vector<2xf16> for
  /// f16, i32 for bf16 (what nvvm.mma.sp.sync takes for each).
  Value packPair(Value lo, Value hi);
  /// Four i8 elements packed as one i32 register (element 0 in the low
  /// byte), the form of every i8 mma operand register.
  Value packQuad(ArrayRef<Value> bytes);
  /// The 32-bit operand register of `elems` (1 tf32, 2 f16/bf16 or 4 i8).
  /// An f32 is rounded to tf32 (cvt.rna.tf32.f32, as cuBLAS does) rather
  /// than left to mma.sp, which ignores the low 13 bits (truncation, a
  /// bias that grows with K).
  Value packRegister(ArrayRef<Value> elems) {
    if (elems.size() == 4)
      return packQuad(elems);
    if (elems.size() == 2)
      return packPair(elems[0], elems[1]);
    return NVVM::ConvertFloatToTF32Op::create(b, b.getI32Type(), elems[0],
                                              NVVM::FPRoundingMode::RNA)
        .getResult();
  }
  Value activation(Value x);

  /// Kernel arguments and thread coordinates, and the pieces both kernels
  /// share.
  void prologue(gpu::GPUFuncOp func);
  /// The lane's kernel-ready metadata words for K step `step` of its
  /// warp's 32-row block (docs/GPU-LAYOUT.md), one per 16-row tile: for
  /// f16/bf16/tf32 one 32-bit load serves both tiles, tile i reading it with
  /// selector F = i; for i8 (m16n8k64, F = 0) each tile has its own word.
  SmallVector<Value, 2> metadataWords(Value step);
  SmallVector<Value> mmaStep(ArrayRef<SmallVector<Value, 4>> aRegs,
                             ArrayRef<SmallVector<Value, 4>> bRegs,
                             ArrayRef<Value> metaWords, ValueRange acc);
  void epilogue(ValueRange acc);
  /// Out[r][p] (canonical coordinates; nothing past R or P, nor where
  /// `alsoInBounds` is false) = the epilogue of accumulator `v` (f32, f16
  /// or, for i8, i32).
  void storeResult(Value v, Value r, Value p, Value alsoInBounds = Value());

  /// Where the implicit-GEMM gather of output pixel `p` starts: batch
  /// offset (in pixels) and the top-left input row and column of its
  /// receptive field; `ok` when p < P.
  struct PixelOrigin {
    Value ok, pixelBase, ih0, iw0;
  };
  PixelOrigin pixelOrigin(Value p);
  /// Element D[k][p] of the dense operand: (in bounds, i64 element index).
  /// For a convolution, out-of-image taps and padded channels are out of
  /// bounds (zeros).
  std::pair<Value, Value> denseElement(const PixelOrigin &origin, Value p,
                                       Value k);

  ImplicitLocOpBuilder &b;
  const Problem &pb;
  int64_t blockRows, blockCols, stages;
  bool ordered;
  Value values, meta, dense, bias, accIn, scale, out;
  Value rows, cols, depth, valueCols, metaCols, denseLd, steps;
  /// Kernel-ready metadata geometry: 32-row blocks of one group and
  /// 128-bit vectors per lane per block (ceil(steps / 4)).
  Value metaRowBlocks, metaVectors;
  /// Leading dimension of Out for a sparse rhs (R, or all output channels
  /// of a convolution); convolution sizes.
  Value outLd, batch, inH, inW, outH, outW;
  Value tid, lane, g, t, warpRow, warpCol, blockRow, blockCol, rowBase, colBase,
      inputZero;
};

/// Geometry of the sm_90a kernel (docs/HOPPER.md): one consumer warpgroup
/// per 64 rows of the block tile plus a producer warpgroup, and a ring of
/// `stages` shared-memory slots, each one K step (64 dense K of f16/bf16,
/// 128 of s8):
///   [B tile: blockCols x K step, 128-byte swizzled (K-major: one 128-byte
///    row per column; MN-major, f16/bf16 only: blockCols / 64 atoms of 64
///    k-rows x 128 bytes)]
///   [A values: blockRows x half a K step of stored elements, 64-byte
///    swizzled rows]
/// then two mbarriers per slot (full, empty). Every region starts on a
/// multiple of 1024 bytes (the 128-byte swizzle's period) from a base the
/// kernel rounds up to 1024, hence the 1 KiB of slack.
struct HopperKernelShape {
  int64_t blockRows = 128, blockCols = 128, stages = 4, clusterRows = 1;
  /// A through a shared-memory descriptor (the values tile as TMA wrote
  /// it), or from registers loaded with ld.shared. Either way each step
  /// waits for its wgmmas (HopperKernelBuilder.cpp says why).
  bool aFromSharedMemory = true;
  /// Convolutions: the block's B tile is TH x TW output pixels of one image
  /// (pixelTileH x pixelTileW = blockCols), gathered by one 4-D TMA box per
  /// K step (64 channels of one filter tap; needs C % 64 == 0).
  int64_t pixelTileH = 0, pixelTileW = 0;
  /// Grouped block order: the blocks of each group of groupRows row tiles
  /// (whole clusters) take their tiles column by column, so that the
  /// blocks in flight together read a few columns of B rather than all of
  /// them (0: block (x, y) computes column tile x of row tile y).
  int64_t groupRows = 0;
  /// TMA multicast of B (clusterRows == 2, GEMM): each block of the pair
  /// loads half of the B tile both share into both, so a block reads half
  /// of B from L2. The consumers release a slot in both blocks' `empty`.
  bool multicastB = false;

  /// Bytes per operand element: 2 (f16/bf16: m64nNk32, f32 accumulators)
  /// or 1 (s8: m64nNk64, s32 accumulators).
  int64_t elementBytes = 2;

  /// A K step (one ring slot) is one 128-byte swizzle row of B per column
  /// and one 64-byte row of stored A values per row: 64 dense K of f16/bf16
  /// or 128 of s8. Either way it is two wgmmas (k32 or k64), so every byte
  /// offset in the kernel is the same for both widths.
  static constexpr int64_t kRowBytes = 128;
  int64_t blockK() const { return kRowBytes / elementBytes; }
  int64_t storedK() const { return blockK() / 2; }
  /// Dense K of one wgmma (half a K step).
  int64_t instrK() const { return blockK() / 2; }
  /// Kernel-ready metadata words (StcHopperLayout.h) a thread uses per K
  /// step: f16/bf16 spends the selector's thread pairs on the two wgmmas
  /// of a step (one word, sp-sel 0 and 1); s8 reads every thread's word
  /// (sp-sel 0), one word per wgmma.
  int64_t metaWordsPerStep() const { return elementBytes == 1 ? 2 : 1; }
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
  int64_t aBytes() const { return blockRows * kRowBytes / 2; }
  /// Bytes one K step's TMA copies deliver (the full boxes, as counted by
  /// the mbarrier's transaction count, zero-filled parts included).
  int64_t stageBytes() const { return aBytes() + bBytes(); }
  int64_t barrierOffset() const { return stages * stageBytes(); }
  /// Dynamic shared memory the kernel is launched with.
  int64_t sharedBytes() const {
    return barrierOffset() + 2 * 8 * stages + kAlignSlack;
  }
};

/// Builds the sm_90a kernel: warp-specialised, TMA-fed
/// wgmma.mma_async.sp (HopperKernelBuilder.cpp has the picture). f16/bf16
/// operands with f32 accumulation, or s8 (a K-contiguous dense operand)
/// with s32 accumulation; the kernel-ready metadata in the Hopper
/// layout (runtime/format/StcHopperLayout.h); the parameters of the sm_80
/// kernels followed by the tensor maps of the values and of D.
class HopperKernelBuilder : public KernelBuilder {
public:
  HopperKernelBuilder(ImplicitLocOpBuilder &b, const Problem &problem,
                      const HopperKernelShape &shape)
      : KernelBuilder(b, problem, shape.blockRows, shape.blockCols,
                      shape.stages, /*ordered=*/false),
        shape(shape) {}

  /// Emits the body into `func` (its arguments: kernelParamNames() then
  /// values_map, dense_map); `sharedMemory` is the kernel's dynamic
  /// shared-memory array (an external !llvm.array<0 x i8> in address
  /// space 3).
  void build(gpu::GPUFuncOp func, LLVM::GlobalOp sharedMemory);

private:
  void producer(Value valuesMap, Value denseMap);
  void consumer();
  /// The mbarrier `full` (TMA bytes of a slot landed) or `empty` (the
  /// consumers are done with it) of `slot`.
  Value barrier(bool full, Value slot);
  /// The consumer thread's four kernel-ready metadata words 4v .. 4v + 3
  /// (256 dense K: four f16/bf16 K steps, two s8 ones) of 64-row tile
  /// `tile` (vector 0's words past the operand).
  SmallVector<Value, 4> metadataVector(Value v, Value tile);

  const HopperKernelShape &shape;
  /// Convolutions: the block's image and its first output row and column.
  Value convImage, convRow0, convCol0;
  /// The 1024-aligned start of the ring: pointer and 32-bit shared address.
  Value smem, smemAddress;
  Value kSteps, metaVectors, metaRowTiles, threadInGroup, warpInGroup,
      warpgroup;
  /// %cluster_ctarank (multicast only).
  Value clusterRank;
};

} // namespace mlir::stc::gpu_kernel

#endif // STC_PASSES_GPUKERNELBUILDER_H
