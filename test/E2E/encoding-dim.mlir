// A dynamic-shape program sizes its result with tensor.dim of the operand
// that carries the structured[2, 4] encoding: the encoding is stripped, the
// operand compressed (checked 2:4 at run time) and the product is a 2:4
// stc.spmm, against the NumPy reference.
// REQUIRES: numpy
// RUN: %e2e --mlir %s --case enc_lhs_f32_3_17_33
#enc = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j floordiv 4 : dense, j mod 4 : structured[2, 4]) }>
func.func @main(%a: tensor<?x?xf32, #enc>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %a, %c0 : tensor<?x?xf32, #enc>
  %n = tensor.dim %b, %c1 : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = linalg.matmul ins(%a, %b : tensor<?x?xf32, #enc>, tensor<?x?xf32>)
                     outs(%z : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
