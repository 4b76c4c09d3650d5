// Formats STC does not specialize run through upstream's sparsifier inside
// STC's pipeline: CSR, CSC, COO and BSR operands, the 2:4 encoding on f64,
// conversions between formats, sparse_tensor.print and upstream's
// printMemrefF64. The same program through `mlir-opt --sparsifier` +
// `mlir-runner` must print the same text, buffer addresses aside (the data
// is 2:4 already, so STC's pruning conversion changes nothing).
//
// REQUIRES: upstream-mlir
// RUN: stc-run %s --remarks 2> %t.err | sed -e 's/base@ = 0x[0-9a-f]*//' > %t.stc
// RUN: %mlir_opt %s --sparsifier | %mlir_runner_main | sed -e 's/base@ = 0x[0-9a-f]*//' > %t.upstream
// RUN: diff %t.upstream %t.stc
// RUN: FileCheck %s < %t.stc
// RUN: FileCheck %s --check-prefix=REMARK < %t.err
// The emulated GPU target changes nothing here: no STC kernel is involved.
// RUN: stc-run %s --device=emulate 2>/dev/null | sed -e 's/base@ = 0x[0-9a-f]*//' | diff %t.upstream -
//
// REMARK: remark: stc: left to the upstream sparsifier
// REMARK: remark: stc: sparse tensors STC does not specialize remain: upstream's sparsifier bufferizes this module

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
#CSC = #sparse_tensor.encoding<{ map = (i, j) -> (j : dense, i : compressed) }>
#COO = #sparse_tensor.encoding<{ map = (i, j) -> (i : compressed(nonunique), j : singleton) }>
#BSR = #sparse_tensor.encoding<{
  map = (i, j) -> (i floordiv 2 : dense, j floordiv 2 : compressed, i mod 2 : dense, j mod 2 : dense)
}>
#NV_24 = #sparse_tensor.encoding<{
  map = (i, j) -> (i : dense, j floordiv 4 : dense, j mod 4 : structured[2, 4])
}>

#mm = {
  indexing_maps = [
    affine_map<(i, j, k) -> (i, k)>,
    affine_map<(i, j, k) -> (k, j)>,
    affine_map<(i, j, k) -> (i, j)>
  ],
  iterator_types = ["parallel", "parallel", "reduction"]
}

