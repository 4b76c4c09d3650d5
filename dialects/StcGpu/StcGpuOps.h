//===- StcGpuOps.h - stc_gpu operations ---------------------*- C++ -*-===//
//
// Declares the stc_gpu operations (generated from StcGpuOps.td).
//
//===----------------------------------------------------------------------===//
#ifndef STC_DIALECTS_STCGPU_STCGPUOPS_H
#define STC_DIALECTS_STCGPU_STCGPUOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"

#include "dialects/StcGpu/StcGpuAttrs.h"
#include "dialects/StcGpu/StcGpuDialect.h"

#define GET_OP_CLASSES
#include "dialects/StcGpu/StcGpuOps.h.inc"

#endif // STC_DIALECTS_STCGPU_STCGPUOPS_H
