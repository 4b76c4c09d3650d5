//===- KernelConfig.h - reading a #stc_gpu.kernel_config ------*- C++ -*-===//
//
// What the lowering takes from an op's kernel configuration: whether the
// op can have it at all (the rules that depend on the op, where the
// attribute's own verifier checks those that do not), and the sm_90a
// kernel's geometry it gives.
//
//===----------------------------------------------------------------------===//
#ifndef STC_PASSES_GPU_KERNELCONFIG_H
#define STC_PASSES_GPU_KERNELCONFIG_H

#include "dialects/StcGpu/StcGpuAttrs.h"
#include "passes/GPU/HopperKernelShape.h"
#include "passes/GPU/HopperTiling.h"
#include "passes/GPU/KernelProblem.h"

namespace mlir::stc::gpu_kernel {

/// The configuration attached to `op`, or null.
stc_gpu::KernelConfigAttr getKernelConfig(Operation *op);

/// Checks that `op` (whose problem is `pb`) can have the kernel `config`
/// describes: the element type, orientation and alignment each family
/// needs, the accumulator its operands allow, multicast and pixel tiles
/// only where they apply, an sm_90a ring that fits in `device`'s shared
/// memory. Errors on `op` begin with `pass`.
LogicalResult checkKernelConfig(Operation *op, const Problem &pb,
                                stc_gpu::KernelConfigAttr config,
                                StringRef pass,
                                const HopperDevice &device = HopperDevice());

/// For errors about a contraction's K steps: "a dense contraction" or
/// "K = N" ("K = ?" when dynamic).
std::string describeDepth(const Problem &pb);

/// The K of one sm_90a K step (a 128-byte row: 64 f16/bf16, 128 i8).
int64_t wgmmaStepK(const Problem &pb);
/// Whether the sm_90a kernel can hold two K steps a ring slot for `pb`: a
/// 2:4 operand and a static K of an even number of steps (no slot
/// half-filled).
bool takesTwoStepsPerSlot(const Problem &pb);
/// Fills of the sm_90a kernel's ring for `pb` with `stepsPerSlot` K steps a
/// slot (ceil(K / step K) / stepsPerSlot); 0 when K is dynamic.
int64_t wgmmaRingFills(const Problem &pb, int64_t stepsPerSlot);

/// The sm_90a kernel's geometry for `config` (family wgmma).
HopperKernelShape hopperShapeOf(stc_gpu::KernelConfigAttr config,
                                const Problem &pb);

} // namespace mlir::stc::gpu_kernel

#endif // STC_PASSES_GPU_KERNELCONFIG_H
