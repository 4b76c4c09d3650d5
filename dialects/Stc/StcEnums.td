//===- StcEnums.td - stc enumerations --------------------*- tablegen -*-===//
//
// Enumerations used by stc attributes: which operand of a contraction is
// sparse, the activation of the fused epilogue, and how stc.prune chooses the
// elements it keeps.
//
//===----------------------------------------------------------------------===//
#ifndef STC_DIALECTS_STC_STCENUMS_TD
#define STC_DIALECTS_STC_STCENUMS_TD

include "mlir/IR/EnumAttr.td"
include "dialects/Stc/StcDialect.td"

def STC_SparseOperandLhs : I32EnumAttrCase<"lhs", 0>;
def STC_SparseOperandRhs : I32EnumAttrCase<"rhs", 1>;
def STC_SparseOperand : I32EnumAttr<"SparseOperand",
    "which operand of a contraction is sparse",
    [STC_SparseOperandLhs, STC_SparseOperandRhs]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::stc";
}
def STC_SparseOperandAttr : EnumAttr<Stc_Dialect, STC_SparseOperand, "operand"> {
  let assemblyFormat = "`<` $value `>`";
}

def STC_ActivationNone : I32EnumAttrCase<"none", 0>;
def STC_ActivationRelu : I32EnumAttrCase<"relu", 1>;
def STC_ActivationGeluTanh : I32EnumAttrCase<"gelu_tanh", 2>;
def STC_ActivationGeluErf : I32EnumAttrCase<"gelu_erf", 3>;
def STC_Activation : I32EnumAttr<"Activation",
    "element-wise activation applied by a fused epilogue",
    [STC_ActivationNone, STC_ActivationRelu, STC_ActivationGeluTanh,
     STC_ActivationGeluErf]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::stc";
}
def STC_ActivationAttr : EnumAttr<Stc_Dialect, STC_Activation, "activation"> {
  let assemblyFormat = "`<` $value `>`";
}

// The values are those of the run-time entry points' `method` argument
// (runtime/stc_runtime.h): keep them in step.
def STC_PruneMethodStrip : I32EnumAttrCase<"strip", 0>;
def STC_PruneMethodTile : I32EnumAttrCase<"tile", 1>;
def STC_PruneMethod : I32EnumAttr<"PruneMethod",
    "how stc.prune chooses the elements it keeps",
    [STC_PruneMethodStrip, STC_PruneMethodTile]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::stc";
}
def STC_PruneMethodAttr : EnumAttr<Stc_Dialect, STC_PruneMethod,
                                   "prune_method"> {
  let summary = "How stc.prune chooses the kept elements: strip or tile";
  let description = [{
    `#stc.prune_method<strip>` keeps the `N` largest magnitudes of every
    group of `M` along the reduction dimension; `#stc.prune_method<tile>`
    keeps, in every 4x4 tile (4 rows x 4 reduction columns), exactly two
    elements per row and two per column, the choice of largest total
    magnitude, so that the result and its transpose are both 2:4.
  }];
  let assemblyFormat = "`<` $value `>`";
}

#endif // STC_DIALECTS_STC_STCENUMS_TD
