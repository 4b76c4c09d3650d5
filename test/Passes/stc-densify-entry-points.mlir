// stc-densify-entry-points: public functions take and return dense tensors
// whatever encodings their signatures name; internal calls keep the sparse
// form through a private copy. What the conversions create is freed: the
// pruned copy of an argument after its conversion, an argument's sparse
// form and a converted sparse result before the return (once each).
// RUN: stc-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(stc-densify-entry-points)' | FileCheck %s

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
#DCSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : compressed, j : compressed) }>

// An argument is converted into its encoding at entry, a result to dense
// before it is returned.
// CHECK-LABEL: func.func @csr_entry
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xf64>) -> tensor<4x8xf64>
// CHECK: %[[S:.*]] = sparse_tensor.convert %[[A]] : tensor<4x8xf64> to tensor<4x8xf64, #sparse{{[0-9]*}}>
// CHECK: %[[N:.*]] = sparse_tensor.convert %[[S]]
// CHECK: %[[D:.*]] = sparse_tensor.convert %[[N]] : tensor<4x8xf64, #sparse{{[0-9]*}}> to tensor<4x8xf64>
// CHECK-NEXT: bufferization.dealloc_tensor %[[N]]
// CHECK-NEXT: bufferization.dealloc_tensor %[[S]]
// CHECK-NEXT: return %[[D]]
// expected-remark @+1 {{stc: public function @csr_entry takes and returns dense tensors; its sparse encodings are applied inside}}
func.func @csr_entry(%a: tensor<4x8xf64, #CSR>) -> tensor<4x8xf64, #DCSR> {
  %n = sparse_tensor.convert %a : tensor<4x8xf64, #CSR> to tensor<4x8xf64, #DCSR>
  return %n : tensor<4x8xf64, #DCSR>
}
// Private functions keep their signature.
// CHECK-LABEL: func.func private @internal
// CHECK-SAME: tensor<4x8xf64, #sparse{{[0-9]*}}>
func.func private @internal(%a: tensor<4x8xf64, #CSR>) -> tensor<4x8xf64, #CSR> {
  return %a : tensor<4x8xf64, #CSR>
}

// -----

#NV_24 = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j floordiv 4 : dense, j mod 4 : structured[2, 4]) }>

// A structured[2, 4] argument is pruned before it is converted (the
// identity on 2:4 data).
// CHECK-LABEL: func.func @entry_24
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xf64>)
// CHECK: %[[P:.*]] = tensor.generate
// CHECK: %[[S:.*]] = sparse_tensor.convert %[[P]] : tensor<4x8xf64> to tensor<4x8xf64, #sparse{{[0-9]*}}>
// CHECK-NEXT: bufferization.dealloc_tensor %[[P]] : tensor<4x8xf64>
// CHECK: sparse_tensor.convert %[[S]]
// CHECK: bufferization.dealloc_tensor %[[S]]
// CHECK-NOT: dealloc_tensor
// CHECK: return
// expected-remark @+1 {{stc: public function @entry_24 takes and returns dense tensors}}
func.func @entry_24(%a: tensor<4x8xf64, #NV_24>) -> tensor<4x8xf64> {
  %d = sparse_tensor.convert %a : tensor<4x8xf64, #NV_24> to tensor<4x8xf64>
  %n = arith.negf %d : tensor<4x8xf64>
  return %n : tensor<4x8xf64>
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
#DCSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : compressed, j : compressed) }>

// A public function that is also called inside the module: the callers
// keep the sparse form through a private copy.
// CHECK-LABEL: func.func private @scale_sparse_abi
// CHECK-SAME: (%{{.*}}: tensor<4x8xf64, #sparse{{[0-9]*}}>) -> tensor<4x8xf64, #sparse{{[0-9]*}}>
// CHECK-LABEL: func.func @scale
// CHECK-SAME: (%{{.*}}: tensor<4x8xf64>) -> tensor<4x8xf64>
// CHECK-LABEL: func.func @caller
// CHECK: call @scale_sparse_abi
// expected-remark @+1 {{stc: public function @scale takes and returns dense tensors}}
func.func @scale(%a: tensor<4x8xf64, #CSR>) -> tensor<4x8xf64, #DCSR> {
  %n = sparse_tensor.convert %a : tensor<4x8xf64, #CSR> to tensor<4x8xf64, #DCSR>
  return %n : tensor<4x8xf64, #DCSR>
}
func.func @caller(%d: tensor<4x8xf64>) -> tensor<4x8xf64> {
  %s = sparse_tensor.convert %d : tensor<4x8xf64> to tensor<4x8xf64, #CSR>
  %r = call @scale(%s) : (tensor<4x8xf64, #CSR>) -> tensor<4x8xf64, #DCSR>
  %t = sparse_tensor.convert %r : tensor<4x8xf64, #DCSR> to tensor<4x8xf64>
  return %t : tensor<4x8xf64>
}

// -----

#NV_24 = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j floordiv 4 : dense, j mod 4 : structured[2, 4]) }>

// A result that is a conversion of pruned data comes back as that data: the
// round trip through the encoding disappears ...
// CHECK-LABEL: func.func @prune_and_return
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[P:.*]] = stc.prune %[[A]]
// CHECK-NEXT: return %[[P]]
// expected-remark @+1 {{stc: public function @prune_and_return takes and returns dense tensors}}
func.func @prune_and_return(%a: tensor<4x8xf32>) -> tensor<4x8xf32, #NV_24> {
  %p = stc.prune %a by #stc.nm<2:4> along 1 : tensor<4x8xf32>
  %s = sparse_tensor.convert %p : tensor<4x8xf32> to tensor<4x8xf32, #NV_24>
  return %s : tensor<4x8xf32, #NV_24>
}

// ... but not when the data is not known to be 2:4 (stc-prune-on-convert
// has not run here).
// CHECK-LABEL: func.func @unknown_data
// CHECK: sparse_tensor.convert
// CHECK: sparse_tensor.convert
// expected-remark @+1 {{stc: public function @unknown_data takes and returns dense tensors}}
func.func @unknown_data(%a: tensor<4x8xf32>) -> tensor<4x8xf32, #NV_24> {
  %s = sparse_tensor.convert %a : tensor<4x8xf32> to tensor<4x8xf32, #NV_24>
  return %s : tensor<4x8xf32, #NV_24>
}
