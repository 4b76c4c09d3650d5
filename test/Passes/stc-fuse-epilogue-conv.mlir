// stc-fuse-epilogue on stc.conv: a per-channel bias add (generic with a
// rank-1 operand indexed by the channel dimension, or linalg.add of a
// linalg.broadcast), a residual add of a same-shape tensor (becomes acc with
// beta = 1) and a ReLU, in any order of bias and residual before the ReLU,
// fold into one stc.conv. Through the NCHW transpose that
// stc-sparsify-convolutions leaves, the bias is indexed by dimension 1 and
// the residual is transposed back to NHWC. Left alone: ReLU before a bias
// or residual, a bias along a spatial dimension, several uses, a second
// residual.
// RUN: stc-opt %s --pass-pipeline='builtin.module(func.func(stc-fuse-epilogue))' | FileCheck %s

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#c3 = affine_map<(d0, d1, d2, d3) -> (d3)>
#c1 = affine_map<(d0, d1, d2, d3) -> (d1)>

// The ResNet bottleneck tail: conv -> bias -> add residual -> ReLU.
// CHECK-LABEL: func.func @bias_residual_relu
// CHECK-SAME: (%[[V:[^:]*]]: tensor<16x40xf32>, %[[M:[^:]*]]: tensor<16x5xi16>, %[[X:[^:]*]]: tensor<1x4x4x8xf32>, %[[B:[^:]*]]: tensor<16xf32>, %[[R:[^:]*]]: tensor<1x4x4x16xf32>)
// CHECK: %[[Y:.*]] = stc.conv %[[V]], %[[M]], %[[X]] bias(%[[B]] : tensor<16xf32>) acc(%[[R]] : tensor<1x4x4x16xf32>) {activation = #stc.activation<relu>, beta = 1.000000e+00 : f64, filter_size = array<i64: 3, 3>, pad_high = array<i64: 1, 1>, pad_low = array<i64: 1, 1>, pattern = #stc.nm<2:4>}
// CHECK-NOT: linalg.generic
// CHECK: return %[[Y]]
func.func @bias_residual_relu(%v: tensor<16x40xf32>, %m: tensor<16x5xi16>, %x: tensor<1x4x4x8xf32>, %b: tensor<16xf32>, %r: tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32> {
  %y = stc.conv %v, %m, %x {pattern = #stc.nm<2:4>, filter_size = array<i64: 3, 3>, pad_low = array<i64: 1, 1>, pad_high = array<i64: 1, 1>}
      : tensor<16x40xf32>, tensor<16x5xi16>, tensor<1x4x4x8xf32> -> tensor<1x4x4x16xf32>
  %e = tensor.empty() : tensor<1x4x4x16xf32>
  %yb = linalg.generic {indexing_maps = [#id, #c3, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%y, %b : tensor<1x4x4x16xf32>, tensor<16xf32>) outs(%e : tensor<1x4x4x16xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<1x4x4x16xf32>
  %ya = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%r, %yb : tensor<1x4x4x16xf32>, tensor<1x4x4x16xf32>) outs(%e : tensor<1x4x4x16xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %c, %a : f32
    linalg.yield %s : f32
  } -> tensor<1x4x4x16xf32>
  %zero = arith.constant 0.0 : f32
  %yr = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%ya : tensor<1x4x4x16xf32>) outs(%e : tensor<1x4x4x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.maximumf %a, %zero : f32
    linalg.yield %s : f32
  } -> tensor<1x4x4x16xf32>
  return %yr : tensor<1x4x4x16xf32>
}

// Residual first (linalg.add), then the bias as linalg.add of a
// linalg.broadcast along N, H, W, then ReLU as cmpf + select.
// CHECK-LABEL: func.func @named_residual_bias_relu
// CHECK-SAME: %[[B:[^:]*]]: tensor<16xf32>, %[[R:[^:]*]]: tensor<1x4x4x16xf32>)
// CHECK: %[[Y:.*]] = stc.conv {{.*}} bias(%[[B]] : tensor<16xf32>) acc(%[[R]] : tensor<1x4x4x16xf32>) {activation = #stc.activation<relu>, beta = 1.000000e+00 : f64
// CHECK-NOT: linalg.add
// CHECK-NOT: linalg.generic
// CHECK: return %[[Y]]
func.func @named_residual_bias_relu(%v: tensor<16x40xf32>, %m: tensor<16x5xi16>, %x: tensor<1x4x4x8xf32>, %b: tensor<16xf32>, %r: tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32> {
  %y = stc.conv %v, %m, %x {pattern = #stc.nm<2:4>, filter_size = array<i64: 3, 3>, pad_low = array<i64: 1, 1>, pad_high = array<i64: 1, 1>}
      : tensor<16x40xf32>, tensor<16x5xi16>, tensor<1x4x4x8xf32> -> tensor<1x4x4x16xf32>
  %e = tensor.empty() : tensor<1x4x4x16xf32>
  %ya = linalg.add ins(%y, %r : tensor<1x4x4x16xf32>, tensor<1x4x4x16xf32>) outs(%e : tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32>
  %bb = linalg.broadcast ins(%b : tensor<16xf32>) outs(%e : tensor<1x4x4x16xf32>) dimensions = [0, 1, 2]
  %yb = linalg.add ins(%bb, %ya : tensor<1x4x4x16xf32>, tensor<1x4x4x16xf32>) outs(%e : tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32>
  %zero = arith.constant 0.0 : f32
  %yr = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%yb : tensor<1x4x4x16xf32>) outs(%e : tensor<1x4x4x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %p = arith.cmpf ugt, %a, %zero : f32
    %s = arith.select %p, %a, %zero : f32
    linalg.yield %s : f32
  } -> tensor<1x4x4x16xf32>
  return %yr : tensor<1x4x4x16xf32>
}

// NCHW: bias (indexed by dimension 1), residual and ReLU after the
// transpose back to NCHW fold into the conv; the residual is transposed to
// NHWC for acc and the transpose stays, now of the fused conv.
// CHECK-LABEL: func.func @nchw
// CHECK-SAME: (%[[V:[^:]*]]: tensor<16x40xf32>, %[[M:[^:]*]]: tensor<16x5xi16>, %[[X:[^:]*]]: tensor<2x4x5x8xf32>, %[[B:[^:]*]]: tensor<16xf32>, %[[R:[^:]*]]: tensor<2x16x4x5xf32>)
// CHECK: %[[RI:.*]] = tensor.empty() : tensor<2x4x5x16xf32>
// CHECK: %[[RT:.*]] = linalg.transpose ins(%[[R]] : tensor<2x16x4x5xf32>) outs(%[[RI]] : tensor<2x4x5x16xf32>) permutation = [0, 2, 3, 1]
// CHECK: %[[Y:.*]] = stc.conv %[[V]], %[[M]], %[[X]] bias(%[[B]] : tensor<16xf32>) acc(%[[RT]] : tensor<2x4x5x16xf32>) {activation = #stc.activation<relu>, beta = 1.000000e+00 : f64
// CHECK: %[[T:.*]] = linalg.transpose ins(%[[Y]] : tensor<2x4x5x16xf32>) outs(%{{.*}} : tensor<2x16x4x5xf32>) permutation = [0, 3, 1, 2]
// CHECK-NOT: linalg.generic
// CHECK: return %[[T]]
func.func @nchw(%v: tensor<16x40xf32>, %m: tensor<16x5xi16>, %x: tensor<2x4x5x8xf32>, %b: tensor<16xf32>, %r: tensor<2x16x4x5xf32>) -> tensor<2x16x4x5xf32> {
  %y = stc.conv %v, %m, %x {pattern = #stc.nm<2:4>, filter_size = array<i64: 3, 3>, pad_low = array<i64: 1, 1>, pad_high = array<i64: 1, 1>}
      : tensor<16x40xf32>, tensor<16x5xi16>, tensor<2x4x5x8xf32> -> tensor<2x4x5x16xf32>
  %te = tensor.empty() : tensor<2x16x4x5xf32>
  %t = linalg.transpose ins(%y : tensor<2x4x5x16xf32>) outs(%te : tensor<2x16x4x5xf32>) permutation = [0, 3, 1, 2]
  %e = tensor.empty() : tensor<2x16x4x5xf32>
  %yb = linalg.generic {indexing_maps = [#id, #c1, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%t, %b : tensor<2x16x4x5xf32>, tensor<16xf32>) outs(%e : tensor<2x16x4x5xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<2x16x4x5xf32>
  %ya = linalg.add ins(%yb, %r : tensor<2x16x4x5xf32>, tensor<2x16x4x5xf32>) outs(%e : tensor<2x16x4x5xf32>) -> tensor<2x16x4x5xf32>
  %zero = arith.constant 0.0 : f32
  %yr = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%ya : tensor<2x16x4x5xf32>) outs(%e : tensor<2x16x4x5xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.maximumf %a, %zero : f32
    linalg.yield %s : f32
  } -> tensor<2x16x4x5xf32>
  return %yr : tensor<2x16x4x5xf32>
}

// ReLU first: the ReLU folds, the later bias add and residual add do not
// (act(conv) + bias is not act(conv + bias)).
// CHECK-LABEL: func.func @relu_then_bias_and_residual
// CHECK: %[[Y:.*]] = stc.conv %{{.*}}, %{{.*}}, %{{.*}} {activation = #stc.activation<relu>, filter_size
// CHECK: linalg.generic {{.*}} ins(%[[Y]], %{{.*}} : tensor<1x4x4x16xf32>, tensor<16xf32>)
// CHECK: linalg.add
func.func @relu_then_bias_and_residual(%v: tensor<16x40xf32>, %m: tensor<16x5xi16>, %x: tensor<1x4x4x8xf32>, %b: tensor<16xf32>, %r: tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32> {
  %y = stc.conv %v, %m, %x {pattern = #stc.nm<2:4>, filter_size = array<i64: 3, 3>, pad_low = array<i64: 1, 1>, pad_high = array<i64: 1, 1>}
      : tensor<16x40xf32>, tensor<16x5xi16>, tensor<1x4x4x8xf32> -> tensor<1x4x4x16xf32>
  %e = tensor.empty() : tensor<1x4x4x16xf32>
  %zero = arith.constant 0.0 : f32
  %yr = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%y : tensor<1x4x4x16xf32>) outs(%e : tensor<1x4x4x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.maximumf %a, %zero : f32
    linalg.yield %s : f32
  } -> tensor<1x4x4x16xf32>
  %yb = linalg.generic {indexing_maps = [#id, #c3, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%yr, %b : tensor<1x4x4x16xf32>, tensor<16xf32>) outs(%e : tensor<1x4x4x16xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<1x4x4x16xf32>
  %ya = linalg.add ins(%yb, %r : tensor<1x4x4x16xf32>, tensor<1x4x4x16xf32>) outs(%e : tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32>
  return %ya : tensor<1x4x4x16xf32>
}

// Not folded: a bias indexed by a spatial dimension (W has 16 elements
// too), a conv result with two uses, and a second residual once acc is set.
// CHECK-LABEL: func.func @not_fused
// CHECK: %[[Y:.*]] = stc.conv %{{.*}}, %{{.*}}, %{{.*}} {filter_size
// CHECK: linalg.generic {{.*}} ins(%[[Y]], %{{.*}} : tensor<1x16x16x16xf32>, tensor<16xf32>)
// CHECK: %[[Y2:.*]] = stc.conv %{{.*}}, %{{.*}}, %{{.*}} {filter_size
// CHECK: linalg.add ins(%[[Y2]], %[[Y2]]
// CHECK: %[[Y3:.*]] = stc.conv %{{.*}}, %{{.*}}, %{{.*}} acc(%{{.*}} : tensor<1x16x16x16xf32>) {beta = 1.000000e+00 : f64
// CHECK: linalg.add ins(%[[Y3]], %{{.*}}
func.func @not_fused(%v: tensor<16x40xf32>, %m: tensor<16x5xi16>, %x: tensor<1x16x16x8xf32>, %b: tensor<16xf32>, %r: tensor<1x16x16x16xf32>) -> (tensor<1x16x16x16xf32>, tensor<1x16x16x16xf32>, tensor<1x16x16x16xf32>) {
  %y = stc.conv %v, %m, %x {pattern = #stc.nm<2:4>, filter_size = array<i64: 3, 3>, pad_low = array<i64: 1, 1>, pad_high = array<i64: 1, 1>}
      : tensor<16x40xf32>, tensor<16x5xi16>, tensor<1x16x16x8xf32> -> tensor<1x16x16x16xf32>
  %e = tensor.empty() : tensor<1x16x16x16xf32>
  %yb = linalg.generic {indexing_maps = [#id, affine_map<(d0, d1, d2, d3) -> (d2)>, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%y, %b : tensor<1x16x16x16xf32>, tensor<16xf32>) outs(%e : tensor<1x16x16x16xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<1x16x16x16xf32>
  %y2 = stc.conv %v, %m, %x {pattern = #stc.nm<2:4>, filter_size = array<i64: 3, 3>, pad_low = array<i64: 1, 1>, pad_high = array<i64: 1, 1>}
      : tensor<16x40xf32>, tensor<16x5xi16>, tensor<1x16x16x8xf32> -> tensor<1x16x16x16xf32>
  %d = linalg.add ins(%y2, %y2 : tensor<1x16x16x16xf32>, tensor<1x16x16x16xf32>) outs(%e : tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32>
  %y3 = stc.conv %v, %m, %x {pattern = #stc.nm<2:4>, filter_size = array<i64: 3, 3>, pad_low = array<i64: 1, 1>, pad_high = array<i64: 1, 1>}
      : tensor<16x40xf32>, tensor<16x5xi16>, tensor<1x16x16x8xf32> -> tensor<1x16x16x16xf32>
  %a1 = linalg.add ins(%y3, %r : tensor<1x16x16x16xf32>, tensor<1x16x16x16xf32>) outs(%e : tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32>
  %a2 = linalg.add ins(%a1, %r : tensor<1x16x16x16xf32>, tensor<1x16x16x16xf32>) outs(%e : tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32>
  return %yb, %d, %a2 : tensor<1x16x16x16xf32>, tensor<1x16x16x16xf32>, tensor<1x16x16x16xf32>
}
