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
//   and every stc_gpu.wgmma_sp (f16/bf16, s8) a call of stc_emu_wgmma_sp (A
//   from registers) or stc_emu_wgmma_sp_ss (A from shared memory), the
//   warpgroup's rendezvous (the wgmma fence, commit and wait have nothing
//   to do: the emulated instruction is synchronous);
// - the sm_90a pipeline ops: nvvm.mbarrier.init / arrive / arrive.expect_tx
//   / expect_tx / complete_tx / try_wait.parity become calls of
//   stc_emu_mbarrier_* (the state stays in the barrier's 8 bytes of shared
//   memory), and the 2-D and 4-D tile-mode nvvm.cp.async.bulk.tensor (TMA
//   load) a call of stc_emu_tma_load_2d / _4d (_2d_multicast: into every
//   block of the mask), which copies at once and completes its bytes on the
//   barrier(s); nvvm.mapa, cluster.arrive / wait and %cluster_ctarank calls
//   of stc_emu_mapa / cluster_arrive / cluster_wait / cluster_ctarank; the
//   mbarrier-init and proxy fences and
//   setmaxregister have nothing to do on a CPU, and an empty inline
//   assembly (a register fence, "=f,0") is the identity on its tied
//   operands (other inline assembly is an error);
// - shared memory: the kernel modules' address-space-3 globals move to the
//   host module, aligned to 256 KiB (stc_emu_wgmma_sp). A dynamic one (a
//   zero-sized array, which a kernel's stc_gpu.kernel_info `shared_bytes` sizes
//   at launch) becomes a zeroed global of that many bytes. The kernels
//   take every address of one through stc_emu_cta_shared: the global for a
//   block of cluster rank 0, a copy for the others;
// - gpu.launch_func packs its arguments into such an array and calls
//   stc_emu_launch, or for a cluster launch stc_emu_check_cluster
//   and stc_emu_launch_cluster, which runs the blocks of a cluster together;
//   gpu.alloc/memcpy/dealloc become host
//   memref ops, and host calls of stc_gpu_tensor_map_2d / _4d (the
//   runtime's cuTensorMapEncodeTiled) calls of stc_emu_tensor_map_2d / _4d.
//
// Runs after stc-gpu-host-launch; the result is a plain CPU module for the
// usual lowering to LLVM. Only the ops stc's kernels use are handled;
// anything else is an error.
//
//===----------------------------------------------------------------------===//
#include "dialects/StcGpu/StcGpuOps.h"
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
/// The same with A from shared memory (a_desc).
constexpr llvm::StringLiteral kWgmmaSsFn = "stc_emu_wgmma_sp_ss";
/// Alignment of the kernels' shared-memory globals on the host: a matrix
/// descriptor keeps the low 18 bits of a shared address, which the runtime
/// adds to the (256 KiB aligned) base of the global.
constexpr uint64_t kSmemAlignment = 256 * 1024;
constexpr llvm::StringLiteral kLdmatrixFn = "stc_emu_ldmatrix";
constexpr llvm::StringLiteral kCpAsyncFn = "stc_emu_cp_async";
constexpr llvm::StringLiteral kBarrierFn = "stc_emu_barrier";
constexpr llvm::StringLiteral kMbarrierInitFn = "stc_emu_mbarrier_init";
constexpr llvm::StringLiteral kMbarrierArriveFn = "stc_emu_mbarrier_arrive";
constexpr llvm::StringLiteral kMbarrierArriveExpectTxFn =
    "stc_emu_mbarrier_arrive_expect_tx";
constexpr llvm::StringLiteral kMbarrierExpectTxFn =
    "stc_emu_mbarrier_expect_tx";
constexpr llvm::StringLiteral kMbarrierCompleteTxFn =
    "stc_emu_mbarrier_complete_tx";
constexpr llvm::StringLiteral kMbarrierWaitParityFn =
    "stc_emu_mbarrier_wait_parity";
