#!/usr/bin/env python3
"""Inputs for the precompressed STC benchmark, and its correctness check.

    make_stc_inputs.py write M N K DIR   -> DIR/{v,m,b}.npy and DIR/ref.npy
    make_stc_inputs.py check DIR OUT.npy -> prints rel_error, exit 1 if > 1e-5

A is seeded normal, pruned 2:4 along K and compressed with the independent
NumPy implementation (test/lib/stc_ref.py); the metadata is written as
'<i2' because stc-run maps i16 arguments to that dtype.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..",
                                "test", "lib"))
import stc_ref  # noqa: E402


def write(m, n, k, out):
    rng = np.random.default_rng(1)
    a = stc_ref.prune_nm(rng.standard_normal((m, k)).astype(np.float32),
                         2, 4, axis=1)
    b = rng.standard_normal((k, n)).astype(np.float32)
    values, meta = stc_ref.compress(a, 2, 4, axis=1)
    np.save(os.path.join(out, "v.npy"), values.astype(np.float32))
    np.save(os.path.join(out, "m.npy"), meta.astype(np.uint16).view(np.int16))
    np.save(os.path.join(out, "b.npy"), b)
    np.save(os.path.join(out, "ref.npy"),
            a.astype(np.float64) @ b.astype(np.float64))


def check(out_dir, result):
    ref = np.load(os.path.join(out_dir, "ref.npy"))
    err = stc_ref.rel_error(np.load(result), ref)
    print(f"rel_error {err:.3e}")
    return 0 if err <= 1e-5 else 1


if __name__ == "__main__":
    if len(sys.argv) == 6 and sys.argv[1] == "write":
        write(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5])
        sys.exit(0)
    if len(sys.argv) == 4 and sys.argv[1] == "check":
        sys.exit(check(sys.argv[2], sys.argv[3]))
    sys.stderr.write(__doc__)
    sys.exit(2)
