//===- MmaSpFragments.cpp - the pieces of the mma.sp kernels ---*- C++ -*-===//
//
// See MmaSpFragments.h.
//
//===----------------------------------------------------------------------===//
#include "passes/GPU/MmaSpFragments.h"
#include "passes/GPU/FragmentStores.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace mlir::stc;
using namespace mlir::stc::gpu_kernel;

SmallVector<Value> mlir::stc::gpu_kernel::zeroAccumulators(KernelIR &ir,
                                                           const Problem &pb,
                                                           WarpTile warp) {
  Value zero = pb.f16Acc ? ir.zeroOf(VectorType::get({2}, ir.b.getF16Type()))
               : pb.int8 ? ir.i32(0)
                         : ir.f32(0.0);
  return SmallVector<Value>(warp.rowTiles() * warp.colTiles() * accRegs(pb),
                            zero);
}

/// Two elements packed as one register: vector<2xf16> for f16, i32 for
/// bf16.
static Value packPair(KernelIR &ir, const Problem &pb, Value lo, Value hi) {
  ImplicitLocOpBuilder &b = ir.b;
  auto vecType = VectorType::get({2}, pb.inputType);
  Value vec = LLVM::UndefOp::create(b, vecType);
  vec = LLVM::InsertElementOp::create(b, vec, lo, ir.i32(0));
  vec = LLVM::InsertElementOp::create(b, vec, hi, ir.i32(1));
  if (pb.inputType.isF16())
    return vec;
  return LLVM::BitcastOp::create(b, b.getI32Type(), vec);
}

/// Four i8 elements packed as one i32 register (element 0 in the low
/// byte), the form of every i8 mma operand register.
static Value packQuad(KernelIR &ir, ArrayRef<Value> bytes) {
  ImplicitLocOpBuilder &b = ir.b;
  auto vecType = VectorType::get({4}, b.getI8Type());
  Value vec = LLVM::UndefOp::create(b, vecType);
  for (auto [i, v] : llvm::enumerate(bytes))
    vec = LLVM::InsertElementOp::create(b, vec, v, ir.i32(i));
  return LLVM::BitcastOp::create(b, b.getI32Type(), vec);
}

Value mlir::stc::gpu_kernel::packRegister(KernelIR &ir, const Problem &pb,
                                          ArrayRef<Value> elems) {
  if (elems.size() == 4)
    return packQuad(ir, elems);
  if (elems.size() == 2)
    return packPair(ir, pb, elems[0], elems[1]);
  return NVVM::ConvertFloatToTF32Op::create(ir.b, ir.b.getI32Type(), elems[0],
                                            NVVM::FPRoundingMode::RNA)
      .getResult();
}

// mmaSpMetaWordIndex(rb, s, lane, V) = ((rb * V + s / 4) * 32 + lane) * 4
// + s % 4, with s = step (m16n8k32.b16 and m16n8k16.tf32: one K step per
// metadata block, one word for both tiles) or s = 2 * step + tile
// (m16n8k64.i8): the part of rb and the lane once, the part of s per step.
MetadataStream mlir::stc::gpu_kernel::metadataStream(KernelIR &ir,
                                                     const KernelPrologue &k) {
  ImplicitLocOpBuilder &b = ir.b;
  Value firstBlock =
      arith::DivUIOp::create(b, k.rowBase, ir.i32(kMetaBlockRows));
  MetadataStream stream;
  for (int64_t blk = 0; blk < k.warp.rows / kMetaBlockRows; ++blk) {
    Value rowBlock = ir.add(firstBlock, ir.i32(blk));
    Value inBounds = ir.lt(rowBlock, k.metaRowBlocks);
    Value safeBlock = arith::SelectOp::create(b, inBounds, rowBlock, ir.i32(0));
    stream.inBounds.push_back(inBounds);
    stream.first.push_back(
        ir.add(ir.mul(ir.wide(ir.mul(safeBlock, k.metaVectors)), ir.i64(128)),
               ir.wide(ir.mul(k.lane, ir.i32(4)))));
  }
  return stream;
}