constexpr llvm::StringLiteral kTmaLoadFn = "stc_emu_tma_load_2d";
constexpr llvm::StringLiteral kTmaLoad4dFn = "stc_emu_tma_load_4d";
constexpr llvm::StringLiteral kClusterCheckFn = "stc_emu_check_cluster";
constexpr llvm::StringLiteral kLaunchClusterFn = "stc_emu_launch_cluster";
constexpr llvm::StringLiteral kCtaSharedFn = "stc_emu_cta_shared";
constexpr llvm::StringLiteral kMapaFn = "stc_emu_mapa";
constexpr llvm::StringLiteral kClusterRankFn = "stc_emu_cluster_ctarank";
constexpr llvm::StringLiteral kClusterArriveFn = "stc_emu_cluster_arrive";
constexpr llvm::StringLiteral kClusterWaitFn = "stc_emu_cluster_wait";
constexpr llvm::StringLiteral kTmaLoadMulticastFn =
    "stc_emu_tma_load_2d_multicast";
/// The host runtime's tensor-map constructors (cuTensorMapEncodeTiled) and
/// the emulator's, with the same signatures.
constexpr llvm::StringLiteral kGpuTensorMapFn = "stc_gpu_tensor_map_2d";
constexpr llvm::StringLiteral kEmuTensorMapFn = "stc_emu_tensor_map_2d";
constexpr llvm::StringLiteral kGpuTensorMap4dFn = "stc_gpu_tensor_map_4d";
constexpr llvm::StringLiteral kEmuTensorMap4dFn = "stc_emu_tensor_map_4d";
/// The most dynamic shared memory an sm_90 block can have (227 KiB).
constexpr int64_t kMaxDynamicSmemBytes = 232448;

class EmulateGpuKernels
    : public mlir::stc::impl::StcEmulateGpuKernelsBase<EmulateGpuKernels> {
public:
  void runOnOperation() override;

private:
  FailureOr<func::FuncOp> emulateKernel(gpu::GPUFuncOp kernel);
  LogicalResult emulateMma(NVVM::MmaSpOp mma);
  LogicalResult emulateWgmma(stc_gpu::WgmmaSpOp op);
  LogicalResult emulateLdmatrix(NVVM::LdMatrixOp op);
  void emulateCpAsync(NVVM::CpAsyncOp op);
  LogicalResult emulateMbarrier(Operation *op, ImplicitLocOpBuilder &b);
  LogicalResult
  emulateTmaLoad(NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp op);
  LogicalResult renameTensorMapCalls(StringRef gpuFn, StringRef emuFn,
                                     FunctionType type);
  LogicalResult checkCluster(gpu::LaunchFuncOp launch, ImplicitLocOpBuilder &b);
  void declareRuntime();

  /// The static shared-memory globals (address space 3) of the gpu.module
  /// whose kernel is being emulated.
  SmallVector<LLVM::GlobalOp> currentSmem;
  /// The dynamic shared-memory global that kernel uses, if any, and its
  /// size (stc_gpu.kernel_info `shared_bytes`): stc_gpu.wgmma_sp's window then.
  LLVM::GlobalOp currentDynamicSmem;
  int64_t currentDynamicSmemBytes = 0;

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
  auto declare = [&](StringRef name, ArrayRef<Type> args,
                     ArrayRef<Type> results = {}) {
    if (module.lookupSymbol(name))
      return;
    auto f = func::FuncOp::create(b, module.getLoc(), name,
                                  FunctionType::get(ctx, args, results));
    f.setPrivate();
  };
  declare(kLaunchFn, {kernelType(), i64, i64, i64, ptr, ptr});
  declare(kMmaFn, {i32, i32, ptr, ptr, ptr, i32, i32, ptr});
  declare(kWgmmaFn,
          {i32, i32, ptr, i64, i32, i32, i32, i32, i32, i32, ptr, i64, ptr});
  declare(kWgmmaSsFn, {i32, i32, i64, i64, i32, i32, i32, i32, i32, i32, i32,
                       ptr, i64, ptr});
  declare(kLdmatrixFn, {ptr, i32, i32, ptr});
  declare(kCpAsyncFn, {ptr, ptr, i32, i32});
  declare(kBarrierFn, {});
  declare(kMbarrierInitFn, {ptr, i32});
  declare(kMbarrierArriveFn, {ptr, i32});
  declare(kMbarrierArriveExpectTxFn, {ptr, i32});
  declare(kMbarrierExpectTxFn, {ptr, i32});
  declare(kMbarrierCompleteTxFn, {ptr, i32});
  declare(kMbarrierWaitParityFn, {ptr, i32});
  declare(kTmaLoadFn, {ptr, ptr, i32, i32, ptr});
  declare(kTmaLoad4dFn, {ptr, ptr, i32, i32, i32, i32, ptr});
  declare(kClusterCheckFn, {i64, i64, i64, i64, i64, i64});
  declare(kLaunchClusterFn, {kernelType(), i64, i64, i64, ptr, ptr, i64, i64});
  declare(kCtaSharedFn, {ptr}, {ptr});
  declare(kMapaFn, {ptr, i32}, {ptr});
  declare(kClusterRankFn, {}, {i32});
  declare(kClusterArriveFn, {});
  declare(kClusterWaitFn, {});
  declare(kTmaLoadMulticastFn, {ptr, ptr, i32, i32, ptr, i32});
}

