"""Kernel-info validation and PTX entry parsing for the GPU benchmarks
(stc-compile --kernel-info): what a kernel expects (parameters, grid,
block, cluster, shared memory, tensor maps, the metadata conversion's
geometry), checked against the benchmark's programs, and the arguments of
its launch. launch.py launches what this validates.

Pure Python (no torch, no driver): the build step runs it on the build
machine, the run step on the GPU machine. Every failure raises
KernelInfoError naming the field and why.
"""

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
#: 16: the row strides); the dense operand is K x N (K x P), or N x K when
#: the kernel info says "dense_transposed" (the i8 programs). STC's dense
#: kernel (meta_layout "none": has_metadata) has no meta parameter and
#: takes A whole as its values, M x K: VC = K, MC = 0.
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


#: Elements of a CUtensorMapDataType (cuda.h order: UINT8, UINT16, UINT32,
#: INT32, UINT64, INT64, FLOAT16, FLOAT32, FLOAT64, BFLOAT16, FLOAT32_FTZ,
#: TFLOAT32, TFLOAT32_FTZ): bytes of one element.
TENSOR_MAP_ELEMENT_BYTES = {0: 1, 1: 2, 2: 4, 3: 4, 4: 8, 5: 8, 6: 2, 7: 4, 8: 8, 9: 2,
                            10: 4, 11: 4, 12: 4}
#: The CUtensorMapDataType an operand of the benchmark's element types must
#: have (f32: FLOAT32, FLOAT32_FTZ, TFLOAT32 or TFLOAT32_FTZ; i8: UINT8, as
#: there is no signed 8-bit type and TMA only moves the bytes; i32: INT32).
TENSOR_MAP_DATA_TYPES = {"f16": (6,), "bf16": (9,), "f32": (7, 10, 11, 12), "i8": (0,),
                         "i32": (3,)}
#: Kernel-info swizzle (bytes) -> CUtensorMapSwizzle.
TENSOR_MAP_SWIZZLE = {0: 0, 32: 1, 64: 2, 128: 3}
CU_TENSOR_MAP_INTERLEAVE_NONE = 0
CU_TENSOR_MAP_L2_PROMOTION_L2_128B = 2
CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE = 0  # out-of-bounds elements read as zeros
#: The operand buffers a tensor map may describe, each a dense row-major
#: array: GEMM values M x VC, dense K x N (N x K when transposed), out
#: M x N; a convolution's dense operand is its NHWC input (a 4-D map); the
#: metadata as its converted kernel-ready words (meta_map_view: a kernel
#: built with --gpu-meta-tma reads them through TMA).
TENSOR_MAP_OPERANDS = ("values", "dense", "out", "meta")
#: Bytes of a CUtensorMap, and the alignment of the host buffer it is
#: encoded into: cuTensorMapEncodeTiled documents 64 bytes, cuda.h declares
#: the struct 128-byte aligned; 128 satisfies both. (The device copies sit
#: at a cuMemAlloc address + a multiple of 128.)
TENSOR_MAP_BYTES = 128
TENSOR_MAP_ALIGN = 128
#: Blocks per cluster: at most 8, the portable size that stc_runtime
#: launches (stc-compile's kernels use 1 or 2).
MAX_CLUSTER = 8


def _pos_int(v):
    return isinstance(v, int) and not isinstance(v, bool) and v >= 1


def cluster_of(kinfo):
    """The kernel's cluster dimensions; [1, 1, 1] when the kernel info has
    no "cluster" (every kernel older than the sm_90a ones)."""
    return list(kinfo.get("cluster") or [1, 1, 1])


def _check_cluster(k, w):
    if "cluster" not in k:
        return
    c = _int_triple(k, "cluster", w)
    n = c[0] * c[1] * c[2]
    if n > MAX_CLUSTER:
        raise KernelInfoError("%s: cluster %r has %d blocks; the launcher allows at most %d"
                              % (w, c, n, MAX_CLUSTER))
    for i in range(3):
        if k["grid"][i] % c[i]:
            raise KernelInfoError(
                "%s: grid %r is not a whole number of clusters %r (grid %s = %d is not a "
                "multiple of %d)" % (w, k["grid"], c, "xyz"[i], k["grid"][i], c[i]))