SmallVector<Value, 2> mlir::stc::gpu_kernel::metadataWords(
    KernelIR &ir, const Problem &pb, const KernelPrologue &k,
    const MetadataStream &stream, Value step, Value lastStep) {
  ImplicitLocOpBuilder &b = ir.b;
  if (lastStep)
    step = arith::MinSIOp::create(b, step, lastStep);
  // Word s of a block is (s / 4) * 128 + s % 4 words past its step 0.
  auto offsetOf = [&](Value s) {
    return ir.wide(
        ir.add(ir.mul(arith::ShRUIOp::create(b, s, ir.i32(2)), ir.i32(128)),
               arith::AndIOp::create(b, s, ir.i32(3))));
  };
  SmallVector<Value, 2> offsets;
  if (!pb.int8) {
    offsets.push_back(offsetOf(step));
  } else {
    Value first = ir.mul(step, ir.i32(2));
    offsets.push_back(offsetOf(first));
    offsets.push_back(offsetOf(ir.add(first, ir.i32(1))));
  }
  // Warps past the last row block read the padding word: every nibble
  // 0x4, legal, over zero values.
  Value pad = arith::ConstantIntOp::create(b, 0x44444444, 32);
  SmallVector<Value, 2> words;
  for (auto [inBounds, first] : llvm::zip(stream.inBounds, stream.first))
    for (Value offset : offsets)
      words.push_back(arith::SelectOp::create(
          b, inBounds,
          ir.loadAt(k.args.meta, b.getI32Type(), ir.add(first, offset)), pad));
  return words;
}

/// The struct an mma of `pb` returns: its accumulator registers (f32, s32
/// or f16x2).
static LLVM::LLVMStructType accumulatorStruct(ImplicitLocOpBuilder &b,
                                              const Problem &pb) {
  Type accType = pb.f16Acc ? Type(VectorType::get({2}, b.getF16Type()))
                 : pb.int8 ? Type(b.getI32Type())
                           : Type(b.getF32Type());
  return LLVM::LLVMStructType::getLiteral(
      b.getContext(), SmallVector<Type>(accRegs(pb), accType));
}

/// The accumulators after `step(i, j, c)`, which gives the new registers
/// of tile (i, j) of the warp tile from its registers `c`, tile by tile in
/// the order of `acc`.
static SmallVector<Value> eachTile(
    const Problem &pb, WarpTile warp, ValueRange acc,
    function_ref<SmallVector<Value, 4>(int64_t, int64_t, SmallVector<Value, 4>)>
        step) {
  SmallVector<Value> next;
  for (int64_t i = 0; i < warp.rowTiles(); ++i) {
    for (int64_t j = 0; j < warp.colTiles(); ++j) {
      int64_t base = (i * warp.colTiles() + j) * accRegs(pb);
      SmallVector<Value, 4> c(acc.begin() + base,
                              acc.begin() + base + accRegs(pb));
      llvm::append_range(next, step(i, j, std::move(c)));
    }
  }
  return next;
}

/// The accumulator registers of an mma's result struct.
static SmallVector<Value, 4> registersOf(ImplicitLocOpBuilder &b,
                                         const Problem &pb, Value mma) {
  SmallVector<Value, 4> regs;
  for (int64_t e = 0; e < accRegs(pb); ++e)
    regs.push_back(LLVM::ExtractValueOp::create(b, mma, e));
  return regs;
}

SmallVector<Value>
mlir::stc::gpu_kernel::mmaSpStep(KernelIR &ir, const Problem &pb, WarpTile warp,
                                 bool ordered,
                                 ArrayRef<SmallVector<Value, 4>> aRegs,
                                 ArrayRef<SmallVector<Value, 4>> bRegs,
                                 ArrayRef<Value> metaWords, ValueRange acc) {
  ImplicitLocOpBuilder &b = ir.b;
  auto resultType = accumulatorStruct(b, pb);
  std::optional<std::array<NVVM::MMATypes, 2>> ptxTypes;
  if (pb.inputType.isBF16())
    ptxTypes = std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::bf16,
                                             NVVM::MMATypes::bf16};
  if (pb.tf32)
    ptxTypes = std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::tf32,
                                             NVVM::MMATypes::tf32};
  std::optional<NVVM::MMAIntOverflow> overflow;
  if (pb.int8) {
    ptxTypes =
        std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::s8, NVVM::MMATypes::s8};
    // Wrapping s32 accumulation, as the CPU path's i32 adds.
    overflow = NVVM::MMAIntOverflow::wrapped;
  }
  return eachTile(pb, warp, acc,
                  [&](int64_t i, int64_t j, SmallVector<Value, 4> c) {
                    // i8: each tile's own word, F = 0; otherwise the word of
                    // the tile's 32-row block, F = the tile's half of it.
                    Value word = pb.int8 ? metaWords[i] : metaWords[i / 2];
                    auto mma = NVVM::MmaSpOp::create(
                        b, resultType, aRegs[i], bRegs[j], c, word,
                        ir.i32(pb.int8 ? 0 : i % 2),
                        ArrayRef<int64_t>{kMmaM, kMmaN, mmaSpInstructionK(pb)},
                        overflow, ptxTypes);
                    if (ordered)
                      mma.setOrderedMetadata(true);
                    return registersOf(b, pb, mma);
                  });
}

