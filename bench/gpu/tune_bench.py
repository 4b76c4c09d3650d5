#!/usr/bin/env python3
"""Run step of the GPU tuning flow (docs/TUNING.md; bench/README.md, "GPU
tuning"): `bench/run_gpu_bench.sh run-tune`.

    tune_bench.py run --manifest bench/work/gpu-tune/manifest.json
                      [--results-dir bench/results] [--copy-to DIR]
                      [--time-budget 420] [--only REGEX]
                      [--tuning-db tuning/stc-tuning-db.json | --no-db]
                      [--synthetic [--synthetic-cc 9.0] [--stc-run PATH]
                       [--synthetic-max-mnk N] [--synthetic-timeout S]]

The GEMM benchmark's machinery (benchcommon.py: a parent without torch, a
worker that imports it, restarted after a candidate that killed it; the
same checks and timing) over the candidates that `build-tune`
(tune_build.py) compiled: every candidate of every op is one program of
the manifest, run in the manifest's order (an op's candidates one after
the other, on the same inputs). For each, the worker (TuneWorker, a
GemmWorker and a ConvWorker): makes the op's inputs once (a matmul's
gemm_bench's: random A, pruned 2:4 and compressed, B; a convolution's
conv_bench's: a random NHWC input, the FHWC filter pruned 2:4 along C and
compressed into stc.conv's matrix; copies rotated over twice the L2),
loads the candidate's PTX through stc_runtime and launches it as its
kernel info says (through its benchmark's hooks), checks the result
against float64 torch first (a 2:4 candidate: pruned A @ B; a dense one: A
@ B; a convolution: conv2d with the pruned filter; relative Frobenius
error < 1e-2, two runs equal), then times it with the benchmark's method
(Worker.time_method: warm-up, CUDA events around every call behind a
sleep kernel, median).
Each candidate's timing budget is min(--max-method-s, half the time left
over the candidates left); candidates not started within --time-budget
are recorded as skipped.

It writes the raw results bench/results/tune-<UTC>-<commit>.json (and a
Markdown summary), then merges them into the tuning database (--tuning-db,
default tuning/stc-tuning-db.json; --no-db: not; --copy-to DIR: a copy of
the updated database there too): one entry per op with at
least one ok candidate, its key the op's plus the device's name and
compute capability, best and runner_up the two fastest ok candidates
(sparse and dense alike), every measured candidate (ok, wrong, failed)
listed; an existing entry with the same key is replaced; the file is
written atomically with its entries sorted by key. A database that does
not read is refused (exit 2), the results stay written.

--synthetic (build machine: no GPU, no torch; `run-tune --synthetic`):
SyntheticWorker runs each candidate's MLIR program on the GPU emulator
(stc-run PROGRAM --target=<its target> --device=emulate, NumPy inputs: A
pruned and compressed by format24 for a 2:4 candidate, A whole for a dense
one; a convolution's input and its filter pruned and compressed with
conv_shapes.filter_matrix and format24) and checks it against a float64
NumPy reference (a convolution's: conv_shapes.reference_numpy) with the
same judge;
its "time" is tunelib.synthetic_time_us, a deterministic formula of the
configuration and the shape, NOT a measurement. The device is named
SYNTHETIC with a real compute capability (--synthetic-cc), so that the
compiler uses its entries; every database entry's "measured" says
"synthetic": true, and the results are named tune-synthetic-*. Its
default database is stc-tuning-db.synthetic.json beside the manifest, and
it refuses the committed one. Products with M*N*K over
--synthetic-max-mnk are skipped (the emulator is slow).

Exit status: 0 every candidate ok and the database updated; 1 a candidate
failed, was wrong or was not run (all recorded; the database still gets
the ok ones); 2 a setup error or a database that cannot be read or written.
"""

import json
import os
import shutil
import sys
import tempfile
import time
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import benchcommon as bc  # noqa: E402
import build_programs  # noqa: E402
import conv_bench  # noqa: E402
import conv_shapes  # noqa: E402
import gemm_bench  # noqa: E402
import report  # noqa: E402
import shapes  # noqa: E402
import tunelib  # noqa: E402

BUILD_SCHEMA = "stc-gpu-tune-build/1"
RESULTS_SCHEMA = "stc-gpu-tune-results/1"
DEFAULT_DB = os.path.join(ROOT, "tuning", "stc-tuning-db.json")
#: The method key of a candidate's entry in a worker's result record.
CANDIDATE = "candidate"
#: Candidate statuses that make a run "not ok" (skipped: the time budget).
BAD_STATUSES = ("failed", "wrong", "not_run")
#: The synthetic mode's products are at most this many multiply-adds.
SYNTHETIC_MAX_MNK = 1 << 24
#: The compute capability a --simulate run (tests, on the CPU) keys by.
SIMULATED_CC = "9.0"
#: Where --synthetic merges by default (beside the build's manifest): never
#: the committed database.
SYNTHETIC_DB = "stc-tuning-db.synthetic.json"


