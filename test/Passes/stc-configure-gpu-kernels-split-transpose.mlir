// stc-configure-gpu-kernels, for a dense product the tensor-core kernel
// takes: an operand transpose that moves its input's innermost dimension to
// the second-to-last place (attention's K^T, [B, S, H, D] -> [B, H, D, S],
// collapsed to [B*H, D, S]) becomes a transpose that keeps the innermost
// dimension (a copy of whole rows, vectorized by
// stc-lower-elementwise-to-gpu) and a swap of the last two dimensions that
// the kernel reads in place. A plain swap ([1, 0]) is read in place as it
// is: nothing to split.
// RUN: stc-opt %s --stc-configure-gpu-kernels=target=sm_90a 2>/dev/null | FileCheck %s

// CHECK-LABEL: func.func @scores
// CHECK-SAME: %[[Q:[^:]*]]: tensor<6x8x16xf16>, %[[K:[^:]*]]: tensor<2x8x3x16xf16>
// CHECK: %[[ROWS:.*]] = linalg.transpose ins(%[[K]] : tensor<2x8x3x16xf16>) outs(%{{.*}} : tensor<2x3x8x16xf16>) permutation = [0, 2, 1, 3]
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %[[ROWS]] {{\[\[}}0, 1], [2], [3]] : tensor<2x3x8x16xf16> into tensor<6x8x16xf16>
// CHECK: %[[KT:.*]] = linalg.transpose ins(%[[FLAT]] : tensor<6x8x16xf16>) outs(%{{.*}} : tensor<6x16x8xf16>) permutation = [0, 2, 1]
// CHECK: linalg.batch_matmul {stc_gpu.kernel_config = {{.*}}} ins(%[[Q]], %[[KT]] : tensor<6x8x16xf16>, tensor<6x16x8xf16>)
// CHECK-NOT: permutation = [0, 2, 3, 1]
func.func @scores(%q: tensor<6x8x16xf16>, %k: tensor<2x8x3x16xf16>) -> tensor<6x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %kt0 = tensor.empty() : tensor<2x3x16x8xf16>
  %kt = linalg.transpose ins(%k : tensor<2x8x3x16xf16>) outs(%kt0 : tensor<2x3x16x8xf16>) permutation = [0, 2, 3, 1]
  %kh = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x3x16x8xf16> into tensor<6x16x8xf16>
  %e = tensor.empty() : tensor<6x8x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<6x8x8xf32>) -> tensor<6x8x8xf32>
  %s = linalg.batch_matmul ins(%q, %kh : tensor<6x8x16xf16>, tensor<6x16x8xf16>) outs(%z : tensor<6x8x8xf32>) -> tensor<6x8x8xf32>
  return %s : tensor<6x8x8xf32>
}

// CHECK-LABEL: func.func @plain_swap
// CHECK: %[[XT:.*]] = linalg.transpose ins(%{{.*}} : tensor<16x64xf16>) outs(%{{.*}} : tensor<64x16xf16>) permutation = [1, 0]
// CHECK-NOT: linalg.transpose
// CHECK: linalg.matmul {stc_gpu.kernel_config = {{.*}}} ins(%{{.*}}, %[[XT]] :
func.func @plain_swap(%x: tensor<16x64xf16>) -> tensor<16x16xf32> {
  %zero = arith.constant 0.0 : f32
  %t0 = tensor.empty() : tensor<64x16xf16>
  %t = linalg.transpose ins(%x : tensor<16x64xf16>) outs(%t0 : tensor<64x16xf16>) permutation = [1, 0]
  %e = tensor.empty() : tensor<16x16xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<16x16xf32>) -> tensor<16x16xf32>
  %s = linalg.matmul ins(%x, %t : tensor<16x64xf16>, tensor<64x16xf16>) outs(%z : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %s : tensor<16x16xf32>
}
