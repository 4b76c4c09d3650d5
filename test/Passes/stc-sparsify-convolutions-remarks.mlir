// Diagnostics of stc-sparsify-convolutions: why a convolution whose filter
// would be sparse stays dense (remarks, checked under sparsity=force, where
// every filter would be), encodings it cannot honour (left to upstream's
// sparsifier, with a remark), the one use of an encoding it cannot serve
// (an error), the remark of
// each rewrite, and bad pass options (reported once for the whole module,
// checked on stderr). The 1:2 and enable remarks need other options than
// the rest, so they are checked on stderr too.
// RUN: stc-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(stc-sparsify-convolutions{sparsity=force})'
// RUN: not stc-opt %s -split-input-file --pass-pipeline='builtin.module(stc-sparsify-convolutions{sparsity=force pattern=1:2})' 2>&1 >/dev/null | FileCheck %s --check-prefix=ONETWO
// RUN: not stc-opt %s -split-input-file --pass-pipeline='builtin.module(stc-sparsify-convolutions{sparsity=enable})' 2>&1 >/dev/null | FileCheck %s --check-prefix=ENABLE
// RUN: not stc-opt %s -split-input-file --pass-pipeline='builtin.module(stc-sparsify-convolutions{sparsity=sometimes})' 2>&1 | FileCheck %s --check-prefix=MODE
// RUN: not stc-opt %s -split-input-file --pass-pipeline='builtin.module(stc-sparsify-convolutions{pattern=4:8})' 2>&1 | FileCheck %s --check-prefix=PATTERN

// MODE: error: unknown sparsity mode 'sometimes' (expected explicit, enable, force or auto)
// PATTERN: error: unsupported pattern '4:8' (expected 2:4 or 1:2)

