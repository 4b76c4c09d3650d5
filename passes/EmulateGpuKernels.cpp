//===- EmulateGpuKernels.cpp - run stc GPU kernels on the CPU -*- C++ -*-===//
//
// For machines with no GPU (CI, this project's build machines): turns the
// kernels stc-lower-spmm-to-gpu generated, and the host code that launches
// them, into CPU code that runs the very same kernel bodies through the
// emulator runtime (runtime/emulator/stc_gpu_emulator.h):
//
// - each gpu.func @k becomes func.func @k_emu(%params: !llvm.ptr, %thread,
//   %blockX, %blockY: i32): its parameters are read from the array of
//   64-bit words, gpu.thread_id/block_id are the arguments, and every
//   nvvm.mma.sp.sync becomes a call of stc_emu_mma_sp, the warp
//   rendezvous at which the CPU model of mma.sp computes the warp's result,
//   and every stc.wgmma_sp (A from registers, f16/bf16) a call of
//   stc_emu_wgmma_sp, the warpgroup's rendezvous (the wgmma fence, commit
//   and wait have nothing to do: the emulated instruction is synchronous);
// - gpu.launch_func packs its arguments into such an array and calls
//   stc_emu_launch; gpu.alloc/memcpy/dealloc become host memref ops.
//
// Runs after stc-gpu-host-launch; the result is a plain CPU module for the
// usual lowering to LLVM. Only the ops stc's kernels use are handled;
// anything else is an error.
//
//===----------------------------------------------------------------------===//
#include "dialects/Stc/StcOps.h"
#include "passes/Passes.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"

namespace mlir::stc {
#define GEN_PASS_DEF_STCEMULATEGPUKERNELS
#include "passes/Passes.h.inc"
} // namespace mlir::stc

using namespace mlir;
using namespace mlir::stc;

