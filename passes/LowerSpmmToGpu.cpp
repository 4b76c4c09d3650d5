//===- LowerSpmmToGpu.cpp - stc.spmm to mma.sp GPU kernels ----*- C++ -*-===//
//
// Lowers every stc.spmm to a generated GPU kernel built on the PTX sparse
// tensor core instruction (nvvm.mma.sp.sync, m16n8k32, f16/bf16 inputs, f32
// accumulation), and the host code that launches it.
//
// As on the CPU, every shape is one canonical problem
//
//   Out[R, P] = S[R, Kp] . D[Kp, P]
//
// with S the sparse operand: its values in the canonical compressed format
// (read as they are: canonical rows are already the register layout of the
// mma.sp A fragment, see docs/GPU-LAYOUT.md), its metadata in the
// kernel-ready layout (one 32-bit word per lane per K step serves a warp's
// two 16-row tiles; computed here for constant weights, by a generated
// conversion kernel on the device for run-time ones) and D
// the dense operand, addressed in place in whichever orientation the program
// has it. For a sparse rhs (X . W) the kernel computes the transposed product
// and its epilogue stores the transpose.
//
// Kernel: a block of 4 warps computes a 64 x 64 tile of Out; each warp a
// 32 x 32 tile as 2 x 4 mma.sp m16n8k32 per step of 32 along K. Fragments
// are loaded from global memory with bounds checks (zeros, and the legal
// metadata nibble 0x4, past the edges), so any R, P, K is correct and
// nothing is read or written out of bounds. The epilogue (alpha, beta * acc,
// bias, ReLU/GELU, output type) runs on the accumulator registers before the
// store. That is the "direct" kernel; the "staged" one (kernel=auto where
// it applies) copies each K step of A and B into swizzled shared memory
// with a multi-stage cp.async pipeline (zero-filled past the edges) and
// reads fragments with ldmatrix, for f16/bf16, tf32 and i8 (tf32 and i8
// with a p-major D) when the rows it copies are 16-byte aligned. When that
// depends on a dynamic leading dimension, both kernels are generated and
// the host picks one at run time (kernel_info `fallback_kernel`).
//
// Host: this pass runs before bufferization, which cannot see through a
// kernel launch, so it replaces stc.spmm with a call to a private function
// taking buffers (inputs, then the result), declared with attribute
// `stc.gpu_spmm_host`; stc-gpu-host-launch defines its body (device buffers,
// copies, launch) after bufferization.
//
//===----------------------------------------------------------------------===//
#include "passes/CpuEpilogue.h"
#include "passes/GpuKernelBuilder.h"
#include "passes/GpuKernelInfo.h"
#include "passes/HopperTiling.h"
#include "passes/Passes.h"

#include "dialects/Stc/StcOps.h"
#include "runtime/format/StcGpuLayout.h"
#include "runtime/format/StcHopperLayout.h"
#include "runtime/format/StcLimits.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::stc {
#define GEN_PASS_DEF_STCLOWERSPMMTOGPU
#include "passes/Passes.h.inc"
} // namespace mlir::stc

using namespace mlir;
using namespace mlir::stc;

using namespace mlir::stc::gpu_kernel;

namespace {

/// Shared-memory geometry of the staged kernel for a block tile. A K step
/// has the same bytes for every element type (f16/bf16: 32 k, tf32: 16 k,
/// i8: 64 k): 32 bytes of stored A values per row, 64 bytes of B per
/// column. A k-major B (16-bit elements only: ldmatrix.trans) is 32 rows
/// of blockCols elements.
struct StagedLayout {
  int64_t threads, aBytes, bBytes, bKMajorRowBytes, stageBytes;
  StagedLayout(int64_t blockRows, int64_t blockCols, int64_t elemBytes)
      : threads((blockRows / kWarpRows) * (blockCols / kWarpCols) * kWarpSize),
        aBytes(blockRows * kARowBytes), bBytes(blockCols * kBPMajorRowBytes),
        bKMajorRowBytes(blockCols * elemBytes), stageBytes(aBytes + bBytes) {}
};

/// Whether a stc.spmm can use the staged kernel: never (element type and
/// dense orientation, or a static leading dimension that is not 16-byte
/// aligned), always (static and aligned), or only when the rows turn out to
/// be aligned at run time (a dynamic leading dimension: the staged kernel
/// and a direct fallback, chosen by the host).
enum class Staging { never, always, ifAligned };

} // namespace

Value KernelBuilder::packPair(Value lo, Value hi) {
  auto vecType = VectorType::get({2}, pb.inputType);
  Value vec = LLVM::UndefOp::create(b, vecType);
  vec = LLVM::InsertElementOp::create(b, vec, lo, i32(0));
  vec = LLVM::InsertElementOp::create(b, vec, hi, i32(1));
  if (pb.inputType.isF16())
    return vec;
  return LLVM::BitcastOp::create(b, b.getI32Type(), vec);
}

Value KernelBuilder::packQuad(ArrayRef<Value> bytes) {
  auto vecType = VectorType::get({4}, b.getI8Type());
  Value vec = LLVM::UndefOp::create(b, vecType);
  for (auto [i, v] : llvm::enumerate(bytes))
    vec = LLVM::InsertElementOp::create(b, vec, v, i32(i));
  return LLVM::BitcastOp::create(b, b.getI32Type(), vec);
}

Value KernelBuilder::activation(Value x) {
  switch (pb.activation) {
  case Activation::none:
    return x;
  case Activation::relu:
    // maximumf keeps NaN, as the CPU path does.
    return arith::MaximumFOp::create(b, x, f32(0.0));
  case Activation::gelu_tanh:
  case Activation::gelu_erf: {
    // exp through the hardware's ex2.approx (the NVVM intrinsic, called by
    // name), |x| and copysign with arith ops: math ops and LLVM's own
    // exp2/fabs would become libdevice calls (or be rejected) in
    // convert-gpu-to-nvvm, and no libdevice is needed to build or load the
    // kernel this way. (The emulator maps the intrinsic back to exp2.)
    auto exp = [&](Value y) {
      Value scaled = arith::MulFOp::create(b, y, f32(1.4426950408889634));
      return LLVM::CallIntrinsicOp::create(b, b.getF32Type(),
                                           b.getStringAttr(kEx2Intrinsic),
                                           ValueRange{scaled})
          .getResult(0);
    };
    Value inner;
    if (pb.activation == Activation::gelu_tanh) {
      // tanh(y) = 1 - 2 / (exp(2y) + 1), y = sqrt(2/pi) (x + 0.044715 x^3).
      Value x3 = arith::MulFOp::create(b, arith::MulFOp::create(b, x, x), x);
      Value y = arith::MulFOp::create(
          b, f32(0.7978845608028654),
          arith::AddFOp::create(b, x,
                                arith::MulFOp::create(b, f32(0.044715), x3)));
      // Clamp so that exp(2y) stays finite; tanh is +-1 there anyway.
      y = arith::MinimumFOp::create(
          b, arith::MaximumFOp::create(b, y, f32(-15.0)), f32(15.0));
      Value e = exp(arith::MulFOp::create(b, y, f32(2.0)));
      inner = arith::SubFOp::create(
          b, f32(1.0),
          arith::DivFOp::create(b, f32(2.0),
                                arith::AddFOp::create(b, e, f32(1.0))));
    } else {
      // erf(z), z = x / sqrt(2), by Abramowitz & Stegun 7.1.26 (absolute
      // error below 1.5e-7), odd in z.
      Value z = arith::MulFOp::create(b, x, f32(0.7071067811865476));
      Value az = arith::MaximumFOp::create(b, z, arith::NegFOp::create(b, z));
      Value tt = arith::DivFOp::create(
          b, f32(1.0),
          arith::AddFOp::create(b, f32(1.0),
                                arith::MulFOp::create(b, f32(0.3275911), az)));
      const double coeffs[] = {1.061405429, -1.453152027, 1.421413741,
                               -0.284496736, 0.254829592};
      Value poly = f32(coeffs[0]);
      for (int i = 1; i < 5; ++i)
        poly = arith::AddFOp::create(b, arith::MulFOp::create(b, poly, tt),
                                     f32(coeffs[i]));
      poly = arith::MulFOp::create(b, poly, tt);
      Value negZ2 = arith::NegFOp::create(b, arith::MulFOp::create(b, az, az));
      Value erfAbs = arith::SubFOp::create(
          b, f32(1.0), arith::MulFOp::create(b, poly, exp(negZ2)));
      inner = arith::SelectOp::create(
          b, arith::CmpFOp::create(b, arith::CmpFPredicate::OLT, z, f32(0.0)),
          arith::NegFOp::create(b, erfAbs), erfAbs);
    }
    Value half = arith::MulFOp::create(b, f32(0.5), x);
    return arith::MulFOp::create(b, half,
                                 arith::AddFOp::create(b, f32(1.0), inner));
  }
  }
  llvm_unreachable("unknown activation");
}

void KernelBuilder::prologue(gpu::GPUFuncOp func) {
  Block &entry = func.getBody().front();
  b.setInsertionPointToStart(&entry);
  unsigned arg = 0;
  auto global = [&](Value p) {
    return LLVM::AddrSpaceCastOp::create(
        b, LLVM::LLVMPointerType::get(b.getContext(), 1), p);
  };
  values = global(entry.getArgument(arg++));
  meta = global(entry.getArgument(arg++));
  dense = global(entry.getArgument(arg++));
  bias = pb.hasBias ? global(entry.getArgument(arg++)) : Value();
  accIn = pb.hasAcc ? global(entry.getArgument(arg++)) : Value();
  scale = pb.hasScale ? global(entry.getArgument(arg++)) : Value();
  out = global(entry.getArgument(arg++));
  rows = entry.getArgument(arg++);
  cols = entry.getArgument(arg++);
  depth = entry.getArgument(arg++);
  valueCols = entry.getArgument(arg++);
  metaCols = entry.getArgument(arg++);
  if (pb.conv) {
    batch = entry.getArgument(arg++);
    inH = entry.getArgument(arg++);
    inW = entry.getArgument(arg++);
    outH = entry.getArgument(arg++);
    outW = entry.getArgument(arg++);
  }

  auto toI32 = [&](Value index) {
    return arith::IndexCastOp::create(b, b.getI32Type(), index);
  };
  tid = toI32(gpu::ThreadIdOp::create(b, gpu::Dimension::x));
  Value warp = arith::DivUIOp::create(b, tid, i32(kWarpSize));
  lane = arith::RemUIOp::create(b, tid, i32(kWarpSize));
  g = arith::ShRUIOp::create(b, lane, i32(2));
  t = arith::AndIOp::create(b, lane, i32(3));
  int64_t warpsAcross = blockCols / kWarpCols;
  warpRow = arith::DivUIOp::create(b, warp, i32(warpsAcross));
  warpCol = arith::RemUIOp::create(b, warp, i32(warpsAcross));
  steps = arith::DivUIOp::create(b, add(depth, i32(mmaK() - 1)), i32(mmaK()));
  metaRowBlocks = arith::DivUIOp::create(b, add(rows, i32(31)), i32(32));
  // Words per lane per row block: one per K step, two for i8 (one per
  // 16-row tile), in 128-bit vectors of four.
  Value laneWords = pb.int8 ? mul(steps, i32(2)) : steps;
  metaVectors = arith::DivUIOp::create(b, add(laneWords, i32(3)), i32(4));
  Value blockY = toI32(gpu::BlockIdOp::create(b, gpu::Dimension::y));
  outLd = rows;
  if (pb.conv) {
    // Grid y stacks the row tiles of every group: group = y / tiles. Each
    // group is its own GEMM over rows [group * R, (group + 1) * R) of the
    // filter, bias and output channels and input channels
    // [group * C, (group + 1) * C): offset the base pointers once.
    Value rowTiles = arith::DivUIOp::create(b, add(rows, i32(blockRows - 1)),
                                            i32(blockRows));
    Value group = arith::DivUIOp::create(b, blockY, rowTiles);
    blockY = arith::RemUIOp::create(b, blockY, rowTiles);
    Value firstRow = wide(mul(group, rows));
    auto advance = [&](Value &ptr, Type type, Value elems) {
      if (ptr)
        ptr =
            LLVM::GEPOp::create(b, ptr.getType(), type, ptr, ValueRange{elems});
    };
    advance(values, pb.inputType, mul(firstRow, wide(valueCols)));
    // Kernel-ready metadata is laid out group after group (128 words per
    // row block and vector).
    advance(
        meta, b.getI32Type(),
        mul(wide(group), wide(mul(mul(metaRowBlocks, metaVectors), i32(128)))));
    advance(bias, pb.biasType, firstRow);
    advance(accIn, pb.accType, firstRow);
    advance(out, pb.outputType, firstRow);
    advance(dense, pb.inputType, wide(mul(group, i32(pb.conv->c))));
    outLd = i32(pb.conv->oc);
  }
  blockRow = mul(blockY, i32(blockRows));
  blockCol =
      mul(toI32(gpu::BlockIdOp::create(b, gpu::Dimension::x)), i32(blockCols));
  rowBase = add(blockRow, mul(warpRow, i32(kWarpRows)));
  colBase = add(blockCol, mul(warpCol, i32(kWarpCols)));
  // Leading dimension of D: P when k-major (D is K x P), K otherwise.
  denseLd = pb.denseKMajor ? cols : depth;
  inputZero = zeroOf(pb.inputType);
}