def meta_geometry(kinfo):
    """The kernel-ready metadata's geometry: (rows per block, dense K per
    word, threads per block). From the kernel info's meta_rows_per_block,
    meta_k_per_word and meta_threads (sm_90a: 64, 64, 128); kernels older
    than those keys use mma.sp's: 32 rows, 32 threads, K per word 16 for
    m16n8k16 (tf32) and 32 otherwise (f16/bf16 m16n8k32, i8 m16n8k64)."""
    k_word = 16 if kinfo.get("mma") == "m16n8k16" else 32
    return (int(kinfo.get("meta_rows_per_block", 32)),
            int(kinfo.get("meta_k_per_word", k_word)),
            int(kinfo.get("meta_threads", 32)))


META_GEOMETRY_KEYS = ("meta_rows_per_block", "meta_k_per_word", "meta_threads")


def has_metadata(kinfo):
    """Whether the kernel takes 2:4 metadata: every kernel but STC's dense
    tensor-core kernel, whose meta_layout is "none" (a contraction that
    stays dense: its values are A whole and it has no meta parameter)."""
    return kinfo.get("meta_layout", "canonical") != "none"


def _check_meta_geometry(k, w):
    if not has_metadata(k):
        # stc-compile writes 0 for the geometry of a kernel without metadata.
        bad = [key for key in META_GEOMETRY_KEYS if k.get(key, 0) != 0]
        if bad:
            raise KernelInfoError("%s: a kernel without metadata (meta_layout \"none\") has no "
                                  "metadata geometry, but %s" % (w, ", ".join(
                                      "%s=%r" % (key, k[key]) for key in bad)))
        return
    for key in META_GEOMETRY_KEYS:
        if key in k and not _pos_int(k[key]):
            raise KernelInfoError("%s: \"%s\" must be a positive integer, got %r"
                                  % (w, key, k[key]))
    # A wgmma kernel's metadata is not mma.sp's: the defaults would be wrong.
    missing = [key for key in META_GEOMETRY_KEYS if key not in k]
    if (k.get("variant") == "wgmma" and k.get("meta_layout", "canonical") == "canonical"
            and missing):
        raise KernelInfoError("%s: a wgmma kernel with canonical metadata must give the "
                              "conversion's geometry; %s missing" % (w, ", ".join(missing)))


def tensor_map_params(kinfo):
    """{parameter name: its "tensor_maps" entry} (empty for kernels without
    tensor maps)."""
    return {m["param"]: m for m in kinfo.get("tensor_maps") or []}