/// The type of stc_gpu_tensor_map_2d and stc_emu_tensor_map_2d: (base,
/// data type, inner, outer, outer stride bytes, box inner, box outer,
/// swizzle bytes) -> map.
static FunctionType tensorMapType(MLIRContext *ctx) {
  Type ptr = LLVM::LLVMPointerType::get(ctx);
  Type i32 = IntegerType::get(ctx, 32), i64 = IntegerType::get(ctx, 64);
  return FunctionType::get(ctx, {ptr, i32, i64, i64, i64, i32, i32, i32},
                           {ptr});
}

/// The type of stc_gpu_tensor_map_4d and stc_emu_tensor_map_4d: (base,
/// data type, sizes d0..d3, byte strides s1..s3, box b0..b3, element
/// strides e0..e3, swizzle bytes) -> map.
static FunctionType tensorMap4dType(MLIRContext *ctx) {
  Type ptr = LLVM::LLVMPointerType::get(ctx);
  Type i32 = IntegerType::get(ctx, 32), i64 = IntegerType::get(ctx, 64);
  SmallVector<Type> args = {ptr, i32};
  args.append(7, i64);
  args.append(9, i32);
  return FunctionType::get(ctx, args, {ptr});
}

/// A zero-sized shared-memory array: the kernel's dynamic shared memory,
/// whose size the launch gives.
static bool isDynamicSmem(LLVM::GlobalOp global) {
  auto array = dyn_cast<LLVM::LLVMArrayType>(global.getGlobalType());
  return global.getAddrSpace() == 3 && array && array.getNumElements() == 0;
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

LogicalResult EmulateGpuKernels::emulateWgmma(stc_gpu::WgmmaSpOp op) {
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
  else if (aType.isSignedInteger(8) && bType.isSignedInteger(8) &&
           dType.isSignlessInteger(32))
    kindValue = 3;
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
  // The B descriptor addresses the kernel's dynamic shared memory, or else
  // the module's one static shared-memory global.
  LLVM::GlobalOp smem = currentDynamicSmem;
  int64_t smemBytes = currentDynamicSmemBytes;
  if (!smem) {
    if (currentSmem.size() != 1)
      return op.emitError("stc-emulate-gpu: stc_gpu.wgmma_sp is emulated in a "
                          "kernel module with exactly one shared-memory "
                          "global (its B descriptor addresses it), not ")
             << currentSmem.size();
    smem = currentSmem.front();
    smemBytes = DataLayout::closest(smem).getTypeSize(smem.getGlobalType());
    if (smemBytes <= 0 || uint64_t(smemBytes) > kSmemAlignment)
      return op.emitError("stc-emulate-gpu: the shared-memory global @")
             << smem.getSymName() << " of " << smemBytes
             << " bytes does not fit the 256 KiB a descriptor addresses";
  }

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
        b, kWgmmaSsFn, TypeRange{},
        ValueRange{constant(kindValue), constant(op.getN()), op.getADesc(),
                   op.getBDesc(), op.getMeta(), constant(op.getSel()), scaleD,
                   constant(op.getScaleA()), constant(op.getScaleB()),
                   constant(op.getTransA() ? 1 : 0),
                   constant(op.getTransB() ? 1 : 0), flat(b, base), bytes, d});
  else
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

/// The error for an NVVM op with a predicate operand (the emulator calls
/// its runtime unconditionally).
static LogicalResult predicated(Operation *op) {
  return op->emitError("stc-emulate-gpu: ")
         << op->getName() << " with a predicate is not emulated";
}

LogicalResult EmulateGpuKernels::emulateMbarrier(Operation *op,
                                                 ImplicitLocOpBuilder &b) {
  auto i32 = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, v, 32).getResult();
  };
  auto call = [&](StringRef fn, Value bar, Value arg) {
    func::CallOp::create(b, fn, TypeRange{}, ValueRange{flat(b, bar), arg});
  };
  if (auto init = dyn_cast<NVVM::MBarrierInitOp>(op)) {
    if (init.getPredicate())
      return predicated(op);
    call(kMbarrierInitFn, init.getAddr(), init.getCount());
  } else if (auto arrive = dyn_cast<NVVM::MBarrierArriveOp>(op)) {
    call(kMbarrierArriveFn, arrive.getAddr(),
         arrive.getCount() ? arrive.getCount() : i32(1));
  } else if (auto arrive = dyn_cast<NVVM::MBarrierArriveExpectTxOp>(op)) {
    if (arrive.getPredicate())
      return predicated(op);
    call(kMbarrierArriveExpectTxFn, arrive.getAddr(), arrive.getTxcount());
  } else if (auto expect = dyn_cast<NVVM::MBarrierExpectTxOp>(op)) {
    call(kMbarrierExpectTxFn, expect.getAddr(), expect.getTxcount());
  } else if (auto complete = dyn_cast<NVVM::MBarrierCompleteTxOp>(op)) {
    call(kMbarrierCompleteTxFn, complete.getAddr(), complete.getTxcount());
  } else {
    // A blocking wait: MLIR's op is a loop of try_wait until it succeeds.
    auto wait = cast<NVVM::MBarrierTryWaitParityOp>(op);
    call(kMbarrierWaitParityFn, wait.getAddr(), wait.getPhase());
  }
  // The opaque state token of an arrive (nothing reads it back: there is
  // no test.wait with a state operand to emulate).
  for (Value result : op->getResults())
    result.replaceAllUsesWith(
        arith::ConstantIntOp::create(b, 0, 64).getResult());
  op->erase();
  return success();
}

