//===- MmaSpStagedKernel.cpp - the staged mma.sp kernel --------*- C++ -*-===//
//
// Family `staged`: each K step of A (the values) and B (D, or the gathered
// im2col tile of a convolution) is copied into swizzled shared memory by a
// multi-stage cp.async pipeline (16-byte chunks, zero-filled past the
// edges) and read as mma.sp fragments with ldmatrix (.trans for a k-major
// D). f16/bf16, tf32 and i8 (tf32 and i8 with a p-major D) when the rows it
// copies are 16-byte aligned. With a dense S (Problem::denseS) the same
// pipeline copies 64 bytes of A a row and K step, reads two ldmatrix.x4 A
// fragments per 16-row tile and runs two mma.sync m16n8k16 per mma.sp.
//
//===----------------------------------------------------------------------===//
#include "passes/GPU/FragmentStores.h"
#include "passes/GPU/ImplicitGemm.h"
#include "passes/GPU/MmaSpFragments.h"
#include "passes/GPU/MmaSpKernels.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::stc;
using namespace mlir::stc::gpu_kernel;

void mlir::stc::gpu_kernel::buildStagedMmaSpKernel(
    ImplicitLocOpBuilder &b, const Problem &pb, int64_t blockRows,
    int64_t blockCols, WarpTile warp, int64_t groupRows, int64_t stages,
    int64_t kSteps, bool ordered, bool vectorStores, gpu::GPUFuncOp func,
    LLVM::GlobalOp sharedMemory) {
  KernelIR ir(b);
  KernelPrologue kp =
      emitKernelPrologue(ir, pb, blockRows, blockCols, func, warp, groupRows);
  Type i8 = b.getI8Type();
  auto sharedPtr = LLVM::LLVMPointerType::get(b.getContext(), 3);
  auto globalPtr = LLVM::LLVMPointerType::get(b.getContext(), 1);
  Value smem =
      LLVM::AddressOfOp::create(b, sharedPtr, sharedMemory.getSymNameAttr());
  auto byteAt = [&](Value base, Value offset) {
    return LLVM::GEPOp::create(b, base.getType(), i8, base, ValueRange{offset})
        .getResult();
  };
  // Elements of one chunk: 8 (f16/bf16), 4 (tf32) or 16 (i8).
  const int64_t elemsPerChunk = chunkElems(pb);
  const int64_t elemBytes = kChunkBytes / elemsPerChunk;
  assert((!pb.denseKMajor || elemBytes == 2) &&
         "a k-major D is staged through ldmatrix.trans: 16-bit elements only");
  auto clampChunk = [&](Value n) {
    return arith::MinSIOp::create(b, arith::MaxSIOp::create(b, n, ir.i32(0)),
                                  ir.i32(elemsPerChunk));
  };
  // Bytes of A and B per stage (see the layout in buildStaged's comment in
  // the header of this file).
  StagedLayout layout(blockRows, blockCols, elemBytes, warp, kSteps, pb.denseS);
  // 16-byte chunks of one row of A a K step: 2 of stored values, 4 for a
  // dense S (all 32 k).
  const int64_t aChunks = layout.aRowBytes / kChunkBytes;
  // Where chunk c of row r lives in a sub-step, in bytes from its operand's
  // start; the copies and the ldmatrix reads both use these. The chunks are
  // swizzled so that ldmatrix's 8 row addresses of one chunk hit distinct
  // banks. A: chunk c ^ ((r >> 2) & 1) of 2, or c ^ ((r >> 1) & 3) of 4 (as
  // B's p-major rows).
  auto aChunkAt = [&](Value row, Value c) {
    Value bits =
        aChunks == 2
            ? arith::AndIOp::create(
                  b, arith::ShRUIOp::create(b, row, ir.i32(2)), ir.i32(1))
            : arith::AndIOp::create(
                  b, arith::ShRUIOp::create(b, row, ir.i32(1)), ir.i32(3));
    return ir.add(
        ir.mul(row, ir.i32(layout.aRowBytes)),
        ir.mul(arith::XOrIOp::create(b, c, bits), ir.i32(kChunkBytes)));
  };
  // A p-major B: block cols rows (p) x 4 chunks of 8 k (tf32: 4, i8: 16),
  // chunk c of row r at c ^ ((r >> 1) & 3).
  auto bPMajorChunkAt = [&](Value row, Value c) {
    Value phys = arith::XOrIOp::create(
        b, c,
        arith::AndIOp::create(b, arith::ShRUIOp::create(b, row, ir.i32(1)),
                              ir.i32(3)));
    return ir.add(ir.mul(row, ir.i32(kBPMajorRowBytes)),
                  ir.mul(phys, ir.i32(kChunkBytes)));
  };
  // A k-major B: 32 rows (k) x block cols / 8 chunks of 8 p, chunk c of
  // row r at c ^ (r & 7).
  auto bKMajorChunkAt = [&](Value row, Value c) {
    Value phys =
        arith::XOrIOp::create(b, c, arith::AndIOp::create(b, row, ir.i32(7)));
    return ir.add(ir.mul(row, ir.i32(layout.bKMajorRowBytes)),
                  ir.mul(phys, ir.i32(kChunkBytes)));
  };
  auto stageBase = [&](Value slot) {
    return ir.mul(slot, ir.i32(layout.stageBytes));
  };
  // Calls body(id) for the chunk ids tid, tid + threads, ... below `total`.
  // The second argument of body is the round (first / threads).
  auto forChunks = [&](int64_t total, function_ref<void(Value, int64_t)> body) {
    for (int64_t first = 0; first < total; first += layout.threads) {
      Value id = ir.add(kp.tid, ir.i32(first));
      int64_t round = first / layout.threads;
      if (first + layout.threads <= total) {
        body(id, round);
        continue;
      }
      auto guard = scf::IfOp::create(b, ir.lt(id, ir.i32(total)), false);
      OpBuilder::InsertionGuard insertion(b);
      b.setInsertionPointToStart(guard.thenBlock());
      body(id, round);
    }
  };
  // B's p-major chunks: the pixel of each of a thread's chunks is the same
  // in every K step; for a convolution, decompose it (divisions by
  // run-time sizes) once, before the pipeline.
  int64_t bChunks = blockCols * 4;
  SmallVector<PixelOrigin> chunkOrigins;
  if (pb.conv)
    for (int64_t first = 0; first < bChunks; first += layout.threads)
      chunkOrigins.push_back(pixelOrigin(
          ir, pb, kp.args,
          ir.add(kp.blockCol,
                 arith::DivUIOp::create(b, ir.add(kp.tid, ir.i32(first)),
                                        ir.i32(4)))));

  // Each thread's copies, planned once before the pipeline: a thread's
  // chunk of each round has the same place in a stage and the same row of
  // A (column of B) in every K step, so the K loop does not recompute
  // places, bounds and row addresses. A chunk records its element index in
  // K step 0 (its row or column clamped into the operand where it does not
  // exist), the elements of K it has left at step 0, and its src-size
  // inside K (16 bytes, 0 where its row or column does not exist, a part
  // for a k-major B's ragged column). K step `step` copies element first +
  // step x stride; in a step inside K for both operands (step <
  // wholeSteps) with the planned src-size, else (the steps at K's end)
  // with the src-size left at that step, from a clamped address where
  // nothing is left (src-size 0 zero-fills). A convolution's B is a gather
  // (a tap and a pixel per K step): its chunks are computed per step.
  struct ChunkCopy {
    /// The last round's `id < total` (null in a full round).
    Value inRound;
    /// The chunk's bytes from the sub-step's start.
    Value smemOffset;
    /// Element index (i64) in K step 0, elements of K left there (i32).
    Value first, kLeft;
    /// Bytes inside K; and, for a step at K's end, what one element of
    /// kLeft is worth in bytes (unit) up to `cap` elements: p-major rows
    /// count elements, a k-major row counts as a whole (cap 1, unit the
    /// chunk's src-size).
    Value srcSize, unit;
    int64_t cap;
  };
  auto planChunks = [&](int64_t total, int64_t operandBytes,
                        function_ref<ChunkCopy(Value)> plan) {
    SmallVector<ChunkCopy> copies;
    for (int64_t first = 0; first < total; first += layout.threads) {
      Value id = ir.add(kp.tid, ir.i32(first));
      ChunkCopy copy = plan(id);
      copy.smemOffset = ir.add(ir.i32(operandBytes), copy.smemOffset);
      if (first + layout.threads > total)
        copy.inRound = ir.lt(id, ir.i32(total));
      copies.push_back(copy);
    }
    return copies;
  };
  auto wholeIf = [&](Value ok) {
    return arith::SelectOp::create(b, ok, ir.i32(kChunkBytes), ir.i32(0))
        .getResult();
  };
  auto clampInto = [&](Value ok, Value index) {
    return arith::SelectOp::create(b, ok, index, ir.i32(0)).getResult();
  };
  // A row of a K step: 2 chunks of 8 f16/bf16, 4 tf32 or 16 i8 stored
  // values; a dense S's, 4 chunks of 8 f16/bf16.
  const int64_t storedK =
      pb.denseS ? mmaSpInstructionK(pb) : mmaSpInstructionK(pb) / 2;
  const int64_t instructionK = mmaSpInstructionK(pb);
  // A: block rows x aChunks.
  SmallVector<ChunkCopy> aCopies =
      planChunks(blockRows * aChunks, 0, [&](Value id) {
        Value row = arith::DivUIOp::create(b, id, ir.i32(aChunks));
        Value c = arith::RemUIOp::create(b, id, ir.i32(aChunks));
        Value gRow = ir.add(kp.blockRow, row);
        Value ok = ir.lt(gRow, kp.args.rows);
        Value col = ir.mul(c, ir.i32(elemsPerChunk));
        ChunkCopy copy;
        copy.smemOffset = aChunkAt(row, c);
        copy.first = ir.add(
            ir.mul(ir.wide(clampInto(ok, gRow)), ir.wide(kp.args.valueCols)),
            ir.wide(col));
        copy.kLeft =
            clampInto(ok, arith::SubIOp::create(b, kp.args.valueCols, col));
        copy.srcSize = wholeIf(ok);
        copy.unit = ir.i32(elemBytes);
        copy.cap = elemsPerChunk;
        return copy;
      });
  // B (not gathered): 4 chunks per column of the block, or k-major rows.
  SmallVector<ChunkCopy> bCopies;
  if (!pb.conv)
    bCopies = planChunks(bChunks, layout.aBytes, [&](Value id) {
      ChunkCopy copy;
      if (!pb.denseKMajor) {
        Value row = arith::DivUIOp::create(b, id, ir.i32(4));
        Value c = arith::RemUIOp::create(b, id, ir.i32(4));
        Value p = ir.add(kp.blockCol, row);
        Value ok = ir.lt(p, kp.args.cols);
        Value k = ir.mul(c, ir.i32(elemsPerChunk));
        copy.smemOffset = bPMajorChunkAt(row, c);
        copy.first = ir.add(
            ir.mul(ir.wide(clampInto(ok, p)), ir.wide(kp.denseLd)), ir.wide(k));
        copy.kLeft = clampInto(ok, arith::SubIOp::create(b, kp.args.depth, k));
        copy.srcSize = wholeIf(ok);
        copy.unit = ir.i32(elemBytes);
        copy.cap = elemsPerChunk;
        return copy;
      }
      int64_t chunksPerRow = blockCols / elemsPerChunk;
      Value row = arith::DivUIOp::create(b, id, ir.i32(chunksPerRow));
      Value c = arith::RemUIOp::create(b, id, ir.i32(chunksPerRow));
      Value p = ir.add(kp.blockCol, ir.mul(c, ir.i32(elemsPerChunk)));
      Value valid = clampChunk(arith::SubIOp::create(b, kp.args.cols, p));
      Value ok =
          arith::CmpIOp::create(b, arith::CmpIPredicate::sgt, valid, ir.i32(0));
      copy.smemOffset = bKMajorChunkAt(row, c);
      copy.first = ir.add(ir.mul(ir.wide(row), ir.wide(kp.denseLd)),
                          ir.wide(clampInto(ok, p)));
      copy.kLeft = arith::SubIOp::create(b, kp.args.depth, row);
      copy.srcSize = ir.mul(valid, ir.i32(elemBytes));
      copy.unit = copy.srcSize;
      copy.cap = 1;
      return copy;
    });
  // K steps inside K for A's stored values and for B.
  Value wholeSteps = arith::MinSIOp::create(
      b, arith::DivSIOp::create(b, kp.args.valueCols, ir.i32(storedK)),
      arith::DivSIOp::create(b, kp.args.depth, ir.i32(instructionK)));
  // Elements a K step moves B's chunks: the instruction's K along a
  // p-major row, that many rows of a k-major B.
  Value bStride = pb.denseKMajor
                      ? ir.mul(ir.wide(kp.denseLd), ir.i64(instructionK))
                      : ir.i64(instructionK);
  // K step `step` of the planned copies; `inside`: the step lies inside K.
  auto copyPlanned = [&](ArrayRef<ChunkCopy> copies, Value src, Value step,
                         int64_t kPerStep, Value stride, Value base,
                         bool inside) {
    Value stepK = inside ? Value() : ir.mul(step, ir.i32(kPerStep));
    Value stepOffset = ir.mul(ir.wide(step), stride);
    for (const ChunkCopy &copy : copies) {
      OpBuilder::InsertionGuard guard(b);
      if (copy.inRound)
        b.setInsertionPointToStart(
            scf::IfOp::create(b, copy.inRound, false).thenBlock());
      Value index = ir.add(copy.first, stepOffset);
      Value srcSize = copy.srcSize;
      if (!inside) {
        Value left = arith::MinSIOp::create(
            b,
            arith::MaxSIOp::create(
                b, arith::SubIOp::create(b, copy.kLeft, stepK), ir.i32(0)),
            ir.i32(copy.cap));
        srcSize = ir.mul(left, copy.unit);
        index = arith::SelectOp::create(
            b,
            arith::CmpIOp::create(b, arith::CmpIPredicate::sgt, srcSize,
                                  ir.i32(0)),
            index, ir.i64(0));
      }
      Value from = LLVM::GEPOp::create(b, globalPtr, pb.inputType, src,
                                       ValueRange{index});
      NVVM::CpAsyncOp::create(b, byteAt(smem, ir.add(base, copy.smemOffset)),
                              from, kChunkBytes,
                              NVVM::LoadCacheModifierKind::CG, srcSize);
    }
  };
  // A convolution's B, gathered: per K step each chunk is 8 consecutive
  // channels of one tap (C a multiple of 8), all in or all out of the
  // image; outside, nothing is read (src-size 0) from element 0.
  auto gatherConvB = [&](Value step, Value base) {
    forChunks(bChunks, [&](Value id, int64_t round) {
      Value row = arith::DivUIOp::create(b, id, ir.i32(4));
      Value c = arith::RemUIOp::create(b, id, ir.i32(4));
      Value p = ir.add(kp.blockCol, row);
      Value k = ir.add(ir.mul(step, ir.i32(instructionK)),
                       ir.mul(c, ir.i32(elemsPerChunk)));
      auto [ok, at] =
          denseElement(ir, pb, kp.args, kp.denseLd, chunkOrigins[round], p, k);
      Value offset = ir.add(ir.i32(layout.aBytes), bPMajorChunkAt(row, c));
      Value from = LLVM::GEPOp::create(
          b, globalPtr, pb.inputType, kp.args.dense,
          ValueRange{arith::SelectOp::create(b, ok, at, ir.i64(0))});
      NVVM::CpAsyncOp::create(b, byteAt(smem, ir.add(base, offset)), from,
                              kChunkBytes, NVVM::LoadCacheModifierKind::CG,
                              wholeIf(ok));
    });
  };
  // Issues the copies of K step `step` into the sub-step of a stage at
  // byte `base` (no commit).
  auto issueStepLoads = [&](Value step, Value base) {
    auto inside = scf::IfOp::create(b, ir.lt(step, wholeSteps),
                                    /*withElseRegion=*/true);
    for (bool isInside : {true, false}) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(isInside ? inside.thenBlock()
                                          : inside.elseBlock());
      copyPlanned(aCopies, kp.args.values, step, storedK, ir.i64(storedK), base,
                  isInside);
      copyPlanned(bCopies, kp.args.dense, step, instructionK, bStride, base,
                  isInside);
    }
    if (pb.conv)
      gatherConvB(step, base);
  };
  // Stage step s holds the K steps s * kSteps .. s * kSteps + kSteps - 1,
  // one sub-step each (K steps past the last are zero-filled, and their
  // metadata is the last step's: their mma.sp add nothing). One commit
  // group per stage.
  // (With one K step a stage, the IR is that of the plain pipeline.)
  Value stageSteps = kSteps == 1 ? kp.steps : ir.ceilDiv(kp.steps, kSteps);
  // K step `sub` of stage step `stageStep`.
  auto kStepOf = [&](Value stageStep, int64_t sub) {
    Value first = kSteps == 1 ? stageStep : ir.mul(stageStep, ir.i32(kSteps));
    return sub == 0 ? first : ir.add(first, ir.i32(sub));
  };
  auto subStepBase = [&](Value stageAt, int64_t sub) {
    return sub == 0 ? stageAt : ir.add(stageAt, ir.i32(sub * layout.stepBytes));
  };
  auto issueLoads = [&](Value stageStep, Value slot) {
    Value base = stageBase(slot);
    for (int64_t j = 0; j < kSteps; ++j)
      issueStepLoads(kStepOf(stageStep, j), subStepBase(base, j));
    NVVM::CpAsyncCommitGroupOp::create(b);
  };

  // Prologue of the pipeline: the first stages - 1 steps in flight (a
  // commit group per stage even when empty, so that wait counts hold).
  for (int64_t s = 0; s < stages - 1; ++s) {
    Value step = ir.i32(s);
    auto inRange = scf::IfOp::create(b, ir.lt(step, stageSteps), false);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(inRange.thenBlock());
      issueLoads(step, ir.i32(s));
    }
  }

  // The metadata words travel through registers, not shared memory: each
  // iteration loads the words of the K steps `metaLead` ahead into a ring
  // of loop-carried values and consumes the oldest, so a load has
  // stages - 1 iterations (as long as the cp.async copies have) to arrive.
  // A word loaded in the iteration that uses it stalls every warp for a
  // global-memory round trip per K step.
  const int64_t metaLead = (stages - 1) * kSteps;
  const int64_t wordsPerStep = metadataWordsPerStep(pb, warp);
  MetadataStream metaStream = metadataStream(ir, kp);
  // Steps past K (prefetched ahead, or a last stage's sub-step past K)
  // read the last step's words.
  Value lastStep =
      arith::MaxSIOp::create(b, ir.add(kp.steps, ir.i32(-1)), ir.i32(0));
  SmallVector<Value> init = zeroAccumulators(ir, pb, warp);
  const int64_t accCount = init.size();
  for (int64_t s = 0; wordsPerStep > 0 && s < metaLead; ++s)
    llvm::append_range(
        init, metadataWords(ir, pb, kp, metaStream, ir.i32(s), lastStep));
  const int64_t metaCount = static_cast<int64_t>(init.size()) - accCount;
  // The slot of the step computed (step % stages), carried rather than
  // divided for.
  init.push_back(ir.i32(0));
  auto loop = scf::ForOp::create(b, ir.i32(0), stageSteps, ir.i32(1), init);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value step = loop.getInductionVar();
    ValueRange carried = loop.getRegionIterArgs();
    Value slot = carried.back();
    // Issued first, so that the loads are in flight across the wait and the
    // barrier below.
    SmallVector<Value> aheadWords;
    for (int64_t j = 0; wordsPerStep > 0 && j < kSteps; ++j)
      llvm::append_range(aheadWords,
                         metadataWords(ir, pb, kp, metaStream,
                                       kStepOf(step, metaLead + j), lastStep));
    // Step `step` has landed once at most stages - 2 younger groups are
    // pending; the barrier also tells every thread that the slot the next
    // loads overwrite (the one computed in the previous iteration) is free.
    Value ahead = ir.add(step, ir.i32(stages - 1));
    Value aheadInRange = ir.lt(ahead, stageSteps);
    // Groups committed after step's: min(stages - 2, steps - 1 - step).
    // Waiting for stages - 2 is exact while the pipeline is full; at the
    // tail, wait for everything.
    Value tail =
        arith::CmpIOp::create(b, arith::CmpIPredicate::sge,
                              ir.add(step, ir.i32(stages - 2)), stageSteps);
    auto waitIf = scf::IfOp::create(b, tail, true);
    {
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(waitIf.thenBlock());
      NVVM::CpAsyncWaitGroupOp::create(b, 0);
      b.setInsertionPointToStart(waitIf.elseBlock());
      NVVM::CpAsyncWaitGroupOp::create(b, stages - 2);
    }
    gpu::BarrierOp::create(b);
    auto loadAhead = scf::IfOp::create(b, aheadInRange, false);
    {
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(loadAhead.thenBlock());
      // (step + stages - 1) % stages.
      Value aheadSlot = arith::SelectOp::create(
          b,
          arith::CmpIOp::create(b, arith::CmpIPredicate::eq, slot, ir.i32(0)),
          ir.i32(stages - 1), ir.add(slot, ir.i32(-1)));
      issueLoads(ahead, aheadSlot);
    }
    Value stageAt = stageBase(slot);
    // The fragments' registers from an ldmatrix.x4 result.
    auto regsOf = [&](Value structValue) {
      SmallVector<Value, 4> regs;
      for (int64_t r = 0; r < 4; ++r) {
        Value word = LLVM::ExtractValueOp::create(b, structValue, r);
        if (pb.inputType.isF16())
          word = LLVM::BitcastOp::create(b, VectorType::get({2}, pb.inputType),
                                         word);
        // tf32: one f32 per register, rounded to nearest as in build().
        if (pb.tf32)
          word = NVVM::ConvertFloatToTF32Op::create(
              b, b.getI32Type(),
              LLVM::BitcastOp::create(b, b.getF32Type(), word),
              NVVM::FPRoundingMode::RNA);
        regs.push_back(word);
      }
      return regs;
    };
    Type i32Type = b.getI32Type();
    auto x4Type = LLVM::LLVMStructType::getLiteral(
        b.getContext(), {i32Type, i32Type, i32Type, i32Type});
    auto shape = NVVM::LdStMatrixShapeAttr::get(b.getContext(), 8, 8);
    SmallVector<Value> acc(carried.take_front(accCount));
    for (int64_t sub = 0; sub < kSteps; ++sub) {
      Value base = subStepBase(stageAt, sub);
      // A: ldmatrix.x4 per 16-row tile (two for a dense S, one per 16 k);
      // lane L addresses row (L % 8) + 8 ((L / 8) % 2) of the tile, chunk
      // L / 16 (+ 2 for the second 16 k). Register j of lane (g, t) is row
      // g + 8 (j % 2), bytes 4t .. 4t + 3 of chunk j / 2: stored columns
      // 2t, 2t + 1 (+ 8) for f16/bf16, t (+ 4) for tf32, 4t .. 4t + 3
      // (+ 16) for i8, the A fragment of each (see build()), and for a
      // dense S the m16n8k16 A fragment of its 16 k.
      SmallVector<SmallVector<Value, 8>> aRegs(warp.rowTiles());
      for (int64_t i = 0; i < warp.rowTiles(); ++i) {
        Value row = ir.add(
            ir.add(ir.mul(kp.warpRow, ir.i32(warp.rows)), ir.i32(i * kMmaM)),
            ir.add(arith::RemUIOp::create(b, kp.lane, ir.i32(8)),
                   ir.mul(arith::AndIOp::create(
                              b, arith::ShRUIOp::create(b, kp.lane, ir.i32(3)),
                              ir.i32(1)),
                          ir.i32(8))));
        for (int64_t half = 0; half < aChunks / 2; ++half) {
          Value c = ir.add(arith::ShRUIOp::create(b, kp.lane, ir.i32(4)),
                           ir.i32(2 * half));
          Value offset = ir.add(base, aChunkAt(row, c));
          Value frag = NVVM::LdMatrixOp::create(b, x4Type, byteAt(smem, offset),
                                                4, NVVM::MMALayout::row, shape,
                                                NVVM::LdStMatrixEltType::B16);
          llvm::append_range(aRegs[i], regsOf(frag));
        }
      }
      SmallVector<Value, 2> metaWords(
          carried.begin() + accCount + sub * wordsPerStep,
          carried.begin() + accCount + (sub + 1) * wordsPerStep);
      // B: ldmatrix.x4 per 8-column tile, register q = k 8q .. 8q + 7 (tf32:
      // 4q .. 4q + 3, i8: 16q .. 16q + 15; the same bytes). Lane (g, t) gets
      // bytes 4t .. 4t + 3 of column p = g: D[2t, 2t + 1 (+ 8q)][g], tf32
      // D[t + 4q][g], i8 D[4t .. 4t + 3 (+ 16q)][g], as build() loads them.
      SmallVector<SmallVector<Value, 4>> bRegs(warp.colTiles());
      for (int64_t j = 0; j < warp.colTiles(); ++j) {
        Value offset;
        NVVM::MMALayout ldLayout;
        if (!pb.denseKMajor) {
          // Lane L: row p = tile + L % 8, chunk L / 8 (plain ldmatrix).
          Value row = ir.add(
              ir.add(ir.mul(kp.warpCol, ir.i32(warp.cols)), ir.i32(j * kMmaN)),
              arith::RemUIOp::create(b, kp.lane, ir.i32(8)));
          offset = bPMajorChunkAt(
              row, arith::ShRUIOp::create(b, kp.lane, ir.i32(3)));
          ldLayout = NVVM::MMALayout::row;
        } else {
          // Lane L: row k = L, the chunk of the tile's 8 columns
          // (ldmatrix.trans gives each lane D[2t, 2t + 1][g]).
          Value c = ir.add(
              ir.mul(kp.warpCol, ir.i32(warp.cols / elemsPerChunk)), ir.i32(j));
          offset = bKMajorChunkAt(kp.lane, c);
          ldLayout = NVVM::MMALayout::col;
        }
        Value frag = NVVM::LdMatrixOp::create(
            b, x4Type,
            byteAt(smem, ir.add(base, ir.add(ir.i32(layout.aBytes), offset))),
            4, ldLayout, shape, NVVM::LdStMatrixEltType::B16);
        bRegs[j] = regsOf(frag);
      }
      if (pb.denseS) {
        acc = denseMmaStep(ir, pb, warp, aRegs, bRegs, acc);
      } else {
        SmallVector<SmallVector<Value, 4>> aSparse;
        for (const SmallVector<Value, 8> &regs : aRegs)
          aSparse.emplace_back(regs.begin(), regs.end());
        acc = mmaSpStep(ir, pb, warp, ordered, aSparse, bRegs, metaWords, acc);
      }
    }
    // The ring moves by one stage: drop the words just used, append the
    // ones loaded ahead.
    SmallVector<Value> next = acc;
    llvm::append_range(next, carried.slice(accCount + kSteps * wordsPerStep,
                                           metaCount - kSteps * wordsPerStep));
    llvm::append_range(next, aheadWords);
    Value nextSlot = ir.add(slot, ir.i32(1));
    next.push_back(arith::SelectOp::create(
        b,
        arith::CmpIOp::create(b, arith::CmpIPredicate::eq, nextSlot,
                              ir.i32(stages)),
        ir.i32(0), nextSlot));
    scf::YieldOp::create(b, next);
  }
  ValueRange results = loop.getResults().take_front(accCount);
  if (!vectorStores) {
    storeWarpTile(ir, pb, kp, results);
    return;
  }
  // The staged stores lay each warp's region over the stages: the last
  // iterations waited for every cp.async group, and once every warp has
  // passed this barrier nobody reads a stage again.
  gpu::BarrierOp::create(b);
  Value warpIndex = arith::DivUIOp::create(b, kp.tid, ir.i32(kWarpSize));
  storeWarpTile(
      ir, pb, kp, results,
      byteAt(smem,
             ir.mul(warpIndex, ir.i32(stagingRegionBytes(pb, warp.cols)))));
}
