//===- KernelPrologue.cpp - what every generated kernel starts with -*- C++
//-*-//
//
// See KernelPrologue.h.
//
//===----------------------------------------------------------------------===//
#include "passes/GPU/KernelPrologue.h"
#include "passes/GPU/MmaSpFragments.h"

using namespace mlir;
using namespace mlir::stc;
using namespace mlir::stc::gpu_kernel;

int64_t mlir::stc::gpu_kernel::mmaSpInstructionK(const Problem &pb) {
  return pb.tf32 ? kMmaKTf32 : pb.int8 ? kMmaKI8 : kMmaK;
}

KernelPrologue mlir::stc::gpu_kernel::emitKernelPrologue(
    KernelIR &ir, const Problem &pb, int64_t blockRows, int64_t blockCols,
    gpu::GPUFuncOp func, WarpTile warp, int64_t groupRows) {
  ImplicitLocOpBuilder &b = ir.b;
  KernelPrologue k;
  k.warp = warp;
  KernelArgs &a = k.args;
  Block &entry = func.getBody().front();
  b.setInsertionPointToStart(&entry);
  unsigned arg = 0;
  auto global = [&](Value p) {
    return LLVM::AddrSpaceCastOp::create(
        b, LLVM::LLVMPointerType::get(b.getContext(), 1), p);
  };
  a.values = global(entry.getArgument(arg++));
  // A dense S (Problem::denseS) has no metadata parameter.
  a.meta = pb.denseS ? Value() : global(entry.getArgument(arg++));
  a.dense = global(entry.getArgument(arg++));
  a.bias = pb.hasBias ? global(entry.getArgument(arg++)) : Value();
  a.accIn = pb.hasAcc ? global(entry.getArgument(arg++)) : Value();
  a.scale = pb.hasScale ? global(entry.getArgument(arg++)) : Value();
  a.out = global(entry.getArgument(arg++));
  a.rows = entry.getArgument(arg++);
  a.cols = entry.getArgument(arg++);
  a.depth = entry.getArgument(arg++);
  a.valueCols = entry.getArgument(arg++);
  a.metaCols = entry.getArgument(arg++);
  if (pb.conv) {
    a.batch = entry.getArgument(arg++);
    a.inH = entry.getArgument(arg++);
    a.inW = entry.getArgument(arg++);
    a.outH = entry.getArgument(arg++);
    a.outW = entry.getArgument(arg++);
  }

  k.tid = ir.toI32(gpu::ThreadIdOp::create(b, gpu::Dimension::x));
  Value warpId = arith::DivUIOp::create(b, k.tid, ir.i32(kWarpSize));
  k.lane = arith::RemUIOp::create(b, k.tid, ir.i32(kWarpSize));
  k.g = arith::ShRUIOp::create(b, k.lane, ir.i32(2));
  k.t = arith::AndIOp::create(b, k.lane, ir.i32(3));
  int64_t warpsAcross = blockCols / warp.cols;
  k.warpRow = arith::DivUIOp::create(b, warpId, ir.i32(warpsAcross));
  k.warpCol = arith::RemUIOp::create(b, warpId, ir.i32(warpsAcross));
  int64_t instrK = mmaSpInstructionK(pb);
  k.steps = arith::DivUIOp::create(b, ir.add(a.depth, ir.i32(instrK - 1)),
                                   ir.i32(instrK));
  k.metaRowBlocks =
      arith::DivUIOp::create(b, ir.add(a.rows, ir.i32(31)), ir.i32(32));
  // Words per lane per row block: one per K step, two for i8 (one per
  // 16-row tile), in 128-bit vectors of four.
  Value laneWords = pb.int8 ? ir.mul(k.steps, ir.i32(2)) : k.steps;
  k.metaVectors =
      arith::DivUIOp::create(b, ir.add(laneWords, ir.i32(3)), ir.i32(4));
  Value blockY = ir.toI32(gpu::BlockIdOp::create(b, gpu::Dimension::y));
  k.outLd = a.rows;
  if (pb.conv) {
    // Grid y stacks the row tiles of every group: group = y / tiles. Each
    // group is its own GEMM over rows [group * R, (group + 1) * R) of the
    // filter, bias and output channels and input channels
    // [group * C, (group + 1) * C): offset the base pointers once.
    Value rowTiles = arith::DivUIOp::create(
        b, ir.add(a.rows, ir.i32(blockRows - 1)), ir.i32(blockRows));
    Value group = arith::DivUIOp::create(b, blockY, rowTiles);
    blockY = arith::RemUIOp::create(b, blockY, rowTiles);
    // The sm_90a kernel rounds grid y up to whole clusters: a block past
    // the last group computes the rows past the last group's R (zeros from
    // TMA, legal metadata, no store) in that group, as a GEMM's padding
    // block does, instead of another group's pointers past the buffers.
    Value past = arith::CmpIOp::create(b, arith::CmpIPredicate::uge, group,
                                       ir.i32(pb.conv->groups));
    group =
        arith::SelectOp::create(b, past, ir.i32(pb.conv->groups - 1), group);
    blockY = arith::SelectOp::create(b, past, rowTiles, blockY);
    Value firstRow = ir.wide(ir.mul(group, a.rows));
    auto advance = [&](Value &ptr, Type type, Value elems) {
      if (ptr)
        ptr =
            LLVM::GEPOp::create(b, ptr.getType(), type, ptr, ValueRange{elems});
    };
    advance(a.values, pb.inputType, ir.mul(firstRow, ir.wide(a.valueCols)));
    // Kernel-ready metadata is laid out group after group (128 words per
    // row block and vector).
    advance(a.meta, b.getI32Type(),
            ir.mul(ir.wide(group),
                   ir.wide(ir.mul(ir.mul(k.metaRowBlocks, k.metaVectors),
                                  ir.i32(128)))));
    advance(a.bias, pb.biasType, firstRow);
    advance(a.scale, b.getF32Type(), firstRow);
    advance(a.accIn, pb.accType, firstRow);
    advance(a.out, pb.outputType, firstRow);
    advance(a.dense, pb.inputType, ir.wide(ir.mul(group, ir.i32(pb.conv->c))));
    k.outLd = ir.i32(pb.conv->oc);
  } else if (pb.batched) {
    // Grid y stacks the row tiles of every batch element: element = y /
    // tiles; every operand (contiguous batches of matrices) advances by
    // one matrix.
    Value rowTiles = arith::DivUIOp::create(
        b, ir.add(a.rows, ir.i32(blockRows - 1)), ir.i32(blockRows));
    k.batchElement = arith::DivUIOp::create(b, blockY, rowTiles);
    Value element = ir.wide(k.batchElement);
    blockY = arith::RemUIOp::create(b, blockY, rowTiles);
    auto advance = [&](Value &ptr, Type type, Value elemsPerMatrix) {
      if (ptr)
        ptr = LLVM::GEPOp::create(b, ptr.getType(), type, ptr,
                                  ValueRange{ir.mul(element, elemsPerMatrix)});
    };
    Value outElems = ir.mul(ir.wide(a.rows), ir.wide(a.cols));
    advance(a.values, pb.inputType,
            ir.mul(ir.wide(a.rows), ir.wide(a.valueCols)));
    advance(a.dense, pb.inputType, ir.mul(ir.wide(a.depth), ir.wide(a.cols)));
    advance(a.accIn, pb.accType, outElems);
    advance(a.out, pb.outputType, outElems);
  }
  Value blockX = ir.toI32(gpu::BlockIdOp::create(b, gpu::Dimension::x));
  if (groupRows) {
    // Within a convolution's group: grid x covers its P = N * OH * OW.
    std::tie(blockX, blockY) =
        groupedBlockOrder(ir, blockX, blockY, ir.ceilDiv(a.cols, blockCols),
                          ir.ceilDiv(a.rows, blockRows), groupRows, 1);
  }
  k.blockRow = ir.mul(blockY, ir.i32(blockRows));
  k.blockCol = ir.mul(blockX, ir.i32(blockCols));
  k.rowBase = ir.add(k.blockRow, ir.mul(k.warpRow, ir.i32(warp.rows)));
  k.colBase = ir.add(k.blockCol, ir.mul(k.warpCol, ir.i32(warp.cols)));
  // Leading dimension of D: P when k-major (D is K x P), K otherwise.
  k.denseLd = pb.denseKMajor ? a.cols : a.depth;
  k.inputZero = ir.zeroOf(pb.inputType);
  return k;
}