module {
  func.func private @printMemrefF64(%ptr : tensor<*xf64>) attributes { llvm.emit_c_interface }

  func.func @mm_csr(%a: tensor<4x8xf64, #CSR>, %b: tensor<8x3xf64>) -> tensor<4x3xf64> {
    %z = arith.constant dense<0.0> : tensor<4x3xf64>
    %r = linalg.matmul ins(%a, %b : tensor<4x8xf64, #CSR>, tensor<8x3xf64>)
                       outs(%z : tensor<4x3xf64>) -> tensor<4x3xf64>
    return %r : tensor<4x3xf64>
  }

  func.func @mm_bsr(%a: tensor<4x8xf64, #BSR>, %b: tensor<8x3xf64>) -> tensor<4x3xf64> {
    %z = arith.constant dense<0.0> : tensor<4x3xf64>
    %r = linalg.generic #mm ins(%a, %b : tensor<4x8xf64, #BSR>, tensor<8x3xf64>)
                            outs(%z : tensor<4x3xf64>) {
    ^bb0(%x: f64, %y: f64, %acc: f64):
      %p = arith.mulf %x, %y : f64
      %s = arith.addf %acc, %p : f64
      linalg.yield %s : f64
    } -> tensor<4x3xf64>
    return %r : tensor<4x3xf64>
  }

  func.func @mm_24(%a: tensor<4x8xf64, #NV_24>, %b: tensor<8x3xf64>) -> tensor<4x3xf64> {
    %z = arith.constant dense<0.0> : tensor<4x3xf64>
    %r = linalg.matmul ins(%a, %b : tensor<4x8xf64, #NV_24>, tensor<8x3xf64>)
                       outs(%z : tensor<4x3xf64>) -> tensor<4x3xf64>
    return %r : tensor<4x3xf64>
  }

  func.func @dump(%t: tensor<4x3xf64>) {
    %c0 = arith.constant 0 : index
    %pad = arith.constant -1.0 : f64
    %v = vector.transfer_read %t[%c0, %c0], %pad : tensor<4x3xf64>, vector<4x3xf64>
    vector.print %v : vector<4x3xf64>
    return
  }

  func.func @main() {
    // Every group of 4 along j has at most 2 non-zeros; the 2x2 blocks are
    // dense or empty.
    %d = arith.constant dense<[
      [ 1.0, 2.0, 0.0, 0.0,  0.0, 0.0, 3.0, -4.0 ],
      [ 5.0, 6.0, 0.0, 0.0,  0.0, 0.0, 7.0,  8.0 ],
      [ 0.0, 0.0, 9.0, 1.5,  2.5, 3.0, 0.0,  0.0 ],
      [ 0.0, 0.0, -1.0, 2.0, 0.5, 6.0, 0.0,  0.0 ]]> : tensor<4x8xf64>
    %b = arith.constant dense<[
      [ 1.0, 0.0, 2.0 ], [ 0.0, 1.0, 1.0 ], [ 2.0, 2.0, 0.0 ], [ 1.0, 0.0, 1.0 ],
      [ 0.0, 3.0, 1.0 ], [ 1.0, 1.0, 1.0 ], [ 2.0, 0.0, 0.0 ], [ 0.0, 0.0, 4.0 ]]> : tensor<8x3xf64>

    %csr = sparse_tensor.convert %d : tensor<4x8xf64> to tensor<4x8xf64, #CSR>
    %csc = sparse_tensor.convert %csr : tensor<4x8xf64, #CSR> to tensor<4x8xf64, #CSC>
    %coo = sparse_tensor.convert %csc : tensor<4x8xf64, #CSC> to tensor<4x8xf64, #COO>
    %bsr = sparse_tensor.convert %d : tensor<4x8xf64> to tensor<4x8xf64, #BSR>
    %s24 = sparse_tensor.convert %d : tensor<4x8xf64> to tensor<4x8xf64, #NV_24>

    // CHECK:      ( ( 7, 2, -12 ), ( 19, 6, 48 ), ( 22.5, 28.5, 7 ), ( 6, 5.5, 8.5 ) )
    // CHECK-NEXT: ( ( 7, 2, -12 ), ( 19, 6, 48 ), ( 22.5, 28.5, 7 ), ( 6, 5.5, 8.5 ) )
    // CHECK-NEXT: ( ( 7, 2, -12 ), ( 19, 6, 48 ), ( 22.5, 28.5, 7 ), ( 6, 5.5, 8.5 ) )
    %r0 = call @mm_csr(%csr, %b) : (tensor<4x8xf64, #CSR>, tensor<8x3xf64>) -> tensor<4x3xf64>
    %r1 = call @mm_bsr(%bsr, %b) : (tensor<4x8xf64, #BSR>, tensor<8x3xf64>) -> tensor<4x3xf64>
    %r2 = call @mm_24(%s24, %b) : (tensor<4x8xf64, #NV_24>, tensor<8x3xf64>) -> tensor<4x3xf64>
    call @dump(%r0) : (tensor<4x3xf64>) -> ()
    call @dump(%r1) : (tensor<4x3xf64>) -> ()
    call @dump(%r2) : (tensor<4x3xf64>) -> ()

    // CHECK: ---- Sparse Tensor ----
    // CHECK-NEXT: nse = 16
    // CHECK-NEXT: dim = ( 4, 8 )
    // CHECK-NEXT: lvl = ( 8, 4 )
    // CHECK-NEXT: pos[1] : ( 0, 2, 4, 6, 8, 10, 12, 14, 16 )
    // CHECK-NEXT: crd[1] : ( 0, 1, 0, 1, 2, 3, 2, 3, 2, 3, 2, 3, 0, 1, 0, 1 )
    // CHECK-NEXT: values : ( 1, 5, 2, 6, 9, -1, 1.5, 2, 2.5, 0.5, 3, 6, 3, 7, -4, 8 )
    // CHECK-NEXT: ----
    sparse_tensor.print %csc : tensor<4x8xf64, #CSC>
    // CHECK: ---- Sparse Tensor ----
    // CHECK-NEXT: nse = 16
    // CHECK: crd[0] : ( 0, 0, 0, 1, 0, 6, 0, 7, 1, 0, 1, 1, 1, 6, 1, 7, 2, 2, 2, 3, 2, 4, 2, 5, 3, 2, 3, 3, 3, 4, 3, 5 )
    sparse_tensor.print %coo : tensor<4x8xf64, #COO>
    // CHECK: ---- Sparse Tensor ----
    // CHECK: lvl = ( 2, 4, 2, 2 )
    sparse_tensor.print %bsr : tensor<4x8xf64, #BSR>

    // The BSR matrix back in dense form.
    // CHECK: Unranked Memref rank = 2 offset = 0 sizes = [4, 8] strides = [8, 1] data =
    // CHECK-NEXT: {{\[}}[1,   2,   0,   0,   0,   0,   3,   -4],
    %back = sparse_tensor.convert %bsr : tensor<4x8xf64, #BSR> to tensor<4x8xf64>
    %u = tensor.cast %back : tensor<4x8xf64> to tensor<*xf64>
    call @printMemrefF64(%u) : (tensor<*xf64>) -> ()

    bufferization.dealloc_tensor %csr : tensor<4x8xf64, #CSR>
    bufferization.dealloc_tensor %csc : tensor<4x8xf64, #CSC>
    bufferization.dealloc_tensor %coo : tensor<4x8xf64, #COO>
    bufferization.dealloc_tensor %bsr : tensor<4x8xf64, #BSR>
    bufferization.dealloc_tensor %s24 : tensor<4x8xf64, #NV_24>
    return
  }
}
