"""Checks the results of row-kernel.mlir against NumPy.

usage: row_kernel_ref.py DIR   (h.npy x.npy n.npy in, p.npy ln.npy
iout.npy imax.npy out)
"""
import os
import sys

import numpy as np


def main():
    d = sys.argv[1]
    load = lambda name: np.load(os.path.join(d, name))
    h, x, n = load("h.npy"), load("x.npy"), load("n.npy")
    failures = []

    # Softmax with the max in f16 and (h - max) in f16, as the program.
    m = h.max(axis=-1, keepdims=True)
    e = np.exp((h - m).astype(np.float32).astype(np.float64))
    want = e / e.sum(axis=-1, keepdims=True)
    got = load("p.npy").astype(np.float64)
    err = np.abs(got - want).max()
    print(f"softmax: max error {err:.3e}")
    if err > 2e-3:
        failures.append("softmax")

    x64 = x.astype(np.float64)
    mean = x64.mean(axis=1, keepdims=True)
    var = ((x64 - mean) ** 2).mean(axis=1, keepdims=True)
    want = (x64 - mean) / np.sqrt(var + 1e-5)
    got = load("ln.npy")
    err = np.abs(got - want).max() / np.abs(want).max()
    print(f"layernorm: {got.shape[0]} rows, max error {err:.3e} of the largest")
    if got.shape != x.shape or err > 1e-4:
        failures.append("layernorm")

    n64 = n.astype(np.int64)
    imax = n64.max(axis=1)
    want = (n64 - imax[:, None] + n64.sum(axis=1)[:, None]).astype(np.int32)
    if not np.array_equal(load("iout.npy"), want):
        failures.append("ints")
    if not np.array_equal(load("imax.npy"), imax.astype(np.int32)):
        failures.append("imax")
    print("ints: " + ("wrong" if {"ints", "imax"} & set(failures) else "exact"))
    if failures:
        sys.exit("FAIL: " + ", ".join(failures))


if __name__ == "__main__":
    main()
