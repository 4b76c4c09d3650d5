// A program with nothing for the GPU: its one op makes an i1 tensor, which
// stays on the host (the tools tests' "no GPU kernel" case).
func.func @main(%x: tensor<8xf32>) -> tensor<8xi1> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8xi1>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%x : tensor<8xf32>) outs(%e : tensor<8xi1>) {
  ^bb0(%a: f32, %o: i1):
    %p = arith.cmpf ogt, %a, %zero : f32
    linalg.yield %p : i1
  } -> tensor<8xi1>
  return %r : tensor<8xi1>
}
