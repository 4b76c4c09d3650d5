"""Checks the results of row-reductions.mlir against NumPy (float64).

usage: row_reductions_ref.py DIR   (x.npy, xi.npy, mean.npy and the six
results r0.npy .. r5.npy in DIR)
"""
import os
import sys

import numpy as np

d = sys.argv[1]
x = np.load(os.path.join(d, "x.npy")).astype(np.float64)
xi = np.load(os.path.join(d, "xi.npy")).astype(np.int64)
mean = np.load(os.path.join(d, "mean.npy")).astype(np.float64)
want = [
    x.sum(axis=1),
    x.max(axis=1),
    x.sum(axis=0),
    xi.sum(axis=1),
    np.exp(x).prod(axis=1),
    ((x - mean[:, None]) ** 2).sum(axis=1),
]
names = ["row sum", "row max", "column sum", "i32 row sum", "row product",
         "sum of squared deviations"]
ok = True
for i, (name, w) in enumerate(zip(names, want)):
    got = np.load(os.path.join(d, f"r{i}.npy")).astype(np.float64)
    if got.shape != w.shape:
        print(f"{name}: shape {got.shape}, expected {w.shape}")
        ok = False
        continue
    if i == 3:
        good = np.array_equal(got, w)
        print(f"{name}: {'exact' if good else 'MISMATCH'}")
    else:
        err = np.max(np.abs(got - w) / np.maximum(np.abs(w), 1.0))
        good = err <= 1e-4
        print(f"{name}: max error {err:.2e} {'ok' if good else 'FAILED'}")
    ok = ok and good
sys.exit(0 if ok else 1)