def is_conv(p):
    """Whether manifest program p is a convolution's candidate (op conv)."""
    return p["key"]["op"] == "conv"


# ===========================================================================
# Worker on the GPU machine (imports torch)
# ===========================================================================

class TuneWorker(gemm_bench.GemmWorker, conv_bench.ConvWorker):
    """One candidate per program: a matmul's the GEMM worker's inputs (made
    once per op), its STC kernel check and timing (run_stc); a
    convolution's the convolution worker's (ConvWorker.make_inputs: the
    NHWC input, the 2:4 filter compressed into stc.conv's matrix, the
    float64 torch conv2d reference; its kernel-info checks, operands and
    launch); no baselines. The hooks of run_stc and the class settings it
    reads (HOOK_SETTINGS) are the GEMM worker's or the convolution
    worker's by the candidate's op (use())."""

    BUDGET_SHARES = 1
    # A wrong candidate is recorded, not timed: the database does not use it.
    TIME_WRONG_RESULTS = False
    #: The class settings bc.Worker.run_stc reads that differ between the
    #: GEMM and the convolution worker.
    HOOK_SETTINGS = ("KERNEL_KEYS", "FUNC_ATTRS", "TENSOR_MAP_ROLES", "REFERENCE_WHAT")
    #: A convolution candidate's input layout: the unpadded NHWC input (the
    #: build fails a kernel that wants it pre-padded).
    CONV_LAYOUT = {"prepadded": False}

    def __init__(self, args):
        conv_bench.ConvWorker.__init__(self, args)  # bc.Worker's, and the conv modules
        self._op = None
        self.use(gemm_bench.GemmWorker)

    def setup(self):
        bc.Worker.setup(self)  # not ConvWorker's: no cuDNN baselines to time

    # -- the hooks: the GEMM worker's or the convolution worker's ----------------
    def use(self, cls):
        """Makes run_stc's hooks and settings those of `cls` (GemmWorker or
        ConvWorker)."""
        self._kind = cls
        for a in self.HOOK_SETTINGS:
            setattr(self, a, getattr(cls, a))

    def parse_kernel_info(self, text, where):
        return self._kind.parse_kernel_info(self, text, where)

    def check_kernel(self, ki, p, ctx):
        return self._kind.check_kernel(self, ki, p, ctx)

    def stc_operands(self, c, ki, ctx):
        return self._kind.stc_operands(self, c, ki, ctx)

    def kernel_args(self, ki, bufs, sizes):
        return self._kind.kernel_args(self, ki, bufs, sizes)

    def sim_launch(self, args, tensors, bug, ki):
        return self._kind.sim_launch(self, args, tensors, bug, ki)

    def diagnose(self, out, ref, ctx):
        return self._kind.diagnose(self, out, ref, ctx)

    def emit(self, rec):
        # --simulate (the tests' run on the CPU): a compute capability to
        # key the database entries by, beside the device "simulated (CPU,
        # no GPU)".
        if self.sim and rec.get("type") == "env":
            rec["gpu"].setdefault("compute_capability", SIMULATED_CC)
        gemm_bench.GemmWorker.emit(self, rec)

    def op_inputs(self, p, t_start):
        """(inputs, the fields they add to a result, the unpruned
        reference's cache) of candidate p's op: made by make_inputs (a
        convolution's: ConvWorker.make_inputs) for its first candidate
        (seeded by the op's name) and kept for the next."""
        if self._op is None or self._op[0] != p["op"]:
            self._op = None
            if not self.sim:
                self.torch.cuda.empty_cache()
            seed = zlib.crc32(p["op"].encode()) & 0x7FFFFFFF
            info = {"seed": seed}
            if is_conv(p):
                inp = conv_bench.ConvWorker.make_inputs(self, p, info, seed, t_start,
                                                        self.CONV_LAYOUT)
            else:
                inp = gemm_bench.GemmWorker.make_inputs(self, p, info, seed, t_start)
            self._op = (p["op"], inp, info, [])
        return self._op[1:]

    def run_program(self, idx, p, budget_s):
        t_start = time.time()
        res = {"type": "result", "index": idx, "name": p["name"], "op": p["op"],
               "methods": {}}
        inp, info, dense_ref = self.op_inputs(p, t_start)
        res.update(info)
        ent = {"target": p["target"], "sparse": p["sparse"], "config": p["config"]}
        if is_conv(p):
            self.use(conv_bench.ConvWorker)
            ctx = conv_bench.ConvWorker.stc_context(self, p, inp, self.CONV_LAYOUT)
            res["methods"][CANDIDATE] = self.run_stc(p, ent, ctx, self.stream.cuda_stream,
                                                     budget_s, method=p["candidate"])
            return self.finish_result(res, p["conv"]["flop"], t_start)
        self.use(gemm_bench.GemmWorker)
        ctx = gemm_bench.GemmWorker.stc_context(self, p, inp)
        if not p["sparse"]:
            # A dense candidate multiplies the unpruned A (as cuBLAS).
            if not dense_ref:
                f64 = self.torch.float64
                dense_ref.append(inp["A"][0].to(f64) @ inp["BK"][0].to(f64))
            ctx = gemm_bench.dense_context(ctx, inp["A"], dense_ref[0])
        res["methods"][CANDIDATE] = self.run_stc(p, ent, ctx, self.stream.cuda_stream,
                                                 budget_s, method=p["candidate"])
        return self.finish_result(res, 2 * p["M"] * p["N"] * p["K"], t_start)


