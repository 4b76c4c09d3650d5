//===- MetadataKernel.h - the metadata a kernel reads ---------*- C++ -*-===//
//
// Every kernel reads its sparse operand's metadata in a kernel-ready layout
// (docs/GPU-LAYOUT.md for mma.sp, StcHopperLayout.h for wgmma): one 32-bit
// word per lane (thread) per K step, grouped so that a lane loads four at
// once. Constant metadata is converted here, at compile time; run-time
// metadata by a generated conversion kernel the host launches before the
// product.
//
//===----------------------------------------------------------------------===//
#ifndef STC_PASSES_GPU_METADATAKERNEL_H
#define STC_PASSES_GPU_METADATAKERNEL_H

#include "dialects/StcGpu/StcGpuAttrs.h"
#include "passes/GPU/KernelProblem.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#include <string>

namespace mlir::stc::gpu_kernel {

/// The metadata operand of one kernel and how the host must treat it.
struct KernelMetadata {
  /// The operand to pass: kernel-ready words (a compiled-in constant) or
  /// the canonical metadata itself.
  Value operand;
  stc_gpu::MetaLayout layout;
  /// For canonical metadata: the generated conversion kernel.
  std::string conversionKernel;
  /// The kernel-ready geometry: rows per block of words, dense K per word,
  /// threads per block (mma.sp: 32, 32 (16 tf32), 32; wgmma: 64, 64 (128
  /// for s8), 128).
  int64_t rowsPerBlock, kPerWord, threads;
};

/// The metadata of the kernel `kernelName` for `op`'s operand `meta`:
/// words in the layout of the wgmma kernel (`wgmma`) or of the mma.sp
/// kernels (a convolution's groups one after the other), computed here
/// when `meta` is a constant and the sizes are static, else `meta` itself
/// with the conversion kernel `kernelName`_meta emitted into `kernels`.
FailureOr<KernelMetadata> prepareKernelMetadata(Operation *op,
                                                gpu::GPUModuleOp kernels,
                                                StringRef kernelName,
                                                Value meta, const Problem &pb,
                                                bool wgmma);

} // namespace mlir::stc::gpu_kernel

#endif // STC_PASSES_GPU_METADATAKERNEL_H
