"""The CUDA driver API through ctypes, PTX entry parsing and kernel-info
validation for the GPU GEMM benchmark.

Needs no torch and no CUDA toolkit: the parsing and validation functions are
pure Python (checked by `run_gpu_bench.sh selftest` on a machine without a
GPU); `Driver` opens libcuda.so.1 only when constructed. Every failure raises
an exception whose message says which call or which field failed and why.
"""

import ctypes
import json
import re

# ---------------------------------------------------------------------------
# Kernel info (stc-compile --kernel-info=FILE)
# ---------------------------------------------------------------------------

#: Parameter types the launcher knows, and their size in the PTX parameter
#: list (bytes).
PARAM_TYPES = {"ptr": 8, "i32": 4, "i64": 8}

#: Parameter names the launcher knows. Buffers: what each pointer parameter
#: must point to. Integers: which size each one carries, as named in the
#: `sizes` of kernel_arg_values: A is the sparse M x K operand (R x K in
#: stc-compile's names, passes/GpuKernelInfo.h), given compressed as values
#: M x VC and metadata M x MC (VC = K/2 and MC = K/16 for K a multiple of
#: 16: the row strides); the dense operand is K x N (K x P).
BUFFER_PARAMS = {
    "values": "values", "meta": "meta", "metadata": "meta",
    "dense": "dense", "out": "out", "output": "out", "result": "out",
}
SIZE_PARAMS = {"R": "M", "M": "M", "P": "N", "N": "N", "K": "K",
               "value_cols": "VC", "meta_cols": "MC"}


class KernelInfoError(ValueError):
    """A kernel-info JSON that the launcher cannot use."""


def _int_triple(obj, key, where):
    v = obj.get(key)
    if (not isinstance(v, list) or len(v) != 3
            or not all(isinstance(x, int) and not isinstance(x, bool) and x >= 1
                       for x in v)):
        raise KernelInfoError(
            "%s: \"%s\" must be a list of three positive integers, got %r%s"
            % (where, key, v,
               " (no static grid: the benchmark needs static shapes)"
               if key == "grid" else ""))
    return v


def parse_kernel_info(text, where="kernel-info"):
    """Parses and validates the kernel-info JSON text; returns the list of
    kernel dicts with keys kernel, block, grid, shared_bytes, params,
    param_types (and whatever else the file had, untouched)."""
    try:
        doc = json.loads(text)
    except ValueError as e:
        raise KernelInfoError("%s: not valid JSON: %s" % (where, e))
    if not isinstance(doc, list):
        raise KernelInfoError("%s: expected a JSON array of kernel objects, got %s"
                              % (where, type(doc).__name__))
    out = []
    for n, k in enumerate(doc):
        w = "%s: kernel #%d" % (where, n)
        if not isinstance(k, dict):
            raise KernelInfoError("%s: expected an object, got %r" % (w, k))
        name = k.get("kernel")
        if not isinstance(name, str) or not name:
            raise KernelInfoError("%s: \"kernel\" (the PTX .entry name) is "
                                  "missing or not a string: %r" % (w, name))
        w = "%s (%s)" % (w, name)
        _int_triple(k, "block", w)
        _int_triple(k, "grid", w)
        threads = k["block"][0] * k["block"][1] * k["block"][2]
        if threads > 1024:
            raise KernelInfoError("%s: block %r has %d threads (> 1024)"
                                  % (w, k["block"], threads))
        sb = k.get("shared_bytes", None)
        if not isinstance(sb, int) or isinstance(sb, bool) or sb < 0:
            raise KernelInfoError("%s: \"shared_bytes\" must be a non-negative "
                                  "integer, got %r" % (w, sb))
        params, types = k.get("params"), k.get("param_types")
        if not isinstance(params, list) or not all(isinstance(p, str) for p in params):
            raise KernelInfoError("%s: \"params\" must be a list of names, got %r"
                                  % (w, params))
        if not isinstance(types, list) or len(types) != len(params):
            raise KernelInfoError(
                "%s: \"param_types\" must be a list of %d types (one per "
                "param %r), got %r" % (w, len(params), params, types))
        for p, t in zip(params, types):
            if t not in PARAM_TYPES:
                raise KernelInfoError(
                    "%s: parameter %r has type %r; the launcher knows %s"
                    % (w, p, t, sorted(PARAM_TYPES)))
            if t == "ptr" and p not in BUFFER_PARAMS:
                raise KernelInfoError(
                    "%s: unknown pointer parameter %r; the launcher knows %s "
                    "(bench/gpu/cudrv.py BUFFER_PARAMS)" % (w, p, sorted(BUFFER_PARAMS)))
            if t != "ptr" and p not in SIZE_PARAMS:
                raise KernelInfoError(
                    "%s: unknown integer parameter %r; the launcher knows %s "
                    "(bench/gpu/cudrv.py SIZE_PARAMS)" % (w, p, sorted(SIZE_PARAMS)))
        roles = [BUFFER_PARAMS[p] for p, t in zip(params, types) if t == "ptr"]
        for need in ("values", "meta", "dense", "out"):
            if roles.count(need) != 1:
                raise KernelInfoError(
                    "%s: expected exactly one pointer parameter for %r, found "
                    "%d in %r" % (w, need, roles.count(need), params))
        out.append(k)
    return out


