//===- StcOps.td - stc operations ------------------------*- tablegen -*-===//
//
// Pruning, the canonical compressed form, and the sparse contraction with its
// fused epilogue. All ops work on tensors and have value semantics.
//
//===----------------------------------------------------------------------===//
#ifndef STC_DIALECTS_STC_STCOPS_TD
#define STC_DIALECTS_STC_STCOPS_TD

include "mlir/IR/OpBase.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "dialects/Stc/StcDialect.td"
include "dialects/Stc/StcEnums.td"
include "dialects/Stc/StcAttrs.td"

def STC_FloatTensor : RankedTensorOf<[F32, F16, BF16]>;
// Elements a sparse operand may have: floats, and i8 (signed 8-bit integers,
// quantized weights and activations; MLIR's i8 is signless, STC reads it as
// two's complement).
def STC_ElementTensor : RankedTensorOf<[F32, F16, BF16, I8]>;
// What stc.spmm may produce: floats, i8 (requantized) or i32 (the exact
// integer accumulator).
def STC_SpmmResultTensor : RankedTensorOf<[F32, F16, BF16, I8, I32]>;
def STC_MetaTensor : RankedTensorOf<[I16]>;

//===----------------------------------------------------------------------===//
// stc.prune
//===----------------------------------------------------------------------===//

