"""erf(tanh(1 / sqrt(|x| + 1))) in float64, compared with stc-run's output:
the largest relative difference must be at most the tolerance given."""
import math
import sys

import numpy as np

x = np.load(sys.argv[1]).astype(np.float64)
y = np.load(sys.argv[2]).astype(np.float64)
tol = float(sys.argv[3])
want = np.vectorize(math.erf)(np.tanh(1.0 / np.sqrt(np.abs(x) + 1.0)))
err = np.max(np.abs(y - want) / np.abs(want))
print("max relative error %.3e (tolerance %.0e)" % (err, tol))
sys.exit(0 if err <= tol else 1)
