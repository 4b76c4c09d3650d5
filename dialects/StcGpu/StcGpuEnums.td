//===- StcGpuEnums.td - stc_gpu enumerations -------------*- tablegen -*-===//
//
// The closed sets GPU code generation switches over: target architectures,
// kernel families, where the sm_90a kernel reads A, accumulator types and
// the metadata layout a kernel takes. Each prints as its case name, which
// is also its spelling on the command line (`--target=sm_90a`).
//
//===----------------------------------------------------------------------===//
#ifndef STC_DIALECTS_STCGPU_STCGPUENUMS_TD
#define STC_DIALECTS_STCGPU_STCGPUENUMS_TD

include "mlir/IR/EnumAttr.td"
include "dialects/StcGpu/StcGpuDialect.td"

def StcGpu_ArchSm80 : I32EnumAttrCase<"sm_80", 0>;
def StcGpu_ArchSm86 : I32EnumAttrCase<"sm_86", 1>;
def StcGpu_ArchSm89 : I32EnumAttrCase<"sm_89", 2>;
def StcGpu_ArchSm90 : I32EnumAttrCase<"sm_90", 3>;
def StcGpu_ArchSm90a : I32EnumAttrCase<"sm_90a", 4>;
def StcGpu_GpuArch : I32EnumAttr<"GpuArch",
    "a GPU architecture STC generates code for",
    [StcGpu_ArchSm80, StcGpu_ArchSm86, StcGpu_ArchSm89, StcGpu_ArchSm90,
     StcGpu_ArchSm90a]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::stc_gpu";
}

def StcGpu_FamilyDirect : I32EnumAttrCase<"direct", 0>;
def StcGpu_FamilyStaged : I32EnumAttrCase<"staged", 1>;
def StcGpu_FamilyWgmma : I32EnumAttrCase<"wgmma", 2>;
def StcGpu_KernelFamily : I32EnumAttr<"KernelFamily",
    "which of STC's kernel builders generates a sparse product",
    [StcGpu_FamilyDirect, StcGpu_FamilyStaged, StcGpu_FamilyWgmma]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::stc_gpu";
}

def StcGpu_ASourceSmem : I32EnumAttrCase<"smem", 0>;
def StcGpu_ASourceRegisters : I32EnumAttrCase<"registers", 1>;
def StcGpu_WgmmaASource : I32EnumAttr<"WgmmaASource",
    "where the sm_90a kernel's wgmma reads the sparse operand",
    [StcGpu_ASourceSmem, StcGpu_ASourceRegisters]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::stc_gpu";
}

def StcGpu_AccF32 : I32EnumAttrCase<"f32", 0>;
def StcGpu_AccF16 : I32EnumAttrCase<"f16", 1>;
def StcGpu_AccS32 : I32EnumAttrCase<"s32", 2>;
def StcGpu_Accumulator : I32EnumAttr<"Accumulator",
    "the type of a sparse MMA's accumulator registers",
    [StcGpu_AccF32, StcGpu_AccF16, StcGpu_AccS32]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::stc_gpu";
}

def StcGpu_MetaCanonical : I32EnumAttrCase<"canonical", 0>;
def StcGpu_MetaKernelReady : I32EnumAttrCase<"kernel_ready", 1>;
// The dense tensor-core kernel of a contraction that stays dense.
def StcGpu_MetaNone : I32EnumAttrCase<"none", 2>;
def StcGpu_MetaLayout : I32EnumAttr<"MetaLayout",
    "the layout of the metadata a kernel's host passes it",
    [StcGpu_MetaCanonical, StcGpu_MetaKernelReady, StcGpu_MetaNone]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::stc_gpu";
}

#endif // STC_DIALECTS_STCGPU_STCGPUENUMS_TD
