//===- EmulateGpuKernels.cpp - run stc GPU kernels on the CPU -*- C++ -*-===//
//
// For machines with no GPU (CI, this project's build machines): turns the
// kernels stc-lower-spmm-to-gpu generated, and the host code that launches
// them, into CPU code that runs the very same kernel bodies through the
// emulator runtime (runtime/emulator/stc_gpu_emulator.h). This file is the
// host half and the frame:
//
// - each gpu.func @k becomes func.func @k_emu(%params: !llvm.ptr, %thread,
//   %blockX, %blockY: i32): its parameters are read from the array of
//   64-bit words and its body is cloned; EmulateKernelOps.cpp then turns
//   its GPU ops (mma.sp, wgmma.sp, ldmatrix, cp.async, mbarriers, TMA,
//   clusters, thread and block ids) into emulator calls;
// - shared memory: the kernel modules' address-space-3 globals move to the
//   host module, aligned to 256 KiB (stc_emu_wgmma_sp). A dynamic one (a
//   zero-sized array, which a kernel's stc_gpu.kernel_info `shared_bytes`
//   sizes at launch) becomes a zeroed global of that many bytes. The
//   kernels take every address of one through stc_emu_cta_shared: the
//   global for a block of cluster rank 0, a copy for the others;
// - gpu.launch_func packs its arguments into such an array and calls
//   stc_emu_launch, or for a cluster launch stc_emu_check_cluster
//   and stc_emu_launch_cluster, which runs the blocks of a cluster together;
//   gpu.alloc/memcpy/dealloc become host memref ops, each reported to the
//   emulator's counters (stc_emu_device_alloc/_free, stc_emu_copy: what
//   `stc-run --profile` shows); host calls of stc_gpu_tensor_map_2d / _4d
//   (the runtime's cuTensorMapEncodeTiled) become calls of
//   stc_emu_tensor_map_2d / _4d, and the resident weights' stc_gpu_resident
//   and stc_gpu_release_resident the emulator's stc_emu_resident and
//   stc_emu_release_resident.
//
// Every runtime function is named through runtime/RuntimeEntryPoints.def.
// Runs after stc-gpu-host-launch; the result is a plain CPU module for the
// usual lowering to LLVM. Only the ops stc's kernels use are handled;
// anything else is an error.
//
//===----------------------------------------------------------------------===//
#include "dialects/StcGpu/StcGpuOps.h"
#include "passes/GPU/EmulateKernelOps.h"
#include "passes/Passes.h"
#include "passes/RuntimeCalls.h"

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
using namespace mlir::stc::gpu_kernel;

