// One module, two paths: the f16 2:4 product takes STC's kernel (stc.spmm),
// the CSR product and sparse_tensor.new/print take upstream's sparsifier,
// in the same pipeline. The matrix comes from a Matrix Market file
// (TENSOR0, as upstream's tests pass file names); it is 2:4 already, so
// both products are the same, which NumPy computes from the file
// (Inputs/interop_ref.py). Upstream's own sparsifier does not run this
// program: in LLVM 22 its run-time conversion into the 2:4 format leaves a
// bufferization.to_tensor mlir-runner cannot parse (f16), or crashes and
// miscomputes (f32); see docs/INTEROP.md.
//
// RUN: %python %S/Inputs/interop_ref.py mixed > %t.check
// RUN: env TENSOR0=%S/Inputs/small.mtx stc-run %s --remarks > %t.stc 2> %t.err
// RUN: FileCheck %t.check < %t.stc
// RUN: FileCheck %s < %t.stc
// RUN: FileCheck %s --check-prefix=REMARK < %t.err
// RUN: env TENSOR0=%S/Inputs/small.mtx stc-run %s --device=emulate 2>/dev/null | FileCheck %t.check
// The 2:4 product is an stc.spmm; the CSR one stays a linalg.matmul.
// RUN: stc-compile %s --emit=stc -o - 2>/dev/null | FileCheck %s --check-prefix=IR
//
// REMARK-DAG: mixed-stc-upstream.mlir:[[@LINE+23]]:10: remark: stc: lhs operand is 2:4 sparse (sparse_tensor encoding), rewritten to stc.spmm
// REMARK-DAG: mixed-stc-upstream.mlir:[[@LINE+29]]:10: remark: stc: left to the upstream sparsifier: lhs has a sparse encoding without a structured[2, 4] level
// REMARK-DAG: remark: stc: sparse tensors STC does not specialize remain: upstream's sparsifier bufferizes this module
//
// IR-LABEL: func.func @mm_24
// IR: stc.spmm
// IR-LABEL: func.func @mm_csr
// IR: linalg.matmul
// IR-NOT: stc.spmm

!Filename = !llvm.ptr

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
#NV_24 = #sparse_tensor.encoding<{
  map = (i, j) -> (i : dense, j floordiv 4 : dense, j mod 4 : structured[2, 4])
}>

module {
  func.func private @getTensorFilename(index) -> (!Filename)

  func.func @mm_24(%d: tensor<4x8xf16>, %b: tensor<8x4xf16>) -> tensor<4x4xf32> {
    %a = sparse_tensor.convert %d : tensor<4x8xf16> to tensor<4x8xf16, #NV_24>
    %z = arith.constant dense<0.0> : tensor<4x4xf32>
    %r = linalg.matmul ins(%a, %b : tensor<4x8xf16, #NV_24>, tensor<8x4xf16>)
                       outs(%z : tensor<4x4xf32>) -> tensor<4x4xf32>
    return %r : tensor<4x4xf32>
  }

  func.func @mm_csr(%a: tensor<4x8xf32, #CSR>, %b: tensor<8x4xf32>) -> tensor<4x4xf32> {
    %z = arith.constant dense<0.0> : tensor<4x4xf32>
    %r = linalg.matmul ins(%a, %b : tensor<4x8xf32, #CSR>, tensor<8x4xf32>)
                       outs(%z : tensor<4x4xf32>) -> tensor<4x4xf32>
    return %r : tensor<4x4xf32>
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %pad = arith.constant -1.0 : f32
    %file = call @getTensorFilename(%c0) : (index) -> (!Filename)
    %a = sparse_tensor.new %file : !Filename to tensor<4x8xf32, #CSR>
    %d = sparse_tensor.convert %a : tensor<4x8xf32, #CSR> to tensor<4x8xf32>
    %b = arith.constant dense<[
      [ 1.0, 2.0, 0.0, -1.0 ], [ 0.0, 1.0, 3.0, 1.0 ], [ 2.0, 0.0, 1.0, 0.0 ],
      [ 1.0, 1.0, 1.0, 1.0 ], [ -2.0, 0.0, 0.0, 4.0 ], [ 0.5, 0.5, 0.0, 0.0 ],
      [ 0.0, 3.0, -1.0, 2.0 ], [ 1.0, 0.0, 2.0, 0.0 ]]> : tensor<8x4xf32>

    %dh = arith.truncf %d : tensor<4x8xf32> to tensor<4x8xf16>
    %bh = arith.truncf %b : tensor<8x4xf32> to tensor<8x4xf16>
    %r0 = call @mm_24(%dh, %bh) : (tensor<4x8xf16>, tensor<8x4xf16>) -> tensor<4x4xf32>
    %r1 = call @mm_csr(%a, %b) : (tensor<4x8xf32, #CSR>, tensor<8x4xf32>) -> tensor<4x4xf32>
    %v0 = vector.transfer_read %r0[%c0, %c0], %pad : tensor<4x4xf32>, vector<4x4xf32>
    vector.print %v0 : vector<4x4xf32>
    %v1 = vector.transfer_read %r1[%c0, %c0], %pad : tensor<4x4xf32>, vector<4x4xf32>
    vector.print %v1 : vector<4x4xf32>

    // CHECK: ---- Sparse Tensor ----
    // CHECK-NEXT: nse = 10
    // CHECK-NEXT: dim = ( 4, 8 )
    // CHECK-NEXT: lvl = ( 4, 8 )
    // CHECK-NEXT: pos[1] : ( 0, 3, 6, 7, 10 )
    // CHECK-NEXT: crd[1] : ( 0, 2, 5, 1, 6, 7, 3, 0, 1, 4 )
    // CHECK-NEXT: values : ( 2, -1, 4, 3, 5, -2, 1, 6, -3, 7 )
    // CHECK-NEXT: ----
    sparse_tensor.print %a : tensor<4x8xf32, #CSR>
    bufferization.dealloc_tensor %a : tensor<4x8xf32, #CSR>
    return
  }
}
