//===- KernelCandidates.h - the configurations a tuner tries ---*- C++ -*-===//
//
// Which kernel configurations an op could have (the space the autotuner
// measures and the cost model ranks), and how an op and a configuration
// look to the tuning database and the cost model (passes/Tuning/).
//
//===----------------------------------------------------------------------===//
#ifndef STC_PASSES_GPU_KERNELCANDIDATES_H
#define STC_PASSES_GPU_KERNELCANDIDATES_H

#include "dialects/StcGpu/StcGpuAttrs.h"
#include "passes/GPU/KernelProblem.h"
#include "passes/Tuning/CostModel.h"
#include "passes/Tuning/TuningDb.h"

#include <optional>
#include <utility>

namespace mlir::stc::gpu_kernel {

/// The block tiles the tuner tries for a family on `arch`.
SmallVector<std::pair<int64_t, int64_t>>
candidateTiles(stc_gpu::KernelFamily family, stc_gpu::GpuArch arch);

/// Every configuration `op` (problem `pb`; `dense`: a contraction on the
/// dense tensor-core kernel) can have among the tuner's space, `heuristic`
/// first, each accepted by checkKernelConfig. Diagnostics of rejected
/// candidates are dropped.
SmallVector<stc_gpu::KernelConfigAttr>
kernelCandidates(Operation *op, const Problem &pb, stc_gpu::GpuArch arch,
                 bool dense, stc_gpu::KernelConfigAttr heuristic);

/// Model candidates for a product that is not an op yet (the sparse and
/// dense alternatives --sparsity=auto weighs): the wgmma kernel's tiles
/// where `wgmma` (sm_90a, f16/bf16; sparse or dense), else the staged
/// kernel's.
SmallVector<tuning::ModelKernel> modelCandidates(stc_gpu::GpuArch arch,
                                                 bool sparse, bool wgmma);

/// The cost model's view of a configuration.
tuning::ModelKernel modelKernelOf(stc_gpu::KernelConfigAttr config,
                                  bool sparse);

/// The element type as the tuning keys name it (f16, bf16, f32, i8, i32),
/// or "" for others.
std::string tuningTypeName(Type type);

/// The key of `op` (device and compute capability left empty), or none for
/// what is not tuned (convolutions, dynamic sizes).
std::optional<tuning::TuningKey> tuningKeyOf(Operation *op, const Problem &pb,
                                             stc_gpu::GpuArch arch);

/// The cost model's problem for a key.
tuning::ModelProblem modelProblemOf(const tuning::TuningKey &key);

} // namespace mlir::stc::gpu_kernel

#endif // STC_PASSES_GPU_KERNELCANDIDATES_H
