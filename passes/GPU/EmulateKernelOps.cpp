//===- EmulateKernelOps.cpp - a kernel's GPU ops as emulator calls -*- C++ -*-//
//
// See EmulateKernelOps.h. Every emulator call here names its entry
// point through RuntimeEntryPoints.def.
//
//===----------------------------------------------------------------------===//
#include "passes/GPU/EmulateKernelOps.h"
#include "passes/GPU/Epilogue.h"
#include "passes/RuntimeCalls.h"

#include "dialects/StcGpu/StcGpuOps.h"
#include "runtime/emulator/stc_gpu_emulator.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"

using namespace mlir;
using namespace mlir::stc;
using namespace mlir::stc::gpu_kernel;

/// A zero-sized shared-memory array: the kernel's dynamic shared memory,
/// whose size the launch gives.
bool mlir::stc::gpu_kernel::isDynamicSmem(LLVM::GlobalOp global) {
  auto array = dyn_cast<LLVM::LLVMArrayType>(global.getGlobalType());
  return global.getAddrSpace() == 3 && array && array.getNumElements() == 0;
}

/// An alloca of `n` elements of `type` in the entry block of `fn`, so that
/// loops do not grow the stack.
Value mlir::stc::gpu_kernel::entryAlloca(func::FuncOp fn, Type type, int64_t n,
                                         Location loc) {
  OpBuilder b(&fn.getBody().front(), fn.getBody().front().begin());
  Value count = LLVM::ConstantOp::create(b, loc, b.getI64Type(), n);
  return LLVM::AllocaOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext()), type, count);
}

/// A pointer in the CPU's (only) address space.
static Value flat(ImplicitLocOpBuilder &b, Value ptr) {
  auto type = cast<LLVM::LLVMPointerType>(ptr.getType());
  if (type.getAddressSpace() == 0)
    return ptr;
  return LLVM::AddrSpaceCastOp::create(
      b, LLVM::LLVMPointerType::get(b.getContext()), ptr);
}

/// Stores `values` as consecutive 32-bit words of type `wordType` (bitcast
/// where their type differs) at `base`: a thread's registers, handed to the
/// emulator runtime.
static void storeWords(ImplicitLocOpBuilder &b, Value base, ValueRange values,
                       Type wordType) {
  for (auto [i, v] : llvm::enumerate(values)) {
    Value word = v;
    if (v.getType() != wordType)
      word = LLVM::BitcastOp::create(b, wordType, v);
    Value p = LLVM::GEPOp::create(b, base.getType(), wordType, base,
                                  ArrayRef<LLVM::GEPArg>{int32_t(i)});
    LLVM::StoreOp::create(b, word, p);
  }
}

/// Word `i` of type `wordType` at `base`, bitcast to `type`.
static Value loadWord(ImplicitLocOpBuilder &b, Value base, Type wordType,
                      int32_t i, Type type) {
  Value p = LLVM::GEPOp::create(b, base.getType(), wordType, base,
                                ArrayRef<LLVM::GEPArg>{i});
  Value v = LLVM::LoadOp::create(b, wordType, p);
  if (v.getType() != type)
    v = LLVM::BitcastOp::create(b, type, v);
  return v;
}

/// The shared memory a wgmma's descriptors address: the kernel's dynamic
/// shared memory, or else the module's one static shared-memory global.
static LogicalResult sharedWindowOf(Operation *op,
                                    const EmulatedSharedMemory &shared,
                                    LLVM::GlobalOp &smem, int64_t &smemBytes) {
  smem = shared.dynamicGlobal;
  smemBytes = shared.dynamicBytes;
  if (smem)
    return success();
  if (shared.staticGlobals.size() != 1)
    return op->emitError("stc-emulate-gpu: ")
           << op->getName()
           << " is emulated in a kernel module with exactly one shared-memory "
              "global (its descriptors address it), not "
           << shared.staticGlobals.size();
  smem = shared.staticGlobals.front();
  smemBytes = DataLayout::closest(smem).getTypeSize(smem.getGlobalType());
  if (smemBytes <= 0 || uint64_t(smemBytes) > kEmulatedSmemAlignment)
    return op->emitError("stc-emulate-gpu: the shared-memory global @")
           << smem.getSymName() << " of " << smemBytes
           << " bytes does not fit the 256 KiB a descriptor addresses";
  return success();
}

/// The emulator runtime's kind (StcEmuWgmmaSpKind, the same for the sparse
/// and the dense instruction) of a wgmma with these A, B and D types, or
/// -1 where the emulator has none: f16 or bf16 with f32 (f16 also with
/// f16), s8 (signed; D a signless i32).
static int64_t wgmmaKindOf(Type aType, Type bType, Type dType) {
  bool f16 = aType.isF16() && bType.isF16();
  bool bf16 = aType.isBF16() && bType.isBF16();
  if (f16 && dType.isF32())
    return STC_EMU_WGMMA_SP_F32_F16;
  if (bf16 && dType.isF32())
    return STC_EMU_WGMMA_SP_F32_BF16;
  if (f16 && dType.isF16())
    return STC_EMU_WGMMA_SP_F16_F16;
  if (aType.isSignedInteger(8) && bType.isSignedInteger(8) &&
      dType.isSignlessInteger(32))
    return STC_EMU_WGMMA_SP_S32_S8;
  return -1;
}

