// Reductions whose rows a whole block shares (stc-lower-elementwise-to-gpu:
// an associative combiner, rows of dynamic or at least 64 elements): row
// sums and maxima, a column sum (the reduced dimension is not the
// innermost), an i32 row sum, a product, and LayerNorm's sum of squared
// deviations from a given mean. Checked by row_reductions_ref.py.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @main(%x: tensor<?x?xf32>, %xi: tensor<?x?xi32>, %mean: tensor<?xf32>)
    -> (tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xi32>, tensor<?xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %n = tensor.dim %x, %c1 : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %izero = arith.constant 0 : i32
  %rows0 = tensor.empty(%m) : tensor<?xf32>
  %cols0 = tensor.empty(%n) : tensor<?xf32>
  %irows0 = tensor.empty(%m) : tensor<?xi32>
  %sum0 = linalg.fill ins(%zero : f32) outs(%rows0 : tensor<?xf32>) -> tensor<?xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x?xf32>) outs(%sum0 : tensor<?xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  %max0 = linalg.fill ins(%ninf : f32) outs(%rows0 : tensor<?xf32>) -> tensor<?xf32>
  %max = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x?xf32>) outs(%max0 : tensor<?xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.maximumf %acc, %a : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  %csum0 = linalg.fill ins(%zero : f32) outs(%cols0 : tensor<?xf32>) -> tensor<?xf32>
  %csum = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x?xf32>) outs(%csum0 : tensor<?xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %acc, %a : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  %isum0 = linalg.fill ins(%izero : i32) outs(%irows0 : tensor<?xi32>) -> tensor<?xi32>
  %isum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%xi : tensor<?x?xi32>) outs(%isum0 : tensor<?xi32>) {
  ^bb0(%a: i32, %acc: i32):
    %r = arith.addi %a, %acc : i32
    linalg.yield %r : i32
  } -> tensor<?xi32>
  %prod0 = linalg.fill ins(%one : f32) outs(%rows0 : tensor<?xf32>) -> tensor<?xf32>
  %prod = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x?xf32>) outs(%prod0 : tensor<?xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %e = math.exp %a : f32
    %r = arith.mulf %acc, %e : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  %var0 = linalg.fill ins(%zero : f32) outs(%rows0 : tensor<?xf32>) -> tensor<?xf32>
  %var = linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x, %mean : tensor<?x?xf32>, tensor<?xf32>) outs(%var0 : tensor<?xf32>) {
  ^bb0(%a: f32, %mu: f32, %acc: f32):
    %d = arith.subf %a, %mu : f32
    %d2 = arith.mulf %d, %d : f32
    %r = arith.addf %d2, %acc : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  return %sum, %max, %csum, %isum, %prod, %var : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xi32>, tensor<?xf32>, tensor<?xf32>
}
