// stc-sparsify-convolutions: which 2-D convolutions become stc.compress +
// stc.conv, how each filter layout is brought to the (G*F) x (KH*KW*Cp)
// matrix (transposed, channels zero-padded, flattened), how NCHW-style
// activations are transposed at the boundary, how zero pads fold into the
// convolution's padding and a non-zero init becomes acc, and what each
// sparsity mode (explicit / enable / force) selects. cse merges the
// constants and drops the dead fills.
// RUN: stc-opt %s -verify-diagnostics --pass-pipeline='builtin.module(stc-sparsify-convolutions,cse)' | FileCheck %s
// RUN: stc-opt %s --pass-pipeline='builtin.module(stc-sparsify-convolutions{sparsity=enable},cse)' 2>/dev/null | FileCheck %s --check-prefix=ENABLE
// RUN: stc-opt %s --pass-pipeline='builtin.module(stc-sparsify-convolutions{sparsity=force},cse)' 2>/dev/null | FileCheck %s --check-prefix=FORCE
// RUN: stc-opt %s --pass-pipeline='builtin.module(stc-sparsify-convolutions{sparsity=force},canonicalize)' 2>/dev/null | FileCheck %s --check-prefix=FOLD
// RUN: stc-opt %s --pass-pipeline='builtin.module(stc-sparsify-convolutions{sparsity=force pattern=1:2},cse)' 2>/dev/null | FileCheck %s --check-prefix=ONETWO

#fhwc24 = #sparse_tensor.encoding<{ map = (f, h, w, c) -> (f : dense, h : dense, w : dense, c floordiv 4 : dense, c mod 4 : structured[2, 4]) }>

//===----------------------------------------------------------------------===//
// Explicit sparsity: the encoding, or stc.prune of the flattened filter
//===----------------------------------------------------------------------===//

