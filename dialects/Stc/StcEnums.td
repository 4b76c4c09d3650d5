//===- StcEnums.td - stc enumerations --------------------*- tablegen -*-===//
//
// Enumerations used by stc attributes: which operand of a contraction is
// sparse, and the activation of the fused epilogue.
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

#endif // STC_DIALECTS_STC_STCENUMS_TD