# ===========================================================================
# Synthetic worker on the build machine (NumPy, stc-run on the emulator)
# ===========================================================================

def np_judge(np, ent, out, ref, integer):
    """The benchmark's judge (Worker.judge) in NumPy: relative Frobenius
    error < TOLERANCE (NaN/inf fail), or for integers exactly equal."""
    o = out.astype(np.float64)
    ent["nan_outputs"] = int(np.isnan(o).sum())
    ent["inf_outputs"] = int(np.isinf(o).sum())
    if ent["nan_outputs"] or ent["inf_outputs"]:
        ent["rel_error"] = float("inf")
    else:
        den = float(np.linalg.norm(ref))
        num = float(np.linalg.norm(o - ref))
        ent["rel_error"] = num / den if den else (0.0 if num == 0 else float("inf"))
    if integer:
        ent["tolerance"] = "exact"
        ent["mismatches"] = int((o != ref).sum())
        return ent["mismatches"] == 0
    ent["tolerance"] = bc.TOLERANCE
    return ent["rel_error"] < bc.TOLERANCE


def to_bf16(np, x):
    """float32 values rounded to bfloat16 (nearest even), as float32 (how
    stc-run reads and writes bf16 tensors: .npy f4)."""
    u = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    return (((u + 0x7FFF + ((u >> 16) & 1)) >> 16) << 16).astype(np.uint32).view(np.float32)


