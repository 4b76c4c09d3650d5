// LayerNorm's and GELU's math on f16 elements: math.rsqrt (which math-to-libm
// used to turn into a call of a `rsqrtf` that no library defines), tanh, erf.
func.func @main(%x: tensor<8x16xf16>) -> tensor<8x16xf16> {
  %e = tensor.empty() : tensor<8x16xf16>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x16xf16>) outs(%e : tensor<8x16xf16>) {
  ^bb0(%a: f16, %o: f16):
    %ab = math.absf %a : f16
    %one = arith.constant 1.0 : f16
    %p = arith.addf %ab, %one : f16
    %s = math.rsqrt %p : f16
    %t = math.tanh %s : f16
    %ex = math.erf %t : f16
    linalg.yield %ex : f16
  } -> tensor<8x16xf16>
  return %r : tensor<8x16xf16>
}
