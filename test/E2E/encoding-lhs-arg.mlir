// The upstream sparse_tensor encoding with structured[2, 4] on a function
// argument marks the lhs (M x K, reduction along j) as 2:4 without any
// option: the argument is compressed at run time (no pruning) and the
// result is the exact product. The lhs data is drawn 2:4 with every legal
// nibble, groups with a single non-zero and empty groups (two_four_mask in
// test/lib/e2e_cases.py). @main has dynamic shapes and accumulates into
// the matmul's init argument (beta = 1); static f32, f16 and bf16 inputs
// with an f32 result; ragged K pads the last group. (encoding-dim.mlir
// sizes the result with tensor.dim of the encoded argument.)
// REQUIRES: numpy
// RUN: stc-compile %s --emit=stc -o - | FileCheck %s
// RUN: %e2e --mlir %s --case enc_lhs_acc_f32_3_17_33
// RUN: %e2e --mlir %s --case enc_lhs_acc_f32_130_33_1
// RUN: %e2e --mlir %s --case enc_lhs_f32_17_100_3 -- --entry=f32_lhs
// RUN: %e2e --mlir %s --case enc_lhs_f16_17_48_24 -- --entry=f16_lhs
// RUN: %e2e --mlir %s --case enc_lhs_bf16_17_48_24 -- --entry=bf16_lhs

// CHECK-LABEL: func.func @main
// CHECK-NOT: stc.prune
// CHECK: stc.compress {{.*}} by #stc.nm<2:4> along 1
// CHECK: stc.spmm {{.*}}sparse = #stc.operand<lhs>
// CHECK-NOT: linalg.matmul
// CHECK-LABEL: func.func @f32_lhs
// CHECK-NOT: stc.prune
// CHECK: stc.compress {{.*}} by #stc.nm<2:4> along 1 : tensor<17x100xf32> -> tensor<17x56xf32>, tensor<17x7xi16>
// CHECK: stc.spmm {{.*}}sparse = #stc.operand<lhs>
#enc = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j floordiv 4 : dense, j mod 4 : structured[2, 4]) }>
func.func @main(%a: tensor<?x?xf32, #enc>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf32, #enc>, tensor<?x?xf32>)
                     outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

func.func @f32_lhs(%a: tensor<17x100xf32, #enc>, %b: tensor<100x3xf32>) -> tensor<17x3xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<17x3xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<17x3xf32>) -> tensor<17x3xf32>
  %r = linalg.matmul ins(%a, %b : tensor<17x100xf32, #enc>, tensor<100x3xf32>)
                     outs(%z : tensor<17x3xf32>) -> tensor<17x3xf32>
  return %r : tensor<17x3xf32>
}

func.func @f16_lhs(%a: tensor<17x48xf16, #enc>, %b: tensor<48x24xf16>) -> tensor<17x24xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<17x24xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<17x24xf32>) -> tensor<17x24xf32>
  %r = linalg.matmul ins(%a, %b : tensor<17x48xf16, #enc>, tensor<48x24xf16>)
                     outs(%z : tensor<17x24xf32>) -> tensor<17x24xf32>
  return %r : tensor<17x24xf32>
}

func.func @bf16_lhs(%a: tensor<17x48xbf16, #enc>, %b: tensor<48x24xbf16>) -> tensor<17x24xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<17x24xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<17x24xf32>) -> tensor<17x24xf32>
  %r = linalg.matmul ins(%a, %b : tensor<17x48xbf16, #enc>, tensor<48x24xbf16>)
                     outs(%z : tensor<17x24xf32>) -> tensor<17x24xf32>
  return %r : tensor<17x24xf32>
}