class SyntheticWorker(bc.Worker):
    """--synthetic: each candidate's program on the GPU emulator, checked
    against NumPy; its time from tunelib.synthetic_time_us (not measured)."""

    USES_TORCH = False

    def __init__(self, args):
        bc.Worker.__init__(self, args)
        import numpy
        self.np = numpy
        self.sim = True
        self._op = None
        self.tmp = tempfile.mkdtemp(prefix="stc-tune-synthetic-")

    def setup(self):
        if not os.access(self.args.stc_run, os.X_OK):
            raise RuntimeError("no stc-run at %s (the synthetic run checks every candidate on "
                               "its GPU emulator): build it first" % self.args.stc_run)
        self.emit({"type": "env", "utc": bc.utc_now(), "pid": os.getpid(), "synthetic": True,
                   "gpu": {"name": tunelib.SYNTHETIC_DEVICE,
                           "compute_capability": self.args.synthetic_cc,
                           "note": "synthetic: candidates run on stc-run's GPU emulator; "
                                   "times from tunelib.synthetic_time_us, not measured"},
                   "software": {"python": sys.version.split()[0],
                                "numpy": self.np.__version__,
                                "stc_run": self.args.stc_run}})
        self.say("worker: SYNTHETIC run (stc-run --device=emulate, NumPy reference; times "
                 "from a formula, not measured), device %s, cc %s"
                 % (tunelib.SYNTHETIC_DEVICE, self.args.synthetic_cc))

    def format_check(self):
        """format24's NumPy prune and compression round trip."""
        np, f24 = self.np, self.f24
        a = np.random.default_rng(7).standard_normal((64, 256)).astype(np.float16)
        a[::3, ::5] = 0
        p = f24.prune24(a, self.nops)
        v, m = f24.compress24(p, self.nops)
        ok = bool((f24.decompress24(v, m, self.nops) == p).all())
        self.emit({"type": "format_check", "roundtrip": ok, "torch_equals_numpy": None,
                   "ok": ok, "note": "synthetic run: NumPy only"})

    def context_ok(self):
        return True

    def cast(self, dt):
        """NumPy float32 -> the dtype's values as stc-run reads them."""
        np = self.np
        return {"f16": lambda x: x.astype(np.float16), "bf16": lambda x: to_bf16(np, x)}[dt]

    def conv_op_inputs(self, p):
        """A convolution op's inputs (its geometry p["conv"]), as the
        convolution worker makes them but in NumPy: a random NHWC input and
        FHWC filter (scaled by 1/sqrt(KH*KW*C)), the filter pruned 2:4 along
        C and compressed into stc.conv's matrix (conv_shapes.filter_matrix,
        format24); {"sparse": [values, meta, input]} as .npy files and the
        float64 reference (conv_shapes.reference_numpy of the pruned
        filter)."""
        np, f24, cs = self.np, self.f24, conv_shapes
        g, cast = p["conv"], self.cast(p["dtype"])
        rng = np.random.default_rng(zlib.crc32(p["op"].encode()) & 0x7FFFFFFF)
        x = cast(rng.standard_normal((g["N"], g["H"], g["W"], g["C"])).astype(np.float32))
        w = cast((rng.standard_normal((g["F"], g["KH"], g["KW"], g["Cg"]))
                  / np.sqrt(g["KH"] * g["KW"] * g["Cg"])).astype(np.float32))
        pm = f24.prune24(cs.filter_matrix(w, g), self.nops)
        v, mt = f24.compress24(pm, self.nops)
        d = self.op_dir(p)
        files = {}
        for nm, arr in (("values", v), ("meta", mt.view(np.int16)), ("input", x)):
            files[nm] = os.path.join(d, nm + ".npy")
            np.save(files[nm], arr)
        return {"sparse": [files["values"], files["meta"], files["input"]],
                "ref_sparse": cs.reference_numpy(x, pm, g), "out": os.path.join(d, "out.npy")}

    def op_dir(self, p):
        d = os.path.join(self.tmp, "op%d" % (zlib.crc32(p["op"].encode()) & 0xFFFF))
        os.makedirs(d, exist_ok=True)
        return d

    def op_inputs(self, p):
        """The op's inputs as .npy files (made once per op, seeded by its
        name): {"sparse": [values, meta, B], "dense": [A, B]} and the
        float64 references (pruned A @ B, A @ B); a convolution's:
        conv_op_inputs."""
        if self._op is not None and self._op[0] == p["op"]:
            return self._op[1]
        if is_conv(p):
            inp = self.conv_op_inputs(p)
            self._op = (p["op"], inp)
            return inp
        np, f24 = self.np, self.f24
        m, n, k, dt = p["M"], p["N"], p["K"], p["dtype"]
        tr = gemm_bench.transposed(p)
        rng = np.random.default_rng(zlib.crc32(p["op"].encode()) & 0x7FFFFFFF)
        if shapes.is_integer(dt):
            a = rng.integers(-gemm_bench.INT8_RANGE, gemm_bench.INT8_RANGE + 1,
                             (m, k)).astype(np.int8)
            b = rng.integers(-gemm_bench.INT8_RANGE, gemm_bench.INT8_RANGE + 1,
                             (n, k) if tr else (k, n)).astype(np.int8)
        else:
            cast = self.cast(dt)
            a = cast(rng.standard_normal((m, k)).astype(np.float32))
            b = cast(rng.standard_normal((k, n)).astype(np.float32))
        pr = f24.prune24(a, self.nops)
        v, mt = f24.compress24(pr, self.nops)
        d = self.op_dir(p)
        files = {}
        for nm, arr in (("values", v), ("meta", mt.view(np.int16)), ("b", b), ("a", a)):
            files[nm] = os.path.join(d, nm + ".npy")
            np.save(files[nm], arr)
        bk = (b.T if tr else b).astype(np.float64)
        inp = {"sparse": [files["values"], files["meta"], files["b"]],
               "dense": [files["a"], files["b"]],
               "ref_sparse": pr.astype(np.float64) @ bk, "ref_dense": a.astype(np.float64) @ bk,
               "out": os.path.join(d, "out.npy")}
        self._op = (p["op"], inp)
        return inp

    def run_program(self, idx, p, budget_s):
        np = self.np
        t_start = time.time()
        res = {"type": "result", "index": idx, "name": p["name"], "op": p["op"],
               "methods": {}, "synthetic": True}
        ent = res["methods"][CANDIDATE] = {"target": p["target"], "sparse": p["sparse"],
                                           "config": p["config"], "synthetic": True}
        self.emit({"type": "method_start", "index": idx, "method": p["candidate"]})
        mnk = p["M"] * p["N"] * p["K"]
        if mnk > self.args.synthetic_max_mnk:
            ent.update(status="skipped",
                       error="M*N*K = %d is over --synthetic-max-mnk %d: too slow for the "
                             "emulator" % (mnk, self.args.synthetic_max_mnk))
            self.say("  SKIPPED: %s" % ent["error"])
            return res
        inp = self.op_inputs(p)
        if os.path.exists(inp["out"]):
            os.remove(inp["out"])
        cmd = [self.args.stc_run, os.path.join(self.base, p["mlir"]),
               "--entry=" + ("conv" if is_conv(p) else "spmm" if p["sparse"] else "gemm"),
               "--target=" + p["target"],
               "--device=emulate"] + ["--input=" + x for x in inp["sparse" if p["sparse"]
                                                                 else "dense"]]
        cmd.append("--output=" + inp["out"])
        ent["command"] = " ".join(["stc-run", p["mlir"]] + cmd[2:-1] + ["--output=out.npy"])
        rc, text, secs = build_programs.run(cmd, self.args.synthetic_timeout)
        ent["emulator_seconds"] = round(secs, 2)
        bug = next((kind for kind, meth, pat in self.sim_bug
                    if meth in (None, p["candidate"]) and pat.search(p["name"])), None)
        if rc != 0 or not os.path.exists(inp["out"]):
            ent.update(status="failed", error="stc-run --device=emulate exited with status %d:"
                                              "\n%s" % (rc, build_programs.tail(text, 8)))
        else:
            out = np.load(inp["out"])
            if bug == "wrong":
                # A planted fault: the columns (a convolution's channels) reversed.
                out = out[..., ::-1].copy()
            ref = inp["ref_sparse" if p["sparse"] else "ref_dense"]
            if out.shape != ref.shape:
                ent.update(status="failed", error="stc-run wrote a %s output, expected %s"
                                                  % (out.shape, ref.shape))
            elif np_judge(np, ent, out, ref, shapes.is_integer(p["dtype"])):
                us = tunelib.synthetic_time_us(p["config"], p["key"], p["sparse"])
                ent.update(status="ok", median_ms=us / 1e3, min_ms=round(us * 0.98, 3) / 1e3,
                           times_ms=[us / 1e3], repeats=1, warmup=0,
                           timing="synthetic: tunelib.synthetic_time_us, not a measurement")
            else:
                ent["status"] = "wrong"
                ent["error"] = (
                    "result differs from float64 NumPy: %s" % (
                        "%d outputs differ (exact integers)" % ent["mismatches"]
                        if ent["tolerance"] == "exact" else
                        "rel. error %.3e (tolerance %.0e), %d NaN outputs"
                        % (ent["rel_error"], bc.TOLERANCE, ent["nan_outputs"])))
        self.say("  %s %s: %s" % (p["candidate"], p["config"],
                                  self.line(ent, 2 * mnk) if ent.get("status") != "ok" else
                                  "ok (rel. error %.1e; synthetic %.1f us)"
                                  % (ent["rel_error"], ent["median_ms"] * 1e3)))
        res["wall_seconds"] = round(time.time() - t_start, 2)
        return res