// An FHWC filter with the structured[2, 4] encoding on C: flattened as is
// (no transpose, C = 16 needs no padding), compressed without pruning; the
// argument loses its encoding.
// CHECK-LABEL: func.func @encoded_fhwc
// CHECK-SAME: (%[[X:.*]]: tensor<1x8x8x16xf16>, %[[W:.*]]: tensor<8x3x3x16xf16>)
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %[[W]] {{\[}}[0], [1, 2, 3]] : tensor<8x3x3x16xf16> into tensor<8x144xf16>
// CHECK-NOT: stc.prune
// CHECK: %[[V:.*]], %[[M:.*]] = stc.compress %[[FLAT]] by #stc.nm<2:4> along 1 : tensor<8x144xf16> -> tensor<8x72xf16>, tensor<8x9xi16>
// CHECK: %[[Y:.*]] = stc.conv %[[V]], %[[M]], %[[X]] {filter_size = array<i64: 3, 3>, pattern = #stc.nm<2:4>} : tensor<8x72xf16>, tensor<8x9xi16>, tensor<1x8x8x16xf16> -> tensor<1x6x6x8xf16>
// CHECK-NOT: linalg.conv
// CHECK: return %[[Y]]
func.func @encoded_fhwc(%x: tensor<1x8x8x16xf16>, %w: tensor<8x3x3x16xf16, #fhwc24>) -> tensor<1x6x6x8xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<1x6x6x8xf16>
  %z = linalg.fill ins(%cst : f16) outs(%e : tensor<1x6x6x8xf16>) -> tensor<1x6x6x8xf16>
  // expected-remark @+1 {{stc: 2:4 sparse convolution (sparse_tensor encoding): filter 8x3x3x16 (FHWC), 144 -> 72 values per output channel, rewritten to stc.conv}}
  %y = linalg.conv_2d_nhwc_fhwc ins(%x, %w : tensor<1x8x8x16xf16>, tensor<8x3x3x16xf16, #fhwc24>) outs(%z : tensor<1x6x6x8xf16>) -> tensor<1x6x6x8xf16>
  return %y : tensor<1x6x6x8xf16>
}

// The encoding given by a sparse_tensor.convert: the conversion's dense
// source is compressed and the conversion disappears.
// CHECK-LABEL: func.func @encoded_by_convert
// CHECK-SAME: (%[[X:.*]]: tensor<1x8x8x16xf16>, %[[W:.*]]: tensor<8x3x3x16xf16>)
// CHECK-NOT: sparse_tensor.convert
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %[[W]]
// CHECK: stc.compress %[[FLAT]] by #stc.nm<2:4> along 1
// CHECK-NOT: sparse_tensor.convert
// CHECK: stc.conv
func.func @encoded_by_convert(%x: tensor<1x8x8x16xf16>, %w: tensor<8x3x3x16xf16>) -> tensor<1x6x6x8xf16> {
  %s = sparse_tensor.convert %w : tensor<8x3x3x16xf16> to tensor<8x3x3x16xf16, #fhwc24>
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<1x6x6x8xf16>
  %z = linalg.fill ins(%cst : f16) outs(%e : tensor<1x6x6x8xf16>) -> tensor<1x6x6x8xf16>
  // expected-remark @+1 {{stc: 2:4 sparse convolution (sparse_tensor encoding)}}
  %y = linalg.conv_2d_nhwc_fhwc ins(%x, %s : tensor<1x8x8x16xf16>, tensor<8x3x3x16xf16, #fhwc24>) outs(%z : tensor<1x6x6x8xf16>) -> tensor<1x6x6x8xf16>
  return %y : tensor<1x6x6x8xf16>
}

// stc.prune is rank-2: the program prunes the flattened F x (KH*KW*C)
// filter along 1 and expands it to FHWC. That pruned matrix is compressed
// directly.
// CHECK-LABEL: func.func @prune_flattened_fhwc
// CHECK-SAME: (%[[X:.*]]: tensor<1x8x8x16xf16>, %[[W:.*]]: tensor<8x144xf16>)
// CHECK: %[[P:.*]] = stc.prune %[[W]] by #stc.nm<2:4> along 1 : tensor<8x144xf16>
// CHECK: %[[V:.*]], %[[M:.*]] = stc.compress %[[P]] by #stc.nm<2:4> along 1 : tensor<8x144xf16> -> tensor<8x72xf16>, tensor<8x9xi16>
// CHECK: %[[Y:.*]] = stc.conv %[[V]], %[[M]], %[[X]] {filter_size = array<i64: 3, 3>, pattern = #stc.nm<2:4>}
// CHECK: return %[[Y]]
func.func @prune_flattened_fhwc(%x: tensor<1x8x8x16xf16>, %w: tensor<8x144xf16>) -> tensor<1x6x6x8xf16> {
  %p = stc.prune %w by #stc.nm<2:4> along 1 : tensor<8x144xf16>
  %w4 = tensor.expand_shape %p [[0], [1, 2, 3]] output_shape [8, 3, 3, 16] : tensor<8x144xf16> into tensor<8x3x3x16xf16>
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<1x6x6x8xf16>
  %z = linalg.fill ins(%cst : f16) outs(%e : tensor<1x6x6x8xf16>) -> tensor<1x6x6x8xf16>
  // expected-remark @+1 {{stc: 2:4 sparse convolution (stc.prune): filter 8x3x3x16 (FHWC), 144 -> 72 values per output channel, rewritten to stc.conv}}
  %y = linalg.conv_2d_nhwc_fhwc ins(%x, %w4 : tensor<1x8x8x16xf16>, tensor<8x3x3x16xf16>) outs(%z : tensor<1x6x6x8xf16>) -> tensor<1x6x6x8xf16>
  return %y : tensor<1x6x6x8xf16>
}

// The same pruned filter transposed to FCHW for an NCHW convolution with
// strides and dilations: the input is transposed to NHWC, the NHWC result
// back to NCHW; the explicit prune keeps its own pattern (1:2 on f32).
// CHECK-LABEL: func.func @prune_flattened_nchw
// CHECK-SAME: (%[[X:.*]]: tensor<2x8x9x9xf32>, %[[W:.*]]: tensor<4x48xf32>)
// CHECK: %[[P:.*]] = stc.prune %[[W]] by #stc.nm<1:2> along 1 : tensor<4x48xf32>
// CHECK: %[[V:.*]], %[[M:.*]] = stc.compress %[[P]] by #stc.nm<1:2> along 1 : tensor<4x48xf32> -> tensor<4x24xf32>, tensor<4x6xi16>
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x9x9x8xf32>
// CHECK: %[[XT:.*]] = linalg.transpose ins(%[[X]] : tensor<2x8x9x9xf32>) outs(%[[E]] : tensor<2x9x9x8xf32>) permutation = [0, 2, 3, 1]
// CHECK: %[[Y:.*]] = stc.conv %[[V]], %[[M]], %[[XT]] {dilations = array<i64: 2, 1>, filter_size = array<i64: 3, 2>, pattern = #stc.nm<1:2>, strides = array<i64: 1, 2>} : tensor<4x24xf32>, tensor<4x6xi16>, tensor<2x9x9x8xf32> -> tensor<2x5x4x4xf32>
// CHECK: %[[YT:.*]] = linalg.transpose ins(%[[Y]] : tensor<2x5x4x4xf32>) outs(%{{.*}} : tensor<2x4x5x4xf32>) permutation = [0, 3, 1, 2]
// CHECK: return %[[YT]]
func.func @prune_flattened_nchw(%x: tensor<2x8x9x9xf32>, %w: tensor<4x48xf32>) -> tensor<2x4x5x4xf32> {
  %p = stc.prune %w by #stc.nm<1:2> along 1 : tensor<4x48xf32>
  %w4 = tensor.expand_shape %p [[0], [1, 2, 3]] output_shape [4, 3, 2, 8] : tensor<4x48xf32> into tensor<4x3x2x8xf32>
  %et = tensor.empty() : tensor<4x8x3x2xf32>
  %wt = linalg.transpose ins(%w4 : tensor<4x3x2x8xf32>) outs(%et : tensor<4x8x3x2xf32>) permutation = [0, 3, 1, 2]
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x4x5x4xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<2x4x5x4xf32>) -> tensor<2x4x5x4xf32>
  // expected-remark @+1 {{stc: 1:2 sparse convolution (stc.prune): filter 4x8x3x2 (FCHW), 48 -> 24 values per output channel, rewritten to stc.conv}}
  %y = linalg.conv_2d_nchw_fchw {strides = dense<[1, 2]> : tensor<2xi64>, dilations = dense<[2, 1]> : tensor<2xi64>}
      ins(%x, %wt : tensor<2x8x9x9xf32>, tensor<4x8x3x2xf32>) outs(%z : tensor<2x4x5x4xf32>) -> tensor<2x4x5x4xf32>
  return %y : tensor<2x4x5x4xf32>
}

// Grouped NGCHW x FGCHW: the (G*F) x (KH*KW*C) matrix is expanded to
// G x F x KH x KW x C and transposed to FGCHW. The input becomes
// N x H x W x (G*C), the result N x OH x OW x (G*F) is expanded and
// transposed back to N x G x F x OH x OW.
// CHECK-LABEL: func.func @prune_flattened_grouped
// CHECK-SAME: (%[[X:.*]]: tensor<1x2x8x6x6xf16>, %[[W:.*]]: tensor<6x72xf16>)
// CHECK: %[[P:.*]] = stc.prune %[[W]] by #stc.nm<2:4> along 1 : tensor<6x72xf16>
// CHECK: %[[V:.*]], %[[M:.*]] = stc.compress %[[P]] by #stc.nm<2:4> along 1 : tensor<6x72xf16> -> tensor<6x40xf16>, tensor<6x5xi16>
// CHECK: %[[XT:.*]] = linalg.transpose ins(%[[X]] : tensor<1x2x8x6x6xf16>) outs(%{{.*}} : tensor<1x6x6x2x8xf16>) permutation = [0, 3, 4, 1, 2]
// CHECK: %[[XC:.*]] = tensor.collapse_shape %[[XT]] {{\[}}[0], [1], [2], [3, 4]] : tensor<1x6x6x2x8xf16> into tensor<1x6x6x16xf16>
// CHECK: %[[Y:.*]] = stc.conv %[[V]], %[[M]], %[[XC]] {filter_size = array<i64: 3, 3>, groups = 2 : i64, pattern = #stc.nm<2:4>} : tensor<6x40xf16>, tensor<6x5xi16>, tensor<1x6x6x16xf16> -> tensor<1x4x4x6xf16>
// CHECK: %[[YE:.*]] = tensor.expand_shape %[[Y]] {{\[}}[0], [1], [2], [3, 4]] output_shape [1, 4, 4, 2, 3] : tensor<1x4x4x6xf16> into tensor<1x4x4x2x3xf16>
// CHECK: %[[YT:.*]] = linalg.transpose ins(%[[YE]] : tensor<1x4x4x2x3xf16>) outs(%{{.*}} : tensor<1x2x3x4x4xf16>) permutation = [0, 3, 4, 1, 2]
// CHECK: return %[[YT]]
func.func @prune_flattened_grouped(%x: tensor<1x2x8x6x6xf16>, %w: tensor<6x72xf16>) -> tensor<1x2x3x4x4xf16> {
  %p = stc.prune %w by #stc.nm<2:4> along 1 : tensor<6x72xf16>
  %w5 = tensor.expand_shape %p [[0, 1], [2, 3, 4]] output_shape [2, 3, 3, 3, 8] : tensor<6x72xf16> into tensor<2x3x3x3x8xf16>
  %et = tensor.empty() : tensor<3x2x8x3x3xf16>
  %wt = linalg.transpose ins(%w5 : tensor<2x3x3x3x8xf16>) outs(%et : tensor<3x2x8x3x3xf16>) permutation = [1, 0, 4, 2, 3]
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<1x2x3x4x4xf16>
  %z = linalg.fill ins(%cst : f16) outs(%e : tensor<1x2x3x4x4xf16>) -> tensor<1x2x3x4x4xf16>
  // expected-remark @+1 {{stc: 2:4 sparse convolution (stc.prune): filter 3x2x8x3x3 (FGCHW, 2 groups), 72 -> 40 values per output channel, rewritten to stc.conv}}
  %y = linalg.conv_2d_ngchw_fgchw ins(%x, %wt : tensor<1x2x8x6x6xf16>, tensor<3x2x8x3x3xf16>) outs(%z : tensor<1x2x3x4x4xf16>) -> tensor<1x2x3x4x4xf16>
  return %y : tensor<1x2x3x4x4xf16>
}

// Without a prune, an encoding or a sparsity option the filter is dense and
// the pass says nothing.
// CHECK-LABEL: func.func @dense_filter
// CHECK-NOT: stc.
// CHECK: linalg.conv_2d_nhwc_hwcf
// FORCE-LABEL: func.func @dense_filter
// FORCE: stc.conv
func.func @dense_filter(%x: tensor<1x8x8x16xf16>, %w: tensor<3x3x16x8xf16>) -> tensor<1x6x6x8xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<1x6x6x8xf16>
  %z = linalg.fill ins(%cst : f16) outs(%e : tensor<1x6x6x8xf16>) -> tensor<1x6x6x8xf16>
  %y = linalg.conv_2d_nhwc_hwcf ins(%x, %w : tensor<1x8x8x16xf16>, tensor<3x3x16x8xf16>) outs(%z : tensor<1x6x6x8xf16>) -> tensor<1x6x6x8xf16>
  return %y : tensor<1x6x6x8xf16>
}

