#!/usr/bin/env python3
"""End-to-end runner for STC: runs `stc-run` on random inputs and compares
its outputs with an independent float64 NumPy reference.

Usage (from a lit RUN line):

  python3 run_e2e.py --stc-run PATH --mlir PROG.mlir --case NAME
                     [--seed N] [--tol X] [--timeout S] [--keep] [-v]
                     [-- extra stc-run args]
  python3 run_e2e.py --list
  python3 run_e2e.py --self-test [--stc-run PATH_TO_fake_stc_run.py]

What it does for one case (see e2e_cases.py for the registry):
  1. draws seeded normal random inputs for the entry arguments (never all
     zeros), rounded to each argument's element type, and writes them as
     .npy files into a fresh temporary directory;
  2. writes every output file pre-poisoned with NaN (so an output that is not
     rewritten cannot pass);
  3. runs  stc-run PROG.mlir --input=in0.npy ... --output=out0.npy ...
           [case options] [extra args]
     and requires exit code 0;
  4. loads every output, checks its shape and dtype, and computes
     rel_error = ||out - ref||_2 / ||ref||_2 against the float64 reference;
  5. prints  `case NAME: rel_error=... tol=... PASS`  (or FAIL, exit 1).
NaN never passes.  Exit codes: 0 pass, 1 fail, 2 usage/setup error.
"""

import os
import shlex
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def _ensure_numpy():
    """Re-executes under a python3 that has numpy if this one has not (e.g.
    a pyenv shim in front of the system python)."""
    import importlib.util
    if importlib.util.find_spec("numpy") is not None:
        return
    if os.environ.get("STC_E2E_REEXEC"):
        sys.stderr.write("run_e2e.py: error: numpy is not available\n")
        sys.exit(2)
    for candidate in ("/usr/bin/python3", "/usr/local/bin/python3"):
        if os.path.exists(candidate) and os.path.realpath(candidate) != \
                os.path.realpath(sys.executable):
            os.environ["STC_E2E_REEXEC"] = "1"
            os.execv(candidate, [candidate] + sys.argv)
    sys.stderr.write("run_e2e.py: error: numpy is not available\n")
    sys.exit(2)


_ensure_numpy()
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

import e2e_cases  # noqa: E402
import stc_ref  # noqa: E402


class SetupError(Exception):
    """A problem with the test itself (usage, registry, reference)."""


# ---------------------------------------------------------------------------
# Inputs
# ---------------------------------------------------------------------------

def _round(values, dtype):
    """Rounds float64 values to `dtype`; returns float64."""
    if dtype in ("i8", "i32", "i64"):
        return np.rint(values)
    return stc_ref.round_to(values, dtype)


def _has_magnitude_ties(x, axis, m):
    """Mask (same shape as x) of elements whose |x| equals another element's
    in the same group of m along axis."""
    a = np.moveaxis(np.abs(x), axis, -1)
    k = a.shape[-1]
    pad = (-k) % m
    # Pad with distinct negative values so padding never ties.
    padv = -1.0 - np.arange(pad, dtype=np.float64)
    a = np.concatenate([a, np.broadcast_to(padv, a.shape[:-1] + (pad,))],
                       axis=-1)
    g = a.reshape(a.shape[:-1] + (-1, m))
    tie = np.zeros(g.shape, bool)
    for i in range(m):
        for j in range(m):
            if i != j:
                tie[..., i] |= g[..., i] == g[..., j]
    tie = tie.reshape(a.shape)[..., :k]
    return np.moveaxis(tie, -1, axis)


def make_input(rng, arg):
    """Draws the values of one argument: float64 array holding exactly the
    values that will be written to its .npy file."""
    shape = arg.shape
    if arg.dtype in ("i8", "i32", "i64"):
        hi = max(1, int(arg.scale))
        vals = rng.integers(-hi, hi + 1, size=shape).astype(np.float64)
    else:
        vals = _round(rng.standard_normal(shape) * arg.scale, arg.dtype)
    if arg.tie_free is not None and vals.size:
        axis, m = arg.tie_free
        for _ in range(100):
            ties = _has_magnitude_ties(vals, axis, m)
            if not ties.any():
                break
            if arg.dtype in ("i8", "i32", "i64"):
                hi = max(1, int(arg.scale))
                fresh = rng.integers(-hi, hi + 1, size=shape).astype(
                    np.float64)
            else:
                fresh = _round(rng.standard_normal(shape) * arg.scale,
                               arg.dtype)
            vals = np.where(ties, fresh, vals)
        else:
            raise SetupError("could not draw tie-free values for an argument "
                             "of shape %s" % (shape,))
    # Never all zeros (or a zero tensor would pass for a broken program).
    if vals.size and not np.any(vals != 0):
        vals = np.ones(shape, np.float64)
    return vals


