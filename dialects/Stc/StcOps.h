//===- StcOps.h - stc operations ----------------------------*- C++ -*-===//
//
// Declares the stc operations (generated from StcOps.td).
//
//===----------------------------------------------------------------------===//
#ifndef STC_DIALECTS_STC_STCOPS_H
#define STC_DIALECTS_STC_STCOPS_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "dialects/Stc/StcAttrs.h"
#include "dialects/Stc/StcDialect.h"

#define GET_OP_CLASSES
#include "dialects/Stc/StcOps.h.inc"

#endif // STC_DIALECTS_STC_STCOPS_H
