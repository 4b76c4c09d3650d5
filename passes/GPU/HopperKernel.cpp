//===- HopperKernel.cpp - the sm_90a wgmma.sp kernel ----------*- C++ -*-===//
//
// The kernel of family `wgmma` (sm_90a; f16/bf16
// operands with f32 accumulation, or s8 with s32): Out[R, P] = S[R, K] .
// D[K, P] in block tiles of BM x BN, one consumer warpgroup per 64 rows
// (BM = 64, 128), or two that compute two 64-row tiles each (BM = 256).
//
// A K step is the same bytes for both widths: one 128-byte row of B per
// column and a 64-byte row of stored A values per row, i.e. 64 dense K of
// f16/bf16 (two m64nBNk32 wgmmas, sp-sel 0 and 1, one metadata word) or 128
// of s8 (two m64nBNk64, sp-sel 0, a metadata word each). The text below
// counts in f16 elements.
//
//   threads [0, 128 * W)    W = min(BM / 64, 2) consumer warpgroups
//   threads [128 * W, +128) the producer warpgroup (one thread issues)
//
// Producer: for each K step s (64 dense K), waits until the consumers have
// released ring slot s % stages (mbarrier `empty`), announces the slot's
// bytes on mbarrier `full` (arrive.expect_tx) and issues the TMA copies
// (cp.async.bulk.tensor.2d) of the step's A values (BM x 32 stored
// elements, 64-byte swizzle) and B (BN x 64, 128-byte swizzle; one box for
// a p-major D, BN / 64 boxes of 64 x 64 for a k-major one). TMA fills
// everything past R, P or K with zeros, so ragged sizes need no code.
// Where a consumer thread holds 128 accumulators (128 x 256, 256 x 128),
// setmaxnreg moves registers from the producer (40) to the consumers (232).
//
// Consumers: wait on `full`, take the step's metadata word (one per thread
// per K step, read from global memory four steps at a time, the next
// vector loaded at the start of each step and used only from the step
// after; the Hopper kernel-ready layout of StcHopperLayout.h is made for
// that 128-bit load), and issue two wgmma.mma_async.sp m64nBNk32 (sp-sel 0
// and 1 for the two halves of the step) with B, and by default A, through
// matrix descriptors of the slot; then wgmma.wait_group 0 and the release
// of slot s on `empty`. The accumulators (BN / 2 f32 per thread) then go
// through the epilogue of HopperEpilogue.h: stored element by element, or
// staged in the ring and stored as 16-byte vectors.
//
// With two K steps a ring slot (HopperKernelShape::stepsPerSlot), a slot
// holds both steps' regions, and the consumers issue both steps' wgmmas
// (reading different metadata words) as one group before the wait: half
// the waits and releases per K.
//
// With the metadata through the ring (HopperKernelShape::metaThroughTma),
// the producer also copies, with the first K step of each vector, the
// vector's 2 KiB per 64-row tile (one 4-D box) into a small ring of its
// own, and each consumer reads its 16 bytes there after waiting on that
// step's `full`: the metadata is prefetched as deep as A and B, and no
// consumer thread waits on a global load.
//
// No wgmma group stays in flight into the next step: the sparse wgmma
// reads its metadata register while it runs, and the next step's word
// takes the same register (ptxas does not keep it apart). With one group
// in flight (wait_group 1, as dense wgmma kernels do) an H100/H200 gave
// nondeterministic results, 30-60 % wrong at BN = 256, where a wgmma runs
// longest (bench/results/gpu-gemm-20261126T104054Z-f7fcfb5.md); CUTLASS's
// sparse mainloop keeps no MMAs in flight for the same reason
// (K_PIPE_MMAS = 0). The tensor core is kept busy across the wait by the
// other consumer warpgroup and by the TMA ring.
//
// A dense S (Problem::denseS, a contraction that stays dense: DenseGemm.h)
// runs on the same kernel with the dense wgmma (upstream's
// nvvm.wgmma.mma_async, m64nBNk16): the A tile is BM x 64 with 128-byte
// rows and the 128-byte swizzle, like B's, a K step is four wgmmas per
// 64-row tile, and there is no metadata. Without a metadata register to
// share, each step's group stays in flight while the consumers wait for
// the next slot (wgmma.wait_group 1), and the slot of the step before goes
// back to the producer, as dense wgmma kernels do.
//
// The other A source (HopperKernelShape::aFromSharedMemory false) loads
// the A fragments from the swizzled values with ld.shared (conflict-free):
// it rests on the register layout of A rather than on the shared-memory
// one (docs/HOPPER-LAYOUT.md).
//
//===----------------------------------------------------------------------===//
#include "passes/GPU/HopperKernel.h"
#include "passes/GPU/HopperEpilogue.h"
#include "passes/GPU/KernelIR.h"
#include "passes/GPU/KernelPrologue.h"

#include "dialects/StcGpu/StcGpuOps.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include "runtime/format/StcHopperLayout.h"

using namespace mlir;
using namespace mlir::stc;
using namespace mlir::stc::gpu_kernel;

