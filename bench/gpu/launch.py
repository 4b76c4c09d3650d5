"""Launching one of stc-compile's kernels from its kernel info on
stc_runtime (stcrt.Runtime), as stc-compile's own host code would: the
function's attributes checked against the block and the device, the
dynamic shared memory opted in, the occupancy recorded; the canonical
metadata converted by the kernel's `meta_kernel`; tensor maps encoded with
the runtime's encoder and copied to the device; a cluster other than 1x1x1
launched as a cluster launch.

Needs no torch: tensors are given as device addresses and shapes. The
worker (benchcommon.Worker) drives it; kernel_info.py validates what it is
given.
"""

import ctypes

import kernel_info as kinfo_lib
import stcrt

#: (result key, stcrt attribute) recorded for every kernel; the static
#: shared memory is added to the kernel info's dynamic amount.
FUNC_ATTRS = (("registers", stcrt.FUNC_REGISTERS),
              ("local_bytes", stcrt.FUNC_LOCAL_BYTES),
              ("static_shared_bytes", stcrt.FUNC_STATIC_SHARED_BYTES),
              ("max_threads_per_block", stcrt.FUNC_MAX_THREADS_PER_BLOCK))
#: Dynamic shared memory a block may use without opting in.
DEFAULT_SHARED_LIMIT = 48 * 1024


def configure(rt, fn, ki, kent, func_attrs, static_key="static_shared_bytes"):
    """Records the function's attributes (func_attrs: (key, attribute)) in
    kent, checks the block and the shared memory against them and the
    device, opts in to more than 48 KiB of shared memory (before the
    occupancy query, which counts only opted-in memory), and records the
    blocks per multiprocessor and, for a cluster, the clusters that fit.
    Raises RuntimeError when the kernel cannot run as its kernel info says."""
    for key, attr in func_attrs:
        kent[key] = rt.function_attribute(fn, attr)
    static = kent[static_key]
    threads = ki["block"][0] * ki["block"][1] * ki["block"][2]
    if threads > kent["max_threads_per_block"]:
        raise RuntimeError("block %s has %d threads but the kernel allows at most %d "
                           "per block (it uses %d registers per thread)"
                           % (ki["block"], threads, kent["max_threads_per_block"],
                              kent["registers"]))
    shared = ki["shared_bytes"]
    if shared + static > DEFAULT_SHARED_LIMIT:
        optin = rt.device_info()["max_shared_bytes_per_block"]
        if shared + static > optin:
            raise RuntimeError("the kernel needs %d B of dynamic + %d B of static "
                               "shared memory; the device allows %d B per block"
                               % (shared, static, optin))
        rt.set_max_dynamic_shared(fn, shared)
    kent["blocks_per_sm"] = rt.occupancy(fn, threads, shared)
    if kent["blocks_per_sm"] == 0:
        raise RuntimeError("cuOccupancyMaxActiveBlocksPerMultiprocessor says no block "
                           "of %d threads with %d B dynamic shared memory fits on a "
                           "multiprocessor" % (threads, shared))
    cluster = kinfo_lib.cluster_of(ki)
    if cluster != [1, 1, 1]:
        kent["cluster"] = cluster
        try:
            kent["max_active_clusters"] = rt.max_active_clusters(fn, ki["grid"], ki["block"],
                                                                 cluster, shared)
        except stcrt.CudaError as e:  # a diagnostic: the launch says the rest
            kent["max_active_clusters"] = None
            kent["max_active_clusters_error"] = str(e)
        if kent["max_active_clusters"] == 0:
            raise RuntimeError("cuOccupancyMaxActiveClusters says no cluster of %s blocks "
                               "(%d threads, %d B dynamic shared memory each) can be "
                               "scheduled" % ("x".join(map(str, cluster)), threads, shared))


class Launch:
    """A prepared launch: the function, its configuration from the kernel
    info and the packed arguments [(name, type, value)] (built once; the
    driver copies the values at every launch)."""

    def __init__(self, rt, func, kinfo, args):
        self.rt, self.func, self.args = rt, func, args
        self.grid = [int(x) for x in kinfo["grid"]]
        self.block = [int(x) for x in kinfo["block"]]
        self.shared = int(kinfo["shared_bytes"])
        cluster = [int(x) for x in kinfo_lib.cluster_of(kinfo)]
        self.cluster = None if cluster == [1, 1, 1] else cluster
        ctor = {"ptr": ctypes.c_uint64, "i32": ctypes.c_int32, "i64": ctypes.c_int64}
        self._vals = [ctor[t](v) for _, t, v in args]
        self._ptrs = (ctypes.c_void_p * max(1, len(self._vals)))(
            *[ctypes.addressof(v) for v in self._vals])

    def __call__(self, stream):
        self.rt.launch(self.func, self.grid, self.block, self.shared, stream or None,
                       self._ptrs, self.cluster)


def metadata_conversion(rt, module, kinfo, meta_ptr, words_ptr, meta_cols):
    """The launch of the kernel's metadata conversion kernel
    (kinfo["meta_kernel"], present when kinfo["meta_layout"] is
    "canonical"): canonical metadata at `meta_ptr` (R x meta_cols uint16 per
    group, groups one after the other) to kernel-ready words at `words_ptr`
    (kernel_info.metadata_words of them), what stc's own host code does
    before the product; params (meta, words, R, meta_cols, row_blocks,
    vectors, total), one thread per word, blocks of 256. None when the
    metadata is compiled in."""
    if kinfo.get("meta_layout", "canonical") != "canonical":
        return None
    if "meta_kernel" not in kinfo:
        raise kinfo_lib.KernelInfoError("%s: canonical metadata but no meta_kernel"
                                        % kinfo["kernel"])
    lay = kinfo_lib.metadata_layout(kinfo)
    total = lay["total"]
    fn = rt.get_function(module, kinfo["meta_kernel"])
    config = {"grid": [max(1, -(-total // 256)), 1, 1], "block": [256, 1, 1],
              "shared_bytes": 0}
    args = [("meta", "ptr", meta_ptr), ("words", "ptr", words_ptr),
            ("R", "i32", int(kinfo["R"])), ("meta_cols", "i32", meta_cols),
            ("row_blocks", "i32", lay["row_blocks"]),
            ("vectors", "i32", lay["vectors"]), ("total", "i32", total)]
    return Launch(rt, fn, config, args)


class DeviceTensorMaps:
    """Tensor maps encoded by the runtime and copied to one device
    allocation, 128 bytes each: `pointers` maps each parameter name to the
    device address of its map, which the kernel takes as the parameter.
    `requests`: kernel_info.tensor_map_requests(). free() releases the
    device copy."""

    def __init__(self, rt, requests):
        self.rt, self.base, self.pointers, self.encoded = rt, None, {}, {}
        if not requests:
            return
        blob = b"".join(rt.encode_tensor_map(req) for _, req in requests)
        self.base = rt.mem_alloc(len(blob))
        try:
            rt.memcpy_htod(self.base, blob)
        except Exception:
            self.free()
            raise
        n = stcrt.TENSOR_MAP_BYTES
        for i, (param, _) in enumerate(requests):
            self.pointers[param] = self.base + i * n
            self.encoded[param] = blob[i * n:(i + 1) * n]

    def free(self):
        if self.base is not None:
            base, self.base = self.base, None
            self.rt.mem_free(base)