def kernel_arg_values(kinfo, buffers, sizes):
    """Returns [(name, type, value)] for the kernel's parameters in order:
    `buffers` maps a role (values/meta/dense/out) to a device address,
    `sizes` maps M/N/K/VC/MC (see SIZE_PARAMS) to integers."""
    args = []
    for p, t in zip(kinfo["params"], kinfo["param_types"]):
        if t == "ptr":
            v = buffers[BUFFER_PARAMS[p]]
        else:
            v = sizes[SIZE_PARAMS[p]]
            lim = 2 ** 31 - 1 if t == "i32" else 2 ** 63 - 1
            if not 0 <= v <= lim:
                raise KernelInfoError("parameter %s=%d does not fit %s" % (p, v, t))
        args.append((p, t, v))
    return args


def check_problem(kinfo, m, n, k, dtype=None, out_dtype=None):
    """Compares what the kernel info says about the problem with the
    benchmark's: sizes R/M, P/N, K (top level, as stc-compile writes them,
    or in a "problem" object; -1 means dynamic and is not compared),
    input_type / output_type, sparse ("lhs") and dense_transposed (false).
    Returns a list of mismatch messages (empty when consistent)."""
    want = {"M": m, "N": n, "K": k}
    bad = []
    prob = kinfo.get("problem") if isinstance(kinfo.get("problem"), dict) else {}
    for where, d in (("", kinfo), ("problem.", prob)):
        for key, v in d.items():
            if (SIZE_PARAMS.get(key) in want and isinstance(v, int)
                    and not isinstance(v, bool) and v >= 0
                    and v != want[SIZE_PARAMS[key]]):
                bad.append("kernel info %s%s=%d but the benchmark's %s=%d"
                           % (where, key, v, SIZE_PARAMS[key], want[SIZE_PARAMS[key]]))
    for key, expect in (("input_type", dtype), ("output_type", out_dtype)):
        if expect is not None and key in kinfo and kinfo[key] != expect:
            bad.append("kernel info %s=%r but the program's is %r" % (key, kinfo[key], expect))
    if kinfo.get("sparse", "lhs") != "lhs":
        bad.append("kernel info sparse=%r; the benchmark's A is the sparse lhs"
                   % kinfo.get("sparse"))
    if kinfo.get("dense_transposed", False) is not False:
        bad.append("kernel info dense_transposed=%r; the benchmark's B is K x N "
                   "row-major" % kinfo.get("dense_transposed"))
    return bad


# ---------------------------------------------------------------------------
# PTX
# ---------------------------------------------------------------------------

_PTX_SIZES = {"u64": 8, "s64": 8, "b64": 8, "f64": 8, "u32": 4, "s32": 4,
              "b32": 4, "f32": 4, "u16": 2, "s16": 2, "b16": 2, "f16": 2,
              "u8": 1, "s8": 1, "b8": 1}


def ptx_entries(ptx):
    """Returns {entry name: [(param name, size in bytes, type text)]} for
    every `.entry` of the PTX text."""
    entries = {}
    for m in re.finditer(r"\.entry\s+([A-Za-z_$%][\w$]*)\s*\((.*?)\)", ptx,
                         re.S):
        params = []
        body = re.sub(r"//[^\n]*", "", m.group(2))
        for decl in [d.strip() for d in body.split(",") if d.strip()]:
            toks = decl.split()
            if not toks or toks[0] != ".param":
                raise ValueError("PTX entry %s: cannot parse parameter %r"
                                 % (m.group(1), decl))
            name = toks[-1]
            arr = re.match(r"(.*)\[(\d+)\]$", name)
            types = [t[1:] for t in toks[1:-1] if t[1:] in _PTX_SIZES]
            if not types:
                raise ValueError("PTX entry %s: no type in parameter %r"
                                 % (m.group(1), decl))
            size = _PTX_SIZES[types[0]]
            if arr:
                name, size = arr.group(1), size * int(arr.group(2))
            params.append((name, size, types[0]))
        entries[m.group(1)] = params
    return entries