namespace {

/// Suspend-time hint of mbarrier.try_wait (ns), as CUTLASS uses.
constexpr int64_t kTryWaitTicks = 0x989680;

::stc::format::HopperSmemTile bTile(const HopperKernelShape &shape,
                                    bool denseKMajor) {
  ::stc::format::HopperSmemTile tile;
  tile.swizzle = ::stc::format::HopperSwizzle::B128;
  // D[k][p] with p contiguous (k-major D) is B stored MN-major.
  tile.mnMajor = denseKMajor;
  tile.elementBits = static_cast<int>(8 * shape.elementBytes);
  tile.mnRows = static_cast<int>(shape.blockCols);
  tile.kCols = static_cast<int>(shape.blockK());
  return tile;
}

/// Each of `values` (f32 or i32) through an empty volatile inline asm that
/// reads and writes it ("+f" or "+r"): code that uses the accumulators cannot
/// move across it, so nothing reads them between a wgmma and the
/// wgmma.wait_group that completes it (LLVM does not know that the wait
/// defines them; ptxas would otherwise serialize the wgmmas).
void fenceOperands(ImplicitLocOpBuilder &b, SmallVectorImpl<Value> &values) {
  for (Value &v : values)
    v = LLVM::InlineAsmOp::create(
            b, v.getType(), ValueRange{v}, /*asm_string=*/"",
            /*constraints=*/v.getType().isF32() ? "=f,0" : "=r,0",
            /*has_side_effects=*/true,
            /*is_align_stack=*/false, LLVM::TailCallKind::None,
            LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
            /*operand_attrs=*/ArrayAttr())
            .getResult(0);
}

/// What the producer and the consumers of one block share, computed once
/// at the start of the kernel.
struct HopperFrame {
  /// Parameters and thread coordinates.
  KernelPrologue kp;
  /// First row and column of the block's tile (the grouped block order
  /// remaps them).
  Value blockRow, blockCol;
  /// Convolutions: the block's image and its first output row and column.
  Value convImage, convRow0, convCol0;
  /// The 1024-aligned start of the ring: pointer and 32-bit shared address.
  Value smem, smemAddress;
  /// K steps, and fills of the ring (K steps / steps per slot).
  Value kSteps, kSlots;
  /// %cluster_ctarank (multicast only).
  Value clusterRank;
};

/// The mbarrier `full` (TMA bytes of a slot landed) or `empty` (the
/// consumers are done with it) of `slot`.
Value barrier(KernelIR &ir, const HopperKernelShape &shape,
              const HopperFrame &f, bool full, Value slot);

/// The consumer thread's source of kernel-ready metadata vectors: the
/// operand, its 64-row tiles and 128-bit vectors per thread and tile, and
/// the thread's index in its warpgroup.
struct MetaVectorSource {
  Value meta, rowTiles, vectors, threadInGroup;
};
/// The thread's four kernel-ready metadata words 4v .. 4v + 3 (256 dense
/// K: four f16/bf16 K steps, two s8 ones) of 64-row tile `rowTile` (vector
/// 0's words past the operand).
SmallVector<Value, 4> metadataVector(KernelIR &ir, const MetaVectorSource &m,
                                     Value v, Value rowTile);

/// The consumer thread's metadata words for K step `s` (`which` = s % the
/// steps of a vector) from the ring: at the first step of a vector, the
/// vector of each of its 64-row tiles from the vector's metadata slot (a
/// tile past R, which TMA zero-filled, gets legal words instead: its rows
/// of A are zeros); otherwise `current`.
SmallVector<SmallVector<Value, 4>, 2>
metadataFromRing(KernelIR &ir, const HopperKernelShape &shape,
                 const HopperFrame &f, Value s, Value which,
                 ArrayRef<Value> tileInBlock, ArrayRef<Value> rowTiles,
                 Value metaRowTiles, Value threadInGroup,
                 ArrayRef<SmallVector<Value, 4>> current);

/// The TMA copies of K step `s` (A values and B) into the step's region at
/// `slotBase`, completing on `full`.
void emitStepCopies(KernelIR &ir, const Problem &pb,
                    const HopperKernelShape &shape, const HopperFrame &f,
                    Value s, Value slotBase, Value full, Value valuesMap,
                    Value denseMap);

/// The producer warpgroup: one thread fills the ring with TMA copies.
void emitProducer(KernelIR &ir, const Problem &pb,
                  const HopperKernelShape &shape, const HopperFrame &f,
                  Value valuesMap, Value denseMap, Value metaMap);
/// The consumer warpgroups: wgmma.mma_async.sp on each slot, then the
/// epilogue.
void emitConsumers(KernelIR &ir, const Problem &pb,
                   const HopperKernelShape &shape, const HopperFrame &f);

} // namespace

