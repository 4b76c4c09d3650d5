// --check needs static shapes for its dense reference: on a dynamic-shape
// program the run happens, then the reference is refused with a one-line
// error at the contraction, exit 1, and no output file is written.
// RUN: rm -rf %t && mkdir -p %t && cd %t
// RUN: %python -c "import numpy as np; r = np.random.default_rng(0); np.save('w.npy', r.standard_normal((8, 6)).astype(np.float32)); np.save('x.npy', r.standard_normal((4, 8)).astype(np.float32))"
// RUN: not stc-run %s --sparsity=force --check --input=x.npy --input=w.npy --output=out.npy 2>&1 \
// RUN:   | FileCheck %s -DFILE=%s --match-full-lines --implicit-check-not=error:
// RUN: not test -e out.npy
// RUN: stc-run %s --sparsity=force --input=x.npy --input=w.npy --output=out.npy
// RUN: test -s out.npy

func.func @main(%x: tensor<?x?xf32>, %w: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %n = tensor.dim %w, %c1 : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  // CHECK: [[FILE]]:[[#@LINE+1]]:8: error: 'stc.spmm' op reference lowering needs static shapes
  %r = linalg.matmul ins(%x, %w : tensor<?x?xf32>, tensor<?x?xf32>)
                     outs(%z : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