//===----------------------------------------------------------------------===//
// sparsity=force
//===----------------------------------------------------------------------===//

// An HWCF argument filter behind a zero tensor.pad of the spatial
// dimensions: the filter is transposed to FHWC, flattened and pruned at run
// time; the pad folds into pad_low / pad_high and disappears.
// FORCE-LABEL: func.func @force_hwcf_padded
// FORCE-SAME: (%[[X:.*]]: tensor<1x8x8x16xf16>, %[[W:.*]]: tensor<3x3x16x8xf16>)
// FORCE-NOT: tensor.pad
// FORCE: %[[WT:.*]] = linalg.transpose ins(%[[W]] : tensor<3x3x16x8xf16>) outs(%{{.*}} : tensor<8x3x3x16xf16>) permutation = [3, 0, 1, 2]
// FORCE: %[[FLAT:.*]] = tensor.collapse_shape %[[WT]] {{\[}}[0], [1, 2, 3]] : tensor<8x3x3x16xf16> into tensor<8x144xf16>
// FORCE: %[[P:.*]] = stc.prune %[[FLAT]] by #stc.nm<2:4> along 1 : tensor<8x144xf16>
// FORCE: %[[V:.*]], %[[M:.*]] = stc.compress %[[P]] by #stc.nm<2:4> along 1 : tensor<8x144xf16> -> tensor<8x72xf16>, tensor<8x9xi16>
// FORCE-NOT: tensor.pad
// FORCE: %[[Y:.*]] = stc.conv %[[V]], %[[M]], %[[X]] {filter_size = array<i64: 3, 3>, pad_high = array<i64: 2, 1>, pad_low = array<i64: 1, 0>, pattern = #stc.nm<2:4>} : tensor<8x72xf16>, tensor<8x9xi16>, tensor<1x8x8x16xf16> -> tensor<1x9x7x8xf16>
// FORCE: return %[[Y]]
func.func @force_hwcf_padded(%x: tensor<1x8x8x16xf16>, %w: tensor<3x3x16x8xf16>) -> tensor<1x9x7x8xf16> {
  %c0 = arith.constant 0.0 : f16
  %p = tensor.pad %x low[0, 1, 0, 0] high[0, 2, 1, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %c0 : f16
  } : tensor<1x8x8x16xf16> to tensor<1x11x9x16xf16>
  %e = tensor.empty() : tensor<1x9x7x8xf16>
  %z = linalg.fill ins(%c0 : f16) outs(%e : tensor<1x9x7x8xf16>) -> tensor<1x9x7x8xf16>
  %y = linalg.conv_2d_nhwc_hwcf ins(%p, %w : tensor<1x11x9x16xf16>, tensor<3x3x16x8xf16>) outs(%z : tensor<1x9x7x8xf16>) -> tensor<1x9x7x8xf16>
  return %y : tensor<1x9x7x8xf16>
}