LogicalResult EmulateGpuKernels::emulateTmaLoad(
    NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp op) {
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
    func::CallOp::create(b, kTmaLoadMulticastFn, TypeRange{}, args);
  } else {
    func::CallOp::create(b, rank == 2 ? kTmaLoadFn : kTmaLoad4dFn, TypeRange{},
                         args);
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
            stc_gpu::WgmmaSpOp, NVVM::MBarrierInitOp, NVVM::MBarrierArriveOp,
            NVVM::MBarrierArriveExpectTxOp, NVVM::MBarrierExpectTxOp,
            NVVM::MBarrierCompleteTxOp, NVVM::MBarrierTryWaitParityOp,
            NVVM::FenceMbarrierInitOp, NVVM::FenceProxyOp,
            NVVM::SetMaxRegisterOp,
            NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp, LLVM::InlineAsmOp,
            NVVM::MapaOp, NVVM::ClusterId, NVVM::ClusterArriveOp,
            NVVM::ClusterWaitOp>(op))
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
    } else if (auto wgmma = dyn_cast<stc_gpu::WgmmaSpOp>(op)) {
      if (failed(emulateWgmma(wgmma)))
        return failure();
    } else if (isa<NVVM::MBarrierInitOp, NVVM::MBarrierArriveOp,
                   NVVM::MBarrierArriveExpectTxOp, NVVM::MBarrierExpectTxOp,
                   NVVM::MBarrierCompleteTxOp, NVVM::MBarrierTryWaitParityOp>(
                   op)) {
      if (failed(emulateMbarrier(op, b)))
        return failure();
    } else if (isa<NVVM::FenceMbarrierInitOp, NVVM::FenceProxyOp,
                   NVVM::SetMaxRegisterOp>(op)) {
      // One coherent memory, one proxy and no register file to resize.
      op->erase();
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
          func::CallOp::create(b, kMapaFn, b.getType<LLVM::LLVMPointerType>(),
                               ValueRange{flat(b, mapa.getA()), mapa.getB()})
              .getResult(0);
      op->replaceAllUsesWith(ValueRange{
          LLVM::AddrSpaceCastOp::create(b, mapa.getRes().getType(), p)});
      op->erase();
    } else if (isa<NVVM::ClusterId>(op)) {
      op->replaceAllUsesWith(
          func::CallOp::create(b, kClusterRankFn, b.getI32Type(), ValueRange{})
              ->getResults());
      op->erase();
    } else if (isa<NVVM::ClusterArriveOp, NVVM::ClusterWaitOp>(op)) {
      func::CallOp::create(
          b, isa<NVVM::ClusterArriveOp>(op) ? kClusterArriveFn : kClusterWaitFn,
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
        func::CallOp::create(b, kCtaSharedFn, host.getType(), ValueRange{host})
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
  return fn;
}

LogicalResult EmulateGpuKernels::renameTensorMapCalls(StringRef gpuFn,
                                                      StringRef emuFn,
                                                      FunctionType type) {
  ModuleOp module = getOperation();
  auto decl = module.lookupSymbol<func::FuncOp>(gpuFn);
  if (!decl)
    return success();
  if (decl.getFunctionType() != type)
    return decl.emitError("stc-emulate-gpu: @")
           << gpuFn << " has type " << decl.getFunctionType() << ", expected "
           << type;
  module.walk([&](func::CallOp call) {
    if (call.getCallee() == gpuFn)
      call.setCallee(emuFn);
  });
  if (module.lookupSymbol(emuFn))
    decl.erase();
  else
    decl.setSymName(emuFn);
  return success();
}

LogicalResult EmulateGpuKernels::checkCluster(gpu::LaunchFuncOp launch,
                                              ImplicitLocOpBuilder &b) {
  if (!launch.hasClusterSize())
    return success();
  // The emulator runs the blocks of a cx x cy x 1 cluster together
  // (stc_emu_launch_cluster); the launch's own rule, that clusters tile the
  // grid, is checked at compile time where the sizes are constants.
  gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
  gpu::KernelDim3 cluster = launch.getClusterSizeOperandValues();
  std::optional<int64_t> clusterZ = getConstantIntValue(cluster.z);
  if (!clusterZ || *clusterZ != 1)
    return launch.emitError("stc-emulate-gpu: only clusters of one block "
                            "along z are emulated");
  bool allConstant = true;
  for (auto [name, g, c] : {std::make_tuple("x", grid.x, cluster.x),
                            std::make_tuple("y", grid.y, cluster.y),
                            std::make_tuple("z", grid.z, cluster.z)}) {
    std::optional<int64_t> gv = getConstantIntValue(g),
                           cv = getConstantIntValue(c);
    if (!gv || !cv) {
      allConstant = false;
      continue;
    }
    if (*cv < 1 || *gv % *cv != 0)
      return launch.emitError("stc-emulate-gpu: grid ")
             << name << " of " << *gv
             << " blocks is not a multiple of the cluster's " << *cv;
  }
  if (allConstant)
    return success();
  Type i64 = b.getI64Type();
  auto toI64 = [&](Value index) {
    return arith::IndexCastOp::create(b, i64, index).getResult();
  };
  func::CallOp::create(b, kClusterCheckFn, TypeRange{},
                       ValueRange{toI64(grid.x), toI64(grid.y), toI64(grid.z),
                                  toI64(cluster.x), toI64(cluster.y),
                                  toI64(cluster.z)});
  return success();
}

void EmulateGpuKernels::runOnOperation() {
  ModuleOp module = getOperation();
  SmallVector<gpu::GPUModuleOp> gpuModules(module.getOps<gpu::GPUModuleOp>());
  if (gpuModules.empty())
    return;
  declareRuntime();
  MLIRContext *ctx = module.getContext();

  // Shared memory: the kernels' globals move to the module and serve the
  // block of cluster rank 0 (stc_emu_cta_shared gives the others copies:
  // the blocks of a cluster run together, clusters one after the other).
  // Each shared
  // (address space 3) global is aligned to 256 KiB, so that the low 18 bits
  // of its host addresses are the shared addresses a wgmma descriptor holds
  // (stc_gpu_emulator.h, stc_emu_wgmma_sp).
  llvm::DenseMap<Operation *, SmallVector<LLVM::GlobalOp>> smemOf;
  // The dynamic ones (zero-sized) of each gpu.module, by name; their size
  // is that of the largest launch of a kernel that uses them.
  llvm::DenseMap<Operation *, llvm::StringMap<LLVM::GlobalOp>> dynamicSmemOf;
  llvm::MapVector<Operation *, int64_t> dynamicSmemBytes;
  for (gpu::GPUModuleOp gm : gpuModules)
    for (auto global :
         llvm::make_early_inc_range(gm.getOps<LLVM::GlobalOp>())) {
      if (isDynamicSmem(global)) {
        dynamicSmemOf[gm][global.getSymName()] = global;
        dynamicSmemBytes[global] = 0;
      } else if (global.getAddrSpace() == 3) {
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
      currentDynamicSmem = nullptr;
      currentDynamicSmemBytes = 0;
      // The dynamic shared memory the kernel uses, sized by its launch.
      llvm::SetVector<Operation *> used;
      const llvm::StringMap<LLVM::GlobalOp> &dynamic = dynamicSmemOf[gm];
      kernel.walk([&](LLVM::AddressOfOp address) {
        auto it = dynamic.find(address.getGlobalName());
        if (it != dynamic.end())
          used.insert(it->second);
      });
      if (used.size() > 1) {
        kernel.emitError("stc-emulate-gpu: kernel @")
            << kernel.getName() << " uses " << used.size()
            << " dynamic shared-memory globals, not one";
        return signalPassFailure();
      }
      if (used.size() == 1) {
        currentDynamicSmem = cast<LLVM::GlobalOp>(used.front());
        auto info = kernel->getAttrOfType<stc_gpu::KernelInfoAttr>(
            stc_gpu::KernelInfoAttr::kAttrName);
        int64_t bytes = info ? info.getSharedBytes() : 0;
        if (bytes <= 0) {
          kernel.emitError("stc-emulate-gpu: kernel @")
              << kernel.getName() << " uses the dynamic shared-memory global @"
              << currentDynamicSmem.getSymName() << " but its "
              << stc_gpu::KernelInfoAttr::kAttrName
              << " has no shared_bytes > 0";
          return signalPassFailure();
        }
        if (bytes > kMaxDynamicSmemBytes) {
          kernel.emitError("stc-emulate-gpu: kernel @")
              << kernel.getName() << " asks for " << bytes
              << " bytes of dynamic shared memory, more than the "
              << kMaxDynamicSmemBytes << " an sm_90 block can have";
          return signalPassFailure();
        }
        currentDynamicSmemBytes = bytes;
        int64_t &size = dynamicSmemBytes[currentDynamicSmem];
        size = std::max(size, currentDynamicSmemBytes);
      }
      FailureOr<func::FuncOp> fn = emulateKernel(kernel);
      if (failed(fn))
        return signalPassFailure();
      emulated[(gm.getName() + "::" + kernel.getName()).str()] = *fn;
    }
  currentDynamicSmem = nullptr;

  // Dynamic shared memory becomes a zeroed host global of the bytes its
  // kernels launch with (none: no kernel uses it, and it goes).
  for (auto [op, bytes] : dynamicSmemBytes) {
    auto global = cast<LLVM::GlobalOp>(op);
    if (bytes > 0) {
      OpBuilder gb(global);
      Location loc = global.getLoc();
      auto type = LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8), bytes);
      auto sized = LLVM::GlobalOp::create(
          gb, loc, type, /*isConstant=*/false, LLVM::Linkage::Internal,
          global.getSymName(), Attribute(), kSmemAlignment,
          global.getAddrSpace());
      gb.createBlock(&sized.getInitializerRegion());
      Value zero = LLVM::ZeroOp::create(gb, loc, type);
      LLVM::ReturnOp::create(gb, loc, zero);
    }
    global.erase();
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
  if (failed(renameTensorMapCalls(kGpuTensorMapFn, kEmuTensorMapFn,
                                  tensorMapType(ctx))) ||
      failed(renameTensorMapCalls(kGpuTensorMap4dFn, kEmuTensorMap4dFn,
                                  tensorMap4dType(ctx))))
    return signalPassFailure();
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
      if (failed(checkCluster(launch, b)))
        return signalPassFailure();
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
      if (launch.hasClusterSize()) {
        gpu::KernelDim3 cluster = launch.getClusterSizeOperandValues();
        func::CallOp::create(b, kLaunchClusterFn, TypeRange{},
                             ValueRange{kernelRef, toI64(grid.x), toI64(grid.y),
                                        toI64(block.x), params, name,
                                        toI64(cluster.x), toI64(cluster.y)});
      } else {
        func::CallOp::create(b, kLaunchFn, TypeRange{},
                             ValueRange{kernelRef, toI64(grid.x), toI64(grid.y),
                                        toI64(block.x), params, name});
      }
      op->erase();
    }
  }
  for (gpu::GPUModuleOp gm : gpuModules)
    gm.erase();
  module->removeAttr(gpu::GPUDialect::getContainerModuleAttrName());
}

} // namespace