KernelBuilder::PixelOrigin KernelBuilder::pixelOrigin(Value p) {
  PixelOrigin origin;
  origin.ok = lt(p, cols);
  if (!pb.conv)
    return origin;
  const ConvGeometry &cg = *pb.conv;
  Value image = mul(outH, outW);
  Value n = arith::DivUIOp::create(b, p, image);
  Value rest = arith::RemUIOp::create(b, p, image);
  Value oh = arith::DivUIOp::create(b, rest, outW);
  Value ow = arith::RemUIOp::create(b, rest, outW);
  origin.pixelBase = mul(n, mul(inH, inW));
  origin.ih0 = arith::SubIOp::create(b, mul(oh, i32(cg.strideH)), i32(cg.padH));
  origin.iw0 = arith::SubIOp::create(b, mul(ow, i32(cg.strideW)), i32(cg.padW));
  return origin;
}

std::pair<Value, Value> KernelBuilder::denseElement(const PixelOrigin &origin,
                                                    Value p, Value k) {
  Value ok = both(origin.ok, lt(k, depth));
  if (!pb.conv) {
    Value index = pb.denseKMajor ? add(mul(wide(k), wide(denseLd)), wide(p))
                                 : add(mul(wide(p), wide(denseLd)), wide(k));
    return {ok, index};
  }
  // k = (kh * KW + kw) * Cp + c; the tap (ih, iw) must be inside the image
  // and c a real channel.
  const ConvGeometry &cg = *pb.conv;
  Value tap = arith::DivUIOp::create(b, k, i32(cg.cp));
  Value c = arith::RemUIOp::create(b, k, i32(cg.cp));
  Value ih = add(origin.ih0, mul(arith::DivUIOp::create(b, tap, i32(cg.kw)),
                                 i32(cg.dilationH)));
  Value iw = add(origin.iw0, mul(arith::RemUIOp::create(b, tap, i32(cg.kw)),
                                 i32(cg.dilationW)));
  auto inside = [&](Value v, Value size) {
    // One unsigned compare: negative coordinates wrap to large values.
    return arith::CmpIOp::create(b, arith::CmpIPredicate::ult, v, size);
  };
  ok = both(ok, both(both(inside(ih, inH), inside(iw, inW)), lt(c, i32(cg.c))));
  Value pixel = add(add(origin.pixelBase, mul(ih, inW)), iw);
  Value index = add(mul(wide(pixel), wide(i32(cg.ic))), wide(c));
  return {ok, index};
}

SmallVector<Value, 2> KernelBuilder::metadataWords(Value step) {
  // mmaSpMetaWordIndex(rb, s, lane, V) = ((rb * V + s / 4) * 32 + lane) * 4
  // + s % 4, with s = step (m16n8k32.b16 and m16n8k16.tf32: one K step per
  // metadata block, one word for both tiles) or s = 2 * step + tile
  // (m16n8k64.i8). Warps past the last row block (a ragged R) read the
  // padding word: every nibble 0x4, legal, over zero values.
  Value rowBlock = arith::DivUIOp::create(b, rowBase, i32(32));
  Value pad = arith::ConstantIntOp::create(b, 0x44444444, 32);
  auto word = [&](Value s) {
    Value vector =
        add(mul(rowBlock, metaVectors), arith::DivUIOp::create(b, s, i32(4)));
    Value index = add(mul(add(mul(wide(vector), i64(32)), wide(lane)), i64(4)),
                      wide(arith::RemUIOp::create(b, s, i32(4))));
    return loadIf(lt(rowBlock, metaRowBlocks), meta, b.getI32Type(), index,
                  pad);
  };
  if (!pb.int8)
    return {word(step)};
  Value first = mul(step, i32(2));
  return {word(first), word(add(first, i32(1)))};
}

SmallVector<Value> KernelBuilder::mmaStep(ArrayRef<SmallVector<Value, 4>> aRegs,
                                          ArrayRef<SmallVector<Value, 4>> bRegs,
                                          ArrayRef<Value> metaWords,
                                          ValueRange acc) {
  Type accType = pb.f16Acc ? Type(VectorType::get({2}, b.getF16Type()))
                 : pb.int8 ? Type(b.getI32Type())
                           : Type(b.getF32Type());
  auto resultType = LLVM::LLVMStructType::getLiteral(
      b.getContext(), SmallVector<Type>(accRegs(), accType));
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
  SmallVector<Value> next;
  for (int64_t i = 0; i < kRowTiles; ++i) {
    for (int64_t j = 0; j < kColTiles; ++j) {
      int64_t base = (i * kColTiles + j) * accRegs();
      SmallVector<Value, 4> c(acc.begin() + base,
                              acc.begin() + base + accRegs());
      // i8: each tile's own word, F = 0; otherwise the shared word, F = i.
      Value word = pb.int8 ? metaWords[i] : metaWords[0];
      auto mma = NVVM::MmaSpOp::create(
          b, resultType, aRegs[i], bRegs[j], c, word, i32(pb.int8 ? 0 : i),
          ArrayRef<int64_t>{kMmaM, kMmaN, mmaK()}, overflow, ptxTypes);
      if (ordered)
        mma.setOrderedMetadata(true);
      for (int64_t e = 0; e < accRegs(); ++e)
        next.push_back(LLVM::ExtractValueOp::create(b, mma, e));
    }
  }
  return next;
}

void KernelBuilder::build(gpu::GPUFuncOp func) {
  prologue(func);
  // K loop: ceil(K / 32) steps, 2 x 4 tiles of 4 f32 accumulators each.
  // Each lane's B columns are fixed for the whole K loop: decompose them
  // (divisions by run-time sizes for a convolution) once, outside it.
  SmallVector<Value> bCols;
  SmallVector<PixelOrigin> bOrigins;
  for (int64_t j = 0; j < kColTiles; ++j) {
    bCols.push_back(add(add(colBase, i32(j * kMmaN)), g));
    bOrigins.push_back(pixelOrigin(bCols.back()));
  }
  SmallVector<Value> init = zeroAccumulators();
  auto loop = scf::ForOp::create(b, i32(0), steps, i32(1), init);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value k0 = mul(loop.getInductionVar(), i32(mmaK()));
    Value valueCol0 = arith::DivUIOp::create(b, k0, i32(2));
    // Every operand register is 32 bits of E = 32 / element bits
    // consecutive elements (E = 1 tf32, 2 f16/bf16, 4 i8), so the fragment
    // tables of the three shapes are one formula in E (PTX ISA, mma.sp
    // m16n8k16.tf32 / m16n8k32.f16 / m16n8k64.s8):
    //   A register j: row g + 8 (j & 1), stored columns
    //                 E t + 4 E (j >> 1) + {0 .. E - 1};
    //   B register q: column g, dense rows E t + 4 E q + {0 .. E - 1}.
    const int64_t perReg = 32 / pb.inputType.getIntOrFloatBitWidth();

    // A fragments of each 16-row tile.
    SmallVector<SmallVector<Value, 4>> aRegs(kRowTiles);
    for (int64_t i = 0; i < kRowTiles; ++i) {
      Value r0 = add(rowBase, i32(i * kMmaM));
      for (int64_t j = 0; j < 4; ++j) {
        Value row = add(add(r0, g), i32(8 * (j & 1)));
        Value rowOk = lt(row, rows);
        Value col = add(add(valueCol0, mul(t, i32(perReg))),
                        i32(4 * perReg * (j >> 1)));
        SmallVector<Value, 4> elems;
        for (int64_t e = 0; e < perReg; ++e) {
          Value c = add(col, i32(e));
          Value ok = both(rowOk, lt(c, valueCols));
          Value index = add(mul(wide(row), wide(valueCols)), wide(c));
          elems.push_back(loadIf(ok, values, pb.inputType, index, inputZero));
        }
        aRegs[i].push_back(packRegister(elems));
      }
    }
    SmallVector<Value, 2> metaWords = metadataWords(loop.getInductionVar());

    // B fragments of each 8-column tile (p = col + g).
    SmallVector<SmallVector<Value, 4>> bRegs(kColTiles);
    for (int64_t j = 0; j < kColTiles; ++j) {
      Value p = bCols[j];
      const PixelOrigin &origin = bOrigins[j];
      for (int64_t q = 0; q < 4; ++q) {
        SmallVector<Value, 4> elems;
        for (int64_t e = 0; e < perReg; ++e) {
          Value k = add(add(k0, mul(t, i32(perReg))), i32(4 * perReg * q + e));
          auto [ok, index] = denseElement(origin, p, k);
          elems.push_back(loadIf(ok, dense, pb.inputType, index, inputZero));
        }
        bRegs[j].push_back(packRegister(elems));
      }
    }
    scf::YieldOp::create(
        b, mmaStep(aRegs, bRegs, metaWords, loop.getRegionIterArgs()));
  }
  epilogue(loop.getResults());
}

