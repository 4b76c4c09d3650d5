//===- HopperEpilogue.cpp - the sm_90a kernel's epilogue --------*- C++ -*-===//
//
// See HopperEpilogue.h.
//
// The element stores of the wgmma fragments write little at a time: in a
// transposed Out (a sparse rhs, every convolution: P x R, the rows R
// contiguous) one warp store instruction writes four 16-byte pieces, in an
// Out of a sparse lhs (R x P) eight of 16 bytes. The staged stores instead
// write each warp's 16 rows through shared memory, a chunk of
// stagingCols() columns at a time:
//   1. every thread writes its results of the chunk (after the epilogue's
//      arithmetic) into the warp's region, laid out as Out is: [column][16
//      rows] for a transposed Out, [row][columns] otherwise, each line
//      padded by 16 bytes so that a warp's element writes spread over the
//      banks. With a residual (acc), only the scaled products go there, as
//      f32, and step 2 reads acc as vectors at the same elements and
//      finishes the epilogue (epilogueTail): a bottleneck's residual is as
//      much traffic as its result;
//   2. bar.warp.sync; every lane copies whole 16-byte vectors of the region
//      to Out, consecutive lanes taking consecutive vectors of a line, so
//      that a warp instruction writes whole 32-byte sectors; a vector that
//      would leave Out (ragged R or P, a pixel outside the image) or is not
//      16-byte aligned in global memory is written element by element;
//   3. bar.warp.sync before the next chunk reuses the region.
// The regions are in the ring, which the consumers are done with once all
// of them have passed their last wgmma.wait_group: a named barrier of the
// consumer threads (the producer warpgroup does not take part) says so.
// No TMA copy is in flight by then: every K step's copies completed on its
// `full` mbarrier before the consumers read the step.
//
//===----------------------------------------------------------------------===//
#include "passes/GPU/HopperEpilogue.h"
#include "passes/CpuEpilogue.h"
#include "passes/GPU/Epilogue.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::stc;
using namespace mlir::stc::gpu_kernel;

