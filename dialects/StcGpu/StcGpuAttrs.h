//===- StcGpuAttrs.h - stc_gpu attributes and enums ---------*- C++ -*-===//
//
// Declares #stc_gpu.kernel_config, #stc_gpu.kernel_info and their parts,
// and the stc_gpu enumerations (generated from ODS).
//
//===----------------------------------------------------------------------===//
#ifndef STC_DIALECTS_STCGPU_STCGPUATTRS_H
#define STC_DIALECTS_STCGPU_STCGPUATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"

#include "dialects/StcGpu/StcGpuEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/StcGpu/StcGpuAttrs.h.inc"

namespace mlir::stc_gpu {

/// sm_90a: the only architecture with wgmma.mma_async.sp and TMA.
inline bool hasWgmma(GpuArch arch) { return arch == GpuArch::sm_90a; }

/// The shared memory a block of `arch` may opt into (CUDA C Programming
/// Guide, compute capabilities): 163 KiB on sm_80, 99 KiB on sm_86 and
/// sm_89, 227 KiB on sm_90.
inline int64_t sharedBytesOptIn(GpuArch arch) {
  switch (arch) {
  case GpuArch::sm_80:
    return 163 * 1024;
  case GpuArch::sm_86:
  case GpuArch::sm_89:
    return 99 * 1024;
  default:
    return 227 * 1024;
  }
}

/// The architectures, in the order of the enumeration, for messages:
/// "sm_80, sm_86, sm_89, sm_90 or sm_90a".
std::string listGpuArchs();

} // namespace mlir::stc_gpu

#endif // STC_DIALECTS_STCGPU_STCGPUATTRS_H
