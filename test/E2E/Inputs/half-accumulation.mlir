// Dense half-precision reductions whose partial sums pass the element
// type's integer range: ones summed 4096 times in f16 (integers are exact
// only up to 2048, so an f16 accumulator stops at 2048) and 512 times in
// bf16 (exact up to 256). With f32 accumulation every result is exact.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

func.func @matmul_f16() -> tensor<2x4xf16> {
  %a = arith.constant dense<1.0> : tensor<2x4096xf16>
  %b = arith.constant dense<1.0> : tensor<4096x4xf16>
  %z = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<2x4xf16>
  %c = linalg.fill ins(%z : f16) outs(%e : tensor<2x4xf16>) -> tensor<2x4xf16>
  %r = linalg.matmul ins(%a, %b : tensor<2x4096xf16>, tensor<4096x4xf16>) outs(%c : tensor<2x4xf16>) -> tensor<2x4xf16>
  return %r : tensor<2x4xf16>
}

func.func @batch_matmul_bf16() -> tensor<2x3x4xbf16> {
  %a = arith.constant dense<1.0> : tensor<2x3x512xbf16>
  %b = arith.constant dense<1.0> : tensor<2x512x4xbf16>
  %z = arith.constant 0.0 : bf16
  %e = tensor.empty() : tensor<2x3x4xbf16>
  %c = linalg.fill ins(%z : bf16) outs(%e : tensor<2x3x4xbf16>) -> tensor<2x3x4xbf16>
  %r = linalg.batch_matmul ins(%a, %b : tensor<2x3x512xbf16>, tensor<2x512x4xbf16>) outs(%c : tensor<2x3x4xbf16>) -> tensor<2x3x4xbf16>
  return %r : tensor<2x3x4xbf16>
}

func.func @conv_f16() -> tensor<1x2x3x3xf16> {
  %x = arith.constant dense<1.0> : tensor<1x1024x5x5xf16>
  %w = arith.constant dense<1.0> : tensor<2x1024x3x3xf16>
  %z = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<1x2x3x3xf16>
  %c = linalg.fill ins(%z : f16) outs(%e : tensor<1x2x3x3xf16>) -> tensor<1x2x3x3xf16>
  %r = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x1024x5x5xf16>, tensor<2x1024x3x3xf16>) outs(%c : tensor<1x2x3x3xf16>) -> tensor<1x2x3x3xf16>
  return %r : tensor<1x2x3x3xf16>
}

func.func @row_sum_f16(%x: tensor<3x4096xf16>) -> tensor<3xf16> {
  %z = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<3xf16>
  %c = linalg.fill ins(%z : f16) outs(%e : tensor<3xf16>) -> tensor<3xf16>
  %r = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<3x4096xf16>) outs(%c : tensor<3xf16>) {
  ^bb0(%in: f16, %acc: f16):
    %s = arith.addf %acc, %in : f16
    linalg.yield %s : f16
  } -> tensor<3xf16>
  return %r : tensor<3xf16>
}

// For the pass's IR test only: an init that is not a fill (extended by a
// generic), a max reduction (exact in any type: left alone) and an f32
// matmul (left alone).
func.func @matmul_init_f16(%a: tensor<2x8xf16>, %b: tensor<8x4xf16>, %c: tensor<2x4xf16>) -> tensor<2x4xf16> {
  %r = linalg.matmul ins(%a, %b : tensor<2x8xf16>, tensor<8x4xf16>) outs(%c : tensor<2x4xf16>) -> tensor<2x4xf16>
  return %r : tensor<2x4xf16>
}

func.func @row_max_f16(%x: tensor<3x8xf16>, %c: tensor<3xf16>) -> tensor<3xf16> {
  %r = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<3x8xf16>) outs(%c : tensor<3xf16>) {
  ^bb0(%in: f16, %acc: f16):
    %s = arith.maximumf %acc, %in : f16
    linalg.yield %s : f16
  } -> tensor<3xf16>
  return %r : tensor<3xf16>
}

func.func @matmul_f32(%a: tensor<2x8xf32>, %b: tensor<8x4xf32>, %c: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<2x8xf32>, tensor<8x4xf32>) outs(%c : tensor<2x4xf32>) -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}
