// stc-fuse-epilogue: a whole element-wise tail written as one generic after
// a stc.spmm (bias add, residual add, tanh or erf GELU or ReLU, and a cast
// to a narrower float, as a transformer's linears write them) becomes the
// spmm's bias, acc (beta = 1), activation and result type. Tails that are
// not act(x + bias + residual) are left alone.
// RUN: stc-opt %s --pass-pipeline='builtin.module(func.func(stc-fuse-epilogue))' | FileCheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
#row = affine_map<(d0, d1) -> (d0)>

// Bias, tanh GELU in f32, rounded to f16: one spmm with an f16 result.
// CHECK-LABEL: func.func @bias_gelu_tanh_f16
// CHECK-SAME: %[[B:[^:]*]]: tensor<16xf32>)
// CHECK: %[[Y:.*]] = stc.spmm %{{.*}}, %{{.*}}, %{{.*}} bias(%[[B]] : tensor<16xf32>) {activation = #stc.activation<gelu_tanh>, pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>} : tensor<16x16xf16>, tensor<16x2xi16>, tensor<8x32xf16> -> tensor<8x16xf16>
// CHECK-NOT: linalg.generic
// CHECK: return %[[Y]]
func.func @bias_gelu_tanh_f16(%v: tensor<16x16xf16>, %m: tensor<16x2xi16>, %x: tensor<8x32xf16>, %b: tensor<16xf32>) -> tensor<8x16xf16> {
  %y = stc.spmm %v, %m, %x {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>} : tensor<16x16xf16>, tensor<16x2xi16>, tensor<8x32xf16> -> tensor<8x16xf32>
  %e = tensor.empty() : tensor<8x16xf16>
  %r = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y, %b : tensor<8x16xf32>, tensor<16xf32>) outs(%e : tensor<8x16xf16>) {
  ^bb0(%a: f32, %c: f32, %o: f16):
    %s = arith.addf %a, %c : f32
    %k0 = arith.constant 0.797884583 : f32
    %k1 = arith.constant 0.044715 : f32
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %s2 = arith.mulf %s, %s : f32
    %s3 = arith.mulf %s2, %s : f32
    %t0 = arith.mulf %s3, %k1 : f32
    %t1 = arith.addf %s, %t0 : f32
    %t2 = arith.mulf %t1, %k0 : f32
    %t = math.tanh %t2 : f32
    %t3 = arith.addf %t, %one : f32
    %t4 = arith.mulf %t3, %half : f32
    %g = arith.mulf %s, %t4 : f32
    %g16 = arith.truncf %g : f32 to f16
    linalg.yield %g16 : f16
  } -> tensor<8x16xf16>
  return %r : tensor<8x16xf16>
}