static LogicalResult emulateWgmma(stc_gpu::WgmmaSpOp op,
                                  const EmulatedSharedMemory &shared) {
  Type dType = op.getDType();
  int64_t kindValue = wgmmaKindOf(op.getAType(), op.getBType(), dType);
  // A from 4 registers, or from shared memory through a descriptor.
  bool aFromSmem = op.getADesc() != nullptr;
  bool aLegal = aFromSmem ? op.getARegs().empty()
                          : op.getARegs().size() == 4 && !op.getTransA();
  if (kindValue < 0 || !aLegal || op.getSatfinite())
    return op.emitError("stc-emulate-gpu: only stc_gpu.wgmma_sp with A from "
                        "registers or shared memory and f16 or bf16 inputs "
                        "with f32 accumulators (or f16 with f16), or s8 "
                        "inputs with i32 accumulators (not satfinite), is "
                        "emulated");
  LLVM::GlobalOp smem;
  int64_t smemBytes = 0;
  if (failed(sharedWindowOf(op, shared, smem, smemBytes)))
    return failure();

  MLIRContext *ctx = op.getContext();
  Type i32 = IntegerType::get(ctx, 32), f32 = Float32Type::get(ctx);
  Type wordType = dType.isF32() ? f32 : i32;
  auto fn = op->getParentOfType<func::FuncOp>();
  Location loc = op.getLoc();
  ImplicitLocOpBuilder b(loc, op);
  int64_t dRegs = op.getAcc().size();
  Value a = aFromSmem ? Value() : entryAlloca(fn, i32, 4, loc);
  Value d = entryAlloca(fn, wordType, std::max<int64_t>(dRegs, 1), loc);
  if (a)
    storeWords(b, a, op.getARegs(), i32);
  storeWords(b, d, op.getAcc(), wordType);
  auto constant = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, v, 32).getResult();
  };
  Value scaleD =
      op.getScaleD()
          ? arith::ExtUIOp::create(b, i32, op.getScaleD()).getResult()
          : constant(1);
  Value base = LLVM::AddressOfOp::create(
      b, LLVM::LLVMPointerType::get(ctx, smem.getAddrSpace()),
      smem.getSymName());
  Value bytes = arith::ConstantIntOp::create(b, smemBytes, 64);
  if (aFromSmem)
    func::CallOp::create(
        b, runtimeSymbol(RuntimeEntryPoint::EmuWgmmaSpSs), TypeRange{},
        ValueRange{constant(kindValue), constant(op.getN()), op.getADesc(),
                   op.getBDesc(), op.getMeta(), constant(op.getSel()), scaleD,
                   constant(op.getScaleA()), constant(op.getScaleB()),
                   constant(op.getTransA() ? 1 : 0),
                   constant(op.getTransB() ? 1 : 0), flat(b, base), bytes, d});
  else
    func::CallOp::create(
        b, runtimeSymbol(RuntimeEntryPoint::EmuWgmmaSp), TypeRange{},
        ValueRange{constant(kindValue), constant(op.getN()), a, op.getBDesc(),
                   op.getMeta(), constant(op.getSel()), scaleD,
                   constant(op.getScaleA()), constant(op.getScaleB()),
                   constant(op.getTransB() ? 1 : 0), flat(b, base), bytes, d});
  SmallVector<Value> results;
  for (auto [i, result] : llvm::enumerate(op.getNewAcc()))
    results.push_back(loadWord(b, d, wordType, int32_t(i), result.getType()));
  op.replaceAllUsesWith(results);
  op.erase();
  return success();
}

/// nvvm.wgmma.mma_async (the dense instruction; A and B from shared
/// memory): the accumulators out of the op's struct into a stack slot,
/// stc_emu_wgmma_ss, and the slot back into a struct.
static LogicalResult emulateDenseWgmma(NVVM::WgmmaMmaAsyncOp op,
                                       const EmulatedSharedMemory &shared) {
  // NVVM's type enum as the types wgmmaKindOf reads (others: none).
  MLIRContext *ctx = op.getContext();
  auto typeOf = [&](NVVM::WGMMATypes t) -> Type {
    switch (t) {
    case NVVM::WGMMATypes::f16:
      return Float16Type::get(ctx);
    case NVVM::WGMMATypes::bf16:
      return BFloat16Type::get(ctx);
    case NVVM::WGMMATypes::f32:
      return Float32Type::get(ctx);
    case NVVM::WGMMATypes::s8:
      return IntegerType::get(ctx, 8, IntegerType::Signed);
    case NVVM::WGMMATypes::s32:
      return IntegerType::get(ctx, 32);
    default:
      return NoneType::get(ctx);
    }
  };
  Type dType = typeOf(op.getTypeD());
  int64_t kindValue =
      wgmmaKindOf(typeOf(op.getTypeA()), typeOf(op.getTypeB()), dType);
  if (kindValue < 0 || op.getSatfinite())
    return op.emitError("stc-emulate-gpu: only nvvm.wgmma.mma_async with f16 "
                        "or bf16 inputs and f32 accumulators (or f16 with "
                        "f16), or s8 inputs with s32 accumulators (not "
                        "satfinite), is emulated");
  LLVM::GlobalOp smem;
  int64_t smemBytes = 0;
  if (failed(sharedWindowOf(op, shared, smem, smemBytes)))
    return failure();

  auto structType = cast<LLVM::LLVMStructType>(op.getInouts().getType());
  ArrayRef<Type> fields = structType.getBody();
  Type wordType = dType.isF32() ? dType : IntegerType::get(ctx, 32);
  auto fn = op->getParentOfType<func::FuncOp>();
  Location loc = op.getLoc();
  ImplicitLocOpBuilder b(loc, op);
  int64_t dRegs = fields.size();
  Value d = entryAlloca(fn, wordType, std::max<int64_t>(dRegs, 1), loc);
  SmallVector<Value> acc;
  for (int64_t i = 0; i < dRegs; ++i)
    acc.push_back(LLVM::ExtractValueOp::create(b, op.getInouts(), i));
  storeWords(b, d, acc, wordType);
  auto constant = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, v, 32).getResult();
  };
  auto scale = [&](NVVM::WGMMAScaleIn s) {
    return constant(s == NVVM::WGMMAScaleIn::neg ? -1 : 1);
  };
  Value base = LLVM::AddressOfOp::create(
      b, LLVM::LLVMPointerType::get(ctx, smem.getAddrSpace()),
      smem.getSymName());
  // Row-major A and column-major B are the K-major layouts (imm-trans 0).
  func::CallOp::create(
      b, runtimeSymbol(RuntimeEntryPoint::EmuWgmmaSs), TypeRange{},
      ValueRange{constant(kindValue), constant(op.getShape().getN()),
                 op.getDescriptorA(), op.getDescriptorB(),
                 constant(op.getScaleD() == NVVM::WGMMAScaleOut::one ? 1 : 0),
                 scale(op.getScaleA()), scale(op.getScaleB()),
                 constant(op.getLayoutA() == NVVM::MMALayout::col ? 1 : 0),
                 constant(op.getLayoutB() == NVVM::MMALayout::row ? 1 : 0),
                 flat(b, base), arith::ConstantIntOp::create(b, smemBytes, 64),
                 d});
  Value result = LLVM::UndefOp::create(b, structType);
  for (int64_t i = 0; i < dRegs; ++i)
    result = LLVM::InsertValueOp::create(
        b, result, loadWord(b, d, wordType, static_cast<int32_t>(i), fields[i]),
        i);
  op.getResult().replaceAllUsesWith(result);
  op.erase();
  return success();
}

