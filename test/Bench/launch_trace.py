#!/usr/bin/env python3
"""Records the CUDA driver calls with which a version of the GPU benchmark
(bench/gpu) launches STC's kernels, through the fake driver with no GPU and
no torch, for launch-equivalence.test and scripts in the same directory.

    launch_trace.py --bench DIR --trace-lib libstc_trace_cuda.so
                    [--runtime-lib libstc_runtime_cuda.so] [--copies 2]
                    [--methods stc,stc_sm90a,...] MANIFEST... > TRACE

DIR is a bench/gpu directory: this checkout's, or an older one taken from
git (compare-launch-traces.sh does that). For every program of each build
manifest (`run_gpu_bench.sh build` / `build-conv`) and every STC kernel it
has (methods stc and stc_sm90a; for a GEMM also stc_dense, STC's dense
kernel, where DIR's version has it; --methods: only those of the given
methods), the worker's own `run_stc` runs as on a GPU
-- kernel-info checks, module load, function attributes, shared-memory
opt-in, occupancy, the metadata conversion and tensor maps of every input
copy, the check launch and its repeat, timed launches over the copies,
synchronizations, clean-up -- on stand-in torch tensors at fixed addresses;
only what needs a GPU's numbers is stubbed (events, the output comparison,
the timing statistics). The driver is libstc_trace_cuda.so over the fake
driver, which logs each call that decides what the GPU computes
(TraceCudaDriver.cpp). Printed per kernel: a header line, the logged calls,
and the worker's result record (times and JIT logs removed).

Older versions call libcuda through ctypes (cudrv.Driver, given the trace
library's path); newer ones through stc_runtime's C API (--runtime-lib),
which loads the trace library as its driver (STC_CUDA_DRIVER_LIBRARY).
Exit status 1 when a kernel's launch failed in either version (its record
says why), 2 on a usage error.
"""

import argparse
import ctypes
import importlib
import json
import os
import sys
import tempfile
import types

# Stand-in device addresses of the benchmark's tensors (torch's on a GPU):
# deterministic, so the same program gives the same kernel parameters.
TENSOR_BASE = 0x7e0000000000


class FakeDtype:
    def __init__(self, name, size, floating):
        self.name, self.size, self.floating = name, size, floating

    def __str__(self):
        return "torch." + self.name


class FakeTensor:
    """The little of a CUDA tensor that the launch path reads."""

    def __init__(self, torch, shape, dtype):
        self.shape, self.dtype = tuple(shape), dtype
        n = dtype.size
        for d in shape:
            n *= d
        self.addr = torch.next_addr
        torch.next_addr += (n + 0xfff) & ~0xfff

    def data_ptr(self):
        return self.addr

    def element_size(self):
        return self.dtype.size

    def is_floating_point(self):
        return self.dtype.floating

    def fill_(self, value):
        return self

    def clone(self):
        return self


class FakeTorch(types.ModuleType):
    def __init__(self):
        types.ModuleType.__init__(self, "torch")
        self.next_addr = TENSOR_BASE
        for name, size, fl in (("float16", 2, True), ("bfloat16", 2, True),
                               ("float32", 4, True), ("float64", 8, True),
                               ("int8", 1, False), ("int16", 2, False),
                               ("int32", 4, False)):
            setattr(self, name, FakeDtype(name, size, fl))
        self.cuda = types.SimpleNamespace(synchronize=lambda: None)

    def empty(self, shape, dtype=None, device=None):
        return FakeTensor(self, shape if isinstance(shape, (tuple, list)) else (shape,), dtype)

    def equal(self, a, b):
        return True


class FakeEvent:
    def record(self):
        pass

    def query(self):
        return True

    def elapsed_time(self, other):
        return 1.0


def stub_worker(w, torch, copies):
    """Replaces what needs a GPU's numbers (events, comparisons, timing
    statistics) on worker `w`; the launches themselves stay."""
    w.torch = torch
    w.event = FakeEvent
    w.sync = lambda: None
    w.poison = lambda out: None
    w.say = lambda msg: None
    w.emit = lambda rec: None
    w.context_ok = lambda: True
    w.line = lambda ent, flop, unit="TFLOP/s": ""

    def judge(ent, out, ref):
        ent.update(rel_error=0.0, nan_outputs=0, inf_outputs=0, tolerance=1e-2)
        return True
    w.judge = judge

    def time_method(fn, budget_s, t_first_ms=None):
        for i in range(2 * copies):  # every copy, twice, as the timing loop does
            fn(i)
        return {"median_ms": 1.0, "min_ms": 1.0, "repeats": 2 * copies}
    w.time_method = time_method


