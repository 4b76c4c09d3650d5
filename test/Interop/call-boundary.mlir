// Tensors with the 2:4 encoding across function boundaries: @prune24
// returns one (converted, i.e. pruned, from @main's dense data), @mul24
// takes one, @mul24_twice passes it on. STC inlines these calls (remarks),
// so each product compresses the pruned matrix where it is used, on STC's
// kernels. The pruned matrix also comes back through a conversion to the
// dense type. Expected values by NumPy (Inputs/interop_ref.py).
//
// RUN: %python %S/Inputs/interop_ref.py calls > %t.check
// RUN: stc-run %s --remarks 2> %t.err | FileCheck %t.check
// RUN: FileCheck %s --check-prefix=REMARK < %t.err
// RUN: stc-run %s --device=emulate 2>/dev/null | FileCheck %t.check
// No sparse tensor is left for upstream's sparsifier, no call crosses with
// an encoded tensor, and the products are stc.spmm (CSE merges the equal
// ones).
// RUN: stc-compile %s --emit=stc -o - 2>/dev/null | FileCheck %s --check-prefix=IR
//
// REMARK-DAG: remark: stc: inlined @prune24: a tensor with a structured[2, 4] encoding crosses this call
// REMARK-DAG: remark: stc: inlined @mul24: a tensor with a structured[2, 4] encoding crosses this call
// REMARK-DAG: remark: stc: inlined @mul24_twice: a tensor with a structured[2, 4] encoding crosses this call
// REMARK-NOT: upstream's sparsifier bufferizes
//
// IR-LABEL: func.func @main
// IR-NOT: sparse_tensor
// IR-NOT: call @mul24
// IR: stc.spmm
// IR-NOT: linalg.matmul

#NV_24 = #sparse_tensor.encoding<{
  map = (i, j) -> (i : dense, j floordiv 4 : dense, j mod 4 : structured[2, 4])
}>

module {
  func.func private @prune24(%d: tensor<8x32xf16>) -> tensor<8x32xf16, #NV_24> {
    %s = sparse_tensor.convert %d : tensor<8x32xf16> to tensor<8x32xf16, #NV_24>
    return %s : tensor<8x32xf16, #NV_24>
  }

  func.func @mul24(%a: tensor<8x32xf16, #NV_24>, %b: tensor<32x4xf16>) -> tensor<8x4xf32> {
    %z = arith.constant dense<0.0> : tensor<8x4xf32>
    %r = linalg.matmul ins(%a, %b : tensor<8x32xf16, #NV_24>, tensor<32x4xf16>)
                       outs(%z : tensor<8x4xf32>) -> tensor<8x4xf32>
    return %r : tensor<8x4xf32>
  }

  func.func @mul24_twice(%a: tensor<8x32xf16, #NV_24>, %b: tensor<32x4xf16>) -> tensor<8x4xf32> {
    %r0 = call @mul24(%a, %b) : (tensor<8x32xf16, #NV_24>, tensor<32x4xf16>) -> tensor<8x4xf32>
    %r1 = call @mul24(%a, %b) : (tensor<8x32xf16, #NV_24>, tensor<32x4xf16>) -> tensor<8x4xf32>
    %e = tensor.empty() : tensor<8x4xf32>
    %s = linalg.add ins(%r0, %r1 : tensor<8x4xf32>, tensor<8x4xf32>)
                    outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
    return %s : tensor<8x4xf32>
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c5 = arith.constant 5 : index
    %c8 = arith.constant 8 : index
    %c11 = arith.constant 11 : index
    %f0 = arith.constant 0.0 : f32
    %h0 = arith.constant 0.0 : f16

    // A(i, j) = (5i + 3j) mod 11 - 5, B(i, j) = (i + 2j) mod 5 - 2.
    %a = tensor.generate {
    ^bb0(%i: index, %j: index):
      %s0 = arith.muli %i, %c5 : index
      %s1 = arith.muli %j, %c3 : index
      %s2 = arith.addi %s0, %s1 : index
      %s3 = arith.remui %s2, %c11 : index
      %s4 = arith.index_cast %s3 : index to i32
      %s5 = arith.sitofp %s4 : i32 to f16
      %five = arith.constant 5.0 : f16
      %v = arith.subf %s5, %five : f16
      tensor.yield %v : f16
    } : tensor<8x32xf16>
    %b = tensor.generate {
    ^bb0(%i: index, %j: index):
      %s0 = arith.muli %j, %c2 : index
      %s1 = arith.addi %i, %s0 : index
      %s2 = arith.remui %s1, %c5 : index
      %s3 = arith.index_cast %s2 : index to i32
      %s4 = arith.sitofp %s3 : i32 to f16
      %two = arith.constant 2.0 : f16
      %v = arith.subf %s4, %two : f16
      tensor.yield %v : f16
    } : tensor<32x4xf16>

    %s = call @prune24(%a) : (tensor<8x32xf16>) -> tensor<8x32xf16, #NV_24>
    %r = call @mul24(%s, %b) : (tensor<8x32xf16, #NV_24>, tensor<32x4xf16>) -> tensor<8x4xf32>
    scf.for %i = %c0 to %c8 step %c1 {
      %row = vector.transfer_read %r[%i, %c0], %f0 : tensor<8x4xf32>, vector<4xf32>
      vector.print %row : vector<4xf32>
    }
    %t = call @mul24_twice(%s, %b) : (tensor<8x32xf16, #NV_24>, tensor<32x4xf16>) -> tensor<8x4xf32>
    scf.for %i = %c0 to %c8 step %c1 {
      %row = vector.transfer_read %t[%i, %c0], %f0 : tensor<8x4xf32>, vector<4xf32>
      vector.print %row : vector<4xf32>
    }
    // The pruned data, back in the dense type: its first two rows.
    %d = sparse_tensor.convert %s : tensor<8x32xf16, #NV_24> to tensor<8x32xf16>
    scf.for %i = %c0 to %c2 step %c1 {
      %row = vector.transfer_read %d[%i, %c0], %h0 : tensor<8x32xf16>, vector<32xf16>
      vector.print %row : vector<32xf16>
    }
    return
  }
}