/// One warp-MMA instruction as the emulator runtime takes it: the lane's A,
/// B and C registers stored as 32-bit words in stack slots (C as
/// `wordType`: f32 bits, f16x2 or s32), and a slot of four words for D.
struct MmaWords {
  Value a, b, c, d;
  Type wordType;
};

static MmaWords storeMmaWords(ImplicitLocOpBuilder &b, Operation *mma,
                              ValueRange aRegs, ValueRange bRegs,
                              ValueRange cRegs, Type wordType) {
  auto fn = mma->getParentOfType<func::FuncOp>();
  Type i32 = b.getI32Type();
  Location loc = mma->getLoc();
  MmaWords w{entryAlloca(fn, i32, 4, loc),
             entryAlloca(fn, i32, static_cast<int64_t>(bRegs.size()), loc),
             entryAlloca(fn, i32, 4, loc), entryAlloca(fn, i32, 4, loc),
             wordType};
  storeWords(b, w.a, aRegs, i32);
  storeWords(b, w.b, bRegs, i32);
  storeWords(b, w.c, cRegs, wordType);
  return w;
}

/// Replaces `mma` by the struct of its `count` result registers of type
/// `accType`, read back from the D words the runtime wrote.
static void replaceByResultWords(ImplicitLocOpBuilder &b, Operation *mma,
                                 const MmaWords &w, int32_t count,
                                 Type accType) {
  Value result = LLVM::UndefOp::create(b, mma->getResult(0).getType());
  for (int32_t i = 0; i < count; ++i)
    result = LLVM::InsertValueOp::create(
        b, result, loadWord(b, w.d, w.wordType, i, accType), i);
  mma->getResult(0).replaceAllUsesWith(result);
  mma->erase();
}

/// The dense mma.sync of the dense GEMM kernel: m16n8k16 with f16 or bf16
/// operands (A 4 registers, B 2) and f32 (or, for f16, f16x2) accumulators,
/// row.col, through stc_emu_mma.
static LogicalResult emulateDenseMma(NVVM::MmaOp mma) {
  MLIRContext *ctx = mma.getContext();
  Type i32 = IntegerType::get(ctx, 32), f32 = Float32Type::get(ctx);
  auto f16x2 = VectorType::get({2}, Float16Type::get(ctx));
  auto shape = mma.getShape();
  std::optional<NVVM::MMATypes> aType = mma.getMultiplicandAPtxType();
  bool bf16 = aType && *aType == NVVM::MMATypes::bf16;
  bool f16 = aType && *aType == NVVM::MMATypes::f16;
  bool f16Acc = f16 && mma.getOperandC().size() == 2 &&
                mma.getOperandC()[0].getType() == f16x2;
  bool legal =
      shape.getM() == 16 && shape.getN() == 8 && shape.getK() == 16 &&
      (f16 || bf16) && mma.getOperandA().size() == 4 &&
      mma.getOperandB().size() == 2 &&
      mma.getOperandC().size() == (f16Acc ? 2u : 4u) &&
      (f16Acc || llvm::all_of(mma.getOperandC(),
                              [&](Value v) { return v.getType() == f32; })) &&
      mma.getLayoutA() == NVVM::MMALayout::row &&
      mma.getLayoutB() == NVVM::MMALayout::col;
  if (!legal)
    return mma.emitError("stc-emulate-gpu: only the row.col m16n8k16 mma "
                         "with f16 or bf16 operands and f32 accumulators (or "
                         "f16 ones for f16) is emulated");
  StcEmuMmaKind kindValue = bf16     ? STC_EMU_MMA_M16N8K16_F32_BF16
                            : f16Acc ? STC_EMU_MMA_M16N8K16_F16_F16
                                     : STC_EMU_MMA_M16N8K16_F32_F16;
  ImplicitLocOpBuilder b(mma.getLoc(), mma);
  MmaWords w = storeMmaWords(b, mma, mma.getOperandA(), mma.getOperandB(),
                             mma.getOperandC(), f16Acc ? i32 : f32);
  func::CallOp::create(
      b, runtimeSymbol(RuntimeEntryPoint::EmuMma), TypeRange{},
      ValueRange{arith::ConstantIntOp::create(b, kindValue, 32), w.a, w.b, w.c,
                 w.d});
  replaceByResultWords(b, mma, w, f16Acc ? 2 : 4, f16Acc ? Type(f16x2) : f32);
  return success();
}