def _check_tensor_maps(k, w):
    """Validates "tensor_maps" (absent: none); returns tensor_map_params."""
    maps = k.get("tensor_maps", [])
    if not isinstance(maps, list):
        raise KernelInfoError("%s: \"tensor_maps\" must be a list, got %r" % (w, maps))
    seen = {}
    for i, m in enumerate(maps):
        mw = "%s: tensor_maps[%d]" % (w, i)
        if not isinstance(m, dict):
            raise KernelInfoError("%s: expected an object, got %r" % (mw, m))
        p = m.get("param")
        if not isinstance(p, str) or not p:
            raise KernelInfoError("%s: \"param\" must be a parameter name, got %r" % (mw, p))
        mw = "%s (%s)" % (mw, p)
        if p in seen:
            raise KernelInfoError("%s: parameter %r has two tensor maps" % (mw, p))
        op = m.get("operand")
        if op not in TENSOR_MAP_OPERANDS:
            raise KernelInfoError("%s: \"operand\" is %r; the launcher makes tensor maps of "
                                  "%s" % (mw, op, ", ".join(TENSOR_MAP_OPERANDS)))
        dt = m.get("data_type")
        if isinstance(dt, bool) or dt not in TENSOR_MAP_ELEMENT_BYTES:
            raise KernelInfoError("%s: \"data_type\" %r is not a CUtensorMapDataType "
                                  "(0..12)" % (mw, dt))
        box = m.get("box")
        if (not isinstance(box, list) or not 2 <= len(box) <= 5
                or not all(_pos_int(b) and b <= 256 for b in box)):
            raise KernelInfoError("%s: \"box\" must be 2 to 5 sizes, innermost first "
                                  "([inner, outer] for a matrix), each 1 to 256, got %r"
                                  % (mw, box))
        es = m.get("element_strides", [1] * len(box))
        if (not isinstance(es, list) or len(es) != len(box)
                or not all(_pos_int(x) and x <= 8 for x in es)):
            raise KernelInfoError("%s: \"element_strides\" must be %d integers (one per box "
                                  "dimension), each 1 to 8, got %r" % (mw, len(box), es))
        sw = m.get("swizzle")
        if isinstance(sw, bool) or sw not in TENSOR_MAP_SWIZZLE:
            raise KernelInfoError("%s: \"swizzle\" must be 0, 32, 64 or 128 (bytes), got %r"
                                  % (mw, sw))
        inner = box[0] * TENSOR_MAP_ELEMENT_BYTES[dt]
        if inner % 16:
            raise KernelInfoError("%s: the inner box extent is %d bytes, not a multiple of 16"
                                  % (mw, inner))
        if sw and inner > sw:
            raise KernelInfoError("%s: the inner box extent is %d bytes, more than the "
                                  "%d-byte swizzle span" % (mw, inner, sw))
        seen[p] = m
    return seen


def tensor_map_requests(kinfo, operands):
    """The cuTensorMapEncodeTiled arguments of every tensor map of the
    kernel, in "tensor_maps" order: [(param, request)]. `operands` maps an
    operand name (values, dense, out) to (device address, shape, element
    type name or None), the shape outermost first as torch gives it: the
    tensor of a map is that buffer as a dense row-major array, its
    dimensions innermost first (a matrix (rows, cols): inner = cols, outer
    = rows, row stride = cols x element bytes; an NHWC input (N, H, W, C):
    C, W, H, N with strides C, W*C, H*W*C elements, or with a 2-D box C,
    N*H*W: buffer_map_dims); the map's rank is its box's length and must
    equal the shape's (or view it so); box, element strides (default
    all 1) and swizzle as the kernel info says; no interleave, L2 promotion
    128B, out-of-bounds elements zeros. Raises KernelInfoError naming what
    cuTensorMapEncodeTiled would reject (alignment, strides, sizes) or a
    type or rank that does not match."""
    out = []
    for m in kinfo.get("tensor_maps") or []:
        w = "%s: tensor map %r of %r" % (kinfo.get("kernel"), m["param"], m["operand"])
        if m["operand"] == "meta":
            out.append((m["param"], _meta_map_request(kinfo, m, operands, w)))
            continue
        if m["operand"] not in operands:
            raise KernelInfoError("%s: no such operand buffer (have %s)"
                                  % (w, sorted(operands)))
        addr, shape, tname = operands[m["operand"]]
        rank = len(m["box"])
        dims = buffer_map_dims(shape, rank)
        if len(dims) != rank:
            raise KernelInfoError("%s: a rank-%d box %r for a buffer of shape %s (rank %d)"
                                  % (w, rank, m["box"], list(shape), len(dims)))
        eb = TENSOR_MAP_ELEMENT_BYTES[m["data_type"]]
        want = TENSOR_MAP_DATA_TYPES.get(tname)
        if want is not None and m["data_type"] not in want:
            raise KernelInfoError("%s: data_type %d does not describe %s elements (%s)"
                                  % (w, m["data_type"], tname,
                                     " or ".join(str(x) for x in want)))
        if addr % 16:
            raise KernelInfoError("%s: the buffer at 0x%x is not 16-byte aligned" % (w, addr))
        for i, v in enumerate(dims):
            if not 1 <= v <= 1 << 32:
                raise KernelInfoError("%s: dimension %d (innermost first) is %d; a dimension "
                                      "must be 1 to 2^32" % (w, i, v))
        strides, stride = [], eb
        for i in range(1, rank):
            stride *= dims[i - 1]
            if stride % 16 or stride >= 1 << 40:
                what = ("row stride" if rank == 2
                        else "stride of dimension %d (innermost first)" % i)
                raise KernelInfoError("%s: the %s is %d bytes, not a multiple of 16 below "
                                      "2^40" % (w, what, stride))
            strides.append(stride)
        out.append((m["param"], {
            "data_type": m["data_type"], "rank": rank, "address": addr,
            "dims": dims, "strides": strides, "box": list(m["box"]),
            "element_strides": list(m.get("element_strides") or [1] * rank),
            "interleave": CU_TENSOR_MAP_INTERLEAVE_NONE,
            "swizzle": TENSOR_MAP_SWIZZLE[m["swizzle"]],
            "l2_promotion": CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
            "oob_fill": CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE}))
    return out


