"""What the GPU benchmarks' run steps share (gemm_bench.py for the GEMMs,
conv_bench.py for the convolutions; see bench/README.md).

Both run the same way: a parent process (no torch) reads the manifest the
build step wrote and starts a worker process that imports torch and does
all GPU work; the worker writes one JSON record per event to a .jsonl file,
and the parent restarts it after a program that killed it (a kernel fault
that poisons the CUDA context, a hang) and writes the results document
(report.py). What differs between the benchmarks is the inputs, the
kernel-info checks, the baselines and the report; everything else is here,
in one place, so that a fix to the timing or the restart logic reaches both:

- `Worker`: the worker's base class. It owns the runtime setup (STC's
  kernels run through stc_runtime's C API: stcrt.py, launch.py), the CUDA-
  event timing behind a sleep kernel, the hang/crash handling, the main
  loop over the programs, and `run_stc`, which loads, checks and times
  STC's kernel. A benchmark subclasses it and supplies `run_program` and a
  few hooks (`check_kernel`, `stc_operands`, `kernel_args`, `sim_launch`,
  `diagnose`), listed under "Hooks" in the class.
- `worker_main`, `parent_main` (with a `RunSpec` that names the
  benchmark's files, texts and report functions), `run_worker`,
  `read_jsonl`, `nvidia_smi`: the two processes' entry points and the
  parent's plumbing.
- The --simulate stand-ins (tests without a GPU): `_CpuEvent`,
  `_SimRuntime`, `sim_fault`, `decode_swapped`.

Importing this module needs no torch (the parent imports it too).
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
import struct
import subprocess
import sys
import threading
import time

import kernel_info as kinfo_lib
import launch as launch_lib
import stcrt

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

TOLERANCE = 1e-2            # relative Frobenius error, f16/bf16 outputs
# Integer (i32) outputs must equal the reference exactly. They are poisoned
# with INT_POISON before a check: no result of the benchmark's int8 data
# reaches it (|C| <= 127 * 127 * K < 2^31 for K <= 2^17), so an output that
# still holds it was not written, and counts as NaN does for floats.
INT_POISON = -2 ** 31
# A first launch that runs longer is a hang. STC_BENCH_CHECK_TIMEOUT_S
# shortens it where device time is scarce (a kernel's first launch takes
# milliseconds; a hang costs this much per program).
CHECK_TIMEOUT_S = float(os.environ.get("STC_BENCH_CHECK_TIMEOUT_S", "60"))
EXIT_CONTEXT_LOST = 3
EXIT_HANG = 4


def utc_now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")


def first_lines(text, n=6):
    lines = str(text).strip().splitlines()
    return "\n".join(lines[:n]) + ("\n..." if len(lines) > n else "")


def first_line(e):
    return (str(e).strip().splitlines() or [""])[0]


def unravel(i, shape):
    """The index tuple of flat index i in a row-major array of `shape`."""
    out = []
    for d in reversed(shape):
        out.append(i % d)
        i //= d
    return tuple(reversed(out))


# ===========================================================================
# --simulate stand-ins (the self test runs the worker on the CPU)
# ===========================================================================

class _CpuEvent:
    """--simulate: a host-clock stand-in for torch.cuda.Event."""

    def record(self):
        self.t = time.perf_counter()

    def elapsed_time(self, other):
        return (other.t - self.t) * 1e3

    def query(self):
        return True


class _SimRuntime:
    """--simulate: answers the runtime calls the worker makes (stcrt.Runtime's
    methods), without a GPU."""

    def load_ptx(self, ptx):
        return 1

    def get_function(self, module, name):
        return 1

    def function_attribute(self, f, attr):
        return {stcrt.FUNC_MAX_THREADS_PER_BLOCK: 1024}.get(attr, 0)

    def device_info(self):
        return {"name": "simulated", "sm": 90, "driver_version": 0,
                "max_shared_bytes_per_block": 227 * 1024}

    def set_max_dynamic_shared(self, f, nbytes):
        pass

    def occupancy(self, f, threads, dyn_shared):
        return 1

    def max_active_clusters(self, f, grid, block, cluster, shared):
        return 1

    # Tensor maps: a readable stand-in encoding (sim_decode_tensor_map) in
    # host memory that plays the device's.
    def encode_tensor_map(self, req):
        return sim_encode_tensor_map(req)

    def mem_alloc(self, nbytes):
        import ctypes
        buf = ctypes.create_string_buffer(nbytes)
        self.__dict__.setdefault("_mem", {})[ctypes.addressof(buf)] = buf
        return ctypes.addressof(buf)

    def memcpy_htod(self, dst, data):
        import ctypes
        ctypes.memmove(dst, bytes(data), len(data))

    def mem_free(self, ptr):
        del self._mem[ptr]

    def synchronize(self, what=""):
        pass

    def unload(self, module):
        pass


#: --simulate's stand-in CUtensorMap: magic, data type, rank, address, 4
#: dimensions, 3 strides, 4 box sizes, 4 element strides (unused ones 0),
#: interleave, swizzle, L2 promotion, fill: 128 bytes.
_SIM_MAP = struct.Struct("<4sii Q 4Q 3Q 4I 4I IIII")
_SIM_MAX_RANK = 4


def _pad(xs, n):
    return list(xs) + [0] * (n - len(xs))


def sim_encode_tensor_map(req):
    """--simulate: a request of kernel_info.tensor_map_requests (rank 2 to 4)
    packed into the 128 bytes of a stand-in CUtensorMap (the real encoding
    is opaque)."""
    r = req["rank"]
    if not 1 <= r <= _SIM_MAX_RANK:
        raise ValueError("simulated tensor maps have rank 1 to %d, not %d" % (_SIM_MAX_RANK, r))
    raw = _SIM_MAP.pack(b"SIMT", req["data_type"], r, req["address"],
                        *(_pad(req["dims"], 4) + _pad(req["strides"], 3) + _pad(req["box"], 4)
                          + _pad(req["element_strides"], 4)
                          + [req["interleave"], req["swizzle"], req["l2_promotion"],
                             req["oob_fill"]]))
    return raw + b"\0" * (128 - len(raw))


def sim_decode_tensor_map(address):
    """--simulate: the request packed by sim_encode_tensor_map at host
    address `address` (what a stand-in kernel reads from a map parameter)."""
    import ctypes
    f = _SIM_MAP.unpack(ctypes.string_at(address, _SIM_MAP.size))
    if f[0] != b"SIMT":
        raise ValueError("parameter 0x%x does not point to a (simulated) tensor map" % address)
    r = f[2]
    return {"data_type": f[1], "rank": r, "address": f[3], "dims": list(f[4:4 + r]),
            "strides": list(f[8:8 + r - 1]), "box": list(f[11:11 + r]),
            "element_strides": list(f[15:15 + r]), "interleave": f[19], "swizzle": f[20],
            "l2_promotion": f[21], "oob_fill": f[22]}


def sim_fault(bug):
    """The faults a simulated kernel plants before it computes anything
    (both benchmarks' stand-in kernels): crash (the process dies), hang
    (never returns), error (a launch error). Other bugs (nan, wrong) are
    planted in the result by the stand-in itself."""
    if bug == "crash":
        os._exit(9)
    if bug == "hang":
        while True:
            time.sleep(1)
    if bug == "error":
        raise stcrt.CudaError("cuLaunchKernel failed: CUDA_ERROR_INVALID_VALUE "
                              "(simulated)", 1)


def sim_operands(worker, args, tensors, bug, params, kinfo=None):
    """--simulate: what a stand-in kernel computes from, after planting the
    faults of sim_fault: (its buffers and its sizes by role, resolved from
    the packed arguments through `tensors` (pointer -> tensor) and the
    parameter tables of `params` (kernel_info or conv_kernel), and the sparse
    operand decompressed, its indices swapped under the "wrong" bug; for a
    kernel without a meta parameter, STC's dense one, the values as they
    are, the first two of every four columns swapped under "wrong"). The
    tensor maps among the arguments are checked against their buffers
    (and, given `kinfo`, the kernel info's boxes and element strides)."""
    sim_fault(bug)
    buf, sizes, maps = {}, {}, {}
    for name, t, v in args:
        if t == "ptr" and name in params.BUFFER_PARAMS:
            buf[params.BUFFER_PARAMS[name]] = tensors[v]
        elif t == "ptr":
            maps[name] = sim_decode_tensor_map(v)  # a tensor-map parameter
        else:
            sizes[params.SIZE_PARAMS[name]] = v
    if maps:
        sim_check_tensor_maps(worker, maps, buf, kinfo)
    if "meta" not in buf:
        a = buf["values"]
        if bug == "wrong":
            rows, k = a.shape
            a = a.reshape(rows, k // 4, 4)[:, :, [1, 0, 2, 3]].reshape(rows, k)
    elif bug == "wrong":
        a = decode_swapped(worker, buf["values"], buf["meta"])
    else:
        a = worker.f24.decompress24(buf["values"], buf["meta"], worker.tops)
    return buf, sizes, a


def sim_check_tensor_maps(worker, maps, buf, kinfo=None):
    """--simulate: each decoded tensor map must describe its operand's
    buffer of this launch (the right input copy) as the kernel-info
    contract says: address, dimensions innermost first (a matrix: cols,
    rows; an NHWC input: C, W, H, N), the dense strides of dimensions 1.., no
    interleave, L2 promotion 128B, zero fill; element strides all 1 or,
    given `kinfo`, its tensor_maps entry's element strides and box. A
    mismatch is raised as a launch error would be."""
    entries = {m["param"]: m for m in (kinfo or {}).get("tensor_maps") or []}
    for name, m in maps.items():
        hit = [(role, t) for role, t in buf.items() if t.data_ptr() == m["address"]]
        if not hit:
            raise stcrt.CudaError("tensor map %s points to 0x%x, which is none of this "
                                  "launch's buffers (simulated)" % (name, m["address"]), 1)
        role, t = hit[0]
        ent = entries.get(name, {})
        dims = kinfo_lib.buffer_map_dims(t.shape, len(ent.get("box") or t.shape))
        strides, st = [], t.element_size()
        for d in dims[:-1]:
            st *= d
            strides.append(st)
        if ent.get("operand") == "meta":
            # The kernel-ready words' view (the simulation passes the
            # canonical copy in their place).
            dims, strides = kinfo_lib.meta_map_view(kinfo, ent)
        want = {"dims": dims, "strides": strides, "rank": len(dims),
                "element_strides": list(ent.get("element_strides") or [1] * len(dims)),
                "interleave": 0, "l2_promotion": 2, "oob_fill": 0}
        if "box" in ent:
            want["box"] = list(ent["box"])
        got = {k: m[k] for k in want}
        if got != want:
            raise stcrt.CudaError("tensor map %s of %s: %s, expected %s (simulated)"
                                  % (name, role, got, want), 1)


def decode_swapped(worker, values, meta):
    """The "wrong" planted fault: decompress with the two 2-bit indices of
    every metadata nibble swapped (the classic metadata mistake). The
    swapped nibbles are illegal for format24.decompress24, so this decodes
    them by hand."""
    torch = worker.torch
    word = worker.tops.meta_in(meta)
    nib = [(word // (16 ** j)) % 16 for j in range(4)]
    sw = [(x % 4) * 4 + x // 4 for x in nib]
    meta = sw[0] + 16 * sw[1] + 256 * sw[2] + 4096 * sw[3]
    rows, half = values.shape
    k = 2 * half
    word = worker.tops.meta_in(meta)
    nib = torch.stack([(word // (16 ** j)) % 16 for j in range(4)], dim=-1)
    nib = nib.reshape(rows, k // 4)
    v = values.reshape(rows, k // 4, 2)
    dense = torch.zeros((rows, k // 4, 4), dtype=values.dtype)
    dense.scatter_(2, (nib % 4).long().unsqueeze(-1), v[:, :, :1])
    dense.scatter_(2, (nib // 4).long().unsqueeze(-1), v[:, :, 1:])
    return dense.reshape(rows, k)


# ===========================================================================
# Worker (imports torch; all GPU work happens here)
# ===========================================================================

class Worker:
    """The worker's machinery, shared by both benchmarks. A benchmark's
    subclass provides `run_program(idx, p, budget_s)` (inputs, references,
    baselines; it calls `run_stc` for STC's kernel) and the hooks below."""

    # -- Hooks ------------------------------------------------------------------
    #: Optional kernel-info keys copied into STC's result ("kernel").
    KERNEL_KEYS = ()
    #: (result key, stcrt attribute) of the function attributes recorded for
    #: STC's kernel; the one of stcrt.FUNC_STATIC_SHARED_BYTES is the static
    #: shared memory added to the kernel info's dynamic amount.
    FUNC_ATTRS = launch_lib.FUNC_ATTRS
    #: How many methods share a program's timing budget (main()).
    BUDGET_SHARES = 4
    #: What STC's result is compared with (in the "wrong" error text).
    REFERENCE_WHAT = "float64 torch"
    #: Tensor-map operand (kernel info "operand") -> the role of the buffer
    #: (stc_operands' names) it describes, as a dense array of the buffer's
    #: shape (a convolution's "dense" map is its NHWC input).
    TENSOR_MAP_ROLES = {"values": "values", "dense": "dense", "out": "out"}
    #: Whether a wrong STC result without NaN outputs is still timed.
    TIME_WRONG_RESULTS = False

    def run_program(self, idx, p, budget_s):
        raise NotImplementedError

    def parse_kernel_info(self, text, where):
        """The kernel info file's kernels (validated)."""
        raise NotImplementedError

    def check_kernel(self, ki, p, ctx):
        """Problems of kernel info `ki` for program p (a list of texts)."""
        raise NotImplementedError

    def stc_operands(self, c, ki, ctx):
        """(sizes, {buffer name: tensor}) of input copy c; the buffer names
        include "values", "meta" and "out"."""
        raise NotImplementedError

    def kernel_args(self, ki, bufs, sizes):
        """The kernel's (name, type, value) arguments in its order."""
        raise NotImplementedError

    def sim_launch(self, args, tensors, bug, ki):
        """--simulate: a stand-in for the launch of STC's kernel."""
        raise NotImplementedError

    def diagnose(self, out, ref, ctx):
        """Hints for a wrong result (diagnose_output with the layout's
        names)."""
        return {}

    #: Whether the worker imports torch (every GPU worker; tune_bench.py's
    #: synthetic worker, which runs on the build machine, does not).
    USES_TORCH = True

    def __init__(self, args):
        import format24
        self.f24 = format24
        self.torch = None
        if self.USES_TORCH:
            import torch
            self.torch = torch
        self.args = args
        self.jsonl = open(args.jsonl, "a")
        with open(args.manifest) as f:
            self.manifest = json.load(f)
        self.base = os.path.dirname(os.path.abspath(args.manifest))
        self.deadline = args.deadline
        self.tops = format24.TorchOps() if self.USES_TORCH else None
        try:
            self.nops = format24.NumpyOps()
        except ImportError:
            self.nops = None
        self.sim = bool(args.simulate)
        # --simulate-bug KIND[:METHOD]@REGEX: plant KIND in the programs whose
        # name matches, in every STC method's kernel or only METHOD's.
        self.sim_bug = []
        for item in args.simulate_bug or []:
            kind, _, pat = item.partition("@")
            kind, _, meth = kind.partition(":")
            self.sim_bug.append((kind, meth or None, re.compile(pat or ".")))
        self._method = "stc"
        self._tensor_maps = []

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
        self.open_runtime(device=torch.cuda.current_device())
        info = self.rt.device_info()
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
                    "max_shared_optin_bytes": info["max_shared_bytes_per_block"],
                    "cuda_driver_version": info["driver_version"]},
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

    def open_runtime(self, path=None, device=0):
        """stc_runtime's CUDA C API (stcrt.Runtime) on `device`, the one
        torch uses: the library at `path`, else where stcrt.find_library
        looks, the benchmark's build directory first (its copy travels)."""
        self.rt = stcrt.Runtime(path, search=[self.base])
        self.rt.init(device)

    def setup_sim(self):
        """--simulate (self test without a GPU): CPU tensors, a stand-in
        driver and kernel, host-clock events."""
        self.dev = self.torch.device("cpu")
        self.rt = _SimRuntime()
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
                rec["torch_equals_numpy"] = self.same_as_numpy(a.cpu().numpy(), p, v, m)
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
    def poison(self, out):
        """Fills an output with what no result can be: NaN, or INT_POISON
        for an integer output."""
        out.fill_(float("nan") if out.is_floating_point() else INT_POISON)

    def as_f64(self, out):
        """The output in float64, an integer output's INT_POISON (unwritten)
        as NaN."""
        torch = self.torch
        o = out.to(torch.float64)
        if not out.is_floating_point():
            o[out == INT_POISON] = float("nan")
        return o

    def judge(self, ent, out, ref):
        """Compares an output with the float64 reference (ent: rel_error,
        nan_outputs (integers: unwritten), inf_outputs, tolerance; integers
        also mismatches, the outputs that differ); returns whether it is
        right: within TOLERANCE, or for an integer output exactly equal
        (the reference, float64 of integers below 2^53, is exact)."""
        ent["rel_error"], ent["nan_outputs"], ent["inf_outputs"] = self.rel_error(out, ref)
        if out.is_floating_point():
            ent["tolerance"] = TOLERANCE
            return ent["rel_error"] < TOLERANCE
        ent["tolerance"] = "exact"
        ent["mismatches"] = int((self.as_f64(out) != ref).sum().item())
        return ent["mismatches"] == 0

    def wrong_text(self, ent):
        """Why judge() found a result wrong."""
        if ent["tolerance"] == "exact":
            return ("result differs from %s (exact integers): %d outputs differ, %d "
                    "unwritten (left at the poison value %d); rel. error %.3e"
                    % (self.REFERENCE_WHAT, ent["mismatches"], ent["nan_outputs"], INT_POISON,
                       ent["rel_error"]))
        return ("result differs from %s: rel. error %s (tolerance %.0e), %d NaN outputs"
                % (self.REFERENCE_WHAT, "%.3e" % ent["rel_error"], TOLERANCE,
                   ent["nan_outputs"]))

    def rel_error(self, out, ref):
        """(relative Frobenius error, number of NaN outputs (integers:
        unwritten), number of inf)."""
        torch = self.torch
        o = self.as_f64(out)
        nan = int(torch.isnan(o).sum().item())
        inf = int(torch.isinf(o).sum().item())
        if nan or inf:
            return math.inf, nan, inf
        den = float(torch.linalg.vector_norm(ref).item())
        num = float(torch.linalg.vector_norm(o - ref).item())
        if den == 0.0:
            return (0.0 if num == 0.0 else math.inf), 0, 0
        return num / den, 0, 0

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

    def line(self, ent, flop, unit="TFLOP/s"):
        """A method's result for the console; `unit`: of its rate (TOPS for
        integer programs)."""
        if "median_ms" in ent:
            s = "%.4f ms median (min %.4f, %d runs), %.1f %s" % (
                ent["median_ms"], ent["min_ms"], ent["repeats"],
                flop / (ent["median_ms"] * 1e-3) / 1e12, unit)
        else:
            s = ""
        st = ent.get("status")
        if st != "ok":
            s = ("%s%s%s" % (st.upper(), (": " + first_lines(ent.get("error"), 2))
                             if ent.get("error") else "", ("; " + s) if s else ""))
        if ent.get("rel_error") is not None:
            s += ", rel. error %.2e" % ent["rel_error"]
        return s

    # -- shared pieces of run_program ------------------------------------------
    def same_as_numpy(self, a, p, v, m):
        """Whether the torch format code's prune (p), values (v) and
        metadata (m) of the torch matrix-like `a` (a NumPy array here) equal
        the NumPy format code's; the benchmark checks its own compression."""
        f24 = self.f24
        np_p = f24.prune24(a, self.nops)
        np_v, np_m = f24.compress24(np_p, self.nops)
        return bool((p.float().cpu().numpy() == np_p).all()
                    and (v.float().cpu().numpy() == np_v).all()
                    and (m.cpu().numpy().view("uint16") == np_m).all())

    def check_numpy_rows(self, fmt, rows, a_rows, P, V, MT):
        """fmt["torch_equals_numpy"] on the first `rows` rows of copy 0
        (a_rows: those rows of the unpruned matrix, as NumPy)."""
        if self.nops is not None:
            fmt["numpy_rows_checked"] = rows
            fmt["torch_equals_numpy"] = self.same_as_numpy(a_rows, P[0][:rows], V[0][:rows],
                                                           MT[0][:rows])

    def baseline_failed(self, ent, e):
        """A baseline that raised: recorded as unavailable."""
        ent.update(status="unavailable", error="%s: %s" % (type(e).__name__, first_lines(e)))

    def lost_context(self, ent, res):
        """After an unavailable baseline: True (and both records marked)
        when the CUDA context is gone, so the worker must end."""
        if ent["status"] == "unavailable" and not self.context_ok():
            ent["context_lost"] = True
            res["context_lost"] = True
            return True
        return False

    def finish_result(self, res, flop, t_start):
        """Every timed method's TFLOP/s (dense-equivalent `flop`), the wall
        time; returns res."""
        for ent in res["methods"].values():
            if "median_ms" in ent:
                ent["tflops_median"] = flop / (ent["median_ms"] * 1e-3) / 1e12
                ent["tflops_best"] = flop / (ent["min_ms"] * 1e-3) / 1e12
        res["wall_seconds"] = round(time.time() - t_start, 2)
        return res

    def diagnose_output(self, out, ref, at, nonfinite_counts, alternative):
        """Hints for a wrong result: where the first non-finite output and
        the largest error are (index lists, keys suffixed with `at`), how
        many rows/columns/... hold non-finite values (nonfinite_counts:
        (key, bad -> boolean tensor to count)), and the error if the kernel
        had written another layout (alternative: (key, output -> output
        read as that layout))."""
        torch = self.torch
        hints = {}
        o = self.as_f64(out)
        finite = torch.isfinite(o)
        if not bool(finite.all()):
            bad = ~finite
            first = int(torch.argmax(bad.reshape(-1).to(torch.int8)).item())
            hints["first_nonfinite" + at] = list(unravel(first, tuple(o.shape)))
            for key, which in nonfinite_counts:
                hints[key] = int(which(bad).sum().item())
        o = torch.where(finite, o, torch.zeros_like(o))
        d = (o - ref).abs()
        idx = int(torch.argmax(d).item())
        hints["max_abs_error_at" + at] = list(unravel(idx, tuple(o.shape)))
        hints["max_abs_error"] = float(d.max().item())
        hints["ref_abs_max"] = float(ref.abs().max().item())
        key, reread = alternative
        try:
            hints[key] = float((torch.linalg.vector_norm(reread(o) - ref)
                                / torch.linalg.vector_norm(ref)).item())
        except Exception:  # noqa: BLE001
            pass
        return hints

    # -- STC's kernel ------------------------------------------------------------
    def run_stc(self, p, ent, ctx, stream, budget_s, method="stc"):
        """Loads STC's kernel for program p (ent: its result so far; the
        kernel is p["ptx"] with p["kernel_info"]), checks its kernel info
        against the program and the driver's limits, launches it on
        poisoned (poison()) copy 0 of ctx["out"], compares with ctx["ref"]
        (judge(), and a second run, for determinism), then times it over all
        input copies. ctx also holds ctx["flop"] (and "unit", its rate's)
        and what the hooks need; `method` names the result's method (stc,
        stc_sm90a, stc_dense), for the messages and --simulate-bug. Returns
        ent; a lost context or a hang is marked in it (the worker then
        ends)."""
        module = None
        self._method = method
        label = {"stc": "STC"}.get(method, "STC " + method.replace("stc_", ""))
        # Which STC kernel is running, for the parent if the worker dies in it.
        self.emit({"type": "method_start", "index": getattr(self, "_index", None),
                   "method": method})
        try:
            with open(os.path.join(self.base, p["kernel_info"])) as f:
                kinfos = self.parse_kernel_info(f.read(), where=p["kernel_info"])
            if len(kinfos) != 1:
                raise kinfo_lib.KernelInfoError("%s lists %d kernels; the benchmark launches "
                                            "exactly one" % (p["kernel_info"], len(kinfos)))
            ki = kinfos[0]
            with open(os.path.join(self.base, p["ptx"])) as f:
                ptx = f.read()
            kinfo_lib.check_ptx_against_info(ptx, ki, where=p["ptx"])
            bad = self.check_kernel(ki, p, ctx)
            if bad:
                raise kinfo_lib.KernelInfoError("; ".join(bad))
            kent = {k: ki[k] for k in ("kernel", "grid", "block", "shared_bytes", "params",
                                       "param_types")}
            for key in self.KERNEL_KEYS:
                if key in ki:
                    kent[key] = ki[key]
            ent["kernel"] = kent
            t0 = time.time()
            module = self.rt.load_ptx(ptx)
            ent["jit_seconds"] = round(time.time() - t0, 3)
            # The runtime's loader keeps the JIT's error log (in a failure's
            # message), not its info log.
            ent["jit_log"] = ""
            entry = self._entry_to_launch(ki, ctx, ptx, p["ptx"])
            if entry != ki["kernel"]:
                kent["launched_kernel"] = entry
            fn = self.rt.get_function(module, entry)
            self._configure(fn, ki, kent)
            launches = self._launches(p, ki, module, fn, ctx, stream)
            kent["args_copy0"] = [(nm, t, v if t != "ptr" else hex(v))
                                  for nm, t, v in launches[0].args]
            ok = self._check_stc(ent, kent, launches, ctx, stream)
            if ok is None:
                return ent  # a hang
            # ---- timing: a right result (and, where TIME_WRONG_RESULTS, a
            # wrong one without NaN outputs) ---------------------------------------
            if ok or (self.TIME_WRONG_RESULTS and ent["nan_outputs"] == 0):
                copies = len(launches)
                ent.update(self.time_method(lambda i: launches[i % copies](stream), budget_s,
                                            t_first_ms=ent["first_launch_ms"]))
                self.rt.synchronize("kernel execution (timed runs)")
            self.say("  %s: %s" % (label, self.line(ent, ctx["flop"],
                                                     ctx.get("unit", "TFLOP/s"))))
        except Exception as e:  # noqa: BLE001
            ent.update(status="failed", error="%s: %s" % (type(e).__name__, e))
            self.say("  %s: FAILED: %s" % (label, first_lines(ent["error"], 8)))
            if not self.context_ok():
                ent["context_lost"] = True
                ent["error"] += ("\n(the CUDA context is unusable after this error: the "
                                 "worker exits and the parent restarts it with the next "
                                 "program)")
        finally:
            if not ent.get("context_lost") and not ent.get("hang"):
                for maps in self._tensor_maps:
                    try:
                        maps.free()
                    except Exception:  # noqa: BLE001
                        pass
                if module is not None:
                    try:
                        self.rt.unload(module)
                    except Exception:  # noqa: BLE001
                        pass
            self._tensor_maps = []
        return ent

    def _configure(self, fn, ki, kent):
        """Records the function's attributes (FUNC_ATTRS), checks the block
        and the shared memory against them and the device, opts in to more
        than 48 KiB of shared memory, and records the occupancy
        (launch.configure)."""
        static = next(key for key, attr in self.FUNC_ATTRS
                      if attr == stcrt.FUNC_STATIC_SHARED_BYTES)
        launch_lib.configure(self.rt, fn, ki, kent, self.FUNC_ATTRS, static_key=static)

    def _entry_to_launch(self, ki, ctx, ptx, where):
        """The kernel's entry, or its fallback_kernel where copy 0's dense
        operand or values rows are not aligned for the staged kernel
        (kernel_info.kernel_to_launch; the PTX must have it too)."""
        if not ki.get("fallback_kernel"):
            return ki["kernel"]
        _, named = self.stc_operands(0, ki, ctx)
        dense = named.get("dense", named.get("input"))
        entry = kinfo_lib.kernel_to_launch(ki, tuple(dense.shape)[1],
                                           tuple(named["values"].shape)[1])
        if entry != ki["kernel"]:
            kinfo_lib.check_ptx_against_info(ptx, dict(ki, kernel=entry), where=where)
        return entry

    def _launches(self, p, ki, module, fn, ctx, stream):
        """One launch per input copy (stc_operands, kernel_args), the
        metadata converted for the kernel where it wants that; under
        --simulate the stand-in (sim_launch) with a planted bug when
        --simulate-bug names this program."""
        torch = self.torch
        launches = []
        self._meta_words = []
        bug = next((kind for kind, meth, pat in self.sim_bug
                    if meth in (None, self._method) and pat.search(p["name"])), None)
        for c in range(len(ctx["out"])):
            sizes, named = self.stc_operands(c, ki, ctx)
            bufs = {name: t.data_ptr() for name, t in named.items()}
            if not self.sim and ki.get("meta_layout", "canonical") == "canonical":
                # The kernel reads kernel-ready metadata: convert the
                # canonical copy once with the kernel's own conversion
                # kernel (stc's host code does the same), outside timing.
                # (The CPU simulation reads canonical metadata itself.)
                meta = named["meta"]
                words = torch.empty(max(kinfo_lib.metadata_words(ki), 128),
                                    dtype=torch.int32, device="cuda")
                self._meta_words.append(words)
                launch_lib.metadata_conversion(self.rt, module, ki, meta.data_ptr(),
                                          words.data_ptr(), meta.shape[1])(stream)
                bufs["meta"] = words.data_ptr()
            if ki.get("tensor_maps"):
                # sm_90a kernels read operands through TMA: one tensor map
                # per (operand, input copy), encoded and copied to the
                # device before timing (as stc's host code does once).
                ops = {op: (named[role].data_ptr(), tuple(named[role].shape),
                            _type_name(named[role]))
                       for op, role in self.TENSOR_MAP_ROLES.items() if role in named}
                if "meta" in bufs:
                    # The kernel-ready words (the canonical copy when
                    # simulated): a map over them has its own view.
                    ops["meta"] = (bufs["meta"], None, None)
                maps = launch_lib.DeviceTensorMaps(self.rt,
                                                   kinfo_lib.tensor_map_requests(ki, ops))
                self._tensor_maps.append(maps)
                bufs.update(maps.pointers)
            args = self.kernel_args(ki, bufs, sizes)
            if self.sim:
                tensors = {t.data_ptr(): t for t in named.values()}
                launches.append(self.sim_launch(args, tensors, bug, ki))
            else:
                launches.append(launch_lib.Launch(self.rt, fn, ki, args))
        return launches

    def _check_stc(self, ent, kent, launches, ctx, stream):
        """Poisons copy 0's output, runs once, compares with the float64
        reference, runs again for determinism. Returns whether the result
        is right, or None after a hang (ent says so)."""
        torch = self.torch
        out, ref = ctx["out"], ctx["ref"]
        self.poison(out[0])
        self.sync()
        e0, e1 = self.event(), self.event()
        e0.record()
        launches[0](stream)
        e1.record()
        if not self.wait("check launch"):
            ent.update(status="failed", hang=True,
                       error="the first launch did not finish within %d s (hang?); the "
                             "worker exits and the parent goes on with the next program"
                             % CHECK_TIMEOUT_S)
            return None
        self.rt.synchronize("kernel execution (cuCtxSynchronize after the first launch)")
        t_first = e0.elapsed_time(e1)
        ent["first_launch_ms"] = t_first
        ok = self.judge(ent, out[0], ref)
        if not ok:
            ent["diagnosis"] = self.diagnose(out[0], ref, ctx)
        first = out[0].clone()
        self.poison(out[0])
        launches[0](stream)
        if not self.wait("second launch"):
            ent.update(status="failed", hang=True,
                       error="the second launch did not finish within %d s" % CHECK_TIMEOUT_S)
            return None
        self.rt.synchronize("kernel execution (second launch)")
        ent["deterministic"] = bool(torch.equal(first, out[0]))
        del first
        if ok and not ent["deterministic"]:
            ok = False
            ent["error"] = "two runs on the same inputs gave different results (a race?)"
        ent["status"] = "ok" if ok else "wrong"
        if not ok and "error" not in ent:
            ent["error"] = self.wrong_text(ent)
        self.say("  STC check: %s (first launch %.3f ms, jit %.2f s, %d regs, %d blocks/SM)"
                 % ("ok" if ok else "WRONG: " + ent["error"], t_first,
                    ent["jit_seconds"], kent["registers"], kent["blocks_per_sm"]))
        return ok

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
                         max(0.05, (self.deadline - now) * 0.5 / (left * self.BUDGET_SHARES)))
            self.emit({"type": "start", "index": idx, "name": p["name"], "utc": utc_now()})
            self._index = idx
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
            ms = list(res.get("methods", {}).values())
            if res.get("context_lost") or any(m.get("context_lost") for m in ms):
                return EXIT_CONTEXT_LOST
            if any(m.get("hang") for m in ms):
                os._exit(EXIT_HANG)  # do not wait for the stuck kernel at teardown
            if not self.sim and self.torch is not None:
                self.torch.cuda.empty_cache()
        return 0


def _type_name(t):
    """The benchmark's name of a torch tensor's element type (f16, ...)."""
    return {"float16": "f16", "bfloat16": "bf16", "float32": "f32", "int8": "i8",
            "int32": "i32"}.get(
        str(t.dtype).replace("torch.", ""))


def worker_main(argv, worker_class, max_copies, add_args=None):
    """The worker process: `<benchmark>.py worker ...` (started by
    parent_main). max_copies: the default of --max-copies; add_args(ap,
    "worker"): a benchmark's own worker options (RunSpec.add_args);
    worker_class(args) makes the worker (a class, or a function that picks
    one by the options)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--manifest", required=True)
    ap.add_argument("--jsonl", required=True)
    ap.add_argument("--indices", required=True)
    ap.add_argument("--deadline", type=float, required=True)
    ap.add_argument("--max-method-s", type=float, default=0.5)
    ap.add_argument("--max-repeats", type=int, default=200)
    ap.add_argument("--max-copies", type=int, default=max_copies)
    ap.add_argument("--format-check", action="store_true")
    ap.add_argument("--position0", type=int, default=0)
    ap.add_argument("--total", type=int, default=0)
    ap.add_argument("--simulate", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--simulate-bug", action="append", help=argparse.SUPPRESS)
    if add_args:
        add_args(ap, "worker")
    args = ap.parse_args(argv)
    return worker_class(args).main()


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


class RunSpec:
    """What tells one benchmark's run step from the other's (parent_main).

    script: the benchmark's file (the worker runs `script worker ...`);
    step: the run_gpu_bench.sh subcommand, build_step its build; work: the
    build directory that travels (relative to the repository); run_dir:
    where the worker's .jsonl goes without --copy-to (beside work); prefix:
    of the results' file names; schema: the manifest's, or None to accept
    any (schema_hint: said after a mismatch); mock_source: the mock
    kernel's file; time_budget: the default --time-budget; assemble,
    markdown, compact: report.py's functions; runnable(program): whether a
    manifest program has a kernel to run (default: its status is "ok"), the
    others are recorded as build_failed without starting a worker.
    Optional, for a benchmark with options of its own (tune_bench.py):
    add_args(ap, role): adds them to the parent's ("parent") and the
    worker's ("worker") parser; worker_args(args): the parent's options
    passed on to the worker; finish(doc, out_base, args, say): called
    after the results are written (out_base: their path without .json),
    returns an exit status that replaces a 0 (or None)."""

    def __init__(self, script, step, build_step, work, run_dir, prefix, mock_source,
                 time_budget, assemble, markdown, compact, schema=None, schema_hint="",
                 runnable=None, add_args=None, worker_args=None, finish=None):
        self.add_args, self.worker_args, self.finish = add_args, worker_args, finish
        self.runnable = runnable or (lambda p: p.get("status") == "ok")
        self.script, self.step, self.build_step = script, step, build_step
        self.work, self.run_dir, self.prefix = work, run_dir, prefix
        self.schema, self.schema_hint = schema, schema_hint
        self.mock_source, self.time_budget = mock_source, time_budget
        self.assemble, self.markdown, self.compact = assemble, markdown, compact


#: The dtypes a run times first (--order dtype): the headline first.
DTYPE_ORDER = ("f16", "bf16")


def run_order(indices, programs, order):
    """The order the run step times `indices` (of `programs`, the
    manifest's) in: "manifest", as listed; "dtype", every f16 program, then
    every bf16 one, then the rest, each in the manifest's order, so that a
    run its time budget cuts short has measured the whole table in f16 (an
    H200 session's 100 s reached 31 of 90 programs in manifest order:
    square, LLM attention and half the LLM up-projections, none of BERT).
    The results are in the manifest's order either way."""
    if order == "manifest":
        return list(indices)
    if order != "dtype":
        raise ValueError("unknown run order %r (manifest or dtype)" % order)

    def rank(i):
        dtype = programs[i].get("dtype")
        return DTYPE_ORDER.index(dtype) if dtype in DTYPE_ORDER else len(DTYPE_ORDER)
    return sorted(indices, key=rank)  # stable: the manifest's order within


def parent_main(argv, spec):
    """The run step: runs the manifest's programs in worker processes,
    restarting the worker after a program that killed it, and writes the
    results (spec: a RunSpec). Exit status 0 all ok, 1 not, 2 setup."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--manifest", required=True)
    ap.add_argument("--results-dir", default=os.path.join(ROOT, "bench", "results"))
    ap.add_argument("--copy-to", default=None)
    ap.add_argument("--time-budget", type=float, default=spec.time_budget,
                    help="seconds for the whole run; programs not started by then are skipped")
    ap.add_argument("--stall", type=float, default=150.0)
    ap.add_argument("--max-method-s", type=float, default=0.5)
    ap.add_argument("--max-repeats", type=int, default=200)
    ap.add_argument("--max-restarts", type=int, default=6)
    ap.add_argument("--only", default=None)
    ap.add_argument("--order", choices=["dtype", "manifest"], default="dtype",
                    help="dtype (default): every f16 program first, then bf16, then the "
                         "rest, so that a run cut short by its budget covers the table in "
                         "f16; manifest: as listed")
    # Tests only (test/Bench/worker-sim.test): run the worker on the CPU with a
    # stand-in kernel; KIND@REGEX plants a fault in the matching programs.
    ap.add_argument("--simulate", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--simulate-bug", action="append", default=[], help=argparse.SUPPRESS)
    if spec.add_args:
        spec.add_args(ap, "parent")
    args = ap.parse_args(argv)
    t_start = time.time()
    stamp = utc_now()

    def say(msg):
        print("[run_gpu_bench %s] %s" % (spec.step, msg), flush=True)

    if not os.path.isfile(args.manifest):
        say("no %s: run `bench/run_gpu_bench.sh %s` on the build machine and carry "
            "%s to this one (run tool: carry=[\"%s\"])"
            % (args.manifest, spec.build_step, spec.work, spec.work))
        return 2
    try:
        with open(args.manifest) as f:
            manifest = json.load(f)
        programs = manifest["programs"]
        if spec.schema and manifest.get("schema") != spec.schema:
            raise KeyError("schema is %r, not %s%s"
                           % (manifest.get("schema"), spec.schema, spec.schema_hint))
    except (ValueError, KeyError, OSError) as e:
        say("cannot read %s: %s" % (args.manifest, e))
        return 2
    if args.copy_to:
        os.makedirs(args.copy_to, exist_ok=True)
    os.makedirs(args.results_dir, exist_ok=True)
    base = "%s-%s%s-%s" % (spec.prefix, "mock-" if manifest.get("mock") else "", stamp,
                           manifest.get("commit_short", "unknown"))
    jsonl = os.path.join(args.copy_to or os.path.join(os.path.dirname(args.manifest), "..",
                                                      spec.run_dir), base + ".jsonl")
    os.makedirs(os.path.dirname(jsonl), exist_ok=True)
    open(jsonl, "a").close()  # the worker appends its records here
    selected = [i for i, p in enumerate(programs)
                if not args.only or re.search(args.only, p["name"])]
    if not selected:
        say("no program matches --only %r" % args.only)
        return 2
    if manifest.get("mock"):
        say("MOCK kernels (%s, plain CUDA C): this run tests the harness; its 'STC' rows "
            "are not STC" % spec.mock_source)
    smi_start = nvidia_smi()
    say("%d programs from %s (built %s at %s%s); time budget %.0f s"
        % (len(selected), args.manifest, manifest.get("utc"), manifest.get("commit_short"),
           ", dirty tree" if manifest.get("dirty") else "", args.time_budget))
    pre = []  # records the parent writes itself
    todo = []
    for i in selected:
        p = programs[i]
        if not spec.runnable(p):
            pre.append({"type": "result", "index": i, "name": p["name"],
                        "build_failed": p.get("error") or "not built"})
        else:
            todo.append(i)
    todo = run_order(todo, programs, args.order)
    deadline = t_start + args.time_budget
    hard = deadline + 60.0
    restarts = []
    first = True
    total = len(todo)

    def not_run(indices, why):
        for i in indices:
            pre.append({"type": "result", "index": i, "name": programs[i]["name"],
                        "not_run": why})

    while todo:
        n_before = len(read_jsonl(jsonl))
        cmd = [sys.executable, "-u", os.path.abspath(spec.script), "worker",
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
        if spec.worker_args:
            cmd += spec.worker_args(args)
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
        else:
            last = next((ln.strip() for ln in reversed(lines) if ln.strip()), "no output")
            if crashed is None:
                # It died before starting a program: setup failed; do not loop.
                msg = ("worker failed before running any program (%s): %s\n%s"
                       % (why, fatal[-1]["error"] if fatal else last, "\n".join(lines[-15:])))
                say(msg)
                not_run(remaining, msg)
                break
            # The STC kernel it was running (the last it started in this
            # program), which the report marks failed.
            meth = next((r["method"] for r in reversed(new) if r.get("type") == "method_start"
                         and r.get("index") == crashed), "stc")
            pre.append({"type": "result", "index": crashed, "name": programs[crashed]["name"],
                        "method": meth,
                        "worker_died": "the worker died while running this program (%s, in "
                                       "%s); last output line: %s\nlast output:\n%s"
                                       % (why, meth, last, "\n".join(lines[-15:]))})
            restarts.append({"after": programs[crashed]["name"], "why": why})
            todo = [i for i in remaining if i != crashed]
        if time.time() > hard or len(restarts) > args.max_restarts:
            not_run(todo, "too many worker restarts or past the deadline")
            break
    smi_end = nvidia_smi()
    recs = read_jsonl(jsonl) + pre
    doc = spec.assemble(manifest, recs, programs, selected, {
        "utc": stamp, "time_budget_s": args.time_budget, "stall_s": args.stall,
        "max_method_s": args.max_method_s, "max_repeats": args.max_repeats,
        "tolerance": TOLERANCE, "wall_seconds": round(time.time() - t_start, 1),
        "nvidia_smi_start": smi_start, "nvidia_smi_end": smi_end,
        "worker_restarts": restarts, "only": args.only})
    import report
    doc = report.finite_json(doc)
    md = spec.markdown(doc)
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
    print(spec.compact(doc))
    say("wrote %s.json and .md%s" % (out_base, (" (copies in %s)" % args.copy_to)
                                      if args.copy_to else ""))
    st = doc["summary"]
    rc = 0
    if not st["ok"]:
        say("NOT all ok: %s" % json.dumps({k: v for k, v in st.items() if k != "ok"}))
        rc = 1
    if spec.finish:
        rc = spec.finish(doc, out_base, args, say) or rc
    return rc


def main(spec, worker_class, max_copies):
    """A benchmark script's command line: `run ...` (the parent) or
    `worker ...` (started by the parent)."""
    if len(sys.argv) > 1 and sys.argv[1] == "worker":
        return worker_main(sys.argv[2:], worker_class, max_copies, spec.add_args)
    if len(sys.argv) > 1 and sys.argv[1] == "run":
        return parent_main(sys.argv[2:], spec)
    print("usage: %s run --manifest FILE [...] (see the module docstring)"
          % os.path.basename(spec.script), file=sys.stderr)
    return 2