namespace {

Value barrier(KernelIR &ir, const HopperKernelShape &shape,
              const HopperFrame &f, bool full, Value slot) {
  ImplicitLocOpBuilder &b = ir.b;
  Value offset =
      ir.add(ir.i32(shape.barrierOffset() + (full ? 0 : 8 * shape.stages)),
             ir.mul(slot, ir.i32(8)));
  return LLVM::GEPOp::create(b, f.smem.getType(), b.getI8Type(), f.smem,
                             ValueRange{offset});
}

SmallVector<Value, 4> metadataVector(KernelIR &ir, const MetaVectorSource &m,
                                     Value v, Value rowTile) {
  ImplicitLocOpBuilder &b = ir.b;
  // Word s of thread T of 64-row tile rt is at ((rt V + s / 4) 128 + T) 4
  // + s % 4 (wgmmaSpMetaWordIndex): vector v is one aligned 128-bit load.
  // Past the operand (a row tile of a block's second warpgroup beyond R, a
  // vector prefetched beyond the last) the load reads vector 0 instead:
  // any word the conversion wrote is legal metadata, and such words meet
  // only rows of A that TMA filled with zeros or are never used. The
  // loaded value is not touched here: a select on it would make the
  // thread wait for the load at once (on an H200 38 % of the consumers'
  // stall cycles were that wait, bench/results/sm90a-knobs-*/ncu-*.txt),
  // while its first use is four K steps later.
  Value ok = ir.both(ir.lt(rowTile, m.rowTiles), ir.lt(v, m.vectors));
  Value index =
      ir.mul(ir.add(ir.mul(ir.add(ir.mul(ir.wide(rowTile), ir.wide(m.vectors)),
                                  ir.wide(v)),
                           ir.i64(128)),
                    ir.wide(m.threadInGroup)),
             ir.i64(4));
  Value safe = arith::SelectOp::create(b, ok, index, ir.i64(0));
  auto vecType = VectorType::get({4}, b.getI32Type());
  Value ptr = LLVM::GEPOp::create(b, m.meta.getType(), b.getI32Type(), m.meta,
                                  ValueRange{safe});
  Value vec = LLVM::LoadOp::create(b, vecType, ptr, /*alignment=*/16);
  SmallVector<Value, 4> words;
  for (int64_t i = 0; i < 4; ++i)
    words.push_back(LLVM::ExtractElementOp::create(b, vec, ir.i32(i)));
  return words;
}

SmallVector<SmallVector<Value, 4>, 2>
metadataFromRing(KernelIR &ir, const HopperKernelShape &shape,
                 const HopperFrame &f, Value s, Value which,
                 ArrayRef<Value> tileInBlock, ArrayRef<Value> rowTiles,
                 Value metaRowTiles, Value threadInGroup,
                 ArrayRef<SmallVector<Value, 4>> current) {
  ImplicitLocOpBuilder &b = ir.b;
  SmallVector<Type> types;
  SmallVector<Value> currentFlat;
  for (const SmallVector<Value, 4> &words : current)
    for (Value w : words) {
      types.push_back(w.getType());
      currentFlat.push_back(w);
    }
  auto first = scf::IfOp::create(
      b, types,
      arith::CmpIOp::create(b, arith::CmpIPredicate::eq, which, ir.i32(0)),
      /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(first.thenBlock());
    Value v = arith::DivUIOp::create(b, s, ir.i32(shape.stepsPerMetaVector()));
    Value metaSlot = arith::RemUIOp::create(b, v, ir.i32(shape.metaSlots()));
    // Thread T's 16 bytes of tile m's 2 KiB block (conflict-free: a warp
    // reads 512 contiguous bytes).
    Value slotOffset =
        ir.add(ir.add(ir.i32(shape.metaOffset()),
                      ir.mul(metaSlot, ir.i32(shape.metaSlotBytes()))),
               ir.mul(threadInGroup, ir.i32(16)));
    // Any legal word will do past R: 0x4 is the pair (0, 1) in every nibble.
    Value legal = ir.i32(0x44444444);
    auto vecType = VectorType::get({4}, b.getI32Type());
    SmallVector<Value> loaded;
    for (auto [m, tile] : llvm::enumerate(tileInBlock)) {
      Value offset =
          ir.add(slotOffset,
                 ir.mul(tile, ir.i32(HopperKernelShape::kMetaVectorBytes)));
      Value ptr = LLVM::GEPOp::create(b, f.smem.getType(), b.getI8Type(),
                                      f.smem, ValueRange{offset});
      Value vec = LLVM::LoadOp::create(b, vecType, ptr, /*alignment=*/16);
      Value inside = ir.lt(rowTiles[m], metaRowTiles);
      for (int64_t i = 0; i < 4; ++i)
        loaded.push_back(arith::SelectOp::create(
            b, inside, LLVM::ExtractElementOp::create(b, vec, ir.i32(i)),
            legal));
    }
    scf::YieldOp::create(b, loaded);
    b.setInsertionPointToStart(first.elseBlock());
    scf::YieldOp::create(b, currentFlat);
  }
  SmallVector<SmallVector<Value, 4>, 2> result;
  for (size_t m = 0; m < current.size(); ++m)
    result.emplace_back(first.getResults().begin() + 4 * m,
                        first.getResults().begin() + 4 * (m + 1));
  return result;
}

/// The consumers are done with ring slot `slot`: one arrival of this
/// thread on the slot's `empty`, and with multicast on the partner block's
/// too (its producer writes half of the slot in both blocks).
void releaseSlot(KernelIR &ir, const HopperKernelShape &shape,
                 const HopperFrame &f, Value slot) {
  ImplicitLocOpBuilder &b = ir.b;
  Value empty = barrier(ir, shape, f, false, slot);
  NVVM::MBarrierArriveOp::create(b, /*res=*/Type(), empty,
                                 /*count=*/Value(), NVVM::MemScopeKindAttr());
  if (!shape.multicastB)
    return;
  Value peer = arith::XOrIOp::create(b, f.clusterRank, ir.i32(1));
  Value remote = NVVM::MapaOp::create(
      b, LLVM::LLVMPointerType::get(b.getContext(), 7), empty, peer);
  NVVM::MBarrierArriveOp::create(
      b, /*res=*/Type(), remote, /*count=*/Value(),
      NVVM::MemScopeKindAttr::get(b.getContext(), NVVM::MemScopeKind::CLUSTER));
}

/// One dense wgmma (upstream's nvvm.wgmma.mma_async, m64nBNk16 for
/// f16/bf16) on the f32 accumulators `acc` of a 64-row tile: A K-major
/// (row) through `aDesc`, B K-major (col) or, for a k-major D, MN-major
/// (row) through `bDesc`. Returns the new accumulators.
SmallVector<Value> denseWgmma(KernelIR &ir, const Problem &pb,
                              const HopperKernelShape &shape, ValueRange acc,
                              Value aDesc, Value bDesc) {
  ImplicitLocOpBuilder &b = ir.b;
  MLIRContext *ctx = b.getContext();
  auto structType = LLVM::LLVMStructType::getLiteral(
      ctx, SmallVector<Type>(acc.size(), acc.front().getType()));
  Value in = LLVM::UndefOp::create(b, structType);
  for (auto [i, v] : llvm::enumerate(acc))
    in = LLVM::InsertValueOp::create(b, in, v, static_cast<int64_t>(i));
  NVVM::WGMMATypes type =
      pb.inputType.isBF16() ? NVVM::WGMMATypes::bf16 : NVVM::WGMMATypes::f16;
  auto mma = NVVM::WgmmaMmaAsyncOp::create(
      b, structType, in, aDesc, bDesc,
      NVVM::MMAShapeAttr::get(ctx, HopperKernelShape::kWarpgroupRows,
                              static_cast<int>(shape.blockCols),
                              static_cast<int>(shape.instrK())),
      type, type, NVVM::WGMMATypes::f32, NVVM::WGMMAScaleOut::one,
      NVVM::WGMMAScaleIn::one, NVVM::WGMMAScaleIn::one, NVVM::MMALayout::row,
      pb.denseKMajor ? NVVM::MMALayout::row : NVVM::MMALayout::col,
      /*satfinite=*/NVVM::MMAIntOverflowAttr());
  SmallVector<Value> out;
  for (int64_t i = 0, e = acc.size(); i < e; ++i)
    out.push_back(LLVM::ExtractValueOp::create(b, mma.getResult(), i));
  return out;
}

} // namespace

