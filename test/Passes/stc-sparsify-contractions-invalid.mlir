// Errors of stc-sparsify-contractions: bad pass options (checked on stderr,
// they are reported once for the whole module) and sparse encodings the
// pass cannot honour (checked with -verify-diagnostics).
// RUN: stc-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(stc-sparsify-contractions)'
// RUN: not stc-opt %s -split-input-file --pass-pipeline='builtin.module(stc-sparsify-contractions{sparsity=sometimes})' 2>&1 | FileCheck %s --check-prefix=MODE
// RUN: not stc-opt %s -split-input-file --pass-pipeline='builtin.module(stc-sparsify-contractions{pattern=4:8})' 2>&1 | FileCheck %s --check-prefix=PATTERN

// RUN: not stc-opt %s -split-input-file --pass-pipeline='builtin.module(stc-sparsify-contractions{prune-method=random})' 2>&1 | FileCheck %s --check-prefix=METHOD
// RUN: not stc-opt %s -split-input-file --pass-pipeline='builtin.module(stc-sparsify-contractions{prune-method=tile pattern=1:2})' 2>&1 | FileCheck %s --check-prefix=TILE

// MODE: error: unknown sparsity mode 'sometimes' (expected explicit, enable or force)
// PATTERN: error: unsupported pattern '4:8' (expected 2:4 or 1:2)
// METHOD: error: unknown prune method 'random' (expected strip or tile)
// TILE: error: prune method tile requires the 2:4 pattern, got 1:2

#enc = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j floordiv 4 : dense, j mod 4 : structured[2, 4]) }>

// The rhs of X.W reduces along its dimension 0, but the encoding groups
// along dimension 1.
func.func @encoding_along_non_reduction_dim(%x: tensor<8x32xf32>, %w: tensor<32x16xf32, #enc>) -> tensor<8x16xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  // expected-error @+1 {{stc: structured[2, 4] encoding runs along a dimension that is not the reduction dimension of this contraction}}
  %y = linalg.matmul ins(%x, %w : tensor<8x32xf32>, tensor<32x16xf32, #enc>) outs(%z : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// -----

#enc3d = #sparse_tensor.encoding<{ map = (b, i, j) -> (b : dense, i : dense, j floordiv 4 : dense, j mod 4 : structured[2, 4]) }>

// A batched contraction cannot use the encoding, and it must not be dropped
// silently.
func.func @encoding_on_batch_matmul(%x: tensor<2x8x32xf32, #enc3d>, %w: tensor<2x32x16xf32>, %c: tensor<2x8x16xf32>) -> tensor<2x8x16xf32> {
  // expected-error @+1 {{stc: cannot use the sparse encoding of this operand: only 2-D contractions (m, n, k) with f32/f16/bf16 operands are supported}}
  %y = linalg.batch_matmul ins(%x, %w : tensor<2x8x32xf32, #enc3d>, tensor<2x32x16xf32>) outs(%c : tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  return %y : tensor<2x8x16xf32>
}

// -----

#enc = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j floordiv 4 : dense, j mod 4 : structured[2, 4]) }>

// The encoded argument has a second user that STC cannot lower.
func.func @encoded_argument_other_use(%a: tensor<8x32xf32, #enc>, %b: tensor<32x16xf32>) -> (tensor<8x16xf32>, tensor<8x32xf32>) {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  // expected-remark @+1 {{stc: lhs operand is 2:4 sparse (sparse_tensor encoding), rewritten to stc.spmm}}
  %y = linalg.matmul ins(%a, %b : tensor<8x32xf32, #enc>, tensor<32x16xf32>) outs(%z : tensor<8x16xf32>) -> tensor<8x16xf32>
  // expected-error @+1 {{stc: value with a structured[2, 4] encoding is used by an op STC cannot lower}}
  %d = sparse_tensor.convert %a : tensor<8x32xf32, #enc> to tensor<8x32xf32>
  return %y, %d : tensor<8x16xf32>, tensor<8x32xf32>
}
