//===- HopperKernel.h - the sm_90a wgmma.mma_async.sp kernel ---*- C++ -*-===//
//
// The kernel of family `wgmma` (HopperKernel.cpp has the picture):
// warp-specialised, a TMA producer warpgroup and wgmma.mma_async.sp
// consumer warpgroups around an mbarrier ring. f16/bf16 operands with f32
// accumulation, or s8 (a K-contiguous dense operand) with s32; the
// kernel-ready metadata in the Hopper layout (runtime/format/
// StcHopperLayout.h).
//
//===----------------------------------------------------------------------===//
#ifndef STC_PASSES_GPU_HOPPERKERNEL_H
#define STC_PASSES_GPU_HOPPERKERNEL_H

#include "passes/GPU/HopperKernelShape.h"
#include "passes/GPU/KernelProblem.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

namespace mlir::stc::gpu_kernel {

/// Writes the body of `func`, whose parameters are kernelParams' followed
/// by the tensor maps values_map and dense_map; `sharedMemory` is the
/// kernel's dynamic shared-memory array (an external !llvm.array<0 x i8> in
/// address space 3), launched with shape.sharedBytes().
void buildHopperKernel(ImplicitLocOpBuilder &b, const Problem &pb,
                       const HopperKernelShape &shape, gpu::GPUFuncOp func,
                       LLVM::GlobalOp sharedMemory);

} // namespace mlir::stc::gpu_kernel

#endif // STC_PASSES_GPU_HOPPERKERNEL_H
