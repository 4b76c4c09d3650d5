#!/usr/bin/env python3
"""A stand-in for `stc-run`, used only to test run_e2e.py without the
compiler.

It follows the stc-run command line (docs/DESIGN.md §5):
  fake_stc_run.py PROG.mlir [--input=F.npy]... [--output=F.npy]...
                  [--sparsity=explicit|enable|force] [--device=...] [...]
and understands two program shapes, recognised from the signature of
`func.func @main` (or --entry=NAME):
  (%x: tensor<MxKxT>, %w: tensor<KxNxT>)             -> x @ w
  (%x: tensor<MxKxT>, %w: tensor<KxNxT>, %b: tensor<NxT>)
                                                     -> x @ w + b, then relu if
     the body mentions `arith.maximumf` or `relu`, gelu (tanh) for `gelu_tanh`
     / `gelu`, gelu (erf) for `gelu_erf` / `math.erf`.
With --sparsity=force, w is pruned 2:4 along axis 0 (by magnitude, ties to
the lower index).  T in {f32, f16, bf16}; bf16 tensors travel as '<f4' .npy
files and are rounded to bf16 on the way in and out.  Computation is float32.

The environment variable STC_FAKE_MODE injects faults to test the runner:
  ok (default), nan (NaN in the output), fail (exit 1 with a message),
  nowrite (exit 0 without writing), wrongshape, wrongdtype, dense (ignore
  --sparsity=force), noise (1e-3 relative perturbation), hang (sleep).
"""

import os
import re
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stc_ref  # noqa: E402


def die(msg):
    sys.stderr.write("fake-stc-run: error: %s\n" % msg)
    sys.exit(1)


def parse_tensor(t):
    m = re.fullmatch(r"\s*tensor<((?:\d+x)*)(f32|f16|bf16)>\s*", t)
    if not m:
        die("unsupported type %r" % t)
    dims = tuple(int(d) for d in m.group(1).split("x") if d)
    return dims, m.group(2)


def main(argv):
    mode = os.environ.get("STC_FAKE_MODE", "ok")
    positional = [a for a in argv if not a.startswith("--")]
    opts = {}
    inputs, outputs = [], []
    for a in argv:
        if a.startswith("--input="):
            inputs.append(a[len("--input="):])
        elif a.startswith("--output="):
            outputs.append(a[len("--output="):])
        elif a.startswith("--"):
            key, _, val = a[2:].partition("=")
            if key in opts:
                die("option --%s given more than once" % key)
            opts[key] = val
    if len(positional) != 1:
        die("expected exactly one input program")
    with open(positional[0]) as f:
        text = f.read()
    entry = opts.get("entry", "main")
    sig = re.search(r"func\.func\s+@%s\s*\(([^)]*)\)\s*->\s*([^{]*)\{"
                    % re.escape(entry), text)
    if not sig:
        die("no function @%s" % entry)
    arg_types = [parse_tensor(a.split(":", 1)[1])
                 for a in sig.group(1).split(",") if a.strip()]
    result = parse_tensor(sig.group(2).strip().strip("()"))
    if len(inputs) != len(arg_types):
        die("@%s takes %d arguments, got %d --input files"
            % (entry, len(arg_types), len(inputs)))
    if len(outputs) != 1:
        die("@%s has 1 result, got %d --output files" % (entry, len(outputs)))
    if mode == "fail":
        die("injected failure")
    if mode == "hang":
        time.sleep(3600)

    vals = []
    for path, (shape, ty) in zip(inputs, arg_types):
        a = np.load(path)
        want = "<f2" if ty == "f16" else "<f4"
        if a.dtype.str != want or a.shape != shape:
            die("%s: expected %s %s, got %s %s"
                % (path, want, shape, a.dtype.str, a.shape))
        a = a.astype(np.float32)
        if ty == "bf16":
            a = stc_ref.to_bf16(a)
        vals.append(a)
    x, w = vals[0], vals[1]
    if opts.get("sparsity") == "force" and mode != "dense":
        w = stc_ref.prune_nm(w, 2, 4, axis=0)
    out = x @ w
    if len(vals) > 2:
        out = out + vals[2]
        body = text[sig.end():]
        if "gelu_erf" in body or "math.erf" in body:
            out = stc_ref.gelu(out, "erf").astype(np.float32)
        elif "gelu" in body:
            out = stc_ref.gelu(out, "tanh").astype(np.float32)
        elif "arith.maximumf" in body or "relu" in body:
            out = np.maximum(out, 0)
    if mode == "nan":
        out = out.copy()
        out.flat[len(out.flat) // 2] = np.nan
    if mode == "noise":
        out = out * (1 + 1e-3 * np.random.default_rng(0).standard_normal(
            out.shape)).astype(np.float32)
    if mode == "wrongshape":
        out = out[:, :-1]
    shape, ty = result
    if ty == "f16":
        out = out.astype(np.float16)
    elif ty == "bf16":
        out = stc_ref.to_bf16(out)
    if mode == "wrongdtype":
        out = out.astype(np.float64)
    if mode != "nowrite":
        np.save(outputs[0], out)
    sys.stderr.write("fake-stc-run: device cpu\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
