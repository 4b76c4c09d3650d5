// On a GPU target, the tensor computation that no GPU kernel takes stays on
// the host, and stc-lower-elementwise-to-gpu says so with a remark instead
// of leaving it in silence: a named pooling op. The tensor.pad it reads,
// which no kernel folds, becomes a kernel of its own: a copy through the
// padding (the source where the index is inside it, else the value).
// Fills are not reported (their users are). A dense convolution is
// generalized and runs on the GPU, its window read at computed indices and
// through the tensor.pad in front (folded: no padded copy, no remark).
// RUN: stc-opt %s --stc-lower-elementwise-to-gpu --mlir-print-op-on-diagnostic=false -verify-diagnostics | FileCheck %s
// RUN: stc-opt %s --stc-lower-elementwise-to-gpu --mlir-print-op-on-diagnostic=false 2>/dev/null | FileCheck %s --check-prefix=POOL
// POOL-LABEL: func.func @pool
// POOL-NOT: tensor.pad
// POOL: call @stc_ew_1_host(%{{[0-9]+}}, %[[PADDED:[a-z0-9_]+]],
// POOL: %[[COPY:.*]] = bufferization.to_tensor %[[PADDED]]
// POOL: linalg.pooling_nchw_max {{.*}} ins(%[[COPY]],

// CHECK-LABEL: func.func @dense_conv
// CHECK-NOT: tensor.pad
// CHECK: call @stc_ew_0_host
func.func @dense_conv(%x: tensor<1x8x6x6xf32>, %w: tensor<4x8x3x3xf32>) -> tensor<1x4x6x6xf32> {
  %z = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %z : f32
  } : tensor<1x8x6x6xf32> to tensor<1x8x8x8xf32>
  %e = tensor.empty() : tensor<1x4x6x6xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  // expected-remark @+1 {{stc: reduction linalg.generic runs on the GPU as @stc_ew_0 (a block of 128 threads per result element)}}
  %y = linalg.conv_2d_nchw_fchw ins(%p, %w : tensor<1x8x8x8xf32>, tensor<4x8x3x3xf32>) outs(%c : tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  return %y : tensor<1x4x6x6xf32>
}

func.func @pool(%x: tensor<1x4x6x6xf32>) -> tensor<1x4x4x4xf32> {
  %z = arith.constant 0.0 : f32
  // expected-remark @+1 {{stc: tensor.pad (a copy through the padding) runs on the GPU as @stc_ew_1}}
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %z : f32
  } : tensor<1x4x6x6xf32> to tensor<1x4x8x8xf32>
  %k = tensor.empty() : tensor<2x2xf32>
  %e = tensor.empty() : tensor<1x4x4x4xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  // expected-remark @+1 {{stc: linalg.pooling_nchw_max stays on the host: no GPU kernel takes it}}
  %y = linalg.pooling_nchw_max {strides = dense<2> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
      ins(%p, %k : tensor<1x4x8x8xf32>, tensor<2x2xf32>) outs(%c : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %y : tensor<1x4x4x4xf32>
}

// A pad whose copy cannot be a kernel (i1 elements) stays on the host with
// one remark: the copy's reason, not a second "no GPU kernel takes it".
func.func @pad_i1(%x: tensor<4x6xi1>) -> tensor<4x8xi1> {
  %f = arith.constant false
  // expected-remark @+1 {{stc: tensor.pad stays on the host: its result has elements of type i1}}
  %p = tensor.pad %x low[0, 1] high[0, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %f : i1
  } : tensor<4x6xi1> to tensor<4x8xi1>
  return %p : tensor<4x8xi1>
}
