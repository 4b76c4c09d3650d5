//===- Stc.td - stc dialect umbrella ---------------------*- tablegen -*-===//
//
// The tablegen entry point: every generator runs over this file.
//
//===----------------------------------------------------------------------===//
#ifndef STC_DIALECTS_STC_STC_TD
#define STC_DIALECTS_STC_STC_TD

include "dialects/Stc/StcDialect.td"
include "dialects/Stc/StcEnums.td"
include "dialects/Stc/StcAttrs.td"
include "dialects/Stc/StcOps.td"

#endif // STC_DIALECTS_STC_STC_TD