namespace {

constexpr llvm::StringLiteral kLaunchFn = "stc_emu_launch";
constexpr llvm::StringLiteral kMmaFn = "stc_emu_mma_sp";
constexpr llvm::StringLiteral kWgmmaFn = "stc_emu_wgmma_sp";
/// Alignment of the kernels' shared-memory globals on the host: a matrix
/// descriptor keeps the low 18 bits of a shared address, which the runtime
/// adds to the (256 KiB aligned) base of the global.
constexpr uint64_t kSmemAlignment = 256 * 1024;
constexpr llvm::StringLiteral kLdmatrixFn = "stc_emu_ldmatrix";
constexpr llvm::StringLiteral kCpAsyncFn = "stc_emu_cp_async";
constexpr llvm::StringLiteral kBarrierFn = "stc_emu_barrier";

class EmulateGpuKernels
    : public mlir::stc::impl::StcEmulateGpuKernelsBase<EmulateGpuKernels> {
public:
  void runOnOperation() override;

private:
  FailureOr<func::FuncOp> emulateKernel(gpu::GPUFuncOp kernel);
  LogicalResult emulateMma(NVVM::MmaSpOp mma);
  LogicalResult emulateWgmma(WgmmaSpOp op);
  LogicalResult emulateLdmatrix(NVVM::LdMatrixOp op);
  void emulateCpAsync(NVVM::CpAsyncOp op);
  void declareRuntime();

  /// The shared-memory globals (address space 3) of the gpu.module whose
  /// kernel is being emulated.
  SmallVector<LLVM::GlobalOp> currentSmem;

  FunctionType kernelType() {
    MLIRContext *ctx = &getContext();
    Type i32 = IntegerType::get(ctx, 32);
    return FunctionType::get(
        ctx, {LLVM::LLVMPointerType::get(ctx), i32, i32, i32}, {});
  }
};

void EmulateGpuKernels::declareRuntime() {
  ModuleOp module = getOperation();
  MLIRContext *ctx = module.getContext();
  OpBuilder b(module.getBodyRegion());
  b.setInsertionPointToStart(module.getBody());
  Type ptr = LLVM::LLVMPointerType::get(ctx);
  Type i32 = IntegerType::get(ctx, 32);
  Type i64 = IntegerType::get(ctx, 64);
  auto declare = [&](StringRef name, ArrayRef<Type> args) {
    if (module.lookupSymbol(name))
      return;
    auto f = func::FuncOp::create(b, module.getLoc(), name,
                                  FunctionType::get(ctx, args, {}));
    f.setPrivate();
  };
  declare(kLaunchFn, {kernelType(), i64, i64, i64, ptr, ptr});
  declare(kMmaFn, {i32, i32, ptr, ptr, ptr, i32, i32, ptr});
  declare(kWgmmaFn,
          {i32, i32, ptr, i64, i32, i32, i32, i32, i32, i32, ptr, i64, ptr});
  declare(kLdmatrixFn, {ptr, i32, i32, ptr});
  declare(kCpAsyncFn, {ptr, ptr, i32, i32});
  declare(kBarrierFn, {});
}

/// An alloca of `n` elements of `type` in the entry block of `fn`, so that
/// loops do not grow the stack.
static Value entryAlloca(func::FuncOp fn, Type type, int64_t n, Location loc) {
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

LogicalResult EmulateGpuKernels::emulateWgmma(WgmmaSpOp op) {
  Type aType = op.getAType(), bType = op.getBType(), dType = op.getDType();
  bool f16 = aType.isF16() && bType.isF16();
  bool bf16 = aType.isBF16() && bType.isBF16();
  // The runtime's kind (stc_gpu_emulator.h).
  int64_t kindValue = -1;
  if (f16 && dType.isF32())
    kindValue = 0;
  else if (bf16 && dType.isF32())
    kindValue = 1;
  else if (f16 && dType.isF16())
    kindValue = 2;
  if (kindValue < 0 || op.getADesc() || op.getARegs().size() != 4 ||
      op.getTransA() || op.getSatfinite())
    return op.emitError("stc-emulate-gpu: only stc.wgmma_sp with A from "
                        "registers and f16 or bf16 inputs with f32 "
                        "accumulators (or f16 with f16) is emulated");
  if (currentSmem.size() != 1)
    return op.emitError("stc-emulate-gpu: stc.wgmma_sp is emulated in a "
                        "kernel module with exactly one shared-memory "
                        "global (its B descriptor addresses it), not ")
           << currentSmem.size();
  LLVM::GlobalOp smem = currentSmem.front();
  int64_t smemBytes =
      DataLayout::closest(smem).getTypeSize(smem.getGlobalType());
  if (smemBytes <= 0 || uint64_t(smemBytes) > kSmemAlignment)
    return op.emitError("stc-emulate-gpu: the shared-memory global @")
           << smem.getSymName() << " of " << smemBytes
           << " bytes does not fit the 256 KiB a descriptor addresses";

  MLIRContext *ctx = op.getContext();
  Type i32 = IntegerType::get(ctx, 32), f32 = Float32Type::get(ctx);
  Type wordType = dType.isF32() ? f32 : i32;
  auto fn = op->getParentOfType<func::FuncOp>();
  Location loc = op.getLoc();
  ImplicitLocOpBuilder b(loc, op);
  int64_t dRegs = op.getAcc().size();
  Value a = entryAlloca(fn, i32, 4, loc),
        d = entryAlloca(fn, wordType, std::max<int64_t>(dRegs, 1), loc);
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
  func::CallOp::create(
      b, kWgmmaFn, TypeRange{},
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

LogicalResult EmulateGpuKernels::emulateMma(NVVM::MmaSpOp mma) {
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
  int64_t kindValue;
  if (int8) {
    bool aU8 = *aType == NVVM::MMATypes::u8, bU8 = *bType == NVVM::MMATypes::u8;
    int64_t types = aU8 == bU8 ? (aU8 ? 1 : 0) : (aU8 ? 3 : 2);
    kindValue = 4 + 2 * types + (k == 32 ? 1 : 0);
  } else {
    kindValue = tf32 ? 2 : bf16 ? 1 : f16Acc ? 3 : 0;
  }
  auto fn = mma->getParentOfType<func::FuncOp>();
  Location loc = mma.getLoc();
  ImplicitLocOpBuilder b(loc, mma);
  Value a = entryAlloca(fn, i32, 4, loc), bRegs = entryAlloca(fn, i32, 4, loc),
        c = entryAlloca(fn, i32, 4, loc), d = entryAlloca(fn, i32, 4, loc);
  storeWords(b, a, mma.getOperandA(), i32);
  storeWords(b, bRegs, mma.getOperandB(), i32);
  // The accumulators as 32-bit words: f32 bits, f16x2 or s32.
  Type wordType = f16Acc || int8 ? i32 : f32;
  storeWords(b, c, mma.getOperandC(), wordType);
  Value kind = arith::ConstantIntOp::create(b, kindValue, 32);
  Value ordered =
      arith::ConstantIntOp::create(b, mma.getOrderedMetadata() ? 1 : 0, 32);
  func::CallOp::create(b, kMmaFn, TypeRange{},
                       ValueRange{kind, ordered, a, bRegs, c,
                                  mma.getSparseMetadata(),
                                  mma.getSparsitySelector(), d});
  Value result = LLVM::UndefOp::create(b, mma.getType());
  Type accType =
      f16Acc ? Type(VectorType::get({2}, Float16Type::get(ctx))) : wordType;
  for (int32_t i = 0; i < cRegs; ++i)
    result = LLVM::InsertValueOp::create(
        b, result, loadWord(b, d, wordType, i, accType), i);
  mma.replaceAllUsesWith(result);
  mma.erase();
  return success();
}

LogicalResult EmulateGpuKernels::emulateLdmatrix(NVVM::LdMatrixOp op) {
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
  func::CallOp::create(b, kLdmatrixFn, TypeRange{},
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

void EmulateGpuKernels::emulateCpAsync(NVVM::CpAsyncOp op) {
  ImplicitLocOpBuilder b(op.getLoc(), op);
  Value size = arith::ConstantIntOp::create(b, op.getSize(), 32);
  Value srcSize = op.getCpSize() ? op.getCpSize() : size;
  func::CallOp::create(
      b, kCpAsyncFn, TypeRange{},
      ValueRange{flat(b, op.getDst()), flat(b, op.getSrc()), size, srcSize});
  op.erase();
}

FailureOr<func::FuncOp>
EmulateGpuKernels::emulateKernel(gpu::GPUFuncOp kernel) {
  ModuleOp module = getOperation();
  MLIRContext *ctx = module.getContext();
  Location loc = kernel.getLoc();
  OpBuilder mb(module.getBodyRegion());
  mb.setInsertionPointToEnd(module.getBody());
  auto fn = func::FuncOp::create(mb, loc, (kernel.getName() + "_emu").str(),
                                 kernelType());
  fn.setPrivate();
  Block *entry = fn.addEntryBlock();
  ImplicitLocOpBuilder b(loc, ctx);
  b.setInsertionPointToStart(entry);
  Value params = entry->getArgument(0);
  IRMapping mapping;
  Type i64 = b.getI64Type();
  for (auto [i, arg] : llvm::enumerate(kernel.getArguments())) {
    Value p = LLVM::GEPOp::create(b, params.getType(), i64, params,
                                  ArrayRef<LLVM::GEPArg>{int32_t(i)});
    Value word = LLVM::LoadOp::create(b, i64, p);
    Value v;
    if (isa<LLVM::LLVMPointerType>(arg.getType()))
      v = LLVM::IntToPtrOp::create(b, arg.getType(), word);
    else if (arg.getType().isInteger(32))
      v = arith::TruncIOp::create(b, arg.getType(), word);
    else
      return kernel.emitError("stc-emulate-gpu: unsupported kernel parameter "
                              "type ")
             << arg.getType();
    mapping.map(arg, v);
  }
  // The body (one block: stc kernels use structured control flow).
  if (!kernel.getBody().hasOneBlock())
    return kernel.emitError("stc-emulate-gpu: kernels with more than one "
                            "block are not emulated");
  for (Operation &op : kernel.getBody().front())
    b.clone(op, mapping);

  Value thread = entry->getArgument(1);
  Value blockX = entry->getArgument(2), blockY = entry->getArgument(3);
  SmallVector<Operation *> toReplace;
  fn.walk([&](Operation *op) {
    if (isa<gpu::ThreadIdOp, gpu::BlockIdOp, gpu::ReturnOp, gpu::BarrierOp,
            NVVM::MmaSpOp, NVVM::LdMatrixOp, NVVM::CpAsyncOp,
            NVVM::CpAsyncCommitGroupOp, NVVM::CpAsyncWaitGroupOp,
            NVVM::ConvertFloatToTF32Op, NVVM::WgmmaFenceAlignedOp,
            NVVM::WgmmaGroupSyncAlignedOp, NVVM::WgmmaWaitGroupSyncOp,
            WgmmaSpOp>(op))
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
      func::CallOp::create(b, kBarrierFn, TypeRange{}, ValueRange{});
      op->erase();
    } else if (auto ld = dyn_cast<NVVM::LdMatrixOp>(op)) {
      if (failed(emulateLdmatrix(ld)))
        return failure();
    } else if (auto cp = dyn_cast<NVVM::CpAsyncOp>(op)) {
      // The copy happens at once: a legal schedule of an asynchronous copy,
      // so commit and wait have nothing to do. (The emulator cannot catch a
      // read that does not wait.)
      emulateCpAsync(cp);
    } else if (isa<NVVM::CpAsyncCommitGroupOp, NVVM::CpAsyncWaitGroupOp>(op)) {
      op->erase();
    } else if (isa<NVVM::WgmmaFenceAlignedOp, NVVM::WgmmaGroupSyncAlignedOp,
                   NVVM::WgmmaWaitGroupSyncOp>(op)) {
      // The emulated wgmma is synchronous: nothing to fence or wait for.
      op->erase();
    } else if (auto wgmma = dyn_cast<WgmmaSpOp>(op)) {
      if (failed(emulateWgmma(wgmma)))
        return failure();
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
      if (call.getIntrin() != "llvm.nvvm.ex2.approx")
        return op->emitError("stc-emulate-gpu: cannot emulate ")
               << call.getIntrin();
      Value v = LLVM::Exp2Op::create(b, call.getArgs()[0]);
      op->replaceAllUsesWith(ValueRange{v});
      op->erase();
    } else if (failed(emulateMma(cast<NVVM::MmaSpOp>(op)))) {
      return failure();
    }
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
  return fn;
}

void EmulateGpuKernels::runOnOperation() {
  ModuleOp module = getOperation();
  SmallVector<gpu::GPUModuleOp> gpuModules(module.getOps<gpu::GPUModuleOp>());
  if (gpuModules.empty())
    return;
  declareRuntime();
  MLIRContext *ctx = module.getContext();

  // Shared memory: the kernels' globals move to the module. Blocks run one
  // after the other, so one copy serves the block that runs. Each shared
  // (address space 3) global is aligned to 256 KiB, so that the low 18 bits
  // of its host addresses are the shared addresses a wgmma descriptor holds
  // (stc_gpu_emulator.h, stc_emu_wgmma_sp).
  llvm::DenseMap<Operation *, SmallVector<LLVM::GlobalOp>> smemOf;
  for (gpu::GPUModuleOp gm : gpuModules)
    for (auto global :
         llvm::make_early_inc_range(gm.getOps<LLVM::GlobalOp>())) {
      if (global.getAddrSpace() == 3) {
        global.setAlignment(kSmemAlignment);
        smemOf[gm].push_back(global);
      }
      global->moveBefore(module.getBody(), module.getBody()->end());
    }

  // Kernels to CPU functions.
  llvm::StringMap<func::FuncOp> emulated;
  for (gpu::GPUModuleOp gm : gpuModules)
    for (auto kernel : gm.getOps<gpu::GPUFuncOp>()) {
      currentSmem = smemOf.lookup(gm);
      FailureOr<func::FuncOp> fn = emulateKernel(kernel);
      if (failed(fn))
        return signalPassFailure();
      emulated[(gm.getName() + "::" + kernel.getName()).str()] = *fn;
    }

  // Host: launches and device memory.
  SmallVector<Operation *> hostOps;
  module.walk([&](Operation *op) {
    if (isa<gpu::LaunchFuncOp, gpu::AllocOp, gpu::MemcpyOp, gpu::DeallocOp>(
            op) &&
        !op->getParentOfType<gpu::GPUModuleOp>())
      hostOps.push_back(op);
  });
  Type i64 = IntegerType::get(ctx, 64);
  for (Operation *op : hostOps) {
    ImplicitLocOpBuilder b(op->getLoc(), op);
    if (auto alloc = dyn_cast<gpu::AllocOp>(op)) {
      if (alloc.getAsyncToken())
        return (void)(op->emitError("stc-emulate-gpu: async gpu.alloc"),
                      signalPassFailure());
      Value m =
          memref::AllocOp::create(b, alloc.getType(), alloc.getDynamicSizes());
      alloc.getMemref().replaceAllUsesWith(m);
      op->erase();
    } else if (auto copy = dyn_cast<gpu::MemcpyOp>(op)) {
      memref::CopyOp::create(b, copy.getSrc(), copy.getDst());
      op->erase();
    } else if (auto dealloc = dyn_cast<gpu::DeallocOp>(op)) {
      memref::DeallocOp::create(b, dealloc.getMemref());
      op->erase();
    } else {
      auto launch = cast<gpu::LaunchFuncOp>(op);
      std::string key = (launch.getKernelModuleName().getValue() +
                         "::" + launch.getKernelName().getValue())
                            .str();
      auto it = emulated.find(key);
      if (it == emulated.end())
        return (void)(op->emitError("stc-emulate-gpu: no kernel ") << key,
                      signalPassFailure());
      auto fn = op->getParentOfType<func::FuncOp>();
      int64_t n = launch.getKernelOperands().size();
      Value params =
          entryAlloca(fn, i64, std::max<int64_t>(n, 1), op->getLoc());
      for (auto [i, v] : llvm::enumerate(launch.getKernelOperands())) {
        Value word;
        if (isa<LLVM::LLVMPointerType>(v.getType()))
          word = LLVM::PtrToIntOp::create(b, i64, v);
        else if (v.getType().isInteger(32))
          word = arith::ExtSIOp::create(b, i64, v);
        else
          return (void)(op->emitError("stc-emulate-gpu: unsupported kernel "
                                      "argument type ")
                            << v.getType(),
                        signalPassFailure());
        Value p = LLVM::GEPOp::create(b, params.getType(), i64, params,
                                      ArrayRef<LLVM::GEPArg>{int32_t(i)});
        LLVM::StoreOp::create(b, word, p);
      }
      auto toI64 = [&](Value index) {
        return arith::IndexCastOp::create(b, i64, index).getResult();
      };
      gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
      gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
      Value kernelRef = func::ConstantOp::create(
          b, it->second.getFunctionType(),
          FlatSymbolRefAttr::get(it->second.getSymNameAttr()));
      // The kernel's name, NUL-terminated, for the emulator's launch trace
      // (STC_EMU_TRACE): which of several kernels the host chose is visible
      // to tests.
      StringRef kernelName = launch.getKernelName().getValue();
      std::string nameSymbol = ("stc_emu_name_" + kernelName).str();
      auto nameType = LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8),
                                               kernelName.size() + 1);
      if (!module.lookupSymbol(nameSymbol)) {
        OpBuilder gb(module.getBodyRegion());
        gb.setInsertionPointToStart(module.getBody());
        LLVM::GlobalOp::create(
            gb, op->getLoc(), nameType,
            /*isConstant=*/true, LLVM::Linkage::Private, nameSymbol,
            gb.getStringAttr((kernelName + Twine('\0')).str()));
      }
      Value name = LLVM::AddressOfOp::create(b, LLVM::LLVMPointerType::get(ctx),
                                             nameSymbol);
      func::CallOp::create(b, kLaunchFn, TypeRange{},
                           ValueRange{kernelRef, toI64(grid.x), toI64(grid.y),
                                      toI64(block.x), params, name});
      op->erase();
    }
  }
  for (gpu::GPUModuleOp gm : gpuModules)
    gm.erase();
  module->removeAttr(gpu::GPUDialect::getContainerModuleAttrName());
}

} // namespace
