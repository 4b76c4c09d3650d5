//===- StcDialect.h - stc dialect ---------------------------*- C++ -*-===//
//
// Declares the stc dialect class (generated from StcDialect.td).
//
//===----------------------------------------------------------------------===//
#ifndef STC_DIALECTS_STC_STCDIALECT_H
#define STC_DIALECTS_STC_STCDIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Dialect.h"

#include "dialects/Stc/StcDialect.h.inc"

#endif // STC_DIALECTS_STC_STCDIALECT_H
