//===- StcGpuDialect.h - stc_gpu dialect --------------------*- C++ -*-===//
//
// Declares the stc_gpu dialect class (generated from StcGpuDialect.td).
//
//===----------------------------------------------------------------------===//
#ifndef STC_DIALECTS_STCGPU_STCGPUDIALECT_H
#define STC_DIALECTS_STCGPU_STCGPUDIALECT_H

#include "mlir/IR/Dialect.h"

#include "dialects/StcGpu/StcGpuDialect.h.inc"

#endif // STC_DIALECTS_STCGPU_STCGPUDIALECT_H
