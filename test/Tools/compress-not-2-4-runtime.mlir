// A run-time weight that is not 2:4 reaching stc.compress without a prune
// (written by hand, and through the structured[2, 4] encoding on an
// argument, which promises 2:4 data): a one-line error with the location of
// the op and the first offending row/group, a non-zero exit, no output
// file, and an existing output file is left untouched. The same program
// runs when the data is 2:4.
// RUN: rm -rf %t && mkdir -p %t && cd %t
// RUN: %python -c "import numpy as np; r = np.random.default_rng(0); np.save('x.npy', r.standard_normal((4, 8)).astype(np.float32)); np.save('w.npy', r.standard_normal((8, 6)).astype(np.float32)); w = np.zeros((8, 6), np.float32); w[0::4] = 1; w[3::4] = -2; np.save('w24.npy', w); np.save('a.npy', r.standard_normal((6, 8)).astype(np.float32)); np.save('b.npy', r.standard_normal((8, 4)).astype(np.float32))"
// RUN: not stc-run %s --input=x.npy --input=w.npy --output=out.npy 2>&1 \
// RUN:   | FileCheck %s -DFILE=%s --check-prefix=ARG --match-full-lines --implicit-check-not=error:
// RUN: not test -e out.npy
// RUN: echo keep > out.npy
// RUN: not stc-run %s --input=x.npy --input=w.npy --output=out.npy 2>&1 \
// RUN:   | FileCheck %s -DFILE=%s --check-prefix=ARG --match-full-lines --implicit-check-not=error:
// RUN: echo keep | cmp - out.npy
// RUN: rm out.npy
// RUN: not stc-run %s --entry=encoded --input=a.npy --input=b.npy --output=out.npy 2>&1 \
// RUN:   | FileCheck %s -DFILE=%s --check-prefix=ENC --match-full-lines --implicit-check-not=error:
// RUN: not test -e out.npy
// RUN: stc-run %s --input=x.npy --input=w24.npy --output=out.npy
// RUN: %python -c "import numpy as np; x = np.load('x.npy').astype(np.float64); w = np.load('w24.npy'); o = np.load('out.npy'); assert np.allclose(o, x @ w, rtol=1e-5, atol=1e-5), o"

func.func @main(%x: tensor<4x8xf32>, %w: tensor<8x6xf32>) -> tensor<4x6xf32> {
  // ARG: [[FILE]]:[[#@LINE+1]]:12: error: stc.compress: operand is not 2:4 along dimension 0: row 0, group 0 has 4 non-zeros
  %v, %m = stc.compress %w by #stc.nm<2:4> along 0
      : tensor<8x6xf32> -> tensor<6x8xf32>, tensor<6x1xi16>
  %y = stc.spmm %v, %m, %x {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>}
      : tensor<6x8xf32>, tensor<6x1xi16>, tensor<4x8xf32> -> tensor<4x6xf32>
  return %y : tensor<4x6xf32>
}

#enc = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j floordiv 4 : dense, j mod 4 : structured[2, 4]) }>
func.func @encoded(%a: tensor<6x8xf32, #enc>, %b: tensor<8x4xf32>) -> tensor<6x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<6x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<6x4xf32>) -> tensor<6x4xf32>
  // ENC: [[FILE]]:[[#@LINE+1]]:8: error: stc.compress: operand is not 2:4 along dimension 1: row 0, group 0 has 4 non-zeros
  %r = linalg.matmul ins(%a, %b : tensor<6x8xf32, #enc>, tensor<8x4xf32>)
                     outs(%z : tensor<6x4xf32>) -> tensor<6x4xf32>
  return %r : tensor<6x4xf32>
}
