// Element-wise kernels whose threads compute several adjacent elements
// with vector loads and stores (stc-lower-elementwise-to-gpu), checked by
// vector_elementwise_ref.py:
// - @main's %t1: a head split, [0, 2, 1, 3], the innermost dimension kept
//   (16 f16: 8 a thread);
// - %t2: [0, 2, 3, 1], the innermost dimension moved: one a thread;
// - %y: f32((b + c[j]) * r[i]) over 8 x 12 (a column bias read as a
//   vector, a row scale read once; 12 is not a multiple of 8: 4 a thread);
// - %z: tanh(b) in f16 (math in the vector body, 4 a thread).
#id4 = affine_map<(a, b, c, d) -> (a, b, c, d)>
#split = affine_map<(a, b, c, d) -> (a, c, b, d)>
#kt = affine_map<(a, b, c, d) -> (a, d, b, c)>
#id = affine_map<(i, j) -> (i, j)>
#col = affine_map<(i, j) -> (j)>
#row = affine_map<(i, j) -> (i)>
func.func @main(%a: tensor<4x6x2x16xf16>, %b: tensor<8x12xf16>, %c: tensor<12xf16>, %r: tensor<8xf32>)
    -> (tensor<4x2x6x16xf16>, tensor<4x2x16x6xf16>, tensor<8x12xf32>, tensor<8x12xf16>) {
  %e1 = tensor.empty() : tensor<4x2x6x16xf16>
  %t1 = linalg.generic {indexing_maps = [#split, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a : tensor<4x6x2x16xf16>) outs(%e1 : tensor<4x2x6x16xf16>) {
  ^bb0(%x: f16, %o: f16):
    linalg.yield %x : f16
  } -> tensor<4x2x6x16xf16>
  %e2 = tensor.empty() : tensor<4x2x16x6xf16>
  %t2 = linalg.generic {indexing_maps = [#kt, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a : tensor<4x6x2x16xf16>) outs(%e2 : tensor<4x2x16x6xf16>) {
  ^bb0(%x: f16, %o: f16):
    linalg.yield %x : f16
  } -> tensor<4x2x16x6xf16>
  %e3 = tensor.empty() : tensor<8x12xf32>
  %y = linalg.generic {indexing_maps = [#id, #col, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%b, %c, %r : tensor<8x12xf16>, tensor<12xf16>, tensor<8xf32>) outs(%e3 : tensor<8x12xf32>) {
  ^bb0(%x: f16, %bias: f16, %s: f32, %o: f32):
    %sum = arith.addf %x, %bias : f16
    %w = arith.extf %sum : f16 to f32
    %m = arith.mulf %w, %s : f32
    linalg.yield %m : f32
  } -> tensor<8x12xf32>
  %e4 = tensor.empty() : tensor<8x12xf16>
  %z = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%b : tensor<8x12xf16>) outs(%e4 : tensor<8x12xf16>) {
  ^bb0(%x: f16, %o: f16):
    %w = arith.extf %x : f16 to f32
    %t = math.tanh %w : f32
    %n = arith.truncf %t : f32 to f16
    linalg.yield %n : f16
  } -> tensor<8x12xf16>
  return %t1, %t2, %y, %z : tensor<4x2x6x16xf16>, tensor<4x2x16x6xf16>, tensor<8x12xf32>, tensor<8x12xf16>
}
