//===- MmaSpDirectKernel.cpp - the direct mma.sp kernel --------*- C++ -*-===//
//
// Family `direct`: each warp loads its mma.sp fragments straight from
// global memory with bounds checks (zeros, and the legal metadata nibble
// 0x4, past the edges), so any R, P, K and any alignment is correct. The
// fallback of the staged kernel where rows turn out unaligned at run time.
//
//===----------------------------------------------------------------------===//
#include "passes/GPU/ImplicitGemm.h"
#include "passes/GPU/MmaSpFragments.h"
#include "passes/GPU/MmaSpKernels.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::stc;
using namespace mlir::stc::gpu_kernel;

void mlir::stc::gpu_kernel::buildDirectMmaSpKernel(
    ImplicitLocOpBuilder &b, const Problem &pb, int64_t blockRows,
    int64_t blockCols, WarpTile warp, int64_t groupRows, bool ordered,
    gpu::GPUFuncOp func) {
  KernelIR ir(b);
  KernelPrologue kp =
      emitKernelPrologue(ir, pb, blockRows, blockCols, func, warp, groupRows);
  // K loop: ceil(K / 32) steps, rowTiles x colTiles tiles of 4 f32
  // accumulators each.
  // Each lane's B columns are fixed for the whole K loop: decompose them
  // (divisions by run-time sizes for a convolution) once, outside it.
  SmallVector<Value> bCols;
  SmallVector<PixelOrigin> bOrigins;
  for (int64_t j = 0; j < warp.colTiles(); ++j) {
    bCols.push_back(ir.add(ir.add(kp.colBase, ir.i32(j * kMmaN)), kp.g));
    bOrigins.push_back(pixelOrigin(ir, pb, kp.args, bCols.back()));
  }
  SmallVector<Value> init = zeroAccumulators(ir, pb, warp);
  MetadataStream meta = metadataStream(ir, kp);
  auto loop = scf::ForOp::create(b, ir.i32(0), kp.steps, ir.i32(1), init);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value k0 = ir.mul(loop.getInductionVar(), ir.i32(mmaSpInstructionK(pb)));
    Value valueCol0 = arith::DivUIOp::create(b, k0, ir.i32(2));
    // Every operand register is 32 bits of E = 32 / element bits
    // consecutive elements (E = 1 tf32, 2 f16/bf16, 4 i8), so the fragment
    // tables of the three shapes are one formula in E (PTX ISA, mma.sp
    // m16n8k16.tf32 / m16n8k32.f16 / m16n8k64.s8):
    //   A register j: row g + 8 (j & 1), stored columns
    //                 E t + 4 E (j >> 1) + {0 .. E - 1};
    //   B register q: column g, dense rows E t + 4 E q + {0 .. E - 1}.
    const int64_t perReg = 32 / pb.inputType.getIntOrFloatBitWidth();

    // A fragments of each 16-row tile.
    SmallVector<SmallVector<Value, 4>> aRegs(warp.rowTiles());
    for (int64_t i = 0; i < warp.rowTiles(); ++i) {
      Value r0 = ir.add(kp.rowBase, ir.i32(i * kMmaM));
      for (int64_t j = 0; j < 4; ++j) {
        Value row = ir.add(ir.add(r0, kp.g), ir.i32(8 * (j & 1)));
        Value rowOk = ir.lt(row, kp.args.rows);
        Value col = ir.add(ir.add(valueCol0, ir.mul(kp.t, ir.i32(perReg))),
                           ir.i32(4 * perReg * (j >> 1)));
        SmallVector<Value, 4> elems;
        for (int64_t e = 0; e < perReg; ++e) {
          Value c = ir.add(col, ir.i32(e));
          Value ok = ir.both(rowOk, ir.lt(c, kp.args.valueCols));
          Value index = ir.add(ir.mul(ir.wide(row), ir.wide(kp.args.valueCols)),
                               ir.wide(c));
          elems.push_back(
              ir.loadIf(ok, kp.args.values, pb.inputType, index, kp.inputZero));
        }
        aRegs[i].push_back(packRegister(ir, pb, elems));
      }
    }
    SmallVector<Value, 2> metaWords =
        metadataWords(ir, pb, kp, meta, loop.getInductionVar());

    // B fragments of each 8-column tile (p = col + g).
    SmallVector<SmallVector<Value, 4>> bRegs(warp.colTiles());
    for (int64_t j = 0; j < warp.colTiles(); ++j) {
      Value p = bCols[j];
      const PixelOrigin &origin = bOrigins[j];
      for (int64_t q = 0; q < 4; ++q) {
        SmallVector<Value, 4> elems;
        for (int64_t e = 0; e < perReg; ++e) {
          Value k = ir.add(ir.add(k0, ir.mul(kp.t, ir.i32(perReg))),
                           ir.i32(4 * perReg * q + e));
          auto [ok, index] =
              denseElement(ir, pb, kp.args, kp.denseLd, origin, p, k);
          elems.push_back(
              ir.loadIf(ok, kp.args.dense, pb.inputType, index, kp.inputZero));
        }
        bRegs[j].push_back(packRegister(ir, pb, elems));
      }
    }
    scf::YieldOp::create(b, mmaSpStep(ir, pb, warp, ordered, aRegs, bRegs,
                                      metaWords, loop.getRegionIterArgs()));
  }
  storeWarpTile(ir, pb, kp, loop.getResults());
}
