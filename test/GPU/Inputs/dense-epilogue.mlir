// Element-wise tails after dense products that the tensor-core kernels'
// epilogue computes (stc-lower-spmm-to-gpu, foldDenseTail), checked by
// dense_epilogue_ref.py:
// - %yy: x . w + r, then ReLU: the residual as acc, the ReLU in the epilogue
//   (S = x: a bias would be per row of x, see %yb);
// - %yb: x . w2 + b[n]: a bias per column of the result, which the epilogue
//   (a bias per row of S) cannot add: its own kernel;
// - %yc: x . w3t^T + b[n] (a linear layer: W given N x K, its transpose
//   read in place): either operand could be S, and with a bias per column
//   to follow, S is w3t: the bias in the epilogue;
// - %cr: a convolution (HWCF filter, NHWC) + bias[f], then ReLU: both in
//   the implicit GEMM's epilogue.
#id = affine_map<(i, j) -> (i, j)>
#col = affine_map<(i, j) -> (j)>
#id4 = affine_map<(n, h, w, c) -> (n, h, w, c)>
#ch = affine_map<(n, h, w, c) -> (c)>
func.func @main(%x: tensor<32x64xf16>, %w: tensor<64x48xf16>, %w2: tensor<64x48xf16>, %w3t: tensor<48x64xf16>, %b: tensor<48xf16>, %r: tensor<32x48xf16>,
                %img: tensor<2x6x6x16xf16>, %f: tensor<3x3x16x32xf16>, %cb: tensor<32xf16>)
    -> (tensor<32x48xf16>, tensor<32x48xf16>, tensor<32x48xf16>, tensor<2x4x4x32xf16>) {
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<32x48xf16>
  %z = linalg.fill ins(%zero : f16) outs(%e : tensor<32x48xf16>) -> tensor<32x48xf16>
  %y = linalg.matmul ins(%x, %w : tensor<32x64xf16>, tensor<64x48xf16>) outs(%z : tensor<32x48xf16>) -> tensor<32x48xf16>
  %yr = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%r, %y : tensor<32x48xf16>, tensor<32x48xf16>) outs(%e : tensor<32x48xf16>) {
  ^bb0(%a: f16, %c: f16, %o: f16):
    %s = arith.addf %a, %c : f16
    linalg.yield %s : f16
  } -> tensor<32x48xf16>
  %yy = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%yr : tensor<32x48xf16>) outs(%e : tensor<32x48xf16>) {
  ^bb0(%a: f16, %o: f16):
    %s = arith.maximumf %a, %zero : f16
    linalg.yield %s : f16
  } -> tensor<32x48xf16>
  %y2 = linalg.matmul ins(%x, %w2 : tensor<32x64xf16>, tensor<64x48xf16>) outs(%z : tensor<32x48xf16>) -> tensor<32x48xf16>
  %yb = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%y2, %b : tensor<32x48xf16>, tensor<48xf16>) outs(%e : tensor<32x48xf16>) {
  ^bb0(%a: f16, %c: f16, %o: f16):
    %s = arith.addf %a, %c : f16
    linalg.yield %s : f16
  } -> tensor<32x48xf16>
  %w30 = tensor.empty() : tensor<64x48xf16>
  %w3 = linalg.transpose ins(%w3t : tensor<48x64xf16>) outs(%w30 : tensor<64x48xf16>) permutation = [1, 0]
  %y3 = linalg.matmul ins(%x, %w3 : tensor<32x64xf16>, tensor<64x48xf16>) outs(%z : tensor<32x48xf16>) -> tensor<32x48xf16>
  %yc = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%y3, %b : tensor<32x48xf16>, tensor<48xf16>) outs(%e : tensor<32x48xf16>) {
  ^bb0(%a: f16, %c: f16, %o: f16):
    %s = arith.addf %a, %c : f16
    linalg.yield %s : f16
  } -> tensor<32x48xf16>
  %ce = tensor.empty() : tensor<2x4x4x32xf16>
  %cz = linalg.fill ins(%zero : f16) outs(%ce : tensor<2x4x4x32xf16>) -> tensor<2x4x4x32xf16>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%img, %f : tensor<2x6x6x16xf16>, tensor<3x3x16x32xf16>) outs(%cz : tensor<2x4x4x32xf16>) -> tensor<2x4x4x32xf16>
  %cb1 = linalg.generic {indexing_maps = [#id4, #ch, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c, %cb : tensor<2x4x4x32xf16>, tensor<32xf16>) outs(%ce : tensor<2x4x4x32xf16>) {
  ^bb0(%a: f16, %q: f16, %o: f16):
    %s = arith.addf %a, %q : f16
    linalg.yield %s : f16
  } -> tensor<2x4x4x32xf16>
  %cr = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%cb1 : tensor<2x4x4x32xf16>) outs(%ce : tensor<2x4x4x32xf16>) {
  ^bb0(%a: f16, %o: f16):
    %s = arith.maximumf %a, %zero : f16
    linalg.yield %s : f16
  } -> tensor<2x4x4x32xf16>
  return %yy, %yb, %yc, %cr : tensor<32x48xf16>, tensor<32x48xf16>, tensor<32x48xf16>, tensor<2x4x4x32xf16>
}