def buffer_map_dims(shape, rank):
    """The dimensions, innermost first, that a rank-`rank` tensor map sees
    of a dense row-major buffer of `shape` (outermost first): the buffer's
    own, or for a 2-D map over a 4-D buffer the matrix of its last
    dimension by the product of the others, as stc-gpu-host-launch views
    it (a pointwise convolution's NHWC input as [N*H*W, C])."""
    dims = [int(x) for x in reversed(tuple(shape))]
    if rank == 2 and len(dims) == 4:
        dims = [dims[0], dims[1] * dims[2] * dims[3]]
    return dims


def meta_map_view(kinfo, m):
    """The dimensions (innermost first) and byte strides of dimensions 1..
    of a tensor map over the kernel-ready metadata (operand "meta", 32-bit
    words; --gpu-meta-tma): [box[0] words, the rest of a thread's 128-bit
    vector x the threads, the vectors of a row block, the row blocks], as
    stc-gpu-host-launch views the flat word array."""
    lay = metadata_layout(kinfo)
    box = [int(x) for x in m["box"]]
    vector_words = 4 * lay["threads"]
    if m["data_type"] != 2 or len(box) != 4 or box[0] <= 0 or vector_words % box[0]:
        raise KernelInfoError("%s: tensor map %r does not view the kernel-ready metadata "
                              "(UINT32, rank 4, rows of a vector): type %r, box %r"
                              % (kinfo.get("kernel"), m["param"], m["data_type"], box))
    dims = [box[0], vector_words // box[0], lay["vectors"],
            int(kinfo.get("groups", 1)) * lay["row_blocks"]]
    strides = [4 * box[0], 4 * vector_words, 4 * vector_words * lay["vectors"]]
    return dims, strides


def _meta_map_request(kinfo, m, operands, w):
    """tensor_map_requests' entry for a map over the kernel-ready metadata:
    the address is operands["meta"]'s (the converted words; 0 at build
    time), the view meta_map_view's."""
    dims, strides = meta_map_view(kinfo, m)
    addr = operands.get("meta", (0,))[0]
    if addr % 16:
        raise KernelInfoError("%s: the words at 0x%x are not 16-byte aligned" % (w, addr))
    return {"data_type": 2, "rank": 4, "address": addr, "dims": dims, "strides": strides,
            "box": list(m["box"]), "element_strides": [1] * 4,
            "interleave": CU_TENSOR_MAP_INTERLEAVE_NONE,
            "swizzle": TENSOR_MAP_SWIZZLE[m["swizzle"]],
            "l2_promotion": CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
            "oob_fill": CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE}


