// --check on a dynamic-shape program: the dense reference lowering
// handles dynamic sizes too (decompressing to the padded size and cutting
// to the dense operand's K), the check passes and the output is written.
// RUN: rm -rf %t && mkdir -p %t && cd %t
// RUN: %python -c "import numpy as np; r = np.random.default_rng(0); np.save('w.npy', r.standard_normal((8, 6)).astype(np.float32)); np.save('x.npy', r.standard_normal((4, 8)).astype(np.float32))"
// RUN: stc-run %s --sparsity=force --check --input=x.npy --input=w.npy --output=out.npy 2>&1 | FileCheck %s
// RUN: test -s out.npy
// CHECK: stc-run: check: result #0 relative error {{.*}}: PASS

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
