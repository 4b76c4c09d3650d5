// stc-run writes its --output files only when everything succeeded: not
// when --check fails (a NaN input makes the relative error NaN/inf, which
// never passes), and an existing file is left as it was (see also
// check-dynamic-shapes.mlir). Without --check the same run succeeds and writes the file.
// RUN: rm -rf %t && mkdir -p %t && cd %t
// RUN: %python -c "import numpy as np; r = np.random.default_rng(0); x = r.standard_normal((4, 8)).astype(np.float32); x[1, 2] = np.nan; np.save('xnan.npy', x); np.save('w.npy', r.standard_normal((8, 6)).astype(np.float32)); np.save('x.npy', r.standard_normal((4, 8)).astype(np.float32))"
// RUN: not stc-run %s --sparsity=force --check --input=xnan.npy --input=w.npy --output=out.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=FAIL --match-full-lines
// FAIL: stc-run: check: result #0 relative error {{.*}} vs the dense reference (tolerance 1e-05): FAIL
// RUN: not test -e out.npy
// RUN: echo keep > out.npy
// RUN: not stc-run %s --sparsity=force --check --input=xnan.npy --input=w.npy --output=out.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=FAIL --match-full-lines
// RUN: echo keep | cmp - out.npy
// RUN: rm out.npy

// The passing --check writes the output.
// RUN: stc-run %s --sparsity=force --check --input=x.npy --input=w.npy --output=out.npy 2>&1 \
// RUN:   | FileCheck %s --check-prefix=PASS --match-full-lines
// PASS: stc-run: check: result #0 relative error {{[0-9.]+e[-+][0-9]+}} vs the dense reference (tolerance 1e-05): PASS
// RUN: test -s out.npy
// RUN: rm out.npy

// Without --check the NaN run succeeds; the NaN reaches row 1 of the result
// only (columns whose pruned weight dropped it stay finite).
// RUN: stc-run %s --sparsity=force --input=xnan.npy --input=w.npy --output=out.npy
// RUN: %python -c "import numpy as np; o = np.load('out.npy'); assert np.isnan(o[1]).any() and np.isfinite(np.delete(o, 1, 0)).all(), o"

func.func @main(%x: tensor<4x8xf32>, %w: tensor<8x6xf32>) -> tensor<4x6xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x6xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x6xf32>) -> tensor<4x6xf32>
  %r = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x6xf32>)
                     outs(%z : tensor<4x6xf32>) -> tensor<4x6xf32>
  return %r : tensor<4x6xf32>
}

