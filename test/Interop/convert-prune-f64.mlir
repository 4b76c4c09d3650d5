// sparse_tensor.convert into the 2:4 encoding prunes for element types STC
// has no kernel for too: f64 here, pruned at run time by generated code
// with STC's rule (ties of magnitude, zeros and negative values in the
// data), then handed to upstream's sparsifier, which stores the 2:4
// format, converts it back and multiplies. Expected values by NumPy.
//
// RUN: %python %S/Inputs/interop_ref.py convert-prune-f64 > %t.check
// RUN: stc-run %s --remarks 2> %t.err | FileCheck %t.check
// RUN: FileCheck %s --check-prefix=REMARK < %t.err
//
// REMARK-DAG: convert-prune-f64.mlir:[[# @LINE + 30]]:10: remark: stc: sparse_tensor.convert into structured[2, 4] prunes its input at run time
// REMARK-DAG: remark: stc: left to the upstream sparsifier
// REMARK-DAG: remark: stc: sparse tensors STC does not specialize remain: upstream's sparsifier bufferizes this module

#NV_24 = #sparse_tensor.encoding<{
  map = (i, j) -> (i : dense, j floordiv 4 : dense, j mod 4 : structured[2, 4])
}>

module {
  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c5 = arith.constant 5 : index
    %c7 = arith.constant 7 : index
    %c8 = arith.constant 8 : index
    %c13 = arith.constant 13 : index
    %f0 = arith.constant 0.0 : f64
    // A(i, j) = (7i + 5j) mod 13 - 6, as in convert-prune.mlir.
    %a = tensor.generate {
    ^bb0(%i: index, %j: index):
      %s0 = arith.muli %i, %c7 : index
      %s1 = arith.muli %j, %c5 : index
      %s2 = arith.addi %s0, %s1 : index
      %s3 = arith.remui %s2, %c13 : index
      %s4 = arith.index_cast %s3 : index to i32
      %s5 = arith.sitofp %s4 : i32 to f64
      %six = arith.constant 6.0 : f64
      %v = arith.subf %s5, %six : f64
      tensor.yield %v : f64
    } : tensor<8x16xf64>
    %s = sparse_tensor.convert %a : tensor<8x16xf64> to tensor<8x16xf64, #NV_24>
    %d = sparse_tensor.convert %s : tensor<8x16xf64, #NV_24> to tensor<8x16xf64>
    scf.for %i = %c0 to %c8 step %c1 {
      %row = vector.transfer_read %d[%i, %c0], %f0 : tensor<8x16xf64>, vector<16xf64>
      vector.print %row : vector<16xf64>
    }
    // B(i, j) = (3i + 11j) mod 7 - 3.
    %b = tensor.generate {
    ^bb0(%i: index, %j: index):
      %c3 = arith.constant 3 : index
      %c11 = arith.constant 11 : index
      %s0 = arith.muli %i, %c3 : index
      %s1 = arith.muli %j, %c11 : index
      %s2 = arith.addi %s0, %s1 : index
      %s3 = arith.remui %s2, %c7 : index
      %s4 = arith.index_cast %s3 : index to i32
      %s5 = arith.sitofp %s4 : i32 to f64
      %three = arith.constant 3.0 : f64
      %v = arith.subf %s5, %three : f64
      tensor.yield %v : f64
    } : tensor<16x8xf64>
    %z = arith.constant dense<0.0> : tensor<8x8xf64>
    %r = linalg.matmul ins(%s, %b : tensor<8x16xf64, #NV_24>, tensor<16x8xf64>)
                       outs(%z : tensor<8x8xf64>) -> tensor<8x8xf64>
    scf.for %i = %c0 to %c8 step %c1 {
      %row = vector.transfer_read %r[%i, %c0], %f0 : tensor<8x8xf64>, vector<8xf64>
      vector.print %row : vector<8xf64>
    }
    bufferization.dealloc_tensor %s : tensor<8x16xf64, #NV_24>
    return
  }
}