void KernelBuilder::buildStaged(gpu::GPUFuncOp func,
                                LLVM::GlobalOp sharedMemory) {
  prologue(func);
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
  const int64_t elemsPerChunk = chunkElems();
  const int64_t elemBytes = kChunkBytes / elemsPerChunk;
  assert((!pb.denseKMajor || elemBytes == 2) &&
         "a k-major D is staged through ldmatrix.trans: 16-bit elements only");
  auto clampChunk = [&](Value n) {
    return arith::MinSIOp::create(b, arith::MaxSIOp::create(b, n, i32(0)),
                                  i32(elemsPerChunk));
  };
  // Bytes of A and B per stage (see the layout in buildStaged's comment in
  // the header of this file).
  StagedLayout layout(blockRows, blockCols, elemBytes);
  auto stageBase = [&](Value slot) {
    return mul(slot, i32(layout.stageBytes));
  };
  // Calls body(id) for the chunk ids tid, tid + threads, ... below `total`.
  // The second argument of body is the round (first / threads).
  auto forChunks = [&](int64_t total, function_ref<void(Value, int64_t)> body) {
    for (int64_t first = 0; first < total; first += layout.threads) {
      Value id = add(tid, i32(first));
      int64_t round = first / layout.threads;
      if (first + layout.threads <= total) {
        body(id, round);
        continue;
      }
      auto guard = scf::IfOp::create(b, lt(id, i32(total)), false);
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
      chunkOrigins.push_back(pixelOrigin(add(
          blockCol, arith::DivUIOp::create(b, add(tid, i32(first)), i32(4)))));

  // Issues the cp.async copies of K step `step` into stage `slot`; copies
  // past an edge read nothing (src-size 0 zero-fills) from a clamped,
  // aligned address.
  auto issueLoads = [&](Value step, Value slot) {
    Value base = stageBase(slot);
    auto copyChunk = [&](Value smemOffset, Value src, Value index,
                         Value validElems) {
      Value srcSize = mul(validElems, i32(elemBytes));
      Value safe = arith::SelectOp::create(
          b,
          arith::CmpIOp::create(b, arith::CmpIPredicate::sgt, validElems,
                                i32(0)),
          index, i64(0));
      Value from = LLVM::GEPOp::create(b, globalPtr, pb.inputType, src,
                                       ValueRange{safe});
      NVVM::CpAsyncOp::create(b, byteAt(smem, add(base, smemOffset)), from,
                              kChunkBytes, NVVM::LoadCacheModifierKind::CG,
                              srcSize);
    };
    // A: block rows x 2 chunks; chunk c of row r lives at chunk
    // c ^ ((r >> 2) & 1) (ldmatrix reads 8 rows of one chunk without bank
    // conflicts).
    // (A row of a K step: 2 chunks of 8 f16/bf16, 4 tf32 or 16 i8 values.)
    forChunks(blockRows * 2, [&](Value id, int64_t) {
      Value row = arith::DivUIOp::create(b, id, i32(2));
      Value c = arith::RemUIOp::create(b, id, i32(2));
      Value gRow = add(blockRow, row);
      Value col = add(mul(step, i32(mmaK() / 2)), mul(c, i32(elemsPerChunk)));
      Value valid = arith::SelectOp::create(
          b, lt(gRow, rows),
          clampChunk(arith::SubIOp::create(b, valueCols, col)), i32(0));
      Value phys = arith::XOrIOp::create(
          b, c,
          arith::AndIOp::create(b, arith::ShRUIOp::create(b, row, i32(2)),
                                i32(1)));
      Value offset =
          add(mul(row, i32(kARowBytes)), mul(phys, i32(kChunkBytes)));
      Value index = add(mul(wide(gRow), wide(valueCols)), wide(col));
      copyChunk(offset, values, index, valid);
    });
    // B: 4 chunks per column of the block.
    forChunks(bChunks, [&](Value id, int64_t round) {
      Value row, c, valid, phys, offset, index;
      if (!pb.denseKMajor) {
        // p-major: block cols rows (p) x 4 chunks of 8 k (tf32: 4, i8: 16);
        // chunk c of row r at c ^ ((r >> 1) & 3).
        row = arith::DivUIOp::create(b, id, i32(4));
        c = arith::RemUIOp::create(b, id, i32(4));
        Value p = add(blockCol, row);
        Value k = add(mul(step, i32(mmaK())), mul(c, i32(elemsPerChunk)));
        if (pb.conv) {
          // Implicit GEMM: with C a multiple of 8 a chunk of 8 k is 8
          // consecutive channels of one tap, all in or all out of the image.
          auto [ok, at] = denseElement(chunkOrigins[round], p, k);
          valid = arith::SelectOp::create(b, ok, i32(elemsPerChunk), i32(0));
          index = at;
        } else {
          valid = arith::SelectOp::create(
              b, lt(p, cols), clampChunk(arith::SubIOp::create(b, depth, k)),
              i32(0));
          index = add(mul(wide(p), wide(denseLd)), wide(k));
        }
        phys = arith::XOrIOp::create(
            b, c,
            arith::AndIOp::create(b, arith::ShRUIOp::create(b, row, i32(1)),
                                  i32(3)));
        offset =
            add(mul(row, i32(kBPMajorRowBytes)), mul(phys, i32(kChunkBytes)));
      } else {
        // k-major: 32 rows (k) x block cols / 8 chunks of 8 p; chunk c of
        // row r at c ^ (r & 7).
        int64_t chunksPerRow = blockCols / elemsPerChunk;
        row = arith::DivUIOp::create(b, id, i32(chunksPerRow));
        c = arith::RemUIOp::create(b, id, i32(chunksPerRow));
        Value k = add(mul(step, i32(mmaK())), row);
        Value p = add(blockCol, mul(c, i32(elemsPerChunk)));
        valid = arith::SelectOp::create(
            b, lt(k, depth), clampChunk(arith::SubIOp::create(b, cols, p)),
            i32(0));
        phys =
            arith::XOrIOp::create(b, c, arith::AndIOp::create(b, row, i32(7)));
        offset = add(mul(row, i32(layout.bKMajorRowBytes)),
                     mul(phys, i32(kChunkBytes)));
        index = add(mul(wide(k), wide(denseLd)), wide(p));
      }
      copyChunk(add(i32(layout.aBytes), offset), dense, index, valid);
    });
    NVVM::CpAsyncCommitGroupOp::create(b);
  };

  // Prologue of the pipeline: the first stages - 1 steps in flight (a
  // commit group per stage even when empty, so that wait counts hold).
  for (int64_t s = 0; s < stages - 1; ++s) {
    Value step = i32(s);
    auto inRange = scf::IfOp::create(b, lt(step, steps), false);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(inRange.thenBlock());
      issueLoads(step, i32(s));
    }
  }

  SmallVector<Value> init = zeroAccumulators();
  auto loop = scf::ForOp::create(b, i32(0), steps, i32(1), init);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value step = loop.getInductionVar();
    // Step `step` has landed once at most stages - 2 younger groups are
    // pending; the barrier also tells every thread that the slot the next
    // loads overwrite (the one computed in the previous iteration) is free.
    Value ahead = add(step, i32(stages - 1));
    Value aheadInRange = lt(ahead, steps);
    // Groups committed after step's: min(stages - 2, steps - 1 - step).
    // Waiting for stages - 2 is exact while the pipeline is full; at the
    // tail, wait for everything.
    Value tail = arith::CmpIOp::create(b, arith::CmpIPredicate::sge,
                                       add(step, i32(stages - 2)), steps);
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
      issueLoads(ahead, arith::RemUIOp::create(b, ahead, i32(stages)));
    }
    Value base = stageBase(arith::RemUIOp::create(b, step, i32(stages)));
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
    // A: ldmatrix.x4 per 16-row tile; lane L addresses row
    // (L % 8) + 8 ((L / 8) % 2) of the tile, chunk L / 16. Register j of
    // lane (g, t) is row g + 8 (j % 2), bytes 4t .. 4t + 3 of chunk j / 2:
    // stored columns 2t, 2t + 1 (+ 8) for f16/bf16, t (+ 4) for tf32, 4t ..
    // 4t + 3 (+ 16) for i8, the A fragment of each (see build()).
    SmallVector<SmallVector<Value, 4>> aRegs(kRowTiles);
    for (int64_t i = 0; i < kRowTiles; ++i) {
      Value row =
          add(add(mul(warpRow, i32(kWarpRows)), i32(i * kMmaM)),
              add(arith::RemUIOp::create(b, lane, i32(8)),
                  mul(arith::AndIOp::create(
                          b, arith::ShRUIOp::create(b, lane, i32(3)), i32(1)),
                      i32(8))));
      Value c = arith::ShRUIOp::create(b, lane, i32(4));
      Value phys = arith::XOrIOp::create(
          b, c,
          arith::AndIOp::create(b, arith::ShRUIOp::create(b, row, i32(2)),
                                i32(1)));
      Value offset = add(
          base, add(mul(row, i32(kARowBytes)), mul(phys, i32(kChunkBytes))));
      Value frag = NVVM::LdMatrixOp::create(b, x4Type, byteAt(smem, offset), 4,
                                            NVVM::MMALayout::row, shape,
                                            NVVM::LdStMatrixEltType::B16);
      aRegs[i] = regsOf(frag);
    }
    SmallVector<Value, 2> metaWords = metadataWords(loop.getInductionVar());
    // B: ldmatrix.x4 per 8-column tile, register q = k 8q .. 8q + 7 (tf32:
    // 4q .. 4q + 3, i8: 16q .. 16q + 15; the same bytes). Lane (g, t) gets
    // bytes 4t .. 4t + 3 of column p = g: D[2t, 2t + 1 (+ 8q)][g], tf32
    // D[t + 4q][g], i8 D[4t .. 4t + 3 (+ 16q)][g], as build() loads them.
    SmallVector<SmallVector<Value, 4>> bRegs(kColTiles);
    for (int64_t j = 0; j < kColTiles; ++j) {
      Value offset;
      NVVM::MMALayout ldLayout;
      if (!pb.denseKMajor) {
        // Lane L: row p = tile + L % 8, chunk L / 8 (plain ldmatrix).
        Value row = add(add(mul(warpCol, i32(kWarpCols)), i32(j * kMmaN)),
                        arith::RemUIOp::create(b, lane, i32(8)));
        Value c = arith::ShRUIOp::create(b, lane, i32(3));
        Value phys = arith::XOrIOp::create(
            b, c,
            arith::AndIOp::create(b, arith::ShRUIOp::create(b, row, i32(1)),
                                  i32(3)));
        offset =
            add(mul(row, i32(kBPMajorRowBytes)), mul(phys, i32(kChunkBytes)));
        ldLayout = NVVM::MMALayout::row;
      } else {
        // Lane L: row k = L, the chunk of the tile's 8 columns
        // (ldmatrix.trans gives each lane D[2t, 2t + 1][g]).
        Value c = add(mul(warpCol, i32(kWarpCols / elemsPerChunk)), i32(j));
        Value phys =
            arith::XOrIOp::create(b, c, arith::AndIOp::create(b, lane, i32(7)));
        offset = add(mul(lane, i32(layout.bKMajorRowBytes)),
                     mul(phys, i32(kChunkBytes)));
        ldLayout = NVVM::MMALayout::col;
      }
      Value frag = NVVM::LdMatrixOp::create(
          b, x4Type, byteAt(smem, add(base, add(i32(layout.aBytes), offset))),
          4, ldLayout, shape, NVVM::LdStMatrixEltType::B16);
      bRegs[j] = regsOf(frag);
    }
    scf::YieldOp::create(
        b, mmaStep(aRegs, bRegs, metaWords, loop.getRegionIterArgs()));
  }
  epilogue(loop.getResults());
}