def to_file_array(values, arg):
    """Converts float64 values to the array written to the .npy file."""
    return np.asarray(values).astype(arg.npy_dtype)


def poison(arg):
    """An output-shaped array that can never pass: NaN (or the most negative
    integer for integer outputs)."""
    dt = arg.npy_dtype
    if dt.kind == "f":
        return np.full(arg.shape, np.nan, dtype=dt)
    return np.full(arg.shape, np.iinfo(dt).min, dtype=dt)


# ---------------------------------------------------------------------------
# Command line of stc-run
# ---------------------------------------------------------------------------

def _opt_name(a):
    return a.split("=", 1)[0] if a.startswith("-") else None


def merge_options(case_args, extra):
    """Case options first, except those that `extra` gives again (by name);
    then `extra`.  (stc-run options may occur only once.)"""
    names = {_opt_name(a) for a in extra if _opt_name(a)}
    return [a for a in case_args if _opt_name(a) not in names] + list(extra)


def stc_run_command(stc_run, mlir, inputs, outputs, options):
    cmd = [stc_run]
    if stc_run.endswith(".py"):
        cmd = [sys.executable, stc_run]
    cmd.append(mlir)
    cmd += ["--input=" + p for p in inputs]
    cmd += ["--output=" + p for p in outputs]
    return cmd + list(options)


# ---------------------------------------------------------------------------
# One case
# ---------------------------------------------------------------------------

def _as_list(r):
    return list(r) if isinstance(r, (list, tuple)) else [r]