SmallVector<Value> mlir::stc::gpu_kernel::denseMmaStep(
    KernelIR &ir, const Problem &pb, WarpTile warp,
    ArrayRef<SmallVector<Value, 8>> aRegs,
    ArrayRef<SmallVector<Value, 4>> bRegs, ValueRange acc) {
  ImplicitLocOpBuilder &b = ir.b;
  auto resultType = accumulatorStruct(b, pb);
  NVVM::MMATypes ptx =
      pb.inputType.isBF16() ? NVVM::MMATypes::bf16 : NVVM::MMATypes::f16;
  std::array<NVVM::MMATypes, 2> ptxTypes{ptx, ptx};
  std::array<NVVM::MMALayout, 2> layouts{NVVM::MMALayout::row,
                                         NVVM::MMALayout::col};
  return eachTile(
      pb, warp, acc, [&](int64_t i, int64_t j, SmallVector<Value, 4> c) {
        for (int64_t half = 0; half < 2; ++half) {
          auto mma = NVVM::MmaOp::create(
              b, resultType, ArrayRef<Value>(aRegs[i]).slice(4 * half, 4),
              ArrayRef<Value>(bRegs[j]).slice(2 * half, 2), c,
              ArrayRef<int64_t>{kMmaM, kMmaN, 16},
              /*b1Op=*/std::nullopt, /*intOverflow=*/std::nullopt, ptxTypes,
              layouts);
          c = registersOf(b, pb, mma);
        }
        return c;
      });
}

int64_t mlir::stc::gpu_kernel::stagedSharedBytes(
    const Problem &pb, int64_t blockRows, int64_t blockCols, WarpTile warp,
    int64_t stages, int64_t kSteps, bool vectorStores) {
  int64_t elemBytes = pb.inputType.getIntOrFloatBitWidth() / 8;
  int64_t bytes = stages * StagedLayout(blockRows, blockCols, elemBytes, warp,
                                        kSteps, pb.denseS)
                               .stageBytes;
  if (vectorStores)
    bytes = std::max(bytes, warp.warpsIn(blockRows, blockCols) *
                                stagingRegionBytes(pb, warp.cols));
  return bytes;
}

void mlir::stc::gpu_kernel::storeWarpTile(KernelIR &ir, const Problem &pb,
                                          const KernelPrologue &k,
                                          ValueRange acc, Value staging) {
  ImplicitLocOpBuilder &b = ir.b;
  // Accumulator e of tile (i, j) is Out[row g + 8 (e >> 1)][col 2t + (e & 1)]
  // of the tile: value 4 j + e of 16-row tile i in FragmentStores' terms.
  FragmentTiles tiles;
  for (int64_t i = 0; i < k.warp.rowTiles(); ++i)
    tiles.firstRow.push_back(ir.add(k.rowBase, ir.i32(i * kMmaM)));
  tiles.cols = k.warp.cols;
  SmallVector<Value> values;
  for (Value reg : acc) {
    // f16 accumulators: register e / 2 holds elements e, e + 1 of the
    // tile's rows g (e < 2) and g + 8 as f16x2.
    if (!pb.f16Acc) {
      values.push_back(reg);
      continue;
    }
    for (int64_t half = 0; half < 2; ++half)
      values.push_back(LLVM::ExtractElementOp::create(b, reg, ir.i32(half)));
  }
  auto column = [&](Value c) -> TileColumn {
    Value p = ir.add(k.colBase, c);
    return {p, ir.lt(p, k.args.cols)};
  };
  if (staging) {
    storeFragmentsAsVectors(ir, pb, k, tiles, column, staging, values);
  } else {
    OutputStore output = outputStoreOf(k);
    const int64_t perTile = tiles.cols / 2;
    for (auto [index, v] : llvm::enumerate(values)) {
      int64_t m = static_cast<int64_t>(index) / perTile;
      auto [r, c] =
          fragmentPlace(ir, k, tiles, m, static_cast<int64_t>(index) % perTile);
      // (storeResult checks r < R and p < P itself.)
      storeResult(ir, pb, output, v, r, ir.add(k.colBase, c));
    }
  }
  gpu::ReturnOp::create(b);
}