namespace {

/// The most dynamic shared memory an sm_90 block can have (227 KiB).
constexpr int64_t kMaxDynamicSmemBytes = 232448;

class EmulateGpuKernels
    : public mlir::stc::impl::StcEmulateGpuKernelsBase<EmulateGpuKernels> {
public:
  void runOnOperation() override;

private:
  /// `kernel` as a CPU function of (parameters, thread, block x, block y)
  /// whose GPU ops call the emulator, `shared` its shared memory.
  FailureOr<func::FuncOp> emulateKernel(gpu::GPUFuncOp kernel,
                                        const EmulatedSharedMemory &shared);
  LogicalResult renameTensorMapCalls(StringRef gpuFn, StringRef emuFn,
                                     FunctionType type);
  LogicalResult checkCluster(gpu::LaunchFuncOp launch, ImplicitLocOpBuilder &b);
  void declareRuntime();

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
  declare(runtimeSymbol(RuntimeEntryPoint::EmuLaunch),
          {kernelType(), i64, i64, i64, ptr, ptr});
  declare(runtimeSymbol(RuntimeEntryPoint::EmuMmaSp),
          {i32, i32, ptr, ptr, ptr, i32, i32, ptr});
  declare(runtimeSymbol(RuntimeEntryPoint::EmuMma), {i32, ptr, ptr, ptr, ptr});
  declare(runtimeSymbol(RuntimeEntryPoint::EmuWgmmaSp),
          {i32, i32, ptr, i64, i32, i32, i32, i32, i32, i32, ptr, i64, ptr});
  declare(
      runtimeSymbol(RuntimeEntryPoint::EmuWgmmaSpSs),
      {i32, i32, i64, i64, i32, i32, i32, i32, i32, i32, i32, ptr, i64, ptr});
  declare(runtimeSymbol(RuntimeEntryPoint::EmuWgmmaSs),
          {i32, i32, i64, i64, i32, i32, i32, i32, i32, ptr, i64, ptr});
  declare(runtimeSymbol(RuntimeEntryPoint::EmuLdmatrix), {ptr, i32, i32, ptr});
  declare(runtimeSymbol(RuntimeEntryPoint::EmuCpAsync), {ptr, ptr, i32, i32});
  declare(runtimeSymbol(RuntimeEntryPoint::EmuBarrier), {});
  declare(runtimeSymbol(RuntimeEntryPoint::EmuNamedBarrier), {i32, i32});
  declare(runtimeSymbol(RuntimeEntryPoint::EmuWarpSync), {i32});
  declare(runtimeSymbol(RuntimeEntryPoint::EmuShflXor), {i32, i32}, {i32});
  declare(runtimeSymbol(RuntimeEntryPoint::EmuMbarrierInit), {ptr, i32});
  declare(runtimeSymbol(RuntimeEntryPoint::EmuMbarrierArrive), {ptr, i32});
  declare(runtimeSymbol(RuntimeEntryPoint::EmuMbarrierArriveExpectTx),
          {ptr, i32});
  declare(runtimeSymbol(RuntimeEntryPoint::EmuMbarrierExpectTx), {ptr, i32});
  declare(runtimeSymbol(RuntimeEntryPoint::EmuMbarrierCompleteTx), {ptr, i32});
  declare(runtimeSymbol(RuntimeEntryPoint::EmuMbarrierWaitParity), {ptr, i32});
  declare(runtimeSymbol(RuntimeEntryPoint::EmuTmaLoad2d),
          {ptr, ptr, i32, i32, ptr});
  declare(runtimeSymbol(RuntimeEntryPoint::EmuTmaLoad4d),
          {ptr, ptr, i32, i32, i32, i32, ptr});
  declare(runtimeSymbol(RuntimeEntryPoint::EmuCheckCluster),
          {i64, i64, i64, i64, i64, i64});
  declare(runtimeSymbol(RuntimeEntryPoint::EmuLaunchCluster),
          {kernelType(), i64, i64, i64, ptr, ptr, i64, i64});
  declare(runtimeSymbol(RuntimeEntryPoint::EmuCtaShared), {ptr}, {ptr});
  declare(runtimeSymbol(RuntimeEntryPoint::EmuMapa), {ptr, i32}, {ptr});
  declare(runtimeSymbol(RuntimeEntryPoint::EmuClusterCtaRank), {}, {i32});
  declare(runtimeSymbol(RuntimeEntryPoint::EmuClusterArrive), {});
  declare(runtimeSymbol(RuntimeEntryPoint::EmuClusterWait), {});
  declare(runtimeSymbol(RuntimeEntryPoint::EmuTmaLoad2dMulticast),
          {ptr, ptr, i32, i32, ptr, i32});
  declare(runtimeSymbol(RuntimeEntryPoint::EmuDeviceAlloc), {i64, i64});
  declare(runtimeSymbol(RuntimeEntryPoint::EmuDeviceFree), {i64});
  declare(runtimeSymbol(RuntimeEntryPoint::EmuCopy), {i32, i64});
}

/// The bytes of `buffer` (an identity-layout memref), as an i64.
static Value memrefBytes(ImplicitLocOpBuilder &b, Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  Value bytes =
      arith::ConstantIntOp::create(b, type.getElementTypeBitWidth() / 8, 64);
  for (int64_t d = 0; d < type.getRank(); ++d) {
    Value extent = arith::IndexCastOp::create(
        b, b.getI64Type(), memref::DimOp::create(b, buffer, d));
    bytes = arith::MulIOp::create(b, bytes, extent);
  }
  return bytes;
}

/// The address of `buffer` as an i64.
static Value addressOf(ImplicitLocOpBuilder &b, Value buffer) {
  return arith::IndexCastOp::create(
      b, b.getI64Type(),
      memref::ExtractAlignedPointerAsIndexOp::create(b, buffer));
}

/// Renames the runtime function `from` (a func.func or llvm.func
/// declaration) to `to`, and every func.call and llvm.call of it; a
/// declaration of `to` already there takes its place.
static void renameRuntimeFunction(ModuleOp module, StringRef from,
                                  StringRef to) {
  Operation *decl = module.lookupSymbol(from);
  if (!decl)
    return;
  module.walk([&](Operation *op) {
    if (auto call = dyn_cast<func::CallOp>(op)) {
      if (call.getCallee() == from)
        call.setCallee(to);
    } else if (auto call = dyn_cast<LLVM::CallOp>(op)) {
      if (call.getCallee() == from)
        call.setCallee(to);
    }
  });
  if (module.lookupSymbol(to))
    decl->erase();
  else
    SymbolTable::setSymbolName(decl, to);
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

FailureOr<func::FuncOp>
EmulateGpuKernels::emulateKernel(gpu::GPUFuncOp kernel,
                                 const EmulatedSharedMemory &shared) {
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

  if (failed(emulateKernelOps(fn, shared)))
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
  renameRuntimeFunction(module, gpuFn, emuFn);
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
  func::CallOp::create(
      b, runtimeSymbol(RuntimeEntryPoint::EmuCheckCluster), TypeRange{},
      ValueRange{toI64(grid.x), toI64(grid.y), toI64(grid.z), toI64(cluster.x),
                 toI64(cluster.y), toI64(cluster.z)});
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
        global.setAlignment(kEmulatedSmemAlignment);
        smemOf[gm].push_back(global);
      }
      global->moveBefore(module.getBody(), module.getBody()->end());
    }