def run_case(case, stc_run, mlir, seed=0, tol=None, extra=(), timeout=600,
             keep=False, verbose=False, out=sys.stdout):
    """Runs one case; returns True on PASS.  Raises SetupError for problems
    with the test itself."""
    tol = case.tolerance() if tol is None else tol
    rng = np.random.default_rng(seed)
    inputs = [make_input(rng, a) for a in case.args]

    refs = [np.asarray(r, np.float64) for r in _as_list(case.ref(*inputs))]
    if len(refs) != len(case.outputs):
        raise SetupError("case %s: reference gives %d outputs, case declares "
                         "%d" % (case.name, len(refs), len(case.outputs)))
    for i, (r, o) in enumerate(zip(refs, case.outputs)):
        if r.shape != o.shape:
            raise SetupError("case %s: reference output %d has shape %s, case "
                             "declares %s" % (case.name, i, r.shape, o.shape))
        if not np.all(np.isfinite(r)):
            raise SetupError("case %s: reference output %d is not finite"
                             % (case.name, i))
        if r.size and not np.any(r != 0):
            raise SetupError("case %s: reference output %d is all zeros"
                             % (case.name, i))
    for label, fn in case.wrong:
        alts = [np.asarray(a, np.float64) for a in _as_list(fn(*inputs))]
        diff = max(stc_ref.rel_error(a, r) for a, r in zip(alts, refs))
        if not diff > tol:
            raise SetupError("case %s: cannot distinguish the reference from "
                             "the wrong answer '%s' (rel diff %.3e <= tol "
                             "%.1e)" % (case.name, label, diff, tol))

    tmp = tempfile.mkdtemp(prefix="stc-e2e-%s-" % case.name)
    try:
        in_paths, out_paths = [], []
        for i, (vals, a) in enumerate(zip(inputs, case.args)):
            p = os.path.join(tmp, "in%d.npy" % i)
            np.save(p, to_file_array(vals, a))
            in_paths.append(p)
        for i, a in enumerate(case.outputs):
            p = os.path.join(tmp, "out%d.npy" % i)
            np.save(p, poison(a))
            out_paths.append(p)

        cmd = stc_run_command(stc_run, mlir, in_paths, out_paths,
                              merge_options(case.stc_args, extra))
        if verbose:
            out.write("running: %s\n" % " ".join(shlex.quote(c) for c in cmd))
        try:
            proc = subprocess.run(cmd, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, timeout=timeout)
        except subprocess.TimeoutExpired:
            out.write("case %s: stc-run timed out after %ss FAIL\n"
                      % (case.name, timeout))
            return False
        except OSError as e:
            raise SetupError("cannot run %s: %s" % (cmd[0], e))
        text_out = proc.stdout.decode(errors="replace")
        text_err = proc.stderr.decode(errors="replace")
        if verbose or proc.returncode != 0:
            if text_out:
                out.write("--- stc-run stdout ---\n%s" % text_out)
            if text_err:
                out.write("--- stc-run stderr ---\n%s" % text_err)
        if proc.returncode != 0:
            out.write("command: %s\n" % " ".join(shlex.quote(c) for c in cmd))
            out.write("case %s: stc-run exited with code %d FAIL\n"
                      % (case.name, proc.returncode))
            return False

        worst = 0.0
        problems = []
        for i, (p, a, r) in enumerate(zip(out_paths, case.outputs, refs)):
            try:
                got = np.load(p, allow_pickle=False)
            except Exception as e:  # noqa: BLE001 - report any load failure
                problems.append("output %d: cannot load %s: %s" % (i, p, e))
                worst = float("inf")
                continue
            if got.dtype != a.npy_dtype:
                problems.append("output %d: dtype %s, expected %s"
                                % (i, got.dtype.str, a.npy_dtype.str))
            if got.shape != a.shape:
                problems.append("output %d: shape %s, expected %s"
                                % (i, got.shape, a.shape))
                worst = float("inf")
                continue
            nans = int(np.count_nonzero(np.isnan(got))) \
                if got.dtype.kind == "f" else 0
            if nans:
                problems.append("output %d: %d of %d values are NaN"
                                % (i, nans, got.size))
            err = stc_ref.rel_error(got, r)
            if len(refs) > 1 or verbose:
                out.write("  output %d: rel_error=%.3e\n" % (i, err))
            worst = max(worst, err)
        ok = not problems and worst <= tol
        for msg in problems:
            out.write("case %s: %s\n" % (case.name, msg))
        if not ok:
            out.write("command: %s\n" % " ".join(shlex.quote(c) for c in cmd))
        out.write("case %s: rel_error=%.3e tol=%.1e %s\n"
                  % (case.name, worst, tol, "PASS" if ok else "FAIL"))
        return ok
    finally:
        if keep:
            out.write("kept temporary files in %s\n" % tmp)
        else:
            for name in os.listdir(tmp):
                os.unlink(os.path.join(tmp, name))
            os.rmdir(tmp)


# ---------------------------------------------------------------------------
# Self test (stc_ref + the runner itself, with fake_stc_run.py)
# ---------------------------------------------------------------------------