def gemm_ctx(torch, p, copies, method, gemm_bench):
    """The worker's context of a GEMM program's STC kernel `method`: the
    2:4 kernels' (values, metadata, B, outputs per copy), or for STC's
    dense kernel gemm_bench's dense_context of it, with an unpruned A per
    copy (allocated after the others)."""
    dt = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32,
          "i8": torch.int8}[p["dtype"]]
    odt = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32,
           "i32": torch.int32}[p["out_dtype"]]
    m, n, k = p["M"], p["N"], p["K"]
    tr = bool(p.get("dense_transposed", p["dtype"] == "i8"))
    ctx = {"m": m, "n": n, "k": k, "V": [], "MT": [], "B": [], "out": [], "ref": None,
           "flop": 2 * m * n * k, "unit": "TFLOP/s"}
    for _ in range(copies):
        ctx["V"].append(torch.empty((m, k // 2), dtype=dt))
        ctx["MT"].append(torch.empty((m, k // 16), dtype=torch.int16))
        ctx["B"].append(torch.empty((n, k) if tr else (k, n), dtype=dt))
        ctx["out"].append(torch.empty((m, n), dtype=odt))
    if method == "stc_dense":
        ctx = gemm_bench.dense_context(
            ctx, [torch.empty((m, k), dtype=dt) for _ in range(copies)], None)
    return ctx


def conv_ctx(torch, p, kp, copies):
    g = p["conv"]
    lay = kp.get("layout") or {"prepadded": False}
    pre = bool(lay.get("prepadded"))
    h = g["H"] + (g["pad_top"] + g["pad_bottom"] if pre else 0)
    w = g["W"] + (g["pad_left"] + g["pad_right"] if pre else 0)
    ctx = {"g": g, "layout": lay, "V": [], "MT": [], "XIN": [], "out": [], "ref": None,
           "flop": g["flop"]}
    for _ in range(copies):
        ctx["V"].append(torch.empty((g["F"], g["Kpad"] // 2), dtype=torch.float16))
        ctx["MT"].append(torch.empty((g["F"], g["Kpad"] // 16), dtype=torch.int16))
        ctx["XIN"].append(torch.empty((g["N"], h, w, g["C"]), dtype=torch.float16))
        ctx["out"].append(torch.empty((g["N"], g["OH"], g["OW"], g["F"]),
                                      dtype=torch.float16))
    return ctx


def normalized(ent):
    """The worker's record without what differs between runs: times, the
    JIT log, and device addresses of tensor maps (the trace names those)."""
    ent = json.loads(json.dumps(ent))
    for key in ("jit_seconds", "jit_log"):
        ent.pop(key, None)
    args = (ent.get("kernel") or {}).get("args_copy0")
    if args:
        for a in args:
            if a[1] == "ptr" and not TENSOR_BASE <= int(a[2], 16) < TENSOR_BASE + (1 << 40):
                a[2] = "<device allocation>"
    return ent


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bench", required=True)
    ap.add_argument("--trace-lib", required=True)
    ap.add_argument("--runtime-lib")
    ap.add_argument("--copies", type=int, default=2)
    ap.add_argument("--methods", help="comma-separated STC methods to trace (default: every "
                                      "one DIR's version knows)")
    ap.add_argument("manifests", nargs="+")
    args = ap.parse_args()
    log = tempfile.NamedTemporaryFile(prefix="stc-trace-", suffix=".log", delete=False).name
    os.environ["STC_TRACE_CUDA_LOG"] = log
    os.environ["STC_CUDA_DRIVER_LIBRARY"] = os.path.abspath(args.trace_lib)
    os.environ.setdefault("STC_FAKE_CUDA_SCENARIO", "healthy")
    sys.path.insert(0, os.path.abspath(args.bench))
    torch = FakeTorch()
    sys.modules["torch"] = torch
    bc = importlib.import_module("benchcommon")
    report = importlib.import_module("report")

    # The context PyTorch would have made current on this thread.
    drv = ctypes.CDLL(os.path.abspath(args.trace_lib))
    ctx_handle = ctypes.c_void_p()
    if (drv.cuInit(0) or drv.cuDevicePrimaryCtxRetain(ctypes.byref(ctx_handle), 0)
            or drv.cuCtxPushCurrent_v2(ctx_handle)):
        print("launch_trace: the fake driver did not give a context", file=sys.stderr)
        return 2

    failed = 0
    pos = 0
    for mpath in args.manifests:
        with open(mpath) as f:
            manifest = json.load(f)
        conv = manifest.get("schema") == "stc-gpu-conv-build/1"
        mod = importlib.import_module("conv_bench" if conv else "gemm_bench")
        w = object.__new__(mod.ConvWorker if conv else mod.GemmWorker)
        w.args = argparse.Namespace(max_repeats=200, max_method_s=0.5)
        w.base = os.path.dirname(os.path.abspath(mpath))
        w.manifest, w.sim, w.sim_bug = manifest, False, []
        w._method, w._tensor_maps, w.l2 = "stc", [], 50 << 20
        if conv:
            w.ck = importlib.import_module("conv_kernel")
            w.cs = importlib.import_module("conv_shapes")
        if hasattr(w, "open_runtime"):      # on stc_runtime's C API
            w.open_runtime(args.runtime_lib)
        else:                               # its own ctypes libcuda binding
            w.cudrv = importlib.import_module("cudrv")
            w.drv = w.cudrv.Driver(os.path.abspath(args.trace_lib))
            w.drv.init()
        stub_worker(w, torch, args.copies)
        # STC's kernels as DIR's version names them (older ones: no dense kernel).
        methods = report.STC_METHODS if conv else getattr(report, "GEMM_STC_METHODS",
                                                          report.STC_METHODS)
        if args.methods:
            methods = [m for m in methods if m in args.methods.split(",")]
        for p in manifest["programs"]:
            for method in methods:
                status, _, kp = report.stc_build(p, method)
                if status != "ok":
                    continue
                torch.next_addr = TENSOR_BASE
                ctx = (conv_ctx(torch, p, kp, args.copies) if conv
                       else gemm_ctx(torch, p, args.copies, method, mod))
                ent = w.run_stc(kp, {}, ctx, 0, 0.5, method=method)
                with open(log) as f:
                    f.seek(pos)
                    calls = f.read()
                    pos = f.tell()
                print("== %s %s" % (p["name"], method))
                sys.stdout.write(calls)
                print("result: %s" % json.dumps(normalized(ent), sort_keys=True))
                if ent.get("status") != "ok":
                    failed += 1
    os.unlink(log)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