  // Kernels to CPU functions.
  llvm::StringMap<func::FuncOp> emulated;
  for (gpu::GPUModuleOp gm : gpuModules)
    for (auto kernel : gm.getOps<gpu::GPUFuncOp>()) {
      EmulatedSharedMemory shared;
      shared.staticGlobals = smemOf.lookup(gm);
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
        shared.dynamicGlobal = cast<LLVM::GlobalOp>(used.front());
        auto info = kernel->getAttrOfType<stc_gpu::KernelInfoAttr>(
            stc_gpu::KernelInfoAttr::kAttrName);
        int64_t bytes = info ? info.getSharedBytes() : 0;
        if (bytes <= 0) {
          kernel.emitError("stc-emulate-gpu: kernel @")
              << kernel.getName() << " uses the dynamic shared-memory global @"
              << shared.dynamicGlobal.getSymName() << " but its "
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
        shared.dynamicBytes = bytes;
        int64_t &size = dynamicSmemBytes[shared.dynamicGlobal];
        size = std::max(size, shared.dynamicBytes);
      }
      FailureOr<func::FuncOp> fn = emulateKernel(kernel, shared);
      if (failed(fn))
        return signalPassFailure();
      emulated[(gm.getName() + "::" + kernel.getName()).str()] = *fn;
    }

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
          global.getSymName(), Attribute(), kEmulatedSmemAlignment,
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
  if (failed(
          renameTensorMapCalls(runtimeSymbol(RuntimeEntryPoint::GpuTensorMap2d),
                               runtimeSymbol(RuntimeEntryPoint::EmuTensorMap2d),
                               tensorMapType(ctx))) ||
      failed(
          renameTensorMapCalls(runtimeSymbol(RuntimeEntryPoint::GpuTensorMap4d),
                               runtimeSymbol(RuntimeEntryPoint::EmuTensorMap4d),
                               tensorMap4dType(ctx))))
    return signalPassFailure();
  renameRuntimeFunction(module, runtimeSymbol(RuntimeEntryPoint::GpuResident),
                        runtimeSymbol(RuntimeEntryPoint::EmuResident));
  renameRuntimeFunction(module,
                        runtimeSymbol(RuntimeEntryPoint::GpuReleaseResident),
                        runtimeSymbol(RuntimeEntryPoint::EmuReleaseResident));
  // The host buffers that stand for device ones, to tell a copy's direction.
  llvm::DenseSet<Value> deviceBuffers;
  for (Operation *op : hostOps) {
    ImplicitLocOpBuilder b(op->getLoc(), op);
    if (auto alloc = dyn_cast<gpu::AllocOp>(op)) {
      if (alloc.getAsyncToken())
        return (void)(op->emitError("stc-emulate-gpu: async gpu.alloc"),
                      signalPassFailure());
      Value m =
          memref::AllocOp::create(b, alloc.getType(), alloc.getDynamicSizes());
      alloc.getMemref().replaceAllUsesWith(m);
      deviceBuffers.insert(m);
      func::CallOp::create(b, runtimeSymbol(RuntimeEntryPoint::EmuDeviceAlloc),
                           TypeRange{},
                           ValueRange{addressOf(b, m), memrefBytes(b, m)});
      op->erase();
    } else if (auto copy = dyn_cast<gpu::MemcpyOp>(op)) {
      memref::CopyOp::create(b, copy.getSrc(), copy.getDst());
      bool toDevice = deviceBuffers.contains(copy.getDst());
      if (toDevice != deviceBuffers.contains(copy.getSrc()))
        func::CallOp::create(
            b, runtimeSymbol(RuntimeEntryPoint::EmuCopy), TypeRange{},
            ValueRange{arith::ConstantIntOp::create(b, toDevice ? 1 : 0, 32),
                       memrefBytes(b, copy.getSrc())});
      op->erase();
    } else if (auto dealloc = dyn_cast<gpu::DeallocOp>(op)) {
      func::CallOp::create(b, runtimeSymbol(RuntimeEntryPoint::EmuDeviceFree),
                           TypeRange{},
                           ValueRange{addressOf(b, dealloc.getMemref())});
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
        func::CallOp::create(
            b, runtimeSymbol(RuntimeEntryPoint::EmuLaunchCluster), TypeRange{},
            ValueRange{kernelRef, toI64(grid.x), toI64(grid.y), toI64(block.x),
                       params, name, toI64(cluster.x), toI64(cluster.y)});
      } else {
        func::CallOp::create(b, runtimeSymbol(RuntimeEntryPoint::EmuLaunch),
                             TypeRange{},
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