def ptx_header(ptx):
    """(.version, .target) of the PTX text, None where absent."""
    v = re.search(r"^\s*\.version\s+(\S+)", ptx, re.M)
    t = re.search(r"^\s*\.target\s+([^\n/]+)", ptx, re.M)
    return (v.group(1) if v else None, t.group(1).strip() if t else None)


def check_ptx_against_info(ptx, kinfo, where="PTX"):
    """Raises KernelInfoError unless the PTX has the kernel's .entry with as
    many parameters as the kernel info and matching sizes."""
    entries = ptx_entries(ptx)
    name = kinfo["kernel"]
    if name not in entries:
        raise KernelInfoError("%s has no .entry %r (entries: %s)"
                              % (where, name, sorted(entries) or "none"))
    got = entries[name]
    want = kinfo["params"]
    if len(got) != len(want):
        raise KernelInfoError(
            "%s: .entry %s has %d parameters (%s) but the kernel info lists %d "
            "(%s)" % (where, name, len(got),
                      ", ".join("%s:%s" % (n, t) for n, _, t in got),
                      len(want), ", ".join(want)))
    for i, ((pn, size, ptype), p, t) in enumerate(zip(got, want, kinfo["param_types"])):
        if size != PARAM_TYPES[t]:
            raise KernelInfoError(
                "%s: .entry %s parameter %d (%s, .%s, %d bytes) does not match "
                "kernel-info %s:%s (%d bytes)" % (where, name, i, pn, ptype,
                                                  size, p, t, PARAM_TYPES[t]))


# ---------------------------------------------------------------------------
# Driver API
# ---------------------------------------------------------------------------

CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0
CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1
CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3
CU_FUNC_ATTRIBUTE_NUM_REGS = 4
CU_FUNC_ATTRIBUTE_PTX_VERSION = 5
CU_FUNC_ATTRIBUTE_BINARY_VERSION = 6
CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8
CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16
CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75
CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76
CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97
CU_JIT_INFO_LOG_BUFFER = 3
CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4
CU_JIT_ERROR_LOG_BUFFER = 5
CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6
CU_JIT_LOG_VERBOSE = 12


class CudaError(RuntimeError):
    """A CUDA driver call that returned an error."""

    def __init__(self, msg, code):
        RuntimeError.__init__(self, msg)
        self.code = code


