// stc-bufferize: a module without sparse tensors gets one-shot
// bufferization with ownership-based deallocation (its own deallocations
// dropped); one that still holds sparse tensors goes through upstream's
// sparsifier (runtime library), with a remark.
// RUN: stc-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(stc-bufferize)' | FileCheck %s

// The program's dealloc_tensor would be a second free: it is dropped and
// the deallocation pass frees the temporary once, after its last use.
// CHECK-LABEL: func.func @dense
// CHECK-NOT: bufferization.dealloc_tensor
// CHECK: %[[T:.*]] = memref.alloc() {{.*}}: memref<4xf32>
// CHECK: linalg.add
// CHECK: memref.load %[[T]]
// CHECK: memref.dealloc %[[T]]
// CHECK-NOT: memref.dealloc
// CHECK: return
func.func @dense(%a: tensor<4xf32>) -> f32 {
  %e = tensor.empty() : tensor<4xf32>
  %t = linalg.add ins(%a, %a : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %c0 = arith.constant 0 : index
  %x = tensor.extract %t[%c0] : tensor<4xf32>
  bufferization.dealloc_tensor %t : tensor<4xf32>
  return %x : f32
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// CHECK-LABEL: func.func @csr
// CHECK-SAME: (%{{.*}}: memref<4x8xf64>) -> !llvm.ptr
// CHECK: call @newSparseTensor
// CHECK-NOT: bufferization.dealloc
// expected-remark @below {{stc: sparse tensors STC does not specialize remain: upstream's sparsifier bufferizes this module (buffers are freed where the program frees them)}}
module {
  func.func @csr(%d: tensor<4x8xf64>) -> tensor<4x8xf64, #CSR> {
    %s = sparse_tensor.convert %d : tensor<4x8xf64> to tensor<4x8xf64, #CSR>
    return %s : tensor<4x8xf64, #CSR>
  }
}

// -----

// In a module upstream's sparsifier bufferizes, the functions whose buffers
// are all their own (no sparse tensor, no deallocation of their own, calls
// only to such functions or to external ones that return no buffers) get
// ownership-based deallocation after the pipeline, as on STC's path: here
// @dense_temporary. @densified holds a sparse tensor, @calls_densified
// calls it, @frees_itself frees its own: they free only where the program
// frees.
#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// CHECK-LABEL: func.func @densified
// CHECK: call @newSparseTensor
// CHECK-NOT: memref.dealloc
// CHECK-LABEL: func.func @dense_temporary
// CHECK: %[[T:.*]] = memref.alloc() {{.*}}: memref<16xf32>
// CHECK: memref.load %[[T]]
// CHECK: memref.dealloc %[[T]]
// CHECK-LABEL: func.func @calls_densified
// CHECK-NOT: memref.dealloc
// CHECK-LABEL: func.func @frees_itself
// CHECK: memref.dealloc
// CHECK-NOT: memref.dealloc
// CHECK: return
// expected-remark @below {{stc: sparse tensors STC does not specialize remain: upstream's sparsifier bufferizes this module (buffers are freed where the program frees them, and by ownership-based deallocation in 1 function(s) that hold none)}}
module {
  func.func @densified(%d: tensor<4x8xf64>) -> tensor<4x8xf64> {
    %s = sparse_tensor.convert %d : tensor<4x8xf64> to tensor<4x8xf64, #CSR>
    %r = sparse_tensor.convert %s : tensor<4x8xf64, #CSR> to tensor<4x8xf64>
    bufferization.dealloc_tensor %s : tensor<4x8xf64, #CSR>
    return %r : tensor<4x8xf64>
  }
  func.func @dense_temporary(%a: tensor<16xf32>) -> f32 {
    %e = tensor.empty() : tensor<16xf32>
    %t = linalg.add ins(%a, %a : tensor<16xf32>, tensor<16xf32>) outs(%e : tensor<16xf32>) -> tensor<16xf32>
    %c0 = arith.constant 0 : index
    %x = tensor.extract %t[%c0] : tensor<16xf32>
    return %x : f32
  }
  func.func @calls_densified(%d: tensor<4x8xf64>) -> f64 {
    %r = call @densified(%d) : (tensor<4x8xf64>) -> tensor<4x8xf64>
    %e = tensor.empty() : tensor<4x8xf64>
    %t = linalg.add ins(%r, %r : tensor<4x8xf64>, tensor<4x8xf64>) outs(%e : tensor<4x8xf64>) -> tensor<4x8xf64>
    %c0 = arith.constant 0 : index
    %x = tensor.extract %t[%c0, %c0] : tensor<4x8xf64>
    return %x : f64
  }
  func.func @frees_itself(%a: tensor<16xf32>) -> f32 {
    %e = tensor.empty() : tensor<16xf32>
    %t = linalg.add ins(%a, %a : tensor<16xf32>, tensor<16xf32>) outs(%e : tensor<16xf32>) -> tensor<16xf32>
    %c0 = arith.constant 0 : index
    %x = tensor.extract %t[%c0] : tensor<16xf32>
    bufferization.dealloc_tensor %t : tensor<16xf32>
    return %x : f32
  }
}
