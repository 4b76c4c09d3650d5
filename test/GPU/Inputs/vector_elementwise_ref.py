"""Checks the results of vector-elementwise.mlir against NumPy.

usage: vector_elementwise_ref.py DIR   (a b c r .npy in; t1 t2 y z .npy out)
"""
import os
import sys

import numpy as np


def main():
    d = sys.argv[1]
    load = lambda name: np.load(os.path.join(d, name + ".npy"))
    a, b, c, r = load("a"), load("b"), load("c"), load("r")
    want = {
        "t1": a.transpose(0, 2, 1, 3),
        "t2": a.transpose(0, 2, 3, 1),
        "y": (b + c[None, :]).astype(np.float32) * r[:, None],
        "z": np.tanh(b.astype(np.float32)).astype(np.float16),
    }
    bad = []
    for name, ref in want.items():
        got = load(name)
        if got.shape != ref.shape or got.dtype != ref.dtype:
            bad.append("%s: %s %s, expected %s %s" % (name, got.shape, got.dtype, ref.shape, ref.dtype))
            continue
        tol = 2e-3 if name == "z" else 1e-6
        err = np.abs(got.astype(np.float64) - ref.astype(np.float64)).max()
        if err > tol:
            bad.append("%s: max error %.3e" % (name, err))
    if bad:
        sys.exit("FAIL: " + "; ".join(bad))
    print("vector elementwise: 4 results match")


if __name__ == "__main__":
    main()