// NCHW with a pad on H and W (dimensions 2, 3 of NCHW) that has another
// user: it folds, and stays for that user. A zero constant init needs no acc.
// FORCE-LABEL: func.func @force_nchw_pad_other_use
// FORCE-SAME: (%[[X:.*]]: tensor<1x4x6x6xf32>,
// FORCE: %[[PAD:.*]] = tensor.pad %[[X]] low[0, 0, 1, 1] high[0, 0, 1, 1]
// FORCE: %[[XT:.*]] = linalg.transpose ins(%[[X]] : tensor<1x4x6x6xf32>)
// FORCE: %[[Y:.*]] = stc.conv %{{.*}}, %{{.*}}, %[[XT]] {filter_size = array<i64: 3, 3>, pad_high = array<i64: 1, 1>, pad_low = array<i64: 1, 1>, pattern = #stc.nm<2:4>} : tensor<8x24xf32>, tensor<8x3xi16>, tensor<1x6x6x4xf32> -> tensor<1x6x6x8xf32>
// FORCE: return %{{.*}}, %[[PAD]]
func.func @force_nchw_pad_other_use(%x: tensor<1x4x6x6xf32>, %w: tensor<8x4x3x3xf32>) -> (tensor<1x8x6x6xf32>, tensor<1x4x8x8xf32>) {
  %c0 = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %c0 : f32
  } : tensor<1x4x6x6xf32> to tensor<1x4x8x8xf32>
  %z = arith.constant dense<0.0> : tensor<1x8x6x6xf32>
  %y = linalg.conv_2d_nchw_fchw ins(%p, %w : tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) outs(%z : tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32>
  return %y, %p : tensor<1x8x6x6xf32>, tensor<1x4x8x8xf32>
}