std::pair<Value, Value> mlir::stc::gpu_kernel::groupedBlockOrder(
    KernelIR &ir, Value tileX, Value tileY, Value gridX, Value rowTiles,
    int64_t groupRows, int64_t clusterRows) {
  ImplicitLocOpBuilder &b = ir.b;
  int64_t c = clusterRows, pairsPerGroup = groupRows / c;
  Value rank = arith::RemUIOp::create(b, tileY, ir.i32(c));
  Value clusterRow = arith::DivUIOp::create(b, tileY, ir.i32(c));
  Value clusterRowCount = ir.ceilDiv(rowTiles, c);
  Value linear = ir.add(ir.mul(clusterRow, gridX), tileX);
  Value perGroup = ir.mul(gridX, ir.i32(pairsPerGroup));
  Value group = arith::DivUIOp::create(b, linear, perGroup);
  Value first = ir.mul(group, ir.i32(pairsPerGroup));
  Value height = arith::MinUIOp::create(
      b, arith::SubIOp::create(b, clusterRowCount, first),
      ir.i32(pairsPerGroup));
  Value local = arith::SubIOp::create(b, linear, ir.mul(group, perGroup));
  Value row =
      ir.add(ir.mul(ir.add(first, arith::RemUIOp::create(b, local, height)),
                    ir.i32(c)),
             rank);
  return {arith::DivUIOp::create(b, local, height), row};
}
