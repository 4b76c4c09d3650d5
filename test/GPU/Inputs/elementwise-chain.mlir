// An elementwise block for the GPU: a broadcast bias add, GELU (tanh form),
// a transpose and residual add (named ops), and x / sqrt(|x| + 1) + column
// index (math.rsqrt, linalg.index): what stc-lower-elementwise-to-gpu runs
// on the device. Checked by elementwise_chain_ref.py.
func.func @main(%x: tensor<8x16xf16>, %b: tensor<16xf16>, %y: tensor<16x8xf16>) -> tensor<8x16xf16> {
  %e = tensor.empty() : tensor<8x16xf16>
  %biased = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%x, %b : tensor<8x16xf16>, tensor<16xf16>) outs(%e : tensor<8x16xf16>) {
  ^bb0(%a: f16, %c: f16, %o: f16):
    %s = arith.addf %a, %c : f16
    linalg.yield %s : f16
  } -> tensor<8x16xf16>
  %gelu = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%biased : tensor<8x16xf16>) outs(%e : tensor<8x16xf16>) {
  ^bb0(%a: f16, %o: f16):
    %h = arith.constant 0.5 : f16
    %one = arith.constant 1.0 : f16
    %c = arith.constant 0.7978846 : f16
    %k = arith.constant 0.044715 : f16
    %a3 = arith.mulf %a, %a : f16
    %a3b = arith.mulf %a3, %a : f16
    %t1 = arith.mulf %a3b, %k : f16
    %t2 = arith.addf %a, %t1 : f16
    %t3 = arith.mulf %t2, %c : f16
    %t = math.tanh %t3 : f16
    %t4 = arith.addf %t, %one : f16
    %t5 = arith.mulf %t4, %h : f16
    %r = arith.mulf %a, %t5 : f16
    linalg.yield %r : f16
  } -> tensor<8x16xf16>
  %yt = linalg.transpose ins(%y : tensor<16x8xf16>) outs(%e : tensor<8x16xf16>) permutation = [1, 0]
  %sum = linalg.add ins(%gelu, %yt : tensor<8x16xf16>, tensor<8x16xf16>) outs(%e : tensor<8x16xf16>) -> tensor<8x16xf16>
  %n = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%sum : tensor<8x16xf16>) outs(%e : tensor<8x16xf16>) {
  ^bb0(%a: f16, %o: f16):
    %one = arith.constant 1.0 : f16
    %ab = math.absf %a : f16
    %p = arith.addf %ab, %one : f16
    %s = math.rsqrt %p : f16
    %m = arith.mulf %a, %s : f16
    %i = linalg.index 1 : index
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f16
    %r = arith.addf %m, %f : f16
    linalg.yield %r : f16
  } -> tensor<8x16xf16>
  return %n : tensor<8x16xf16>
}
