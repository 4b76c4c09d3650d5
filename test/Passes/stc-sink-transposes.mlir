// RUN: stc-opt %s --stc-sink-transposes --canonicalize --split-input-file | FileCheck %s

// Between two NHWC convolutions of an NCHW program: the transpose to NCHW
// travels behind the bias add and the ReLU and meets the one back to NHWC;
// both fold away, and the bias is read along the last (channel) dimension.
// CHECK-DAG: #[[$ID:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[$CH:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d3)>
// CHECK-LABEL: func.func @between_convs
// CHECK-SAME: (%[[X:.*]]: tensor<2x5x7x8xf32>, %[[B:.*]]: tensor<8xf32>)
// CHECK-NOT: linalg.transpose
// CHECK: %[[ADD:.*]] = linalg.generic
// CHECK-SAME: indexing_maps = [#[[$ID]], #[[$CH]], #[[$ID]]]
// CHECK-SAME: ins(%[[X]], %[[B]] : tensor<2x5x7x8xf32>, tensor<8xf32>)
// CHECK: arith.addf
// CHECK: %[[RELU:.*]] = linalg.generic
// CHECK-SAME: ins(%[[ADD]] : tensor<2x5x7x8xf32>)
// CHECK: arith.maximumf
// CHECK-NOT: linalg.transpose
// CHECK: return %[[RELU]] : tensor<2x5x7x8xf32>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1)>
func.func @between_convs(%x: tensor<2x5x7x8xf32>, %b: tensor<8xf32>) -> tensor<2x5x7x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<2x8x5x7xf32>
  %nchw = linalg.transpose ins(%x : tensor<2x5x7x8xf32>) outs(%e0 : tensor<2x8x5x7xf32>) permutation = [0, 3, 1, 2]
  %e1 = tensor.empty() : tensor<2x8x5x7xf32>
  %add = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%nchw, %b : tensor<2x8x5x7xf32>, tensor<8xf32>) outs(%e1 : tensor<2x8x5x7xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<2x8x5x7xf32>
  %e2 = tensor.empty() : tensor<2x8x5x7xf32>
  %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%add : tensor<2x8x5x7xf32>) outs(%e2 : tensor<2x8x5x7xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<2x8x5x7xf32>
  %e3 = tensor.empty() : tensor<2x5x7x8xf32>
  %nhwc = linalg.transpose ins(%relu : tensor<2x8x5x7xf32>) outs(%e3 : tensor<2x5x7x8xf32>) permutation = [0, 2, 3, 1]
  return %nhwc : tensor<2x5x7x8xf32>
}

// -----

// At the end of the chain the transpose lands behind the last element-wise
// op; a residual in NCHW is read through the permuted map, and a dynamic
// batch keeps its size.
// CHECK: #[[$ID2:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK: #[[$PERM:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d1, d2)>
// CHECK-LABEL: func.func @to_result
// CHECK-SAME: (%[[X:.*]]: tensor<?x5x7x8xf32>, %[[R:.*]]: tensor<?x8x5x7xf32>)
// CHECK: %[[SUM:.*]] = linalg.generic
// CHECK-SAME: indexing_maps = [#[[$ID2]], #[[$PERM]], #[[$ID2]]]
// CHECK-SAME: ins(%[[X]], %[[R]] : tensor<?x5x7x8xf32>, tensor<?x8x5x7xf32>) outs(%{{.*}} : tensor<?x5x7x8xf32>)
// CHECK: %[[T:.*]] = linalg.transpose ins(%[[SUM]] : tensor<?x5x7x8xf32>) outs(%{{.*}} : tensor<?x8x5x7xf32>) permutation = [0, 3, 1, 2]
// CHECK: return %[[T]]
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @to_result(%x: tensor<?x5x7x8xf32>, %r: tensor<?x8x5x7xf32>) -> tensor<?x8x5x7xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x5x7x8xf32>
  %e0 = tensor.empty(%n) : tensor<?x8x5x7xf32>
  %nchw = linalg.transpose ins(%x : tensor<?x5x7x8xf32>) outs(%e0 : tensor<?x8x5x7xf32>) permutation = [0, 3, 1, 2]
  %e1 = tensor.empty(%n) : tensor<?x8x5x7xf32>
  %sum = linalg.generic {indexing_maps = [#id4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%nchw, %r : tensor<?x8x5x7xf32>, tensor<?x8x5x7xf32>) outs(%e1 : tensor<?x8x5x7xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<?x8x5x7xf32>
  return %sum : tensor<?x8x5x7xf32>
}

// -----

// A transpose something else reads too stays where it is (sinking it would
// add a transpose), and so does one read by a reduction.
// CHECK-LABEL: func.func @stays
// CHECK: %[[T:.*]] = linalg.transpose
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[T]] : tensor<4x3xf32>)
// CHECK: return %{{.*}}, %[[T]]
// CHECK-LABEL: func.func @reduction
// CHECK: %[[T:.*]] = linalg.transpose
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[T]] : tensor<4x3xf32>)
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @stays(%x: tensor<3x4xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>) {
  %e0 = tensor.empty() : tensor<4x3xf32>
  %t = linalg.transpose ins(%x : tensor<3x4xf32>) outs(%e0 : tensor<4x3xf32>) permutation = [1, 0]
  %e1 = tensor.empty() : tensor<4x3xf32>
  %neg = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%t : tensor<4x3xf32>) outs(%e1 : tensor<4x3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.negf %a : f32
    linalg.yield %n : f32
  } -> tensor<4x3xf32>
  return %neg, %t : tensor<4x3xf32>, tensor<4x3xf32>
}
func.func @reduction(%x: tensor<3x4xf32>, %init: tensor<4xf32>) -> tensor<4xf32> {
  %e0 = tensor.empty() : tensor<4x3xf32>
  %t = linalg.transpose ins(%x : tensor<3x4xf32>) outs(%e0 : tensor<4x3xf32>) permutation = [1, 0]
  %sum = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]}
      ins(%t : tensor<4x3xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %sum : tensor<4xf32>
}
