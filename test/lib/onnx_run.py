#!/usr/bin/env python3
"""Runs an ONNX test model through stc-run and checks it against the NumPy
reference of ONNX semantics (onnx_ref.py).

Usage (from a lit RUN line):

  onnx_run.py --stc-run PATH --case NAME --dir DIR [--dtype f32|f16|bf16]
              [--batch N] [--dynamic] [--seed N] [--tol X]
              [--sparsity explicit|enable|force] [--expect-pruned]
              [--model FILE] [--external-data] [-- extra stc-run args]
  onnx_run.py --case NAME --dir DIR --save-only   (just write DIR/NAME.onnx)

For one case it writes DIR/NAME.onnx (onnx_cases.py, seeded), draws seeded
normal inputs (rounded to the model's type), runs
  stc-run DIR/NAME.onnx --input=... --output=... --sparsity=MODE [extra]
with outputs pre-poisoned with NaN, and compares every output with the
reference run under the same --sparsity policy:
  rel_error = ||out - ref||_2 / ||ref||_2 <= tol.
`--expect-pruned` also requires the output to differ from the unpruned
(dense) reference by more than 10 x tol: the weights really were pruned.
Prints `onnx NAME: rel_error=... tol=... PASS` (or FAIL, exit 1).
"""

import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402
import onnx  # noqa: E402

import onnx_cases  # noqa: E402
import onnx_ref  # noqa: E402
import stc_ref  # noqa: E402

NPY_DTYPES = {onnx_ref.FLOAT: np.float32, onnx_ref.FLOAT16: np.float16,
              onnx_ref.BFLOAT16: np.float32, onnx_ref.INT64: np.int64,
              onnx_ref.INT32: np.int32, onnx_ref.INT8: np.int8}
DEFAULT_TOL = {"f32": 2e-5, "f16": 1e-2, "bf16": 3e-2}


def draw_inputs(model, rng, batch, ranges):
    feeds = {}
    inits = {t.name for t in model.graph.initializer}
    for vi in model.graph.input:
        if vi.name in inits:
            continue
        tt = vi.type.tensor_type
        shape = [d.dim_value if d.HasField("dim_value") else batch
                 for d in tt.shape.dim]
        if tt.elem_type in (onnx_ref.INT64, onnx_ref.INT32):
            low, high = ranges.get(vi.name, (0, 8))
            feeds[vi.name] = rng.integers(low, high, shape)
        else:
            x = rng.standard_normal(shape)
            feeds[vi.name] = onnx_ref.round_to_dtype(x, tt.elem_type)
    return feeds


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--stc-run")
    p.add_argument("--case", required=True,
                   help="a model of onnx_cases.py, or the label of --model")
    p.add_argument("--dir", required=True)
    p.add_argument("--dtype", default="f32")
    p.add_argument("--batch", type=int, default=2)
    p.add_argument("--dynamic", action="store_true",
                   help="the model's batch dimension is symbolic")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--tol", type=float)
    p.add_argument("--sparsity", default="explicit")
    p.add_argument("--expect-pruned", action="store_true")
    p.add_argument("--save-only", action="store_true")
    p.add_argument("--external-data", action="store_true",
                   help="store the weights in NAME.weights beside the model")
    p.add_argument("--model",
                   help="run this .onnx file (e.g. a torch export) instead "
                        "of writing the case's")
    p.add_argument("extra", nargs="*")
    args = p.parse_args()

    os.makedirs(args.dir, exist_ok=True)
    rng = np.random.default_rng(args.seed)
    if args.model:
        model = onnx.load(args.model)
    else:
        model = onnx_cases.CASES[args.case](
            rng, args.dtype, "N" if args.dynamic else args.batch)
    path = args.model or os.path.join(args.dir, args.case + ".onnx")
    if not args.model:
        onnx.checker.check_model(model)
        if args.external_data:
            # A copy: saving moves the data out of the model in memory.
            stored = onnx.ModelProto()
            stored.CopyFrom(model)
            onnx.save_model(stored, path, save_as_external_data=True,
                            all_tensors_to_one_file=True,
                            location=args.case + ".weights",
                            size_threshold=0)
        else:
            onnx.save(model, path)
    if args.save_only:
        return 0

    feeds = draw_inputs(model, rng, args.batch,
                        onnx_cases.INPUT_RANGES.get(args.case, {}))
    cmd = [args.stc_run, path, "--sparsity=" + args.sparsity]
    inits = {t.name for t in model.graph.initializer}
    for vi in model.graph.input:
        if vi.name in inits:
            continue
        f = os.path.join(args.dir, "%s.in.%s.npy" % (args.case, vi.name))
        np.save(f, feeds[vi.name].astype(
            NPY_DTYPES[vi.type.tensor_type.elem_type]))
        cmd.append("--input=" + f)
    outs = []
    for i, vi in enumerate(model.graph.output):
        f = os.path.join(args.dir, "%s.out%d.npy" % (args.case, i))
        np.save(f, np.full((1,), np.nan, np.float32))
        outs.append(f)
        cmd.append("--output=" + f)
    cmd += args.extra
    run = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         universal_newlines=True)
    if run.returncode != 0:
        sys.stdout.write(run.stdout + run.stderr)
        print("onnx %s: stc-run failed (exit %d) FAIL" %
              (args.case, run.returncode))
        return 1

    refs = onnx_ref.run(model, feeds, sparsity=args.sparsity,
                        static_batch=not args.dynamic)
    dense = onnx_ref.run(model, feeds) if args.expect_pruned else None
    tol = args.tol or DEFAULT_TOL[args.dtype]
    ok = True
    for i, (f, ref) in enumerate(zip(outs, refs)):
        out = np.load(f).astype(np.float64)
        if out.shape != ref.shape:
            print("onnx %s: output #%d has shape %s, expected %s FAIL" %
                  (args.case, i, out.shape, ref.shape))
            return 1
        err = stc_ref.rel_error(out, ref)
        good = np.isfinite(err) and err <= tol
        line = "onnx %s: output #%d rel_error=%.3e tol=%.0e" % (
            args.case, i, err, tol)
        if dense is not None:
            dense_err = stc_ref.rel_error(out, dense[i])
            line += " (vs unpruned %.3e)" % dense_err
            good = good and dense_err > 10 * tol
        print(line + (" PASS" if good else " FAIL"))
        ok = ok and good
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