def self_test(stc_run=None):
    """Checks stc_ref on known values and the runner's pass/fail logic with
    fake_stc_run.py.  Returns the number of failures."""
    import io
    failures = []

    def check(cond, what):
        if not cond:
            failures.append(what)

    r = stc_ref
    # prune_nm: two largest magnitudes per group of 4, ties to lower index.
    w = np.array([[1., -5., 3., 2., 0., 0., 7., 0.],
                  [2., 2., 2., 2., -1., 1., -1., 1.]])
    p = r.prune_nm(w, 2, 4, axis=-1)
    check(np.array_equal(p, [[0., -5., 3., 0., 0., 0., 7., 0.],
                             [2., 2., 0., 0., -1., 1., 0., 0.]]), "prune_nm")
    check(np.array_equal(r.prune_nm(w.T, 2, 4, axis=0), p.T), "prune axis=0")
    odd = np.array([[1., 2., 3., 4., 5., 6.]])
    check(np.array_equal(r.prune_nm(odd, 2, 4), [[0, 0, 3, 4, 5, 6]]),
          "prune_nm with padding")
    check(r.is_nm(p, 2, 4, -1) and not r.is_nm(w, 2, 4, -1), "is_nm")
    check(np.array_equal(r.prune_nm(np.array([1., -3., 2., 4.]), 1, 2),
                         [0., -3., 0., 4.]), "prune 1:2")
    # compress: known nibbles.  Row 0 groups: (1,2) -> 0x9, (2,?) -> (0,2)
    # = 0x8 ... padded to 16 columns with all-zero groups -> 0x4.
    vals, meta = r.compress(p, 2, 4, axis=-1)
    check(vals.shape == (2, 8) and meta.shape == (2, 1), "compress shapes")
    check(meta[0, 0] == (0x9 | 0x8 << 4 | 0x4 << 8 | 0x4 << 12),
          "compress meta row 0: %#x" % meta[0, 0])
    check(meta[1, 0] == (0x4 | 0x4 << 4 | 0x4 << 8 | 0x4 << 12),
          "compress meta row 1: %#x" % meta[1, 0])
    check(np.array_equal(vals[0], [-5., 3., 0., 7., 0., 0., 0., 0.]),
          "compress values row 0")
    one = np.zeros((1, 16))
    one[0, 3] = 5.  # one non-zero at index 3 -> (0,3) = 0xC
    one[0, 5] = 6.  # index 1 -> (0,1) = 0x4 (0 unused is lowest)
    v1, m1 = r.compress(one)
    check(m1[0, 0] == (0xC | 0x4 << 4 | 0x4 << 8 | 0x4 << 12),
          "compress fill lowest unused: %#x" % m1[0, 0])
    check(np.array_equal(v1[0, :4], [0., 5., 0., 6.]), "compress fill values")
    rng = np.random.default_rng(1)
    for (n, m) in ((2, 4), (1, 2)):
        for k in (16, 20, 3, 32):
            x = r.prune_nm(rng.standard_normal((5, k)), n, m, axis=-1)
            v, mt = r.compress(x, n, m, axis=-1)
            kp = -(-k // (4 * m)) * 4 * m
            check(v.shape == (5, kp * n // m) and mt.shape == (5, kp // 4 // m)
                  and mt.dtype == np.uint16, "compress shape %d:%d" % (n, m))
            check(np.array_equal(r.decompress(v, mt, k, n, m, -1), x),
                  "round trip %d:%d k=%d" % (n, m, k))
            xt = np.ascontiguousarray(x.T)
            v2, mt2 = r.compress(xt, n, m, axis=0)
            check(np.array_equal(v2, v) and np.array_equal(mt2, mt),
                  "compress axis=0")
            check(np.array_equal(r.decompress(v2, mt2, k, n, m, 0), xt),
                  "decompress axis=0")
    v12, m12 = r.compress(np.array([[0., 3., 4., 0., 0., 0., 0., 0.]]), 1, 2)
    check(m12[0, 0] == (0xE | 0x4 << 4 | 0x4 << 8 | 0x4 << 12), "1:2 meta")
    try:
        r.compress(w, 2, 4)
        check(False, "compress must reject non-2:4")
    except ValueError:
        pass
    try:
        r.decompress(np.zeros((1, 8)), np.array([[0x5]], np.uint16), 16)
        check(False, "decompress must reject illegal nibble")
    except ValueError:
        pass
    # Rounding.
    check(r.to_bf16(np.float32(1.00390625)) == 1.0, "bf16 tie to even")
    check(r.to_bf16(np.float32(3.14159265)) == np.float32(3.140625), "bf16")
    check(np.isnan(r.to_bf16(np.float32(np.nan))), "bf16 nan")
    # Activations and spmm.
    x = np.array([-1.0, 0.0, 0.5, 2.0])
    check(np.allclose(r.gelu(x, "erf"),
                      [-0.15865525393145707, 0.0, 0.34573123063700656,
                       1.9544997361036416]), "gelu erf")
    check(np.allclose(r.gelu(x, "tanh"),
                      [-0.15880800939172324, 0.0, 0.34571400982514394,
                       1.9545976940871754]), "gelu tanh")
    a = rng.standard_normal((3, 8))
    b = rng.standard_normal((8, 5))
    c = rng.standard_normal((3, 5))
    bias = rng.standard_normal(5)
    want = np.maximum(2.0 * a @ b + 0.5 * c + bias, 0)
    check(np.allclose(r.spmm_ref(a, b, c, bias, 2.0, 0.5, "relu"), want),
          "spmm_ref")
    check(np.allclose(r.spmm_ref(a, b, prune_b=(2, 4)),
                      a @ r.prune_nm(b, 2, 4, axis=0)), "spmm prune_b")
    va, ma = r.compress(r.prune_nm(a, 2, 4))
    check(np.allclose(r.spmm_compressed_ref(va, ma, 8, b),
                      r.prune_nm(a, 2, 4) @ b), "spmm_compressed_ref")
    check(r.rel_error(np.array([np.nan, 1.0]), np.array([1.0, 1.0]))
          == float("inf"), "rel_error NaN")
    check(abs(r.rel_error(np.array([3.0, 4.0]), np.array([3.0, 3.0]))
              - 1 / np.sqrt(18)) < 1e-15, "rel_error value")
    # conv2d: 1x1 conv == matmul; grouped conv == per-group convs; a naive
    # loop for strides/dilation/padding.
    xi = rng.standard_normal((2, 7, 6, 4))
    wf = rng.standard_normal((6, 1, 1, 4))
    check(np.allclose(r.conv2d_nhwc_ref(xi, wf), xi @ wf[:, 0, 0, :].T),
          "conv 1x1")
    wf = rng.standard_normal((4, 3, 2, 2))
    got = r.conv2d_nhwc_ref(xi, wf, stride=(2, 1), dilation=(1, 2),
                            padding=(1, 2, 0, 1), groups=2)
    xp = np.pad(xi, ((0, 0), (1, 2), (0, 1), (0, 0)))
    oh = (xp.shape[1] - 3) // 2 + 1
    ow = (xp.shape[2] - 3) // 1 + 1
    naive = np.zeros((2, oh, ow, 4))
    for nn in range(2):
        for i in range(oh):
            for j in range(ow):
                for f in range(4):
                    g = f // 2
                    for di in range(3):
                        for dj in range(2):
                            for cc in range(2):
                                naive[nn, i, j, f] += (
                                    xp[nn, 2 * i + di, j + 2 * dj, 2 * g + cc]
                                    * wf[f, di, dj, cc])
    check(got.shape == naive.shape and np.allclose(got, naive), "conv naive")

    # The runner with the fake stc-run.
    fake = stc_run or os.path.join(HERE, "fake_stc_run.py")
    tmp = tempfile.mkdtemp(prefix="stc-e2e-selftest-")
    progs = {
        "mm": "func.func @main(%x: tensor<{M}x{K}x{T}>, "
              "%w: tensor<{K}x{N}x{T}>) -> tensor<{M}x{N}x{T}> {{\n"
              "  // matmul\n}}\n",
        "mmbr": "func.func @main(%x: tensor<{M}x{K}x{T}>, "
                "%w: tensor<{K}x{N}x{T}>, %b: tensor<{N}x{T}>) -> "
                "tensor<{M}x{N}x{T}> {{\n  // matmul + bias, {ACT}\n}}\n",
    }
    try:
        def prog(kind, m, k, n, t, act="arith.maximumf"):
            path = os.path.join(tmp, "%s_%s_%s_%d_%d_%d.mlir"
                                % (kind, act, t, m, k, n))
            with open(path, "w") as f:
                f.write(progs[kind].format(M=m, K=k, N=n, T=t, ACT=act))
            return path

        def run(name, mlir, mode="ok", extra=(), expect=True):
            os.environ["STC_FAKE_MODE"] = mode
            buf = io.StringIO()
            try:
                ok = run_case(e2e_cases.get_case(name), fake, mlir,
                              extra=extra, out=buf,
                              timeout=3 if mode == "hang" else 60)
            finally:
                del os.environ["STC_FAKE_MODE"]
            check(ok == expect, "runner %s mode=%s: expected %s, got:\n%s"
                  % (name, mode, expect, buf.getvalue()))
            return buf.getvalue()

        for name, kind, m, k, n, t, *act in [
                ("matmul_force_f32_64_128_32", "mm", 64, 128, 32, "f32"),
                ("matmul_bias_relu_force_f32_32_64_16", "mmbr", 32, 64, 16,
                 "f32"),
                ("matmul_force_f16_32_64_48", "mm", 32, 64, 48, "f16"),
                ("matmul_bias_relu_force_bf16_16_32_8", "mmbr", 16, 32, 8,
                 "bf16"),
                ("linear_relu_force_f32_example", "mmbr", 8, 16, 4, "f32"),
                ("matmul_f32_8_20_12", "mm", 8, 20, 12, "f32"),
                ("matmul_bias_gelu_erf_f16_8_32_8", "mmbr", 8, 32, 8, "f16",
                 "math.erf"),
                ("matmul_bias_gelu_force_bf16_8_32_8", "mmbr", 8, 32, 8,
                 "bf16", "gelu_tanh")]:
            path = prog(kind, m, k, n, t, *act)
            text = run(name, path)
            check("case %s: rel_error=" % name in text and "PASS" in text,
                  "output format: %s" % text)
        p = prog("mm", 64, 128, 32, "f32")
        name = "matmul_force_f32_64_128_32"
        for mode in ("nan", "fail", "nowrite", "wrongshape", "wrongdtype",
                     "dense", "noise", "hang"):
            run(name, p, mode=mode, expect=False)
        # An explicit option after `--` replaces the case's own.
        run(name, p, extra=["--sparsity=explicit"], expect=False)
        run(name, p, extra=["--sparsity=force", "--device=cpu"])
        check(merge_options(["--sparsity=force", "--x"],
                            ["--sparsity=enable"]) ==
              ["--x", "--sparsity=enable"], "merge_options")
    finally:
        for name in os.listdir(tmp):
            os.unlink(os.path.join(tmp, name))
        os.rmdir(tmp)

    for f in failures:
        sys.stdout.write("self-test FAILED: %s\n" % f)
    sys.stdout.write("self-test: %d failure(s)\n" % len(failures))
    return len(failures)


# ---------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------

def main(argv):
    import argparse
    if "--" in argv:
        i = argv.index("--")
        argv, extra = argv[:i], argv[i + 1:]
    else:
        extra = []
    ap = argparse.ArgumentParser(
        prog="run_e2e.py",
        description="Run stc-run on random inputs and compare with a float64 "
                    "NumPy reference.  Arguments after `--` go to stc-run.")
    ap.add_argument("--stc-run", help="path to stc-run (a .py path is run "
                                      "with this python)")
    ap.add_argument("--mlir", help="the program")
    ap.add_argument("--case", help="case name (see --list)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--tol", type=float, default=None,
                    help="relative error tolerance (default: by dtype)")
    ap.add_argument("--timeout", type=float, default=600,
                    help="seconds before stc-run is killed (default 600)")
    ap.add_argument("--keep", action="store_true",
                    help="keep the temporary .npy files")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--list", action="store_true", help="list the cases")
    ap.add_argument("--self-test", action="store_true",
                    help="test stc_ref and the runner (with fake_stc_run.py)")
    args = ap.parse_args(argv)

    if args.list:
        sys.stdout.write("\n".join(e2e_cases.list_cases()) + "\n")
        return 0
    if args.self_test:
        return 1 if self_test(args.stc_run) else 0
    missing = [o for o in ("stc_run", "mlir", "case")
               if getattr(args, o) is None]
    if missing:
        ap.error("missing " + ", ".join("--" + m.replace("_", "-")
                                        for m in missing))
    if not os.path.exists(args.mlir):
        sys.stderr.write("run_e2e.py: error: %s: no such file\n" % args.mlir)
        return 2
    try:
        case = e2e_cases.get_case(args.case)
        ok = run_case(case, args.stc_run, args.mlir, seed=args.seed,
                      tol=args.tol, extra=extra, timeout=args.timeout,
                      keep=args.keep, verbose=args.verbose)
    except (KeyError, SetupError, ValueError) as e:
        msg = e.args[0] if isinstance(e, KeyError) and e.args else e
        sys.stderr.write("run_e2e.py: error: %s\n" % msg)
        return 2
    sys.stdout.flush()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