def make_worker(args):
    """The worker for the options: the synthetic one or the GPU one."""
    return (SyntheticWorker if getattr(args, "synthetic", False) else TuneWorker)(args)


# ===========================================================================
# Results (the parent; no torch)
# ===========================================================================

def candidate_result(rec, p):
    """A candidate's result from its program's last record (None: none)."""
    c = {k: p.get(k) for k in ("name", "candidate", "target", "sparse", "heuristic",
                               "predicted_us", "config")}
    if rec is None:
        c.update(status="not_run", why="no record (the run ended early)")
    elif "build_failed" in rec:
        c.update(status="failed", why="build: " + bc.first_lines(rec["build_failed"], 4))
    elif "skipped" in rec:
        c.update(status="skipped", why=rec["skipped"])
    elif "worker_died" in rec:
        c.update(status="failed", why=bc.first_lines(rec["worker_died"], 4))
    elif "not_run" in rec:
        c.update(status="not_run", why=bc.first_lines(rec["not_run"], 4))
    elif CANDIDATE not in (rec.get("methods") or {}):
        c.update(status="failed", why=bc.first_lines(rec.get("error") or "no result", 4))
    else:
        ent = rec["methods"][CANDIDATE]
        c["status"] = ent.get("status", "failed")
        if c["status"] == "ok" and "median_ms" not in ent:
            c.update(status="failed", why="ok but not timed")
        if "median_ms" in ent:
            c["median_us"] = round(ent["median_ms"] * 1e3, 3)
            c["min_us"] = round(ent["min_ms"] * 1e3, 3)
        if c["status"] != "ok":
            c.setdefault("why", bc.first_lines(ent.get("error") or c["status"], 4))
        for k in ("rel_error", "nan_outputs", "tolerance", "mismatches", "deterministic",
                  "repeats", "warmup", "first_launch_ms", "jit_seconds", "times_ms",
                  "synthetic", "emulator_seconds", "tflops_median"):
            if k in ent:
                c[k] = ent[k]
        k = ent.get("kernel")
        if isinstance(k, dict):
            c["kernel"] = {x: k[x] for x in ("kernel", "variant", "grid", "block", "cluster",
                                             "pixel_tile", "shared_bytes", "registers",
                                             "blocks_per_sm")
                           if x in k}
    for k in ("copies", "seed"):
        if rec and k in rec:
            c[k] = rec[k]
    return c


