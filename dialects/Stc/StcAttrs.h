//===- StcAttrs.h - stc attributes and enums ----------------*- C++ -*-===//
//
// Declares #stc.nm<N:M> and the stc enumerations (generated from ODS).
//
//===----------------------------------------------------------------------===//
#ifndef STC_DIALECTS_STC_STCATTRS_H
#define STC_DIALECTS_STC_STCATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"

#include "dialects/Stc/StcEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/Stc/StcAttrs.h.inc"

#endif // STC_DIALECTS_STC_STCATTRS_H
