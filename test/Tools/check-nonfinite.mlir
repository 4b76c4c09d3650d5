// --check compares with the dense reference element by element: a NaN or
// an infinity at the same place in both results is agreement (an input
// NaN reaches both through the same operations), not a FAIL as it used to
// be; the finite elements are still compared. A non-finite value in one
// result only (no-output-on-failure.mlir) still fails.
// RUN: rm -rf %t && mkdir -p %t && cd %t
// RUN: %python -c "import numpy as np; r = np.random.default_rng(0); x = r.standard_normal((4, 8)).astype(np.float32); x[1, 2] = np.nan; x[2, 5] = np.inf; x[3, 0] = -np.inf; np.save('x.npy', x); w = np.zeros((8, 6), np.float32); w[0::4] = r.standard_normal((2, 6)); w[3::4] = r.standard_normal((2, 6)); np.save('w24.npy', w)"
// RUN: stc-run %s --device=cpu --check --input=x.npy --output=out.npy 2>&1 | FileCheck %s --check-prefix=PASS
// RUN: %python -c "import numpy as np; o = np.load('out.npy'); assert np.isnan(o[1, 2]) and o[2, 5] == np.inf and o[3, 0] == -np.inf, o"
// PASS: stc-run: check: result #0 relative error 0.000e+00 vs the dense reference (tolerance 1e-05): PASS
//
// Where the two results have non-finite values at different places the
// check still fails: the reference multiplies the weight's pruned-away
// zeros by x's infinity (NaN), the sparse kernel skips them.
// RUN: not stc-run %s --device=cpu --entry=product --check --input=x.npy --input=w24.npy 2>&1 | FileCheck %s --check-prefix=FAIL
// FAIL: stc-run: check: result #0 relative error inf vs the dense reference (tolerance 1e-05): FAIL

func.func @main(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.add ins(%x, %x : tensor<4x8xf32>, tensor<4x8xf32>)
                  outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

func.func @product(%x: tensor<4x8xf32>, %w: tensor<8x6xf32>) -> tensor<4x6xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x6xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x6xf32>) -> tensor<4x6xf32>
  %p = stc.prune %w by #stc.nm<2:4> along 0 : tensor<8x6xf32>
  %r = linalg.matmul ins(%x, %p : tensor<4x8xf32>, tensor<8x6xf32>)
                     outs(%z : tensor<4x6xf32>) -> tensor<4x6xf32>
  return %r : tensor<4x6xf32>
}