// Pads that do not fold: one on the channels, one with a non-zero value.
// FORCE-LABEL: func.func @force_pads_not_folded
// FORCE: %[[P1:.*]] = tensor.pad
// FORCE: %[[P2:.*]] = tensor.pad
// FORCE: stc.conv %{{.*}}, %{{.*}}, %[[P1]] {filter_size = array<i64: 1, 1>, pattern = #stc.nm<2:4>}
// FORCE: stc.conv %{{.*}}, %{{.*}}, %[[P2]] {filter_size = array<i64: 1, 1>, pattern = #stc.nm<2:4>}
func.func @force_pads_not_folded(%x: tensor<1x4x4x4xf16>, %w: tensor<4x1x1x8xf16>, %w2: tensor<4x1x1x4xf16>) -> (tensor<1x4x4x4xf16>, tensor<1x6x6x4xf16>) {
  %c0 = arith.constant 0.0 : f16
  %c1 = arith.constant 1.0 : f16
  %p1 = tensor.pad %x low[0, 0, 0, 2] high[0, 0, 0, 2] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %c0 : f16
  } : tensor<1x4x4x4xf16> to tensor<1x4x4x8xf16>
  %p2 = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %c1 : f16
  } : tensor<1x4x4x4xf16> to tensor<1x6x6x4xf16>
  %e = tensor.empty() : tensor<1x4x4x4xf16>
  %z = linalg.fill ins(%c0 : f16) outs(%e : tensor<1x4x4x4xf16>) -> tensor<1x4x4x4xf16>
  %y1 = linalg.conv_2d_nhwc_fhwc ins(%p1, %w : tensor<1x4x4x8xf16>, tensor<4x1x1x8xf16>) outs(%z : tensor<1x4x4x4xf16>) -> tensor<1x4x4x4xf16>
  %e2 = tensor.empty() : tensor<1x6x6x4xf16>
  %z2 = linalg.fill ins(%c0 : f16) outs(%e2 : tensor<1x6x6x4xf16>) -> tensor<1x6x6x4xf16>
  %y2 = linalg.conv_2d_nhwc_fhwc ins(%p2, %w2 : tensor<1x6x6x4xf16>, tensor<4x1x1x4xf16>) outs(%z2 : tensor<1x6x6x4xf16>) -> tensor<1x6x6x4xf16>
  return %y1, %y2 : tensor<1x4x4x4xf16>, tensor<1x6x6x4xf16>
}