class Driver:
    """The few driver calls the benchmark needs, on the context that torch
    made current (torch must have initialised CUDA before this is used)."""

    def __init__(self, path="libcuda.so.1"):
        try:
            self.lib = ctypes.CDLL(path)
        except OSError as e:
            raise CudaError("cannot open %s: %s" % (path, e), -1)
        L = self.lib
        c_int, c_uint, vp = ctypes.c_int, ctypes.c_uint, ctypes.c_void_p
        sig = {
            "cuGetErrorName": (c_int, [c_int, ctypes.POINTER(ctypes.c_char_p)]),
            "cuGetErrorString": (c_int, [c_int, ctypes.POINTER(ctypes.c_char_p)]),
            "cuInit": (c_int, [c_uint]),
            "cuDriverGetVersion": (c_int, [ctypes.POINTER(c_int)]),
            "cuCtxGetCurrent": (c_int, [ctypes.POINTER(vp)]),
            "cuCtxGetDevice": (c_int, [ctypes.POINTER(c_int)]),
            "cuCtxSynchronize": (c_int, []),
            "cuDeviceGetAttribute": (c_int, [ctypes.POINTER(c_int), c_int, c_int]),
            "cuModuleLoadDataEx": (c_int, [ctypes.POINTER(vp), vp, c_uint,
                                           ctypes.POINTER(c_int), ctypes.POINTER(vp)]),
            "cuModuleUnload": (c_int, [vp]),
            "cuModuleGetFunction": (c_int, [ctypes.POINTER(vp), vp, ctypes.c_char_p]),
            "cuFuncGetAttribute": (c_int, [ctypes.POINTER(c_int), c_int, vp]),
            "cuFuncSetAttribute": (c_int, [vp, c_int, c_int]),
            "cuOccupancyMaxActiveBlocksPerMultiprocessor":
                (c_int, [ctypes.POINTER(c_int), vp, c_int, ctypes.c_size_t]),
            "cuLaunchKernel": (c_int, [vp, c_uint, c_uint, c_uint, c_uint, c_uint,
                                       c_uint, c_uint, vp, ctypes.POINTER(vp),
                                       ctypes.POINTER(vp)]),
        }
        for name, (res, args) in sig.items():
            try:
                fn = getattr(L, name)
            except AttributeError:
                raise CudaError("%s has no symbol %s" % (path, name), -1)
            fn.restype, fn.argtypes = res, args

    # -- errors ---------------------------------------------------------------
    def describe(self, code):
        name, text = ctypes.c_char_p(), ctypes.c_char_p()
        n = self.lib.cuGetErrorName(code, ctypes.byref(name))
        s = self.lib.cuGetErrorString(code, ctypes.byref(text))
        name = name.value.decode() if n == 0 and name.value else "CUDA_ERROR_%d" % code
        text = text.value.decode() if s == 0 and text.value else "unknown error"
        return "%s (%d): %s" % (name, code, text)

    def check(self, code, what):
        if code != 0:
            raise CudaError("%s failed: %s" % (what, self.describe(code)), code)

    # -- context and device ---------------------------------------------------
    def init(self):
        self.check(self.lib.cuInit(0), "cuInit")
        ctx = ctypes.c_void_p()
        self.check(self.lib.cuCtxGetCurrent(ctypes.byref(ctx)), "cuCtxGetCurrent")
        if not ctx.value:
            raise CudaError("no current CUDA context on this thread: torch must "
                            "initialise CUDA (allocate a CUDA tensor) first", -1)
        dev = ctypes.c_int()
        self.check(self.lib.cuCtxGetDevice(ctypes.byref(dev)), "cuCtxGetDevice")
        self.device = dev.value
        return ctx.value

    def driver_version(self):
        v = ctypes.c_int()
        self.check(self.lib.cuDriverGetVersion(ctypes.byref(v)), "cuDriverGetVersion")
        return v.value

    def device_attribute(self, attr):
        v = ctypes.c_int()
        self.check(self.lib.cuDeviceGetAttribute(ctypes.byref(v), attr, self.device),
                   "cuDeviceGetAttribute(%d)" % attr)
        return v.value

    def synchronize(self, what="cuCtxSynchronize"):
        self.check(self.lib.cuCtxSynchronize(), what)

    # -- modules --------------------------------------------------------------
    def load_ptx(self, ptx_text, where="PTX"):
        """JIT-loads NUL-terminated PTX; returns (module, info log). A failure
        raises CudaError with the driver's JIT error log."""
        size = 1 << 16
        err = ctypes.create_string_buffer(size)
        info = ctypes.create_string_buffer(size)
        opts = (ctypes.c_int * 5)(CU_JIT_ERROR_LOG_BUFFER,
                                  CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                                  CU_JIT_INFO_LOG_BUFFER,
                                  CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
                                  CU_JIT_LOG_VERBOSE)
        vals = (ctypes.c_void_p * 5)(ctypes.cast(err, ctypes.c_void_p).value,
                                     size,
                                     ctypes.cast(info, ctypes.c_void_p).value,
                                     size, 1)
        image = ctypes.create_string_buffer(ptx_text.encode())
        mod = ctypes.c_void_p()
        r = self.lib.cuModuleLoadDataEx(ctypes.byref(mod), image, 5, opts, vals)
        if r != 0:
            log = err.value.decode(errors="replace").strip()
            raise CudaError("cuModuleLoadDataEx(%s) failed: %s%s"
                            % (where, self.describe(r),
                               ("\nJIT error log:\n" + log) if log else
                               " (empty JIT error log)"), r)
        return mod.value, info.value.decode(errors="replace").strip()

    def unload(self, module):
        if module:
            self.check(self.lib.cuModuleUnload(ctypes.c_void_p(module)), "cuModuleUnload")

    def get_function(self, module, name):
        f = ctypes.c_void_p()
        self.check(self.lib.cuModuleGetFunction(ctypes.byref(f), ctypes.c_void_p(module),
                                                name.encode()),
                   "cuModuleGetFunction(%r)" % name)
        return f.value

    def func_attribute(self, f, attr):
        v = ctypes.c_int()
        self.check(self.lib.cuFuncGetAttribute(ctypes.byref(v), attr, ctypes.c_void_p(f)),
                   "cuFuncGetAttribute(%d)" % attr)
        return v.value

    def set_max_dynamic_shared(self, f, nbytes):
        self.check(self.lib.cuFuncSetAttribute(
            ctypes.c_void_p(f), CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, nbytes),
            "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES=%d)" % nbytes)

    def occupancy(self, f, threads, dyn_shared):
        v = ctypes.c_int()
        self.check(self.lib.cuOccupancyMaxActiveBlocksPerMultiprocessor(
            ctypes.byref(v), ctypes.c_void_p(f), threads, dyn_shared),
            "cuOccupancyMaxActiveBlocksPerMultiprocessor")
        return v.value


