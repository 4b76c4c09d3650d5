"""Checks the results of dense-epilogue.mlir against NumPy (float64).

usage: dense_epilogue_ref.py DIR   (x w w2 w3t b r img f cb .npy in; yy yb yc cr out)
"""
import os
import sys

import numpy as np


def main():
    d = sys.argv[1]
    load = lambda name: np.load(os.path.join(d, name + ".npy")).astype(np.float64)
    x, w, w2, b, r = load("x"), load("w"), load("w2"), load("b"), load("r")
    w3 = load("w3t").T
    img, f, cb = load("img"), load("f"), load("cb")
    conv = np.zeros((2, 4, 4, 32))
    for i in range(3):
        for j in range(3):
            conv += np.einsum("nhwc,cf->nhwf", img[:, i:i + 4, j:j + 4, :], f[i, j])
    want = {
        "yy": np.maximum(x @ w + r, 0),
        "yb": x @ w2 + b,
        "yc": x @ w3 + b,
        "cr": np.maximum(conv + cb, 0),
    }
    bad = []
    for name, ref in want.items():
        got = load(name)
        # f16 results of sums of 64 and 144 products of values ~0.5.
        err = np.abs(got - ref).max() / np.abs(ref).max()
        print("%s: max error %.2e of the largest" % (name, err))
        if got.shape != ref.shape or err > 5e-3:
            bad.append(name)
    if bad:
        sys.exit("FAIL: " + ", ".join(bad))


if __name__ == "__main__":
    main()