def assemble(manifest, recs, programs, selected, meta):
    """The results document of a tuning run (RunSpec.assemble): the device,
    every op of the selected candidates with each candidate's outcome, best
    and runner_up (the two fastest ok ones), the status counts."""
    by_type, by_index = report._records(recs)
    env = (by_type.get("env") or [{}])[0]
    gpu = env.get("gpu") or {}
    fmt = by_type.get("format_check", [])
    fatal = by_type.get("fatal", [])
    chosen = {programs[i]["name"]: i for i in selected}
    ops, counts = [], {}
    for op in manifest["ops"]:
        cands = [candidate_result(by_index.get(chosen[n]), programs[chosen[n]])
                 for n in op["candidates"] if n in chosen]
        if not cands:
            continue
        ok = sorted((c for c in cands if c["status"] == "ok"), key=lambda c: c["median_us"])
        for c in cands:
            counts[c["status"]] = counts.get(c["status"], 0) + 1
        ops.append({"name": op["name"], "part": op.get("part"), "key": op["key"],
                    "shape": op.get("shape"), "auto": op.get("auto"),
                    "best": ok[0]["name"] if ok else None,
                    "runner_up": ok[1]["name"] if len(ok) > 1 else None,
                    "candidates": cands})
    fmt_ok = all(r.get("ok") for r in fmt) if fmt else None
    bad = sum(counts.get(s, 0) for s in BAD_STATUSES)
    synthetic = bool(env.get("synthetic"))
    doc = {
        "schema": RESULTS_SCHEMA, "utc": meta["utc"], "synthetic": synthetic,
        "commit": manifest.get("commit"), "commit_short": manifest.get("commit_short"),
        "dirty": manifest.get("dirty"),
        "device": {"name": gpu.get("name"), "cc": gpu.get("compute_capability")},
        "gpu": dict(gpu, nvidia_smi_start=meta.get("nvidia_smi_start"),
                    nvidia_smi_end=meta.get("nvidia_smi_end")),
        "software": env.get("software"),
        "build": {k: v for k, v in manifest.items() if k not in ("programs", "ops")},
        "settings": {
            "tolerance": meta["tolerance"],
            "reference": "float64 NumPy (convolutions: the implicit GEMM of the pruned "
                         "filter, conv_shapes.reference_numpy)" if synthetic else
                         "float64 torch on the GPU: pruned A @ B (2:4 candidates), A @ B "
                         "(dense candidates); convolutions: conv2d with the pruned filter",
            "timing": "SYNTHETIC: tunelib.synthetic_time_us, a formula of the configuration "
                      "and the shape, not a measurement" if synthetic else
                      report.TIMING + "; median and min; a wrong candidate is not timed",
            "rotation": None if synthetic else
                        "every call uses the next of `copies` input sets, chosen so the "
                        "working set is at least twice the L2 size",
            "time_budget_s": meta["time_budget_s"], "stall_s": meta["stall_s"],
            "max_method_s": meta["max_method_s"], "max_repeats": meta["max_repeats"],
            "only": meta.get("only")},
        "format_check": fmt,
        "worker_restarts": meta.get("worker_restarts"),
        "wall_seconds": meta.get("wall_seconds"),
        "ops": ops,
    }
    doc["summary"] = {
        "ok": not fatal and fmt_ok is not False and bad == 0 and bool(ops),
        "ops": len(ops), "ops_with_ok_candidate": sum(1 for o in ops if o["best"]),
        "candidates": sum(counts.values()), "status_counts": counts,
        "format_checks_ok": fmt_ok, "worker_fatal": [r["error"] for r in fatal]}
    return doc


def conv_text(k):
    """A convolution key's geometry: NxHxWxC * FxKHxKW, stride, pad."""
    c = k["conv"]
    return "conv %dx%dx%dx%d * %dx%dx%d s%s p%s" % (
        c["n"], c["h"], c["w"], c["c"], c["f"], c["kh"], c["kw"],
        ",".join(map(str, c["stride"])), ",".join(map(str, c["pad"])))


def op_title(op):
    k = op["key"]
    return "%s: %s%d×%d×%d %s→%s, %s%s" % (
        op["name"], (conv_text(k) + ", implicit GEMM ") if k["op"] == "conv" else "",
        k["m"], k["n"], k["k"], k["dtype"], k["out"], k["arch"],
        " (%s)" % op["shape"] if op.get("shape") else "")