def check_tensor_maps(kinfo, shapes, dtypes):
    """Build-time check of the kernel's tensor maps against the program:
    `shapes` {operand: its shape, outermost first}, `dtypes` {operand: element type
    name}; a list of problems (empty when every map could be encoded for
    buffers of these shapes)."""
    try:
        tensor_map_requests(kinfo, {op: (0, shapes[op], dtypes.get(op)) for op in shapes})
        return []
    except KernelInfoError as e:
        return [str(e)]


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
        _check_cluster(k, w)
        _check_meta_geometry(k, w)
        params, types = k.get("params"), k.get("param_types")
        if not isinstance(params, list) or not all(isinstance(p, str) for p in params):
            raise KernelInfoError("%s: \"params\" must be a list of names, got %r"
                                  % (w, params))
        if not isinstance(types, list) or len(types) != len(params):
            raise KernelInfoError(
                "%s: \"param_types\" must be a list of %d types (one per "
                "param %r), got %r" % (w, len(params), params, types))
        maps = _check_tensor_maps(k, w)
        for p, t in zip(params, types):
            if t not in PARAM_TYPES:
                raise KernelInfoError(
                    "%s: parameter %r has type %r; the launcher knows %s"
                    % (w, p, t, sorted(PARAM_TYPES)))
            if p in maps:
                if t != "ptr":
                    raise KernelInfoError(
                        "%s: tensor-map parameter %r has type %r; a tensor map is "
                        "passed as a pointer (\"ptr\") to its device copy" % (w, p, t))
                continue
            if t == "ptr" and p.endswith("_map"):
                raise KernelInfoError(
                    "%s: pointer parameter %r looks like a tensor map but has no entry "
                    "in \"tensor_maps\" (which lists %s)" % (w, p, sorted(maps) or "none"))
            if t == "ptr" and p not in BUFFER_PARAMS:
                raise KernelInfoError(
                    "%s: unknown pointer parameter %r; the launcher knows %s "
                    "(bench/gpu/kernel_info.py BUFFER_PARAMS)" % (w, p, sorted(BUFFER_PARAMS)))
            if t != "ptr" and p not in SIZE_PARAMS:
                raise KernelInfoError(
                    "%s: unknown integer parameter %r; the launcher knows %s "
                    "(bench/gpu/kernel_info.py SIZE_PARAMS)" % (w, p, sorted(SIZE_PARAMS)))
        missing = sorted(set(maps) - set(params))
        if missing:
            raise KernelInfoError(
                "%s: \"tensor_maps\" names parameter(s) %s, which \"params\" %r does "
                "not have" % (w, missing, params))
        roles = [BUFFER_PARAMS[p] for p, t in zip(params, types)
                 if t == "ptr" and p not in maps]
        for need in ("values", "meta", "dense", "out"):
            if need == "meta" and not has_metadata(k):
                if roles.count(need):
                    raise KernelInfoError(
                        "%s: a kernel without metadata (meta_layout \"none\") has no "
                        "pointer parameter for 'meta', found %d in %r"
                        % (w, roles.count(need), params))
            elif roles.count(need) != 1:
                raise KernelInfoError(
                    "%s: expected exactly one pointer parameter for %r, found "
                    "%d in %r" % (w, need, roles.count(need), params))
        out.append(k)
    return out


def kernel_arg_values(kinfo, buffers, sizes):
    """Returns [(name, type, value)] for the kernel's parameters in order:
    `buffers` maps a role (values/meta/dense/out) to a device address, and
    each tensor-map parameter (by its name, e.g. "values_map") to the
    device address of its encoded map (DeviceTensorMaps.pointers); `sizes`
    maps M/N/K/VC/MC (see SIZE_PARAMS) to integers."""
    args = []
    maps = tensor_map_params(kinfo)
    for p, t in zip(kinfo["params"], kinfo["param_types"]):
        if t == "ptr" and p in maps:
            if p not in buffers:
                raise KernelInfoError("tensor-map parameter %r has no encoded map (the "
                                      "launcher prepares %s)" % (p, sorted(
                                          k for k in buffers if k in maps) or "none"))
            v = buffers[p]
        elif t == "ptr":
            v = buffers[BUFFER_PARAMS[p]]
        else:
            v = sizes[SIZE_PARAMS[p]]
            lim = 2 ** 31 - 1 if t == "i32" else 2 ** 63 - 1
            if not 0 <= v <= lim:
                raise KernelInfoError("parameter %s=%d does not fit %s" % (p, v, t))
        args.append((p, t, v))
    return args