namespace {

/// Rows of a 64-row wgmma tile one warp holds.
constexpr int64_t kWarpRows = 16;
constexpr int64_t kVectorBytes = 16;
constexpr int64_t kLanes = 32;
/// The named barrier of the consumer threads (0 is the whole block's).
constexpr int64_t kConsumerBarrier = 1;

/// Column `c` (i32, in the block's tile) as a column p of Out, and whether
/// it exists (p < P; for a tile of one image, a pixel inside the image).
struct TileColumn {
  Value p, valid;
};

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

/// Row and tile column of accumulator v of tile m (HopperEpilogue.h).
std::pair<Value, Value> fragmentPlace(KernelIR &ir, const KernelPrologue &kp,
                                      const HopperEpilogueWarp &w, int64_t m,
                                      int64_t v) {
  Value r = ir.add(ir.add(w.firstRow[m], kp.g), ir.i32(8 * ((v / 2) % 2)));
  Value c = ir.add(ir.mul(kp.t, ir.i32(2)), ir.i32(8 * (v / 4) + v % 2));
  return {r, c};
}

void elementStores(KernelIR &ir, const Problem &pb,
                   const HopperKernelShape &shape, const KernelPrologue &kp,
                   const HopperEpilogueWarp &w, ArrayRef<Value> acc) {
  OutputStore output = outputStoreOf(kp);
  int64_t accCount = shape.blockCols / 2;
  for (auto [mv, value] : llvm::enumerate(acc)) {
    int64_t m = static_cast<int64_t>(mv) / accCount;
    int64_t v = static_cast<int64_t>(mv) % accCount;
    auto [r, c] = fragmentPlace(ir, kp, w, m, v);
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
  OutputStore o = outputStoreOf(kp);
  // A transposed Out (P x R) has a column's rows contiguous: a convolution
  // always (NHWC), a GEMM with a sparse rhs.
  const bool transposed = !pb.sparseLhs;
  assert((transposed || !shape.tilesPerImage()) &&
         "a convolution's output is transposed");
  const int64_t elementBytes = pb.outputType.getIntOrFloatBitWidth() / 8;
  const int64_t perVector = kVectorBytes / elementBytes;
  // With a residual the region holds the scaled products (f32), and the
  // copy out adds beta * acc, read as vectors too, and the bias, applies the
  // activation and converts (epilogueTail): the residual is the other half
  // of a bottleneck's traffic.
  const bool residual =
      pb.hasAcc && pb.beta != 0.0 && !pb.outputType.isInteger(32);
  const int64_t stagedBytes = residual ? 4 : elementBytes;
  const int64_t chunkCols = shape.stagingCols();
  // The region: `lines` lines of `lineBytes` (16 bytes of padding each).
  const int64_t lineElements = transposed ? kWarpRows : chunkCols;
  const int64_t lines = transposed ? chunkCols : kWarpRows;
  const int64_t lineBytes = lineElements * stagedBytes + kVectorBytes;
  const int64_t regionBytes = lines * lineBytes;
  // 16-byte vectors of the result per line.
  const int64_t vectorsPerLine = lineElements / perVector;
  const int64_t vectors = lines * vectorsPerLine;
  assert(shape.consumerThreads() / kLanes * regionBytes <=
             shape.stages * shape.stageBytes() &&
         "the staging fits in the ring (HopperKernelShape::stagingCols)");

  // Every consumer is past its last wgmma before any warp writes the ring.
  NVVM::BarrierOp::create(b, TypeRange{}, ir.i32(kConsumerBarrier),
                          ir.i32(shape.consumerThreads()),
                          NVVM::BarrierReductionAttr(), Value());
  Type i8 = b.getI8Type();
  Value region = LLVM::GEPOp::create(
      b, w.smem.getType(), i8, w.smem,
      ValueRange{ir.mul(w.consumerWarp, ir.i32(regionBytes))});
  auto at = [&](Value offset) {
    return LLVM::GEPOp::create(b, region.getType(), i8, region,
                               ValueRange{offset});
  };
  auto syncWarp = [&] { NVVM::SyncWarpOp::create(b, ir.i32(-1)); };
  auto vectorType = VectorType::get({4}, b.getI32Type());
  const int64_t accCount = shape.blockCols / 2;
  const int64_t tiles = static_cast<int64_t>(w.firstRow.size());

  for (int64_t m = 0; m < tiles; ++m) {
    // A thread's accumulators of the tile are in two rows, g and g + 8:
    // their scale and bias are loaded once.
    EpilogueRow rowOperands[2];
    for (int64_t half = 0; half < 2; ++half) {
      Value r = ir.add(ir.add(w.firstRow[m], kp.g), ir.i32(8 * half));
      rowOperands[half] = loadEpilogueRow(ir, pb, o, r, ir.lt(r, o.rows));
    }
    for (int64_t q = 0; q < shape.blockCols / chunkCols; ++q) {
      // 1. The thread's results of the chunk's columns into the region.
      for (int64_t v = q * chunkCols / 2; v < (q + 1) * chunkCols / 2; ++v) {
        auto [r, c] = fragmentPlace(ir, kp, w, m, v);
        const EpilogueRow &row = rowOperands[(v / 2) % 2];
        Value result;
        if (residual) {
          result = epilogueScaled(ir, pb, acc[m * accCount + v], row);
        } else {
          TileColumn column = tileColumn(ir, shape, kp, w, c);
          result = epilogueValue(ir, pb, o, acc[m * accCount + v], r,
                                 outputIndex(ir, pb, o, r, column.p),
                                 ir.both(ir.lt(r, o.rows), column.valid), &row);
        }
        Value line = ir.add(kp.g, ir.i32(8 * ((v / 2) % 2)));
        Value inChunk = ir.add(c, ir.i32(-q * chunkCols));
        if (transposed)
          std::swap(line, inChunk);
        LLVM::StoreOp::create(b, result,
                              at(ir.add(ir.mul(line, ir.i32(lineBytes)),
                                        ir.mul(inChunk, ir.i32(stagedBytes)))));
      }
      syncWarp();

      // 2. Whole vectors of the region to Out, lane by lane.
      for (int64_t i = 0; i * kLanes < vectors; ++i) {
        OpBuilder::InsertionGuard guard(b);
        Value u = ir.add(kp.lane, ir.i32(i * kLanes));
        if ((i + 1) * kLanes > vectors) {
          auto some = scf::IfOp::create(b, ir.lt(u, ir.i32(vectors)),
                                        /*withElseRegion=*/false);
          b.setInsertionPointToStart(some.thenBlock());
        }
        Value line = arith::DivUIOp::create(b, u, ir.i32(vectorsPerLine));
        Value part = arith::RemUIOp::create(b, u, ir.i32(vectorsPerLine));
        Value src = at(ir.add(ir.mul(line, ir.i32(lineBytes)),
                              ir.mul(part, ir.i32(perVector * stagedBytes))));
        // The vector's first element (r0, p0) and whether element e of it
        // is inside Out.
        Value r0, p0, columnValid;
        if (transposed) {
          TileColumn column =
              tileColumn(ir, shape, kp, w, ir.add(line, ir.i32(q * chunkCols)));
          r0 = ir.add(w.firstRow[m], ir.mul(part, ir.i32(perVector)));
          p0 = column.p;
          columnValid = column.valid;
        } else {
          r0 = ir.add(w.firstRow[m], line);
          p0 = ir.add(w.blockCol, ir.add(ir.i32(q * chunkCols),
                                         ir.mul(part, ir.i32(perVector))));
          columnValid = ir.lt(r0, o.rows);
        }
        auto inside = [&](Value e) {
          return transposed
                     ? ir.both(columnValid, ir.lt(ir.add(r0, e), o.rows))
                     : ir.both(columnValid, ir.lt(ir.add(p0, e), o.cols));
        };
        Value index0 = outputIndex(ir, pb, o, r0, p0);
        Value dst = LLVM::GEPOp::create(b, o.out.getType(), pb.outputType,
                                        o.out, ValueRange{index0});
        auto aligned = [&](Value ptr) {
          return arith::CmpIOp::create(
              b, arith::CmpIPredicate::eq,
              arith::AndIOp::create(
                  b, LLVM::PtrToIntOp::create(b, b.getI64Type(), ptr),
                  ir.i64(kVectorBytes - 1)),
              ir.i64(0));
        };
        Value allInside = inside(ir.i32(perVector - 1));
        // The vector's results: the staged ones, or with a residual the
        // rest of their epilogue.
        auto outVectorType = VectorType::get({perVector}, pb.outputType);
        Value results;
        if (!residual) {
          results = LLVM::LoadOp::create(b, outVectorType, src, kVectorBytes);
        } else {
          Value scaled = LLVM::LoadOp::create(
              b, VectorType::get({perVector}, b.getF32Type()), src,
              kVectorBytes);
          // acc at the same elements: one vector load where it is whole and
          // aligned, else element by element (element 0 outside).
          auto accVectorType = VectorType::get({perVector}, pb.accType);
          Value accPtr = LLVM::GEPOp::create(b, o.accIn.getType(), pb.accType,
                                             o.accIn, ValueRange{index0});
          auto accLoad = scf::IfOp::create(b, TypeRange{accVectorType},
                                           ir.both(allInside, aligned(accPtr)),
                                           /*withElseRegion=*/true);
          {
            OpBuilder::InsertionGuard accGuard(b);
            b.setInsertionPointToStart(accLoad.thenBlock());
            scf::YieldOp::create(
                b, ValueRange{LLVM::LoadOp::create(b, accVectorType, accPtr,
                                                   kVectorBytes)});
            b.setInsertionPointToStart(accLoad.elseBlock());
            auto each =
                scf::ForOp::create(b, ir.i32(0), ir.i32(perVector), ir.i32(1),
                                   ValueRange{ir.zeroOf(accVectorType)});
            b.setInsertionPointToStart(each.getBody());
            Value e = each.getInductionVar();
            Value one =
                ir.loadIf(inside(e), o.accIn, pb.accType,
                          ir.add(index0, ir.wide(e)), ir.zeroOf(pb.accType));
            scf::YieldOp::create(b,
                                 ValueRange{LLVM::InsertElementOp::create(
                                     b, each.getRegionIterArgs()[0], one, e)});
            b.setInsertionPointAfter(each);
            scf::YieldOp::create(b, each.getResults());
          }
          Value accs = accLoad.getResult(0);
          results = LLVM::UndefOp::create(b, outVectorType);
          for (int64_t e = 0; e < perVector; ++e) {
            // Element e is row r0 + e of a transposed result, else of row
            // r0.
            Value bias = loadEpilogueRow(
                             ir, pb, o, transposed ? ir.add(r0, ir.i32(e)) : r0,
                             inside(ir.i32(e)))
                             .bias;
            Value y = epilogueTail(
                ir, pb, LLVM::ExtractElementOp::create(b, scaled, ir.i32(e)),
                epilogueToF32(
                    b, LLVM::ExtractElementOp::create(b, accs, ir.i32(e))),
                bias);
            results = LLVM::InsertElementOp::create(b, results, y, ir.i32(e));
          }
        }
        auto whole = scf::IfOp::create(b, ir.both(allInside, aligned(dst)),
                                       /*withElseRegion=*/true);
        b.setInsertionPointToStart(whole.thenBlock());
        LLVM::StoreOp::create(b,
                              LLVM::BitcastOp::create(b, vectorType, results),
                              dst, kVectorBytes);
        b.setInsertionPointToStart(whole.elseBlock());
        auto each =
            scf::ForOp::create(b, ir.i32(0), ir.i32(perVector), ir.i32(1));
        b.setInsertionPointToStart(each.getBody());
        Value e = each.getInductionVar();
        auto one = scf::IfOp::create(b, inside(e), /*withElseRegion=*/false);
        b.setInsertionPointToStart(one.thenBlock());
        LLVM::StoreOp::create(b, LLVM::ExtractElementOp::create(b, results, e),
                              LLVM::GEPOp::create(b, dst.getType(),
                                                  pb.outputType, dst,
                                                  ValueRange{e}));
      }
      // 3. Every lane has read the region before the next chunk's writes.
      syncWarp();
    }
  }
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