def markdown(doc):
    dev = doc["device"]
    md = ["# STC tuning run, %s%s\n" % (doc["utc"], " — SYNTHETIC (emulator + formula, "
                                                     "not measured)" if doc["synthetic"] else "")]
    if doc["synthetic"]:
        md.append("**Every candidate ran on stc-run's GPU emulator against NumPy; its time is "
                  "tunelib.synthetic_time_us, a formula, not a measurement.**\n")
    md.append("- Device %s (cc %s); kernels built from commit `%s`%s; %s" % (
        dev.get("name"), dev.get("cc"), (doc.get("commit") or "unknown")[:12],
        " (dirty tree)" if doc.get("dirty") else "", doc["settings"]["timing"]))
    md.append("- Every candidate is checked against %s first (relative Frobenius error < "
              "%.0e%s); best and runner-up are the two fastest ok candidates, 2:4 and dense "
              "alike.\n" % (doc["settings"]["reference"], doc["settings"]["tolerance"],
                            "" if doc["synthetic"] else ", two runs equal"))
    for op in doc["ops"]:
        md.append("## %s\n" % op_title(op))
        md.append("| candidate | form | configuration | status | median µs | min µs | "
                  "predicted µs | |")
        md.append("|---|---|---|---|---:|---:|---:|---|")
        for c in op["candidates"]:
            tag = ("**best**" if c["name"] == op["best"] else
                   "runner-up" if c["name"] == op["runner_up"] else "")
            if c["status"] != "ok":
                tag = (c.get("why") or "").splitlines()[0][:100] if c.get("why") else ""
            md.append("| %s%s | %s | `%s` | %s | %s | %s | %s | %s |" % (
                c["candidate"], " (heuristic)" if c.get("heuristic") else "",
                "2:4" if c["sparse"] else "dense", c["config"], c["status"],
                "%.2f" % c["median_us"] if "median_us" in c else "–",
                "%.2f" % c["min_us"] if "min_us" in c else "–",
                "%.1f" % c["predicted_us"] if isinstance(c.get("predicted_us"), (int, float))
                else "–", tag))
        md.append("")
    s = doc["summary"]
    md.append("Status counts: %s. %d of %d ops have an ok candidate. Wall time %s s.%s" % (
        ", ".join("%s %d" % kv for kv in sorted(s["status_counts"].items())) or "none",
        s["ops_with_ok_candidate"], s["ops"], doc.get("wall_seconds"),
        (" Worker restarts: %s." % "; ".join("after %s (%s)" % (r["after"], r["why"])
                                              for r in doc["worker_restarts"]))
        if doc.get("worker_restarts") else ""))
    return "\n".join(md) + "\n"


def compact(doc):
    """One line per op: its best candidate (or none) and how many were ok."""
    out = ["%-28s %-30s %-12s %s" % ("op", "product", "best (µs)", "ok / candidates")]
    for op in doc["ops"]:
        k = op["key"]
        best = next((c for c in op["candidates"] if c["name"] == op["best"]), None)
        out.append("%-28s %-30s %-12s %d / %d%s" % (
            op["name"][:28], ("%s%dx%dx%d %s %s" % ("conv " if k["op"] == "conv" else "",
                                                  k["m"], k["n"], k["k"], k["dtype"],
                                                  k["arch"]))[:30],
            ("%.2f" % best["median_us"]) if best else "none",
            sum(1 for c in op["candidates"] if c["status"] == "ok"), len(op["candidates"]),
            "  %s %s" % ("2:4" if best["sparse"] else "dense", best["config"]) if best else ""))
    return "\n".join(out) + "\n"


# ===========================================================================
# The tuning database
# ===========================================================================

def db_entries(doc, source):
    """The database entries of a results document (tunelib.entry): one
    per op with an ok candidate, keyed by the op's key and the device;
    "measured" names the run (utc, commit, source: the results file) and
    says "synthetic" for a synthetic run and how many candidates were not
    measured (skipped, not run). Returns (entries, names of the ops with
    no ok candidate)."""
    dev = doc["device"]
    entries, none_ok = [], []
    for op in doc["ops"]:
        key = dict(op["key"], device=dev["name"], cc=dev["cc"])
        measured = {"utc": doc["utc"], "commit": doc.get("commit_short"), "source": source}
        if doc.get("synthetic"):
            measured["synthetic"] = True
        cands = [c for c in op["candidates"] if c["status"] in tunelib.DB_STATUSES]
        left = len(op["candidates"]) - len(cands)
        if left:
            measured["not_measured"] = left
        e = tunelib.entry(key, cands, measured)
        if e is None:
            none_ok.append(op["name"])
        else:
            entries.append(e)
    return entries, none_ok


def merge_into_db(doc, results_path, db_path, say):
    """Merges the results document's entries into the database at
    db_path: None when done, else the exit status (2: the database cannot
    be read or written, or synthetic results and the committed database;
    1: no device to key the entries by)."""
    dev = doc.get("device") or {}
    if doc.get("synthetic") and os.path.abspath(db_path) == os.path.abspath(DEFAULT_DB):
        say("refusing to merge synthetic entries into the committed database %s (they are "
            "not measurements): name another file with --tuning-db" % db_path)
        return 2
    if not dev.get("name") or not dev.get("cc"):
        say("tuning database %s NOT updated: no device name or compute capability (the "
            "worker never started)" % db_path)
        return 1
    rel = os.path.relpath(os.path.abspath(results_path), ROOT)
    source = os.path.basename(results_path) if rel.startswith("..") else rel
    entries, none_ok = db_entries(doc, source)
    try:
        db = tunelib.load_db(db_path)
        if entries:
            new, added, replaced = tunelib.merge(db, entries)
            tunelib.write_db(db_path, new)
    except (tunelib.TuneError, OSError) as e:
        say("tuning database NOT updated (the results are written): %s" % e)
        return 2
    if entries:
        say("tuning database %s: %d entr%s added, %d replaced, %d in all (device %s, cc %s%s)"
            % (db_path, added, "y" if added == 1 else "ies", replaced, len(new["entries"]),
               dev["name"], dev["cc"], ", SYNTHETIC" if doc.get("synthetic") else ""))
    else:
        say("tuning database %s: nothing to merge (no op has an ok candidate)" % db_path)
    if none_ok:
        say("not in the database (no ok candidate): %s" % ", ".join(none_ok))
    return None


