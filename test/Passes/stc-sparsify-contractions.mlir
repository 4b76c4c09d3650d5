// stc-sparsify-contractions: which contractions become stc.compress +
// stc.spmm, which operand is compressed (in its stored orientation, along
// the right dimension), how the dense operand and the init are passed, and
// what each sparsity mode (explicit / enable / force) selects. cse merges the
// pass's re-created stc.prune with the original and drops dead fills.
// RUN: stc-opt %s -verify-diagnostics --pass-pipeline='builtin.module(stc-sparsify-contractions,cse)' | FileCheck %s
// RUN: stc-opt %s --pass-pipeline='builtin.module(stc-sparsify-contractions{sparsity=enable},cse)' 2>/dev/null | FileCheck %s --check-prefix=ENABLE
// RUN: stc-opt %s --pass-pipeline='builtin.module(stc-sparsify-contractions{sparsity=force},cse)' 2>/dev/null | FileCheck %s --check-prefix=FORCE
// RUN: stc-opt %s --pass-pipeline='builtin.module(stc-sparsify-contractions{sparsity=force pattern=1:2},cse)' 2>/dev/null | FileCheck %s --check-prefix=ONETWO

//===----------------------------------------------------------------------===//
// Explicit sparsity: stc.prune on an operand
//===----------------------------------------------------------------------===//

