"""NumPy reference of softmax-layernorm.mlir in float64: row softmax of x
and LayerNorm(x) * gamma + beta (eps 1e-5). Compares with stc-run's two
outputs; exits 1 if either's largest difference, relative to its largest
magnitude, exceeds the tolerance.

  softmax_layernorm_ref.py X.npy GAMMA.npy BETA.npy SOFTMAX.npy LN.npy TOL
"""
import sys

import numpy as np

x, gamma, beta, p, ln = (np.load(f).astype(np.float64) for f in sys.argv[1:6])
tol = float(sys.argv[6])
e = np.exp(x - x.max(axis=1, keepdims=True))
want_p = e / e.sum(axis=1, keepdims=True)
mean = x.mean(axis=1, keepdims=True)
var = ((x - mean) ** 2).mean(axis=1, keepdims=True)
want_ln = (x - mean) / np.sqrt(var + 1e-5) * gamma + beta
bad = 0
for name, got, want in (("softmax", p, want_p), ("layernorm", ln, want_ln)):
    err = np.max(np.abs(got - want)) / np.max(np.abs(want))
    print("%s: max error %.3e of the largest value (tolerance %.0e)"
          % (name, err, tol))
    bad += err > tol
sys.exit(1 if bad else 0)
