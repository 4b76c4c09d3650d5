// stc-inline-encoded-calls: calls passing or returning tensors with a
// structured[2, 4] encoding are replaced by the callee's body; private
// callees left without callers are erased, public ones stay.
// RUN: stc-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(stc-inline-encoded-calls)' | FileCheck %s

#NV_24 = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j floordiv 4 : dense, j mod 4 : structured[2, 4]) }>

// CHECK-NOT: func.func private @to_24
// CHECK-LABEL: func.func @mul_24
// CHECK-LABEL: func.func private @convert_and_mul
// CHECK-SAME: (%[[D:.*]]: tensor<8x16xf32>, %[[B:.*]]: tensor<16x4xf32>)
// CHECK-NOT: call
// CHECK: %[[A:.*]] = sparse_tensor.convert %[[D]]
// CHECK: linalg.matmul ins(%[[A]], %[[B]]
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[D:.*]]: tensor<8x16xf32>, %[[B:.*]]: tensor<16x4xf32>)
// CHECK-NOT: call @to_24
// CHECK-NOT: call @mul_24
// CHECK: %[[A:.*]] = sparse_tensor.convert %[[D]]
// CHECK: linalg.matmul ins(%[[A]], %[[B]]
// CHECK: call @convert_and_mul
// CHECK: call @dense_only
func.func private @to_24(%d: tensor<8x16xf32>) -> tensor<8x16xf32, #NV_24> {
  %s = sparse_tensor.convert %d : tensor<8x16xf32> to tensor<8x16xf32, #NV_24>
  return %s : tensor<8x16xf32, #NV_24>
}
func.func @mul_24(%a: tensor<8x16xf32, #NV_24>, %b: tensor<16x4xf32>) -> tensor<8x4xf32> {
  %z = arith.constant dense<0.0> : tensor<8x4xf32>
  %r = linalg.matmul ins(%a, %b : tensor<8x16xf32, #NV_24>, tensor<16x4xf32>) outs(%z : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %r : tensor<8x4xf32>
}
// A callee that itself calls: inlined in rounds.
func.func private @convert_and_mul(%d: tensor<8x16xf32>, %b: tensor<16x4xf32>) -> tensor<8x4xf32> {
  // expected-remark @+1 {{stc: inlined @to_24}}
  %a = call @to_24(%d) : (tensor<8x16xf32>) -> tensor<8x16xf32, #NV_24>
  // expected-remark @+1 {{stc: inlined @mul_24}}
  %r = call @mul_24(%a, %b) : (tensor<8x16xf32, #NV_24>, tensor<16x4xf32>) -> tensor<8x4xf32>
  return %r : tensor<8x4xf32>
}
func.func private @dense_only(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  return %x : tensor<8x4xf32>
}
func.func @main(%d: tensor<8x16xf32>, %b: tensor<16x4xf32>) -> (tensor<8x4xf32>, tensor<8x4xf32>) {
  // expected-remark @+1 {{stc: inlined @to_24: a tensor with a structured[2, 4] encoding crosses this call}}
  %a = call @to_24(%d) : (tensor<8x16xf32>) -> tensor<8x16xf32, #NV_24>
  // expected-remark @+1 {{stc: inlined @mul_24}}
  %r = call @mul_24(%a, %b) : (tensor<8x16xf32, #NV_24>, tensor<16x4xf32>) -> tensor<8x4xf32>
  %s = call @convert_and_mul(%d, %b) : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  // Calls without encoded tensors are not touched.
  %t = call @dense_only(%s) : (tensor<8x4xf32>) -> tensor<8x4xf32>
  return %r, %t : tensor<8x4xf32>, tensor<8x4xf32>
}

// -----

#NV_24 = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j floordiv 4 : dense, j mod 4 : structured[2, 4]) }>

func.func private @external(%a: tensor<8x16xf32, #NV_24>) -> tensor<8x4xf32>

func.func @calls_external(%d: tensor<8x16xf32>) -> tensor<8x4xf32> {
  %a = sparse_tensor.convert %d : tensor<8x16xf32> to tensor<8x16xf32, #NV_24>
  // expected-error @+1 {{stc: cannot pass a tensor with a structured[2, 4] encoding to @external, which has no body in this module (STC inlines such calls; pass the dense tensor instead)}}
  %r = call @external(%a) : (tensor<8x16xf32, #NV_24>) -> tensor<8x4xf32>
  return %r : tensor<8x4xf32>
}

// -----

#NV_24 = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j floordiv 4 : dense, j mod 4 : structured[2, 4]) }>

func.func @recursive(%a: tensor<8x16xf32, #NV_24>) -> tensor<8x16xf32, #NV_24> {
  // expected-error @+1 {{stc: cannot pass a tensor with a structured[2, 4] encoding to @recursive, which is recursive}}
  %r = call @recursive(%a) : (tensor<8x16xf32, #NV_24>) -> tensor<8x16xf32, #NV_24>
  return %r : tensor<8x16xf32, #NV_24>
}

// -----

#NV_24 = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j floordiv 4 : dense, j mod 4 : structured[2, 4]) }>

// Mutual recursion.
func.func @ping(%a: tensor<8x16xf32, #NV_24>) -> tensor<8x16xf32, #NV_24> {
  // expected-error @+1 {{stc: cannot pass a tensor with a structured[2, 4] encoding to @pong, which is recursive}}
  %r = call @pong(%a) : (tensor<8x16xf32, #NV_24>) -> tensor<8x16xf32, #NV_24>
  return %r : tensor<8x16xf32, #NV_24>
}
func.func @pong(%a: tensor<8x16xf32, #NV_24>) -> tensor<8x16xf32, #NV_24> {
  %r = call @ping(%a) : (tensor<8x16xf32, #NV_24>) -> tensor<8x16xf32, #NV_24>
  return %r : tensor<8x16xf32, #NV_24>
}

// -----

#NV_24 = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j floordiv 4 : dense, j mod 4 : structured[2, 4]) }>

func.func private @two_blocks(%a: tensor<8x16xf32, #NV_24>, %c: i1) -> tensor<8x16xf32, #NV_24> {
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  return %a : tensor<8x16xf32, #NV_24>
^bb2:
  return %a : tensor<8x16xf32, #NV_24>
}

func.func @calls_two_blocks(%a: tensor<8x16xf32, #NV_24>, %c: i1) -> tensor<8x16xf32, #NV_24> {
  // expected-error @+1 {{stc: cannot pass a tensor with a structured[2, 4] encoding to @two_blocks, whose body has more than one block}}
  %r = call @two_blocks(%a, %c) : (tensor<8x16xf32, #NV_24>, i1) -> tensor<8x16xf32, #NV_24>
  return %r : tensor<8x16xf32, #NV_24>
}

// -----

#NV_24 = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j floordiv 4 : dense, j mod 4 : structured[2, 4]) }>

// A cycle that does not go through the caller: the call from @entry is
// the first one found.
func.func @entry(%a: tensor<8x16xf32, #NV_24>) -> tensor<8x16xf32, #NV_24> {
  // expected-error @+1 {{stc: cannot pass a tensor with a structured[2, 4] encoding to @f, which is recursive}}
  %r = call @f(%a) : (tensor<8x16xf32, #NV_24>) -> tensor<8x16xf32, #NV_24>
  return %r : tensor<8x16xf32, #NV_24>
}
func.func private @f(%a: tensor<8x16xf32, #NV_24>) -> tensor<8x16xf32, #NV_24> {
  %r = call @g(%a) : (tensor<8x16xf32, #NV_24>) -> tensor<8x16xf32, #NV_24>
  return %r : tensor<8x16xf32, #NV_24>
}
func.func private @g(%a: tensor<8x16xf32, #NV_24>) -> tensor<8x16xf32, #NV_24> {
  %r = call @f(%a) : (tensor<8x16xf32, #NV_24>) -> tensor<8x16xf32, #NV_24>
  return %r : tensor<8x16xf32, #NV_24>
}