// X . prune(W): W (K x N) is compressed along 0 into N rows; X is the dense
// M x K operand, not transposed; a zero-filled init gives beta = 0, no acc.
// CHECK-LABEL: func.func @prune_rhs
// CHECK-SAME: (%[[X:.*]]: tensor<8x32xf32>, %[[W:.*]]: tensor<32x16xf32>)
// CHECK: %[[P:.*]] = stc.prune %[[W]] by #stc.nm<2:4> along 0 : tensor<32x16xf32>
// CHECK: %[[V:.*]], %[[M:.*]] = stc.compress %[[P]] by #stc.nm<2:4> along 0 : tensor<32x16xf32> -> tensor<16x16xf32>, tensor<16x2xi16>
// CHECK: %[[Y:.*]] = stc.spmm %[[V]], %[[M]], %[[X]] {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>} : tensor<16x16xf32>, tensor<16x2xi16>, tensor<8x32xf32> -> tensor<8x16xf32>
// CHECK-NOT: linalg.matmul
// CHECK: return %[[Y]]
func.func @prune_rhs(%x: tensor<8x32xf32>, %w: tensor<32x16xf32>) -> tensor<8x16xf32> {
  %p = stc.prune %w by #stc.nm<2:4> along 0 : tensor<32x16xf32>
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  // expected-remark @+1 {{stc: rhs operand is 2:4 sparse (stc.prune), rewritten to stc.spmm}}
  %y = linalg.matmul ins(%x, %p : tensor<8x32xf32>, tensor<32x16xf32>) outs(%z : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// prune(A) . B with f16 operands and an f32 result: A (M x K) is compressed
// along 1 into M rows; B is the dense K x N operand.
// CHECK-LABEL: func.func @prune_lhs
// CHECK-SAME: (%[[A:.*]]: tensor<8x32xf16>, %[[B:.*]]: tensor<32x16xf16>)
// CHECK: %[[P:.*]] = stc.prune %[[A]] by #stc.nm<2:4> along 1 : tensor<8x32xf16>
// CHECK: %[[V:.*]], %[[M:.*]] = stc.compress %[[P]] by #stc.nm<2:4> along 1 : tensor<8x32xf16> -> tensor<8x16xf16>, tensor<8x2xi16>
// CHECK: %[[Y:.*]] = stc.spmm %[[V]], %[[M]], %[[B]] {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>} : tensor<8x16xf16>, tensor<8x2xi16>, tensor<32x16xf16> -> tensor<8x16xf32>
// CHECK: return %[[Y]]
func.func @prune_lhs(%a: tensor<8x32xf16>, %b: tensor<32x16xf16>) -> tensor<8x16xf32> {
  %p = stc.prune %a by #stc.nm<2:4> along 1 : tensor<8x32xf16>
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  // expected-remark @+1 {{stc: lhs operand is 2:4 sparse (stc.prune)}}
  %y = linalg.matmul ins(%p, %b : tensor<8x32xf16>, tensor<32x16xf16>) outs(%z : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// A prune along the non-reduction dimension does not make an operand sparse.
// CHECK-LABEL: func.func @prune_wrong_dim
// CHECK-NOT: stc.spmm
// CHECK: linalg.matmul
func.func @prune_wrong_dim(%x: tensor<8x32xf32>, %w: tensor<32x16xf32>) -> tensor<8x16xf32> {
  %p = stc.prune %w by #stc.nm<2:4> along 1 : tensor<32x16xf32>
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %y = linalg.matmul ins(%x, %p : tensor<8x32xf32>, tensor<32x16xf32>) outs(%z : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// X . W^T written with indexing_maps: W is stored N x K, so it is pruned and
// compressed along 1; X stays M x K (not transposed).
// CHECK-LABEL: func.func @matmul_transpose_b
// CHECK-SAME: (%[[X:.*]]: tensor<8x32xf32>, %[[W:.*]]: tensor<16x32xf32>)
// CHECK: %[[P:.*]] = stc.prune %[[W]] by #stc.nm<2:4> along 1 : tensor<16x32xf32>
// CHECK: %[[V:.*]], %[[M:.*]] = stc.compress %[[P]] by #stc.nm<2:4> along 1 : tensor<16x32xf32> -> tensor<16x16xf32>, tensor<16x2xi16>
// CHECK: %[[Y:.*]] = stc.spmm %[[V]], %[[M]], %[[X]] {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>} : tensor<16x16xf32>, tensor<16x2xi16>, tensor<8x32xf32> -> tensor<8x16xf32>
// CHECK: return %[[Y]]
func.func @matmul_transpose_b(%x: tensor<8x32xf32>, %w: tensor<16x32xf32>) -> tensor<8x16xf32> {
  %p = stc.prune %w by #stc.nm<2:4> along 1 : tensor<16x32xf32>
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  // expected-remark @+1 {{rewritten to stc.spmm}}
  %y = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %p : tensor<8x32xf32>, tensor<16x32xf32>) outs(%z : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// X^T . W: the dense operand is given K x M, so dense_transposed = true.
// CHECK-LABEL: func.func @matmul_transpose_a
// CHECK-SAME: (%[[XT:.*]]: tensor<32x8xf32>, %[[W:.*]]: tensor<32x16xf32>)
// CHECK: %[[P:.*]] = stc.prune %[[W]] by #stc.nm<2:4> along 0
// CHECK: %[[V:.*]], %[[M:.*]] = stc.compress %[[P]] by #stc.nm<2:4> along 0 : tensor<32x16xf32> -> tensor<16x16xf32>, tensor<16x2xi16>
// CHECK: %[[Y:.*]] = stc.spmm %[[V]], %[[M]], %[[XT]] {dense_transposed = true, pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>} : tensor<16x16xf32>, tensor<16x2xi16>, tensor<32x8xf32> -> tensor<8x16xf32>
// CHECK: return %[[Y]]
func.func @matmul_transpose_a(%xt: tensor<32x8xf32>, %w: tensor<32x16xf32>) -> tensor<8x16xf32> {
  %p = stc.prune %w by #stc.nm<2:4> along 0 : tensor<32x16xf32>
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  // expected-remark @+1 {{rewritten to stc.spmm}}
  %y = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%xt, %p : tensor<32x8xf32>, tensor<32x16xf32>) outs(%z : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// A sparse lhs with the dense rhs given N x K: dense_transposed = true.
// CHECK-LABEL: func.func @prune_lhs_transpose_b
// CHECK-SAME: (%[[A:.*]]: tensor<8x32xf32>, %[[BT:.*]]: tensor<16x32xf32>)
// CHECK: %[[V:.*]], %[[M:.*]] = stc.compress %{{.*}} by #stc.nm<2:4> along 1 : tensor<8x32xf32> -> tensor<8x16xf32>, tensor<8x2xi16>
// CHECK: stc.spmm %[[V]], %[[M]], %[[BT]] {dense_transposed = true, pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>} : tensor<8x16xf32>, tensor<8x2xi16>, tensor<16x32xf32> -> tensor<8x16xf32>
func.func @prune_lhs_transpose_b(%a: tensor<8x32xf32>, %bt: tensor<16x32xf32>) -> tensor<8x16xf32> {
  %p = stc.prune %a by #stc.nm<2:4> along 1 : tensor<8x32xf32>
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  // expected-remark @+1 {{stc: lhs operand is 2:4 sparse (stc.prune)}}
  %y = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%p, %bt : tensor<8x32xf32>, tensor<16x32xf32>) outs(%z : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// The weight reaches the matmul through linalg.transpose: it is compressed
// in its stored N x K orientation, along 1 (the flipped reduction dim).
// CHECK-LABEL: func.func @weight_behind_transpose
// CHECK-SAME: (%[[X:.*]]: tensor<8x32xf32>, %[[W:.*]]: tensor<16x32xf32>)
// CHECK: %[[V:.*]], %[[M:.*]] = stc.compress %[[P:.*]] by #stc.nm<2:4> along 1 : tensor<16x32xf32> -> tensor<16x16xf32>, tensor<16x2xi16>
// CHECK: %[[Y:.*]] = stc.spmm %[[V]], %[[M]], %[[X]] {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>} : tensor<16x16xf32>, tensor<16x2xi16>, tensor<8x32xf32> -> tensor<8x16xf32>
// CHECK: return %[[Y]]
func.func @weight_behind_transpose(%x: tensor<8x32xf32>, %w: tensor<16x32xf32>) -> tensor<8x16xf32> {
  %p = stc.prune %w by #stc.nm<2:4> along 1 : tensor<16x32xf32>
  %te = tensor.empty() : tensor<32x16xf32>
  %t = linalg.transpose ins(%p : tensor<16x32xf32>) outs(%te : tensor<32x16xf32>) permutation = [1, 0]
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  // expected-remark @+1 {{rewritten to stc.spmm}}
  %y = linalg.matmul ins(%x, %t : tensor<8x32xf32>, tensor<32x16xf32>) outs(%z : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// The same through a transposing linalg.generic (what torch-mlir emits for
// nn.Linear's weight.t()), with the prune *behind* the transpose.
// CHECK-LABEL: func.func @weight_behind_generic_transpose
// CHECK-SAME: (%[[X:.*]]: tensor<8x32xf32>, %[[W:.*]]: tensor<16x32xf32>)
// CHECK: %[[P:.*]] = stc.prune %[[W]] by #stc.nm<2:4> along 1 : tensor<16x32xf32>
// CHECK: %[[V:.*]], %[[M:.*]] = stc.compress %[[P]] by #stc.nm<2:4> along 1 : tensor<16x32xf32> -> tensor<16x16xf32>, tensor<16x2xi16>
// CHECK: stc.spmm %[[V]], %[[M]], %[[X]] {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>}
func.func @weight_behind_generic_transpose(%x: tensor<8x32xf32>, %w: tensor<16x32xf32>) -> tensor<8x16xf32> {
  %te = tensor.empty() : tensor<32x16xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%w : tensor<16x32xf32>) outs(%te : tensor<32x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<32x16xf32>
  %p = stc.prune %t by #stc.nm<2:4> along 0 : tensor<32x16xf32>
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  // expected-remark @+1 {{rewritten to stc.spmm}}
  %y = linalg.matmul ins(%x, %p : tensor<8x32xf32>, tensor<32x16xf32>) outs(%z : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// The torch-mlir form of a contraction: linalg.generic with
// (parallel, parallel, reduction) and a mulf/addf body.
// CHECK-LABEL: func.func @generic_contraction
// CHECK-SAME: (%[[X:.*]]: tensor<8x32xf32>, %[[W:.*]]: tensor<32x16xf32>)
// CHECK: %[[V:.*]], %[[M:.*]] = stc.compress %{{.*}} by #stc.nm<2:4> along 0 : tensor<32x16xf32> -> tensor<16x16xf32>, tensor<16x2xi16>
// CHECK: %[[Y:.*]] = stc.spmm %[[V]], %[[M]], %[[X]] {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>}
// CHECK-NOT: linalg.generic
// CHECK: return %[[Y]]
func.func @generic_contraction(%x: tensor<8x32xf32>, %w: tensor<32x16xf32>) -> tensor<8x16xf32> {
  %p = stc.prune %w by #stc.nm<2:4> along 0 : tensor<32x16xf32>
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  // expected-remark @+1 {{rewritten to stc.spmm}}
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %p : tensor<8x32xf32>, tensor<32x16xf32>) outs(%z : tensor<8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// An init that is not a zero fill is accumulated: acc operand, beta = 1.
// CHECK-LABEL: func.func @accumulate_into_init
// CHECK-SAME: (%[[X:.*]]: tensor<8x32xf32>, %[[W:.*]]: tensor<32x16xf32>, %[[C:.*]]: tensor<8x16xf32>)
// CHECK: %[[V:.*]], %[[M:.*]] = stc.compress
// CHECK: %[[Y:.*]] = stc.spmm %[[V]], %[[M]], %[[X]] acc(%[[C]] : tensor<8x16xf32>) {beta = 1.000000e+00 : f64, pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>}
// CHECK: return %[[Y]]
func.func @accumulate_into_init(%x: tensor<8x32xf32>, %w: tensor<32x16xf32>, %c: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %p = stc.prune %w by #stc.nm<2:4> along 0 : tensor<32x16xf32>
  // expected-remark @+1 {{rewritten to stc.spmm}}
  %y = linalg.matmul ins(%x, %p : tensor<8x32xf32>, tensor<32x16xf32>) outs(%c : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// A fill with a non-zero value is accumulated too.
// CHECK-LABEL: func.func @accumulate_into_nonzero_fill
// CHECK: %[[F:.*]] = linalg.fill
// CHECK: stc.spmm {{.*}} acc(%[[F]] : tensor<8x16xf32>) {beta = 1.000000e+00 : f64,
func.func @accumulate_into_nonzero_fill(%x: tensor<8x32xf32>, %w: tensor<32x16xf32>) -> tensor<8x16xf32> {
  %p = stc.prune %w by #stc.nm<2:4> along 0 : tensor<32x16xf32>
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %f = linalg.fill ins(%one : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  // expected-remark @+1 {{rewritten to stc.spmm}}
  %y = linalg.matmul ins(%x, %p : tensor<8x32xf32>, tensor<32x16xf32>) outs(%f : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// The upstream structured[2, 4] encoding on the lhs argument (along j, the
// reduction dimension): the argument is compressed as is (no prune) and the
// function signature loses the encoding.
// CHECK-LABEL: func.func @encoded_lhs_argument
// CHECK-SAME: (%[[A:.*]]: tensor<8x32xf32>, %[[B:.*]]: tensor<32x16xf32>) -> tensor<8x16xf32>
// CHECK-NOT: sparse_tensor
// CHECK-NOT: stc.prune
// CHECK: %[[V:.*]], %[[M:.*]] = stc.compress %[[A]] by #stc.nm<2:4> along 1 : tensor<8x32xf32> -> tensor<8x16xf32>, tensor<8x2xi16>
// CHECK: %[[Y:.*]] = stc.spmm %[[V]], %[[M]], %[[B]] {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>}
// CHECK: return %[[Y]]
#enc = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j floordiv 4 : dense, j mod 4 : structured[2, 4]) }>
func.func @encoded_lhs_argument(%a: tensor<8x32xf32, #enc>, %b: tensor<32x16xf32>) -> tensor<8x16xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  // expected-remark @+1 {{stc: lhs operand is 2:4 sparse (sparse_tensor encoding), rewritten to stc.spmm}}
  %y = linalg.matmul ins(%a, %b : tensor<8x32xf32, #enc>, tensor<32x16xf32>) outs(%z : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// batch_matmul: left alone unless the sparsity option makes an operand
// sparse; under force it is split into one 2-D product per batch element,
// each pruning its slice of the run-time weight.
// CHECK-LABEL: func.func @batch_matmul_split_under_force
// CHECK-NOT: stc.
// CHECK: linalg.batch_matmul
// ENABLE-LABEL: func.func @batch_matmul_split_under_force
// ENABLE-NOT: stc.
// ENABLE: linalg.batch_matmul
// FORCE-LABEL: func.func @batch_matmul_split_under_force
// FORCE-NOT: linalg.batch_matmul
// FORCE: stc.spmm
// FORCE: tensor.insert_slice
// FORCE: stc.spmm
// FORCE: %[[LAST:.*]] = tensor.insert_slice
// FORCE: return %[[LAST]]
func.func @batch_matmul_split_under_force(%x: tensor<2x8x32xf32>, %w: tensor<2x32x16xf32>, %c: tensor<2x8x16xf32>) -> tensor<2x8x16xf32> {
  %y = linalg.batch_matmul ins(%x, %w : tensor<2x8x32xf32>, tensor<2x32x16xf32>) outs(%c : tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  return %y : tensor<2x8x16xf32>
}

//===----------------------------------------------------------------------===//
// sparsity=enable / force on constants and arguments
//===----------------------------------------------------------------------===//

// The constant weight is 2:4 along K (dimension 0): enable compresses it
// without pruning; force prunes (a no-op here) then compresses; explicit
// leaves the matmul alone.
// CHECK-LABEL: func.func @constant_two_four
// CHECK-NOT: stc.
// CHECK: linalg.matmul
// ENABLE-LABEL: func.func @constant_two_four
// ENABLE-SAME: (%[[X:.*]]: tensor<2x4xf32>)
// ENABLE: %[[W:.*]] = arith.constant dense<{{\[}}[1.000000e+00, 0.000000e+00], [0.000000e+00, 2.000000e+00], [3.000000e+00, 0.000000e+00], [0.000000e+00, 4.000000e+00]]> : tensor<4x2xf32>
// ENABLE-NOT: stc.prune
// ENABLE: %[[V:.*]], %[[M:.*]] = stc.compress %[[W]] by #stc.nm<2:4> along 0 : tensor<4x2xf32> -> tensor<2x8xf32>, tensor<2x1xi16>
// ENABLE: %[[Y:.*]] = stc.spmm %[[V]], %[[M]], %[[X]] {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>}
// ENABLE: return %[[Y]]
// FORCE-LABEL: func.func @constant_two_four
// FORCE: %[[W:.*]] = arith.constant
// FORCE: %[[P:.*]] = stc.prune %[[W]] by #stc.nm<2:4> along 0 : tensor<4x2xf32>
// FORCE: stc.compress %[[P]] by #stc.nm<2:4> along 0
// FORCE: stc.spmm {{.*}}sparse = #stc.operand<rhs>
func.func @constant_two_four(%x: tensor<2x4xf32>) -> tensor<2x2xf32> {
  %w = arith.constant dense<[[1.0, 0.0], [0.0, 2.0], [3.0, 0.0], [0.0, 4.0]]> : tensor<4x2xf32>
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x2xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %y = linalg.matmul ins(%x, %w : tensor<2x4xf32>, tensor<4x2xf32>) outs(%z : tensor<2x2xf32>) -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

// Column 0 of the weight has three non-zeros: enable leaves it alone, force
// prunes it.
// CHECK-LABEL: func.func @constant_not_two_four
// CHECK-NOT: stc.
// CHECK: linalg.matmul
// ENABLE-LABEL: func.func @constant_not_two_four
// ENABLE-NOT: stc.
// ENABLE: linalg.matmul
// FORCE-LABEL: func.func @constant_not_two_four
// FORCE-SAME: (%[[X:.*]]: tensor<2x4xf32>)
// FORCE: %[[W:.*]] = arith.constant
// FORCE: %[[P:.*]] = stc.prune %[[W]] by #stc.nm<2:4> along 0 : tensor<4x2xf32>
// FORCE: %[[V:.*]], %[[M:.*]] = stc.compress %[[P]] by #stc.nm<2:4> along 0 : tensor<4x2xf32> -> tensor<2x8xf32>, tensor<2x1xi16>
// FORCE: stc.spmm %[[V]], %[[M]], %[[X]] {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>}
// FORCE-NOT: linalg.matmul
func.func @constant_not_two_four(%x: tensor<2x4xf32>) -> tensor<2x2xf32> {
  %w = arith.constant dense<[[1.0, 0.0], [5.0, 2.0], [3.0, 0.0], [0.0, 4.0]]> : tensor<4x2xf32>
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x2xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %y = linalg.matmul ins(%x, %w : tensor<2x4xf32>, tensor<4x2xf32>) outs(%z : tensor<2x2xf32>) -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

// force picks the constant operand even when it is the lhs.
// FORCE-LABEL: func.func @force_constant_lhs
// FORCE-SAME: (%[[X:.*]]: tensor<4x2xf32>)
// FORCE: %[[W:.*]] = arith.constant
// FORCE: %[[P:.*]] = stc.prune %[[W]] by #stc.nm<2:4> along 1 : tensor<2x4xf32>
// FORCE: %[[V:.*]], %[[M:.*]] = stc.compress %[[P]] by #stc.nm<2:4> along 1 : tensor<2x4xf32> -> tensor<2x8xf32>, tensor<2x1xi16>
// FORCE: stc.spmm %[[V]], %[[M]], %[[X]] {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>}
func.func @force_constant_lhs(%x: tensor<4x2xf32>) -> tensor<2x2xf32> {
  %w = arith.constant dense<[[1.0, 5.0, 3.0, 0.0], [0.0, 2.0, 0.0, 4.0]]> : tensor<2x4xf32>
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x2xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %y = linalg.matmul ins(%w, %x : tensor<2x4xf32>, tensor<4x2xf32>) outs(%z : tensor<2x2xf32>) -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

// No constant operand: force prunes the rhs (the W of X.W) at run time;
// enable does nothing.
// ENABLE-LABEL: func.func @force_no_constant
// ENABLE-NOT: stc.
// ENABLE: linalg.matmul
// FORCE-LABEL: func.func @force_no_constant
// FORCE-SAME: (%[[X:.*]]: tensor<2x4xf32>, %[[W:.*]]: tensor<4x2xf32>)
// FORCE: %[[P:.*]] = stc.prune %[[W]] by #stc.nm<2:4> along 0 : tensor<4x2xf32>
// FORCE: %[[V:.*]], %[[M:.*]] = stc.compress %[[P]]
// FORCE: stc.spmm %[[V]], %[[M]], %[[X]] {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>}
func.func @force_no_constant(%x: tensor<2x4xf32>, %w: tensor<4x2xf32>) -> tensor<2x2xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x2xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %y = linalg.matmul ins(%x, %w : tensor<2x4xf32>, tensor<4x2xf32>) outs(%z : tensor<2x2xf32>) -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

// Both operands constant: force prunes the rhs; the lhs constant is the
// dense operand.
// FORCE-LABEL: func.func @force_both_constant
// FORCE-DAG: %[[X:.*]] = arith.constant dense<1.000000e+00> : tensor<2x4xf32>
// FORCE-DAG: %[[W:.*]] = arith.constant dense<2.000000e+00> : tensor<4x2xf32>
// FORCE: %[[P:.*]] = stc.prune %[[W]] by #stc.nm<2:4> along 0 : tensor<4x2xf32>
// FORCE: %[[V:.*]], %[[M:.*]] = stc.compress %[[P]]
// FORCE: stc.spmm %[[V]], %[[M]], %[[X]] {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>}
func.func @force_both_constant() -> tensor<2x2xf32> {
  %x = arith.constant dense<1.0> : tensor<2x4xf32>
  %w = arith.constant dense<2.0> : tensor<4x2xf32>
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x2xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %y = linalg.matmul ins(%x, %w : tensor<2x4xf32>, tensor<4x2xf32>) outs(%z : tensor<2x2xf32>) -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

// pattern=1:2 prunes f32 weights 1:2: the i16 word covers 8 columns, so K = 8
// gives 4 values and 1 word per row; f16 weights are not eligible for 1:2.
// ONETWO-LABEL: func.func @force_one_two
// ONETWO-SAME: (%[[X:.*]]: tensor<2x8xf32>, %[[W:.*]]: tensor<8x4xf32>, %[[XH:.*]]: tensor<2x8xf16>, %[[WH:.*]]: tensor<8x4xf16>)
// ONETWO: %[[P:.*]] = stc.prune %[[W]] by #stc.nm<1:2> along 0 : tensor<8x4xf32>
// ONETWO: %[[V:.*]], %[[M:.*]] = stc.compress %[[P]] by #stc.nm<1:2> along 0 : tensor<8x4xf32> -> tensor<4x4xf32>, tensor<4x1xi16>
// ONETWO: stc.spmm %[[V]], %[[M]], %[[X]] {pattern = #stc.nm<1:2>, sparse = #stc.operand<rhs>}
// ONETWO-NOT: stc.
// ONETWO: linalg.matmul ins(%[[XH]], %[[WH]]
func.func @force_one_two(%x: tensor<2x8xf32>, %w: tensor<8x4xf32>, %xh: tensor<2x8xf16>, %wh: tensor<8x4xf16>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x4xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<2x4xf32>) -> tensor<2x4xf32>
  %y = linalg.matmul ins(%x, %w : tensor<2x8xf32>, tensor<8x4xf32>) outs(%z : tensor<2x4xf32>) -> tensor<2x4xf32>
  %yh = linalg.matmul ins(%xh, %wh : tensor<2x8xf16>, tensor<8x4xf16>) outs(%z : tensor<2x4xf32>) -> tensor<2x4xf32>
  return %y, %yh : tensor<2x4xf32>, tensor<2x4xf32>
}
