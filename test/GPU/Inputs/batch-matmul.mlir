// Attention-shaped batched products for the GPU: scores Q . K^T per head
// (linalg.batch_matmul with K transposed by a linalg.transpose), f16 inputs,
// f32 results. Checked by batch_matmul_ref.py.
func.func @main(%q: tensor<4x8x16xf16>, %k: tensor<4x12x16xf16>) -> tensor<4x8x12xf32> {
  %zero = arith.constant 0.0 : f32
  %kt0 = tensor.empty() : tensor<4x16x12xf16>
  %kt = linalg.transpose ins(%k : tensor<4x12x16xf16>) outs(%kt0 : tensor<4x16x12xf16>) permutation = [0, 2, 1]
  %s0 = tensor.empty() : tensor<4x8x12xf32>
  %sz = linalg.fill ins(%zero : f32) outs(%s0 : tensor<4x8x12xf32>) -> tensor<4x8x12xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<4x8x16xf16>, tensor<4x16x12xf16>) outs(%sz : tensor<4x8x12xf32>) -> tensor<4x8x12xf32>
  return %s : tensor<4x8x12xf32>
}
