#!/usr/bin/env python3
"""Run step of the GPU GEMM benchmark (on the GPU machine). See
bench/README.md, "GPU GEMM (bench/run_gpu_bench.sh)".

    gemm_bench.py run --manifest bench/work/gpu/manifest.json
                      [--results-dir bench/results] [--copy-to DIR]
                      [--time-budget 400] [--only REGEX]

Two processes. The parent (this command; needs no torch) reads the manifest
that `run_gpu_bench.sh build` wrote, starts a worker process
(`gemm_bench.py worker ...`, which imports torch and does all GPU work),
forwards its progress, and restarts it after the program that was running
when it died (a kernel fault that poisons the CUDA context, a hang: the
watchdog kills a worker that prints nothing for --stall seconds). Every
program ends with a record, and the parent writes
bench/results/gpu-gemm-<UTC time>-<short commit>.json and .md (generated
from the JSON by report.py).

For each program (shape x dtype) the worker: draws random A (M x K) and B
(K x N), prunes A 2:4 along K by magnitude and compresses it into the
canonical format (format24.py, checked against NumPy and by round trip);
loads the PTX with the driver API and launches it as its kernel info says;
poisons the output with NaN, runs once and compares with float64 torch
(relative Frobenius error < 1e-2, NaN fails); then times it and the
baselines (dense cuBLAS torch.mm on the unpruned A, PyTorch semi-structured
2:4 with CUTLASS and with cuSPARSELt) with CUDA events, median of many runs,
rotating over input copies larger than twice the L2 cache.
"""

import argparse
import datetime
import json
import math
import os
import queue
import re
import shutil
import signal
import statistics
import subprocess
import sys
import threading
import time
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

TOLERANCE = 1e-2            # relative Frobenius error, f16/bf16 outputs
CHECK_TIMEOUT_S = 60.0      # a first launch that runs longer is a hang
METHODS = ("stc", "cublas", "cutlass", "cusparselt")
EXIT_CONTEXT_LOST = 3
EXIT_HANG = 4


def utc_now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")


def first_lines(text, n=6):
    lines = str(text).strip().splitlines()
    return "\n".join(lines[:n]) + ("\n..." if len(lines) > n else "")


# ===========================================================================
# Worker (imports torch; all GPU work happens here)
# ===========================================================================

class _CpuEvent:
    """--simulate: a host-clock stand-in for torch.cuda.Event."""

    def record(self):
        self.t = time.perf_counter()

    def elapsed_time(self, other):
        return (other.t - self.t) * 1e3

    def query(self):
        return True


class _SimDriver:
    """--simulate: answers the driver calls the worker makes, without a GPU."""

    def load_ptx(self, ptx, where="PTX"):
        return 1, ""

    def get_function(self, module, name):
        return 1

    def func_attribute(self, f, attr):
        return {0: 1024}.get(attr, 0)

    def device_attribute(self, attr):
        return 227 * 1024

    def set_max_dynamic_shared(self, f, nbytes):
        pass

    def occupancy(self, f, threads, dyn_shared):
        return 1

    def synchronize(self, what=""):
        pass

    def unload(self, module):
        pass

    def driver_version(self):
        return 0


