"""stc_runtime's CUDA C API (runtime/stc_runtime_cuda.h) through ctypes: the
GPU benchmarks' only way to the GPU besides torch. The library is
libstc_runtime_cuda.so (the runtime's `stc_runtime_cuda` target), which
itself loads the CUDA driver (libcuda.so.1, or $STC_CUDA_DRIVER_LIBRARY:
the project's fake driver in tests).

Every call checks the StcCudaStatus it returns and raises CudaError with
the runtime's message, which names the driver call, its arguments and the
driver's error ("cuLaunchKernel(kernel 'k', grid ...) failed:
CUDA_ERROR_..."), then clears the runtime's error record so that the next
failure reports itself.
"""

import ctypes
import os

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
LIBRARY = "libstc_runtime_cuda.so"

# CUfunction_attribute values (STC_CUDA_FUNC_*).
FUNC_MAX_THREADS_PER_BLOCK = 0
FUNC_STATIC_SHARED_BYTES = 1
FUNC_LOCAL_BYTES = 3
FUNC_REGISTERS = 4
FUNC_BINARY_VERSION = 6
L2_PROMOTION_128B = 2
#: Bytes of a CUtensorMap, and the alignment of the host buffer it is
#: encoded into (the driver documents 64, cuda.h declares 128).
TENSOR_MAP_BYTES = 128
TENSOR_MAP_ALIGN = 128


class CudaError(RuntimeError):
    """A failed runtime call; `code` is its StcCudaStatus."""

    def __init__(self, msg, code):
        RuntimeError.__init__(self, msg)
        self.code = code


def find_library(path=None, search=()):
    """The runtime library: `path` when given (and only it), else
    $STC_RUNTIME_CUDA_LIBRARY, else LIBRARY in each directory of `search`
    (a benchmark's build directory carries a copy to the GPU machine), else
    lib/ of the build ($STC_BUILD_DIR, default build/ of this checkout)."""
    if path:
        cands = [path]
    else:
        cands = ([os.environ.get("STC_RUNTIME_CUDA_LIBRARY")]
                 + [os.path.join(d, LIBRARY) for d in search]
                 + [os.path.join(os.environ.get("STC_BUILD_DIR") or os.path.join(ROOT, "build"),
                                 "lib", LIBRARY)])
    cands = [c for c in cands if c]
    for cand in cands:
        if os.path.isfile(cand):
            return cand
    raise CudaError("no %s (tried %s): build the runtime (ninja -C build stc_runtime_cuda) "
                    "and rebuild the benchmark, or set STC_RUNTIME_CUDA_LIBRARY"
                    % (LIBRARY, ", ".join(cands)), -1)


class _DeviceInfo(ctypes.Structure):
    _fields_ = [("ordinal", ctypes.c_int), ("sm", ctypes.c_int), ("sm_major", ctypes.c_int),
                ("sm_minor", ctypes.c_int), ("driver_version", ctypes.c_int),
                ("max_shared_bytes_per_block", ctypes.c_int), ("name", ctypes.c_char * 256)]


class _TensorMapOptions(ctypes.Structure):
    _fields_ = [("element_strides", ctypes.POINTER(ctypes.c_uint32)),
                ("l2_promotion", ctypes.c_int)]


def _dims(v):
    return (ctypes.c_uint * 3)(*[int(x) for x in v])


