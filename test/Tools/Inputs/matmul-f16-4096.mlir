// A 4096^3 f16 matmul (the benchmark's square-4096 shape) for the kernel
// resource tests: large enough that the heuristics pick 128 x 128 blocks.
func.func @mm(%a: tensor<4096x4096xf16>, %b: tensor<4096x4096xf16>) -> tensor<4096x4096xf16> {
  %e = tensor.empty() : tensor<4096x4096xf16>
  %z = arith.constant 0.0 : f16
  %f = linalg.fill ins(%z : f16) outs(%e : tensor<4096x4096xf16>) -> tensor<4096x4096xf16>
  %c = linalg.matmul ins(%a, %b : tensor<4096x4096xf16>, tensor<4096x4096xf16>) outs(%f : tensor<4096x4096xf16>) -> tensor<4096x4096xf16>
  return %c : tensor<4096x4096xf16>
}
