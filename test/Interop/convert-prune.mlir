// sparse_tensor.convert into the 2:4 encoding prunes, in the style of
// upstream's sm80-lt "prune" test: @matmul24 converts a dense, not yet 2:4
// f16 operand (a run-time value: @main generates it) and multiplies it, on
// STC's CPU kernel and, through the emulator, on its GPU kernel. The pruned
// matrix comes back through a product with the identity; the expected rows
// are computed by NumPy (Inputs/interop_ref.py), whose 2:4 rule (2 largest
// magnitudes of every 4, lower index on ties) is written independently of
// STC. The data has ties of magnitude and zeros.
//
// RUN: %python %S/Inputs/interop_ref.py convert-prune > %t.check
// RUN: stc-run %s --remarks 2> %t.err | FileCheck %t.check
// RUN: FileCheck %s --check-prefix=REMARK < %t.err
// RUN: stc-run %s --device=emulate 2>&1 | FileCheck %t.check
//
// REMARK: convert-prune.mlir:[[@LINE+10]]:10: remark: stc: sparse_tensor.convert into structured[2, 4] prunes its input at run time (the 2 of largest magnitude in every 4 along dimension 1)
// REMARK: convert-prune.mlir:[[@LINE+10]]:10: remark: stc: lhs operand is 2:4 sparse (sparse_tensor encoding), rewritten to stc.spmm

#NV_24 = #sparse_tensor.encoding<{
  map = (i, j) -> (i : dense, j floordiv 4 : dense, j mod 4 : structured[2, 4])
}>

module {
  func.func @matmul24(%ad: tensor<8x16xf16>, %b: tensor<16x8xf16>,
                      %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
    %a = sparse_tensor.convert %ad : tensor<8x16xf16> to tensor<8x16xf16, #NV_24>
    %d = linalg.matmul ins(%a, %b : tensor<8x16xf16, #NV_24>, tensor<16x8xf16>)
                       outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
    return %d : tensor<8x8xf32>
  }

  func.func @matmul24_identity(%ad: tensor<8x16xf16>, %b: tensor<16x16xf16>,
                               %c: tensor<8x16xf32>) -> tensor<8x16xf32> {
    %a = sparse_tensor.convert %ad : tensor<8x16xf16> to tensor<8x16xf16, #NV_24>
    %d = linalg.matmul ins(%a, %b : tensor<8x16xf16, #NV_24>, tensor<16x16xf16>)
                       outs(%c : tensor<8x16xf32>) -> tensor<8x16xf32>
    return %d : tensor<8x16xf32>
  }

  // The same product, rounded to f16 once at the end.
  func.func @matmul24_f16(%ad: tensor<8x16xf16>, %b: tensor<16x8xf16>,
                          %c: tensor<8x8xf16>) -> tensor<8x8xf16> {
    %a = sparse_tensor.convert %ad : tensor<8x16xf16> to tensor<8x16xf16, #NV_24>
    %d = linalg.matmul ins(%a, %b : tensor<8x16xf16, #NV_24>, tensor<16x8xf16>)
                       outs(%c : tensor<8x8xf16>) -> tensor<8x8xf16>
    return %d : tensor<8x8xf16>
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c3 = arith.constant 3 : index
    %c5 = arith.constant 5 : index
    %c7 = arith.constant 7 : index
    %c11 = arith.constant 11 : index
    %c13 = arith.constant 13 : index
    %f0 = arith.constant 0.0 : f32
    %h0 = arith.constant 0.0 : f16
    %h1 = arith.constant 1.0 : f16

    // A(i, j) = (7i + 5j) mod 13 - 6, B(i, j) = (3i + 11j) mod 7 - 3.
    %a = tensor.generate {
    ^bb0(%i: index, %j: index):
      %s0 = arith.muli %i, %c7 : index
      %s1 = arith.muli %j, %c5 : index
      %s2 = arith.addi %s0, %s1 : index
      %s3 = arith.remui %s2, %c13 : index
      %s4 = arith.index_cast %s3 : index to i32
      %s5 = arith.sitofp %s4 : i32 to f16
      %six = arith.constant 6.0 : f16
      %v = arith.subf %s5, %six : f16
      tensor.yield %v : f16
    } : tensor<8x16xf16>
    %b = tensor.generate {
    ^bb0(%i: index, %j: index):
      %s0 = arith.muli %i, %c3 : index
      %s1 = arith.muli %j, %c11 : index
      %s2 = arith.addi %s0, %s1 : index
      %s3 = arith.remui %s2, %c7 : index
      %s4 = arith.index_cast %s3 : index to i32
      %s5 = arith.sitofp %s4 : i32 to f16
      %three = arith.constant 3.0 : f16
      %v = arith.subf %s5, %three : f16
      tensor.yield %v : f16
    } : tensor<16x8xf16>
    %id = tensor.generate {
    ^bb0(%i: index, %j: index):
      %eq = arith.cmpi eq, %i, %j : index
      %v = arith.select %eq, %h1, %h0 : f16
      tensor.yield %v : f16
    } : tensor<16x16xf16>
    %zero8x16 = arith.constant dense<0.0> : tensor<8x16xf32>
    %zero8x8 = arith.constant dense<0.0> : tensor<8x8xf32>
    %zero8x8h = arith.constant dense<0.0> : tensor<8x8xf16>

    // The pruned A (A times the identity), then A times B in f32 and f16.
    %pa = call @matmul24_identity(%a, %id, %zero8x16)
        : (tensor<8x16xf16>, tensor<16x16xf16>, tensor<8x16xf32>) -> tensor<8x16xf32>
    scf.for %i = %c0 to %c8 step %c1 {
      %row = vector.transfer_read %pa[%i, %c0], %f0 : tensor<8x16xf32>, vector<16xf32>
      vector.print %row : vector<16xf32>
    }
    %d = call @matmul24(%a, %b, %zero8x8)
        : (tensor<8x16xf16>, tensor<16x8xf16>, tensor<8x8xf32>) -> tensor<8x8xf32>
    scf.for %i = %c0 to %c8 step %c1 {
      %row = vector.transfer_read %d[%i, %c0], %f0 : tensor<8x8xf32>, vector<8xf32>
      vector.print %row : vector<8xf32>
    }
    %dh = call @matmul24_f16(%a, %b, %zero8x8h)
        : (tensor<8x16xf16>, tensor<16x8xf16>, tensor<8x8xf16>) -> tensor<8x8xf16>
    scf.for %i = %c0 to %c8 step %c1 {
      %row = vector.transfer_read %dh[%i, %c0], %h0 : tensor<8x8xf16>, vector<8xf16>
      vector.print %row : vector<8xf16>
    }
    return
  }
}