static LogicalResult emulateMma(NVVM::MmaSpOp mma) {
  auto shape = mma.getShape();
  auto aType = mma.getMultiplicandAPtxType();
  auto bType = mma.getMultiplicandBPtxType();
  MLIRContext *ctx = mma.getContext();
  Type i32 = IntegerType::get(ctx, 32), f32 = Float32Type::get(ctx);
  auto isInt8 = [](std::optional<NVVM::MMATypes> t) {
    return t && (*t == NVVM::MMATypes::s8 || *t == NVVM::MMATypes::u8);
  };
  auto allOf = [](ValueRange values, Type type) {
    return llvm::all_of(values, [&](Value v) { return v.getType() == type; });
  };
  bool tf32 = aType && *aType == NVVM::MMATypes::tf32;
  bool bf16 = aType && *aType == NVVM::MMATypes::bf16;
  // s8/u8 (m16n8k64 or m16n8k32): A, B and C are i32 registers, the result
  // a struct of 4 x i32 (s32 accumulators).
  bool int8 = isInt8(aType) || isInt8(bType);
  // f16 accumulators: C and D are two f16x2 registers.
  bool f16Acc = mma.getOperandC().size() == 2 && !tf32 && !bf16 && !int8 &&
                mma.getOperandC()[0].getType() ==
                    VectorType::get({2}, Float16Type::get(ctx));
  int64_t k = shape.getK();
  int64_t abRegs = int8 && k == 32 ? 2 : 4;
  int64_t cRegs = f16Acc ? 2 : 4;
  bool legal = shape.getM() == 16 && shape.getN() == 8 &&
               mma.getOperandA().size() == static_cast<size_t>(abRegs) &&
               mma.getOperandB().size() == static_cast<size_t>(abRegs) &&
               mma.getOperandC().size() == static_cast<size_t>(cRegs);
  if (int8) {
    auto result = dyn_cast<LLVM::LLVMStructType>(mma.getType());
    legal = legal && isInt8(aType) && isInt8(bType) && (k == 64 || k == 32) &&
            allOf(mma.getOperandA(), i32) && allOf(mma.getOperandB(), i32) &&
            allOf(mma.getOperandC(), i32) && result &&
            result.getBody().size() == 4 &&
            llvm::all_of(result.getBody(), [&](Type t) { return t == i32; });
  } else {
    legal = legal && k == (tf32 ? 16 : 32);
  }
  if (!legal)
    return mma.emitError("stc-emulate-gpu: only m16n8k32 f16/bf16 and "
                         "m16n8k16 tf32 mma.sp with f32 accumulators, "
                         "m16n8k32 f16 with f16 accumulators, and m16n8k64 "
                         "and m16n8k32 s8/u8 with s32 accumulators, are "
                         "emulated");
  if (int8 && mma.getIntOverflowBehavior() &&
      *mma.getIntOverflowBehavior() == NVVM::MMAIntOverflow::satfinite)
    return mma.emitError("stc-emulate-gpu: int8 mma.sp with .satfinite is not "
                         "emulated (the model accumulates modulo 2^32, the "
                         "wrapped form)");
  // The runtime's input_kind (stc_gpu_emulator.h).
  StcEmuMmaSpKind kindValue;
  if (int8) {
    bool aU8 = *aType == NVVM::MMATypes::u8, bU8 = *bType == NVVM::MMATypes::u8;
    bool k32 = k == 32;
    if (!aU8 && !bU8)
      kindValue = k32 ? STC_EMU_MMA_SP_M16N8K32_S32_S8_S8
                      : STC_EMU_MMA_SP_M16N8K64_S32_S8_S8;
    else if (aU8 && bU8)
      kindValue = k32 ? STC_EMU_MMA_SP_M16N8K32_S32_U8_U8
                      : STC_EMU_MMA_SP_M16N8K64_S32_U8_U8;
    else if (bU8)
      kindValue = k32 ? STC_EMU_MMA_SP_M16N8K32_S32_S8_U8
                      : STC_EMU_MMA_SP_M16N8K64_S32_S8_U8;
    else
      kindValue = k32 ? STC_EMU_MMA_SP_M16N8K32_S32_U8_S8
                      : STC_EMU_MMA_SP_M16N8K64_S32_U8_S8;
  } else {
    kindValue = tf32     ? STC_EMU_MMA_SP_M16N8K16_F32_TF32
                : bf16   ? STC_EMU_MMA_SP_M16N8K32_F32_BF16
                : f16Acc ? STC_EMU_MMA_SP_M16N8K32_F16_F16
                         : STC_EMU_MMA_SP_M16N8K32_F32_F16;
  }
  ImplicitLocOpBuilder b(mma.getLoc(), mma);
  // The accumulators as 32-bit words: f32 bits, f16x2 or s32.
  Type wordType = f16Acc || int8 ? i32 : f32;
  MmaWords w = storeMmaWords(b, mma, mma.getOperandA(), mma.getOperandB(),
                             mma.getOperandC(), wordType);
  Value kind = arith::ConstantIntOp::create(b, kindValue, 32);
  Value ordered =
      arith::ConstantIntOp::create(b, mma.getOrderedMetadata() ? 1 : 0, 32);
  func::CallOp::create(
      b, runtimeSymbol(RuntimeEntryPoint::EmuMmaSp), TypeRange{},
      ValueRange{kind, ordered, w.a, w.b, w.c, mma.getSparseMetadata(),
                 mma.getSparsitySelector(), w.d});
  replaceByResultWords(
      b, mma, w, cRegs,
      f16Acc ? Type(VectorType::get({2}, Float16Type::get(ctx))) : wordType);
  return success();
}