// Dynamic batch and image sizes, strides and dilations, and an init that
// is not zero: it is transposed to NHWC and passed as acc with beta = 1.
// The ragged C = 3 is zero-padded to 4 before flattening.
// FORCE-LABEL: func.func @force_nchw_dynamic_acc
// FORCE-SAME: (%[[X:.*]]: tensor<?x3x?x?xf32>, %[[W:.*]]: tensor<8x3x3x3xf32>, %[[INIT:.*]]: tensor<?x8x?x?xf32>)
// FORCE: %[[WP:.*]] = tensor.pad %[[W]] low[0, 0, 0, 0] high[0, 1, 0, 0]
// FORCE: tensor<8x3x3x3xf32> to tensor<8x4x3x3xf32>
// FORCE: %[[WT:.*]] = linalg.transpose ins(%[[WP]] : tensor<8x4x3x3xf32>) outs(%{{.*}} : tensor<8x3x3x4xf32>) permutation = [0, 2, 3, 1]
// FORCE: %[[FLAT:.*]] = tensor.collapse_shape %[[WT]] {{\[}}[0], [1, 2, 3]] : tensor<8x3x3x4xf32> into tensor<8x36xf32>
// FORCE: %[[P:.*]] = stc.prune %[[FLAT]] by #stc.nm<2:4> along 1 : tensor<8x36xf32>
// FORCE: %[[V:.*]], %[[M:.*]] = stc.compress %[[P]] by #stc.nm<2:4> along 1 : tensor<8x36xf32> -> tensor<8x24xf32>, tensor<8x3xi16>
// FORCE: %[[XE:.*]] = tensor.empty(%{{.*}}, %{{.*}}, %{{.*}}) : tensor<?x?x?x3xf32>
// FORCE: %[[XT:.*]] = linalg.transpose ins(%[[X]] : tensor<?x3x?x?xf32>) outs(%[[XE]] : tensor<?x?x?x3xf32>) permutation = [0, 2, 3, 1]
// FORCE: %[[AT:.*]] = linalg.transpose ins(%[[INIT]] : tensor<?x8x?x?xf32>) outs(%{{.*}} : tensor<?x?x?x8xf32>) permutation = [0, 2, 3, 1]
// FORCE: %[[Y:.*]] = stc.conv %[[V]], %[[M]], %[[XT]] acc(%[[AT]] : tensor<?x?x?x8xf32>) {beta = 1.000000e+00 : f64, dilations = array<i64: 1, 2>, filter_size = array<i64: 3, 3>, pattern = #stc.nm<2:4>, strides = array<i64: 2, 2>} : tensor<8x24xf32>, tensor<8x3xi16>, tensor<?x?x?x3xf32> -> tensor<?x?x?x8xf32>
// FORCE: %[[YT:.*]] = linalg.transpose ins(%[[Y]] : tensor<?x?x?x8xf32>) outs(%{{.*}} : tensor<?x8x?x?xf32>) permutation = [0, 3, 1, 2]
// FORCE: return %[[YT]]
func.func @force_nchw_dynamic_acc(%x: tensor<?x3x?x?xf32>, %w: tensor<8x3x3x3xf32>, %init: tensor<?x8x?x?xf32>) -> tensor<?x8x?x?xf32> {
  %y = linalg.conv_2d_nchw_fchw {strides = dense<2> : tensor<2xi64>, dilations = dense<[1, 2]> : tensor<2xi64>}
      ins(%x, %w : tensor<?x3x?x?xf32>, tensor<8x3x3x3xf32>) outs(%init : tensor<?x8x?x?xf32>) -> tensor<?x8x?x?xf32>
  return %y : tensor<?x8x?x?xf32>
}

