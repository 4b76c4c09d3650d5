// Dynamic input sizes that disagree on the reduction dimension (x is
// 4 x 2, w is 16 x 6) are reported at run time, with the contraction's
// location, when the contraction became sparse: a non-zero exit and no
// output file. (A contraction left dense goes through upstream's linalg
// lowering, which does not check.)
// RUN: rm -rf %t && mkdir -p %t && cd %t
// RUN: %python -c "import numpy as np; np.save('x.npy', np.ones((4, 2), np.float32)); np.save('w.npy', np.ones((16, 6), np.float32))"
// RUN: not stc-run %s --sparsity=force --input=x.npy --input=w.npy --output=out.npy 2>&1 | FileCheck %s -DFILE=%s
// RUN: not test -e out.npy
// CHECK: [[FILE]]:[[#@LINE+9]]:8: error: stc.spmm: the dense operand has reduction size 2, which does not match the sparse operand's 16
func.func @main(%x: tensor<?x?xf32>, %w: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %n = tensor.dim %w, %c1 : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = linalg.matmul ins(%x, %w : tensor<?x?xf32>, tensor<?x?xf32>)
                     outs(%z : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