void KernelBuilder::epilogue(ValueRange acc) {
  // Accumulator e of tile (i, j) is Out[row g + 8 (e >> 1)][col 2t + (e & 1)].
  for (int64_t i = 0; i < kRowTiles; ++i) {
    for (int64_t j = 0; j < kColTiles; ++j) {
      for (int64_t e = 0; e < 4; ++e) {
        Value r = add(add(add(rowBase, i32(i * kMmaM)), g), i32(8 * (e >> 1)));
        Value p =
            add(add(add(colBase, i32(j * kMmaN)), mul(t, i32(2))), i32(e & 1));
        // f16 accumulators: register e / 2 holds elements e, e + 1 of the
        // tile's rows g (e < 2) and g + 8 as f16x2.
        Value v;
        if (pb.f16Acc) {
          Value pair = acc[(i * kColTiles + j) * 2 + (e >> 1)];
          v = LLVM::ExtractElementOp::create(b, pair, i32(e & 1)).getResult();
        } else {
          v = acc[(i * kColTiles + j) * 4 + e];
        }
        storeResult(v, r, p);
      }
    }
  }
  gpu::ReturnOp::create(b);
}

void KernelBuilder::storeResult(Value v, Value r, Value p, Value alsoInBounds) {
  Type f32Type = b.getF32Type();
  Value ok = both(lt(r, rows), lt(p, cols));
  if (alsoInBounds)
    ok = both(ok, alsoInBounds);
  auto guard = scf::IfOp::create(b, ok, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard insertion(b);
  b.setInsertionPointToStart(guard.thenBlock());
  // Out is R x P for a sparse lhs, its transpose P x R for a sparse rhs;
  // acc has the result's shape.
  Value index = pb.sparseLhs ? add(mul(wide(r), wide(cols)), wide(p))
                             : add(mul(wide(p), wide(outLd)), wide(r));
  // An i32 result is the exact accumulator (no epilogue: verifier);
  // otherwise the f32 epilogue, in the CPU path's order:
  // (alpha * scale) * prod + beta * acc + bias.
  if (!pb.outputType.isInteger(32)) {
    v = epilogueToF32(b, v);
    Value factor = pb.alpha != 1.0 ? f32(pb.alpha) : Value();
    if (pb.hasScale) {
      Value sv = loadAt(scale, f32Type, wide(r));
      factor = factor ? arith::MulFOp::create(b, factor, sv).getResult() : sv;
    }
    if (factor)
      v = arith::MulFOp::create(b, v, factor);
    if (pb.hasAcc && pb.beta != 0.0) {
      Value a = epilogueToF32(b, loadAt(accIn, pb.accType, index));
      v = arith::AddFOp::create(b, v,
                                arith::MulFOp::create(b, a, f32(pb.beta)));
    }
    if (pb.hasBias) {
      Value bv = epilogueToF32(b, loadAt(bias, pb.biasType, wide(r)));
      v = arith::AddFOp::create(b, v, bv);
    }
    v = convertEpilogueResult(b, activation(v), pb.outputType);
  }
  Value ptr = LLVM::GEPOp::create(b, out.getType(), pb.outputType, out,
                                  ValueRange{index});
  LLVM::StoreOp::create(b, v, ptr);
}

namespace {

/// The block tile (rows x cols of the canonical problem Out[R, P]) for a
/// problem, before pass options override it. Warps are 32 x 32, so a
/// 64 x 64 tile is 4 warps and 128 x 128 is 16. Bigger tiles reuse each
/// staged chunk of A and B more (arithmetic intensity grows with the tile),
/// but leave SMs idle when the problem has few tiles: take the largest tile
/// that still gives at least kMinBlocks blocks (about two waves on the 108
/// to 132 SMs of A100/H100), growing the side of the problem that is larger;
/// small or dynamic problems keep 64 x 64.
static std::pair<int64_t, int64_t> chooseBlockTile(int64_t r, int64_t p) {
  constexpr int64_t kMinBlocks = 256;
  if (ShapedType::isDynamic(r) || ShapedType::isDynamic(p))
    return {64, 64};
  auto blocks = [&](int64_t tr, int64_t tc) {
    return ((r + tr - 1) / tr) * ((p + tc - 1) / tc);
  };
  if (blocks(128, 128) >= kMinBlocks)
    return {128, 128};
  if (r >= p && blocks(128, 64) >= kMinBlocks)
    return {128, 64};
  if (p > r && blocks(64, 128) >= kMinBlocks)
    return {64, 128};
  return {64, 64};
}

class LowerSpmmToGpu
    : public mlir::stc::impl::StcLowerSpmmToGpuBase<LowerSpmmToGpu> {
public:
  using StcLowerSpmmToGpuBase::StcLowerSpmmToGpuBase;
  void runOnOperation() override;

private:
  LogicalResult lower(SpmmOp op, gpu::GPUModuleOp kernels, unsigned index);
  /// Sets pb.f16Acc from the `accumulate` option. f16 accumulation exists
  /// for f16 operands only: other ops of the program keep f32, with a remark.
  LogicalResult applyAccumulator(Operation *op, Problem &pb) {
    pb.f16Acc = accumulate == "f16" && pb.inputType.isF16();
    if (accumulate == "f16" && !pb.f16Acc)
      op->emitRemark("stc-lower-spmm-to-gpu: accumulate=f16 applies to f16 "
                     "operands only (mma.sp accumulates bf16 and tf32 in "
                     "f32, i8 in s32); this ")
          << pb.inputType << " op accumulates in " << (pb.int8 ? "s32" : "f32");
    return success();
  }
  LogicalResult lower(ConvOp op, gpu::GPUModuleOp kernels, unsigned index);
  /// Generates kernel `name` for `pb` (canonical sizes r, p, k; dynamic ones
  /// ShapedType::kDynamic) and its stc.kernel_info, which `info` brings in
  /// with the op-specific fields set. `staging` says whether the staged
  /// kernel applies; `why` what it needs, for the error of kernel=staged.
  /// Staging::ifAligned gives the staged kernel `name` and a direct one,
  /// `name`_direct, with the same parameters, block and tile, which the
  /// host launches instead when the rows are not 16-byte aligned
  /// (kernel_info `fallback_kernel`, `staged_align`).
  LogicalResult emitKernel(Operation *op, gpu::GPUModuleOp kernels,
                           const Problem &pb, int64_t r, int64_t p, int64_t k,
                           Staging staging, StringRef why, GpuKernelInfo info);
  /// The metadata operand of kernel `info.kernel`: kernel-ready words
  /// (docs/GPU-LAYOUT.md, group after group) computed here when `meta` is a
  /// constant, else `meta` itself, which the host converts on the device
  /// with a generated kernel (named in `info`) before the launch.
  FailureOr<Value> prepareMetadata(Operation *op, gpu::GPUModuleOp kernels,
                                   Value meta, int64_t rowsPerGroup,
                                   int64_t groups, int64_t k,
                                   ::stc::format::MmaSpShape shape,
                                   GpuKernelInfo &info);
  /// The same for the sm_90a kernel: the Hopper kernel-ready layout
  /// (StcHopperLayout.h, toWgmmaSpMeta) at compile time or by a generated
  /// conversion kernel; `int8` picks the s8 (I8) word layout.
  FailureOr<Value> prepareHopperMetadata(Operation *op,
                                         gpu::GPUModuleOp kernels, Value meta,
                                         int64_t rows, int64_t k, bool int8,
                                         GpuKernelInfo &info);
  /// Why the sm_90a kernel does not apply to `op` ("" if it does).
  std::string hopperUnsupported(SpmmOp op, const Problem &pb);
  /// Whether `op` gets the sm_90a kernel: on target sm_90a with kernel
  /// auto or wgmma when `whyNot` is empty; otherwise the mma.sp kernels,
  /// with a remark saying why (an error for kernel=wgmma).
  FailureOr<bool> useHopperKernel(Operation *op, StringRef whyNot) {
    if (target != "sm_90a" ||
        (kernelVariant != "auto" && kernelVariant != "wgmma"))
      return false;
    if (whyNot.empty())
      return true;
    if (kernelVariant == "wgmma")
      return op->emitError("stc-lower-spmm-to-gpu: kernel=wgmma needs ")
             << whyNot;
    op->emitRemark("stc-lower-spmm-to-gpu: sm_90a: mma.sp kernel, since the "
                   "wgmma kernel needs ")
        << whyNot;
    return false;
  }
  std::string hopperUnsupported(ConvOp op, const Problem &pb);
  /// Generates the sm_90a kernel `info.kernel` (HopperKernelBuilder) and
  /// its kernel_info.
  LogicalResult emitHopperKernel(Operation *op, gpu::GPUModuleOp kernels,
                                 const Problem &pb, int64_t r, int64_t p,
                                 int64_t k, GpuKernelInfo info);
  /// Replaces `op` by a call to the private host function of kernel `name`
  /// on the buffers of `tensors` and of a new result buffer (dynamic sizes
  /// `dynamicSizes`).
  void emitHostCall(Operation *op, gpu::GPUModuleOp kernels, StringRef name,
                    ArrayRef<Value> tensors, ValueRange dynamicSizes);
};

/// memref of the same shape and element type as tensor type `t`.
static MemRefType bufferTypeOf(Type t) {
  auto tensor = cast<RankedTensorType>(t);
  return MemRefType::get(tensor.getShape(), tensor.getElementType());
}

/// The mma.sp shape the kernels use for `pb`'s element type.
static ::stc::format::MmaSpShape mmaShapeOf(const Problem &pb) {
  using ::stc::format::MmaSpShape;
  return pb.tf32   ? MmaSpShape::M16N8K16TF32
         : pb.int8 ? MmaSpShape::M16N8K64I8
                   : MmaSpShape::M16N8K32B16;
}

/// The epilogue and element types shared by stc.spmm and stc.conv.
template <typename OpTy>
static Problem problemOf(OpTy op) {
  Problem pb;
  Type valueType = op.getValues().getType().getElementType();
  pb.tf32 = valueType.isF32();
  pb.int8 = valueType.isInteger(8);
  pb.inputType = valueType;
  pb.outputType = op.getResult().getType().getElementType();
  pb.hasBias = static_cast<bool>(op.getBias());
  pb.hasAcc = static_cast<bool>(op.getAcc());
  pb.biasType = pb.hasBias ? op.getBias().getType().getElementType() : Type();
  pb.accType = pb.hasAcc ? op.getAcc().getType().getElementType() : Type();
  pb.alpha = op.getAlpha().convertToDouble();
  pb.beta = op.getBeta().convertToDouble();
  pb.activation = op.getActivation();
  return pb;
}

/// mma.sp has no f32 form: f32 runs as tf32, whose sparse shape is 1:2.
template <typename OpTy>
static LogicalResult checkGpuPattern(OpTy op) {
  Type valueType = op.getValues().getType().getElementType();
  if (valueType.isF32() && op.getPattern().getN() != 1)
    return op.emitError()
           << op->getName() << " on a GPU target computes f32 as tf32, "
           << "whose mma.sp needs the 1:2 pattern (--pattern=1:2), got "
           << op.getPattern().getN() << ":" << op.getPattern().getM()
           << "; or use f16/bf16 operands for 2:4";
  return success();
}

LogicalResult LowerSpmmToGpu::emitKernel(Operation *op,
                                         gpu::GPUModuleOp kernels,
                                         const Problem &pb, int64_t r,
                                         int64_t p, int64_t k, Staging staging,
                                         StringRef why, GpuKernelInfo info) {
  MLIRContext *ctx = op->getContext();
  Location loc = op->getLoc();
  const std::string &name = info.kernel;
  auto [tileRows, tileCols] = chooseBlockTile(r, p);
  // 256 rows or columns are for the sm_90a kernel; its mma.sp fallbacks
  // take 128.
  if (blockRows)
    tileRows = std::min<int64_t>(blockRows, 128);
  if (blockCols)
    tileCols = std::min<int64_t>(blockCols, 128);
  bool staged = kernelVariant == "staged" ||
                (kernelVariant == "auto" && staging != Staging::never);
  if (staged && staging == Staging::never)
    return op->emitError("stc-lower-spmm-to-gpu: kernel=staged needs ") << why;
  bool fallback = staged && staging == Staging::ifAligned;

  // Parameters: the buffers, then the canonical problem's sizes, then a
  // convolution's.
  SmallVector<std::string> paramNames = {"values", "meta", "dense"};
  if (pb.hasBias)
    paramNames.push_back("bias");
  if (pb.hasAcc)
    paramNames.push_back("acc");
  if (pb.hasScale)
    paramNames.push_back("scale");
  paramNames.push_back("out");
  unsigned numPointers = paramNames.size();
  for (const char *n : {"R", "P", "K", "value_cols", "meta_cols"})
    paramNames.push_back(n);
  if (pb.conv)
    for (const char *n : {"N", "H", "W", "OH", "OW"})
      paramNames.push_back(n);
  auto ptrType = LLVM::LLVMPointerType::get(ctx);
  SmallVector<Type> paramTypes(numPointers, ptrType);
  paramTypes.append(paramNames.size() - numPointers, IntegerType::get(ctx, 32));
  ImplicitLocOpBuilder kb(loc, ctx);
  kb.setInsertionPointToEnd(kernels.getBody());
  int64_t threads = (tileRows / kWarpRows) * (tileCols / kWarpCols) * 32;
  auto newKernel = [&](const std::string &kernelName) {
    auto kernel = gpu::GPUFuncOp::create(
        kb, kernelName, FunctionType::get(ctx, paramTypes, {}));
    kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), kb.getUnitAttr());
    kernel.setKnownBlockSizeAttr(
        kb.getDenseI32ArrayAttr({static_cast<int32_t>(threads), 1, 1}));
    return kernel;
  };
  auto kernel = newKernel(name);
  int64_t sharedBytes = 0;
  if (staged) {
    int64_t elemBytes = pb.inputType.getIntOrFloatBitWidth() / 8;
    sharedBytes =
        stages * StagedLayout(tileRows, tileCols, elemBytes).stageBytes;
    OpBuilder gb(kernels.getBodyRegion());
    gb.setInsertionPointToStart(kernels.getBody());
    auto arrayType =
        LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8), sharedBytes);
    auto smem = LLVM::GlobalOp::create(
        gb, loc, arrayType, /*isConstant=*/false, LLVM::Linkage::Internal,
        name + "_smem", Attribute(), /*alignment=*/16, /*addrSpace=*/3);
    KernelBuilder(kb, pb, tileRows, tileCols, stages, orderedMetadata)
        .buildStaged(kernel, smem);
    if (fallback) {
      // The direct kernel for rows the staged one cannot copy: same
      // parameters, block and tile (so the same grid), no shared memory.
      kb.setInsertionPointToEnd(kernels.getBody());
      info.fallbackKernel = name + "_direct";
      info.stagedAlign = kChunkBytes / elemBytes;
      KernelBuilder(kb, pb, tileRows, tileCols, stages, orderedMetadata)
          .build(newKernel(info.fallbackKernel));
    }
  } else {
    KernelBuilder(kb, pb, tileRows, tileCols, stages, orderedMetadata)
        .build(kernel);
  }

  // What tools (stc-compile --kernel-info) and the host lowering need to
  // know about it.
  info.blockThreads = threads;
  info.blockRows = tileRows;
  info.blockCols = tileCols;
  info.stages = staged ? static_cast<int64_t>(stages) : 0;
  info.paramNames.assign(paramNames.begin(), paramNames.end());
  info.numPointerParams = numPointers;
  info.rows = r;
  info.cols = p;
  info.depth = k;
  info.inputType = pb.inputType;
  info.outputType = pb.outputType;
  info.mma = pb.tf32 ? "m16n8k16" : pb.int8 ? "m16n8k64" : "m16n8k32";
  info.accumulator = pb.f16Acc ? "f16" : pb.int8 ? "s32" : "f32";
  info.orderedMetadata = orderedMetadata;
  info.variant = staged ? "staged" : "direct";
  info.metaKPerWord = pb.tf32 ? kMmaKTf32 : kMmaK;
  info.staticSharedBytes = sharedBytes;
  kernel->setAttr(kKernelInfoAttrName, info.toAttr(ctx));
  return success();
}