def add_args(ap, role):
    """tune_bench's own options (RunSpec.add_args)."""
    build = os.environ.get("STC_BUILD_DIR") or os.path.join(ROOT, "build")
    if role == "parent":
        ap.add_argument("--tuning-db", default=None,
                        help="the tuning database the results are merged into (default "
                             "tuning/stc-tuning-db.json; --synthetic: "
                             "stc-tuning-db.synthetic.json beside the manifest)")
        ap.add_argument("--no-db", action="store_true", help="do not merge the results")
    ap.add_argument("--synthetic", action="store_true",
                    help="no GPU: the emulator checks, a formula times (not measured)")
    ap.add_argument("--synthetic-cc", default="9.0",
                    help="the synthetic device's compute capability (a real one)")
    ap.add_argument("--synthetic-max-mnk", type=int, default=SYNTHETIC_MAX_MNK)
    ap.add_argument("--synthetic-timeout", type=float, default=300.0,
                    help="seconds one stc-run on the emulator may take")
    ap.add_argument("--stc-run", default=os.path.join(build, "bin", "stc-run"))


def worker_args(args):
    """The parent's options the worker takes (RunSpec.worker_args)."""
    if not args.synthetic:
        return []
    out = ["--synthetic", "--synthetic-cc", args.synthetic_cc, "--synthetic-max-mnk",
           str(args.synthetic_max_mnk), "--synthetic-timeout", str(args.synthetic_timeout),
           "--stc-run", os.path.abspath(args.stc_run)]
    if not args.simulate:
        # (--simulate passes them itself.) The tests' planted faults.
        for b in args.simulate_bug:
            out += ["--simulate-bug", b]
    return out


def finish(doc, out_base, args, say):
    """After the results are written (RunSpec.finish): the database merge,
    and its copy in --copy-to."""
    if args.no_db:
        say("--no-db: the tuning database is not updated")
        return None
    db = args.tuning_db or (os.path.join(os.path.dirname(os.path.abspath(args.manifest)),
                                         SYNTHETIC_DB) if args.synthetic else DEFAULT_DB)
    args.tuning_db = db
    rc = merge_into_db(doc, out_base + ".json", args.tuning_db, say)
    if rc is None and args.copy_to and os.path.isfile(args.tuning_db):
        shutil.copy(args.tuning_db, os.path.join(args.copy_to,
                                                 os.path.basename(args.tuning_db)))
    return rc


def spec(synthetic):
    return bc.RunSpec(
        script=__file__, step="run-tune", build_step="build-tune", work="bench/work/gpu-tune",
        run_dir="gpu-tune-run", prefix="tune-synthetic" if synthetic else "tune",
        mock_source="(none)", time_budget=420.0, assemble=assemble, markdown=markdown,
        compact=compact, schema=BUILD_SCHEMA,
        schema_hint=" (run `bench/run_gpu_bench.sh build-tune` for this step's manifest)",
        add_args=add_args, worker_args=worker_args, finish=finish)


def merge_main(argv):
    """`tune_bench.py merge RESULTS.json [--tuning-db FILE]`: merges a
    results document written before (a run's, copied from the GPU machine)
    into the database, as the run does."""
    import argparse
    ap = argparse.ArgumentParser(prog="tune_bench.py merge")
    ap.add_argument("results")
    ap.add_argument("--tuning-db", default=DEFAULT_DB)
    args = ap.parse_args(argv)

    def say(msg):
        print("[tune_bench merge] %s" % msg, flush=True)
    try:
        with open(args.results) as f:
            doc = json.load(f)
        if not isinstance(doc, dict) or doc.get("schema") != RESULTS_SCHEMA:
            raise ValueError("not a tuning run's results (schema %r, expected %s)"
                             % (doc.get("schema") if isinstance(doc, dict) else None,
                                RESULTS_SCHEMA))
    except (OSError, ValueError) as e:
        say("cannot read %s: %s" % (args.results, e))
        return 2
    return merge_into_db(doc, args.results, args.tuning_db, say) or 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "merge":
        sys.exit(merge_main(sys.argv[2:]))
    sys.exit(bc.main(spec("--synthetic" in sys.argv), make_worker, max_copies=64))
