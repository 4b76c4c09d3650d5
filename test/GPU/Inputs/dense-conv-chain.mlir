// Two dense NCHW convolutions with a bias add and a ReLU between them
// (emulate-dense-conv-tensor-core.test): on a GPU target both run in NHWC
// on the tensor cores, and the transposes between them sink through the
// bias and the ReLU and cancel (stc-sink-transposes): one transpose in,
// one out.
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1)>
func.func @chain(%x: tensor<2x16x9x9xf16>, %w1: tensor<24x16x3x3xf16>, %b: tensor<24xf16>, %w2: tensor<8x24x1x1xf16>) -> tensor<2x8x9x9xf16> {
  %z = arith.constant 0.0 : f16
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %z : f16
  } : tensor<2x16x9x9xf16> to tensor<2x16x11x11xf16>
  %e1 = tensor.empty() : tensor<2x24x9x9xf16>
  %f1 = linalg.fill ins(%z : f16) outs(%e1 : tensor<2x24x9x9xf16>) -> tensor<2x24x9x9xf16>
  %y1 = linalg.conv_2d_nchw_fchw ins(%p, %w1 : tensor<2x16x11x11xf16>, tensor<24x16x3x3xf16>) outs(%f1 : tensor<2x24x9x9xf16>) -> tensor<2x24x9x9xf16>
  %e2 = tensor.empty() : tensor<2x24x9x9xf16>
  %biased = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%y1, %b : tensor<2x24x9x9xf16>, tensor<24xf16>) outs(%e2 : tensor<2x24x9x9xf16>) {
  ^bb0(%a: f16, %c: f16, %o: f16):
    %s = arith.addf %a, %c : f16
    linalg.yield %s : f16
  } -> tensor<2x24x9x9xf16>
  %e3 = tensor.empty() : tensor<2x24x9x9xf16>
  %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%biased : tensor<2x24x9x9xf16>) outs(%e3 : tensor<2x24x9x9xf16>) {
  ^bb0(%a: f16, %o: f16):
    %m = arith.maximumf %a, %z : f16
    linalg.yield %m : f16
  } -> tensor<2x24x9x9xf16>
  %e4 = tensor.empty() : tensor<2x8x9x9xf16>
  %f4 = linalg.fill ins(%z : f16) outs(%e4 : tensor<2x8x9x9xf16>) -> tensor<2x8x9x9xf16>
  %y2 = linalg.conv_2d_nchw_fchw ins(%relu, %w2 : tensor<2x24x9x9xf16>, tensor<8x24x1x1xf16>) outs(%f4 : tensor<2x8x9x9xf16>) -> tensor<2x8x9x9xf16>
  return %y2 : tensor<2x8x9x9xf16>
}