// The other grouped layouts: GFCHW needs only the C transpose; NHWGC x
// GFHWC is already canonical, so only reshapes remain.
// FORCE-LABEL: func.func @force_ngchw_gfchw
// FORCE: linalg.transpose ins(%{{.*}} : tensor<2x4x8x3x3xf16>) outs(%{{.*}} : tensor<2x4x3x3x8xf16>) permutation = [0, 1, 3, 4, 2]
// FORCE: tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2, 3, 4]] : tensor<2x4x3x3x8xf16> into tensor<8x72xf16>
// FORCE: stc.conv {{.*}}groups = 2 : i64{{.*}} -> tensor<1x4x4x8xf16>
// FORCE-LABEL: func.func @force_nhwgc_gfhwc
// FORCE-SAME: (%[[X:.*]]: tensor<1x6x6x2x8xf16>, %[[W:.*]]: tensor<2x4x3x3x8xf16>)
// FORCE-NOT: linalg.transpose
// FORCE: %[[FLAT:.*]] = tensor.collapse_shape %[[W]] {{\[}}[0, 1], [2, 3, 4]] : tensor<2x4x3x3x8xf16> into tensor<8x72xf16>
// FORCE: %[[XC:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0], [1], [2], [3, 4]] : tensor<1x6x6x2x8xf16> into tensor<1x6x6x16xf16>
// FORCE: %[[Y:.*]] = stc.conv %{{.*}}, %{{.*}}, %[[XC]] {filter_size = array<i64: 3, 3>, groups = 2 : i64, pattern = #stc.nm<2:4>} : tensor<8x40xf16>, tensor<8x5xi16>, tensor<1x6x6x16xf16> -> tensor<1x4x4x8xf16>
// FORCE: %[[YE:.*]] = tensor.expand_shape %[[Y]] {{\[}}[0], [1], [2], [3, 4]] output_shape [1, 4, 4, 2, 4] : tensor<1x4x4x8xf16> into tensor<1x4x4x2x4xf16>
// FORCE-NOT: linalg.transpose
// FORCE: return %[[YE]]
func.func @force_ngchw_gfchw(%x: tensor<1x2x8x6x6xf16>, %w: tensor<2x4x8x3x3xf16>, %z: tensor<1x2x4x4x4xf16>) -> tensor<1x2x4x4x4xf16> {
  %y = linalg.conv_2d_ngchw_gfchw ins(%x, %w : tensor<1x2x8x6x6xf16>, tensor<2x4x8x3x3xf16>) outs(%z : tensor<1x2x4x4x4xf16>) -> tensor<1x2x4x4x4xf16>
  return %y : tensor<1x2x4x4x4xf16>
}
func.func @force_nhwgc_gfhwc(%x: tensor<1x6x6x2x8xf16>, %w: tensor<2x4x3x3x8xf16>) -> tensor<1x4x4x2x4xf16> {
  %cst = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<1x4x4x2x4xf16>
  %z = linalg.fill ins(%cst : f16) outs(%e : tensor<1x4x4x2x4xf16>) -> tensor<1x4x4x2x4xf16>
  %y = linalg.conv_2d_nhwgc_gfhwc ins(%x, %w : tensor<1x6x6x2x8xf16>, tensor<2x4x3x3x8xf16>) outs(%z : tensor<1x4x4x2x4xf16>) -> tensor<1x4x4x2x4xf16>
  return %y : tensor<1x4x4x2x4xf16>
}

// A constant FCHW filter with C = 3 is transposed, padded and flattened on
// the data (row o = output channel o, columns (kh, kw, c) with c = 3 a
// zero), so that canonicalization folds its pruning and compression: only
// constants reach stc.conv.
// FORCE-LABEL: func.func @force_constant_fchw
// FORCE: %[[FLAT:.*]] = arith.constant dense<{{\[}}[1.000000e+00, 0.000000e+00, 3.000000e+00, 0.000000e+00, 2.000000e+00, 5.000000e+00, 4.000000e+00, 0.000000e+00], [-1.000000e+00, -5.000000e+00, -3.000000e+00, 0.000000e+00, 0.000000e+00, -6.000000e+00, -4.000000e+00, 0.000000e+00]]> : tensor<2x8xf32>
// FORCE: %[[P:.*]] = stc.prune %[[FLAT]] by #stc.nm<2:4> along 1 : tensor<2x8xf32>
// FORCE: stc.compress %[[P]] by #stc.nm<2:4> along 1 : tensor<2x8xf32> -> tensor<2x8xf32>, tensor<2x1xi16>
// FOLD-LABEL: func.func @force_constant_fchw
// FOLD-NOT: stc.prune
// FOLD-NOT: stc.compress
// FOLD: %[[V:.*]] = arith.constant dense<{{\[}}[1.000000e+00, 3.000000e+00, 5.000000e+00, 4.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00], [-5.000000e+00, -3.000000e+00, -6.000000e+00, -4.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00]]> : tensor<2x8xf32>
// FOLD: %[[M:.*]] = arith.constant dense<{{.*}}> : tensor<2x1xi16>
// FOLD-NOT: stc.prune
// FOLD-NOT: stc.compress
// FOLD: stc.conv %[[V]], %[[M]], %{{.*}} {filter_size = array<i64: 1, 2>, pattern = #stc.nm<2:4>}
// FOLD-LABEL: func.func @onetwo_f32
func.func @force_constant_fchw(%x: tensor<1x3x4x4xf32>) -> tensor<1x2x4x3xf32> {
  // w[f][c][0][kw]
  %w = arith.constant dense<[[[[1.0, 2.0]], [[0.0, 5.0]], [[3.0, 4.0]]],
                             [[[-1.0, 0.0]], [[-5.0, -6.0]], [[-3.0, -4.0]]]]> : tensor<2x3x1x2xf32>
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x4x3xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<1x2x4x3xf32>) -> tensor<1x2x4x3xf32>
  %y = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x3x4x4xf32>, tensor<2x3x1x2xf32>) outs(%z : tensor<1x2x4x3xf32>) -> tensor<1x2x4x3xf32>
  return %y : tensor<1x2x4x3xf32>
}