/// Threads per block of the metadata conversion kernel.
constexpr int64_t kMetaKernelThreads = 256;

/// Emits `name`(meta, words, R, meta_cols, row_blocks, vectors, total): one
/// thread per kernel-ready word, the inverse reading of the layout's index
/// formula (docs/GPU-LAYOUT.md; mmaSpMetaWordSources in StcGpuLayout.cpp).
/// Lane (g, t) of row block rb, word s holds
/// - m16n8k32.b16 and m16n8k16.tf32: canonical rows 16 (t / 2) + g and + 8
///   of the block (bits 15:0 and 31:16), canonical column 2 s + t % 2;
/// - m16n8k64.i8 (`int8`): row 16 (s % 2) + g + 8 (t % 2) in both halves,
///   canonical columns 4 (s / 2) + 2 (t / 2) and + 1.
/// - wgmma m64nNk32.b16 (`MetaKernelLayout::hopper`, StcHopperLayout.h):
///   64-row tiles, 128 threads; thread T = 32 w + 4 g + q of tile rt, word
///   s holds canonical rows 16 w + g and + 8 (bits 15:0 and 31:16),
///   canonical column 4 s + q.
/// - wgmma m64nNk64.s8 (`MetaKernelLayout::hopperInt8`): the same tiles
///   and word order; word s holds canonical row 16 w + g + 8 (q % 2) in
///   both halves, canonical columns 4 s + 2 (q / 2) and + 1.
/// Groups follow each other (R rows each, row_blocks * vectors * 128 words
/// each, 512 for Hopper); rows and columns past the operand give the
/// padding half 0x4444.
enum class MetaKernelLayout { b16, int8, hopper, hopperInt8 };
static void emitMetadataKernel(gpu::GPUModuleOp kernels, StringRef name,
                               Location loc, MetaKernelLayout layout) {
  const bool int8 = layout == MetaKernelLayout::int8;
  const bool hopper = layout == MetaKernelLayout::hopper ||
                      layout == MetaKernelLayout::hopperInt8;
  const int64_t threadsPerBlock = hopper ? 128 : 32;
  MLIRContext *ctx = kernels.getContext();
  ImplicitLocOpBuilder b(loc, ctx);
  b.setInsertionPointToEnd(kernels.getBody());
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  auto ptr = LLVM::LLVMPointerType::get(ctx);
  auto func = gpu::GPUFuncOp::create(
      b, name, FunctionType::get(ctx, {ptr, ptr, i32, i32, i32, i32, i32}, {}));
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  func.setKnownBlockSizeAttr(
      b.getDenseI32ArrayAttr({static_cast<int32_t>(kMetaKernelThreads), 1, 1}));
  Block &entry = func.getBody().front();
  b.setInsertionPointToStart(&entry);
  auto c = [&](int64_t v) { return arith::ConstantIntOp::create(b, v, 32); };
  auto global = [&](Value p) {
    return LLVM::AddrSpaceCastOp::create(b, LLVM::LLVMPointerType::get(ctx, 1),
                                         p);
  };
  Value meta = global(entry.getArgument(0));
  Value words = global(entry.getArgument(1));
  Value rows = entry.getArgument(2), metaCols = entry.getArgument(3),
        rowBlocks = entry.getArgument(4), vectors = entry.getArgument(5),
        total = entry.getArgument(6);
  auto toI32 = [&](Value index) {
    return arith::IndexCastOp::create(b, i32, index);
  };
  Value w = arith::AddIOp::create(
      b,
      arith::MulIOp::create(b,
                            toI32(gpu::BlockIdOp::create(b, gpu::Dimension::x)),
                            c(kMetaKernelThreads)),
      toI32(gpu::ThreadIdOp::create(b, gpu::Dimension::x)));
  auto inRange = scf::IfOp::create(
      b, arith::CmpIOp::create(b, arith::CmpIPredicate::ult, w, total),
      /*withElseRegion=*/false);
  b.setInsertionPointToStart(inRange.thenBlock());
  auto div = [&](Value x, Value y) { return arith::DivUIOp::create(b, x, y); };
  auto rem = [&](Value x, Value y) { return arith::RemUIOp::create(b, x, y); };
  auto add = [&](Value x, Value y) { return arith::AddIOp::create(b, x, y); };
  auto mul = [&](Value x, Value y) { return arith::MulIOp::create(b, x, y); };
  Value perGroup = mul(mul(rowBlocks, vectors), c(4 * threadsPerBlock));
  Value group = div(w, perGroup);
  Value inGroup = rem(w, perGroup);
  // inGroup = ((rb * V + s / 4) * threads + thread) * 4 + s % 4.
  Value thread = rem(div(inGroup, c(4)), c(threadsPerBlock));
  Value lane = rem(thread, c(32));
  Value vector = div(inGroup, c(4 * threadsPerBlock));
  Value rowBlock = div(vector, vectors);
  Value s = add(mul(rem(vector, vectors), c(4)), rem(inGroup, c(4)));
  Value g = div(lane, c(4)), t = rem(lane, c(4));
  Value blockRow = mul(rowBlock, c(hopper ? 64 : 32));
  // (row, column) of the low and the high half.
  Value row0, col0, row1, col1;
  if (layout == MetaKernelLayout::hopper) {
    row0 = add(add(blockRow, mul(div(thread, c(32)), c(16))), g);
    row1 = add(row0, c(8));
    col0 = col1 = add(mul(s, c(4)), t);
  } else if (layout == MetaKernelLayout::hopperInt8) {
    row0 = row1 = add(add(add(blockRow, mul(div(thread, c(32)), c(16))), g),
                      mul(rem(t, c(2)), c(8)));
    col0 = add(mul(s, c(4)), mul(div(t, c(2)), c(2)));
    col1 = add(col0, c(1));
  } else if (int8) {
    row0 = row1 = add(add(add(blockRow, mul(rem(s, c(2)), c(16))), g),
                      mul(rem(t, c(2)), c(8)));
    col0 = add(mul(div(s, c(2)), c(4)), mul(div(t, c(2)), c(2)));
    col1 = add(col0, c(1));
  } else {
    row0 = add(add(blockRow, mul(div(t, c(2)), c(16))), g);
    row1 = add(row0, c(8));
    col0 = col1 = add(mul(s, c(2)), rem(t, c(2)));
  }
  Value firstRow = mul(group, rows);
  auto half = [&](Value r, Value col) {
    Value ok = arith::AndIOp::create(
        b, arith::CmpIOp::create(b, arith::CmpIPredicate::ult, r, rows),
        arith::CmpIOp::create(b, arith::CmpIPredicate::ult, col, metaCols));
    Value index = arith::AddIOp::create(
        b,
        arith::MulIOp::create(b,
                              arith::ExtUIOp::create(b, i64, add(firstRow, r)),
                              arith::ExtUIOp::create(b, i64, metaCols)),
        arith::ExtUIOp::create(b, i64, col));
    Value safe = arith::SelectOp::create(
        b, ok, index, arith::ConstantIntOp::create(b, 0, 64));
    Value at = LLVM::GEPOp::create(b, meta.getType(), b.getI16Type(), meta,
                                   ValueRange{safe});
    Value v = LLVM::LoadOp::create(b, b.getI16Type(), at);
    v = arith::SelectOp::create(b, ok, v,
                                arith::ConstantIntOp::create(b, 0x4444, 16));
    return arith::ExtUIOp::create(b, i32, v).getResult();
  };
  Value word = arith::OrIOp::create(
      b, half(row0, col0), arith::ShLIOp::create(b, half(row1, col1), c(16)));
  Value at = LLVM::GEPOp::create(b, words.getType(), i32, words,
                                 ValueRange{arith::ExtUIOp::create(b, i64, w)});
  LLVM::StoreOp::create(b, word, at);
  b.setInsertionPointToEnd(&entry);
  gpu::ReturnOp::create(b);
}