void mlir::stc::gpu_kernel::buildHopperKernel(ImplicitLocOpBuilder &b,
                                              const Problem &pb,
                                              const HopperKernelShape &shape,
                                              gpu::GPUFuncOp func,
                                              LLVM::GlobalOp sharedMemory) {
  KernelIR ir(b);
  HopperFrame f;
  f.kp = emitKernelPrologue(ir, pb, shape.blockRows, shape.blockCols, func);
  f.blockRow = f.kp.blockRow;
  f.blockCol = f.kp.blockCol;
  // The tensor maps are the last parameters: values, dense and, when the
  // metadata comes through the ring, meta.
  Block &entry = func.getBody().front();
  unsigned maps = shape.metaSlots() ? 3 : 2;
  unsigned firstMap = entry.getNumArguments() - maps;
  Value valuesMap = entry.getArgument(firstMap);
  Value denseMap = entry.getArgument(firstMap + 1);
  Value metaMap = shape.metaSlots() ? entry.getArgument(firstMap + 2) : Value();

  // The ring starts at the dynamic shared memory rounded up to 1024 bytes.
  auto sharedPtr = LLVM::LLVMPointerType::get(b.getContext(), 3);
  Value raw =
      LLVM::AddressOfOp::create(b, sharedPtr, sharedMemory.getSymNameAttr());
  Value rawAddress = LLVM::PtrToIntOp::create(b, b.getI32Type(), raw);
  Value pad = arith::AndIOp::create(
      b,
      arith::SubIOp::create(b, ir.i32(HopperKernelShape::kAlignSlack),
                            arith::AndIOp::create(b, rawAddress, ir.i32(1023))),
      ir.i32(1023));
  f.smem =
      LLVM::GEPOp::create(b, sharedPtr, b.getI8Type(), raw, ValueRange{pad});
  f.smemAddress = ir.add(rawAddress, pad);
  f.kSteps = arith::DivUIOp::create(
      b, ir.add(f.kp.args.depth, ir.i32(shape.blockK() - 1)),
      ir.i32(shape.blockK()));
  // Two steps a slot: the configuration checked that K has whole pairs.
  f.kSlots =
      shape.stepsPerSlot == 1
          ? f.kSteps
          : arith::DivUIOp::create(b, f.kSteps, ir.i32(shape.stepsPerSlot));
  // The block's column tile (conv: pixel tile) and row tile. A pointwise
  // convolution without pixel tiles has its columns tiled flat: from here
  // on it is the GEMM of a sparse rhs whose dense operand (the input as the
  // [N*H*W, C] matrix) has K contiguous.
  Value tileX = ir.toI32(gpu::BlockIdOp::create(b, gpu::Dimension::x));
  Value tileY = ir.toI32(gpu::BlockIdOp::create(b, gpu::Dimension::y));
  if (shape.groupRows) {
    // The grid as the host sizes it (KernelInfoAttr::getGridX, stc-gpu-host-
    // launch), from the kernel's own parameters.
    Value gridX =
        shape.tilesPerImage()
            ? ir.mul(ir.mul(f.kp.args.batch,
                            ir.ceilDiv(f.kp.args.outH, shape.pixelTileH)),
                     ir.ceilDiv(f.kp.args.outW, shape.pixelTileW))
            : ir.ceilDiv(f.kp.args.cols, shape.blockCols);
    std::tie(tileX, tileY) = groupedBlockOrder(
        ir, tileX, tileY, gridX, ir.ceilDiv(f.kp.args.rows, shape.blockRows),
        shape.groupRows, shape.clusterRows);
    f.blockRow = ir.mul(tileY, ir.i32(shape.blockRows));
    f.blockCol = ir.mul(tileX, ir.i32(shape.blockCols));
  }
  if (shape.tilesPerImage()) {
    // Block x = (image, tile row, tile column) of the output's pixel tiles.
    Value tilesW = ir.ceilDiv(f.kp.args.outW, shape.pixelTileW);
    Value tilesH = ir.ceilDiv(f.kp.args.outH, shape.pixelTileH);
    Value bx = tileX;
    f.convCol0 =
        ir.mul(arith::RemUIOp::create(b, bx, tilesW), ir.i32(shape.pixelTileW));
    Value rest = arith::DivUIOp::create(b, bx, tilesW);
    f.convRow0 = ir.mul(arith::RemUIOp::create(b, rest, tilesH),
                        ir.i32(shape.pixelTileH));
    f.convImage = arith::DivUIOp::create(b, rest, tilesH);
  }

  // Thread 0 initialises the barriers: `full` completes with the
  // producer's one arrival plus the slot's TMA bytes, `empty` with one
  // arrival of every consumer thread (with multicast, of both blocks of the
  // cluster: a slot is refilled in both at once).
  Value consumerThreads = ir.i32(shape.consumerThreads());
  Value releases = ir.i32(shape.consumerThreads() *
                          (shape.multicastB ? shape.clusterRows : 1));
  {
    auto first = scf::IfOp::create(
        b,
        arith::CmpIOp::create(b, arith::CmpIPredicate::eq, f.kp.tid, ir.i32(0)),
        /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(first.thenBlock());
    for (int64_t s = 0; s < shape.stages; ++s) {
      NVVM::MBarrierInitOp::create(b, barrier(ir, shape, f, true, ir.i32(s)),
                                   ir.i32(1), /*predicate=*/Value());
      NVVM::MBarrierInitOp::create(b, barrier(ir, shape, f, false, ir.i32(s)),
                                   releases, /*predicate=*/Value());
    }
    NVVM::FenceMbarrierInitOp::create(b);
  }
  gpu::BarrierOp::create(b);
  // Multicast: the partner block's copies and arrivals reach this block's
  // barriers, so both blocks' barriers exist before either starts, and
  // neither leaves while the other may still signal it.
  auto clusterSync = [&] {
    NVVM::ClusterArriveOp::create(b, /*aligned=*/UnitAttr());
    NVVM::ClusterWaitOp::create(b, /*aligned=*/UnitAttr());
  };
  if (shape.multicastB) {
    clusterSync();
    f.clusterRank = NVVM::ClusterId::create(b, b.getI32Type());
  }

  auto role =
      scf::IfOp::create(b,
                        arith::CmpIOp::create(b, arith::CmpIPredicate::uge,
                                              f.kp.tid, consumerThreads),
                        /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(role.thenBlock());
    emitProducer(ir, pb, shape, f, valuesMap, denseMap, metaMap);
    b.setInsertionPointToStart(role.elseBlock());
    emitConsumers(ir, pb, shape, f);
  }
  if (shape.multicastB)
    clusterSync();
  gpu::ReturnOp::create(b);
}

namespace {

void emitProducer(KernelIR &ir, const Problem &pb,
                  const HopperKernelShape &shape, const HopperFrame &f,
                  Value valuesMap, Value denseMap, Value metaMap) {
  ImplicitLocOpBuilder &b = ir.b;
  // The producer warpgroup gives registers to the consumers (it needs few).
  if (shape.producerRegisters())
    NVVM::SetMaxRegisterOp::create(
        b, b.getI32IntegerAttr(shape.producerRegisters()),
        NVVM::SetMaxRegisterActionAttr::get(
            b.getContext(), NVVM::SetMaxRegisterAction::decrease));
  // One thread of the producer warpgroup issues everything.
  auto issuer = scf::IfOp::create(
      b,
      arith::CmpIOp::create(b, arith::CmpIPredicate::eq, f.kp.tid,
                            ir.i32(shape.consumerThreads())),
      /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(issuer.thenBlock());
  // Fill t of the ring brings K steps s = t k .. t k + k - 1 (k steps per
  // slot) into slot t % stages.
  auto loop = scf::ForOp::create(b, ir.i32(0), f.kSlots, ir.i32(1));
  b.setInsertionPointToStart(loop.getBody());
  Value t = loop.getInductionVar();
  Value s = ir.mul(t, ir.i32(shape.stepsPerSlot));
  Value slot = arith::RemUIOp::create(b, t, ir.i32(shape.stages));
  Value round = arith::DivUIOp::create(b, t, ir.i32(shape.stages));
  // Round r refills the slot after the consumers' r-th release, which
  // completes phase r - 1 of `empty`: wait for parity (r - 1) & 1. In round
  // 0 that is parity 1 of a fresh barrier (phase 0), which passes at once.
  Value parity = arith::XOrIOp::create(
      b, arith::AndIOp::create(b, round, ir.i32(1)), ir.i32(1));
  NVVM::MBarrierTryWaitParityOp::create(b, barrier(ir, shape, f, false, slot),
                                        parity, ir.i32(kTryWaitTicks));
  Value full = barrier(ir, shape, f, true, slot);
  // The first step of a metadata vector also brings the vector (its
  // 64-row tiles' 2 KiB blocks, zero-filled past R).
  Value vectorStep, stepBytes = ir.i32(shape.stageBytes());
  if (shape.metaSlots()) {
    vectorStep = arith::CmpIOp::create(
        b, arith::CmpIPredicate::eq,
        arith::RemUIOp::create(b, s, ir.i32(shape.stepsPerMetaVector())),
        ir.i32(0));
    stepBytes = arith::SelectOp::create(
        b, vectorStep, ir.i32(shape.stageBytes() + shape.metaSlotBytes()),
        stepBytes);
  }
  NVVM::MBarrierArriveExpectTxOp::create(b, /*res=*/Type(), full, stepBytes,
                                         NVVM::MemScopeKindAttr(), BoolAttr(),
                                         /*predicate=*/Value());
  Value slotBase = ir.mul(slot, ir.i32(shape.stageBytes()));
  // The slot's K steps, each in its own region.
  for (int64_t j = 0; j < shape.stepsPerSlot; ++j)
    emitStepCopies(ir, pb, shape, f, ir.add(s, ir.i32(j)),
                   ir.add(slotBase, ir.i32(j * shape.stepBytes())), full,
                   valuesMap, denseMap);
  auto clusterPtr = LLVM::LLVMPointerType::get(b.getContext(), 7);
  if (vectorStep) {
    // Metadata vector v = s / (steps per vector) into slot v % metaSlots:
    // the map sees the words as [row tile][vector][2][256] (LowerSpmmToGpu),
    // one box of 256 x 2 x 1 x BM / 64 at (0, 0, v, blockRow / 64).
    auto ifVector = scf::IfOp::create(b, vectorStep, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard vectorGuard(b);
    b.setInsertionPointToStart(ifVector.thenBlock());
    Value v = arith::DivUIOp::create(b, s, ir.i32(shape.stepsPerMetaVector()));
    Value metaSlot = arith::RemUIOp::create(b, v, ir.i32(shape.metaSlots()));
    Value offset = ir.add(ir.i32(shape.metaOffset()),
                          ir.mul(metaSlot, ir.i32(shape.metaSlotBytes())));
    Value dst = LLVM::GEPOp::create(b, f.smem.getType(), b.getI8Type(), f.smem,
                                    ValueRange{offset});
    Value rowTile = arith::DivUIOp::create(
        b, f.blockRow, ir.i32(HopperKernelShape::kWarpgroupRows));
    NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
        b, LLVM::AddrSpaceCastOp::create(b, clusterPtr, dst), metaMap,
        ValueRange{ir.i32(0), ir.i32(0), v, rowTile}, full, ValueRange{},
        /*multicastMask=*/Value(), /*l2CacheHint=*/Value(),
        NVVM::TMALoadModeAttr(), BoolAttr(), NVVM::CTAGroupKindAttr(),
        /*predicate=*/Value());
  }
}

void emitStepCopies(KernelIR &ir, const Problem &pb,
                    const HopperKernelShape &shape, const HopperFrame &f,
                    Value s, Value slotBase, Value full, Value valuesMap,
                    Value denseMap) {
  ImplicitLocOpBuilder &b = ir.b;
  auto clusterPtr = LLVM::LLVMPointerType::get(b.getContext(), 7);
  // A batch of matrices: 4-D maps (a 3-D operand under an outer dimension
  // of 1), the box at the block's matrix.
  SmallVector<Value, 2> batchCoords;
  if (f.kp.batchElement)
    batchCoords = {f.kp.batchElement, ir.i32(0)};
  auto copy = [&](Value offset, Value map, Value x, Value y,
                  Value multicastMask = Value()) {
    Value dst = LLVM::GEPOp::create(b, f.smem.getType(), b.getI8Type(), f.smem,
                                    ValueRange{offset});
    Value dstCluster = LLVM::AddrSpaceCastOp::create(b, clusterPtr, dst);
    SmallVector<Value, 4> coords = {x, y};
    coords.append(batchCoords.begin(), batchCoords.end());
    NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
        b, dstCluster, map, coords, full, ValueRange{}, multicastMask,
        /*l2CacheHint=*/Value(), NVVM::TMALoadModeAttr(), BoolAttr(),
        NVVM::CTAGroupKindAttr(),
        /*predicate=*/Value());
  };
  // A values: box of half a K step of stored columns (32 f16/bf16, 64 s8)
  // x BM rows at (that width x s, blockRow).
  copy(ir.add(slotBase, ir.i32(shape.bBytes())), valuesMap,
       ir.mul(s, ir.i32(shape.storedK())), f.blockRow);
  Value k0 = ir.mul(s, ir.i32(shape.blockK()));
  if (pb.conv && shape.tilesPerImage()) {
    // K step s is 64 channels of one tap (C % 64 == 0): tap s / (C / 64),
    // channels 64 (s % (C / 64)) ... One 4-D box of the NHWC input, at the
    // tile's receptive field shifted by the tap; TMA's zero fill is the
    // padding, its element strides the convolution's.
    const ConvGeometry &cg = *pb.conv;
    int64_t blocksPerTap = cg.c / shape.blockK();
    Value tap = arith::DivUIOp::create(b, s, ir.i32(blocksPerTap));
    Value channel = ir.mul(arith::RemUIOp::create(b, s, ir.i32(blocksPerTap)),
                           ir.i32(shape.blockK()));
    Value tapRow = arith::DivUIOp::create(b, tap, ir.i32(cg.kw));
    Value tapCol = arith::RemUIOp::create(b, tap, ir.i32(cg.kw));
    Value x =
        ir.add(arith::SubIOp::create(b, ir.mul(f.convCol0, ir.i32(cg.strideW)),
                                     ir.i32(cg.padW)),
               ir.mul(tapCol, ir.i32(cg.dilationW)));
    Value y =
        ir.add(arith::SubIOp::create(b, ir.mul(f.convRow0, ir.i32(cg.strideH)),
                                     ir.i32(cg.padH)),
               ir.mul(tapRow, ir.i32(cg.dilationH)));
    Value dst = LLVM::GEPOp::create(b, f.smem.getType(), b.getI8Type(), f.smem,
                                    ValueRange{slotBase});
    NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
        b, LLVM::AddrSpaceCastOp::create(b, clusterPtr, dst), denseMap,
        ValueRange{channel, x, y, f.convImage}, full, ValueRange{},
        /*multicastMask=*/Value(), /*l2CacheHint=*/Value(),
        NVVM::TMALoadModeAttr(), BoolAttr(), NVVM::CTAGroupKindAttr(),
        /*predicate=*/Value());
  } else {
    // The part of B's tile this block loads: all of it, or with multicast
    // the half of rank r (the pair shares the tile's columns), written into
    // both blocks (mask 0b11; each block's `full` counts both halves).
    const int64_t parts = shape.multicastB ? 2 : 1;
    Value mask =
        shape.multicastB ? arith::ConstantIntOp::create(b, 0b11, 16) : Value();
    // `base` moved to this block's part, whose size is `unit`.
    auto inPart = [&](Value base, int64_t unit) {
      return shape.multicastB
                 ? ir.add(base, ir.mul(f.clusterRank, ir.i32(unit)))
                 : base;
    };
    if (!pb.denseKMajor) {
      // D p-major (rows of K): one box of a K step (64 k f16/bf16, 128 s8)
      // x BN / parts p at (K step x s, blockCol + part BN / parts).
      int64_t partCols = shape.blockCols / parts;
      Value col = inPart(f.blockCol, partCols);
      Value dst = inPart(slotBase, partCols * HopperKernelShape::kRowBytes);
      copy(dst, denseMap, k0, col, mask);
    } else {
      // D k-major (rows of P; f16/bf16 only): BN / 64 boxes of 64 p x 64 k,
      // atom a of the MN-major tile at 8 KiB a; this block's part of them.
      int64_t atomBytes = shape.blockK() * HopperKernelShape::kRowBytes;
      int64_t partAtoms = shape.blockCols / 64 / parts;
      Value col = inPart(f.blockCol, partAtoms * 64);
      Value dst = inPart(slotBase, partAtoms * atomBytes);
      for (int64_t a = 0; a < partAtoms; ++a)
        copy(ir.add(dst, ir.i32(a * atomBytes)), denseMap,
             ir.add(col, ir.i32(64 * a)), k0, mask);
    }
  }
}

void emitConsumers(KernelIR &ir, const Problem &pb,
                   const HopperKernelShape &shape, const HopperFrame &f) {
  ImplicitLocOpBuilder &b = ir.b;
  using namespace ::stc::format;
  if (shape.consumerRegisters())
    NVVM::SetMaxRegisterOp::create(
        b, b.getI32IntegerAttr(shape.consumerRegisters()),
        NVVM::SetMaxRegisterActionAttr::get(
            b.getContext(), NVVM::SetMaxRegisterAction::increase));
  Value warpgroup = arith::DivUIOp::create(
      b, f.kp.tid, ir.i32(HopperKernelShape::kWarpgroupThreads));
  Value threadInGroup = arith::RemUIOp::create(
      b, f.kp.tid, ir.i32(HopperKernelShape::kWarpgroupThreads));
  Value warpInGroup =
      arith::DivUIOp::create(b, threadInGroup, ir.i32(kWarpSize));
  // The 64-row tiles of this warpgroup: m = 0 .. tiles - 1, global tile
  // index blockRow / 64 + tiles * warpgroup + m.
  int64_t tiles = shape.warpgroupTiles();
  SmallVector<Value, 2> rowTiles, tileInBlock;
  for (int64_t m = 0; m < tiles; ++m) {
    tileInBlock.push_back(ir.add(ir.mul(warpgroup, ir.i32(tiles)), ir.i32(m)));
    rowTiles.push_back(
        ir.add(arith::DivUIOp::create(
                   b, f.blockRow, ir.i32(HopperKernelShape::kWarpgroupRows)),
               tileInBlock.back()));
  }
  // A sparse A's metadata (a dense one has none), from global memory or
  // from the TMA ring's metadata slots.
  const bool sparse = !shape.denseA;
  const bool metaFromRing = shape.metaSlots() > 0;
  MetaVectorSource metaSource;
  Value metaRowTiles;
  if (sparse) {
    metaRowTiles = arith::DivUIOp::create(
        b,
        ir.add(f.kp.args.rows, ir.i32(HopperKernelShape::kWarpgroupRows - 1)),
        ir.i32(HopperKernelShape::kWarpgroupRows));
    // A vector is four words: 256 dense K for both widths (a word is 64 K:
    // one f16/bf16 K step with both of its wgmmas, or one s8 wgmma).
    Value metaVectors = arith::DivUIOp::create(
        b, ir.add(f.kp.args.depth, ir.i32(255)), ir.i32(256));
    metaSource = {f.kp.args.meta, metaRowTiles, metaVectors, threadInGroup};
  }
  const int64_t wordsPerStep = shape.metaWordsPerStep();
  const int64_t stepsPerVector = 4 / wordsPerStep;
  const int64_t metaWords = sparse ? 4 : 0;
  const bool int8 = shape.elementBytes == 1;
  const int64_t wgmmas = shape.wgmmasPerStep();

  // A from registers: register j of the k32 half kk holds stored columns
  // 16 kk + 2t + 8 (j >> 1) + {0, 1} of row 16 w + g + 8 (j & 1) of the
  // warpgroup's 64 rows (StcHopperLayout.h (a), B16); for s8, of the k64
  // half, stored columns 32 kk + 4t + 16 (j >> 1) + {0..3} (I8): the same
  // bytes, 32 kk + 16 (j >> 1) + 4t of the row. The values tile has
  // 64-byte rows whose 16-byte chunk c sits at c ^ ((row >> 1) & 3) (TMA's
  // 64-byte swizzle); rows g and g + 8 share the phase.
  SmallVector<Value> aOffsets; // [kk * 4 + j], from the slot's A region
  if (!shape.aFromSharedMemory) {
    Value aRow = ir.add(ir.add(ir.mul(tileInBlock[0], ir.i32(64)),
                               ir.mul(warpInGroup, ir.i32(16))),
                        f.kp.g);
    Value phase = arith::AndIOp::create(
        b, arith::ShRUIOp::create(b, aRow, ir.i32(1)), ir.i32(3));
    for (int64_t kk = 0; kk < 2; ++kk)
      for (int64_t j = 0; j < 4; ++j) {
        Value row = ir.add(aRow, ir.i32(8 * (j & 1)));
        Value chunk =
            arith::XOrIOp::create(b, ir.i32(2 * kk + (j >> 1)), phase);
        aOffsets.push_back(
            ir.add(ir.add(ir.mul(row, ir.i32(64)), ir.mul(chunk, ir.i32(16))),
                   ir.mul(f.kp.t, ir.i32(4))));
      }
  }
  // A from shared memory: the same tile is the ISA's K-major layout with
  // the 64-byte swizzle (rows of exactly 64 bytes, 8-row atoms of 512),
  // the warpgroup's 64 rows 4 KiB into it; the half kk starts 32 kk bytes
  // into the rows (16 kk f16/bf16 or 32 kk s8 stored elements). A dense A
  // has 128-byte rows with the 128-byte swizzle (as B), its 64 rows 8 KiB
  // apart, and wgmma kk of the four starts 32 kk bytes into the rows.
  HopperSmemTile aTile;
  aTile.swizzle = sparse ? HopperSwizzle::B64 : HopperSwizzle::B128;
  aTile.mnMajor = false;
  aTile.elementBits = static_cast<int>(8 * shape.elementBytes);
  aTile.mnRows = static_cast<int>(HopperKernelShape::kWarpgroupRows);
  aTile.kCols = static_cast<int>(shape.storedK());
  uint64_t aFixedBits = hopperSmemDescriptor(aTile, 0, 0);
  SmallVector<int64_t, 4> aStartOffset;
  for (int64_t kk = 0; kk < wgmmas; ++kk)
    aStartOffset.push_back(static_cast<int64_t>(
        (hopperSmemDescriptor(aTile, 0,
                              static_cast<int>(kk * shape.storedK() / wgmmas)) &
         0x3FFF)
        << 4));
  SmallVector<Value, 2> aTileOffset; // of each 64-row tile, in the A region
  for (int64_t m = 0; m < tiles; ++m)
    aTileOffset.push_back(
        ir.mul(tileInBlock[m],
               ir.i32(HopperKernelShape::kWarpgroupRows * shape.aRowBytes())));

  // B descriptors: the fixed fields, and the start offset of each wgmma's
  // part of the K step.
  HopperSmemTile tile = bTile(shape, pb.denseKMajor);
  uint64_t fixedBits = hopperSmemDescriptor(tile, 0, 0);
  SmallVector<int64_t, 4> startOffset;
  for (int64_t kk = 0; kk < wgmmas; ++kk)
    startOffset.push_back(static_cast<int64_t>(
        (hopperSmemDescriptor(tile, 0, static_cast<int>(kk * shape.instrK())) &
         0x3FFF)
        << 4));

  // Loop-carried: the accumulators of tile 0, 1, .., then the current
  // metadata vector of tile 0, 1, ...
  int64_t accCount = shape.blockCols / 2;
  Type accType = int8 ? Type(b.getI32Type()) : Type(b.getF32Type());
  SmallVector<Value> init(tiles * accCount, int8 ? ir.i32(0) : ir.f32(0.0));
  for (int64_t m = 0; sparse && m < tiles; ++m) {
    // From the ring, the first vector arrives with step 0.
    SmallVector<Value, 4> cur =
        metaFromRing ? SmallVector<Value, 4>(4, ir.i32(0))
                     : metadataVector(ir, metaSource, ir.i32(0), rowTiles[m]);
    init.append(cur.begin(), cur.end());
  }
  // Iteration t consumes ring fill t: K steps s = t k .. t k + k - 1 (k
  // steps per slot), one wgmma group.
  const int64_t k = shape.stepsPerSlot;
  auto loop = scf::ForOp::create(b, ir.i32(0), f.kSlots, ir.i32(1), init);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value t = loop.getInductionVar();
    Value s = ir.mul(t, ir.i32(k));
    ValueRange args = loop.getRegionIterArgs();
    SmallVector<SmallVector<Value>, 2> acc;
    SmallVector<SmallVector<Value, 4>, 2> curWords;
    for (int64_t m = 0; m < tiles; ++m) {
      acc.emplace_back(args.begin() + m * accCount,
                       args.begin() + (m + 1) * accCount);
      auto words = args.begin() + tiles * accCount + metaWords * m;
      curWords.emplace_back(words, words + metaWords);
    }
    // Step s's words are words wordsPerStep * which + .. of vector
    // s / stepsPerVector. The slot's steps are in one vector (k divides
    // stepsPerVector): step s + j's are at which + j.
    Value which = arith::RemUIOp::create(b, s, ir.i32(stepsPerVector));
    // The next vector, loaded at the start of every iteration (mostly an
    // L1 hit) and taken over only after its wgmmas are done: the load has
    // a whole iteration to arrive before anything reads it.
    SmallVector<SmallVector<Value, 4>, 2> ahead;
    for (int64_t m = 0; sparse && !metaFromRing && m < tiles; ++m)
      ahead.push_back(metadataVector(
          ir, metaSource,
          ir.add(arith::DivUIOp::create(b, s, ir.i32(stepsPerVector)),
                 ir.i32(1)),
          rowTiles[m]));

    Value slot = arith::RemUIOp::create(b, t, ir.i32(shape.stages));
    Value parity = arith::AndIOp::create(
        b, arith::DivUIOp::create(b, t, ir.i32(shape.stages)), ir.i32(1));
    NVVM::MBarrierTryWaitParityOp::create(b, barrier(ir, shape, f, true, slot),
                                          parity, ir.i32(kTryWaitTicks));
    Value slotBase = ir.mul(slot, ir.i32(shape.stageBytes()));
    if (sparse && metaFromRing)
      curWords = metadataFromRing(ir, shape, f, s, which, tileInBlock, rowTiles,
                                  metaRowTiles, threadInGroup, curWords);

    // A descriptor of shared address `address` with the fixed fields.
    auto descriptor = [&](uint64_t fixed, Value address) -> Value {
      Value start = arith::AndIOp::create(
          b, arith::ShRUIOp::create(b, address, ir.i32(4)), ir.i32(0x3FFF));
      return arith::OrIOp::create(
          b, ir.i64(static_cast<int64_t>(fixed)),
          arith::ExtUIOp::create(b, b.getI64Type(), start));
    };
    // The instruction's types: s8 (MLIR's i8 is signless; STC reads it as
    // signed) with s32 accumulators, or f16/bf16 with f32.
    Type operandType =
        int8 ? IntegerType::get(b.getContext(), 8, IntegerType::Signed)
             : pb.inputType;
    // Per step s + j of the slot: its region, the metadata word of wgmma
    // kk of each tile (f16/bf16 word s % 4 for both, the selector tells
    // them apart; s8 word 2 (s % 2) + kk) and, from registers, its A
    // fragments (loaded now, from the slot the barrier released).
    SmallVector<Value, 2> stepBases;
    SmallVector<SmallVector<SmallVector<Value, 2>, 2>, 2> stepWords;
    SmallVector<SmallVector<SmallVector<Value, 4>, 2>, 2> stepARegs;
    for (int64_t j = 0; j < k; ++j) {
      Value stepBase = ir.add(slotBase, ir.i32(j * shape.stepBytes()));
      stepBases.push_back(stepBase);
      Value aBase = ir.add(stepBase, ir.i32(shape.bBytes()));
      Value stepWhich = j ? ir.add(which, ir.i32(j)) : which;
      SmallVector<SmallVector<Value, 2>, 2> word(tiles);
      for (int64_t m = 0; sparse && m < tiles; ++m)
        for (int64_t kk = 0; kk < wordsPerStep; ++kk) {
          Value w = curWords[m][wordsPerStep * (stepsPerVector - 1) + kk];
          for (int64_t i = stepsPerVector - 2; i >= 0; --i)
            w = arith::SelectOp::create(
                b,
                arith::CmpIOp::create(b, arith::CmpIPredicate::eq, stepWhich,
                                      ir.i32(i)),
                curWords[m][wordsPerStep * i + kk], w);
          word[m].push_back(w);
        }
      stepWords.push_back(word);
      SmallVector<SmallVector<Value, 4>, 2> aRegs(2);
      if (!shape.aFromSharedMemory)
        for (int64_t kk = 0; kk < 2; ++kk)
          for (int64_t r = 0; r < 4; ++r) {
            Value ptr = LLVM::GEPOp::create(
                b, f.smem.getType(), b.getI8Type(), f.smem,
                ValueRange{ir.add(aBase, aOffsets[kk * 4 + r])});
            aRegs[kk].push_back(LLVM::LoadOp::create(b, b.getI32Type(), ptr));
          }
      stepARegs.push_back(aRegs);
    }
    for (int64_t m = 0; m < tiles; ++m)
      fenceOperands(b, acc[m]);
    NVVM::WgmmaFenceAlignedOp::create(b);
    for (int64_t j = 0; j < k; ++j) {
      Value stepBase = stepBases[j];
      Value aBase = ir.add(stepBase, ir.i32(shape.bBytes()));
      const auto &word = stepWords[j];
      const auto &aRegs = stepARegs[j];
      Value tileAddress = ir.add(f.smemAddress, stepBase);
      for (int64_t kk = 0; kk < wgmmas; ++kk) {
        Value bDesc =
            descriptor(fixedBits, ir.add(tileAddress, ir.i32(startOffset[kk])));
        for (int64_t m = 0; m < tiles; ++m) {
          Value aDesc =
              shape.aFromSharedMemory
                  ? descriptor(aFixedBits,
                               ir.add(ir.add(ir.add(f.smemAddress, aBase),
                                             aTileOffset[m]),
                                      ir.i32(aStartOffset[kk])))
                  : Value();
          if (!sparse) {
            acc[m] = denseWgmma(ir, pb, shape, acc[m], aDesc, bDesc);
            continue;
          }
          auto mma = stc_gpu::WgmmaSpOp::create(
              b, SmallVector<Type>(accCount, accType), acc[m], aDesc, aRegs[kk],
              bDesc, word[m][int8 ? kk : 0], /*scale_d=*/Value(), operandType,
              operandType, accType, static_cast<uint64_t>(shape.blockCols),
              /*sel=*/static_cast<uint32_t>(int8 ? 0 : kk),
              /*scale_a=*/1, /*scale_b=*/1,
              /*trans_a=*/false, /*trans_b=*/pb.denseKMajor);
          acc[m].assign(mma.getNewAcc().begin(), mma.getNewAcc().end());
        }
      }
    }
    NVVM::WgmmaGroupSyncAlignedOp::create(b);
    if (sparse) {
      // Wait for this slot's wgmmas before anything reuses their registers
      // (the metadata word, and the A fragments when A comes from
      // registers; see the file comment), then give the slot back to the
      // producer.
      NVVM::WgmmaWaitGroupSyncOp::create(b, 0);
      releaseSlot(ir, shape, f, slot);
    } else {
      // Dense: this step's group stays in flight while the next step waits
      // for its slot; the previous step's group is done, and its slot goes
      // back to the producer.
      NVVM::WgmmaWaitGroupSyncOp::create(b, 1);
      auto previous = scf::IfOp::create(
          b, arith::CmpIOp::create(b, arith::CmpIPredicate::ugt, t, ir.i32(0)),
          /*withElseRegion=*/false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(previous.thenBlock());
      releaseSlot(ir, shape, f,
                  arith::RemUIOp::create(b,
                                         arith::SubIOp::create(b, t, ir.i32(1)),
                                         ir.i32(shape.stages)));
    }

    // After the last step of a vector the loaded one becomes current.
    Value last = arith::CmpIOp::create(b, arith::CmpIPredicate::eq, which,
                                       ir.i32(stepsPerVector - k));
    SmallVector<Value> yielded;
    for (int64_t m = 0; m < tiles; ++m)
      yielded.append(acc[m].begin(), acc[m].end());
    for (int64_t m = 0; sparse && m < tiles; ++m)
      for (int64_t i = 0; i < 4; ++i)
        yielded.push_back(metaFromRing
                              ? curWords[m][i]
                              : arith::SelectOp::create(b, last, ahead[m][i],
                                                        curWords[m][i]));
    scf::YieldOp::create(b, yielded);
  }

  // Every group is complete (each sparse step waits for its own; the last
  // dense one is waited for here); the fence keeps the epilogue's reads of
  // the accumulators after the last wait.
  if (!sparse)
    NVVM::WgmmaWaitGroupSyncOp::create(b, 0);
  SmallVector<Value> results(loop.getResults().begin(),
                             loop.getResults().begin() + tiles * accCount);
  fenceOperands(b, results);

  // The epilogue (HopperEpilogue.h): the warp's 16 rows of each of its
  // 64-row tiles.
  HopperEpilogueWarp warp;
  for (int64_t m = 0; m < tiles; ++m)
    warp.firstRow.push_back(
        ir.add(ir.add(f.blockRow, ir.mul(tileInBlock[m], ir.i32(64))),
               ir.mul(warpInGroup, ir.i32(16))));
  warp.blockCol = f.blockCol;
  warp.convImage = f.convImage;
  warp.convRow0 = f.convRow0;
  warp.convCol0 = f.convCol0;
  warp.smem = f.smem;
  warp.consumerWarp = arith::DivUIOp::create(b, f.kp.tid, ir.i32(kWarpSize));
  emitHopperEpilogue(ir, pb, shape, f.kp, warp, results);
}

} // namespace