// pattern=1:2 on f32: C = 3 is padded to 4 (a multiple of M = 2).
// ONETWO-LABEL: func.func @onetwo_f32
// ONETWO: tensor.pad
// ONETWO: tensor<2x1x1x3xf32> to tensor<2x1x1x4xf32>
// ONETWO: %[[P:.*]] = stc.prune %{{.*}} by #stc.nm<1:2> along 1 : tensor<2x4xf32>
// ONETWO: %[[V:.*]], %[[M:.*]] = stc.compress %[[P]] by #stc.nm<1:2> along 1 : tensor<2x4xf32> -> tensor<2x4xf32>, tensor<2x1xi16>
// ONETWO: stc.conv %[[V]], %[[M]], %{{.*}} acc(%{{.*}} : tensor<1x4x4x2xf32>) {beta = 1.000000e+00 : f64, filter_size = array<i64: 1, 1>, pattern = #stc.nm<1:2>}
func.func @onetwo_f32(%x: tensor<1x4x4x3xf32>, %w: tensor<2x1x1x3xf32>, %z: tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32> {
  %y = linalg.conv_2d_nhwc_fhwc ins(%x, %w : tensor<1x4x4x3xf32>, tensor<2x1x1x3xf32>) outs(%z : tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  return %y : tensor<1x4x4x2xf32>
}

//===----------------------------------------------------------------------===//
// sparsity=enable
//===----------------------------------------------------------------------===//

// A constant HWCF filter whose every group of four input channels has at
// most two non-zeros (C = 6: the second group is c = 4, 5 and two padding
// zeros) is compressed as is, without pruning. The same filter with three
// non-zeros in one group stays dense, silently.
// ENABLE-LABEL: func.func @enable_constants
// ENABLE: %[[FLAT:.*]] = arith.constant dense<{{\[}}[1.000000e+00, 0.000000e+00, 2.000000e+00, 0.000000e+00, 3.000000e+00, 4.000000e+00, 0.000000e+00, 0.000000e+00]]> : tensor<1x8xf32>
// ENABLE-NOT: stc.prune
// ENABLE: %[[V:.*]], %[[M:.*]] = stc.compress %[[FLAT]] by #stc.nm<2:4> along 1 : tensor<1x8xf32> -> tensor<1x8xf32>, tensor<1x1xi16>
// ENABLE: %[[Y:.*]] = stc.conv %[[V]], %[[M]]
// ENABLE: %[[D:.*]] = linalg.conv_2d_nhwc_hwcf
// ENABLE: return %[[Y]], %[[D]]
// FORCE-LABEL: func.func @enable_constants
// FORCE-COUNT-2: stc.conv
func.func @enable_constants(%x: tensor<1x2x2x6xf32>, %z: tensor<1x2x2x1xf32>) -> (tensor<1x2x2x1xf32>, tensor<1x2x2x1xf32>) {
  %good = arith.constant dense<[[[[1.0], [0.0], [2.0], [0.0], [3.0], [4.0]]]]> : tensor<1x1x6x1xf32>
  %bad = arith.constant dense<[[[[1.0], [5.0], [2.0], [0.0], [3.0], [4.0]]]]> : tensor<1x1x6x1xf32>
  %y = linalg.conv_2d_nhwc_hwcf ins(%x, %good : tensor<1x2x2x6xf32>, tensor<1x1x6x1xf32>) outs(%z : tensor<1x2x2x1xf32>) -> tensor<1x2x2x1xf32>
  %d = linalg.conv_2d_nhwc_hwcf ins(%x, %bad : tensor<1x2x2x6xf32>, tensor<1x1x6x1xf32>) outs(%z : tensor<1x2x2x1xf32>) -> tensor<1x2x2x1xf32>
  return %y, %d : tensor<1x2x2x1xf32>, tensor<1x2x2x1xf32>
}

// enable never prunes a function argument.
// ENABLE-LABEL: func.func @enable_argument
// ENABLE-NOT: stc.
// ENABLE: linalg.conv_2d_nhwc_fhwc
func.func @enable_argument(%x: tensor<1x4x4x8xf16>, %w: tensor<4x1x1x8xf16>, %z: tensor<1x4x4x4xf16>) -> tensor<1x4x4x4xf16> {
  %y = linalg.conv_2d_nhwc_fhwc ins(%x, %w : tensor<1x4x4x8xf16>, tensor<4x1x1x8xf16>) outs(%z : tensor<1x4x4x4xf16>) -> tensor<1x4x4x4xf16>
  return %y : tensor<1x4x4x4xf16>
}
