//===- StcDialect.td - stc dialect definition ------------*- tablegen -*-===//
//
// The stc dialect: N:M structured sparsity (2:4 for Sparse Tensor Cores) on
// tensors. Base classes for its ops and attributes.
//
//===----------------------------------------------------------------------===//
#ifndef STC_DIALECTS_STC_STCDIALECT_TD
#define STC_DIALECTS_STC_STCDIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def Stc_Dialect : Dialect {
  let name = "stc";
  let cppNamespace = "::mlir::stc";
  let summary = "N:M structured sparsity for Sparse Tensor Cores";
  let description = [{
    The `stc` dialect expresses 2:4 structured-sparse tensor programs: pruning
    a dense weight to an N:M pattern along its reduction dimension, the
    canonical compressed form (values plus 2-bit-index metadata packed four
    groups to an `i16`), and sparse contractions with a fused epilogue.

    Canonical compressed form of a `rows x K` operand whose pattern runs along
    `K` (the reduction dimension): `Kp` is `K` rounded up to a multiple of
    `4*M` (16 for 2:4, 8 for 1:2); values are `rows x Kp*N/M`, the kept
    elements of each group in increasing column order; metadata is
    `rows x Kp/(4*M)` `i16`, one nibble per group, group `j` of a word at bits
    `[4j+3:4j]`. A 2:4 nibble holds the first kept index in its low two bits
    and the second in its high two bits; a 1:2 nibble is `0x4` (element 0
    kept) or `0xE` (element 1 kept).
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasConstantMaterializer = 1;
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

class STC_Op<string mnemonic, list<Trait> traits = []>
    : Op<Stc_Dialect, mnemonic, traits>;

class STC_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Stc_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

#endif // STC_DIALECTS_STC_STCDIALECT_TD