def STC_PruneOp : STC_Op<"prune", [Pure, SameOperandsAndResultType]> {
  let summary = "Prune a dense tensor to an N:M pattern by magnitude";
  let description = [{
    Sets elements of `input` to zero so that every group of `M` consecutive
    elements along `reduction_dim` keeps at most `N`. A reduction size that
    is not a multiple of `M` behaves as if padded with zeros. Folds when the
    input is a constant (`dense<>` or `dense_resource<>`): constant weights
    are pruned at compile time, function arguments at run time. `method`
    says which elements are kept:

    - `strip` (default): the `N` elements of largest magnitude of every
      group; ties go to the lower index.
    - `tile` (2:4 only): in every 4x4 tile (4 rows of the non-reduction
      dimension x 4 reduction columns) exactly two elements per row and two
      per column, the choice with the largest sum of magnitudes among the 90
      such masks (ties to the first mask in increasing order of the mask
      word, bit `4*r + c` = row `r`, column `c` of the tile). Both the result
      and its transpose are 2:4, so the same pruned weight serves the forward
      and the backward (transposed) product. Rows and columns past the edge
      count as zeros.

    `permute_channels` asks `stc-permute-channels` to search a permutation of
    the reduction channels under which `strip` pruning keeps more magnitude
    (Pool & Yu, NeurIPS 2021), and to fold it into the weight and into the
    producer of the contraction's other operand. It takes effect when this
    op prunes a constant weight that is the sparse operand of a contraction;
    otherwise the pass says why in a remark.

    ```mlir
    %p = stc.prune %w by #stc.nm<2:4> along 0 : tensor<128x64xf32>
    %t = stc.prune %w by #stc.nm<2:4> along 0 method tile : tensor<128x64xf32>
    %q = stc.prune %w by #stc.nm<2:4> along 0 permute_channels
        : tensor<128x64xf32>
    ```
  }];
  let arguments = (ins STC_ElementTensor:$input, STC_NMPatternAttr:$pattern,
                       I64Attr:$reduction_dim,
                       DefaultValuedAttr<STC_PruneMethodAttr,
                           "::mlir::stc::PruneMethod::strip">:$method,
                       UnitAttr:$permute_channels);
  let results = (outs STC_ElementTensor:$result);
  let assemblyFormat = [{
    $input `by` qualified($pattern) `along` $reduction_dim
    (`method` custom<PruneMethod>($method)^)?
    (`permute_channels` $permute_channels^)? attr-dict `:` type($input)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// stc.compress
//===----------------------------------------------------------------------===//

def STC_CompressOp : STC_Op<"compress", [Pure]> {
  let summary = "Compress an N:M-sparse tensor to values and metadata";
  let description = [{
    Produces the canonical compressed form (see the dialect description) of a
    tensor that already satisfies the pattern along `reduction_dim`. The
    compressed rows are the non-reduction dimension: a `K x N` weight
    compressed `along 0` gives `N x Kp*n/m` values and `N x Kp/(4m)` metadata.
    A group with more than `N` non-zeros is an error: at compile time for a
    constant, at run time otherwise. Folds for constant inputs.

    ```mlir
    %v, %m = stc.compress %p by #stc.nm<2:4> along 0
        : tensor<64x128xf32> -> tensor<128x32xf32>, tensor<128x4xi16>
    ```
  }];
  let arguments = (ins STC_ElementTensor:$input, STC_NMPatternAttr:$pattern,
                       I64Attr:$reduction_dim);
  let results = (outs STC_ElementTensor:$values, STC_MetaTensor:$meta);
  let assemblyFormat = [{
    $input `by` qualified($pattern) `along` $reduction_dim attr-dict `:`
    type($input) `->` type($values) `,` type($meta)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// stc.decompress
//===----------------------------------------------------------------------===//

def STC_DecompressOp : STC_Op<"decompress", [Pure]> {
  let summary = "Expand values and metadata back to a dense tensor";
  let description = [{
    The inverse of `stc.compress`: scatters the stored values to the columns
    their metadata names and fills the rest with zeros. The result shape gives
    the unpadded reduction size; a dynamic reduction size means the padded
    size `Kp` (the compressed form does not record `K`). Folds for constant
    inputs.

    ```mlir
    %d = stc.decompress %v, %m by #stc.nm<2:4> along 0
        : tensor<128x32xf32>, tensor<128x4xi16> -> tensor<64x128xf32>
    ```
  }];
  let arguments = (ins STC_ElementTensor:$values, STC_MetaTensor:$meta,
                       STC_NMPatternAttr:$pattern, I64Attr:$reduction_dim);
  let results = (outs STC_ElementTensor:$result);
  let assemblyFormat = [{
    $values `,` $meta `by` qualified($pattern) `along` $reduction_dim
    attr-dict `:` type($values) `,` type($meta) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// stc.check
//===----------------------------------------------------------------------===//

def STC_CheckOp : STC_Op<"check", [Pure]> {
  let summary = "Whether a tensor satisfies an N:M pattern";
  let description = [{
    Returns true when every group of `M` consecutive elements along
    `reduction_dim` has at most `N` non-zeros. Folds for constant inputs.

    ```mlir
    %ok = stc.check %w by #stc.nm<2:4> along 1 : tensor<64x128xf16>
    ```
  }];
  let arguments = (ins STC_ElementTensor:$input, STC_NMPatternAttr:$pattern,
                       I64Attr:$reduction_dim);
  let results = (outs I1:$result);
  let assemblyFormat = [{
    $input `by` qualified($pattern) `along` $reduction_dim attr-dict `:`
    type($input)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// stc.spmm
//===----------------------------------------------------------------------===//

def STC_SpmmOp : STC_Op<"spmm", [Pure, AttrSizedOperandSegments]> {
  let summary = "Sparse x dense matrix product with a fused epilogue";
  let description = [{
    `result = act(alpha * scale * (lhs . rhs) + beta * acc + bias)`, where
    one of `lhs`/`rhs` is sparse, given in canonical compressed form
    (`values`, `meta`), and the other is `dense`. Float products accumulate
    in f32; the epilogue runs in f32 and converts to the result element type
    at the end.

    Quantized (`i8` values and dense operand, read as signed): products
    accumulate exactly in i32. An `i32` result is that accumulator as it is
    (alpha 1, no beta, bias, scale or activation). Any other result type
    runs the scaling epilogue: the accumulator converted to f32, times
    `alpha` (the per-tensor scale, e.g. the product of the activation and
    weight scales) and `scale` (optional, f32, one factor per output
    channel: per-channel weight scales), plus `beta * acc` and `bias`
    (float), the activation, then conversion: round to nearest even and
    saturate to [-128, 127] for an `i8` result (requantization; fold the
    output scale into `alpha`/`scale`), or rounding to the float type.

    - `sparse = #stc.operand<lhs>`: the sparse `M x K` operand has `M`
      compressed rows; `dense` is `K x N` (`N x K` with `dense_transposed`).
      `bias` and `scale` have `M` elements (one per output row).
    - `sparse = #stc.operand<rhs>`: the sparse `K x N` operand (a Linear
      layer's weight) has `N` compressed rows; `dense` is `M x K` (`K x M`
      with `dense_transposed`). `bias` and `scale` have `N` elements (one
      per column).

    `acc` (required when `beta != 0`) has the result's shape. Reduction sizes
    that are not a multiple of the pattern are zero-padded, never read out of
    bounds.

    ```mlir
    %y = stc.spmm %v, %m, %x bias(%b : tensor<128xf32>)
        {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>,
         activation = #stc.activation<relu>}
        : tensor<128x32xf32>, tensor<128x4xi16>, tensor<16x64xf32>
        -> tensor<16x128xf32>
    %q = stc.spmm %vq, %mq, %xq scale(%s : tensor<128xf32>)
        {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>, alpha = 0.02}
        : tensor<128x32xi8>, tensor<128x4xi16>, tensor<16x64xi8>
        -> tensor<16x128xi8>
    ```
  }];
  let arguments = (ins
    STC_ElementTensor:$values,
    STC_MetaTensor:$meta,
    STC_ElementTensor:$dense,
    Optional<RankedTensorOf<[F32, F16, BF16]>>:$bias,
    Optional<RankedTensorOf<[F32, F16, BF16, I8, I32]>>:$acc,
    Optional<RankedTensorOf<[F32]>>:$scale,
    STC_NMPatternAttr:$pattern,
    STC_SparseOperandAttr:$sparse,
    DefaultValuedAttr<BoolAttr, "false">:$dense_transposed,
    DefaultValuedAttr<F64Attr, "1.0">:$alpha,
    DefaultValuedAttr<F64Attr, "0.0">:$beta,
    DefaultValuedAttr<STC_ActivationAttr, "::mlir::stc::Activation::none">:$activation
  );
  let results = (outs STC_SpmmResultTensor:$result);
  let assemblyFormat = [{
    $values `,` $meta `,` $dense
    (`bias` `(` $bias^ `:` type($bias) `)`)?
    (`acc` `(` $acc^ `:` type($acc) `)`)?
    (`scale` `(` $scale^ `:` type($scale) `)`)?
    attr-dict `:` type($values) `,` type($meta) `,` type($dense) `->`
    type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Index of the reduction dimension in the dense operand's shape.
    int64_t getDenseReductionDim();
    /// Static reduction size K, or ShapedType::kDynamic.
    int64_t getStaticReductionSize() {
      return getDense().getType().getDimSize(getDenseReductionDim());
    }
    /// Whether the operands are i8 (products accumulate in i32).
    bool isQuantized() {
      return getValues().getType().getElementType().isInteger(8);
    }
  }];
}

//===----------------------------------------------------------------------===//
// stc.conv
//===----------------------------------------------------------------------===//

def STC_ConvOp : STC_Op<"conv", [Pure, AttrSizedOperandSegments]> {
  let summary = "2-D convolution with an N:M-sparse filter and a fused epilogue";
  let description = [{
    `result = act(alpha * conv(input, filter) + beta * acc + bias)` in NHWC:
    `input` is `N x H x W x (G*C)`, the result `N x OH x OW x (G*F)`, with
    `G = groups`, `F` output channels per group and

        OH = (H + pad_low[0] + pad_high[0] - dilations[0]*(KH-1) - 1)
             / strides[0] + 1            (OW likewise along W)

    Input pixels outside the image (padding) are zeros. Float products
    accumulate in f32 and are converted to the result element type at the
    end.

    Quantized (`i8` filter values and input, read as signed), as stc.spmm:
    products accumulate exactly in i32; an `i32` result is that accumulator
    (alpha 1, no beta, bias, scale or activation); any other result type
    runs the scaling epilogue, `act(alpha * scale * conv + beta * acc +
    bias)` in f32 with `scale` (optional, f32) one factor per output
    channel (per-channel filter scales), then rounds to the float type or
    requantizes to `i8` (round to nearest even, saturate). This is what a
    QDQ Conv (QuantizeLinear/DequantizeLinear around it) computes.

    The filter is given in canonical compressed form (`values`, `meta`) as
    the `(G*F) x (KH*KW*Cp)` matrix whose row `o` is output channel `o`'s
    `F x KH x KW x C` (FHWC) filter with the input channels zero-padded to
    `Cp`, a multiple of the pattern's `M`, and flattened in (kh, kw, c)
    order. The pattern therefore runs along the input channels for each
    (output channel, filter row, filter column), the rule of TensorRT and
    Apex ASP. Output channel `o` belongs to group `o / F` and reads input
    channels `[(o / F) * C, (o / F + 1) * C)`. Channel counts are static;
    N, H and W may be dynamic. `bias` has `G*F` elements;
    `acc` (the residual, required when `beta != 0`) has the result's shape;
    `scale`, like `bias`, has `G*F` elements.

    This is the form `stc-sparsify-convolutions` produces from the linalg
    convolutions (NCHW and HWCF layouts are converted at the boundary). On
    the GPU it is an implicit GEMM: the im2col matrix is gathered tile by
    tile, never materialized.

    ```mlir
    %y = stc.conv %v, %m, %x bias(%b : tensor<64xf32>)
        {pattern = #stc.nm<2:4>, filter_size = array<i64: 3, 3>,
         strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>,
         pad_low = array<i64: 1, 1>, pad_high = array<i64: 1, 1>,
         activation = #stc.activation<relu>}
        : tensor<64x288xf16>, tensor<64x36xi16>, tensor<1x56x56x64xf16>
        -> tensor<1x56x56x64xf16>
    %q = stc.conv %vq, %mq, %xq scale(%s : tensor<64xf32>)
        {pattern = #stc.nm<2:4>, filter_size = array<i64: 3, 3>,
         pad_low = array<i64: 1, 1>, pad_high = array<i64: 1, 1>}
        : tensor<64x288xi8>, tensor<64x18xi16>, tensor<1x56x56x64xi8>
        -> tensor<1x56x56x64xf32>
    ```
  }];
  let arguments = (ins
    STC_ElementTensor:$values,
    STC_MetaTensor:$meta,
    STC_ElementTensor:$input,
    Optional<RankedTensorOf<[F32, F16, BF16]>>:$bias,
    Optional<RankedTensorOf<[F32, F16, BF16, I8, I32]>>:$acc,
    Optional<RankedTensorOf<[F32]>>:$scale,
    STC_NMPatternAttr:$pattern,
    DenseI64ArrayAttr:$filter_size,
    DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
    DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilations,
    DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0}">:$pad_low,
    DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0}">:$pad_high,
    DefaultValuedAttr<I64Attr, "1">:$groups,
    DefaultValuedAttr<F64Attr, "1.0">:$alpha,
    DefaultValuedAttr<F64Attr, "0.0">:$beta,
    DefaultValuedAttr<STC_ActivationAttr, "::mlir::stc::Activation::none">:$activation
  );
  let results = (outs STC_SpmmResultTensor:$result);
  let assemblyFormat = [{
    $values `,` $meta `,` $input
    (`bias` `(` $bias^ `:` type($bias) `)`)?
    (`acc` `(` $acc^ `:` type($acc) `)`)?
    (`scale` `(` $scale^ `:` type($scale) `)`)?
    attr-dict `:` type($values) `,` type($meta) `,` type($input) `->`
    type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Input channels per group C (static), or ShapedType::kDynamic.
    int64_t getChannelsPerGroup();
    /// C rounded up to a multiple of the pattern's M.
    int64_t getPaddedChannelsPerGroup();
    /// Columns of the flattened filter KH*KW*Cp, or ShapedType::kDynamic.
    int64_t getFlatReductionSize();
    /// Output size along one spatial dimension of size `in` (dynamic in,
    /// dynamic out); may be <= 0 when the filter does not fit.
    static int64_t getOutputSize(int64_t in, int64_t filter, int64_t stride,
                                 int64_t dilation, int64_t padLow,
                                 int64_t padHigh);
    /// Whether the operands are i8 (products accumulate in i32).
    bool isQuantized() {
      return getValues().getType().getElementType().isInteger(8);
    }
  }];
}

#endif // STC_DIALECTS_STC_STCOPS_TD
