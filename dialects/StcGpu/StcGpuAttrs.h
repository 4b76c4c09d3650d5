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

/// The architectures, in the order of the enumeration, for messages:
/// "sm_80, sm_86, sm_89, sm_90 or sm_90a".
std::string listGpuArchs();

} // namespace mlir::stc_gpu

#endif // STC_DIALECTS_STCGPU_STCGPUATTRS_H
