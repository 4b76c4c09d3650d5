"""NumPy reference of elementwise-chain.mlir: computes the block in float64
from the f16 inputs and compares with stc-run's output; exits 1 if the
largest difference relative to the largest magnitude exceeds the tolerance.

  elementwise_chain_ref.py X.npy B.npy Y.npy OUT.npy TOLERANCE
"""
import sys

import numpy as np

x, b, y, out = (np.load(p).astype(np.float64) for p in sys.argv[1:5])
tol = float(sys.argv[5])
a = x + b[None, :]
gelu = 0.5 * a * (1.0 + np.tanh(0.7978846 * (a + 0.044715 * a ** 3)))
s = gelu + y.T
want = s / np.sqrt(np.abs(s) + 1.0) + np.arange(s.shape[1])[None, :]
err = np.max(np.abs(out - want)) / np.max(np.abs(want))
print("elementwise chain: max error %.3e of the largest value (tolerance %.0e)"
      % (err, tol))
sys.exit(0 if err <= tol else 1)
