"""Calls a program that stc-compile --emit=obj made, linked into the
benchmark's shared library (e2e_build.py), through ctypes: the C interface
`_mlir_ciface_<func>(result descriptor *, argument descriptors *...)` with
MLIR's ranked memref descriptors {allocated, aligned, offset, sizes[r],
strides[r]} (test/Tools/Inputs/run-gpu-linear.c, compiler/stc-run).

With --gpu-device-entry every pointer is a device address (a torch CUDA
tensor's data_ptr()) and the result is a device buffer from the runtime's
pool, which the caller frees with mgpuMemFree(allocated, stream) (as
stc-run does). Built for the CPU (--target=cpu, the self test), the same
call takes host pointers (NumPy arrays) and the result is malloc'ed: freed
with libc's free. Imports no torch and no NumPy.
"""

import ctypes

I64 = ctypes.c_int64


def descriptor_type(rank):
    fields = [("allocated", ctypes.c_void_p), ("aligned", ctypes.c_void_p),
              ("offset", I64)]
    if rank:
        fields += [("sizes", I64 * rank), ("strides", I64 * rank)]
    return type("MemRef%dD" % rank, (ctypes.Structure,), {"_fields_": fields})


def descriptor(ptr, shape):
    """A descriptor of a contiguous row-major buffer at address `ptr`."""
    d = descriptor_type(len(shape))()
    d.allocated = d.aligned = ptr
    d.offset = 0
    stride = 1
    strides = []
    for s in reversed(shape):
        strides.append(stride)
        stride *= int(s)
    for i, s in enumerate(shape):
        d.sizes[i] = int(s)
        d.strides[i] = strides[len(shape) - 1 - i]
    return d


ELEMENT_BYTES = {"f16": 2, "bf16": 2, "f32": 4, "i16": 2, "i8": 1, "i32": 4}


class Program:
    """One public function of the library: call(ptrs) -> result descriptor."""

    def __init__(self, lib, func, arg_shapes, result_shape):
        self.fn = getattr(lib, "_mlir_ciface_" + func)
        self.fn.restype = None
        self.func = func
        self.arg_shapes = [list(s) for s in arg_shapes]
        self.result_shape = list(result_shape)
        self.result_type = descriptor_type(len(result_shape))
        self.fn.argtypes = [ctypes.c_void_p] * (1 + len(arg_shapes))

    def bind(self, ptrs):
        """Descriptors of the arguments at addresses `ptrs` (made once: the
        timed call only passes them)."""
        if len(ptrs) != len(self.arg_shapes):
            raise ValueError("%s takes %d arguments, got %d"
                             % (self.func, len(self.arg_shapes), len(ptrs)))
        self._descs = [descriptor(p, s) for p, s in zip(ptrs, self.arg_shapes)]
        self._ptrs = [ctypes.addressof(d) for d in self._descs]
        self._res = self.result_type()

    def call(self):
        """Runs the function on the bound arguments; returns its result
        descriptor (the same object every call: read it before the next)."""
        self._res.allocated = self._res.aligned = None
        self.fn(ctypes.addressof(self._res), *self._ptrs)
        return self._res

    def check_result(self, res):
        got = [res.sizes[i] for i in range(len(self.result_shape))]
        if got != self.result_shape:
            raise RuntimeError("%s returned a %s result, expected %s"
                               % (self.func, got, self.result_shape))
        strides = descriptor(0, self.result_shape).strides
        if [res.strides[i] for i in range(len(got))] != list(strides) or res.offset:
            raise RuntimeError("%s returned a non-contiguous result (offset %d, strides %s)"
                               % (self.func, res.offset,
                                  [res.strides[i] for i in range(len(got))]))
        if not res.aligned:
            raise RuntimeError("%s returned a null result" % self.func)


def runtime_errors(lib):
    """The runtime's recorded error (CUDA layer, then CPU layer), cleared;
    None when there is none. Symbols missing from a library are skipped."""
    msgs = []
    for has, msg, clear in (("stc_cuda_has_error", "stc_cuda_last_error", "stc_cuda_clear_error"),
                            ("stc_rt_has_error", "stc_rt_error_message", "stc_rt_clear_error")):
        try:
            f_has, f_msg, f_clear = getattr(lib, has), getattr(lib, msg), getattr(lib, clear)
        except AttributeError:
            continue
        f_has.restype = ctypes.c_int
        f_msg.restype = ctypes.c_char_p
        f_clear.restype = None
        if f_has():
            msgs.append((f_msg() or b"").decode(errors="replace"))
            f_clear()
    return "; ".join(msgs) or None
