//===- FragmentStores.cpp - a warp's results as 16-byte vectors -*- C++ -*-===//
//
// See FragmentStores.h.
//
// Element stores from C fragments write little at a time: in a transposed
// Out (a sparse rhs, every convolution: P x R, the rows R contiguous) one
// warp store instruction writes four 16-byte pieces, in an Out of a sparse
// lhs (R x P) eight. The staged stores write each warp's 16-row tiles a
// chunk of stagingChunkCols() columns at a time:
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
//
//===----------------------------------------------------------------------===//
#include "passes/GPU/FragmentStores.h"
#include "passes/CpuEpilogue.h"
#include "passes/GPU/Epilogue.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::stc;
using namespace mlir::stc::gpu_kernel;

namespace {

/// Rows of one fragment tile.
constexpr int64_t kTileRows = 16;
constexpr int64_t kVectorBytes = 16;
constexpr int64_t kLanes = 32;

/// With a residual the region holds the scaled products (f32), and the copy
/// out adds beta * acc and the bias, applies the activation and converts.
bool stagesResidual(const Problem &pb) {
  return pb.hasAcc && pb.beta != 0.0 && !pb.outputType.isInteger(32);
}

/// The region's geometry for tiles of `tileCols` columns.
struct StagingRegion {
  /// A transposed Out (P x R) has a column's rows contiguous: a
  /// convolution always (NHWC), a GEMM with a sparse rhs.
  bool transposed, residual;
  int64_t elementBytes, perVector, stagedBytes, chunkCols;
  /// `lines` lines of `lineElements` staged values, `lineBytes` apart (16
  /// bytes of padding each); 16-byte vectors of the result per line.
  int64_t lineElements, lines, lineBytes, vectorsPerLine;

  StagingRegion(const Problem &pb, int64_t tileCols)
      : transposed(!pb.sparseLhs), residual(stagesResidual(pb)),
        elementBytes(pb.outputType.getIntOrFloatBitWidth() / 8),
        perVector(kVectorBytes / elementBytes),
        stagedBytes(residual ? 4 : elementBytes),
        chunkCols(stagingChunkCols(tileCols)),
        lineElements(transposed ? kTileRows : chunkCols),
        lines(transposed ? chunkCols : kTileRows),
        lineBytes(lineElements * stagedBytes + kVectorBytes),
        vectorsPerLine(lineElements / perVector) {}
  int64_t regionBytes() const { return lines * lineBytes; }
  int64_t vectors() const { return lines * vectorsPerLine; }
};

} // namespace

std::pair<Value, Value>
mlir::stc::gpu_kernel::fragmentPlace(KernelIR &ir, const KernelPrologue &kp,
                                     const FragmentTiles &tiles, int64_t m,
                                     int64_t v) {
  Value r = ir.add(ir.add(tiles.firstRow[m], kp.g), ir.i32(8 * ((v / 2) % 2)));
  Value c = ir.add(ir.mul(kp.t, ir.i32(2)), ir.i32(8 * (v / 4) + v % 2));
  return {r, c};
}

int64_t mlir::stc::gpu_kernel::stagingRegionBytes(const Problem &pb,
                                                  int64_t tileCols) {
  return StagingRegion(pb, tileCols).regionBytes();
}