static LogicalResult emulateLdmatrix(NVVM::LdMatrixOp op) {
  auto shape = op.getShape();
  if (shape.getM() != 8 || shape.getN() != 8 ||
      op.getEltType() != NVVM::LdStMatrixEltType::B16)
    return op.emitError("stc-emulate-gpu: only m8n8 b16 ldmatrix is emulated");
  auto fn = op->getParentOfType<func::FuncOp>();
  ImplicitLocOpBuilder b(op.getLoc(), op);
  Type i32 = b.getI32Type();
  int64_t num = op.getNum();
  Value out = entryAlloca(fn, i32, 4, op.getLoc());
  Value numValue = arith::ConstantIntOp::create(b, num, 32);
  Value trans = arith::ConstantIntOp::create(
      b, op.getLayout() == NVVM::MMALayout::col ? 1 : 0, 32);
  func::CallOp::create(b, runtimeSymbol(RuntimeEntryPoint::EmuLdmatrix),
                       TypeRange{},
                       ValueRange{flat(b, op.getPtr()), numValue, trans, out});
  auto wordAt = [&](int32_t i) {
    Value p = LLVM::GEPOp::create(b, out.getType(), i32, out,
                                  ArrayRef<LLVM::GEPArg>{i});
    return LLVM::LoadOp::create(b, i32, p).getResult();
  };
  Value result;
  if (num == 1) {
    result = wordAt(0);
  } else {
    result = LLVM::UndefOp::create(b, op.getType());
    for (int32_t i = 0; i < num; ++i)
      result = LLVM::InsertValueOp::create(b, result, wordAt(i), i);
  }
  op.replaceAllUsesWith(result);
  op.erase();
  return success();
}

static void emulateCpAsync(NVVM::CpAsyncOp op) {
  ImplicitLocOpBuilder b(op.getLoc(), op);
  Value size = arith::ConstantIntOp::create(b, op.getSize(), 32);
  Value srcSize = op.getCpSize() ? op.getCpSize() : size;
  func::CallOp::create(
      b, runtimeSymbol(RuntimeEntryPoint::EmuCpAsync), TypeRange{},
      ValueRange{flat(b, op.getDst()), flat(b, op.getSrc()), size, srcSize});
  op.erase();
}

/// The error for an NVVM op with a predicate operand (the emulator calls
/// its runtime unconditionally).
static LogicalResult predicated(Operation *op) {
  return op->emitError("stc-emulate-gpu: ")
         << op->getName() << " with a predicate is not emulated";
}

static LogicalResult emulateMbarrier(Operation *op, ImplicitLocOpBuilder &b) {
  auto i32 = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, v, 32).getResult();
  };
  auto call = [&](StringRef fn, Value bar, Value arg) {
    func::CallOp::create(b, fn, TypeRange{}, ValueRange{flat(b, bar), arg});
  };
  if (auto init = dyn_cast<NVVM::MBarrierInitOp>(op)) {
    if (init.getPredicate())
      return predicated(op);
    call(runtimeSymbol(RuntimeEntryPoint::EmuMbarrierInit), init.getAddr(),
         init.getCount());
  } else if (auto arrive = dyn_cast<NVVM::MBarrierArriveOp>(op)) {
    call(runtimeSymbol(RuntimeEntryPoint::EmuMbarrierArrive), arrive.getAddr(),
         arrive.getCount() ? arrive.getCount() : i32(1));
  } else if (auto arrive = dyn_cast<NVVM::MBarrierArriveExpectTxOp>(op)) {
    if (arrive.getPredicate())
      return predicated(op);
    call(runtimeSymbol(RuntimeEntryPoint::EmuMbarrierArriveExpectTx),
         arrive.getAddr(), arrive.getTxcount());
  } else if (auto expect = dyn_cast<NVVM::MBarrierExpectTxOp>(op)) {
    call(runtimeSymbol(RuntimeEntryPoint::EmuMbarrierExpectTx),
         expect.getAddr(), expect.getTxcount());
  } else if (auto complete = dyn_cast<NVVM::MBarrierCompleteTxOp>(op)) {
    call(runtimeSymbol(RuntimeEntryPoint::EmuMbarrierCompleteTx),
         complete.getAddr(), complete.getTxcount());
  } else {
    // A blocking wait: MLIR's op is a loop of try_wait until it succeeds.
    auto wait = cast<NVVM::MBarrierTryWaitParityOp>(op);
    call(runtimeSymbol(RuntimeEntryPoint::EmuMbarrierWaitParity),
         wait.getAddr(), wait.getPhase());
  }
  // The opaque state token of an arrive (nothing reads it back: there is
  // no test.wait with a state operand to emulate).
  for (Value result : op->getResults())
    result.replaceAllUsesWith(
        arith::ConstantIntOp::create(b, 0, 64).getResult());
  op->erase();
  return success();
}

