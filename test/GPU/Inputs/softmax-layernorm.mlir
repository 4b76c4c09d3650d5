// Row softmax and LayerNorm as torch-mlir writes them (reductions along the
// last dimension into linalg.fill'ed accumulators, elementwise ops between):
// every op runs on the GPU (stc-lower-elementwise-to-gpu). f16 activations,
// f32 statistics. Checked by softmax_layernorm_ref.py.
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
#col = affine_map<(i, j) -> (j)>
func.func @main(%x: tensor<6x40xf16>, %gamma: tensor<40xf32>, %beta: tensor<40xf32>) -> (tensor<6x40xf16>, tensor<6x40xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 40.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %rows = tensor.empty() : tensor<6xf32>
  %full16 = tensor.empty() : tensor<6x40xf16>
  %full = tensor.empty() : tensor<6x40xf32>
  // Softmax.
  %maxInit = linalg.fill ins(%ninf : f32) outs(%rows : tensor<6xf32>) -> tensor<6xf32>
  %max = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<6x40xf16>) outs(%maxInit : tensor<6xf32>) {
  ^bb0(%a: f16, %m: f32):
    %a32 = arith.extf %a : f16 to f32
    %r = arith.maximumf %a32, %m : f32
    linalg.yield %r : f32
  } -> tensor<6xf32>
  %e = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %max : tensor<6x40xf16>, tensor<6xf32>) outs(%full : tensor<6x40xf32>) {
  ^bb0(%a: f16, %m: f32, %o: f32):
    %a32 = arith.extf %a : f16 to f32
    %d = arith.subf %a32, %m : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<6x40xf32>
  %sumInit = linalg.fill ins(%zero : f32) outs(%rows : tensor<6xf32>) -> tensor<6xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%e : tensor<6x40xf32>) outs(%sumInit : tensor<6xf32>) {
  ^bb0(%a: f32, %s: f32):
    %r = arith.addf %a, %s : f32
    linalg.yield %r : f32
  } -> tensor<6xf32>
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%e, %sum : tensor<6x40xf32>, tensor<6xf32>) outs(%full16 : tensor<6x40xf16>) {
  ^bb0(%a: f32, %s: f32, %o: f16):
    %r = arith.divf %a, %s : f32
    %r16 = arith.truncf %r : f32 to f16
    linalg.yield %r16 : f16
  } -> tensor<6x40xf16>
  // LayerNorm with gamma and beta.
  %sInit = linalg.fill ins(%zero : f32) outs(%rows : tensor<6xf32>) -> tensor<6xf32>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<6x40xf16>) outs(%sInit : tensor<6xf32>) {
  ^bb0(%a: f16, %acc: f32):
    %a32 = arith.extf %a : f16 to f32
    %r = arith.addf %a32, %acc : f32
    linalg.yield %r : f32
  } -> tensor<6xf32>
  %vInit = linalg.fill ins(%zero : f32) outs(%rows : tensor<6xf32>) -> tensor<6xf32>
  %v = linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]} ins(%x, %s : tensor<6x40xf16>, tensor<6xf32>) outs(%vInit : tensor<6xf32>) {
  ^bb0(%a: f16, %rowsum: f32, %acc: f32):
    %a32 = arith.extf %a : f16 to f32
    %mean = arith.divf %rowsum, %n : f32
    %d = arith.subf %a32, %mean : f32
    %d2 = arith.mulf %d, %d : f32
    %r = arith.addf %d2, %acc : f32
    linalg.yield %r : f32
  } -> tensor<6xf32>
  %ln = linalg.generic {indexing_maps = [#id, #row, #row, #col, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %s, %v, %gamma, %beta : tensor<6x40xf16>, tensor<6xf32>, tensor<6xf32>, tensor<40xf32>, tensor<40xf32>) outs(%full : tensor<6x40xf32>) {
  ^bb0(%a: f16, %rowsum: f32, %var: f32, %g: f32, %b: f32, %o: f32):
    %a32 = arith.extf %a : f16 to f32
    %mean = arith.divf %rowsum, %n : f32
    %d = arith.subf %a32, %mean : f32
    %vn = arith.divf %var, %n : f32
    %ve = arith.addf %vn, %eps : f32
    %rs = math.rsqrt %ve : f32
    %y = arith.mulf %d, %rs : f32
    %yg = arith.mulf %y, %g : f32
    %r = arith.addf %yg, %b : f32
    linalg.yield %r : f32
  } -> tensor<6x40xf32>
  return %p, %ln : tensor<6x40xf16>, tensor<6x40xf32>
}