// A rewrite says which filter, in which layout, and how many values per
// output channel remain.
// ONETWO: remark: stc: 1:2 sparse convolution (sparsity=force): filter 4x3x3x8 (FHWC), 72 -> 36 values per output channel, rewritten to stc.conv
// ENABLE: remark: stc: 2:4 sparse convolution (sparsity=enable): filter 2x1x1x4 (FHWC), 4 -> 8 values per output channel, rewritten to stc.conv
func.func @forced(%x: tensor<1x6x6x8xf32>, %w: tensor<4x3x3x8xf32>, %z: tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32> {
  // expected-remark @+1 {{stc: 2:4 sparse convolution (sparsity=force): filter 4x3x3x8 (FHWC), 72 -> 40 values per output channel, rewritten to stc.conv}}
  %y = linalg.conv_2d_nhwc_fhwc ins(%x, %w : tensor<1x6x6x8xf32>, tensor<4x3x3x8xf32>) outs(%z : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %y : tensor<1x4x4x4xf32>
}

// -----

// enable: a constant that satisfies 2:4 along C (two of four channels).
func.func @enabled(%x: tensor<1x4x4x4xf32>, %z: tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32> {
  %w = arith.constant dense<[[[[1.0, 0.0, 2.0, 0.0]]], [[[0.0, 3.0, 4.0, 0.0]]]]> : tensor<2x1x1x4xf32>
  // expected-remark @+1 {{stc: 2:4 sparse convolution (sparsity=force): filter 2x1x1x4 (FHWC), 4 -> 8 values per output channel, rewritten to stc.conv}}
  %y = linalg.conv_2d_nhwc_fhwc ins(%x, %w : tensor<1x4x4x4xf32>, tensor<2x1x1x4xf32>) outs(%z : tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  return %y : tensor<1x4x4x2xf32>
}

// -----

// 1:2 is the tf32 form: an f16 filter cannot use it.
// ONETWO: remark: stc: convolution left dense: pattern 1:2 needs f32 operands
func.func @onetwo_f16(%x: tensor<1x6x6x8xf16>, %w: tensor<4x3x3x8xf16>, %z: tensor<1x4x4x4xf16>) -> tensor<1x4x4x4xf16> {
  // expected-remark @+1 {{stc: 2:4 sparse convolution (sparsity=force)}}
  %y = linalg.conv_2d_nhwc_fhwc ins(%x, %w : tensor<1x6x6x8xf16>, tensor<4x3x3x8xf16>) outs(%z : tensor<1x4x4x4xf16>) -> tensor<1x4x4x4xf16>
  return %y : tensor<1x4x4x4xf16>
}

// -----

func.func @depthwise(%x: tensor<1x8x8x16xf16>, %w: tensor<3x3x16xf16>, %z: tensor<1x6x6x16xf16>) -> tensor<1x6x6x16xf16> {
  // expected-remark @+1 {{stc: convolution left dense: depthwise convolutions have one input channel per group, nothing to prune along}}
  %y = linalg.depthwise_conv_2d_nhwc_hwc ins(%x, %w : tensor<1x8x8x16xf16>, tensor<3x3x16xf16>) outs(%z : tensor<1x6x6x16xf16>) -> tensor<1x6x6x16xf16>
  return %y : tensor<1x6x6x16xf16>
}

// -----

// A grouped convolution with one input channel per group is depthwise too.
func.func @one_channel_per_group(%x: tensor<1x4x1x6x6xf16>, %w: tensor<2x4x1x3x3xf16>, %z: tensor<1x4x2x4x4xf16>) -> tensor<1x4x2x4x4xf16> {
  // expected-remark @+1 {{stc: convolution left dense: 1 input channel per group, nothing to prune along}}
  %y = linalg.conv_2d_ngchw_fgchw ins(%x, %w : tensor<1x4x1x6x6xf16>, tensor<2x4x1x3x3xf16>) outs(%z : tensor<1x4x2x4x4xf16>) -> tensor<1x4x2x4x4xf16>
  return %y : tensor<1x4x2x4x4xf16>
}

// -----

func.func @quantized(%x: tensor<1x4x4x8xi8>, %w: tensor<1x1x8x4xi8>, %zx: i32, %zw: i32, %z: tensor<1x4x4x4xi32>) -> tensor<1x4x4x4xi32> {
  // expected-remark @+1 {{stc: convolution left dense: quantized convolutions are not supported}}
  %y = linalg.conv_2d_nhwc_hwcf_q ins(%x, %w, %zx, %zw : tensor<1x4x4x8xi8>, tensor<1x1x8x4xi8>, i32, i32) outs(%z : tensor<1x4x4x4xi32>) -> tensor<1x4x4x4xi32>
  return %y : tensor<1x4x4x4xi32>
}

// -----

func.func @conv_1d(%x: tensor<1x8x8xf32>, %w: tensor<3x8x4xf32>, %z: tensor<1x6x4xf32>) -> tensor<1x6x4xf32> {
  // expected-remark @+1 {{stc: convolution left dense: only 2-D convolutions with batch and channel dimensions are supported, got 'linalg.conv_1d_nwc_wcf'}}
  %y = linalg.conv_1d_nwc_wcf ins(%x, %w : tensor<1x8x8xf32>, tensor<3x8x4xf32>) outs(%z : tensor<1x6x4xf32>) -> tensor<1x6x4xf32>
  return %y : tensor<1x6x4xf32>
}

// -----

// Pooling ops share the convolution interface but have no filter: silent.
func.func @pooling(%x: tensor<1x8x8x16xf32>, %k: tensor<3x3xf32>, %z: tensor<1x6x6x16xf32>) -> tensor<1x6x6x16xf32> {
  %y = linalg.pooling_nhwc_sum ins(%x, %k : tensor<1x8x8x16xf32>, tensor<3x3xf32>) outs(%z : tensor<1x6x6x16xf32>) -> tensor<1x6x6x16xf32>
  return %y : tensor<1x6x6x16xf32>
}

// -----

func.func @on_memrefs(%x: memref<1x8x8x16xf32>, %w: memref<8x3x3x16xf32>, %z: memref<1x6x6x8xf32>) {
  // expected-remark @+1 {{stc: convolution left dense: only convolutions on ranked tensors are supported}}
  linalg.conv_2d_nhwc_fhwc ins(%x, %w : memref<1x8x8x16xf32>, memref<8x3x3x16xf32>) outs(%z : memref<1x6x6x8xf32>)
  return
}

// -----

// Mixed element types (f16 input, f32 filter), integers other than
// i8 x i8 -> i32, and i8 x i8 -> i32 with a non-zero init (sparse: the
// init is added to the exact i32 result after the conv).
func.func @element_types(%x: tensor<1x4x4x8xf16>, %w: tensor<1x1x8x4xf32>, %z: tensor<1x4x4x4xf32>,
                         %xi: tensor<1x4x4x8xi8>, %wi: tensor<1x1x8x4xi8>, %zi: tensor<1x4x4x4xi32>,
                         %xs: tensor<1x4x4x8xi16>, %ws: tensor<1x1x8x4xi16>) -> (tensor<1x4x4x4xf32>, tensor<1x4x4x4xi32>, tensor<1x4x4x4xi32>) {
  // expected-remark @+1 {{stc: convolution left dense: only f32, f16 and bf16 convolutions with the same input and filter type, and i8 x i8 -> i32 ones, are supported}}
  %y = linalg.conv_2d_nhwc_hwcf ins(%x, %w : tensor<1x4x4x8xf16>, tensor<1x1x8x4xf32>) outs(%z : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  // expected-remark @+1 {{stc: 2:4 sparse convolution (sparsity=force): filter 1x1x8x4 (HWCF), 8 -> 8 values per output channel, rewritten to stc.conv}}
  %yi = linalg.conv_2d_nhwc_hwcf ins(%xi, %wi : tensor<1x4x4x8xi8>, tensor<1x1x8x4xi8>) outs(%zi : tensor<1x4x4x4xi32>) -> tensor<1x4x4x4xi32>
  // expected-remark @+1 {{stc: convolution left dense: only f32, f16 and bf16 convolutions with the same input and filter type, and i8 x i8 -> i32 ones, are supported}}
  %ys = linalg.conv_2d_nhwc_hwcf ins(%xs, %ws : tensor<1x4x4x8xi16>, tensor<1x1x8x4xi16>) outs(%zi : tensor<1x4x4x4xi32>) -> tensor<1x4x4x4xi32>
  return %y, %yi, %ys : tensor<1x4x4x4xf32>, tensor<1x4x4x4xi32>, tensor<1x4x4x4xi32>
}

// -----

func.func @dynamic_filter(%x: tensor<1x8x8x16xf16>, %w: tensor<?x3x3x16xf16>, %z: tensor<1x6x6x?xf16>) -> tensor<1x6x6x?xf16> {
  // expected-remark @+1 {{stc: convolution left dense: dynamic filter sizes are not supported}}
  %y = linalg.conv_2d_nhwc_fhwc ins(%x, %w : tensor<1x8x8x16xf16>, tensor<?x3x3x16xf16>) outs(%z : tensor<1x6x6x?xf16>) -> tensor<1x6x6x?xf16>
  return %y : tensor<1x6x6x?xf16>
}

// -----

func.func @dynamic_channels(%x: tensor<1x8x8x?xf16>, %w: tensor<8x3x3x16xf16>, %z: tensor<1x6x6x8xf16>) -> tensor<1x6x6x8xf16> {
  // expected-remark @+1 {{stc: convolution left dense: dynamic input channels are not supported}}
  %y = linalg.conv_2d_nhwc_fhwc ins(%x, %w : tensor<1x8x8x?xf16>, tensor<8x3x3x16xf16>) outs(%z : tensor<1x6x6x8xf16>) -> tensor<1x6x6x8xf16>
  return %y : tensor<1x6x6x8xf16>
}

// -----

// The flattened filter pruned along its output channels: left dense, even
// under sparsity=force (the program asked for another pattern).
func.func @prune_along_output_channels(%x: tensor<1x8x8x16xf16>, %w: tensor<8x144xf16>, %z: tensor<1x6x6x8xf16>) -> tensor<1x6x6x8xf16> {
  %p = stc.prune %w by #stc.nm<2:4> along 0 : tensor<8x144xf16>
  %w4 = tensor.expand_shape %p [[0], [1, 2, 3]] output_shape [8, 3, 3, 16] : tensor<8x144xf16> into tensor<8x3x3x16xf16>
  // expected-remark @+1 {{stc: convolution left dense: the stc.prune behind the filter does not run along its input channels (expected stc.prune along 1 of the (G*F) x (KH*KW*C) filter, expanded to FHWC with tensor.expand_shape)}}
  %y = linalg.conv_2d_nhwc_fhwc ins(%x, %w4 : tensor<1x8x8x16xf16>, tensor<8x3x3x16xf16>) outs(%z : tensor<1x6x6x8xf16>) -> tensor<1x6x6x8xf16>
  return %y : tensor<1x6x6x8xf16>
}

// -----

// Pruned along 1, but expanded in (c, kh, kw) order and transposed to
// FHWC: the groups of four run across filter positions, not channels.
func.func @prune_wrong_flattening(%x: tensor<1x8x8x16xf16>, %w: tensor<8x144xf16>, %z: tensor<1x6x6x8xf16>) -> tensor<1x6x6x8xf16> {
  %p = stc.prune %w by #stc.nm<2:4> along 1 : tensor<8x144xf16>
  %w4 = tensor.expand_shape %p [[0], [1, 2, 3]] output_shape [8, 16, 3, 3] : tensor<8x144xf16> into tensor<8x16x3x3xf16>
  %e = tensor.empty() : tensor<8x3x3x16xf16>
  %wt = linalg.transpose ins(%w4 : tensor<8x16x3x3xf16>) outs(%e : tensor<8x3x3x16xf16>) permutation = [0, 2, 3, 1]
  // expected-remark @+1 {{stc: convolution left dense: the stc.prune behind the filter does not run along its input channels}}
  %y = linalg.conv_2d_nhwc_fhwc ins(%x, %wt : tensor<1x8x8x16xf16>, tensor<8x3x3x16xf16>) outs(%z : tensor<1x6x6x8xf16>) -> tensor<1x6x6x8xf16>
  return %y : tensor<1x6x6x8xf16>
}

// -----

// C = 3: the program's groups of four flattened columns straddle filter
// positions, which stc.conv (channels padded per position) cannot express.
func.func @prune_ragged_channels(%x: tensor<1x8x8x3xf16>, %w: tensor<8x27xf16>, %z: tensor<1x6x6x8xf16>) -> tensor<1x6x6x8xf16> {
  %p = stc.prune %w by #stc.nm<2:4> along 1 : tensor<8x27xf16>
  %w4 = tensor.expand_shape %p [[0], [1, 2, 3]] output_shape [8, 3, 3, 3] : tensor<8x27xf16> into tensor<8x3x3x3xf16>
  // expected-remark @+1 {{stc: convolution left dense: the filter is pruned along its flattened (kh, kw, c) columns but C = 3 is not a multiple of 4, so its groups straddle filter positions}}
  %y = linalg.conv_2d_nhwc_fhwc ins(%x, %w4 : tensor<1x8x8x3xf16>, tensor<8x3x3x3xf16>) outs(%z : tensor<1x6x6x8xf16>) -> tensor<1x6x6x8xf16>
  return %y : tensor<1x6x6x8xf16>
}

// -----

#along_kw = #sparse_tensor.encoding<{ map = (f, h, w, c) -> (f : dense, h : dense, c : dense, w floordiv 4 : dense, w mod 4 : structured[2, 4]) }>

// The encoding groups along the filter width, not the input channels.
func.func @encoding_along_kw(%x: tensor<1x8x8x16xf16>, %w: tensor<8x3x4x16xf16, #along_kw>, %z: tensor<1x6x5x8xf16>) -> tensor<1x6x5x8xf16> {
  // expected-remark @+1 {{stc: convolution left to the upstream sparsifier: its structured[2, 4] level runs along a dimension that is not the input-channel dimension of the FHWC filter}}
  %y = linalg.conv_2d_nhwc_fhwc ins(%x, %w : tensor<1x8x8x16xf16>, tensor<8x3x4x16xf16, #along_kw>) outs(%z : tensor<1x6x5x8xf16>) -> tensor<1x6x5x8xf16>
  return %y : tensor<1x6x5x8xf16>
}

// -----

#hwc = #sparse_tensor.encoding<{ map = (h, w, c) -> (h : dense, w : dense, c floordiv 4 : dense, c mod 4 : structured[2, 4]) }>

// An encoded filter STC cannot use keeps its encoding for upstream's
// sparsifier.
func.func @encoded_depthwise(%x: tensor<1x8x8x16xf16>, %w: tensor<3x3x16xf16, #hwc>, %z: tensor<1x6x6x16xf16>) -> tensor<1x6x6x16xf16> {
  // expected-remark @+1 {{stc: convolution left to the upstream sparsifier: depthwise convolutions have one input channel per group, nothing to prune along}}
  %y = linalg.depthwise_conv_2d_nhwc_hwc ins(%x, %w : tensor<1x8x8x16xf16>, tensor<3x3x16xf16, #hwc>) outs(%z : tensor<1x6x6x16xf16>) -> tensor<1x6x6x16xf16>
  return %y : tensor<1x6x6x16xf16>
}

// -----

#fhwc = #sparse_tensor.encoding<{ map = (f, h, w, c) -> (f : dense, h : dense, w : dense, c floordiv 4 : dense, c mod 4 : structured[2, 4]) }>

// The encoded argument has a second user: the convolution made it dense.
func.func @encoded_argument_other_use(%x: tensor<1x8x8x16xf16>, %w: tensor<8x3x3x16xf16, #fhwc>, %z: tensor<1x6x6x8xf16>) -> (tensor<1x6x6x8xf16>, tensor<8x3x3x16xf16>) {
  // expected-remark @+1 {{stc: 2:4 sparse convolution (sparse_tensor encoding)}}
  %y = linalg.conv_2d_nhwc_fhwc ins(%x, %w : tensor<1x8x8x16xf16>, tensor<8x3x3x16xf16, #fhwc>) outs(%z : tensor<1x6x6x8xf16>) -> tensor<1x6x6x8xf16>
  // expected-error @+1 {{stc: this use of a structured[2, 4] filter argument that an STC convolution consumed is not supported (the argument becomes dense); convert it with sparse_tensor.convert for the other uses}}
  %d = sparse_tensor.convert %w : tensor<8x3x3x16xf16, #fhwc> to tensor<8x3x3x16xf16>
  return %y, %d : tensor<1x6x6x8xf16>, tensor<8x3x3x16xf16>
}

// -----

#fhwc = #sparse_tensor.encoding<{ map = (f, h, w, c) -> (f : dense, h : dense, w : dense, c floordiv 4 : dense, c mod 4 : structured[2, 4]) }>

// The conversion that gives the filter its encoding has another user: it
// stays for that user (upstream's sparsifier lowers it).
func.func @encoding_conversion_other_use(%x: tensor<1x8x8x16xf16>, %w: tensor<8x3x3x16xf16>, %z: tensor<1x6x6x8xf16>) -> (tensor<1x6x6x8xf16>, tensor<8x3x3x16xf16, #fhwc>) {
  %s = sparse_tensor.convert %w : tensor<8x3x3x16xf16> to tensor<8x3x3x16xf16, #fhwc>
  // expected-remark @+1 {{stc: 2:4 sparse convolution (sparse_tensor encoding)}}
  %y = linalg.conv_2d_nhwc_fhwc ins(%x, %s : tensor<1x8x8x16xf16>, tensor<8x3x3x16xf16, #fhwc>) outs(%z : tensor<1x6x6x8xf16>) -> tensor<1x6x6x8xf16>
  return %y, %s : tensor<1x6x6x8xf16>, tensor<8x3x3x16xf16, #fhwc>
}

// -----

#fhwc = #sparse_tensor.encoding<{ map = (f, h, w, c) -> (f : dense, h : dense, w : dense, c floordiv 4 : dense, c mod 4 : structured[2, 4]) }>

// An encoded filter produced by some other op keeps its encoding.
func.func @encoded_by_other_op(%x: tensor<1x8x8x16xf16>, %z: tensor<1x6x6x8xf16>) -> tensor<1x6x6x8xf16> {
  %w = tensor.empty() : tensor<8x3x3x16xf16, #fhwc>
  // expected-remark @+1 {{stc: convolution left to the upstream sparsifier: only a function argument, a sparse_tensor.convert or a constant can be compressed}}
  %y = linalg.conv_2d_nhwc_fhwc ins(%x, %w : tensor<1x8x8x16xf16>, tensor<8x3x3x16xf16, #fhwc>) outs(%z : tensor<1x6x6x8xf16>) -> tensor<1x6x6x8xf16>
  return %y : tensor<1x6x6x8xf16>
}

// -----

#csr = #sparse_tensor.encoding<{ map = (f, h, w, c) -> (f : dense, h : compressed, w : dense, c : dense) }>

// A filter in a format without a structured level is upstream's, even
// under sparsity=force (no "not the input-channel dimension" error).
func.func @other_encoding(%x: tensor<1x8x8x16xf16>, %w: tensor<8x3x3x16xf16, #csr>, %z: tensor<1x6x6x8xf16>) -> tensor<1x6x6x8xf16> {
  // expected-remark @+1 {{stc: convolution left to the upstream sparsifier: its filter's encoding has no structured[2, 4] level (STC's kernels take 2:4 along the input channels)}}
  %y = linalg.conv_2d_nhwc_fhwc ins(%x, %w : tensor<1x8x8x16xf16>, tensor<8x3x3x16xf16, #csr>) outs(%z : tensor<1x6x6x8xf16>) -> tensor<1x6x6x8xf16>
  return %y : tensor<1x6x6x8xf16>
}
