//===- KernelHostCall.h - where kernels go, how the host calls them -*- C++
//-*-//
//
// What the passes that lower tensor ops to GPU kernels share
// (stc-lower-spmm-to-gpu, stc-lower-elementwise-to-gpu): the one
// gpu.module @stc_kernels, and the replacement of a lowered op by a call of
// a private host function on buffers, marked `stc_gpu.launches`, whose body
// stc-gpu-host-launch writes after bufferization (which cannot see through
// a kernel launch).
//
//===----------------------------------------------------------------------===//
#ifndef STC_PASSES_GPU_KERNELHOSTCALL_H
#define STC_PASSES_GPU_KERNELHOSTCALL_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::stc::gpu_kernel {

/// `module`'s gpu.module @stc_kernels, created (and `module` marked a GPU
/// container module) if there is none yet.
gpu::GPUModuleOp getOrCreateKernelModule(ModuleOp module);

/// Replaces `op` (one ranked-tensor result) by a call of a new private
/// function @<kernel>_host(buffers of `tensors`, a new result buffer of
/// dynamic sizes `resultSizes`, then `trailing` values), marked
/// stc_gpu.launches = @stc_kernels::@<kernel>; the result is that buffer as
/// a tensor.
void replaceWithHostCall(Operation *op, gpu::GPUModuleOp kernels,
                         StringRef kernel, ValueRange tensors,
                         ValueRange resultSizes, ValueRange trailing = {});

} // namespace mlir::stc::gpu_kernel

#endif // STC_PASSES_GPU_KERNELHOSTCALL_H