FailureOr<Value> LowerSpmmToGpu::prepareMetadata(
    Operation *op, gpu::GPUModuleOp kernels, Value meta, int64_t rowsPerGroup,
    int64_t groups, int64_t k, ::stc::format::MmaSpShape shape,
    GpuKernelInfo &info) {
  using namespace ::stc::format;
  DenseIntElementsAttr constant;
  if (!ShapedType::isDynamic(rowsPerGroup) && !ShapedType::isDynamic(k) &&
      matchPattern(meta, m_Constant(&constant))) {
    // Constant weights: the layout is computed here, once, and compiled in.
    int64_t metaCols = cast<RankedTensorType>(meta.getType()).getDimSize(1);
    // A splat of a huge shape is not expanded (docs/RELIABILITY.md, limits).
    if (uint64_t(constant.getNumElements()) >
        ::stc::format::kMaxConstantBytes / 2)
      return op->emitError("stc-lower-spmm-to-gpu: constant metadata of ")
             << constant.getNumElements()
             << " elements is larger than the 2 GiB a constant may hold";
    std::vector<uint16_t> canonical;
    canonical.reserve(constant.getNumElements());
    for (const APInt &v : constant.getValues<APInt>())
      canonical.push_back(static_cast<uint16_t>(v.getZExtValue()));
    std::vector<int32_t> all;
    for (int64_t grp = 0; grp < groups; ++grp) {
      std::vector<uint32_t> words;
      Status status =
          toMmaSpMeta(shape,
                      View2D<const uint16_t>::rowMajor(
                          canonical.data() + grp * rowsPerGroup * metaCols,
                          rowsPerGroup, metaCols),
                      k, words);
      if (!status.ok())
        return op->emitError("stc-lower-spmm-to-gpu: constant metadata: ")
               << status.message;
      all.insert(all.end(), words.begin(), words.end());
    }
    OpBuilder b(op);
    auto type = RankedTensorType::get({static_cast<int64_t>(all.size())},
                                      b.getI32Type());
    info.metaLayout = "kernel_ready";
    return arith::ConstantOp::create(
               b, op->getLoc(), type,
               DenseElementsAttr::get(type, ArrayRef<int32_t>(all)))
        .getResult();
  }
  // Run-time weights: canonical metadata, converted on the device.
  info.metaLayout = "canonical";
  info.metaKernel = info.kernel + "_meta";
  emitMetadataKernel(kernels, info.metaKernel, op->getLoc(),
                     shape == MmaSpShape::M16N8K64I8 ? MetaKernelLayout::int8
                                                     : MetaKernelLayout::b16);
  return meta;
}

void LowerSpmmToGpu::emitHostCall(Operation *op, gpu::GPUModuleOp kernels,
                                  StringRef name, ArrayRef<Value> tensors,
                                  ValueRange dynamicSizes) {
  MLIRContext *ctx = op->getContext();
  Location loc = op->getLoc();
  ImplicitLocOpBuilder b(loc, op);
  SmallVector<Value> buffers;
  SmallVector<Type> bufferTypes;
  for (Value t : tensors) {
    MemRefType type = bufferTypeOf(t.getType());
    buffers.push_back(
        bufferization::ToBufferOp::create(b, type, t, /*readOnly=*/true));
    bufferTypes.push_back(type);
  }
  auto resultTensorType = cast<RankedTensorType>(op->getResult(0).getType());
  MemRefType outType = bufferTypeOf(resultTensorType);
  Value outBuffer = memref::AllocOp::create(b, outType, dynamicSizes);
  buffers.push_back(outBuffer);
  bufferTypes.push_back(outType);

  ModuleOp module = getOperation();
  OpBuilder mb(module.getBodyRegion());
  mb.setInsertionPointToEnd(module.getBody());
  auto host = func::FuncOp::create(mb, loc, (name + "_host").str(),
                                   FunctionType::get(ctx, bufferTypes, {}));
  host.setPrivate();
  host->setAttr(kGpuSpmmHostAttrName,
                SymbolRefAttr::get(kernels.getNameAttr(),
                                   {FlatSymbolRefAttr::get(ctx, name)}));
  func::CallOp::create(b, host, buffers);
  Value result = bufferization::ToTensorOp::create(
      b, resultTensorType, outBuffer, /*restrict=*/true, /*writable=*/true);
  op->getResult(0).replaceAllUsesWith(result);
  op->erase();
}

LogicalResult LowerSpmmToGpu::lower(SpmmOp op, gpu::GPUModuleOp kernels,
                                    unsigned index) {
  if (failed(checkGpuPattern(op)))
    return failure();
  Problem pb = problemOf(op);
  if (failed(applyAccumulator(op, pb)))
    return failure();
  pb.sparseLhs = op.getSparse() == SparseOperand::lhs;
  pb.hasScale = static_cast<bool>(op.getScale());
  // D[k][p]: sparse lhs, dense K x N is k-major, N x K (transposed) not;
  // sparse rhs, dense M x K is p-major, K x M (transposed) k-major.
  pb.denseKMajor = pb.sparseLhs != op.getDenseTransposed();

  // The canonical problem's sizes (dynamic ones are ShapedType::kDynamic).
  auto resultType = cast<RankedTensorType>(op.getResult().getType());
  int64_t r = resultType.getDimSize(pb.sparseLhs ? 0 : 1);
  int64_t p = resultType.getDimSize(pb.sparseLhs ? 1 : 0);
  int64_t k = op.getStaticReductionSize();
  // The staged kernel copies 16-byte chunks of rows of D and of the values
  // with cp.async: D's leading dimension (the dense operand's dimension 1
  // whichever way it is used) must be a multiple of 16 bytes. Canonical
  // f16/bf16 and tf32 value rows always are (Kp / 2 elements, Kp a multiple
  // of 16, resp. 8); i8 value rows (Kp / 2 bytes) only when Kp is a
  // multiple of 32. tf32 and i8 also need D p-major: ldmatrix.trans, which
  // turns k-major tiles into B fragments, moves 16-bit elements. A dynamic
  // size is checked at run time: the staged kernel with a direct fallback.
  int64_t staticLd = op.getDense().getType().getDimSize(1);
  int64_t elemBytes = pb.inputType.getIntOrFloatBitWidth() / 8;
  int64_t align = 16 / elemBytes;
  int64_t staticValueCols = op.getValues().getType().getDimSize(1);
  SmallVector<int64_t, 2> rowLengths = {staticLd};
  if (pb.int8)
    rowLengths.push_back(staticValueCols);
  Staging staging = Staging::always;
  if ((pb.tf32 || pb.int8) && pb.denseKMajor)
    staging = Staging::never;
  for (int64_t n : rowLengths) {
    if (staging == Staging::never)
      break;
    if (ShapedType::isDynamic(n))
      staging = Staging::ifAligned;
    else if (n % align != 0)
      staging = Staging::never;
  }
  auto size = [](int64_t n) {
    return ShapedType::isDynamic(n) ? std::string("?") : std::to_string(n);
  };
  std::string why;
  llvm::raw_string_ostream whyStream(why);
  whyStream << "for '" << pb.inputType << "' operands a dense operand ";
  if (pb.tf32 || pb.int8)
    whyStream << "with K contiguous (a sparse rhs with dense M x K, or a "
                 "sparse lhs with dense_transposed) ";
  whyStream << "whose leading dimension " << (pb.int8 ? "and value rows " : "")
            << (pb.int8 ? "are multiples" : "is a multiple") << " of " << align
            << " elements (16 bytes), got a "
            << (pb.denseKMajor ? "k-major" : "p-major")
            << " dense operand with leading dimension " << size(staticLd);
  if (pb.int8)
    whyStream << " and " << size(staticValueCols) << " values per row";
  GpuKernelInfo info;
  info.kernel = "stc_spmm_" + std::to_string(index);
  info.sparseLhs = pb.sparseLhs;
  info.denseTransposed = op.getDenseTransposed();
  FailureOr<bool> hopper = useHopperKernel(op, hopperUnsupported(op, pb));
  if (failed(hopper))
    return failure();
  FailureOr<Value> meta =
      *hopper ? prepareHopperMetadata(op, kernels, op.getMeta(), r, k, pb.int8,
                                      info)
              : prepareMetadata(op, kernels, op.getMeta(), r,
                                /*groups=*/1, k, mmaShapeOf(pb), info);
  if (failed(meta))
    return failure();
  if (*hopper
          ? failed(emitHopperKernel(op, kernels, pb, r, p, k, info))
          : failed(emitKernel(op, kernels, pb, r, p, k, staging, why, info)))
    return failure();

  // The host side: a call to a private function on buffers, defined after
  // bufferization by stc-gpu-host-launch. Result rows/cols: (sparse rows,
  // dense other dim) for a sparse lhs, (dense other dim, sparse rows) for
  // a sparse rhs.
  SmallVector<Value> tensors = {op.getValues(), *meta, op.getDense()};
  if (pb.hasBias)
    tensors.push_back(op.getBias());
  if (pb.hasAcc)
    tensors.push_back(op.getAcc());
  if (pb.hasScale)
    tensors.push_back(op.getScale());
  ImplicitLocOpBuilder b(op.getLoc(), op);
  int64_t denseOtherDim = 1 - op.getDenseReductionDim();
  SmallVector<Value> dynamicSizes;
  for (int64_t d = 0; d < 2; ++d) {
    if (!resultType.isDynamicDim(d))
      continue;
    bool sparseSide = (d == 0) == pb.sparseLhs;
    dynamicSizes.push_back(
        sparseSide ? tensor::DimOp::create(b, op.getValues(), 0).getResult()
                   : tensor::DimOp::create(b, op.getDense(), denseOtherDim)
                         .getResult());
  }
  emitHostCall(op, kernels, info.kernel, tensors, dynamicSizes);
  return success();
}

