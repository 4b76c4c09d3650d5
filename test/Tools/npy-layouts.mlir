// .npy inputs in Fortran order and big-endian byte order are read with the
// right values (the result equals the C-order little-endian run), and a
// bf16 argument and result travel as '<f4' files holding bf16 values.
// REQUIRES: numpy
// RUN: rm -rf %t && mkdir -p %t && cd %t
// RUN: %python -c "import numpy as np; r = np.random.default_rng(1); x = r.standard_normal((4, 8)).astype(np.float32); w = r.standard_normal((8, 6)).astype(np.float32); np.save('x.npy', x); np.save('xf.npy', np.asfortranarray(x)); np.save('xbe.npy', x.astype('>f4')); np.save('w.npy', w); np.save('wf.npy', np.asfortranarray(w)); np.save('ref.npy', x.astype(np.float64) @ w)"
// RUN: stc-run %s --input=x.npy --input=w.npy --output=c.npy
// RUN: stc-run %s --input=xf.npy --input=wf.npy --output=f.npy
// RUN: stc-run %s --input=xbe.npy --input=w.npy --output=be.npy
// RUN: %python -c "import numpy as np; ref = np.load('ref.npy'); c = np.load('c.npy'); assert c.dtype == np.dtype('<f4') and c.flags.c_contiguous and np.allclose(c, ref, rtol=1e-5, atol=1e-5), c; [np.testing.assert_array_equal(np.load(f), c) for f in ('f.npy', 'be.npy')]"
// RUN: %python -c "import numpy as np; r = np.random.default_rng(2); u = lambda a: ((a.view(np.uint32) >> 16) << 16).view(np.float32); x = u(r.standard_normal((4, 8)).astype(np.float32)); w = u(r.standard_normal((8, 6)).astype(np.float32)); np.save('xb.npy', x); np.save('wb.npy', w); np.save('refb.npy', x.astype(np.float64) @ w)"
// RUN: stc-run %s --entry=bf16 --input=xb.npy --input=wb.npy --output=b.npy
// RUN: %python -c "import numpy as np; ref = np.load('refb.npy'); b = np.load('b.npy'); assert b.dtype == np.dtype('<f4') and b.shape == (4, 6), b.dtype; assert ((b.view(np.uint32) & 0xFFFF) == 0).all(), 'not bf16 values'; e = np.linalg.norm(b - ref) / np.linalg.norm(ref); assert e < 1e-2, e"

func.func @main(%x: tensor<4x8xf32>, %w: tensor<8x6xf32>) -> tensor<4x6xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x6xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x6xf32>) -> tensor<4x6xf32>
  %r = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x6xf32>)
                     outs(%z : tensor<4x6xf32>) -> tensor<4x6xf32>
  return %r : tensor<4x6xf32>
}

func.func @bf16(%x: tensor<4x8xbf16>, %w: tensor<8x6xbf16>) -> tensor<4x6xbf16> {
  %zero = arith.constant 0.0 : bf16
  %e = tensor.empty() : tensor<4x6xbf16>
  %z = linalg.fill ins(%zero : bf16) outs(%e : tensor<4x6xbf16>) -> tensor<4x6xbf16>
  %r = linalg.matmul ins(%x, %w : tensor<4x8xbf16>, tensor<8x6xbf16>)
                     outs(%z : tensor<4x6xbf16>) -> tensor<4x6xbf16>
  return %r : tensor<4x6xbf16>
}
