//===- StcAttrs.td - stc attributes ----------------------*- tablegen -*-===//
//
// #stc.nm<N:M>: the structured-sparsity pattern (N kept of every M).
//
//===----------------------------------------------------------------------===//
#ifndef STC_DIALECTS_STC_STCATTRS_TD
#define STC_DIALECTS_STC_STCATTRS_TD

include "dialects/Stc/StcDialect.td"

def STC_NMPatternAttr : STC_Attr<"NMPattern", "nm"> {
  let summary = "An N:M structured-sparsity pattern";
  let description = [{
    `N` elements are kept in every group of `M` consecutive elements along
    the reduction dimension. Sparse Tensor Cores accelerate `2:4` (16-bit and
    8-bit types) and `1:2` (32-bit types, executed as tf32).

    ```mlir
    %p = stc.prune %w by #stc.nm<2:4> along 0 : tensor<128x64xf32>
    ```
  }];
  let parameters = (ins "int64_t":$n, "int64_t":$m);
  // Printed as `<2:4>` (no spaces), the way the pattern is written in prose.
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Dense reduction columns covered by one i16 metadata word.
    int64_t getColumnsPerMetaWord() const { return 4 * getM(); }
    /// `k` rounded up to a whole number of metadata words.
    int64_t getPaddedReduction(int64_t k) const {
      int64_t w = getColumnsPerMetaWord();
      return (k + w - 1) / w * w;
    }
    /// Stored values per row for a reduction size `k`.
    int64_t getValuesPerRow(int64_t k) const {
      return getPaddedReduction(k) / getM() * getN();
    }
    /// Metadata words per row for a reduction size `k`.
    int64_t getMetaWordsPerRow(int64_t k) const {
      return getPaddedReduction(k) / getColumnsPerMetaWord();
    }
  }];
}

#endif // STC_DIALECTS_STC_STCATTRS_TD