class _SimLaunch:
    """--simulate: a "kernel" that computes the product with torch from the
    packed parameters (pointers resolved through `tensors`, sizes from the
    integer parameters), so that the parameter mapping is exercised. `bug`
    plants a fault to test the harness: nan (a row left unwritten), wrong
    (first and second kept index swapped), crash (the process dies), hang
    (never returns), error (a launch error)."""

    def __init__(self, worker, args, tensors, bug):
        self.w, self.args, self.tensors, self.bug = worker, args, tensors, bug

    def __call__(self, stream):
        w = self.w
        if self.bug == "crash":
            os._exit(9)
        if self.bug == "hang":
            while True:
                time.sleep(1)
        if self.bug == "error":
            raise w.cudrv.CudaError("cuLaunchKernel failed: CUDA_ERROR_INVALID_VALUE "
                                    "(simulated)", 1)
        buf = {}
        sizes = {}
        for name, t, v in self.args:
            if t == "ptr":
                buf[w.cudrv.BUFFER_PARAMS[name]] = self.tensors[v]
            else:
                sizes[w.cudrv.SIZE_PARAMS[name]] = v
        if self.bug == "wrong":
            # Swap the two 2-bit indices of every nibble (the classic
            # metadata mistake); the swapped nibbles are illegal, so decode
            # them by hand.
            word = w.tops.meta_in(buf["meta"])
            nib = [(word // (16 ** j)) % 16 for j in range(4)]
            sw = [(x % 4) * 4 + x // 4 for x in nib]
            a = self._decode_any(buf["values"],
                                 sw[0] + 16 * sw[1] + 256 * sw[2] + 4096 * sw[3])
        else:
            a = w.f24.decompress24(buf["values"], buf["meta"], w.tops)
        assert tuple(a.shape) == (sizes["M"], sizes["K"]), (a.shape, sizes)
        out = (a.float() @ buf["dense"].float()).to(buf["out"].dtype)
        buf["out"].copy_(out)
        if self.bug == "nan":
            buf["out"][-1].fill_(float("nan"))

    def _decode_any(self, values, meta):
        torch = self.w.torch
        rows, half = values.shape
        k = 2 * half
        word = self.w.tops.meta_in(meta)
        nib = torch.stack([(word // (16 ** j)) % 16 for j in range(4)], dim=-1)
        nib = nib.reshape(rows, k // 4)
        v = values.reshape(rows, k // 4, 2)
        dense = torch.zeros((rows, k // 4, 4), dtype=values.dtype)
        dense.scatter_(2, (nib % 4).long().unsqueeze(-1), v[:, :, :1])
        dense.scatter_(2, (nib // 4).long().unsqueeze(-1), v[:, :, 1:])
        return dense.reshape(rows, k)


class Worker:
    def __init__(self, args):
        import torch
        import cudrv
        import format24
        self.torch, self.cudrv, self.f24 = torch, cudrv, format24
        self.args = args
        self.jsonl = open(args.jsonl, "a")
        with open(args.manifest) as f:
            self.manifest = json.load(f)
        self.base = os.path.dirname(os.path.abspath(args.manifest))
        self.deadline = args.deadline
        self.tops = format24.TorchOps()
        try:
            self.nops = format24.NumpyOps()
        except ImportError:
            self.nops = None
        self.sim = bool(args.simulate)
        self.sim_bug = {}
        for item in args.simulate_bug or []:
            kind, _, pat = item.partition("@")
            self.sim_bug[kind] = re.compile(pat or ".")

    # -- device helpers (CUDA, or the host under --simulate) ---------------------
    def event(self):
        if self.sim:
            return _CpuEvent()
        return self.torch.cuda.Event(enable_timing=True)

    def sync(self):
        if not self.sim:
            self.torch.cuda.synchronize()

    # -- output -------------------------------------------------------------
    def emit(self, rec):
        self.jsonl.write(json.dumps(rec) + "\n")
        self.jsonl.flush()
        os.fsync(self.jsonl.fileno())

    def say(self, msg):
        print(msg, flush=True)

    # -- environment ----------------------------------------------------------
    def setup(self):
        torch = self.torch
        if self.sim:
            return self.setup_sim()
        if not torch.cuda.is_available():
            raise RuntimeError("torch.cuda.is_available() is False: no GPU or no driver "
                               "visible to torch %s" % torch.__version__)
        self.dev = torch.device("cuda")
        torch.zeros(1, device=self.dev)          # creates the primary context
        torch.cuda.synchronize()
        self.drv = self.cudrv.Driver()
        self.drv.init()
        self.stream = torch.cuda.current_stream()
        props = torch.cuda.get_device_properties(self.dev)
        self.l2 = int(getattr(props, "L2_cache_size", 0) or 0) or (50 << 20)
        cap = (props.major, props.minor)
        env = {
            "type": "env", "utc": utc_now(), "pid": os.getpid(),
            "gpu": {"name": props.name, "compute_capability": "%d.%d" % cap,
                    "multiprocessors": props.multi_processor_count,
                    "memory_bytes": props.total_memory,
                    "l2_bytes": int(getattr(props, "L2_cache_size", 0) or 0) or None,
                    "max_shared_optin_bytes": self.drv.device_attribute(
                        self.cudrv.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN),
                    "cuda_driver_version": self.drv.driver_version()},
            "software": {"python": sys.version.split()[0], "torch": torch.__version__,
                         "torch_cuda": torch.version.cuda,
                         "numpy": None if self.nops is None else self.nops.np.__version__},
            "torch_settings": {},
        }
        try:
            env["software"]["cusparselt"] = torch.backends.cusparselt.version()
        except Exception as e:  # noqa: BLE001 (recorded, not fatal)
            env["software"]["cusparselt"] = "unknown (%s)" % e
        for k in ("allow_fp16_reduced_precision_reduction",
                  "allow_bf16_reduced_precision_reduction", "allow_tf32"):
            v = getattr(torch.backends.cuda.matmul, k, None)
            env["torch_settings"]["torch.backends.cuda.matmul." + k] = (
                v if isinstance(v, (bool, int, float, str)) or v is None else str(v))
        # A kernel that keeps the GPU busy while the host queues a timed batch.
        self.cycles_per_ms = None
        if hasattr(torch.cuda, "_sleep"):
            for _ in range(2):  # the second measurement runs at a warmed clock
                e0, e1 = self.event(), self.event()
                e0.record()
                torch.cuda._sleep(20_000_000)
                e1.record()
                self.sync()
                self.cycles_per_ms = 20_000_000 / max(e0.elapsed_time(e1), 1e-3)
        env["sleep_cycles_per_ms"] = self.cycles_per_ms
        if cap[0] < 8:
            raise RuntimeError("%s has compute capability %d.%d: 2:4 sparse tensor cores "
                               "need 8.0 or later" % (props.name, cap[0], cap[1]))
        self.emit(env)
        self.say("worker: %s (sm_%d%d, %d SMs, L2 %.0f MiB), torch %s, CUDA %s, driver %d"
                 % (props.name, cap[0], cap[1], props.multi_processor_count,
                    self.l2 / 2**20, torch.__version__, torch.version.cuda,
                    env["gpu"]["cuda_driver_version"]))

    def setup_sim(self):
        """--simulate (self test without a GPU): CPU tensors, a stand-in
        driver and kernel, host-clock events."""
        self.dev = self.torch.device("cpu")
        self.drv = _SimDriver()
        self.stream = type("S", (), {"cuda_stream": 0})()
        self.l2 = 1 << 20
        self.cycles_per_ms = None
        self.emit({"type": "env", "utc": utc_now(), "pid": os.getpid(), "simulated": True,
                   "gpu": {"name": "simulated (CPU, no GPU)"},
                   "software": {"python": sys.version.split()[0],
                                "torch": self.torch.__version__}})
        self.say("worker: SIMULATED run on the CPU (self test), torch %s"
                 % self.torch.__version__)

    def format_check(self):
        """torch format code == NumPy format code on matrices with ties and
        zeros, and decompress inverts compress."""
        torch, f24 = self.torch, self.f24
        rec = {"type": "format_check"}
        try:
            g = torch.Generator(device=self.dev).manual_seed(7)
            a = torch.randn((64, 256), generator=g, device=self.dev).to(torch.float16)
            a[::3, ::5] = 0                        # zeros: fewer than two non-zeros
            a[1::4, 0::4] = a[1::4, 1::4]          # ties within groups
            a[2, :] = 0
            p = f24.prune24(a, self.tops)
            v, m = f24.compress24(p, self.tops)
            back = f24.decompress24(v, m, self.tops)
            rec["roundtrip"] = bool(torch.equal(back, p))
            if self.nops is not None:
                na = a.cpu().numpy()
                np_p = f24.prune24(na, self.nops)
                np_v, np_m = f24.compress24(np_p, self.nops)
                rec["torch_equals_numpy"] = bool(
                    (p.cpu().numpy() == np_p).all() and (v.cpu().numpy() == np_v).all()
                    and (m.cpu().numpy().view("uint16") == np_m).all())
            else:
                rec["torch_equals_numpy"] = None
                rec["note"] = "numpy not installed: torch format code not compared"
            rec["ok"] = rec["roundtrip"] and rec["torch_equals_numpy"] is not False
        except Exception as e:  # noqa: BLE001
            rec.update(ok=False, error="%s: %s" % (type(e).__name__, e))
        self.emit(rec)
        self.say("worker: format check %s" % ("ok" if rec["ok"] else "FAILED: %s" % rec))

    def context_ok(self):
        torch = self.torch
        try:
            self.sync()
            x = torch.ones(4, device=self.dev)
            return float((x * 2).sum().item()) == 8.0
        except Exception:  # noqa: BLE001
            return False

    # -- checks ---------------------------------------------------------------
    def rel_error(self, out, ref):
        """(relative Frobenius error, number of NaN outputs, number of inf)."""
        torch = self.torch
        o = out.to(torch.float64)
        nan = int(torch.isnan(o).sum().item())
        inf = int(torch.isinf(o).sum().item())
        if nan or inf:
            return math.inf, nan, inf
        den = float(torch.linalg.vector_norm(ref).item())
        num = float(torch.linalg.vector_norm(o - ref).item())
        if den == 0.0:
            return (0.0 if num == 0.0 else math.inf), 0, 0
        return num / den, 0, 0

    def diagnose(self, out, ref, m, n):
        """Hints for a wrong result (which interpretation would fit)."""
        torch = self.torch
        hints = {}
        o = out.to(torch.float64)
        finite = torch.isfinite(o)
        if not bool(finite.all()):
            bad = ~finite
            first = int(torch.argmax(bad.reshape(-1).to(torch.int8)).item())
            hints["first_nonfinite"] = [first // n, first % n]
            hints["rows_with_nonfinite"] = int(bad.any(dim=1).sum().item())
            hints["cols_with_nonfinite"] = int(bad.any(dim=0).sum().item())
        o = torch.where(finite, o, torch.zeros_like(o))
        d = (o - ref).abs()
        idx = int(torch.argmax(d).item())
        hints["max_abs_error_at"] = [idx // n, idx % n]
        hints["max_abs_error"] = float(d.max().item())
        hints["ref_abs_max"] = float(ref.abs().max().item())
        try:  # written transposed (column-major M x N)?
            t = o.reshape(n, m).t()
            hints["rel_error_if_column_major"] = float(
                (torch.linalg.vector_norm(t - ref) / torch.linalg.vector_norm(ref)).item())
        except Exception:  # noqa: BLE001
            pass
        return hints

    # -- timing ---------------------------------------------------------------
    def time_method(self, fn, budget_s, t_first_ms=None):
        """Times fn(i) (one call on input copy i % copies) with CUDA events
        around every call. The queue is pre-filled by a sleep kernel so that
        the host's launch overhead does not starve the GPU: the times are
        GPU times. Returns a dict of raw times and statistics."""
        torch = self.torch
        # Warm-up: chunks of 1, 2, 4 ... calls until 50 ms of GPU time (at
        # least 2 calls, at most 255; 1 when a call takes over a second).
        i, warm, est_ms, host_ms = 0, 0, t_first_ms, 0.0
        if t_first_ms is not None and t_first_ms > 1000:
            fn(i)
            i += 1
            self.sync()
        else:
            chunk, spent = 1, 0.0
            while True:
                e0, e1 = self.event(), self.event()
                self.sync()
                e0.record()
                h0 = time.perf_counter()
                for _ in range(chunk):
                    fn(i)
                    i += 1
                host_ms = (time.perf_counter() - h0) * 1e3 / chunk
                e1.record()
                self.sync()
                ms = e0.elapsed_time(e1)
                est_ms = ms / chunk
                spent += ms
                if (spent >= 50.0 and i >= 2) or i >= 255:
                    break
                chunk = min(2 * chunk, 255 - i)
        warm = i
        est_ms = max(est_ms or 1e-3, 1e-3)
        if est_ms * 3 > 30_000:
            nrep = 1
        else:
            nrep = int(min(max(round(budget_s * 1e3 / est_ms), 3 if est_ms > 200 else 10),
                           self.args.max_repeats))
        times, busy, outrun, redone = [], [], 0, 0
        sleep_ms = min(max(host_ms * 2.0 * 32 + 2.0, 2.0), 100.0)
        done = 0
        while done < nrep:
            b = min(32, nrep - done)
            starts = [self.event() for _ in range(b)]
            ends = [self.event() for _ in range(b)]
            s0 = self.event()
            self.sync()
            if self.cycles_per_ms:
                torch.cuda._sleep(int(sleep_ms * self.cycles_per_ms))
            s0.record()
            h0 = time.perf_counter()
            for j in range(b):
                starts[j].record()
                fn(i)
                ends[j].record()
                i += 1
            enq_ms = (time.perf_counter() - h0) * 1e3
            self.sync()
            ts = [s.elapsed_time(e) for s, e in zip(starts, ends)]
            span = s0.elapsed_time(ends[-1])
            if self.cycles_per_ms and enq_ms > sleep_ms:
                # The host queued the batch more slowly than the sleep kernel
                # lasted: the GPU may have waited between calls, and a start
                # event reached before its kernel was queued inflates a time.
                # Sleep longer and redo the batch (twice at most).
                outrun += 1
                sleep_ms = min(enq_ms * 2.0 + 2.0, 250.0)
                if redone < 2:
                    redone += 1
                    continue
            times.extend(ts)
            busy.append(sum(ts) / span if span > 0 else None)
            done += b
        return {"times_ms": [round(t, 6) for t in times],
                "median_ms": statistics.median(times), "min_ms": min(times),
                "mean_ms": statistics.fmean(times),
                "stdev_ms": statistics.pstdev(times) if len(times) > 1 else 0.0,
                "warmup": warm, "repeats": len(times),
                "estimated_ms_per_call": est_ms, "host_ms_per_call": host_ms,
                "queue_prefill": bool(self.cycles_per_ms),
                "gpu_busy_fraction_min": min([x for x in busy if x is not None], default=None),
                "batches_host_outran_prefill": outrun, "batches_redone": redone,
                "final_prefill_ms": sleep_ms if self.cycles_per_ms else None}

    def wait(self, what, timeout_s=CHECK_TIMEOUT_S):
        """Waits for the stream with a timeout; a hang ends the worker."""
        ev = self.event()
        ev.record()
        t0 = time.time()
        while not ev.query():
            if time.time() - t0 > timeout_s:
                return False
            time.sleep(0.001)
        return True

    # -- one program ----------------------------------------------------------
    def run_program(self, idx, p, budget_s):
        torch, f24 = self.torch, self.f24
        t_start = time.time()
        m, n, k = p["M"], p["N"], p["K"]
        tdt = {"f16": torch.float16, "bf16": torch.bfloat16}[p["dtype"]]
        odt = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32}[p["out_dtype"]]
        es, oes = 2, (4 if odt == torch.float32 else 2)
        res = {"type": "result", "index": idx, "name": p["name"], "shape": p["shape"],
               "group": p["group"], "M": m, "N": n, "K": k, "dtype": p["dtype"],
               "out_dtype": p["out_dtype"], "flop": 2 * m * n * k, "methods": {}}
        meths = res["methods"]
        seed = zlib.crc32(p["name"].encode()) & 0x7FFFFFFF
        res["seed"] = seed

        # ---- inputs ----------------------------------------------------------
        stc_bytes = m * k // 2 * es + m * k // 16 * 2 + k * n * es + m * n * oes
        held = stc_bytes + 2 * m * k * es + m * n * es + (m * k // 2 * es + m * k // 8) * 2
        free = (8 << 30) if self.sim else torch.cuda.mem_get_info()[0]
        copies = max(1, math.ceil(2 * self.l2 / stc_bytes))
        copies = min(copies, self.args.max_copies, max(1, int(0.4 * free // held)))
        res.update(copies=copies, working_set_bytes_stc=copies * stc_bytes,
                   rotation_target_bytes=2 * self.l2)
        g = torch.Generator(device=self.dev).manual_seed(seed)
        A, P, V, MT, B, OUT, OD = [], [], [], [], [], [], []
        for c in range(copies):
            a = torch.randn((m, k), generator=g, device=self.dev, dtype=torch.float32).to(tdt)
            b = torch.randn((k, n), generator=g, device=self.dev, dtype=torch.float32).to(tdt)
            pr = f24.prune24(a, self.tops)
            v, mt = f24.compress24(pr, self.tops)
            A.append(a), P.append(pr), V.append(v.contiguous()), MT.append(mt.contiguous())
            B.append(b), OUT.append(torch.empty((m, n), device=self.dev, dtype=odt))
            OD.append(torch.empty((m, n), device=self.dev, dtype=tdt))
        # The format, on copy 0: round trip, and torch == NumPy on 64 rows.
        fmt = {"roundtrip": bool(torch.equal(f24.decompress24(V[0], MT[0], self.tops), P[0]))}
        if self.nops is not None:
            rows = min(64, m)
            na = A[0][:rows].float().cpu().numpy()
            np_p = f24.prune24(na, self.nops)
            np_v, np_m = f24.compress24(np_p, self.nops)
            fmt["numpy_rows_checked"] = rows
            fmt["torch_equals_numpy"] = bool(
                (P[0][:rows].float().cpu().numpy() == np_p).all()
                and (V[0][:rows].float().cpu().numpy() == np_v).all()
                and (MT[0][:rows].cpu().numpy().view("uint16") == np_m).all())
        res["format"] = fmt
        if not fmt["roundtrip"] or fmt.get("torch_equals_numpy") is False:
            res["format_error"] = ("the benchmark's own compression is inconsistent "
                                   "(%s): results are not trustworthy" % fmt)
        ref = P[0].to(torch.float64) @ B[0].to(torch.float64)
        self.sync()
        res["prep_seconds"] = round(time.time() - t_start, 3)
        self.say("  inputs: %d cop%s (%.0f MiB for STC), prep %.1f s"
                 % (copies, "y" if copies == 1 else "ies", copies * stc_bytes / 2**20,
                    res["prep_seconds"]))
        stream = self.stream.cuda_stream

        # ---- STC -------------------------------------------------------------
        meths["stc"] = self.run_stc(p, m, n, k, V, MT, B, OUT, ref, stream, budget_s)
        if meths["stc"].get("context_lost") or meths["stc"].get("hang"):
            return res

        # ---- dense cuBLAS (the unpruned A) -------------------------------------
        ent = {"operand": "unpruned random A (the dense layer the 2:4 one replaces)"}
        try:
            OD[0].fill_(float("nan"))
            torch.mm(A[0], B[0], out=OD[0])
            ref_d = A[0].to(torch.float64) @ B[0].to(torch.float64)
            ent["rel_error"], ent["nan_outputs"], _ = self.rel_error(OD[0], ref_d)
            del ref_d
            ent["status"] = "ok" if ent["rel_error"] < TOLERANCE else "wrong"
            ent.update(self.time_method(
                lambda i: torch.mm(A[i % copies], B[i % copies], out=OD[i % copies]), budget_s))
        except Exception as e:  # noqa: BLE001
            ent.update(status="unavailable", error="%s: %s" % (type(e).__name__, first_lines(e)))
        meths["cublas"] = ent
        self.say("  cuBLAS dense: %s" % self.line(ent, res["flop"]))
        del A[:], OD[:]

        # ---- PyTorch semi-structured 2:4 ---------------------------------------
        for name, force in (("cutlass", True), ("cusparselt", False)):
            ent = {"api": "torch.mm(to_sparse_semi_structured(A_pruned), B), "
                          "SparseSemiStructuredTensor._FORCE_CUTLASS = %s" % force}
            SA = []
            try:
                from torch.sparse import SparseSemiStructuredTensor, to_sparse_semi_structured
                SparseSemiStructuredTensor._FORCE_CUTLASS = force
                # Copy 0 first: a backend that cannot run here fails before
                # the other copies are converted.
                SA = [to_sparse_semi_structured(P[0])]
                ent["class"] = type(SA[0]).__name__
                o = torch.mm(SA[0], B[0])
                ent["out_dtype"] = str(o.dtype).replace("torch.", "")
                ent["rel_error"], ent["nan_outputs"], _ = self.rel_error(o, ref)
                del o
                ent["status"] = "ok" if ent["rel_error"] < TOLERANCE else "wrong"
                SA += [to_sparse_semi_structured(x) for x in P[1:]]
                ent.update(self.time_method(lambda i: torch.mm(SA[i % copies], B[i % copies]),
                                            budget_s))
            except Exception as e:  # noqa: BLE001
                ent.update(status="unavailable",
                           error="%s: %s" % (type(e).__name__, first_lines(e)))
            SA = None  # frees this backend's operands
            meths[name] = ent
            self.say("  %s 2:4: %s" % ("CUTLASS" if force else "cuSPARSELt",
                                       self.line(ent, res["flop"])))
            if ent["status"] == "unavailable" and not self.context_ok():
                ent["context_lost"] = True
                res["context_lost"] = True
                return res
        for ent in meths.values():
            if "median_ms" in ent:
                ent["tflops_median"] = res["flop"] / (ent["median_ms"] * 1e-3) / 1e12
                ent["tflops_best"] = res["flop"] / (ent["min_ms"] * 1e-3) / 1e12
        res["wall_seconds"] = round(time.time() - t_start, 2)
        return res

    def line(self, ent, flop):
        if "median_ms" in ent:
            s = "%.4f ms median (min %.4f, %d runs), %.1f TFLOP/s" % (
                ent["median_ms"], ent["min_ms"], ent["repeats"],
                flop / (ent["median_ms"] * 1e-3) / 1e12)
        else:
            s = ""
        st = ent.get("status")
        if st != "ok":
            s = ("%s%s%s" % (st.upper(), (": " + first_lines(ent.get("error"), 2))
                             if ent.get("error") else "", ("; " + s) if s else ""))
        if ent.get("rel_error") is not None:
            s += ", rel. error %.2e" % ent["rel_error"]
        return s

    def run_stc(self, p, m, n, k, V, MT, B, OUT, ref, stream, budget_s):
        torch, cudrv = self.torch, self.cudrv
        ent = {"kernel_source": self.manifest.get("kernel_source")}
        module = None
        try:
            with open(os.path.join(self.base, p["kernel_info"])) as f:
                kinfos = cudrv.parse_kernel_info(f.read(), where=p["kernel_info"])
            if len(kinfos) != 1:
                raise cudrv.KernelInfoError("%s lists %d kernels; the benchmark launches "
                                            "exactly one" % (p["kernel_info"], len(kinfos)))
            ki = kinfos[0]
            with open(os.path.join(self.base, p["ptx"])) as f:
                ptx = f.read()
            cudrv.check_ptx_against_info(ptx, ki, where=p["ptx"])
            bad = cudrv.check_problem(ki, m, n, k, p["dtype"], p["out_dtype"])
            if bad:
                raise cudrv.KernelInfoError("; ".join(bad))
            kent = {"kernel": ki["kernel"], "grid": ki["grid"], "block": ki["block"],
                    "shared_bytes": ki["shared_bytes"], "params": ki["params"],
                    "param_types": ki["param_types"]}
            for key in ("tile", "mma", "ordered_metadata", "input_type", "output_type"):
                if key in ki:
                    kent[key] = ki[key]
            ent["kernel"] = kent
            t0 = time.time()
            module, jitlog = self.drv.load_ptx(ptx, where=p["ptx"])
            ent["jit_seconds"] = round(time.time() - t0, 3)
            ent["jit_log"] = first_lines(jitlog, 8) if jitlog else ""
            fn = self.drv.get_function(module, ki["kernel"])
            A_ = cudrv  # the attribute constants
            kent["registers"] = self.drv.func_attribute(fn, A_.CU_FUNC_ATTRIBUTE_NUM_REGS)
            kent["local_bytes"] = self.drv.func_attribute(fn, A_.CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES)
            kent["static_shared_bytes"] = self.drv.func_attribute(
                fn, A_.CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)
            kent["max_threads_per_block"] = self.drv.func_attribute(
                fn, A_.CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)
            kent["binary_version"] = self.drv.func_attribute(fn, A_.CU_FUNC_ATTRIBUTE_BINARY_VERSION)
            threads = ki["block"][0] * ki["block"][1] * ki["block"][2]
            if threads > kent["max_threads_per_block"]:
                raise RuntimeError(
                    "block %s has %d threads but the kernel allows at most %d per block "
                    "(it uses %d registers per thread)" % (ki["block"], threads,
                                                           kent["max_threads_per_block"],
                                                           kent["registers"]))
            shared = ki["shared_bytes"]
            if shared + kent["static_shared_bytes"] > 48 * 1024:
                # More than 48 KiB per block needs the opt-in attribute.
                optin = self.drv.device_attribute(
                    A_.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)
                if shared + kent["static_shared_bytes"] > optin:
                    raise RuntimeError(
                        "the kernel needs %d B of dynamic + %d B of static shared memory; "
                        "the device allows %d B per block" % (
                            shared, kent["static_shared_bytes"], optin))
                self.drv.set_max_dynamic_shared(fn, shared)
            kent["blocks_per_sm"] = self.drv.occupancy(fn, threads, shared)
            if kent["blocks_per_sm"] == 0:
                raise RuntimeError("cuOccupancyMaxActiveBlocksPerMultiprocessor says no "
                                   "block of %d threads with %d B dynamic shared memory fits "
                                   "on a multiprocessor" % (threads, shared))
            launches = []
            self._meta_words = []
            bug = next((kind for kind, pat in self.sim_bug.items()
                        if pat.search(p["name"])), None)
            for c in range(len(V)):
                sizes = {"M": m, "N": n, "K": k, "VC": V[c].shape[1], "MC": MT[c].shape[1]}
                bufs = {"values": V[c].data_ptr(), "meta": MT[c].data_ptr(),
                        "dense": B[c].data_ptr(), "out": OUT[c].data_ptr()}
                if not self.sim and ki.get("meta_layout", "canonical") == "canonical":
                    # The kernel reads kernel-ready metadata: convert the
                    # canonical copy once with the kernel's own conversion
                    # kernel (stc's host code does the same), outside timing.
                    # (The CPU simulation reads canonical metadata itself.)
                    words = torch.empty(max(cudrv.metadata_words(ki), 128),
                                        dtype=torch.int32, device="cuda")
                    self._meta_words.append(words)
                    cudrv.metadata_conversion(self.drv, module, ki, MT[c].data_ptr(),
                                              words.data_ptr(),
                                              MT[c].shape[1])(stream)
                    bufs["meta"] = words.data_ptr()
                args = cudrv.kernel_arg_values(ki, bufs, sizes)
                if self.sim:
                    tensors = {V[c].data_ptr(): V[c], MT[c].data_ptr(): MT[c],
                               B[c].data_ptr(): B[c], OUT[c].data_ptr(): OUT[c]}
                    launches.append(_SimLaunch(self, args, tensors, bug))
                    launches[-1].args = args
                else:
                    launches.append(cudrv.Launch(self.drv, fn, ki, args))
            kent["args_copy0"] = [(nm, t, v if t != "ptr" else hex(v))
                                  for nm, t, v in launches[0].args]
            # ---- check: poison, run once, compare with float64 -----------------
            OUT[0].fill_(float("nan"))
            self.sync()
            e0, e1 = self.event(), self.event()
            e0.record()
            launches[0](stream)
            e1.record()
            if not self.wait("check launch"):
                ent.update(status="failed", hang=True,
                           error="the first launch did not finish within %d s (hang?); "
                                 "the worker exits and the parent goes on with the next "
                                 "program" % CHECK_TIMEOUT_S)
                return ent
            self.drv.synchronize("kernel execution (cuCtxSynchronize after the first launch)")
            t_first = e0.elapsed_time(e1)
            ent["first_launch_ms"] = t_first
            ent["rel_error"], ent["nan_outputs"], ent["inf_outputs"] = self.rel_error(OUT[0], ref)
            ent["tolerance"] = TOLERANCE
            ok = ent["rel_error"] < TOLERANCE
            if not ok:
                ent["diagnosis"] = self.diagnose(OUT[0], ref, m, n)
            first = OUT[0].clone()
            OUT[0].fill_(float("nan"))
            launches[0](stream)
            if not self.wait("second launch"):
                ent.update(status="failed", hang=True,
                           error="the second launch did not finish within %d s"
                                 % CHECK_TIMEOUT_S)
                return ent
            self.drv.synchronize("kernel execution (second launch)")
            ent["deterministic"] = bool(torch.equal(first, OUT[0]))
            del first
            if ok and not ent["deterministic"]:
                ok = False
                ent["error"] = ("two runs on the same inputs gave different results "
                                "(a race?)")
            ent["status"] = "ok" if ok else "wrong"
            if not ok and "error" not in ent:
                ent["error"] = ("result differs from float64 torch: rel. error %s "
                                "(tolerance %.0e), %d NaN outputs"
                                % ("%.3e" % ent["rel_error"], TOLERANCE, ent["nan_outputs"]))
            self.say("  STC check: %s (first launch %.3f ms, jit %.2f s, %d regs, %d blocks/SM)"
                     % ("ok" if ok else "WRONG: " + ent["error"], t_first,
                        ent["jit_seconds"], kent["registers"], kent["blocks_per_sm"]))
            # ---- timing --------------------------------------------------------
            if ent["nan_outputs"] == 0 or ok:
                copies = len(launches)
                ent.update(self.time_method(lambda i: launches[i % copies](stream), budget_s,
                                            t_first_ms=t_first))
                self.drv.synchronize("kernel execution (timed runs)")
            self.say("  STC: %s" % self.line(ent, 2 * m * n * k))
        except Exception as e:  # noqa: BLE001
            ent.update(status="failed", error="%s: %s" % (type(e).__name__, e))
            self.say("  STC: FAILED: %s" % first_lines(ent["error"], 8))
            if not self.context_ok():
                ent["context_lost"] = True
                ent["error"] += ("\n(the CUDA context is unusable after this error: the "
                                 "worker exits and the parent restarts it with the next "
                                 "program)")
        finally:
            if module is not None and not ent.get("context_lost") and not ent.get("hang"):
                try:
                    self.drv.unload(module)
                except Exception:  # noqa: BLE001
                    pass
        return ent

    # -- main loop -------------------------------------------------------------
    def main(self):
        try:
            self.setup()
        except Exception as e:  # noqa: BLE001
            self.emit({"type": "fatal", "error": "worker setup failed: %s: %s"
                       % (type(e).__name__, e)})
            self.say("worker: setup FAILED: %s: %s" % (type(e).__name__, e))
            return 2
        if self.args.format_check:
            self.format_check()
        progs = self.manifest["programs"]
        todo = [int(x) for x in self.args.indices.split(",") if x != ""]
        for pos, idx in enumerate(todo):
            p = progs[idx]
            now = time.time()
            if now > self.deadline:
                self.emit({"type": "result", "index": idx, "name": p["name"],
                           "skipped": "time budget used up before this program started"})
                continue
            left = len(todo) - pos
            budget = min(self.args.max_method_s,
                         max(0.05, (self.deadline - now) * 0.5 / (left * len(METHODS))))
            self.emit({"type": "start", "index": idx, "name": p["name"], "utc": utc_now()})
            self.say("[%d/%d] %s: M=%d N=%d K=%d %s (timing budget %.2f s per method, "
                     "%.0f s left)" % (self.args.position0 + pos + 1, self.args.total,
                                       p["name"], p["M"], p["N"], p["K"], p["dtype"],
                                       budget, self.deadline - now))
            try:
                res = self.run_program(idx, p, budget)
            except Exception as e:  # noqa: BLE001 (inputs, references: recorded)
                import traceback
                res = {"type": "result", "index": idx, "name": p["name"],
                       "error": "%s: %s\n%s" % (type(e).__name__, e,
                                                 first_lines(traceback.format_exc(), 12))}
                self.say("  FAILED: %s: %s" % (type(e).__name__, first_lines(e, 3)))
                if not self.context_ok():
                    res["context_lost"] = True
            self.emit(res)
            st = res.get("methods", {}).get("stc", {})
            if res.get("context_lost") or st.get("context_lost"):
                return EXIT_CONTEXT_LOST
            if st.get("hang"):
                os._exit(EXIT_HANG)  # do not wait for the stuck kernel at teardown
            if not self.sim:
                self.torch.cuda.empty_cache()
        return 0


def worker_main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("--manifest", required=True)
    ap.add_argument("--jsonl", required=True)
    ap.add_argument("--indices", required=True)
    ap.add_argument("--deadline", type=float, required=True)
    ap.add_argument("--max-method-s", type=float, default=0.5)
    ap.add_argument("--max-repeats", type=int, default=200)
    ap.add_argument("--max-copies", type=int, default=64)
    ap.add_argument("--format-check", action="store_true")
    ap.add_argument("--position0", type=int, default=0)
    ap.add_argument("--total", type=int, default=0)
    ap.add_argument("--simulate", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--simulate-bug", action="append", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    return Worker(args).main()


# ===========================================================================
# Parent (no torch)
# ===========================================================================

SMI_FIELDS = ("name", "driver_version", "pci.bus_id", "pstate", "clocks.sm",
              "clocks.max.sm", "clocks.mem", "clocks.max.mem",
              "clocks.applications.graphics", "power.draw", "power.limit",
              "temperature.gpu", "clocks_event_reasons.active",
              "compute_mode", "persistence_mode", "mig.mode.current")


def nvidia_smi():
    """Read-only queries: all fields in one call, or, when this nvidia-smi
    does not know one of them, one field at a time."""
    smi = shutil.which("nvidia-smi")
    if not smi:
        return {"available": False}

    def query(fields):
        try:
            p = subprocess.run([smi, "--query-gpu=" + ",".join(fields),
                                "--format=csv,noheader"],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=20)
        except (OSError, subprocess.TimeoutExpired):
            return None
        lines = p.stdout.decode(errors="replace").strip().splitlines()
        if p.returncode != 0 or not lines:
            return None
        vals = [v.strip() for v in lines[0].split(",")]
        return vals if len(vals) == len(fields) else None

    out = {"available": True}
    vals = query(SMI_FIELDS)
    if vals is not None:
        out.update(zip(SMI_FIELDS, vals))
        return out
    for f in SMI_FIELDS:
        v = query([f])
        out[f] = v[0] if v else None
    return out


def read_jsonl(path):
    recs = []
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                line = line.strip()
                if line:
                    try:
                        recs.append(json.loads(line))
                    except ValueError:
                        pass  # a line cut short by a kill
    return recs


def run_worker(cmd, stall_s, hard_deadline, prefix="  | "):
    """Runs the worker, forwarding its output; kills it when it prints
    nothing for stall_s seconds or runs past hard_deadline. Returns
    (exit status or None, why killed or None, last output lines)."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)
    q = queue.Queue()

    def reader():
        for raw in iter(proc.stdout.readline, b""):
            q.put(raw.decode(errors="replace").rstrip("\n"))
        q.put(None)

    threading.Thread(target=reader, daemon=True).start()
    last = time.time()
    lines, killed = [], None
    while True:
        try:
            line = q.get(timeout=1.0)
            if line is None:
                break
            last = time.time()
            lines.append(line)
            del lines[:-60]
            print(prefix + line, flush=True)
        except queue.Empty:
            pass
        now = time.time()
        if killed is None and now - last > stall_s:
            killed = "no output for %d s (hang?)" % stall_s
        elif killed is None and now > hard_deadline:
            killed = "past the run's hard deadline"
        if killed is not None and proc.poll() is None:
            print("[run_gpu_bench run] killing the worker: %s" % killed, flush=True)
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except OSError:
                proc.kill()
            break
    try:
        rc = proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        rc = None
    return rc, killed, lines


def parent_main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("--manifest", required=True)
    ap.add_argument("--results-dir", default=os.path.join(ROOT, "bench", "results"))
    ap.add_argument("--copy-to", default=None)
    ap.add_argument("--time-budget", type=float, default=400.0,
                    help="seconds for the whole run; programs not started by then are skipped")
    ap.add_argument("--stall", type=float, default=150.0)
    ap.add_argument("--max-method-s", type=float, default=0.5)
    ap.add_argument("--max-repeats", type=int, default=200)
    ap.add_argument("--max-restarts", type=int, default=6)
    ap.add_argument("--only", default=None)
    # Self test only (bench/gpu/selftest.py): run the worker on the CPU with a
    # stand-in kernel; KIND@REGEX plants a fault in the matching programs.
    ap.add_argument("--simulate", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--simulate-bug", action="append", default=[], help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    import report
    t_start = time.time()
    stamp = utc_now()

    def say(msg):
        print("[run_gpu_bench run] " + msg, flush=True)

    if not os.path.isfile(args.manifest):
        say("no %s: run `bench/run_gpu_bench.sh build` on the build machine and carry "
            "bench/work/gpu to this one (run tool: carry=[\"bench/work/gpu\"])" % args.manifest)
        return 2
    try:
        with open(args.manifest) as f:
            manifest = json.load(f)
        programs = manifest["programs"]
    except (ValueError, KeyError, OSError) as e:
        say("cannot read %s: %s" % (args.manifest, e))
        return 2
    if args.copy_to:
        os.makedirs(args.copy_to, exist_ok=True)
    os.makedirs(args.results_dir, exist_ok=True)
    base = "gpu-gemm-%s%s-%s" % ("mock-" if manifest.get("mock") else "", stamp,
                                 manifest.get("commit_short", "unknown"))
    jsonl = os.path.join(args.copy_to or os.path.join(os.path.dirname(args.manifest), "..",
                                                      "gpu-run"), base + ".jsonl")
    os.makedirs(os.path.dirname(jsonl), exist_ok=True)
    open(jsonl, "a").close()  # the worker appends its records here
    selected = [i for i, p in enumerate(programs)
                if not args.only or re.search(args.only, p["name"])]
    if not selected:
        say("no program matches --only %r" % args.only)
        return 2
    if manifest.get("mock"):
        say("MOCK kernels (bench/gpu/mock_spmm.cu, plain CUDA C): this run tests the "
            "harness; its 'STC' rows are not STC")
    smi_start = nvidia_smi()
    say("%d programs from %s (built %s at %s%s); time budget %.0f s"
        % (len(selected), args.manifest, manifest.get("utc"), manifest.get("commit_short"),
           ", dirty tree" if manifest.get("dirty") else "", args.time_budget))
    pre = []  # records the parent writes itself
    todo = []
    for i in selected:
        p = programs[i]
        if p.get("status") != "ok":
            pre.append({"type": "result", "index": i, "name": p["name"],
                        "build_failed": p.get("error") or "not built"})
        else:
            todo.append(i)
    deadline = t_start + args.time_budget
    hard = deadline + 60.0
    restarts = []
    first = True
    total = len(todo)
    while todo:
        n_before = len(read_jsonl(jsonl))
        cmd = [sys.executable, "-u", os.path.abspath(__file__), "worker",
               "--manifest", args.manifest, "--jsonl", jsonl,
               "--indices", ",".join(map(str, todo)), "--deadline", repr(deadline),
               "--max-method-s", str(args.max_method_s),
               "--max-repeats", str(args.max_repeats),
               "--position0", str(total - len(todo)), "--total", str(total)]
        if first:
            cmd.append("--format-check")
        if args.simulate:
            cmd.append("--simulate")
            for b in args.simulate_bug:
                cmd += ["--simulate-bug", b]
        rc, killed, lines = run_worker(cmd, args.stall, hard)
        first = False
        recs = read_jsonl(jsonl)
        new = recs[n_before:]
        done = {r["index"] for r in recs if r.get("type") == "result"}
        started = [r["index"] for r in new if r.get("type") == "start"]
        fatal = [r for r in new if r.get("type") == "fatal"]
        remaining = [i for i in todo if i not in done]
        if not remaining:
            break
        crashed = started[-1] if started and started[-1] in remaining else None
        why = (killed or "exit status %s" % rc)
        say("worker ended (%s) with %d program(s) left" % (why, len(remaining)))
        if crashed is None and started:
            # It recorded its last program and exited on purpose (a lost
            # CUDA context, a hang): go on with a fresh worker.
            restarts.append({"after": programs[started[-1]]["name"], "why": why})
            todo = remaining
            if time.time() > hard or len(restarts) > args.max_restarts:
                for i in todo:
                    pre.append({"type": "result", "index": i, "name": programs[i]["name"],
                                "not_run": "too many worker restarts or past the deadline"})
                break
            continue
        last = next((ln.strip() for ln in reversed(lines) if ln.strip()), "no output")
        if crashed is None:
            # It died before starting a program: setup failed; do not loop.
            msg = ("worker failed before running any program (%s): %s\n%s"
                   % (why, fatal[-1]["error"] if fatal else last, "\n".join(lines[-15:])))
            say(msg)
            for i in remaining:
                pre.append({"type": "result", "index": i, "name": programs[i]["name"],
                            "not_run": msg})
            break
        pre.append({"type": "result", "index": crashed, "name": programs[crashed]["name"],
                    "worker_died": "the worker died while running this program (%s); last "
                                   "output line: %s\nlast output:\n%s"
                                   % (why, last, "\n".join(lines[-15:]))})
        restarts.append({"after": programs[crashed]["name"], "why": why})
        todo = [i for i in remaining if i != crashed]
        if time.time() > hard or len(restarts) > args.max_restarts:
            for i in todo:
                pre.append({"type": "result", "index": i, "name": programs[i]["name"],
                            "not_run": "too many worker restarts or past the deadline"})
            break
    smi_end = nvidia_smi()
    recs = read_jsonl(jsonl) + pre
    doc = report.assemble(manifest, recs, programs, selected, {
        "utc": stamp, "time_budget_s": args.time_budget, "stall_s": args.stall,
        "max_method_s": args.max_method_s, "max_repeats": args.max_repeats,
        "tolerance": TOLERANCE, "wall_seconds": round(time.time() - t_start, 1),
        "nvidia_smi_start": smi_start, "nvidia_smi_end": smi_end,
        "worker_restarts": restarts, "only": args.only})
    doc = report.finite_json(doc)
    md = report.markdown(doc)
    out_base = os.path.join(args.results_dir, base)
    with open(out_base + ".json", "w") as f:
        json.dump(doc, f, indent=1, allow_nan=False)
        f.write("\n")
    with open(out_base + ".md", "w") as f:
        f.write(md)
    if args.copy_to:
        for ext in (".json", ".md"):
            shutil.copy(out_base + ext, os.path.join(args.copy_to, base + ext))
    print(md)
    print(report.compact(doc))
    say("wrote %s.json and .md%s" % (out_base, (" (copies in %s)" % args.copy_to)
                                      if args.copy_to else ""))
    st = doc["summary"]
    if st["ok"]:
        return 0
    say("NOT all ok: %s" % json.dumps({k: v for k, v in st.items() if k != "ok"}))
    return 1


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "worker":
        sys.exit(worker_main(sys.argv[2:]))
    if len(sys.argv) > 1 and sys.argv[1] == "run":
        sys.exit(parent_main(sys.argv[2:]))
    print("usage: gemm_bench.py run --manifest FILE [...] (see the module docstring)",
          file=sys.stderr)
    sys.exit(2)
