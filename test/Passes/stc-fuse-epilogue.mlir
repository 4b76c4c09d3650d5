// stc-fuse-epilogue: a bias add (generic or linalg.add of linalg.broadcast)
// and a ReLU (maximumf or cmpf + select) that consume a single-use stc.spmm
// become its bias operand and activation, in epilogue order; anything else
// (wrong bias dimension, ReLU before bias, several uses) is left alone.
// RUN: stc-opt %s --pass-pipeline='builtin.module(func.func(stc-fuse-epilogue))' | FileCheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
#row = affine_map<(d0, d1) -> (d0)>

// Sparse rhs: the bias has one element per output column, map (d0, d1) -> (d1).
// CHECK-LABEL: func.func @bias_add
// CHECK-SAME: (%[[V:[^:]*]]: tensor<16x16xf32>, %[[M:[^:]*]]: tensor<16x2xi16>, %[[X:[^:]*]]: tensor<8x32xf32>, %[[B:[^:]*]]: tensor<16xf32>)
// CHECK: %[[Y:.*]] = stc.spmm %[[V]], %[[M]], %[[X]] bias(%[[B]] : tensor<16xf32>) {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>} : tensor<16x16xf32>, tensor<16x2xi16>, tensor<8x32xf32> -> tensor<8x16xf32>
// CHECK-NOT: linalg.generic
// CHECK: return %[[Y]]
func.func @bias_add(%v: tensor<16x16xf32>, %m: tensor<16x2xi16>, %x: tensor<8x32xf32>, %b: tensor<16xf32>) -> tensor<8x16xf32> {
  %y = stc.spmm %v, %m, %x {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>} : tensor<16x16xf32>, tensor<16x2xi16>, tensor<8x32xf32> -> tensor<8x16xf32>
  %e = tensor.empty() : tensor<8x16xf32>
  %r = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y, %b : tensor<8x16xf32>, tensor<16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// The bias may be the first input of the add (operands commuted too).
// CHECK-LABEL: func.func @bias_add_commuted
// CHECK-SAME: (%[[V:[^:]*]]: tensor<16x16xf32>, %[[M:[^:]*]]: tensor<16x2xi16>, %[[X:[^:]*]]: tensor<8x32xf32>, %[[B:[^:]*]]: tensor<16xf32>)
// CHECK: %[[Y:.*]] = stc.spmm %[[V]], %[[M]], %[[X]] bias(%[[B]] : tensor<16xf32>)
// CHECK-NOT: linalg.generic
// CHECK: return %[[Y]]
func.func @bias_add_commuted(%v: tensor<16x16xf32>, %m: tensor<16x2xi16>, %x: tensor<8x32xf32>, %b: tensor<16xf32>) -> tensor<8x16xf32> {
  %y = stc.spmm %v, %m, %x {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>} : tensor<16x16xf32>, tensor<16x2xi16>, tensor<8x32xf32> -> tensor<8x16xf32>
  %e = tensor.empty() : tensor<8x16xf32>
  %r = linalg.generic {indexing_maps = [#col, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b, %y : tensor<16xf32>, tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%c: f32, %a: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// Sparse lhs: the bias has one element per output row, map (d0, d1) -> (d0).
// CHECK-LABEL: func.func @bias_add_lhs
// CHECK-SAME: %[[B:[^:]*]]: tensor<16xf32>)
// CHECK: %[[Y:.*]] = stc.spmm %{{.*}}, %{{.*}}, %{{.*}} bias(%[[B]] : tensor<16xf32>) {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>}
// CHECK-NOT: linalg.generic
// CHECK: return %[[Y]]
func.func @bias_add_lhs(%v: tensor<16x16xf32>, %m: tensor<16x2xi16>, %d: tensor<32x8xf32>, %b: tensor<16xf32>) -> tensor<16x8xf32> {
  %y = stc.spmm %v, %m, %d {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>} : tensor<16x16xf32>, tensor<16x2xi16>, tensor<32x8xf32> -> tensor<16x8xf32>
  %e = tensor.empty() : tensor<16x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y, %b : tensor<16x8xf32>, tensor<16xf32>) outs(%e : tensor<16x8xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<16x8xf32>
  return %r : tensor<16x8xf32>
}

// ReLU as max(x, 0).
// CHECK-LABEL: func.func @relu_maximumf
// CHECK-SAME: (%[[V:[^:]*]]: tensor<16x16xf32>, %[[M:[^:]*]]: tensor<16x2xi16>, %[[X:[^:]*]]: tensor<8x32xf32>)
// CHECK: %[[Y:.*]] = stc.spmm %[[V]], %[[M]], %[[X]] {activation = #stc.activation<relu>, pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>} : tensor<16x16xf32>, tensor<16x2xi16>, tensor<8x32xf32> -> tensor<8x16xf32>
// CHECK-NOT: linalg.generic
// CHECK: return %[[Y]]
func.func @relu_maximumf(%v: tensor<16x16xf32>, %m: tensor<16x2xi16>, %x: tensor<8x32xf32>) -> tensor<8x16xf32> {
  %y = stc.spmm %v, %m, %x {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>} : tensor<16x16xf32>, tensor<16x2xi16>, tensor<8x32xf32> -> tensor<8x16xf32>
  %e = tensor.empty() : tensor<8x16xf32>
  %zero = arith.constant 0.0 : f32
  %q = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.maximumf %a, %zero : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  return %q : tensor<8x16xf32>
}

// ReLU as select(x > 0, x, 0).
// CHECK-LABEL: func.func @relu_cmpf_select
// CHECK-SAME: (%[[V:[^:]*]]: tensor<16x16xf32>, %[[M:[^:]*]]: tensor<16x2xi16>, %[[X:[^:]*]]: tensor<8x32xf32>)
// CHECK: %[[Y:.*]] = stc.spmm %[[V]], %[[M]], %[[X]] {activation = #stc.activation<relu>, pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>}
// CHECK-NOT: arith.select
// CHECK: return %[[Y]]
func.func @relu_cmpf_select(%v: tensor<16x16xf32>, %m: tensor<16x2xi16>, %x: tensor<8x32xf32>) -> tensor<8x16xf32> {
  %y = stc.spmm %v, %m, %x {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>} : tensor<16x16xf32>, tensor<16x2xi16>, tensor<8x32xf32> -> tensor<8x16xf32>
  %e = tensor.empty() : tensor<8x16xf32>
  %zero = arith.constant 0.0 : f32
  %q = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %p = arith.cmpf ugt, %a, %zero : f32
    %s = arith.select %p, %a, %zero : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  return %q : tensor<8x16xf32>
}

// Bias then ReLU: both fold into one stc.spmm.
// CHECK-LABEL: func.func @bias_then_relu
// CHECK-SAME: (%[[V:[^:]*]]: tensor<16x16xf32>, %[[M:[^:]*]]: tensor<16x2xi16>, %[[X:[^:]*]]: tensor<8x32xf32>, %[[B:[^:]*]]: tensor<16xf32>)
// CHECK: %[[Y:.*]] = stc.spmm %[[V]], %[[M]], %[[X]] bias(%[[B]] : tensor<16xf32>) {activation = #stc.activation<relu>, pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>}
// CHECK-NOT: linalg.generic
// CHECK-NOT: stc.spmm
// CHECK: return %[[Y]]
func.func @bias_then_relu(%v: tensor<16x16xf32>, %m: tensor<16x2xi16>, %x: tensor<8x32xf32>, %b: tensor<16xf32>) -> tensor<8x16xf32> {
  %y = stc.spmm %v, %m, %x {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>} : tensor<16x16xf32>, tensor<16x2xi16>, tensor<8x32xf32> -> tensor<8x16xf32>
  %e = tensor.empty() : tensor<8x16xf32>
  %r = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y, %b : tensor<8x16xf32>, tensor<16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  %zero = arith.constant 0.0 : f32
  %q = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%r : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.maximumf %a, %zero : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  return %q : tensor<8x16xf32>
}

// The named form: linalg.add(spmm, linalg.broadcast(bias) along rows).
// CHECK-LABEL: func.func @broadcast_add
// CHECK-SAME: (%[[V:[^:]*]]: tensor<16x16xf32>, %[[M:[^:]*]]: tensor<16x2xi16>, %[[X:[^:]*]]: tensor<8x32xf32>, %[[B:[^:]*]]: tensor<16xf32>)
// CHECK: %[[Y:.*]] = stc.spmm %[[V]], %[[M]], %[[X]] bias(%[[B]] : tensor<16xf32>) {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>}
// CHECK-NOT: linalg.add
// CHECK: return %[[Y]]
func.func @broadcast_add(%v: tensor<16x16xf32>, %m: tensor<16x2xi16>, %x: tensor<8x32xf32>, %b: tensor<16xf32>) -> tensor<8x16xf32> {
  %y = stc.spmm %v, %m, %x {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>} : tensor<16x16xf32>, tensor<16x2xi16>, tensor<8x32xf32> -> tensor<8x16xf32>
  %e = tensor.empty() : tensor<8x16xf32>
  %bb = linalg.broadcast ins(%b : tensor<16xf32>) outs(%e : tensor<8x16xf32>) dimensions = [0]
  %r = linalg.add ins(%y, %bb : tensor<8x16xf32>, tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// A per-row bias (d0) after a sparse rhs is not the spmm bias: not fused.
// CHECK-LABEL: func.func @bias_wrong_dim
// CHECK: %[[Y:.*]] = stc.spmm
// CHECK-NOT: bias(
// CHECK-SAME: sparse = #stc.operand<rhs>}
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[Y]], %{{.*}} : tensor<8x16xf32>, tensor<8xf32>)
// CHECK: return %[[R]]
func.func @bias_wrong_dim(%v: tensor<16x16xf32>, %m: tensor<16x2xi16>, %x: tensor<8x32xf32>, %b: tensor<8xf32>) -> tensor<8x16xf32> {
  %y = stc.spmm %v, %m, %x {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>} : tensor<16x16xf32>, tensor<16x2xi16>, tensor<8x32xf32> -> tensor<8x16xf32>
  %e = tensor.empty() : tensor<8x16xf32>
  %r = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y, %b : tensor<8x16xf32>, tensor<8xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// A broadcast along the wrong dimension is not fused either.
// CHECK-LABEL: func.func @broadcast_wrong_dim
// CHECK: %[[Y:.*]] = stc.spmm {{.*}} {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>}
// CHECK: %[[R:.*]] = linalg.add ins(%[[Y]],
// CHECK: return %[[R]]
func.func @broadcast_wrong_dim(%v: tensor<16x16xf32>, %m: tensor<16x2xi16>, %x: tensor<8x32xf32>, %b: tensor<8xf32>) -> tensor<8x16xf32> {
  %y = stc.spmm %v, %m, %x {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>} : tensor<16x16xf32>, tensor<16x2xi16>, tensor<8x32xf32> -> tensor<8x16xf32>
  %e = tensor.empty() : tensor<8x16xf32>
  %bb = linalg.broadcast ins(%b : tensor<8xf32>) outs(%e : tensor<8x16xf32>) dimensions = [1]
  %r = linalg.add ins(%y, %bb : tensor<8x16xf32>, tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// ReLU before the bias: the ReLU folds, but a bias cannot be added after
// the activation, so the bias add stays.
// CHECK-LABEL: func.func @relu_then_bias
// CHECK: %[[Y:.*]] = stc.spmm
// CHECK-NOT: bias(
// CHECK-SAME: {activation = #stc.activation<relu>, pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>}
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[Y]], %{{.*}} : tensor<8x16xf32>, tensor<16xf32>)
// CHECK: arith.addf
// CHECK: return %[[R]]
func.func @relu_then_bias(%v: tensor<16x16xf32>, %m: tensor<16x2xi16>, %x: tensor<8x32xf32>, %b: tensor<16xf32>) -> tensor<8x16xf32> {
  %y = stc.spmm %v, %m, %x {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>} : tensor<16x16xf32>, tensor<16x2xi16>, tensor<8x32xf32> -> tensor<8x16xf32>
  %e = tensor.empty() : tensor<8x16xf32>
  %zero = arith.constant 0.0 : f32
  %q = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.maximumf %a, %zero : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  %r = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%q, %b : tensor<8x16xf32>, tensor<16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// The spmm result has two uses: fusing would change the other one.
// CHECK-LABEL: func.func @multi_use
// CHECK: %[[Y:.*]] = stc.spmm
// CHECK-NOT: activation
// CHECK-SAME: {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>}
// CHECK: %[[Q:.*]] = linalg.generic {{.*}} ins(%[[Y]] : tensor<8x16xf32>)
// CHECK: arith.maximumf
// CHECK: return %[[Q]], %[[Y]]
func.func @multi_use(%v: tensor<16x16xf32>, %m: tensor<16x2xi16>, %x: tensor<8x32xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>) {
  %y = stc.spmm %v, %m, %x {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>} : tensor<16x16xf32>, tensor<16x2xi16>, tensor<8x32xf32> -> tensor<8x16xf32>
  %e = tensor.empty() : tensor<8x16xf32>
  %zero = arith.constant 0.0 : f32
  %q = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.maximumf %a, %zero : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  return %q, %y : tensor<8x16xf32>, tensor<8x16xf32>
}

// max(x, 1) is not a ReLU.
// CHECK-LABEL: func.func @not_relu
// CHECK: %[[Y:.*]] = stc.spmm {{.*}} {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>}
// CHECK: linalg.generic {{.*}} ins(%[[Y]] : tensor<8x16xf32>)
func.func @not_relu(%v: tensor<16x16xf32>, %m: tensor<16x2xi16>, %x: tensor<8x32xf32>) -> tensor<8x16xf32> {
  %y = stc.spmm %v, %m, %x {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>} : tensor<16x16xf32>, tensor<16x2xi16>, tensor<8x32xf32> -> tensor<8x16xf32>
  %e = tensor.empty() : tensor<8x16xf32>
  %one = arith.constant 1.0 : f32
  %q = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.maximumf %a, %one : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  return %q : tensor<8x16xf32>
}
