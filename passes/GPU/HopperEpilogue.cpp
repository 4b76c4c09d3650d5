//===- HopperEpilogue.cpp - the sm_90a kernel's epilogue --------*- C++ -*-===//
//
// See HopperEpilogue.h.
//
// The element stores write one element per thread and accumulator; the
// staged stores (FragmentStores.h) write each consumer warp's 16 rows of
// every 64-row tile (a wgmma fragment's warp slice has mma.sp's m16n8 C
// layout) through shared memory as 16-byte vectors. Their regions are in
// the ring, which the consumers are done with once all of them have passed
// their last wgmma.wait_group: a named barrier of the consumer threads (the
// producer warpgroup does not take part) says so. No TMA copy is in flight
// by then: every K step's copies completed on its `full` mbarrier before
// the consumers read the step.
//
//===----------------------------------------------------------------------===//
#include "passes/GPU/HopperEpilogue.h"
#include "passes/GPU/Epilogue.h"
#include "passes/GPU/FragmentStores.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::stc;
using namespace mlir::stc::gpu_kernel;

namespace {

/// The named barrier of the consumer threads (0 is the whole block's).
constexpr int64_t kConsumerBarrier = 1;

/// Column `c` (i32, in the block's tile) as a column p of Out, and whether
/// it exists (p < P; for a tile of one image, a pixel inside the image).
TileColumn tileColumn(KernelIR &ir, const HopperKernelShape &shape,
                      const KernelPrologue &kp, const HopperEpilogueWarp &w,
                      Value c) {
  if (!shape.tilesPerImage()) {
    Value p = ir.add(w.blockCol, c);
    return {p, ir.lt(p, kp.args.cols)};
  }
  // Column j of a convolution's tile is output pixel (row0 + j / TW,
  // col0 + j % TW) of the block's image.
  ImplicitLocOpBuilder &b = ir.b;
  Value oh = ir.add(w.convRow0,
                    arith::DivUIOp::create(b, c, ir.i32(shape.pixelTileW)));
  Value ow = ir.add(w.convCol0,
                    arith::RemUIOp::create(b, c, ir.i32(shape.pixelTileW)));
  Value p = ir.add(
      ir.mul(ir.add(ir.mul(w.convImage, kp.args.outH), oh), kp.args.outW), ow);
  return {p, ir.both(ir.lt(oh, kp.args.outH), ir.lt(ow, kp.args.outW))};
}

/// The warp's tiles: its 16 rows of each of its warpgroup's 64-row tiles,
/// the block's columns.
FragmentTiles fragmentTiles(const HopperKernelShape &shape,
                            const HopperEpilogueWarp &w) {
  FragmentTiles tiles;
  tiles.firstRow.assign(w.firstRow.begin(), w.firstRow.end());
  tiles.cols = shape.blockCols;
  return tiles;
}

void elementStores(KernelIR &ir, const Problem &pb,
                   const HopperKernelShape &shape, const KernelPrologue &kp,
                   const HopperEpilogueWarp &w, ArrayRef<Value> acc) {
  OutputStore output = outputStoreOf(kp);
  FragmentTiles tiles = fragmentTiles(shape, w);
  int64_t accCount = shape.blockCols / 2;
  for (auto [mv, value] : llvm::enumerate(acc)) {
    int64_t m = static_cast<int64_t>(mv) / accCount;
    int64_t v = static_cast<int64_t>(mv) % accCount;
    auto [r, c] = fragmentPlace(ir, kp, tiles, m, v);
    TileColumn column = tileColumn(ir, shape, kp, w, c);
    // storeResult checks p < P itself; a pixel tile adds the image's edges.
    storeResult(ir, pb, output, value, r, column.p,
                shape.tilesPerImage() ? column.valid : Value());
  }
}

void vectorStores(KernelIR &ir, const Problem &pb,
                  const HopperKernelShape &shape, const KernelPrologue &kp,
                  const HopperEpilogueWarp &w, ArrayRef<Value> acc) {
  ImplicitLocOpBuilder &b = ir.b;
  assert((!pb.sparseLhs || !shape.tilesPerImage()) &&
         "a convolution's output is transposed");
  const int64_t regionBytes = stagingRegionBytes(pb, shape.blockCols);
  assert(shape.consumerThreads() / kWarpSize * regionBytes <=
             shape.stages * shape.stageBytes() &&
         "the staging fits in the ring (HopperKernelShape::vectorStores)");
  // Every consumer is past its last wgmma before any warp writes the ring.
  NVVM::BarrierOp::create(b, TypeRange{}, ir.i32(kConsumerBarrier),
                          ir.i32(shape.consumerThreads()),
                          NVVM::BarrierReductionAttr(), Value());
  Value region = LLVM::GEPOp::create(
      b, w.smem.getType(), b.getI8Type(), w.smem,
      ValueRange{ir.mul(w.consumerWarp, ir.i32(regionBytes))});
  storeFragmentsAsVectors(
      ir, pb, kp, fragmentTiles(shape, w),
      [&](Value c) { return tileColumn(ir, shape, kp, w, c); }, region, acc);
}

} // namespace

void mlir::stc::gpu_kernel::emitHopperEpilogue(KernelIR &ir, const Problem &pb,
                                               const HopperKernelShape &shape,
                                               const KernelPrologue &kp,
                                               const HopperEpilogueWarp &w,
                                               ArrayRef<Value> acc) {
  if (shape.vectorStores)
    vectorStores(ir, pb, shape, kp, w, acc);
  else
    elementStores(ir, pb, shape, kp, w, acc);
}