LogicalResult LowerSpmmToGpu::lower(ConvOp op, gpu::GPUModuleOp kernels,
                                    unsigned index) {
  if (failed(checkGpuPattern(op)))
    return failure();
  RankedTensorType inputType = op.getInput().getType();
  auto resultType = cast<RankedTensorType>(op.getResult().getType());
  Problem pb = problemOf(op);
  if (failed(applyAccumulator(op, pb)))
    return failure();
  // Out[R, P] = S[R, K] . im2col^T: the filter is the sparse lhs of the
  // canonical problem, stored as the transpose (pixels x channels), like a
  // sparse rhs whose dense operand is the p-major im2col matrix.
  pb.sparseLhs = false;
  pb.denseKMajor = false;
  ConvGeometry cg;
  cg.kh = op.getFilterSize()[0];
  cg.kw = op.getFilterSize()[1];
  cg.strideH = op.getStrides()[0];
  cg.strideW = op.getStrides()[1];
  cg.dilationH = op.getDilations()[0];
  cg.dilationW = op.getDilations()[1];
  cg.padH = op.getPadLow()[0];
  cg.padW = op.getPadLow()[1];
  cg.groups = op.getGroups();
  cg.c = op.getChannelsPerGroup();
  cg.cp = op.getPaddedChannelsPerGroup();
  cg.ic = inputType.getDimSize(3);
  cg.oc = resultType.getDimSize(3);
  pb.conv = cg;

  int64_t r = cg.oc / cg.groups;
  int64_t p = ShapedType::kDynamic;
  if (resultType.hasStaticShape())
    p = resultType.getDimSize(0) * resultType.getDimSize(1) *
        resultType.getDimSize(2);
  int64_t k = op.getFlatReductionSize();
  // A 16-byte cp.async chunk is 8 consecutive f16/bf16 channels of one
  // tap, or 4 f32 (tf32) ones: whole taps need C to be a multiple of that
  // (which also aligns every chunk, and for tf32 makes Cp = C). The
  // im2col matrix is p-major, which tf32 needs (no ldmatrix.trans of
  // 32-bit elements).
  int64_t channelsPerChunk = pb.tf32 ? 4 : 8;
  Staging staging =
      cg.c % channelsPerChunk == 0 ? Staging::always : Staging::never;
  std::string why;
  llvm::raw_string_ostream(why)
      << "input channels per group that are a multiple of 8 (f16/bf16) or "
         "4 (f32 as tf32), got "
      << "'" << pb.inputType << "' and " << cg.c;
  GpuKernelInfo info;
  info.kernel = "stc_conv_" + std::to_string(index);
  FailureOr<bool> hopper = useHopperKernel(op, hopperUnsupported(op, pb));
  if (failed(hopper))
    return failure();
  FailureOr<Value> meta =
      *hopper ? prepareHopperMetadata(op, kernels, op.getMeta(), r, k, pb.int8,
                                      info)
              : prepareMetadata(op, kernels, op.getMeta(), r, cg.groups, k,
                                mmaShapeOf(pb), info);
  if (failed(meta))
    return failure();
  info.sparseLhs = false;
  info.groups = cg.groups;
  info.conv = {{"KH", cg.kh},
               {"KW", cg.kw},
               {"stride_h", cg.strideH},
               {"stride_w", cg.strideW},
               {"dilation_h", cg.dilationH},
               {"dilation_w", cg.dilationW},
               {"pad_top", cg.padH},
               {"pad_left", cg.padW},
               {"pad_bottom", op.getPadHigh()[0]},
               {"pad_right", op.getPadHigh()[1]},
               {"C", cg.c},
               {"Cp", cg.cp},
               {"groups", cg.groups},
               {"N", inputType.getDimSize(0)},
               {"H", inputType.getDimSize(1)},
               {"W", inputType.getDimSize(2)},
               {"OH", resultType.getDimSize(1)},
               {"OW", resultType.getDimSize(2)}};
  if (*hopper
          ? failed(emitHopperKernel(op, kernels, pb, r, p, k, info))
          : failed(emitKernel(op, kernels, pb, r, p, k, staging, why, info)))
    return failure();

  SmallVector<Value> tensors = {op.getValues(), *meta, op.getInput()};
  if (pb.hasBias)
    tensors.push_back(op.getBias());
  if (pb.hasAcc)
    tensors.push_back(op.getAcc());
  // Dynamic result sizes: N from the input, OH and OW by the convolution's
  // arithmetic (floor division of non-negative values; the verifier and
  // the host's empty-result check cover filters that do not fit).
  ImplicitLocOpBuilder b(op.getLoc(), op);
  SmallVector<Value> dynamicSizes;
  if (resultType.isDynamicDim(0))
    dynamicSizes.push_back(tensor::DimOp::create(b, op.getInput(), 0));
  for (int64_t d = 0; d < 2; ++d) {
    if (!resultType.isDynamicDim(1 + d))
      continue;
    auto cst = [&](int64_t v) { return arith::ConstantIndexOp::create(b, v); };
    Value in = tensor::DimOp::create(b, op.getInput(), 1 + d);
    int64_t reach = op.getDilations()[d] * (op.getFilterSize()[d] - 1) + 1;
    Value span = arith::AddIOp::create(
        b, in, cst(op.getPadLow()[d] + op.getPadHigh()[d]));
    // max(span - reach, -stride) / stride + 1 is max(0, ...) for any span.
    Value rest =
        arith::MaxSIOp::create(b, arith::SubIOp::create(b, span, cst(reach)),
                               cst(-op.getStrides()[d]));
    dynamicSizes.push_back(arith::AddIOp::create(
        b, arith::FloorDivSIOp::create(b, rest, cst(op.getStrides()[d])),
        cst(1)));
  }
  emitHostCall(op, kernels, info.kernel, tensors, dynamicSizes);
  return success();
}

std::string LowerSpmmToGpu::hopperUnsupported(ConvOp op, const Problem &pb) {
  std::string why;
  llvm::raw_string_ostream os(why);
  const ConvGeometry &cg = *pb.conv;
  if (!pb.inputType.isF16() && !pb.inputType.isBF16())
    os << "f16 or bf16 operands (got " << pb.inputType << ")";
  else if (pb.f16Acc)
    os << "f32 accumulation (accumulate=f16 was asked for)";
  else if (cg.groups != 1 || cg.c % HopperKernelShape().blockK() != 0)
    os << "one group of input channels that are a multiple of 64 (a K step "
          "is 64 channels of one filter tap, one TMA box); got "
       << cg.groups << " group(s) of " << cg.c << " channels";
  else if (cg.strideH > 8 || cg.strideW > 8)
    os << "strides of at most 8 (TMA element strides); got " << cg.strideH
       << " x " << cg.strideW;
  return why;
}

std::string LowerSpmmToGpu::hopperUnsupported(SpmmOp op, const Problem &pb) {
  std::string why;
  llvm::raw_string_ostream os(why);
  if (!pb.inputType.isF16() && !pb.inputType.isBF16() && !pb.int8) {
    os << "f16, bf16 or i8 operands (got " << pb.inputType << ")";
  } else if (pb.f16Acc) {
    os << "f32 accumulation (accumulate=f16 was asked for)";
  } else if (pb.int8 && pb.denseKMajor) {
    // 8-bit wgmma has no transposes: B must be K-major in shared memory.
    os << "i8 operands with a dense operand that has K contiguous (a "
          "sparse rhs with dense M x K, or a sparse lhs with "
          "dense_transposed: 8-bit wgmma reads B only K-major); got a "
          "k-major dense operand";
  } else {
    // TMA copies rows whose length is a multiple of 16 bytes.
    int64_t align = pb.int8 ? 16 : 8;
    int64_t ld = op.getDense().getType().getDimSize(1);
    int64_t valueCols = op.getValues().getType().getDimSize(1);
    if (ShapedType::isDynamic(ld) || ld % align != 0 ||
        ShapedType::isDynamic(valueCols) || valueCols % align != 0) {
      auto size = [](int64_t n) {
        return ShapedType::isDynamic(n) ? std::string("?") : std::to_string(n);
      };
      os << "static rows of values and of the dense operand that are "
            "multiples of "
         << align << " elements (16 bytes, for TMA); got " << size(valueCols)
         << " values per row and a dense leading dimension of " << size(ld);
    }
  }
  return why;
}

FailureOr<Value> LowerSpmmToGpu::prepareHopperMetadata(Operation *op,
                                                       gpu::GPUModuleOp kernels,
                                                       Value meta, int64_t rows,
                                                       int64_t k, bool int8,
                                                       GpuKernelInfo &info) {
  using namespace ::stc::format;
  const WgmmaSpType type = int8 ? WgmmaSpType::I8 : WgmmaSpType::B16;
  info.metaRowsPerBlock = kWgmmaRows;
  info.metaKPerWord = getWgmmaSpTypeInfo(type).blockK;
  info.metaThreads = kWgmmaThreads;
  DenseIntElementsAttr constant;
  if (!ShapedType::isDynamic(rows) && !ShapedType::isDynamic(k) &&
      matchPattern(meta, m_Constant(&constant))) {
    int64_t metaCols = cast<RankedTensorType>(meta.getType()).getDimSize(1);
    if (uint64_t(constant.getNumElements()) >
        ::stc::format::kMaxConstantBytes / 2)
      return op->emitError("stc-lower-spmm-to-gpu: constant metadata of ")
             << constant.getNumElements()
             << " elements is larger than the 2 GiB a constant may hold";
    std::vector<uint16_t> canonical;
    canonical.reserve(constant.getNumElements());
    for (const APInt &v : constant.getValues<APInt>())
      canonical.push_back(static_cast<uint16_t>(v.getZExtValue()));
    std::vector<uint32_t> words;
    Status status = toWgmmaSpMeta(
        type,
        View2D<const uint16_t>::rowMajor(canonical.data(), rows, metaCols), k,
        words);
    if (!status.ok())
      return op->emitError("stc-lower-spmm-to-gpu: constant metadata: ")
             << status.message;
    std::vector<int32_t> all(words.begin(), words.end());
    OpBuilder b(op);
    auto type = RankedTensorType::get({static_cast<int64_t>(all.size())},
                                      b.getI32Type());
    info.metaLayout = "kernel_ready";
    return arith::ConstantOp::create(
               b, op->getLoc(), type,
               DenseElementsAttr::get(type, ArrayRef<int32_t>(all)))
        .getResult();
  }
  info.metaLayout = "canonical";
  info.metaKernel = info.kernel + "_meta";
  emitMetadataKernel(kernels, info.metaKernel, op->getLoc(),
                     int8 ? MetaKernelLayout::hopperInt8
                          : MetaKernelLayout::hopper);
  return meta;
}