// Bias and an f16 residual (widened), summed the other way round: bias and
// acc with beta = 1.
// CHECK-LABEL: func.func @bias_residual
// CHECK-SAME: %[[B:[^:]*]]: tensor<16xf32>, %[[H:[^:]*]]: tensor<8x16xf16>)
// CHECK: %[[Y:.*]] = stc.spmm %{{.*}}, %{{.*}}, %{{.*}} bias(%[[B]] : tensor<16xf32>) acc(%[[H]] : tensor<8x16xf16>) {beta = 1.000000e+00 : f64, pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>} : {{.*}} -> tensor<8x16xf32>
// CHECK-NOT: linalg.generic
// CHECK: return %[[Y]]
func.func @bias_residual(%v: tensor<16x16xf16>, %m: tensor<16x2xi16>, %x: tensor<8x32xf16>, %b: tensor<16xf32>, %h: tensor<8x16xf16>) -> tensor<8x16xf32> {
  %y = stc.spmm %v, %m, %x {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>} : tensor<16x16xf16>, tensor<16x2xi16>, tensor<8x32xf16> -> tensor<8x16xf32>
  %e = tensor.empty() : tensor<8x16xf32>
  %r = linalg.generic {indexing_maps = [#id, #col, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y, %b, %h : tensor<8x16xf32>, tensor<16xf32>, tensor<8x16xf16>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %c: f32, %r16: f16, %o: f32):
    %r32 = arith.extf %r16 : f16 to f32
    %s = arith.addf %c, %r32 : f32
    %w = arith.addf %s, %a : f32
    linalg.yield %w : f32
  } -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// ReLU of a residual sum, for a sparse lhs (bias would be per row).
// CHECK-LABEL: func.func @residual_relu_lhs
// CHECK: stc.spmm {{.*}} acc(%{{.*}} : tensor<16x8xf32>) {activation = #stc.activation<relu>, beta = 1.000000e+00 : f64
// CHECK-NOT: linalg.generic
func.func @residual_relu_lhs(%v: tensor<16x16xf32>, %m: tensor<16x2xi16>, %d: tensor<32x8xf32>, %r0: tensor<16x8xf32>) -> tensor<16x8xf32> {
  %y = stc.spmm %v, %m, %d {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>} : tensor<16x16xf32>, tensor<16x2xi16>, tensor<32x8xf32> -> tensor<16x8xf32>
  %e = tensor.empty() : tensor<16x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%r0, %y : tensor<16x8xf32>, tensor<16x8xf32>) outs(%e : tensor<16x8xf32>) {
  ^bb0(%p: f32, %a: f32, %o: f32):
    %zero = arith.constant 0.0 : f32
    %s = arith.addf %a, %p : f32
    %z = arith.maximumf %s, %zero : f32
    linalg.yield %z : f32
  } -> tensor<16x8xf32>
  return %r : tensor<16x8xf32>
}

// The erf GELU of the product alone (widened from f16), rounded to bf16.
// CHECK-LABEL: func.func @gelu_erf_only
// CHECK: stc.spmm {{.*}} {activation = #stc.activation<gelu_erf>, {{.*}} -> tensor<8x16xbf16>
// CHECK-NOT: linalg.generic
func.func @gelu_erf_only(%v: tensor<16x16xf16>, %m: tensor<16x2xi16>, %x: tensor<8x32xf16>) -> tensor<8x16xbf16> {
  %y = stc.spmm %v, %m, %x {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>} : tensor<16x16xf16>, tensor<16x2xi16>, tensor<8x32xf16> -> tensor<8x16xf16>
  %e = tensor.empty() : tensor<8x16xbf16>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<8x16xf16>) outs(%e : tensor<8x16xbf16>) {
  ^bb0(%a: f16, %o: bf16):
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %rs2 = arith.constant 0.70710678 : f32
    %a32 = arith.extf %a : f16 to f32
    %h = arith.mulf %a32, %half : f32
    %z = arith.mulf %a32, %rs2 : f32
    %erf = math.erf %z : f32
    %s = arith.addf %erf, %one : f32
    %g = arith.mulf %h, %s : f32
    %g16 = arith.truncf %g : f32 to bf16
    linalg.yield %g16 : bf16
  } -> tensor<8x16xbf16>
  return %r : tensor<8x16xbf16>
}

// Left alone: x read twice, a product in the sum, the bias on the wrong
// dimension, a residual that is broadcast, a sum in f16.
// CHECK-LABEL: func.func @not_tails
// CHECK-COUNT-5: linalg.generic
func.func @not_tails(%v: tensor<16x16xf16>, %m: tensor<16x2xi16>, %x: tensor<8x32xf16>, %b: tensor<16xf32>, %b8: tensor<8xf32>, %r1: tensor<1x16xf32>)
    -> (tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf16>) {
  %e = tensor.empty() : tensor<8x16xf32>
  %e16 = tensor.empty() : tensor<8x16xf16>
  %y0 = stc.spmm %v, %m, %x {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>} : tensor<16x16xf16>, tensor<16x2xi16>, tensor<8x32xf16> -> tensor<8x16xf32>
  %twice = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y0 : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %a : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  %y1 = stc.spmm %v, %m, %x {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>} : tensor<16x16xf16>, tensor<16x2xi16>, tensor<8x32xf16> -> tensor<8x16xf32>
  %scaled = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y1, %b : tensor<8x16xf32>, tensor<16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %p = arith.mulf %a, %c : f32
    %s = arith.addf %p, %c : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  %y2 = stc.spmm %v, %m, %x {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>} : tensor<16x16xf16>, tensor<16x2xi16>, tensor<8x32xf16> -> tensor<8x16xf32>
  %rowbias = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y2, %b8 : tensor<8x16xf32>, tensor<8xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %zero = arith.constant 0.0 : f32
    %s = arith.addf %a, %c : f32
    %z = arith.maximumf %s, %zero : f32
    linalg.yield %z : f32
  } -> tensor<8x16xf32>
  %y3 = stc.spmm %v, %m, %x {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>} : tensor<16x16xf16>, tensor<16x2xi16>, tensor<8x32xf16> -> tensor<8x16xf32>
  %bcast = linalg.generic {indexing_maps = [#id, affine_map<(d0, d1) -> (0, d1)>, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y3, %r1 : tensor<8x16xf32>, tensor<1x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  %y4 = stc.spmm %v, %m, %x {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>} : tensor<16x16xf16>, tensor<16x2xi16>, tensor<8x32xf16> -> tensor<8x16xf16>
  %f16sum = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y4, %b : tensor<8x16xf16>, tensor<16xf32>) outs(%e16 : tensor<8x16xf16>) {
  ^bb0(%a: f16, %c: f32, %o: f16):
    %c16 = arith.truncf %c : f32 to f16
    %s = arith.addf %a, %c16 : f16
    linalg.yield %s : f16
  } -> tensor<8x16xf16>
  return %twice, %scaled, %rowbias, %bcast, %f16sum : tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf16>
}

