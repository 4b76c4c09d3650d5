//===- MmaSpKernels.h - the sm_80 mma.sp kernel builders -------*- C++ -*-===//
//
// The kernels of families `direct` and `staged` (MmaSpDirectKernel.cpp,
// MmaSpStagedKernel.cpp): blocks of warp tiles (WarpTile: 32 or 64 rows
// by 32 or 64 columns) of mma.sp m16n8k32 (f16/bf16), m16n8k16 (tf32) or
// m16n8k64 (i8), the fused epilogue on the accumulators. Each writes the body
// of `func`, whose parameters are kernelParams' (LowerSpmmToGpu.cpp). The
// staged one also builds the dense tensor-core kernel (Problem::denseS:
// mma.sync m16n8k16 on a dense S, DenseGemm.h).
//
//===----------------------------------------------------------------------===//
#ifndef STC_PASSES_GPU_MMASPKERNELS_H
#define STC_PASSES_GPU_MMASPKERNELS_H

#include "passes/GPU/KernelProblem.h"
#include "passes/GPU/KernelPrologue.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

namespace mlir::stc::gpu_kernel {

/// Fragments loaded from global memory; `ordered`: mma.sp::ordered_metadata.
/// `groupRows` > 0: blocks in the grouped order (groupedBlockOrder).
void buildDirectMmaSpKernel(ImplicitLocOpBuilder &b, const Problem &pb,
                            int64_t blockRows, int64_t blockCols, WarpTile warp,
                            int64_t groupRows, bool ordered,
                            gpu::GPUFuncOp func);

/// A and B staged through `sharedMemory` (stagedSharedBytes: stages x
/// StagedLayout::stageBytes, `kSteps` mma.sp K steps a stage) by a cp.async
/// pipeline and read with ldmatrix (b16; for tf32 each 32-bit register is
/// one element, rounded with cvt.rna.tf32.f32). Needs 16-byte aligned rows
/// of D and of the values, and for tf32 and i8 a p-major D (checked by
/// checkKernelConfig, or at run time by the host when a direct fallback
/// exists). `vectorStores`: after the last K step each warp stages its
/// results in the shared memory and writes them as 16-byte vectors
/// (FragmentStores.h).
void buildStagedMmaSpKernel(ImplicitLocOpBuilder &b, const Problem &pb,
                            int64_t blockRows, int64_t blockCols, WarpTile warp,
                            int64_t groupRows, int64_t stages, int64_t kSteps,
                            bool ordered, bool vectorStores,
                            gpu::GPUFuncOp func, LLVM::GlobalOp sharedMemory);

} // namespace mlir::stc::gpu_kernel

#endif // STC_PASSES_GPU_MMASPKERNELS_H