class Runtime:
    """The loaded runtime. Handles (modules, functions) are integers;
    device addresses too; a stream is torch's `cuda_stream` (0: default)."""

    def __init__(self, path=None, search=()):
        self.path = find_library(path, search)
        try:
            L = self.lib = ctypes.CDLL(self.path)
        except OSError as e:
            raise CudaError("cannot load %s: %s" % (self.path, e), -1)
        i, u, vp, sz = ctypes.c_int, ctypes.c_uint, ctypes.c_void_p, ctypes.c_size_t
        u64, pu = ctypes.c_uint64, ctypes.POINTER(ctypes.c_uint)
        sig = {
            "stc_cuda_last_error": (ctypes.c_char_p, []),
            "stc_cuda_clear_error": (None, []),
            "stc_cuda_init": (i, [i]),
            "stc_cuda_device_info": (i, [ctypes.POINTER(_DeviceInfo)]),
            "stc_cuda_module_load_ptx": (i, [ctypes.c_char_p, ctypes.POINTER(vp)]),
            "stc_cuda_module_unload": (i, [vp]),
            "stc_cuda_module_get_function": (i, [vp, ctypes.c_char_p, ctypes.POINTER(vp)]),
            "stc_cuda_function_attribute": (i, [vp, i, ctypes.POINTER(i)]),
            "stc_cuda_function_set_max_dynamic_shared": (i, [vp, u]),
            "stc_cuda_occupancy_blocks_per_sm": (i, [vp, u, sz, ctypes.POINTER(i)]),
            "stc_cuda_occupancy_clusters": (i, [vp, pu, pu, pu, u, ctypes.POINTER(i)]),
            "stc_cuda_mem_alloc": (i, [sz, ctypes.POINTER(u64)]),
            "stc_cuda_mem_free": (i, [u64]),
            "stc_cuda_memcpy_htod": (i, [u64, vp, sz]),
            "stc_cuda_launch": (i, [vp, pu, pu, u, vp, ctypes.POINTER(vp)]),
            "stc_cuda_launch_cluster": (i, [vp, pu, pu, pu, u, vp, ctypes.POINTER(vp)]),
            "stc_cuda_synchronize": (i, [vp]),
            "stc_cuda_tensor_map_encode_tiled_ex": (
                i, [vp, i, i, u64, ctypes.POINTER(u64), ctypes.POINTER(u64),
                    ctypes.POINTER(ctypes.c_uint32), i, ctypes.POINTER(_TensorMapOptions)]),
        }
        for name, (res, args) in sig.items():
            try:
                fn = getattr(L, name)
            except AttributeError:
                raise CudaError("%s has no %s: an older runtime; rebuild it" % (self.path, name),
                                -1)
            fn.restype, fn.argtypes = res, args

    def _check(self, status, what=""):
        if status:
            msg = (self.lib.stc_cuda_last_error() or b"").decode(errors="replace")
            self.lib.stc_cuda_clear_error()
            if msg.startswith("error: "):
                msg = msg[len("error: "):]
            raise CudaError(msg or "%s failed (status %d)" % (what, status), status)

    # -- device -------------------------------------------------------------
    def init(self, device=0):
        """Makes `device` current (its primary context: torch's)."""
        self._check(self.lib.stc_cuda_init(device), "stc_cuda_init")

    def device_info(self):
        d = _DeviceInfo()
        self._check(self.lib.stc_cuda_device_info(ctypes.byref(d)))
        return {"name": d.name.decode(errors="replace"), "sm": d.sm,
                "driver_version": d.driver_version,
                "max_shared_bytes_per_block": d.max_shared_bytes_per_block}

    def synchronize(self, what="synchronize"):
        self._check(self.lib.stc_cuda_synchronize(None), what)

    # -- modules and kernels ----------------------------------------------------
    def load_ptx(self, ptx_text):
        """JIT-loads PTX text; a failure's message ends with the JIT log."""
        mod = ctypes.c_void_p()
        self._check(self.lib.stc_cuda_module_load_ptx(ptx_text.encode(), ctypes.byref(mod)))
        return mod.value

    def unload(self, module):
        self._check(self.lib.stc_cuda_module_unload(module))

    def get_function(self, module, name):
        f = ctypes.c_void_p()
        self._check(self.lib.stc_cuda_module_get_function(module, name.encode(),
                                                          ctypes.byref(f)))
        return f.value

    def function_attribute(self, f, attr):
        v = ctypes.c_int()
        self._check(self.lib.stc_cuda_function_attribute(f, attr, ctypes.byref(v)))
        return v.value

    def set_max_dynamic_shared(self, f, nbytes):
        self._check(self.lib.stc_cuda_function_set_max_dynamic_shared(f, nbytes))

    def occupancy(self, f, threads, dyn_shared):
        v = ctypes.c_int()
        self._check(self.lib.stc_cuda_occupancy_blocks_per_sm(f, threads, dyn_shared,
                                                              ctypes.byref(v)))
        return v.value

    def max_active_clusters(self, f, grid, block, cluster, shared):
        v = ctypes.c_int()
        self._check(self.lib.stc_cuda_occupancy_clusters(
            f, _dims(grid), _dims(block), _dims(cluster), shared, ctypes.byref(v)))
        return v.value

    def launch(self, f, grid, block, shared, stream, params, cluster=None):
        """`params`: a ctypes array of pointers to the argument values."""
        if cluster is None:
            r = self.lib.stc_cuda_launch(f, _dims(grid), _dims(block), shared, stream, params)
        else:
            r = self.lib.stc_cuda_launch_cluster(f, _dims(grid), _dims(block), _dims(cluster),
                                                 shared, stream, params)
        self._check(r)

    # -- memory and tensor maps -----------------------------------------------
    def mem_alloc(self, nbytes):
        p = ctypes.c_uint64()
        self._check(self.lib.stc_cuda_mem_alloc(nbytes, ctypes.byref(p)))
        return p.value

    def mem_free(self, ptr):
        self._check(self.lib.stc_cuda_mem_free(ptr))

    def memcpy_htod(self, dst, data):
        buf = ctypes.create_string_buffer(bytes(data), len(data))
        self._check(self.lib.stc_cuda_memcpy_htod(dst, buf, len(data)))

    def encode_tensor_map(self, req):
        """The 128 bytes of the CUtensorMap of a request of
        kernel_info.tensor_map_requests (sizes innermost first, as the
        driver takes them; the runtime takes them outermost first)."""
        rank = req["rank"]
        raw = ctypes.create_string_buffer(TENSOR_MAP_BYTES + TENSOR_MAP_ALIGN)
        addr = ctypes.addressof(raw)
        addr += -addr % TENSOR_MAP_ALIGN
        dims = (ctypes.c_uint64 * rank)(*reversed(req["dims"]))
        strides = (ctypes.c_uint64 * max(1, rank - 1))(*reversed(req["strides"]))
        box = (ctypes.c_uint32 * rank)(*reversed(req["box"]))
        steps = (ctypes.c_uint32 * rank)(*reversed(req["element_strides"]))
        opts = _TensorMapOptions(steps, req["l2_promotion"])
        self._check(self.lib.stc_cuda_tensor_map_encode_tiled_ex(
            addr, req["data_type"], rank, req["address"], dims, strides, box, req["swizzle"],
            ctypes.byref(opts)))
        return ctypes.string_at(addr, TENSOR_MAP_BYTES)
