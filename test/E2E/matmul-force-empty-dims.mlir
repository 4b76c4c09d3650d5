// Empty dimensions under --sparsity=force: M = 0 gives an empty 0 x N
// result, K = 0 gives an all-zero M x N result (the empty sum), N = 0 an
// M x 0 result; no crash, exit 0, the right shape. (run_e2e.py refuses
// all-zero and empty references, so this test checks the files itself.)
// REQUIRES: numpy
// RUN: rm -rf %t && mkdir -p %t && cd %t
// RUN: %python -c "import numpy as np; np.save('x0.npy', np.ones((0, 8), np.float32)); np.save('w.npy', np.ones((8, 4), np.float32)); np.save('xk0.npy', np.ones((4, 0), np.float32)); np.save('wk0.npy', np.ones((0, 4), np.float32)); np.save('x.npy', np.ones((4, 8), np.float32)); np.save('wn0.npy', np.ones((8, 0), np.float32))"
// RUN: %python -c "import numpy as np; np.save('m0.npy', np.full((0, 4), np.nan, np.float32)); np.save('k0.npy', np.full((4, 4), np.nan, np.float32)); np.save('n0.npy', np.full((4, 0), np.nan, np.float32))"
// RUN: stc-run %s --sparsity=force --input=x0.npy --input=w.npy --output=m0.npy
// RUN: stc-run %s --sparsity=force --input=xk0.npy --input=wk0.npy --output=k0.npy
// RUN: stc-run %s --sparsity=force --input=x.npy --input=wn0.npy --output=n0.npy
// RUN: %python -c "import numpy as np; assert np.load('m0.npy').shape == (0, 4); k = np.load('k0.npy'); assert k.shape == (4, 4) and (k == 0).all(), k; assert np.load('n0.npy').shape == (4, 0)"
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
