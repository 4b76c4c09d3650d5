// sparsity=enable with pattern=1:2 takes only f32 constants (1:2 is the
// tf32 form): an f16 constant that happens to keep one of every two along
// K stays dense instead of reaching stc.compress, which rejects 1:2 for
// f16.
// RUN: stc-opt %s --stc-sparsify-contractions="sparsity=enable pattern=1:2" | FileCheck %s

// CHECK-LABEL: func.func @f16_stays_dense
// CHECK-NOT: stc.
// CHECK: linalg.matmul
func.func @f16_stays_dense(%x: tensor<4x8xf16>) -> tensor<4x2xf16> {
  %w = arith.constant dense<[[1.0, 0.0], [0.0, 2.0], [3.0, 0.0], [0.0, 1.0], [1.0, 0.0], [0.0, 2.0], [3.0, 0.0], [0.0, 1.0]]> : tensor<8x2xf16>
  %z = arith.constant dense<0.0> : tensor<4x2xf16>
  %y = linalg.matmul ins(%x, %w : tensor<4x8xf16>, tensor<8x2xf16>) outs(%z : tensor<4x2xf16>) -> tensor<4x2xf16>
  return %y : tensor<4x2xf16>
}

// CHECK-LABEL: func.func @f32_one_two
// CHECK: stc.compress {{.*}} by #stc.nm<1:2> along 0
// CHECK: stc.spmm
// CHECK-NOT: linalg.matmul
func.func @f32_one_two(%x: tensor<4x8xf32>) -> tensor<4x2xf32> {
  %w = arith.constant dense<[[1.0, 0.0], [0.0, 2.0], [3.0, 0.0], [0.0, 1.0], [1.0, 0.0], [0.0, 2.0], [3.0, 0.0], [0.0, 1.0]]> : tensor<8x2xf32>
  %z = arith.constant dense<0.0> : tensor<4x2xf32>
  %y = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x2xf32>) outs(%z : tensor<4x2xf32>) -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}
