// A dense convolution with a dynamic batch, + bias, then ReLU
// (emulate-dense-epilogue.test): the tail folds into the kernel.
#id4 = affine_map<(n, h, w, c) -> (n, h, w, c)>
#ch = affine_map<(n, h, w, c) -> (c)>
func.func @main(%img: tensor<?x6x6x16xf16>, %f: tensor<3x3x16x32xf16>, %cb: tensor<32xf16>) -> tensor<?x4x4x32xf16> {
  %zero = arith.constant 0.0 : f16
  %c0 = arith.constant 0 : index
  %n = tensor.dim %img, %c0 : tensor<?x6x6x16xf16>
  %ce = tensor.empty(%n) : tensor<?x4x4x32xf16>
  %cz = linalg.fill ins(%zero : f16) outs(%ce : tensor<?x4x4x32xf16>) -> tensor<?x4x4x32xf16>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%img, %f : tensor<?x6x6x16xf16>, tensor<3x3x16x32xf16>) outs(%cz : tensor<?x4x4x32xf16>) -> tensor<?x4x4x32xf16>
  %n2 = tensor.dim %c, %c0 : tensor<?x4x4x32xf16>
  %be = tensor.empty(%n2) : tensor<?x4x4x32xf16>
  %cb1 = linalg.generic {indexing_maps = [#id4, #ch, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c, %cb : tensor<?x4x4x32xf16>, tensor<32xf16>) outs(%be : tensor<?x4x4x32xf16>) {
  ^bb0(%a: f16, %q: f16, %o: f16):
    %s = arith.addf %a, %q : f16
    linalg.yield %s : f16
  } -> tensor<?x4x4x32xf16>
  %re = tensor.empty(%n2) : tensor<?x4x4x32xf16>
  %cr = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%cb1 : tensor<?x4x4x32xf16>) outs(%re : tensor<?x4x4x32xf16>) {
  ^bb0(%a: f16, %o: f16):
    %s = arith.maximumf %a, %zero : f16
    linalg.yield %s : f16
  } -> tensor<?x4x4x32xf16>
  return %cr : tensor<?x4x4x32xf16>
}
