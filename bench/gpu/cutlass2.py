"""The "cutlass2" baseline of the GPU GEMM benchmark: CUTLASS 2.x's Ampere
2:4 sparse GEMM (SparseGemm, Sm80 kernels) built for sm_90 by
`run_gpu_bench.sh build` (bench/gpu/cutlass2/cutlass2_spmm.cu), called
through its C API with ctypes.

    lib = cutlass2.load(manifest, base)        # or raises Unavailable
    names = lib.configs("f16")                 # [] when the dtype has none
    op = lib.prepare("f16", a_pruned, n)       # compress + reorder (host), upload
    op.run(0, b_nk, out, stream)               # one launch, asynchronous
    op.free()

Tensors are torch CUDA tensors (this module imports nothing beyond the
standard library: the report and the tests import it without torch).
"""

import ctypes
import os

#: The library's dtype codes (cutlass2_spmm.cu: enum DType).
DTYPES = {"f16": 0, "bf16": 1, "i8": 2}
#: Each dtype's output element type (the benchmark's names).
OUT_DTYPES = {"f16": "f16", "bf16": "bf16", "i8": "i32"}
LIBRARY = "libcutlass2_spmm.so"
ERRLEN = 2048


class Unavailable(RuntimeError):
    """The baseline cannot run here (no library, a dtype it lacks, an
    error of the library); the text says why."""


def library_path(manifest, base):
    """The library the build recorded in the manifest (relative to `base`,
    the manifest's directory), else base/cutlass2/LIBRARY; raises
    Unavailable with the build's reason when there is none."""
    ent = (manifest or {}).get("cutlass2")
    if isinstance(ent, dict) and ent.get("status") != "ok":
        raise Unavailable("not built: %s" % (ent.get("error") or ent.get("status")))
    rel = ent.get("library") if isinstance(ent, dict) else None
    path = os.path.join(base, rel or os.path.join("cutlass2", LIBRARY))
    if not os.path.isfile(path):
        raise Unavailable("no %s (%s): run `bench/run_gpu_bench.sh build` where nvcc and the "
                          "CUTLASS archive are, and carry bench/work/gpu"
                          % (path, "the build recorded it" if rel else
                             "the manifest has no cutlass2 entry: built before the baseline "
                             "existed"))
    return path


def load(manifest, base):
    """The library (Library) of the build whose manifest is `manifest` in
    directory `base`; raises Unavailable."""
    return Library(library_path(manifest, base))


def _check_tensor(t, what, shape, dtype_name):
    import torch
    want = getattr(torch, {"f16": "float16", "bf16": "bfloat16", "i8": "int8",
                           "i32": "int32"}[dtype_name])
    if tuple(t.shape) != tuple(shape) or t.dtype != want or not t.is_contiguous() \
            or not t.is_cuda:
        raise ValueError("%s must be a contiguous CUDA %s tensor of shape %s, not %s %s%s"
                         % (what, dtype_name, tuple(shape), t.dtype, tuple(t.shape),
                            "" if t.is_contiguous() else " (not contiguous)"))


class Library:
    def __init__(self, path):
        self.path = path
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            raise Unavailable("cannot load %s: %s" % (path, e))
        lib.cutlass2_info.restype = ctypes.c_char_p
        lib.cutlass2_info.argtypes = []
        lib.cutlass2_configs.restype = ctypes.c_int
        lib.cutlass2_configs.argtypes = [ctypes.c_int]
        lib.cutlass2_config_name.restype = ctypes.c_char_p
        lib.cutlass2_config_name.argtypes = [ctypes.c_int, ctypes.c_int]
        lib.cutlass2_prepare.restype = ctypes.c_int
        lib.cutlass2_prepare.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                                         ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p),
                                         ctypes.c_char_p, ctypes.c_int]
        lib.cutlass2_run.restype = ctypes.c_int
        lib.cutlass2_run.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p,
                                     ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p,
                                     ctypes.c_int]
        lib.cutlass2_free.restype = None
        lib.cutlass2_free.argtypes = [ctypes.c_void_p]
        self.lib = lib

    def info(self):
        return self.lib.cutlass2_info().decode()

    def configs(self, dtype):
        """The names of dtype's configurations, in the library's order."""
        if dtype not in DTYPES:
            return []
        code = DTYPES[dtype]
        return [self.lib.cutlass2_config_name(code, i).decode()
                for i in range(self.lib.cutlass2_configs(code))]

    def prepare(self, dtype, a_pruned, n):
        """A prepared operand (Prepared) for C = A . B with A the 2:4-pruned
        M x K tensor `a_pruned` (row-major) and N = n; the host-side
        compression synchronises the device. Raises Unavailable."""
        if not self.configs(dtype):
            raise Unavailable("no %s kernels in %s" % (dtype, self.path))
        m, k = a_pruned.shape
        _check_tensor(a_pruned, "A", (m, k), dtype)
        h = ctypes.c_void_p()
        err = ctypes.create_string_buffer(ERRLEN)
        if self.lib.cutlass2_prepare(DTYPES[dtype], m, n, k, a_pruned.data_ptr(),
                                     ctypes.byref(h), err, ERRLEN) != 0:
            raise Unavailable("cutlass2_prepare: %s" % err.value.decode(errors="replace"))
        return Prepared(self, dtype, h, m, n, k)


class Prepared:
    """A prepared A on the device (its compressed values and reordered
    metadata, owned by the library's handle) and one cached kernel per
    configuration."""

    def __init__(self, lib, dtype, handle, m, n, k):
        self.lib, self.dtype, self.handle = lib, dtype, handle
        self.m, self.n, self.k = m, n, k
        self.err = ctypes.create_string_buffer(ERRLEN)

    def check(self, b_nk, out):
        """Checks the operands' shapes and types (once, before timing: run
        itself does not, to cost no more than a launch)."""
        _check_tensor(b_nk, "B (N x K)", (self.n, self.k), self.dtype)
        _check_tensor(out, "C", (self.m, self.n), OUT_DTYPES[self.dtype])

    def run(self, config, b_nk, out, stream):
        """C = A . B with configuration `config` on `stream` (a CUDA stream
        handle, torch's .cuda_stream): B the N x K contiguous tensor, C the
        M x N output. Raises Unavailable on an error."""
        if self.lib.lib.cutlass2_run(self.handle, config, b_nk.data_ptr(), out.data_ptr(),
                                     stream, self.err, ERRLEN) != 0:
            raise Unavailable("cutlass2_run (%s): %s" % (
                self.lib.configs(self.dtype)[config] if 0 <= config < len(
                    self.lib.configs(self.dtype)) else config,
                self.err.value.decode(errors="replace")))
        return out

    def free(self):
        if self.handle:
            self.lib.lib.cutlass2_free(self.handle)
            self.handle = None