def metadata_words(kinfo):
    """Size in 32-bit words of the kernel-ready metadata the kernel of
    `kinfo` reads (docs/GPU-LAYOUT.md): groups x ceil(R / 32) row blocks x
    ceil(steps / 4) vectors x 128, steps = ceil(K / mma K)."""
    rows, depth = int(kinfo["R"]), int(kinfo["K"])
    if rows < 0 or depth < 0:
        raise KernelInfoError("%s: dynamic R or K; the benchmark needs static "
                              "shapes" % kinfo["kernel"])
    mma_k = 16 if kinfo.get("mma") == "m16n8k16" else 32
    steps = -(-depth // mma_k)
    return int(kinfo.get("groups", 1)) * -(-rows // 32) * -(-steps // 4) * 128


def metadata_conversion(drv, module, kinfo, meta_ptr, words_ptr, meta_cols):
    """The launch of the kernel's generated metadata conversion kernel
    (kinfo["meta_kernel"], present when kinfo["meta_layout"] is
    "canonical"): canonical metadata at `meta_ptr` (R x meta_cols uint16 per
    group, groups one after the other) to kernel-ready words at `words_ptr`
    (metadata_words(kinfo) of them), what stc's own host code does before
    the product. Returns None when the metadata is compiled in."""
    if kinfo.get("meta_layout", "canonical") != "canonical":
        return None
    if "meta_kernel" not in kinfo:
        raise KernelInfoError("%s: canonical metadata but no meta_kernel"
                              % kinfo["kernel"])
    total = metadata_words(kinfo)
    rows, depth = int(kinfo["R"]), int(kinfo["K"])
    mma_k = 16 if kinfo.get("mma") == "m16n8k16" else 32
    steps = -(-depth // mma_k)
    fn = drv.get_function(module, kinfo["meta_kernel"])
    config = {"grid": [max(1, -(-total // 256)), 1, 1], "block": [256, 1, 1],
              "shared_bytes": 0}
    args = [("meta", "ptr", meta_ptr), ("words", "ptr", words_ptr),
            ("R", "i32", rows), ("meta_cols", "i32", meta_cols),
            ("row_blocks", "i32", -(-rows // 32)),
            ("vectors", "i32", -(-steps // 4)), ("total", "i32", total)]
    return Launch(drv, fn, config, args)


class Launch:
    """A prepared launch: the function, its configuration and the packed
    parameter array (built once; cuLaunchKernel copies the values)."""

    def __init__(self, drv, func, kinfo, args):
        self.drv, self.func = drv, func
        self.grid = [int(x) for x in kinfo["grid"]]
        self.block = [int(x) for x in kinfo["block"]]
        self.shared = int(kinfo["shared_bytes"])
        ctor = {"ptr": ctypes.c_uint64, "i32": ctypes.c_int32, "i64": ctypes.c_int64}
        self._vals = [ctor[t](v) for _, t, v in args]
        self._ptrs = (ctypes.c_void_p * max(1, len(self._vals)))(
            *[ctypes.addressof(v) for v in self._vals])
        self.args = args

    def __call__(self, stream):
        g, b = self.grid, self.block
        r = self.drv.lib.cuLaunchKernel(
            ctypes.c_void_p(self.func), g[0], g[1], g[2], b[0], b[1], b[2],
            self.shared, ctypes.c_void_p(stream), self._ptrs, None)
        if r != 0:
            raise CudaError("cuLaunchKernel(grid=%s, block=%s, shared=%d) failed: %s"
                            % (g, b, self.shared, self.drv.describe(r)), r)