def check_problem(kinfo, m, n, k, dtype=None, out_dtype=None, dense_transposed=False,
                  sparse=True):
    """Compares what the kernel info says about the problem with the
    benchmark's: sizes R/M, P/N, K (top level, as stc-compile writes them,
    or in a "problem" object; -1 means dynamic and is not compared),
    input_type / output_type, sparse ("lhs") and dense_transposed (the
    program's: B given N x K, or K x N; absent in the kernel info: false),
    and whether the kernel takes metadata as the program's A needs
    (`sparse`: A 2:4, given compressed; else the dense program, which
    stc-compile must keep on its dense kernel, meta_layout "none").
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
    if kinfo.get("dense_transposed", False) is not bool(dense_transposed):
        bad.append("kernel info dense_transposed=%r; the benchmark's B is %s row-major"
                   % (kinfo.get("dense_transposed"), "N x K" if dense_transposed else "K x N"))
    if has_metadata(kinfo) != bool(sparse):
        bad.append("kernel info meta_layout=%r, but the program's A is %s"
                   % (kinfo.get("meta_layout", "canonical"),
                      "2:4 sparse, given compressed with its metadata" if sparse else
                      "dense (no metadata): not STC's dense kernel (meta_layout \"none\")"))
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


def metadata_layout(kinfo):
    """The kernel-ready metadata of the kernel of `kinfo` (docs/GPU-LAYOUT.md
    for mma.sp, docs/HOPPER-LAYOUT.md "(b) Metadata" for wgmma.sp): a dict
    with rows_per_block, k_per_word, threads (meta_geometry), row_blocks =
    ceil(R / rows_per_block), vectors = ceil(ceil(K / k_per_word) / 4),
    total = groups x row_blocks x vectors x 4 x threads words."""
    if not has_metadata(kinfo):
        raise KernelInfoError("%s: a kernel without metadata (meta_layout \"none\") has no "
                              "metadata layout" % kinfo["kernel"])
    rows, depth = int(kinfo["R"]), int(kinfo["K"])
    if rows < 0 or depth < 0:
        raise KernelInfoError("%s: dynamic R or K; the benchmark needs static "
                              "shapes" % kinfo["kernel"])
    rpb, kpw, threads = meta_geometry(kinfo)
    row_blocks = -(-rows // rpb)
    vectors = -(-(-(-depth // kpw)) // 4)
    return {"rows_per_block": rpb, "k_per_word": kpw, "threads": threads,
            "row_blocks": row_blocks, "vectors": vectors,
            "total": int(kinfo.get("groups", 1)) * row_blocks * vectors * 4 * threads}


def metadata_words(kinfo):
    """Size in 32-bit words of the kernel-ready metadata the kernel of
    `kinfo` reads (metadata_layout's total)."""
    return metadata_layout(kinfo)["total"]


def kernel_to_launch(kinfo, dense_ld, value_cols):
    """The entry to launch: kinfo["kernel"], or its "fallback_kernel" (a
    direct kernel with the same parameters, block, grid and shared memory)
    when the dense operand's leading dimension `dense_ld` (its dimension 1
    as given) or the values' row length `value_cols` is not a multiple of
    "staged_align" elements, as stc-compile's host code chooses
    (passes/GpuHostLaunch.cpp). Kernels of static shapes have no fallback."""
    fallback = kinfo.get("fallback_kernel")
    if not fallback:
        return kinfo["kernel"]
    align = kinfo.get("staged_align")
    if not _pos_int(align):
        raise KernelInfoError("%s: fallback_kernel %r without a positive \"staged_align\" "
                              "(got %r)" % (kinfo["kernel"], fallback, align))
    if dense_ld % align == 0 and value_cols % align == 0:
        return kinfo["kernel"]
    return fallback