// A residual add after a stc.spmm that has its bias already (a frontend
// that writes the bias into stc.spmm, then a transformer block's residual):
// the residual becomes acc (beta = 1), as a generic or as linalg.add.
// CHECK-LABEL: func.func @bias_then_residual
// CHECK-SAME: %[[X:[^:]*]]: tensor<8x32xf16>, %[[B:[^:]*]]: tensor<16xf32>, %[[R:[^:]*]]: tensor<8x16xf16>)
// CHECK: %[[Y:.*]] = stc.spmm %{{.*}}, %{{.*}}, %[[X]] bias(%[[B]] : tensor<16xf32>) acc(%[[R]] : tensor<8x16xf16>) {beta = 1.000000e+00 : f64, pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>}
// CHECK: %[[Z:.*]] = stc.spmm %{{.*}}, %{{.*}}, %[[X]] bias(%[[B]] : tensor<16xf32>) acc(%[[Y]] : tensor<8x16xf16>) {beta = 1.000000e+00 : f64, pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>}
// CHECK-NOT: linalg
// CHECK: return %[[Z]]
func.func @bias_then_residual(%v: tensor<16x16xf16>, %m: tensor<16x2xi16>, %x: tensor<8x32xf16>, %b: tensor<16xf32>, %res: tensor<8x16xf16>) -> tensor<8x16xf16> {
  %y = stc.spmm %v, %m, %x bias(%b : tensor<16xf32>) {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>} : tensor<16x16xf16>, tensor<16x2xi16>, tensor<8x32xf16> -> tensor<8x16xf16>
  %e = tensor.empty() : tensor<8x16xf16>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%res, %y : tensor<8x16xf16>, tensor<8x16xf16>) outs(%e : tensor<8x16xf16>) {
  ^bb0(%a: f16, %c: f16, %o: f16):
    %s = arith.addf %a, %c : f16
    linalg.yield %s : f16
  } -> tensor<8x16xf16>
  %z = stc.spmm %v, %m, %x bias(%b : tensor<16xf32>) {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>} : tensor<16x16xf16>, tensor<16x2xi16>, tensor<8x32xf16> -> tensor<8x16xf16>
  %e2 = tensor.empty() : tensor<8x16xf16>
  %w = linalg.add ins(%z, %r : tensor<8x16xf16>, tensor<8x16xf16>) outs(%e2 : tensor<8x16xf16>) -> tensor<8x16xf16>
  return %w : tensor<8x16xf16>
}

// After an activation the residual is added to act(x + bias), which the
// epilogue (act(x + bias + acc)) cannot compute: left alone.
// CHECK-LABEL: func.func @activation_then_residual
// CHECK: stc.spmm
// CHECK-NOT: acc(
// CHECK: linalg.generic
func.func @activation_then_residual(%v: tensor<16x16xf16>, %m: tensor<16x2xi16>, %x: tensor<8x32xf16>, %b: tensor<16xf32>, %res: tensor<8x16xf16>) -> tensor<8x16xf16> {
  %y = stc.spmm %v, %m, %x bias(%b : tensor<16xf32>) {activation = #stc.activation<relu>, pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>} : tensor<16x16xf16>, tensor<16x2xi16>, tensor<8x32xf16> -> tensor<8x16xf16>
  %e = tensor.empty() : tensor<8x16xf16>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y, %res : tensor<8x16xf16>, tensor<8x16xf16>) outs(%e : tensor<8x16xf16>) {
  ^bb0(%a: f16, %c: f16, %o: f16):
    %s = arith.addf %a, %c : f16
    linalg.yield %s : f16
  } -> tensor<8x16xf16>
  return %r : tensor<8x16xf16>
}
