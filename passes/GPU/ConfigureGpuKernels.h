//===- ConfigureGpuKernels.h - stc-configure-gpu-kernels ------*- C++ -*-===//
//
// The pass with its knobs given as a GpuKernelOptions (the pipeline's
// way); stc-opt builds it from its textual options.
//
//===----------------------------------------------------------------------===//
#ifndef STC_PASSES_GPU_CONFIGUREGPUKERNELS_H
#define STC_PASSES_GPU_CONFIGUREGPUKERNELS_H

#include "passes/GPU/KernelOptions.h"
#include "passes/Passes.h"

#include <memory>

namespace mlir::stc {

std::unique_ptr<Pass>
createStcConfigureGpuKernels(const StcConfigureGpuKernelsOptions &options,
                             const GpuKernelOptions &knobs);

} // namespace mlir::stc

#endif // STC_PASSES_GPU_CONFIGUREGPUKERNELS_H
