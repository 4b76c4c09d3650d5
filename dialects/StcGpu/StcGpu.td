//===- StcGpu.td - stc_gpu dialect umbrella --------------*- tablegen -*-===//
//
// The tablegen entry point: every generator runs over this file.
//
//===----------------------------------------------------------------------===//
#ifndef STC_DIALECTS_STCGPU_STCGPU_TD
#define STC_DIALECTS_STCGPU_STCGPU_TD

include "dialects/StcGpu/StcGpuDialect.td"
include "dialects/StcGpu/StcGpuEnums.td"
include "dialects/StcGpu/StcGpuAttrs.td"
include "dialects/StcGpu/StcGpuOps.td"

#endif // STC_DIALECTS_STCGPU_STCGPU_TD
