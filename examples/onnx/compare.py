#!/usr/bin/env python3
"""Compares STC's output for an ONNX model with ONNX's own semantics: the
NumPy reference interpreter of test/lib/onnx_ref.py (float64, every node's
output rounded to its type), for examples/onnx/run.sh.

  compare.py MODEL.onnx X.npy Y.npy [--tol T]

Prints `compare: rel_error=... tol=... PASS` (or FAIL, exit 1).
"""

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "test", "lib"))

import numpy as np  # noqa: E402
import onnx  # noqa: E402

import onnx_ref  # noqa: E402
import stc_ref  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("model")
    p.add_argument("x")
    p.add_argument("y")
    p.add_argument("--tol", type=float, default=1e-5)
    args = p.parse_args()
    model = onnx.load(args.model)
    x = np.load(args.x).astype(np.float64)
    ref = onnx_ref.run(model, {model.graph.input[0].name: x})[0]
    out = np.load(args.y).astype(np.float64)
    err = stc_ref.rel_error(out, ref)
    ok = out.shape == ref.shape and np.isfinite(err) and err <= args.tol
    print("compare: rel_error=%.3e tol=%.0e %s" %
          (err, args.tol, "PASS" if ok else "FAIL"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
