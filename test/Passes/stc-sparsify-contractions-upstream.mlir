// Contractions with sparse encodings STC has no kernel for keep them, with a
// remark saying why, for upstream's sparsifier (stc-bufferize runs it). No
// error, and no "not the reduction dimension" message for operands that
// have no structured[2, 4] level at all.
// RUN: stc-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(stc-sparsify-contractions)' | FileCheck %s
// Under sparsity=force too: STC does not prune around a sparse operand.
// RUN: stc-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(stc-sparsify-contractions{sparsity=force})' | FileCheck %s

#enc = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j floordiv 4 : dense, j mod 4 : structured[2, 4]) }>

// The rhs of X.W reduces along its dimension 0, but the encoding groups
// along dimension 1.
// CHECK-LABEL: func.func @encoding_along_non_reduction_dim
// CHECK-SAME: tensor<32x16xf32, #sparse{{[0-9]*}}>
// CHECK: linalg.matmul
// CHECK-NOT: stc.
func.func @encoding_along_non_reduction_dim(%x: tensor<8x32xf32>, %w: tensor<32x16xf32, #enc>) -> tensor<8x16xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  // expected-remark @+1 {{stc: left to the upstream sparsifier: rhs's structured[2, 4] level runs along a dimension that is not the reduction dimension; STC's kernels take 2-D contractions (m, n, k) of f32, f16 or bf16 operands (or i8 x i8 -> i32) whose structured[2, 4] level runs along the reduction dimension}}
  %y = linalg.matmul ins(%x, %w : tensor<8x32xf32>, tensor<32x16xf32, #enc>) outs(%z : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// -----

#csr = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// CSR has no structured level: upstream's format, upstream's kernel.
// CHECK-LABEL: func.func @csr_operand
// CHECK: linalg.matmul
// CHECK-NOT: stc.
func.func @csr_operand(%a: tensor<8x32xf32, #csr>, %w: tensor<32x16xf32>) -> tensor<8x16xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  // expected-remark @+1 {{stc: left to the upstream sparsifier: lhs has a sparse encoding without a structured[2, 4] level}}
  %y = linalg.matmul ins(%a, %w : tensor<8x32xf32, #csr>, tensor<32x16xf32>) outs(%z : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// -----

#enc = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j floordiv 4 : dense, j mod 4 : structured[2, 4]) }>

// f64 has no 2:4 kernel in STC.
// CHECK-LABEL: func.func @f64_operand
// CHECK: linalg.matmul
// CHECK-NOT: stc.
func.func @f64_operand(%a: tensor<8x32xf64, #enc>, %w: tensor<32x16xf64>, %c: tensor<8x16xf64>) -> tensor<8x16xf64> {
  // expected-remark @+1 {{stc: left to the upstream sparsifier: STC's kernels take 2-D contractions (m, n, k) of f32, f16 or bf16 operands (or i8 x i8 -> i32) whose structured[2, 4] level runs along the reduction dimension}}
  %y = linalg.matmul ins(%a, %w : tensor<8x32xf64, #enc>, tensor<32x16xf64>) outs(%c : tensor<8x16xf64>) -> tensor<8x16xf64>
  return %y : tensor<8x16xf64>
}

// -----

#enc3d = #sparse_tensor.encoding<{ map = (b, i, j) -> (b : dense, i : dense, j floordiv 4 : dense, j mod 4 : structured[2, 4]) }>

// A batched contraction keeps its encoding.
// CHECK-LABEL: func.func @encoding_on_batch_matmul
// CHECK: linalg.batch_matmul
func.func @encoding_on_batch_matmul(%x: tensor<2x8x32xf32, #enc3d>, %w: tensor<2x32x16xf32>, %c: tensor<2x8x16xf32>) -> tensor<2x8x16xf32> {
  // expected-remark @+1 {{stc: left to the upstream sparsifier}}
  %y = linalg.batch_matmul ins(%x, %w : tensor<2x8x32xf32, #enc3d>, tensor<2x32x16xf32>) outs(%c : tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  return %y : tensor<2x8x16xf32>
}

// -----

#csr = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// A sparse result.
// CHECK-LABEL: func.func @sparse_result
// CHECK: linalg.matmul
// CHECK-NOT: stc.
func.func @sparse_result(%a: tensor<8x32xf32>, %w: tensor<32x16xf32>, %c: tensor<8x16xf32, #csr>) -> tensor<8x16xf32, #csr> {
  // expected-remark @+1 {{stc: left to the upstream sparsifier: its result has a sparse encoding}}
  %y = linalg.matmul ins(%a, %w : tensor<8x32xf32>, tensor<32x16xf32>) outs(%c : tensor<8x16xf32, #csr>) -> tensor<8x16xf32, #csr>
  return %y : tensor<8x16xf32, #csr>
}

// -----

#enc = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j floordiv 4 : dense, j mod 4 : structured[2, 4]) }>

// The encoded argument has a second user: STC compresses its dense view
// and the argument keeps the encoding for the other user.
// CHECK-LABEL: func.func @encoded_argument_other_use
// CHECK-SAME: (%[[A:.*]]: tensor<8x32xf32, #sparse{{[0-9]*}}>
// CHECK: %[[VIEW:.*]] = sparse_tensor.convert %[[A]] : tensor<8x32xf32, #sparse{{[0-9]*}}> to tensor<8x32xf32>
// CHECK: stc.compress %[[VIEW]]
// CHECK: stc.spmm
// CHECK: sparse_tensor.convert %[[A]]
func.func @encoded_argument_other_use(%a: tensor<8x32xf32, #enc>, %b: tensor<32x16xf32>) -> (tensor<8x16xf32>, tensor<8x32xf32>) {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  // expected-remark @+1 {{stc: lhs operand is 2:4 sparse (sparse_tensor encoding), rewritten to stc.spmm}}
  %y = linalg.matmul ins(%a, %b : tensor<8x32xf32, #enc>, tensor<32x16xf32>) outs(%z : tensor<8x16xf32>) -> tensor<8x16xf32>
  %d = sparse_tensor.convert %a : tensor<8x32xf32, #enc> to tensor<8x32xf32>
  return %y, %d : tensor<8x16xf32>, tensor<8x32xf32>
}

// -----

#enc = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j floordiv 4 : dense, j mod 4 : structured[2, 4]) }>

// A conversion nobody reads does not keep the encoding alive: the argument
// becomes dense and STC compresses it directly.
// CHECK-LABEL: func.func @dead_conversion
// CHECK-SAME: (%[[A:.*]]: tensor<8x32xf32>
// CHECK-NOT: sparse_tensor
// CHECK: stc.compress %[[A]]
func.func @dead_conversion(%a: tensor<8x32xf32, #enc>, %b: tensor<32x16xf32>) -> tensor<8x16xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %unused = sparse_tensor.convert %a : tensor<8x32xf32, #enc> to tensor<8x32xf32>
  // expected-remark @+1 {{stc: lhs operand is 2:4 sparse (sparse_tensor encoding), rewritten to stc.spmm}}
  %y = linalg.matmul ins(%a, %b : tensor<8x32xf32, #enc>, tensor<32x16xf32>) outs(%z : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// -----

#enc = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j floordiv 4 : dense, j mod 4 : structured[2, 4]) }>

// A conversion used by the contraction and by something else stays for the
// other user; the contraction compresses the conversion's dense source.
// CHECK-LABEL: func.func @conversion_other_use
// CHECK-SAME: (%[[D:.*]]: tensor<8x32xf32>
// CHECK: %[[S:.*]] = sparse_tensor.convert %[[D]]
// CHECK: stc.compress %[[D]]
// CHECK: return {{.*}}, %[[S]]
func.func @conversion_other_use(%d: tensor<8x32xf32>, %b: tensor<32x16xf32>) -> (tensor<8x16xf32>, tensor<8x32xf32, #enc>) {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %a = sparse_tensor.convert %d : tensor<8x32xf32> to tensor<8x32xf32, #enc>
  // expected-remark @+1 {{stc: lhs operand is 2:4 sparse (sparse_tensor encoding), rewritten to stc.spmm}}
  %y = linalg.matmul ins(%a, %b : tensor<8x32xf32, #enc>, tensor<32x16xf32>) outs(%z : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %y, %a : tensor<8x16xf32>, tensor<8x32xf32, #enc>
}

// -----

#rows24 = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j floordiv 4 : dense, j mod 4 : structured[2, 4]) }>
#cols24 = #sparse_tensor.encoding<{ map = (i, j) -> (j : dense, i floordiv 4 : dense, i mod 4 : structured[2, 4]) }>

// Both operands 2:4 along the reduction: STC compresses one (the rhs, the
// W of X.W) and reads the other through its dense view.
// CHECK-LABEL: func.func @both_operands_2to4
// CHECK-SAME: (%[[A:.*]]: tensor<8x32xf32, #sparse{{[0-9]*}}>, %[[W:.*]]: tensor<32x16xf32>)
// CHECK-DAG: %[[D:.*]] = sparse_tensor.convert %[[A]] : tensor<8x32xf32, #sparse{{[0-9]*}}> to tensor<8x32xf32>
// CHECK-DAG: %[[V:.*]], %[[M:.*]] = stc.compress %[[W]] by #stc.nm<2:4> along 0
// CHECK: stc.spmm %[[V]], %[[M]], %[[D]]
func.func @both_operands_2to4(%a: tensor<8x32xf32, #rows24>, %w: tensor<32x16xf32, #cols24>) -> tensor<8x16xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  // expected-remark @+1 {{stc: rhs operand is 2:4 sparse (sparse_tensor encoding), rewritten to stc.spmm}}
  %y = linalg.matmul ins(%a, %w : tensor<8x32xf32, #rows24>, tensor<32x16xf32, #cols24>) outs(%z : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}
