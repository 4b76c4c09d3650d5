// KNOWN BUG: stc-run does not check that the dynamic dimensions of its
// inputs agree with each other. Here x is 4 x 2 and w is 16 x 6, so the
// reduction sizes (2 vs 16) differ; the run exits 0 and writes a 4 x 6
// result computed from the first 2 rows of w (dense and with
// --sparsity=force alike). Expected (DESIGN section 5): a one-line error
// naming the mismatching dimension, a non-zero exit and no output file.
// XFAIL: *
// RUN: rm -rf %t && mkdir -p %t && cd %t
// RUN: %python -c "import numpy as np; np.save('x.npy', np.ones((4, 2), np.float32)); np.save('w.npy', np.ones((16, 6), np.float32))"
// RUN: not stc-run %s --input=x.npy --input=w.npy --output=out.npy
// RUN: not stc-run %s --sparsity=force --input=x.npy --input=w.npy --output=out.npy
// RUN: not test -e out.npy
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
