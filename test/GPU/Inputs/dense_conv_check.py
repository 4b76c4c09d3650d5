"""Runs the dense convolutions of dense-conv.mlir through stc-run and checks
them against a direct float64 NumPy convolution.

usage: dense_conv_check.py STC_RUN MLIR WORKDIR [stc-run arguments]
Prints `dense conv ENTRY max_rel_err E OK` (or FAIL, exit 1) per entry.
"""
import os
import subprocess
import sys

import numpy as np


def conv_nchw(x, w, stride, pad_h):
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pad_h, pad_h), (0, 0)))
    f, _, kh, kw = w.shape
    oh = (xp.shape[2] - kh) // stride + 1
    ow = (xp.shape[3] - kw) // stride + 1
    out = np.zeros((x.shape[0], f, oh, ow))
    for i in range(kh):
        for j in range(kw):
            patch = xp[:, :, i:i + stride * (oh - 1) + 1:stride,
                       j:j + stride * (ow - 1) + 1:stride]
            out += np.einsum("nchw,fc->nfhw", patch,
                             w[:, :, i, j].astype(np.float64))
    return out


def main():
    stc_run, mlir, work = sys.argv[1:4]
    rest = sys.argv[4:]
    os.makedirs(work, exist_ok=True)
    rng = np.random.default_rng(7)
    cases = {
        "conv": (rng.standard_normal((3, 6, 9, 9)).astype(np.float32),
                 rng.standard_normal((5, 6, 3, 3)).astype(np.float32), 2, 1,
                 1e-5),
        # Grouped: NGCHW input, GFCHW filter.
        "conv16": (rng.standard_normal((2, 2, 2, 10, 10)).astype(np.float16),
                   rng.standard_normal((2, 4, 2, 7, 7)).astype(np.float16), 1, 0,
                   2e-3),
    }
    grouped = {"conv16"}
    failed = 0
    for entry, (x, w, stride, pad_h, tol) in cases.items():
        xs, ws, ys = (os.path.join(work, entry + n) for n in
                      (".x.npy", ".w.npy", ".y.npy"))
        np.save(xs, x)
        np.save(ws, w)
        if entry in grouped:
            ref = np.stack([conv_nchw(x[:, g], w[g], stride, pad_h)
                            for g in range(x.shape[1])], axis=1)
        else:
            ref = conv_nchw(x, w, stride, pad_h)
        np.save(ys, np.full(ref.shape, np.nan, x.dtype))
        run = subprocess.run([stc_run, mlir, "--entry=" + entry,
                              "--input=" + xs, "--input=" + ws,
                              "--output=" + ys] + rest,
                             capture_output=True, text=True)
        if run.returncode != 0:
            sys.stderr.write(run.stderr)
            print("dense conv", entry, "stc-run failed FAIL")
            failed = 1
            continue
        y = np.load(ys).astype(np.float64)
        err = np.abs(y - ref).max() / np.abs(ref).max()
        ok = y.shape == ref.shape and np.isfinite(err) and err < tol
        print("dense conv %s max_rel_err %.2e %s" % (entry, err,
                                                   "OK" if ok else "FAIL"))
        failed |= not ok
    return failed


if __name__ == "__main__":
    sys.exit(main())