LogicalResult LowerSpmmToGpu::emitHopperKernel(Operation *op,
                                               gpu::GPUModuleOp kernels,
                                               const Problem &pb, int64_t r,
                                               int64_t p, int64_t k,
                                               GpuKernelInfo info) {
  MLIRContext *ctx = op->getContext();
  Location loc = op->getLoc();
  const std::string &name = info.kernel;
  HopperDevice device;
  HopperKernelShape shape;
  shape.elementBytes = pb.int8 ? 1 : 2;
  bool known = !ShapedType::isDynamic(r) && !ShapedType::isDynamic(p) &&
               !ShapedType::isDynamic(k);
  if (known) {
    HopperTiling tiling = chooseHopperTiling({r, p, k, shape.elementBytes});
    shape.blockRows = tiling.blockRows;
    shape.blockCols = tiling.blockCols;
    // The heuristic's cluster pair. Without TMA multicast of B (opt-in,
    // tma-multicast, not measured yet) it only co-schedules two blocks of
    // neighbouring rows, which share B's tiles in L2: 5-6 % faster on an H200
    // at 8192^3 and two LLM/BERT shapes in two runs
    // (bench/results/sm90a-knobs-*/v1-*, gpu-gemm-20261126T110843Z-5199c34).
    shape.clusterRows = tiling.clusterRows;
  }
  if (blockRows)
    shape.blockRows = blockRows;
  if (blockCols)
    shape.blockCols = blockCols;
  // 256 rows (two 64-row wgmma tiles per consumer warpgroup) hold 2 x BN / 2
  // accumulators per thread: at most 128 columns (validated when both are
  // given; the heuristic's 256 is narrowed).
  if (shape.blockRows == 256)
    shape.blockCols = std::min<int64_t>(shape.blockCols, 128);
  if (clusterRows)
    shape.clusterRows = clusterRows;
  if (tmaMulticast) {
    // Each block of the pair loads half of the shared B tile: half the
    // rows of a K-major tile, or half of the 64-column atoms of an
    // MN-major one.
    // Where it cannot apply, the kernel loads its own B (a remark says
    // why), as the heuristic's cluster choice may differ per op.
    if (shape.clusterRows != 2 || pb.conv ||
        (pb.denseKMajor && shape.blockCols < 128))
      op->emitRemark("stc-lower-spmm-to-gpu: sm_90a: no TMA multicast, which "
                     "needs a GEMM kernel with a cluster of 2 "
                     "(cluster-rows=2) and, for a k-major dense operand, at "
                     "least 128 columns; got cluster ")
          << shape.clusterRows << ", " << shape.blockCols << " columns"
          << (pb.conv ? ", a convolution" : "");
    else
      shape.multicastB = true;
  }
  // A group is whole clusters: the pair of a cluster shares its B tiles.
  shape.groupRows = groupRows;
  if (groupRows % shape.clusterRows != 0)
    return op->emitError("stc-lower-spmm-to-gpu: group-rows (")
           << static_cast<int64_t>(groupRows)
           << ") must be a multiple of the kernel's cluster rows ("
           << shape.clusterRows << ")";
  shape.aFromSharedMemory = wgmmaA == "smem";
  shape.stages = wgmmaStages
                     ? static_cast<int64_t>(wgmmaStages)
                     : hopperStagesThatFit(
                           hopperStageBytes(shape.blockRows, shape.blockCols,
                                            shape.blockK(), shape.elementBytes),
                           device);
  if (shape.sharedBytes() > device.sharedBytesPerBlock)
    return op->emitError("stc-lower-spmm-to-gpu: the sm_90a kernel's ring of ")
           << shape.stages << " stages of " << shape.blockRows << " x "
           << shape.blockCols << " needs " << shape.sharedBytes()
           << " bytes of shared memory, more than the "
           << device.sharedBytesPerBlock << " a block may have";

  SmallVector<std::string> paramNames = {"values", "meta", "dense"};
  if (pb.hasBias)
    paramNames.push_back("bias");
  if (pb.hasAcc)
    paramNames.push_back("acc");
  if (pb.hasScale)
    paramNames.push_back("scale");
  paramNames.push_back("out");
  unsigned numPointers = paramNames.size();
  for (const char *n : {"R", "P", "K", "value_cols", "meta_cols"})
    paramNames.push_back(n);
  if (pb.conv)
    for (const char *n : {"N", "H", "W", "OH", "OW"})
      paramNames.push_back(n);
  unsigned numSizes = paramNames.size() - numPointers;
  paramNames.push_back("values_map");
  paramNames.push_back("dense_map");
  auto ptrType = LLVM::LLVMPointerType::get(ctx);
  SmallVector<Type> paramTypes(numPointers, ptrType);
  paramTypes.append(numSizes, IntegerType::get(ctx, 32));
  paramTypes.append(2, ptrType);
  if (pb.conv) {
    // A square-ish pixel tile of BN pixels, rows of 8 or 16 (a power of
    // two: the epilogue's divisions are shifts).
    shape.pixelTileW = shape.blockCols == 64 ? 8 : 16;
    shape.pixelTileH = shape.blockCols / shape.pixelTileW;
  }

  ImplicitLocOpBuilder kb(loc, ctx);
  kb.setInsertionPointToEnd(kernels.getBody());
  auto kernel =
      gpu::GPUFuncOp::create(kb, name, FunctionType::get(ctx, paramTypes, {}));
  kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), kb.getUnitAttr());
  kernel.setKnownBlockSizeAttr(
      kb.getDenseI32ArrayAttr({static_cast<int32_t>(shape.threads()), 1, 1}));
  // setmaxnreg moves registers between warpgroups only when ptxas knows the
  // count every thread starts with (else its C7508, "setmaxnreg ignored").
  if (shape.launchRegisters())
    kernel->setAttr(
        NVVM::NVVMDialect::getMaxnregAttrName(),
        kb.getI32IntegerAttr(static_cast<int32_t>(shape.launchRegisters())));
  // The dynamic shared memory (extern __shared__): launched with
  // shape.sharedBytes().
  OpBuilder gb(kernels.getBodyRegion());
  gb.setInsertionPointToStart(kernels.getBody());
  auto smem = LLVM::GlobalOp::create(
      gb, loc, LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8), 0),
      /*isConstant=*/false, LLVM::Linkage::External, name + "_smem",
      Attribute(), /*alignment=*/1024, /*addrSpace=*/3);
  HopperKernelBuilder(kb, pb, shape).build(kernel, smem);

  // CUtensorMapDataType: UINT8 = 0 (TMA moves bytes; the wgmma reads
  // them as s8), FLOAT16 = 6, BFLOAT16 = 9.
  int64_t dataType = pb.int8 ? 0 : pb.inputType.isF16() ? 6 : 9;
  info.tensorMaps.push_back({"values_map",
                             "values",
                             dataType,
                             {shape.storedK(), shape.blockRows},
                             64});
  if (pb.conv) {
    // The NHWC input, innermost first: 64 channels x TW pixels (every
    // stride_w-th) x TH rows (every stride_h-th) x 1 image.
    const ConvGeometry &cg = *pb.conv;
    info.tensorMaps.push_back({"dense_map",
                               "dense",
                               dataType,
                               {shape.blockK(), shape.pixelTileW * cg.strideW,
                                shape.pixelTileH * cg.strideH, 1},
                               128,
                               {1, cg.strideW, cg.strideH, 1}});
    info.pixelTileH = shape.pixelTileH;
    info.pixelTileW = shape.pixelTileW;
  } else if (pb.denseKMajor) {
    info.tensorMaps.push_back(
        {"dense_map", "dense", dataType, {64, shape.blockK()}, 128});
  } else {
    // With multicast each block loads half of the tile's columns.
    info.tensorMaps.push_back(
        {"dense_map",
         "dense",
         dataType,
         {shape.blockK(), shape.blockCols / (shape.multicastB ? 2 : 1)},
         128});
  }
  info.blockThreads = shape.threads();
  info.blockRows = shape.blockRows;
  info.blockCols = shape.blockCols;
  info.stages = shape.stages;
  info.sharedBytes = shape.sharedBytes();
  info.clusterRows = shape.clusterRows;
  info.paramNames.assign(paramNames.begin(), paramNames.end());
  info.numPointerParams = numPointers;
  info.rows = r;
  info.cols = p;
  info.depth = k;
  info.inputType = pb.inputType;
  info.outputType = pb.outputType;
  info.mma = "m64n" + std::to_string(shape.blockCols) + "k" +
             std::to_string(shape.instrK());
  info.accumulator = pb.int8 ? "s32" : "f32";
  info.orderedMetadata = false;
  info.variant = "wgmma";
  kernel->setAttr(kKernelInfoAttrName, info.toAttr(ctx));
  return success();
}

void LowerSpmmToGpu::runOnOperation() {
  ModuleOp module = getOperation();
  SmallVector<Operation *> ops;
  module.walk([&](Operation *op) {
    if (isa<SpmmOp, ConvOp>(op))
      ops.push_back(op);
  });
  if (ops.empty())
    return;
  if (kernelVariant != "auto" && kernelVariant != "direct" &&
      kernelVariant != "staged" && kernelVariant != "wgmma") {
    ops.front()->emitError("stc-lower-spmm-to-gpu: unknown kernel '")
        << kernelVariant << "' (expected auto, direct, staged or wgmma)";
    return signalPassFailure();
  }
  if (!llvm::is_contained({"sm_80", "sm_86", "sm_89", "sm_90", "sm_90a"},
                          StringRef(target))) {
    ops.front()->emitError("stc-lower-spmm-to-gpu: unknown target '")
        << target << "' (expected sm_80, sm_86, sm_89, sm_90 or sm_90a)";
    return signalPassFailure();
  }
  if (kernelVariant == "wgmma" && target != "sm_90a") {
    ops.front()->emitError("stc-lower-spmm-to-gpu: kernel=wgmma needs "
                           "target=sm_90a (wgmma.mma_async.sp), got target=")
        << target;
    return signalPassFailure();
  }
  bool hopperTarget = target == "sm_90a";
  auto validTile = [&](int64_t v) {
    return v == 0 || v == 64 || v == 128 || (hopperTarget && v == 256);
  };
  if (!validTile(blockRows) || !validTile(blockCols)) {
    ops.front()->emitError("stc-lower-spmm-to-gpu: block tiles are 64 or 128 "
                           "rows by 64 or 128 columns (256 too on sm_90a; 0: "
                           "the heuristic's choice), got ")
        << static_cast<int64_t>(blockRows) << " x "
        << static_cast<int64_t>(blockCols);
    return signalPassFailure();
  }
  if (blockRows == 256 && blockCols == 256) {
    ops.front()->emitError("stc-lower-spmm-to-gpu: a 256 x 256 sm_90a tile "
                           "needs 256 accumulators per thread; 256-row tiles "
                           "take at most 128 columns");
    return signalPassFailure();
  }
  if (blockRows == 256 && wgmmaA == "registers") {
    ops.front()->emitError("stc-lower-spmm-to-gpu: 256-row tiles take A from "
                           "shared memory (wgmma-a=smem)");
    return signalPassFailure();
  }
  if (wgmmaStages != 0 && (wgmmaStages < 2 || wgmmaStages > 6)) {
    ops.front()->emitError("stc-lower-spmm-to-gpu: wgmma-stages must be 2 to "
                           "6 (0: as many as fit), got ")
        << static_cast<int64_t>(wgmmaStages);
    return signalPassFailure();
  }
  if (wgmmaA != "smem" && wgmmaA != "registers") {
    ops.front()->emitError("stc-lower-spmm-to-gpu: unknown wgmma-a '")
        << wgmmaA << "' (expected smem or registers)";
    return signalPassFailure();
  }
  if (clusterRows < 0 || clusterRows > 2) {
    ops.front()->emitError("stc-lower-spmm-to-gpu: cluster-rows must be 1 or "
                           "2 (0: the heuristic's choice), got ")
        << static_cast<int64_t>(clusterRows);
    return signalPassFailure();
  }
  if (groupRows < 0 || groupRows > 64) {
    ops.front()->emitError("stc-lower-spmm-to-gpu: group-rows must be 0 to "
                           "64 (0: the launch order), got ")
        << static_cast<int64_t>(groupRows);
    return signalPassFailure();
  }
  if (accumulate != "f32" && accumulate != "f16") {
    ops.front()->emitError("stc-lower-spmm-to-gpu: unknown accumulate '")
        << accumulate << "' (expected f32 or f16)";
    return signalPassFailure();
  }
  if (stages < 2 || stages > 4) {
    ops.front()->emitError("stc-lower-spmm-to-gpu: stages must be 2, 3 or 4, "
                           "got ")
        << static_cast<int64_t>(stages);
    return signalPassFailure();
  }
  MLIRContext *ctx = module.getContext();
  module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                  UnitAttr::get(ctx));
  OpBuilder mb(module.getBodyRegion());
  mb.setInsertionPointToEnd(module.getBody());
  auto kernels = gpu::GPUModuleOp::create(mb, module.getLoc(), "stc_kernels");
  unsigned index = 0;
  for (Operation *op : ops) {
    LogicalResult lowered = isa<SpmmOp>(op)
                                ? lower(cast<SpmmOp>(op), kernels, index++)
                                : lower(cast<ConvOp>(op), kernels, index++);
    if (failed(lowered))
      return signalPassFailure();
  }
}

} // namespace
