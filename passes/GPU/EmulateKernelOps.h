//===- EmulateKernelOps.h - a kernel's GPU ops as emulator calls -*- C++ -*-//
//
// The device half of stc-emulate-gpu-kernels: once a kernel's body is a CPU
// function of (parameters, thread, block x, block y), its GPU ops become
// what the CPU can run: thread and block ids its arguments, every
// mma.sp / wgmma.sp / ldmatrix / cp.async / mbarrier / TMA / cluster /
// named barrier / bar.warp.sync op a call of the emulator runtime
// (runtime/emulator/stc_gpu_emulator.h, by its StcEmuMmaSpKind /
// StcEmuWgmmaSpKind), fences and setmaxnreg nothing, cvt.rna.tf32 and
// ex2.approx their arithmetic. Anything else is an error.
//
//===----------------------------------------------------------------------===//
#ifndef STC_PASSES_GPU_EMULATEKERNELOPS_H
#define STC_PASSES_GPU_EMULATEKERNELOPS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace mlir::stc::gpu_kernel {

/// Alignment of the kernels' shared-memory globals on the host: a matrix
/// descriptor keeps the low 18 bits of a shared address, which the
/// emulator adds to the (256 KiB aligned) base of the global.
constexpr uint64_t kEmulatedSmemAlignment = 256 * 1024;

/// The shared memory of the kernel being emulated: its gpu.module's static
/// shared-memory globals, and the dynamic one it uses (if any) with the
/// bytes it is launched with (stc_gpu.kernel_info `shared_bytes`), the
/// window a wgmma descriptor addresses.
struct EmulatedSharedMemory {
  SmallVector<LLVM::GlobalOp> staticGlobals;
  LLVM::GlobalOp dynamicGlobal;
  int64_t dynamicBytes = 0;
};

/// A zero-sized shared-memory array: a kernel's dynamic shared memory,
/// whose size the launch gives.
bool isDynamicSmem(LLVM::GlobalOp global);

/// An alloca of `n` elements of `type` in the entry block of `fn`, so that
/// loops do not grow the stack.
Value entryAlloca(func::FuncOp fn, Type type, int64_t n, Location loc);

/// Rewrites the GPU ops of `fn`, a kernel body taking (parameters, thread,
/// block x, block y); fails with an error at the first op it cannot
/// emulate.
LogicalResult emulateKernelOps(func::FuncOp fn,
                               const EmulatedSharedMemory &shared);

} // namespace mlir::stc::gpu_kernel

#endif // STC_PASSES_GPU_EMULATEKERNELOPS_H
