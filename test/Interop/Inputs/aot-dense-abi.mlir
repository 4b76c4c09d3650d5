// Entry points for aot-dense-abi.test: a CSR argument (upstream's
// sparsifier runs it) and a 2:4 one (STC's kernel, which checks it).
#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
#NV_24 = #sparse_tensor.encoding<{
  map = (i, j) -> (i : dense, j floordiv 4 : dense, j mod 4 : structured[2, 4])
}>

func.func @csr_times(%a: tensor<4x8xf64, #CSR>, %b: tensor<8x3xf64>) -> tensor<4x3xf64> {
  %z = arith.constant dense<0.0> : tensor<4x3xf64>
  %r = linalg.matmul ins(%a, %b : tensor<4x8xf64, #CSR>, tensor<8x3xf64>)
                     outs(%z : tensor<4x3xf64>) -> tensor<4x3xf64>
  return %r : tensor<4x3xf64>
}

func.func @nv24_times(%a: tensor<4x8xf32, #NV_24>, %b: tensor<8x3xf32>) -> tensor<4x3xf32> {
  %z = arith.constant dense<0.0> : tensor<4x3xf32>
  %r = linalg.matmul ins(%a, %b : tensor<4x8xf32, #NV_24>, tensor<8x3xf32>)
                     outs(%z : tensor<4x3xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