static LogicalResult
emulateTmaLoad(NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp op) {
  if (op.getPredicate())
    return predicated(op);
  if (op.getMode() != NVVM::TMALoadMode::TILE)
    return op.emitError("stc-emulate-gpu: only tile-mode tensor copies are "
                        "emulated, not ")
           << NVVM::stringifyTMALoadMode(op.getMode());
  const size_t rank = op.getCoordinates().size();
  if (rank != 2 && rank != 4)
    return op.emitError("stc-emulate-gpu: only 2-D and 4-D tensor copies "
                        "are emulated, not ")
           << rank << "-D";
  if (op.getMulticastMask() && rank != 2)
    return op.emitError("stc-emulate-gpu: only 2-D multicast tensor copies "
                        "are emulated");
  if (op.getGroup())
    return op.emitError("stc-emulate-gpu: tensor copies with a cta_group are "
                        "not emulated");
  // An L2 cache hint changes no result: ignored.
  ImplicitLocOpBuilder b(op.getLoc(), op);
  SmallVector<Value> args = {flat(b, op.getDstMem()), op.getTmaDescriptor()};
  llvm::append_range(args, op.getCoordinates());
  args.push_back(flat(b, op.getMbar()));
  if (Value mask = op.getMulticastMask()) {
    // The ctaMask is an i16.
    args.push_back(arith::ExtUIOp::create(b, b.getI32Type(), mask));
    func::CallOp::create(
        b, runtimeSymbol(RuntimeEntryPoint::EmuTmaLoad2dMulticast), TypeRange{},
        args);
  } else {
    func::CallOp::create(b,
                         rank == 2
                             ? runtimeSymbol(RuntimeEntryPoint::EmuTmaLoad2d)
                             : runtimeSymbol(RuntimeEntryPoint::EmuTmaLoad4d),
                         TypeRange{}, args);
  }
  op.erase();
  return success();
}

/// An empty inline assembly (a register fence such as "=f,0" that keeps
/// the compiler from moving code across it) is the identity on the
/// operands its outputs are tied to: its constraints mean other registers
/// on the CPU (x86 "f" is the x87 stack), so it cannot stay.
static LogicalResult emulateEmptyAsm(LLVM::InlineAsmOp op) {
  if (!StringRef(op.getAsmString()).trim().empty())
    return op.emitError("stc-emulate-gpu: cannot emulate inline assembly \"")
           << op.getAsmString() << "\"";
  SmallVector<StringRef> constraints;
  StringRef(op.getConstraints()).split(constraints, ',');
  SmallVector<StringRef> outputs, inputs;
  for (StringRef c : constraints) {
    c = c.trim();
    if (c.starts_with("="))
      outputs.push_back(c);
    else if (!c.starts_with("~") && !c.empty())
      inputs.push_back(c);
  }
  if (inputs.size() != op.getOperands().size())
    return op.emitError("stc-emulate-gpu: inline assembly constraints \"")
           << op.getConstraints() << "\" do not match its "
           << op.getOperands().size() << " operands";
  SmallVector<Value> tied(outputs.size());
  for (auto [i, c] : llvm::enumerate(inputs)) {
    unsigned k;
    if (!c.getAsInteger(10, k) && k < tied.size())
      tied[k] = op.getOperands()[i];
  }
  for (auto [k, v] : llvm::enumerate(tied))
    if (!v)
      return op.emitError("stc-emulate-gpu: empty inline assembly whose "
                          "output ")
             << k << " is not tied to an input is not emulated";
  ImplicitLocOpBuilder b(op.getLoc(), op);
  if (op.getNumResults() == 1) {
    Value result = tied.size() == 1 ? tied.front() : Value();
    if (tied.size() > 1) {
      result = LLVM::UndefOp::create(b, op.getResult(0).getType());
      for (auto [k, v] : llvm::enumerate(tied))
        result = LLVM::InsertValueOp::create(b, result, v, int64_t(k));
    }
    if (!result || result.getType() != op.getResult(0).getType())
      return op.emitError("stc-emulate-gpu: empty inline assembly whose "
                          "result type differs from its tied operands is "
                          "not emulated");
    op.getResult(0).replaceAllUsesWith(result);
  }
  op.erase();
  return success();
}