void mlir::stc::gpu_kernel::storeFragmentsAsVectors(
    KernelIR &ir, const Problem &pb, const KernelPrologue &kp,
    const FragmentTiles &tiles, function_ref<TileColumn(Value)> column,
    Value region, ArrayRef<Value> acc) {
  ImplicitLocOpBuilder &b = ir.b;
  OutputStore o = outputStoreOf(kp);
  const StagingRegion s(pb, tiles.cols);
  const bool transposed = s.transposed;
  const int64_t perVector = s.perVector;
  Type i8 = b.getI8Type();
  auto at = [&](Value offset) {
    return LLVM::GEPOp::create(b, region.getType(), i8, region,
                               ValueRange{offset});
  };
  auto syncWarp = [&] { NVVM::SyncWarpOp::create(b, ir.i32(-1)); };
  auto vectorType = VectorType::get({4}, b.getI32Type());
  const int64_t accCount = tiles.cols / 2;
  const int64_t tileCount = static_cast<int64_t>(tiles.firstRow.size());
  assert(static_cast<int64_t>(acc.size()) == tileCount * accCount &&
         "cols / 2 accumulators a thread and tile");

  for (int64_t m = 0; m < tileCount; ++m) {
    // A thread's accumulators of the tile are in two rows, g and g + 8:
    // their scale and bias are loaded once.
    EpilogueRow rowOperands[2];
    for (int64_t half = 0; half < 2; ++half) {
      Value r = ir.add(ir.add(tiles.firstRow[m], kp.g), ir.i32(8 * half));
      rowOperands[half] = loadEpilogueRow(ir, pb, o, r, ir.lt(r, o.rows));
    }
    for (int64_t q = 0; q < tiles.cols / s.chunkCols; ++q) {
      // 1. The thread's results of the chunk's columns into the region.
      for (int64_t v = q * s.chunkCols / 2; v < (q + 1) * s.chunkCols / 2;
           ++v) {
        auto [r, c] = fragmentPlace(ir, kp, tiles, m, v);
        const EpilogueRow &row = rowOperands[(v / 2) % 2];
        Value result;
        if (s.residual) {
          result = epilogueScaled(ir, pb, acc[m * accCount + v], row);
        } else {
          TileColumn col = column(c);
          result = epilogueValue(ir, pb, o, acc[m * accCount + v], r,
                                 outputIndex(ir, pb, o, r, col.p),
                                 ir.both(ir.lt(r, o.rows), col.valid), &row);
        }
        Value line = ir.add(kp.g, ir.i32(8 * ((v / 2) % 2)));
        Value inChunk = ir.add(c, ir.i32(-q * s.chunkCols));
        if (transposed)
          std::swap(line, inChunk);
        LLVM::StoreOp::create(
            b, result,
            at(ir.add(ir.mul(line, ir.i32(s.lineBytes)),
                      ir.mul(inChunk, ir.i32(s.stagedBytes)))));
      }
      syncWarp();

      // 2. Whole vectors of the region to Out, lane by lane.
      const int64_t vectors = s.vectors();
      for (int64_t i = 0; i * kLanes < vectors; ++i) {
        OpBuilder::InsertionGuard guard(b);
        Value u = ir.add(kp.lane, ir.i32(i * kLanes));
        if ((i + 1) * kLanes > vectors) {
          auto some = scf::IfOp::create(b, ir.lt(u, ir.i32(vectors)),
                                        /*withElseRegion=*/false);
          b.setInsertionPointToStart(some.thenBlock());
        }
        Value line = arith::DivUIOp::create(b, u, ir.i32(s.vectorsPerLine));
        Value part = arith::RemUIOp::create(b, u, ir.i32(s.vectorsPerLine));
        Value src = at(ir.add(ir.mul(line, ir.i32(s.lineBytes)),
                              ir.mul(part, ir.i32(perVector * s.stagedBytes))));
        // The vector's first element (r0, p0) and whether element e of it
        // is inside Out.
        Value r0, p0, columnValid;
        if (transposed) {
          TileColumn col = column(ir.add(line, ir.i32(q * s.chunkCols)));
          r0 = ir.add(tiles.firstRow[m], ir.mul(part, ir.i32(perVector)));
          p0 = col.p;
          columnValid = col.valid;
        } else {
          r0 = ir.add(tiles.firstRow[m], line);
          p0 = column(ir.add(ir.i32(q * s.chunkCols),
                             ir.mul(part, ir.i32(perVector))))
                   .p;
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
        if (!s.residual) {
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
