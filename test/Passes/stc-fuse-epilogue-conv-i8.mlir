// A quantized convolution as the ONNX importer writes a QDQ Conv: an i8
// NCHW input padded with i8 zeros, an i8 FCHW filter, i8 x i8 -> i32
// linalg.conv_2d_nchw_fchw, then float(acc) * scale[c] (the activation
// scale times each filter scale), a bias and a ReLU. Under --sparsity=force
// stc-sparsify-convolutions makes it an i8 stc.conv to i32 (the zero pad
// folded into its padding), and stc-fuse-epilogue folds the rescale
// through the NCHW transpose into the conv's scale operand (f32 result),
// then the bias and the ReLU. Left alone: a rescale along a spatial
// dimension (not per output channel), which keeps the i32 conv.
// RUN: stc-opt %s --pass-pipeline='builtin.module(stc-sparsify-convolutions{sparsity=force}, func.func(stc-fuse-epilogue))' | FileCheck %s

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1)>
#h = affine_map<(d0, d1, d2, d3) -> (d2)>

// CHECK-LABEL: func.func @qdq_conv
// CHECK: %[[V:.*]], %[[M:.*]] = stc.compress {{.*}} : tensor<32x144xi8> -> tensor<32x72xi8>, tensor<32x9xi16>
// CHECK: %[[C:.*]] = stc.conv %[[V]], %[[M]], %{{.*}} bias(%{{.*}} : tensor<32xf32>) scale(%{{.*}} : tensor<32xf32>) {activation = #stc.activation<relu>, filter_size = array<i64: 3, 3>, pad_high = array<i64: 1, 1>, pad_low = array<i64: 1, 1>, pattern = #stc.nm<2:4>} : tensor<32x72xi8>, tensor<32x9xi16>, tensor<2x8x8x16xi8> -> tensor<2x8x8x32xf32>
// CHECK: linalg.transpose ins(%[[C]] : tensor<2x8x8x32xf32>) outs(%{{.*}} : tensor<2x32x8x8xf32>) permutation = [0, 3, 1, 2]
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @qdq_conv(%x: tensor<2x16x8x8xi8>, %w: tensor<32x16x3x3xi8>,
                    %s: tensor<32xf32>, %b: tensor<32xf32>) -> tensor<2x32x8x8xf32> {
  %z8 = arith.constant 0 : i8
  %z32 = arith.constant 0 : i32
  %xp = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %z8 : i8
  } : tensor<2x16x8x8xi8> to tensor<2x16x10x10xi8>
  %e = tensor.empty() : tensor<2x32x8x8xi32>
  %init = linalg.fill ins(%z32 : i32) outs(%e : tensor<2x32x8x8xi32>) -> tensor<2x32x8x8xi32>
  %acc = linalg.conv_2d_nchw_fchw ins(%xp, %w : tensor<2x16x10x10xi8>, tensor<32x16x3x3xi8>)
      outs(%init : tensor<2x32x8x8xi32>) -> tensor<2x32x8x8xi32>
  %ef = tensor.empty() : tensor<2x32x8x8xf32>
  %scaled = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc, %s : tensor<2x32x8x8xi32>, tensor<32xf32>) outs(%ef : tensor<2x32x8x8xf32>) {
  ^bb0(%a: i32, %c: f32, %o: f32):
    %f = arith.sitofp %a : i32 to f32
    %r = arith.mulf %f, %c : f32
    linalg.yield %r : f32
  } -> tensor<2x32x8x8xf32>
  %biased = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%scaled, %b : tensor<2x32x8x8xf32>, tensor<32xf32>) outs(%ef : tensor<2x32x8x8xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %r = arith.addf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<2x32x8x8xf32>
  %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%biased : tensor<2x32x8x8xf32>) outs(%ef : tensor<2x32x8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %zero = arith.constant 0.0 : f32
    %r = arith.maximumf %a, %zero : f32
    linalg.yield %r : f32
  } -> tensor<2x32x8x8xf32>
  return %relu : tensor<2x32x8x8xf32>
}

// CHECK-LABEL: func.func @rescale_along_height
// CHECK: stc.conv {{.*}} -> tensor<1x8x8x32xi32>
// CHECK: linalg.transpose
// CHECK: linalg.generic
// CHECK-SAME: ins({{.*}} : tensor<1x32x8x8xi32>, tensor<8xf32>)
func.func @rescale_along_height(%x: tensor<1x16x8x8xi8>, %w: tensor<32x16x1x1xi8>,
                                %s: tensor<8xf32>) -> tensor<1x32x8x8xf32> {
  %z32 = arith.constant 0 : i32
  %e = tensor.empty() : tensor<1x32x8x8xi32>
  %init = linalg.fill ins(%z32 : i32) outs(%e : tensor<1x32x8x8xi32>) -> tensor<1x32x8x8xi32>
  %acc = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x16x8x8xi8>, tensor<32x16x1x1xi8>)
      outs(%init : tensor<1x32x8x8xi32>) -> tensor<1x32x8x8xi32>
  %ef = tensor.empty() : tensor<1x32x8x8xf32>
  %scaled = linalg.generic {indexing_maps = [#id, #h, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%acc, %s : tensor<1x32x8x8xi32>, tensor<8xf32>) outs(%ef : tensor<1x32x8x8xf32>) {
  ^bb0(%a: i32, %c: f32, %o: f32):
    %f = arith.sitofp %a : i32 to f32
    %r = arith.mulf %f, %c : f32
    linalg.yield %r : f32
  } -> tensor<1x32x8x8xf32>
  return %scaled : tensor<1x32x8x8xf32>
}