LogicalResult
mlir::stc::gpu_kernel::emulateKernelOps(func::FuncOp fn,
                                        const EmulatedSharedMemory &shared) {
  MLIRContext *ctx = fn.getContext();
  Block *entry = &fn.getBody().front();
  ImplicitLocOpBuilder b(fn.getLoc(), ctx);
  Value thread = entry->getArgument(1);
  Value blockX = entry->getArgument(2), blockY = entry->getArgument(3);
  SmallVector<Operation *> toReplace;
  fn.walk([&](Operation *op) {
    if (isa<gpu::ThreadIdOp, gpu::BlockIdOp, gpu::ReturnOp, gpu::BarrierOp,
            gpu::ShuffleOp, NVVM::MmaSpOp, NVVM::MmaOp, NVVM::LdMatrixOp,
            NVVM::CpAsyncOp, NVVM::CpAsyncCommitGroupOp,
            NVVM::CpAsyncWaitGroupOp, NVVM::ConvertFloatToTF32Op,
            NVVM::WgmmaFenceAlignedOp, NVVM::WgmmaGroupSyncAlignedOp,
            NVVM::WgmmaWaitGroupSyncOp, stc_gpu::WgmmaSpOp,
            NVVM::WgmmaMmaAsyncOp, NVVM::MBarrierInitOp, NVVM::MBarrierArriveOp,
            NVVM::MBarrierArriveExpectTxOp, NVVM::MBarrierExpectTxOp,
            NVVM::MBarrierCompleteTxOp, NVVM::MBarrierTryWaitParityOp,
            NVVM::FenceMbarrierInitOp, NVVM::FenceProxyOp,
            NVVM::SetMaxRegisterOp,
            NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp, LLVM::InlineAsmOp,
            NVVM::MapaOp, NVVM::ClusterId, NVVM::ClusterArriveOp,
            NVVM::ClusterWaitOp, NVVM::BarrierOp, NVVM::SyncWarpOp>(op))
      toReplace.push_back(op);
    else if (auto call = dyn_cast<LLVM::CallIntrinsicOp>(op))
      if (call.getIntrin().starts_with("llvm.nvvm."))
        toReplace.push_back(op);
  });
  for (Operation *op : toReplace) {
    b.setInsertionPoint(op);
    if (auto tid = dyn_cast<gpu::ThreadIdOp>(op)) {
      if (tid.getDimension() != gpu::Dimension::x)
        return op->emitError("stc-emulate-gpu: only thread_id x is emulated");
      op->replaceAllUsesWith(
          arith::IndexCastOp::create(b, b.getIndexType(), thread)
              ->getResults());
      op->erase();
    } else if (auto bid = dyn_cast<gpu::BlockIdOp>(op)) {
      if (bid.getDimension() == gpu::Dimension::z)
        return op->emitError("stc-emulate-gpu: block_id z is not emulated");
      Value v = bid.getDimension() == gpu::Dimension::x ? blockX : blockY;
      op->replaceAllUsesWith(
          arith::IndexCastOp::create(b, b.getIndexType(), v)->getResults());
      op->erase();
    } else if (isa<gpu::ReturnOp>(op)) {
      func::ReturnOp::create(b);
      op->erase();
    } else if (isa<gpu::BarrierOp>(op)) {
      func::CallOp::create(b, runtimeSymbol(RuntimeEntryPoint::EmuBarrier),
                           TypeRange{}, ValueRange{});
      op->erase();
    } else if (auto named = dyn_cast<NVVM::BarrierOp>(op)) {
      // The sm_90a epilogue's barrier of the consumer warps (bar.sync 1,
      // count); the block-wide one is gpu.barrier.
      if (!named.getBarrierId() || !named.getNumberOfThreads() ||
          named.getReductionOp() || named.getRes())
        return op->emitError("stc-emulate-gpu: only nvvm.barrier with an id "
                             "and a thread count is emulated");
      func::CallOp::create(
          b, runtimeSymbol(RuntimeEntryPoint::EmuNamedBarrier), TypeRange{},
          ValueRange{named.getBarrierId(), named.getNumberOfThreads()});
      op->erase();
    } else if (auto sync = dyn_cast<NVVM::SyncWarpOp>(op)) {
      func::CallOp::create(b, runtimeSymbol(RuntimeEntryPoint::EmuWarpSync),
                           TypeRange{}, ValueRange{sync.getMask()});
      op->erase();
    } else if (auto shuffle = dyn_cast<gpu::ShuffleOp>(op)) {
      // The row kernels' butterfly (passes/GPU/RowKernel.cpp): xor, 32-bit,
      // all 32 lanes.
      APInt width;
      if (shuffle.getMode() != gpu::ShuffleMode::XOR ||
          !shuffle.getValue().getType().isInteger(32) ||
          !matchPattern(shuffle.getWidth(), m_ConstantInt(&width)) ||
          width != 32)
        return op->emitError("stc-emulate-gpu: only gpu.shuffle xor of an "
                             "i32 over 32 lanes is emulated");
      Value word =
          func::CallOp::create(
              b, runtimeSymbol(RuntimeEntryPoint::EmuShflXor), b.getI32Type(),
              ValueRange{shuffle.getValue(), shuffle.getOffset()})
              .getResult(0);
      shuffle.getShuffleResult().replaceAllUsesWith(word);
      shuffle.getValid().replaceAllUsesWith(
          arith::ConstantIntOp::create(b, 1, 1).getResult());
      op->erase();
    } else if (auto ld = dyn_cast<NVVM::LdMatrixOp>(op)) {
      if (failed(emulateLdmatrix(ld)))
        return failure();
    } else if (auto cp = dyn_cast<NVVM::CpAsyncOp>(op)) {
      // The copy happens at once: a legal schedule of an asynchronous copy,
      // so commit and wait have nothing to do. (The emulator cannot catch a
      // read that does not wait.)
      emulateCpAsync(cp);
    } else if (isa<NVVM::CpAsyncCommitGroupOp, NVVM::CpAsyncWaitGroupOp,
                   NVVM::WgmmaFenceAlignedOp, NVVM::WgmmaGroupSyncAlignedOp,
                   NVVM::WgmmaWaitGroupSyncOp, NVVM::FenceMbarrierInitOp,
                   NVVM::FenceProxyOp, NVVM::SetMaxRegisterOp>(op)) {
      // Emulated copies and wgmma complete at once, over one coherent memory
      // seen through one proxy, with no register file to resize: nothing to
      // commit, fence, wait for or reallocate.
      op->erase();
    } else if (auto wgmma = dyn_cast<stc_gpu::WgmmaSpOp>(op)) {
      if (failed(emulateWgmma(wgmma, shared)))
        return failure();
    } else if (auto dense = dyn_cast<NVVM::WgmmaMmaAsyncOp>(op)) {
      if (failed(emulateDenseWgmma(dense, shared)))
        return failure();
    } else if (isa<NVVM::MBarrierInitOp, NVVM::MBarrierArriveOp,
                   NVVM::MBarrierArriveExpectTxOp, NVVM::MBarrierExpectTxOp,
                   NVVM::MBarrierCompleteTxOp, NVVM::MBarrierTryWaitParityOp>(
                   op)) {
      if (failed(emulateMbarrier(op, b)))
        return failure();
    } else if (auto tma =
                   dyn_cast<NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp>(
                       op)) {
      if (failed(emulateTmaLoad(tma)))
        return failure();
    } else if (auto inlineAsm = dyn_cast<LLVM::InlineAsmOp>(op)) {
      if (failed(emulateEmptyAsm(inlineAsm)))
        return failure();
    } else if (auto mapa = dyn_cast<NVVM::MapaOp>(op)) {
      // The cluster's blocks run together, each with its own shared memory
      // (stc_emu_cta_shared): mapa finds the partner's copy.
      Value p =
          func::CallOp::create(b, runtimeSymbol(RuntimeEntryPoint::EmuMapa),
                               b.getType<LLVM::LLVMPointerType>(),
                               ValueRange{flat(b, mapa.getA()), mapa.getB()})
              .getResult(0);
      op->replaceAllUsesWith(ValueRange{
          LLVM::AddrSpaceCastOp::create(b, mapa.getRes().getType(), p)});
      op->erase();
    } else if (isa<NVVM::ClusterId>(op)) {
      op->replaceAllUsesWith(
          func::CallOp::create(
              b, runtimeSymbol(RuntimeEntryPoint::EmuClusterCtaRank),
              b.getI32Type(), ValueRange{})
              ->getResults());
      op->erase();
    } else if (isa<NVVM::ClusterArriveOp, NVVM::ClusterWaitOp>(op)) {
      func::CallOp::create(
          b,
          isa<NVVM::ClusterArriveOp>(op)
              ? runtimeSymbol(RuntimeEntryPoint::EmuClusterArrive)
              : runtimeSymbol(RuntimeEntryPoint::EmuClusterWait),
          TypeRange{}, ValueRange{});
      op->erase();
    } else if (auto cvt = dyn_cast<NVVM::ConvertFloatToTF32Op>(op)) {
      if (cvt.getRnd() != NVVM::FPRoundingMode::RNA ||
          cvt.getSat() != NVVM::SaturationMode::NONE || cvt.getRelu())
        return op->emitError("stc-emulate-gpu: only cvt.rna.tf32.f32 is "
                             "emulated");
      // Round to nearest, ties away from zero, at bit 13; NaN and infinity
      // (exponent all ones) pass unchanged.
      Type i32 = b.getI32Type();
      auto c = [&](int64_t v) {
        return arith::ConstantIntOp::create(b, v, 32).getResult();
      };
      Value bits = arith::BitcastOp::create(b, i32, cvt.getSrc());
      Value rounded = arith::AndIOp::create(
          b, arith::AddIOp::create(b, bits, c(0x1000)), c(0xFFFFE000));
      Value exponent = arith::AndIOp::create(b, bits, c(0x7F800000));
      Value special = arith::CmpIOp::create(b, arith::CmpIPredicate::eq,
                                            exponent, c(0x7F800000));
      Value v = arith::SelectOp::create(b, special, bits, rounded);
      op->replaceAllUsesWith(ValueRange{v});
      op->erase();
    } else if (auto call = dyn_cast<LLVM::CallIntrinsicOp>(op)) {
      // The NVVM intrinsics the kernels call by name, by their CPU meaning.
      if (call.getIntrin() != kEx2Intrinsic)
        return op->emitError("stc-emulate-gpu: cannot emulate ")
               << call.getIntrin();
      Value v = LLVM::Exp2Op::create(b, call.getArgs()[0]);
      op->replaceAllUsesWith(ValueRange{v});
      op->erase();
    } else if (auto dense = dyn_cast<NVVM::MmaOp>(op)) {
      if (failed(emulateDenseMma(dense)))
        return failure();
    } else if (failed(emulateMma(cast<NVVM::MmaSpOp>(op)))) {
      return failure();
    }
  }
  // Each block of a cluster has its own shared memory: every address of a
  // shared-memory global goes through stc_emu_cta_shared, which gives the
  // calling block's copy.
  SmallVector<LLVM::AddressOfOp> sharedAddresses;
  fn.walk([&](LLVM::AddressOfOp address) {
    if (cast<LLVM::LLVMPointerType>(address.getType()).getAddressSpace() == 3)
      sharedAddresses.push_back(address);
  });
  for (LLVM::AddressOfOp address : sharedAddresses) {
    b.setInsertionPointAfter(address);
    Value host = flat(b, address);
    Value copy =
        func::CallOp::create(b, runtimeSymbol(RuntimeEntryPoint::EmuCtaShared),
                             host.getType(), ValueRange{host})
            .getResult(0);
    Value back = LLVM::AddrSpaceCastOp::create(b, address.getType(), copy);
    address.getResult().replaceAllUsesExcept(back, host.getDefiningOp());
  }
  // What a GPU kernel may contain that the CPU cannot run.
  WalkResult unsupported = fn.walk([&](Operation *op) {
    if (isa<gpu::GPUDialect, NVVM::NVVMDialect>(op->getDialect())) {
      op->emitError("stc-emulate-gpu: cannot emulate ") << op->getName();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (unsupported.wasInterrupted())
    return failure();
  return success();
}
