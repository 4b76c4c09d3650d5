#!/usr/bin/env python3
"""Self test of the GPU GEMM benchmark on the build machine (no GPU, no
torch): `bench/run_gpu_bench.sh selftest`.

1. format24 (the benchmark's 2:4 prune/compress) against the project's
   independent NumPy reference test/lib/stc_ref.py, on matrices with ties,
   zeros and empty rows; its error paths.
2. cudrv: kernel-info validation, PTX .entry parsing, argument packing; its
   ctypes driver calls against fake_libcuda.c (a stand-in libcuda built
   here): JIT logs, error texts, the launch's parameter array. The sm_90a
   kernels' launcher: cluster, tensor maps and Hopper metadata geometry in
   the kernel info; cuTensorMapEncodeTiled's arguments and the maps' device
   copies, the dynamic shared memory opt-in, the cluster occupancy, the
   metadata conversion, cuLaunchKernelEx with the cluster attribute; the
   ctypes structures and constants against the toolkit's cuda.h.
3. report: the JSON document and Markdown from synthetic records of every
   status; with i8 programs beside f16 ones (TOPS, tables and target
   comparisons of their own, ratios between int8 methods only).
4. gemm_bench's parent without torch: a manifest of failed builds, and a
   worker that cannot start (no torch here): both must end with results.
   Where torch (any version, CPU) is importable: format24's torch code
   against its NumPy code, and the worker simulated on the CPU (a stand-in
   kernel computes the product from the packed parameters, for the sm_90a
   kernel through its simulated tensor maps): one clean run, and one with
   planted faults (NaN outputs, swapped metadata, a launch error, a crash,
   a hang; one in the sm_90a kernel only; build failures of either kernel)
   that must each end as the right status while the other programs still
   run; i8 programs too (B transposed, exact int32 results: an unwritten
   row and swapped metadata caught; the int8 baselines ok or unavailable
   with their reason, never a crash), and the int8 baselines' handling
   with CPU stand-ins (exact int32 ok, an int8 output or an exception
   unavailable, an off-by-one wrong; the two layouts of B for cuBLAS).
5. The MLIR program text: stc-opt parses f16, bf16 and i8 programs;
   stc-run on the CPU runs a small f16 and a small i8 one on inputs from
   format24 and matches NumPy (i8: exactly), and so do their sm_90 GPU
   kernels run by the project's emulator (stc-run --device=emulate) where
   stc-run has it, and the sm_90a kernels once the emulator runs them (a
   note until then).
6. `build --quick --mock` (nvcc) and `build --quick` (stc-compile with
   --kernel-info; SKIP until the GPU code generator has landed): every
   program has PTX + kernel info for sm_90 and sm_90a (the mock: sm_90
   only), the PTX .entry matches, ptxas -arch=<target> accepts it; the i8
   programs' sm_90a kernels are the wgmma s8 ones.
7. The convolution benchmark (--conv-only: these alone; --gemm-only: 1-6):
   the ResNet-50 shape table and every program through stc-opt; the filter
   matrix, 2:4 along C and the implicit-GEMM reading of stc.conv against
   stc_ref; kernel-info validation and argument order; the parameters
   through fake_libcuda.c; the report; conv_bench's worker simulated on the
   CPU (clean, then planted faults); build-conv --quick --mock (nvcc);
   stc-run on small programs and build-conv --quick (SKIP until
   stc-compile --sparsity=force turns linalg convolutions into stc.conv).
Prints PASS/FAIL/SKIP per check and a final "N passed, N failed, N skipped"
line; exit status 1 when a check failed.
"""

import contextlib
import ctypes
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "test", "lib"))

import numpy as np  # noqa: E402

import build_programs  # noqa: E402
import cudrv  # noqa: E402
import format24  # noqa: E402
import report  # noqa: E402
import shapes  # noqa: E402
import stc_ref  # noqa: E402

CUDA = os.environ.get("CUDA_HOME", "/usr/local/cuda")
BIN = os.path.join(ROOT, "build", "bin")
RESULTS = {"PASS": 0, "FAIL": 0, "SKIP": 0}


def result(kind, name, detail=""):
    RESULTS[kind] += 1
    print("%s: %s%s" % (kind, name, (" -- " + detail) if detail else ""), flush=True)


def check(name, fn):
    try:
        r = fn()
        if isinstance(r, tuple) and r and r[0] == "SKIP":
            result("SKIP", name, r[1])
        else:
            result("PASS", name, r if isinstance(r, str) else "")
    except Exception as e:  # noqa: BLE001
        result("FAIL", name, "%s: %s\n%s" % (type(e).__name__, e,
                                             traceback.format_exc(limit=3)))


# ---------------------------------------------------------------------------
# 1. format24 against stc_ref
# ---------------------------------------------------------------------------

def matrices():
    rng = np.random.default_rng(3)
    out = []
    for rows, k, dt in ((1, 16, np.float32), (7, 32, np.float32), (64, 256, np.float16),
                        (33, 1024, np.float32), (128, 64, np.float16)):
        a = rng.standard_normal((rows, k)).astype(dt)
        out.append(a)
        t = a.copy()
        t[:, 1::4] = t[:, 0::4]            # ties with the lower index
        t[:, 2::8] = -t[:, 3::8]           # ties of equal magnitude, opposite sign
        out.append(t)
        z = a.copy()
        z[::2, ::3] = 0                    # groups with zeros
        z[0, :] = 0                        # an empty row
        out.append(z)
        out.append(np.round(a * 2).astype(dt))  # many exact ties and zeros
    return out


def t_format_vs_ref():
    ops = format24.numpy_ops()
    n = 0
    for a in matrices():
        p = format24.prune24(a, ops)
        ref_p = stc_ref.prune_nm(a, 2, 4, axis=1)
        assert p.dtype == a.dtype and np.array_equal(p, ref_p), "prune24 != stc_ref.prune_nm"
        v, m = format24.compress24(p, ops)
        ref_v, ref_m = stc_ref.compress(p, 2, 4, axis=1)
        assert v.dtype == a.dtype and m.dtype == np.uint16, (v.dtype, m.dtype)
        assert np.array_equal(v, ref_v), "values != stc_ref.compress"
        assert np.array_equal(m, ref_m), "metadata != stc_ref.compress"
        back = format24.decompress24(v, m, ops)
        assert np.array_equal(back, p), "decompress24(compress24(p)) != p"
        assert np.array_equal(back, stc_ref.decompress(ref_v, ref_m, a.shape[1], axis=1))
        # int16 metadata (what torch stores) decodes the same.
        assert np.array_equal(format24.decompress24(v, m.view(np.int16), ops), p)
        nib = (m.astype(np.uint32)[..., None] >> (4 * np.arange(4, dtype=np.uint32))) & 0xF
        assert set(np.unique(nib)) <= set(format24.LEGAL_NIBBLES), "illegal nibble"
        n += 1
    return "%d matrices: prune, values, metadata, decompress identical" % n


def t_format_errors():
    ops = format24.numpy_ops()
    try:
        format24.compress24(np.ones((2, 16), np.float32), ops)
        raise AssertionError("a dense operand was compressed")
    except format24.FormatError as e:
        assert "row 0, group 0" in str(e), e
    try:
        format24.prune24(np.ones((2, 20), np.float32), ops)
        raise AssertionError("K=20 accepted")
    except format24.FormatError as e:
        assert "multiple of 16" in str(e), e
    v = np.ones((1, 8), np.float32)
    m = np.array([[0x4444]], np.uint16)
    m[0, 0] = 0x4414                      # nibble 0x1: indices (1, 0), illegal
    try:
        format24.decompress24(v, m, ops)
        raise AssertionError("illegal nibble accepted")
    except format24.FormatError as e:
        assert "illegal nibble at row 0, group 1" in str(e), e
    return "dense operand, K not a multiple of 16, illegal nibble rejected"


# ---------------------------------------------------------------------------
# 2. cudrv
# ---------------------------------------------------------------------------

SAMPLE_PTX = """
.version 8.5
.target sm_90
.address_size 64
	// .globl	spmm_kernel
.visible .entry spmm_kernel(
	.param .u64 .ptr .global .align 16 spmm_kernel_param_0,
	.param .u64 spmm_kernel_param_1,   // meta
	.param .u64 spmm_kernel_param_2,
	.param .u64 spmm_kernel_param_3,
	.param .u32 spmm_kernel_param_4,
	.param .u32 spmm_kernel_param_5,
	.param .u32 spmm_kernel_param_6
)
.maxntid 128, 1, 1
{
	ret;
}
.entry other(.param .align 8 .b8 other_param_0[16], .param .s64 other_param_1)
{ ret; }
"""

GOOD_INFO = [{"kernel": "spmm_kernel", "block": [128, 1, 1], "grid": [32, 16, 1],
              "shared_bytes": 81920,
              "params": ["values", "meta", "dense", "out", "R", "P", "K"],
              "param_types": ["ptr", "ptr", "ptr", "ptr", "i32", "i32", "i32"],
              "problem": {"R": 256, "P": 128, "K": 512}}]


def expect_error(fn, text):
    try:
        fn()
    except (cudrv.KernelInfoError, ValueError) as e:
        assert text in str(e), "message %r lacks %r" % (str(e), text)
        return
    raise AssertionError("no error (expected one mentioning %r)" % text)


def t_cudrv():
    e = cudrv.ptx_entries(SAMPLE_PTX)
    assert [s for _, s, _ in e["spmm_kernel"]] == [8, 8, 8, 8, 4, 4, 4], e
    assert [s for _, s, _ in e["other"]] == [16, 8], e
    assert cudrv.ptx_header(SAMPLE_PTX) == ("8.5", "sm_90"), cudrv.ptx_header(SAMPLE_PTX)
    ki = cudrv.parse_kernel_info(json.dumps(GOOD_INFO))[0]
    cudrv.check_ptx_against_info(SAMPLE_PTX, ki)
    assert cudrv.check_problem(ki, 256, 128, 512) == []
    assert cudrv.check_problem(ki, 256, 64, 512) != []
    args = cudrv.kernel_arg_values(ki, {"values": 1, "meta": 2, "dense": 3, "out": 4},
                                   {"M": 256, "N": 128, "K": 512})
    assert [v for _, _, v in args] == [1, 2, 3, 4, 256, 128, 512], args

    def bad(**kw):
        k = dict(GOOD_INFO[0])
        k.update(kw)
        return json.dumps([k])
    expect_error(lambda: cudrv.parse_kernel_info("{}"), "expected a JSON array")
    expect_error(lambda: cudrv.parse_kernel_info("[1"), "not valid JSON")
    expect_error(lambda: cudrv.parse_kernel_info(bad(grid=None)), "no static grid")
    expect_error(lambda: cudrv.parse_kernel_info(bad(block=[64, 32, 1])), "> 1024")
    expect_error(lambda: cudrv.parse_kernel_info(bad(param_types=["ptr"] * 7)),
                 "unknown pointer parameter 'R'")
    expect_error(lambda: cudrv.parse_kernel_info(
        bad(params=["values", "meta", "dense", "out", "R", "P", "lda"])),
        "unknown integer parameter 'lda'")
    expect_error(lambda: cudrv.parse_kernel_info(
        bad(param_types=["ptr", "ptr", "ptr", "ptr", "i32", "i32", "f32"])),
        "has type 'f32'")
    expect_error(lambda: cudrv.parse_kernel_info(bad(param_types=None)),
                 "\"param_types\" must be a list of 7 types")
    expect_error(lambda: cudrv.parse_kernel_info(
        bad(params=["values", "values", "dense", "out", "R", "P", "K"])),
        "exactly one pointer parameter for 'values', found 2")
    # The form stc-compile writes (passes/GpuKernelInfo.h).
    stc_like = {"kernel": "k", "block": [128, 1, 1], "tile": [64, 64], "grid": [2, 4, 1],
                "shared_bytes": 0, "params": ["values", "meta", "dense", "out", "R", "P",
                                              "K", "value_cols", "meta_cols"],
                "param_types": ["ptr"] * 4 + ["i32"] * 5, "num_pointers": 4,
                "R": 256, "P": 128, "K": 512, "sparse": "lhs", "dense_transposed": False,
                "input_type": "f16", "output_type": "f16", "mma": "m16n8k32",
                "ordered_metadata": True}
    ks = cudrv.parse_kernel_info(json.dumps([stc_like]))[0]
    args = cudrv.kernel_arg_values(ks, {"values": 1, "meta": 2, "dense": 3, "out": 4},
                                   {"M": 256, "N": 128, "K": 512, "VC": 256, "MC": 32})
    assert [v for _, _, v in args] == [1, 2, 3, 4, 256, 128, 512, 256, 32], args
    assert cudrv.check_problem(ks, 256, 128, 512, "f16", "f16") == []
    assert len(cudrv.check_problem(ks, 256, 128, 256, "bf16", "f16")) == 2
    assert cudrv.check_problem(dict(ks, R=-1, P=-1, K=-1), 1, 2, 16) == []
    assert "sparse lhs" in cudrv.check_problem(dict(ks, sparse="rhs"), 256, 128, 512)[0]
    # The i8 programs give B transposed (N x K): the kernel info must agree.
    kt = dict(ks, dense_transposed=True, input_type="i8", output_type="i32")
    assert cudrv.check_problem(kt, 256, 128, 512, "i8", "i32", dense_transposed=True) == []
    assert "B is K x N row-major" in cudrv.check_problem(kt, 256, 128, 512)[0]
    assert "B is N x K row-major" in cudrv.check_problem(ks, 256, 128, 512,
                                                         dense_transposed=True)[0]
    expect_error(lambda: cudrv.parse_kernel_info(json.dumps([dict(ks, grid=[-1, -1, 1])])),
                 "no static grid")
    k2 = dict(GOOD_INFO[0], kernel="nope")
    expect_error(lambda: cudrv.check_ptx_against_info(SAMPLE_PTX, k2), "has no .entry 'nope'")
    k3 = dict(GOOD_INFO[0], params=GOOD_INFO[0]["params"][:6],
              param_types=GOOD_INFO[0]["param_types"][:6])
    expect_error(lambda: cudrv.check_ptx_against_info(SAMPLE_PTX, k3),
                 "has 7 parameters")
    k4 = dict(GOOD_INFO[0], param_types=["ptr", "ptr", "ptr", "ptr", "i32", "i32", "i64"])
    expect_error(lambda: cudrv.check_ptx_against_info(SAMPLE_PTX, k4), "does not match")
    return "parsing, validation and error messages"


@contextlib.contextmanager
def fake_driver():
    """fake_libcuda.c (a stand-in libcuda that records what it is given)
    built into a temporary directory: yields (a cudrv.Driver over it, the
    library through ctypes), or (None, None) without a C compiler."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        yield None, None
        return
    tmp = tempfile.mkdtemp(prefix="gpu-bench-fakecuda-")
    try:
        so = os.path.join(tmp, "libcuda_fake.so")
        p = subprocess.run([cc, "-shared", "-fPIC", "-O1", os.path.join(HERE, "fake_libcuda.c"),
                            "-o", so], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        assert p.returncode == 0, p.stdout.decode()
        yield cudrv.Driver(so), ctypes.CDLL(so)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def fake_launch(lib, drv, fn, ki, args):
    """Launches kernel info ki's kernel with args through cudrv.Launch on
    the fake (default stream): (the launch, the parameter values the fake
    received, in order)."""
    n = len(args)
    lib.fake_set_param_sizes(n, (ctypes.c_int * n)(*[cudrv.PARAM_TYPES[t]
                                                     for t in ki["param_types"]]))
    lib.fake_param_u64.restype = ctypes.c_uint64
    launch = cudrv.Launch(drv, fn, ki, args)
    launch(0)
    return launch, [lib.fake_param_u64(i) for i in range(n)]


def t_ctypes_driver():
    """cudrv.Driver and Launch against fake_libcuda.c (no GPU)."""
    with fake_driver() as (drv, lib):
        if drv is None:
            return ("SKIP", "no C compiler")
        assert drv.init() == 0x1234 and drv.driver_version() == 13000
        assert drv.device_attribute(16) == 160 and drv.device_attribute(97) == 227 * 1024
        mod, log = drv.load_ptx(SAMPLE_PTX)
        assert mod == 0x5678 and "simulated JIT log" in log, (mod, log)
        try:
            drv.load_ptx(SAMPLE_PTX + "// JIT_FAIL\n", where="x/k.ptx")
            raise AssertionError("JIT failure not raised")
        except cudrv.CudaError as e:
            assert ("cuModuleLoadDataEx(x/k.ptx) failed: CUDA_ERROR_INVALID_PTX (218)" in str(e)
                    and "simulated JIT failure" in str(e)), e
        try:
            drv.get_function(mod, "missing")
            raise AssertionError("missing kernel not raised")
        except cudrv.CudaError as e:
            assert "cuModuleGetFunction('missing') failed: CUDA_ERROR_NOT_FOUND" in str(e), e
        fn = drv.get_function(mod, "spmm_kernel")
        assert drv.func_attribute(fn, cudrv.CU_FUNC_ATTRIBUTE_NUM_REGS) == 5
        drv.set_max_dynamic_shared(fn, 81920)
        assert drv.occupancy(fn, 128, 81920) == 2
        ki = cudrv.parse_kernel_info(json.dumps(GOOD_INFO))[0]
        ptrs = {"values": 0x7F0000001000, "meta": 0x7F0000002000, "dense": 0x7F0000003000,
                "out": 0xFFFF800000004000}
        args = cudrv.kernel_arg_values(ki, ptrs, {"M": 256, "N": 128, "K": 512})
        assert len(args) == 7, args
        launch, got = fake_launch(lib, drv, fn, ki, args)
        want = [ptrs["values"], ptrs["meta"], ptrs["dense"], ptrs["out"], 256, 128, 512]
        assert got == want, [hex(x) for x in got]
        cfg = [lib.fake_launch_config(i) for i in range(8)]
        assert cfg == [32, 16, 1, 128, 1, 1, 81920, 1], cfg
        assert lib.fake_dyn_shared() == 81920
        try:
            launch(12345)  # the fake accepts only the default stream
            raise AssertionError("launch error not raised")
        except cudrv.CudaError as e:
            assert "cuLaunchKernel(grid=[32, 16, 1], block=[128, 1, 1], shared=81920) " \
                   "failed: CUDA_ERROR_INVALID_VALUE (1): invalid argument" in str(e), e
        drv.unload(mod)
        return "init, JIT logs, errors, attributes, parameter packing and launch"


#: The kernel info of an sm_90a kernel as stc-compile --target=sm_90a writes
#: it (square-4096 f16): warp-specialised, TMA-fed wgmma.mma_async.sp, a
#: 1x2 cluster, 201 KiB of dynamic shared memory, two tensor maps.
WGMMA_INFO = {
    "K": 4096, "P": 4096, "R": 4096, "accumulator": "f32", "block": [288, 1, 1],
    "cluster": [1, 2, 1], "dense_transposed": False, "grid": [16, 32, 1], "groups": 1,
    "input_type": "f16", "kernel": "spmm_sm90a", "meta_k_per_word": 64,
    "meta_kernel": "spmm_sm90a_meta", "meta_layout": "canonical", "meta_rows_per_block": 64,
    "meta_threads": 128, "mma": "m64n256k32", "num_pointers": 4, "ordered_metadata": False,
    "output_type": "f16", "param_types": ["ptr"] * 4 + ["i32"] * 5 + ["ptr"] * 2,
    "params": ["values", "meta", "dense", "out", "R", "P", "K", "value_cols", "meta_cols",
               "values_map", "dense_map"],
    "shared_bytes": 205904, "sparse": "lhs", "stages": 5, "static_shared_bytes": 0,
    "tensor_maps": [{"box": [32, 128], "data_type": 6, "operand": "values",
                     "param": "values_map", "swizzle": 64},
                    {"box": [64, 64], "data_type": 6, "operand": "dense",
                     "param": "dense_map", "swizzle": 128}],
    "tile": [128, 256], "variant": "wgmma"}


def wgmma_info(**kw):
    k = json.loads(json.dumps(WGMMA_INFO))
    k.update(kw)
    return k


def t_cudrv_sm90a():
    """The sm_90a kernel info: cluster, tensor maps, Hopper metadata
    geometry; their validation and error messages."""
    ki = cudrv.parse_kernel_info(json.dumps([WGMMA_INFO]))[0]
    assert cudrv.cluster_of(ki) == [1, 2, 1] and cudrv.cluster_of(GOOD_INFO[0]) == [1, 1, 1]
    cudrv.check_ptx_against_info(fake_ptx_for(ki), ki)
    assert cudrv.check_problem(ki, 4096, 4096, 4096, "f16", "f16") == []
    # Arguments: the map parameters take the maps' device addresses.
    bufs = {"values": 1, "meta": 2, "dense": 3, "out": 4, "values_map": 0x100,
            "dense_map": 0x180}
    sizes = {"M": 4096, "N": 4096, "K": 4096, "VC": 2048, "MC": 256}
    args = cudrv.kernel_arg_values(ki, bufs, sizes)
    assert [v for _, _, v in args] == [1, 2, 3, 4, 4096, 4096, 4096, 2048, 256, 0x100, 0x180]
    expect_error(lambda: cudrv.kernel_arg_values(ki, {"values": 1, "meta": 2, "dense": 3,
                                                      "out": 4}, sizes),
                 "tensor-map parameter 'values_map' has no encoded map")
    # Metadata geometry: docs/HOPPER-LAYOUT.md (b), rowTiles * V * 512 words,
    # V = ceil(ceil(K / 64) / 4); mma.sp's without the keys.
    lay = cudrv.metadata_layout(ki)
    assert (lay["row_blocks"], lay["vectors"], lay["total"]) == (64, 16, 64 * 16 * 512), lay
    odd = cudrv.metadata_layout(dict(ki, R=100, K=320))  # 2 row tiles, 5 blocks -> V 2
    assert (odd["row_blocks"], odd["vectors"], odd["total"]) == (2, 2, 2 * 2 * 512), odd
    old = cudrv.metadata_layout(dict(GOOD_INFO[0], R=256, K=512, mma="m16n8k32"))
    assert (old["rows_per_block"], old["k_per_word"], old["threads"], old["total"]) == \
        (32, 32, 32, 8 * 4 * 128), old
    assert cudrv.metadata_words(dict(GOOD_INFO[0], R=96, K=256, mma="m16n8k16")) == \
        3 * 4 * 128
    # Tensor-map requests: the operand as a row-major 2-D array, innermost
    # first; the driver's enums.
    ops = {"values": (0x7F0000001000, (4096, 2048), "f16"),
           "dense": (0x7F0000100000, (4096, 4096), "f16"), "out": (0x10, (4096, 4096), "f16")}
    reqs = dict(cudrv.tensor_map_requests(ki, ops))
    assert list(reqs) == ["values_map", "dense_map"], reqs
    v, d = reqs["values_map"], reqs["dense_map"]
    assert (v["address"], v["dims"], v["strides"], v["box"], v["swizzle"]) == \
        (0x7F0000001000, [2048, 4096], [4096], [32, 128], 2), v
    assert (d["dims"], d["strides"], d["box"], d["swizzle"], d["data_type"]) == \
        ([4096, 4096], [8192], [64, 64], 3, 6), d
    assert all((r["rank"], r["element_strides"], r["interleave"], r["l2_promotion"],
                r["oob_fill"]) == (2, [1, 1], 0, 2, 0) for r in reqs.values())
    expect_error(lambda: cudrv.tensor_map_requests(ki, dict(ops, values=(0x1008, (4096, 2048),
                                                                         "f16"))),
                 "not 16-byte aligned")
    expect_error(lambda: cudrv.tensor_map_requests(ki, dict(ops, dense=(0, (4096, 12), "f16"))),
                 "row stride is 24 bytes")
    expect_error(lambda: cudrv.tensor_map_requests(ki, dict(ops, values=(0, (4096, 2048),
                                                                         "bf16"))),
                 "data_type 6 does not describe bf16 elements (9)")
    expect_error(lambda: cudrv.tensor_map_requests(ki, {"values": ops["values"]}),
                 "no such operand buffer")
    assert cudrv.check_tensor_maps(ki, {"values": (4096, 2048), "dense": (4096, 4096),
                                        "out": (4096, 4096)},
                                   {"values": "f16", "dense": "f16", "out": "f16"}) == []
    assert "row stride" in cudrv.check_tensor_maps(
        ki, {"values": (16, 2048), "dense": (4096, 4), "out": (16, 4)}, {})[0]
    # What the launcher rejects before the driver would.
    def bad_map(i, **kw):
        k = wgmma_info()
        k["tensor_maps"][i].update(kw)
        return json.dumps([k])
    parse = cudrv.parse_kernel_info
    expect_error(lambda: parse(bad_map(0, swizzle=16)), "must be 0, 32, 64 or 128")
    expect_error(lambda: parse(bad_map(0, box=[32, 300])), "each 1 to 256")
    expect_error(lambda: parse(bad_map(0, box=[36, 128])), "72 bytes, not a multiple of 16")
    expect_error(lambda: parse(bad_map(0, box=[64, 128])), "more than the 64-byte swizzle")
    expect_error(lambda: parse(bad_map(1, operand="meta")), "makes tensor maps of values")
    expect_error(lambda: parse(bad_map(1, data_type=13)), "not a CUtensorMapDataType")
    expect_error(lambda: parse(bad_map(1, param="values_map")), "has two tensor maps")
    expect_error(lambda: parse(bad_map(1, param="b_map")),
                 "pointer parameter 'dense_map' looks like a tensor map")
    k = wgmma_info()
    k["tensor_maps"].append({"param": "out_map", "operand": "out", "data_type": 6,
                             "box": [64, 64], "swizzle": 128})
    expect_error(lambda: parse(json.dumps([k])), "names parameter(s) ['out_map']")
    expect_error(lambda: parse(json.dumps([wgmma_info(
        param_types=["ptr"] * 4 + ["i32"] * 6 + ["ptr"])])),
        "tensor-map parameter 'values_map' has type 'i32'")
    expect_error(lambda: parse(json.dumps([wgmma_info(grid=[16, 31, 1])])),
                 "grid [16, 31, 1] is not a whole number of clusters [1, 2, 1]")
    expect_error(lambda: parse(json.dumps([wgmma_info(cluster=[2, 0, 1])])),
                 "\"cluster\" must be a list of three positive integers")
    expect_error(lambda: parse(json.dumps([wgmma_info(cluster=[4, 8, 1], grid=[16, 32, 1])])),
                 "cluster [4, 8, 1] has 32 blocks")
    k = wgmma_info()
    del k["meta_threads"]
    expect_error(lambda: parse(json.dumps([k])), "meta_threads missing")
    expect_error(lambda: parse(json.dumps([wgmma_info(meta_k_per_word=0)])),
                 "\"meta_k_per_word\" must be a positive integer")
    return ("cluster, tensor maps (requests, alignment, strides, types), Hopper metadata "
            "geometry, %d error messages" % 19)


def t_ctypes_sm90a():
    """The sm_90a launcher against fake_libcuda.c: tensor maps encoded and
    copied to the device, the dynamic shared memory opt-in and the cluster
    occupancy (benchcommon.Worker._configure), the metadata conversion's
    Hopper geometry, and the cluster launch through cuLaunchKernelEx."""
    import benchcommon
    with fake_driver() as (drv, lib):
        if drv is None:
            return ("SKIP", "no C compiler")
        lib.fake_map_arg.restype = ctypes.c_uint64
        lib.fake_device_read.argtypes = [ctypes.c_uint64, ctypes.c_void_p, ctypes.c_size_t]
        drv.init()
        ki = cudrv.parse_kernel_info(json.dumps([WGMMA_INFO]))[0]
        mod, _ = drv.load_ptx(fake_ptx_for(ki))
        fn = drv.get_function(mod, ki["kernel"])
        # Tensor maps: one encode per map, one allocation, one copy, the
        # kernel parameters pointing at the device copies.
        ops = {"values": (0x7F0000001000, (4096, 2048), "f16"),
               "dense": (0x7F0000100000, (4096, 4096), "f16"),
               "out": (0x7F0000200000, (4096, 4096), "f16")}
        maps = cudrv.DeviceTensorMaps(drv, cudrv.tensor_map_requests(ki, ops))
        assert lib.fake_map_calls() == 2, lib.fake_map_calls()
        got = [lib.fake_map_arg(i) for i in (0, 1, 2, 3, 4, 5, 50, 10, 11, 20, 30, 31, 40, 41)]
        # The last map encoded: dense, K x N f16, innermost first.
        assert got == [6, 2, 0, 3, 2, 0, 0x7F0000100000, 4096, 4096, 8192, 64, 64, 1, 1], got
        assert [lib.fake_mem_count(i) for i in range(3)] == [1, 0, 1]
        base = maps.pointers["values_map"]
        assert maps.pointers["dense_map"] == base + 128, maps.pointers
        for param, want_addr, want_box in (("values_map", 0x7F0000001000, (32, 128)),
                                           ("dense_map", 0x7F0000100000, (64, 64))):
            raw = ctypes.create_string_buffer(128)
            assert lib.fake_device_read(maps.pointers[param], raw, 128) == 0
            assert raw.raw == maps.encoded[param], param
            words = [int(x) for x in np.frombuffer(raw.raw, dtype="<u8")]
            assert raw.raw[:8] == b"FAKETMAP" and words[1] == want_addr, (param, words[:7])
            assert (words[5] & 0xFFFFFFFF, words[5] >> 32) == want_box, (param, words[5])
        # _configure: the dynamic shared memory opt-in (201 KiB) and the
        # cluster occupancy; 16-block clusters need the non-portable opt-in.
        w = benchcommon.Worker.__new__(benchcommon.Worker)
        w.drv, w.cudrv = drv, cudrv
        kent = {}
        w._configure(fn, ki, kent)
        assert lib.fake_dyn_shared() == 205904 and kent["blocks_per_sm"] == 2, kent
        assert kent["cluster"] == [1, 2, 1] and kent["max_active_clusters"] == 4, kent
        assert [lib.fake_cluster_query(i) for i in range(4)] == [1, 2, 1, 1]
        assert lib.fake_func_attr(cudrv.CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED) == -1
        big = dict(ki, cluster=[1, 16, 1])
        w._configure(fn, big, {})
        assert lib.fake_func_attr(cudrv.CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED) == 1
        # The metadata conversion kernel with the Hopper geometry.
        n = 7
        lib.fake_set_param_sizes(n, (ctypes.c_int * n)(8, 8, 4, 4, 4, 4, 4))
        lib.fake_param_u64.restype = ctypes.c_uint64
        cudrv.metadata_conversion(drv, mod, ki, 0x7F0000300000, 0x7F0000400000, 256)(0)
        got = [lib.fake_param_u64(i) for i in range(n)]
        assert got == [0x7F0000300000, 0x7F0000400000, 4096, 256, 64, 16, 64 * 16 * 512], got
        assert [lib.fake_launch_config(i) for i in range(7)] == [2048, 1, 1, 256, 1, 1, 0]
        # The kernel: cuLaunchKernelEx with the cluster attribute, the maps'
        # device addresses among the parameters.
        bufs = {"values": 0x7F0000001000, "meta": 0x7F0000400000, "dense": 0x7F0000100000,
                "out": 0x7F0000200000}
        bufs.update(maps.pointers)
        args = cudrv.kernel_arg_values(ki, bufs, {"M": 4096, "N": 4096, "K": 4096,
                                                  "VC": 2048, "MC": 256})
        plain = lib.fake_launch_config(7)
        launch, got = fake_launch(lib, drv, fn, ki, args)
        assert got == [v for _, _, v in args], [hex(x) for x in got]
        assert got[9:] == [base, base + 128]
        ex = [lib.fake_launch_ex_config(i) for i in range(13)]
        assert ex == [16, 32, 1, 288, 1, 1, 205904, 1, 4, 1, 2, 1, 1], ex
        assert lib.fake_launch_config(7) == plain, "a cluster kernel went through cuLaunchKernel"
        try:
            launch(12345)  # the fake accepts only the default stream
            raise AssertionError("launch error not raised")
        except cudrv.CudaError as e:
            assert ("cuLaunchKernelEx(grid=[16, 32, 1], block=[288, 1, 1], shared=205904, "
                    "cluster=[1, 2, 1]) failed: CUDA_ERROR_INVALID_VALUE" in str(e)), e
        # A 1x1x1 cluster is an ordinary launch.
        fake_launch(lib, drv, fn, dict(ki, cluster=[1, 1, 1]), args)
        assert lib.fake_launch_config(7) == plain + 1 and lib.fake_launch_ex_config(12) == 1
        maps.free()
        assert lib.fake_mem_count(1) == 1
        # A driver without the CUDA 12 entry points says so when one is used.
        drv.missing.add("cuLaunchKernelEx")
        try:
            cudrv.Launch(drv, fn, ki, args)
            raise AssertionError("missing cuLaunchKernelEx not reported")
        except cudrv.CudaError as e:
            assert "has no cuLaunchKernelEx (cluster launches need a CUDA 12.0" in str(e), e
        drv.unload(mod)
        return ("tensor maps (encode arguments, aligned map buffer, device copy), dynamic "
                "shared memory opt-in, cluster occupancy and non-portable opt-in, Hopper "
                "metadata conversion, cuLaunchKernelEx with the cluster attribute")


CUDA_ABI_C = r"""
#include <cuda.h>
#include <stddef.h>
#include <stdio.h>
int main(void) {
  printf("%zu %zu %zu %zu %zu %zu %zu %zu %zu\n", sizeof(CUlaunchConfig),
         offsetof(CUlaunchConfig, sharedMemBytes), offsetof(CUlaunchConfig, hStream),
         offsetof(CUlaunchConfig, attrs), offsetof(CUlaunchConfig, numAttrs),
         sizeof(CUlaunchAttribute), offsetof(CUlaunchAttribute, value),
         offsetof(CUlaunchAttribute, value.clusterDim.y), sizeof(CUtensorMap));
  printf("%d %d %d %d %d %d %d %d %d %d %d %d %d\n", (int)CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION,
         (int)CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED,
         (int)CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
         (int)CU_TENSOR_MAP_DATA_TYPE_FLOAT16, (int)CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
         (int)CU_TENSOR_MAP_DATA_TYPE_FLOAT32, (int)CU_TENSOR_MAP_SWIZZLE_32B,
         (int)CU_TENSOR_MAP_SWIZZLE_64B, (int)CU_TENSOR_MAP_SWIZZLE_128B,
         (int)CU_TENSOR_MAP_L2_PROMOTION_L2_128B, (int)CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
         (int)CU_TENSOR_MAP_INTERLEAVE_NONE, (int)_Alignof(CUtensorMap));
  return 0;
}
"""


def t_cuda_abi():
    """cudrv's ctypes structures and driver constants against the CUDA
    toolkit's cuda.h (where it is here)."""
    hdr = os.path.join(CUDA, "include", "cuda.h")
    cc = shutil.which("cc") or shutil.which("gcc")
    if not os.path.isfile(hdr) or not cc:
        return ("SKIP", "no %s or no C compiler" % hdr)
    tmp = tempfile.mkdtemp(prefix="gpu-bench-abi-")
    try:
        src, exe = os.path.join(tmp, "abi.c"), os.path.join(tmp, "abi")
        with open(src, "w") as f:
            f.write(CUDA_ABI_C)
        p = subprocess.run([cc, "-I", os.path.dirname(hdr), src, "-o", exe],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        assert p.returncode == 0, p.stdout.decode()
        lines = subprocess.run([exe], stdout=subprocess.PIPE).stdout.decode().split("\n")
        sizes = [int(x) for x in lines[0].split()]
        consts = [int(x) for x in lines[1].split()]
        C, A = cudrv.CUlaunchConfig, cudrv.CUlaunchAttribute
        mine = [ctypes.sizeof(C), C.sharedMemBytes.offset, C.hStream.offset, C.attrs.offset,
                C.numAttrs.offset, ctypes.sizeof(A), A.value.offset,
                A.value.offset + cudrv._ClusterDim.y.offset, cudrv.TENSOR_MAP_BYTES]
        assert sizes == mine, "cuda.h %s, cudrv %s" % (sizes, mine)
        want = [cudrv.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION,
                cudrv.CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED,
                cudrv.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                cudrv.TENSOR_MAP_DATA_TYPES["f16"][0], cudrv.TENSOR_MAP_DATA_TYPES["bf16"][0],
                cudrv.TENSOR_MAP_DATA_TYPES["f32"][0], cudrv.TENSOR_MAP_SWIZZLE[32],
                cudrv.TENSOR_MAP_SWIZZLE[64], cudrv.TENSOR_MAP_SWIZZLE[128],
                cudrv.CU_TENSOR_MAP_L2_PROMOTION_L2_128B, cudrv.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
                cudrv.CU_TENSOR_MAP_INTERLEAVE_NONE]
        assert consts[:-1] == want, "cuda.h %s, cudrv %s" % (consts[:-1], want)
        # The host buffer's alignment covers the struct's (64 or 128 by version).
        assert cudrv.TENSOR_MAP_ALIGN % consts[-1] == 0, (cudrv.TENSOR_MAP_ALIGN, consts[-1])
        return ("CUlaunchConfig, CUlaunchAttribute, CUtensorMap (size, alignment) and 12 "
                "constants match %s" % hdr)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# ---------------------------------------------------------------------------
# 3. report
# ---------------------------------------------------------------------------

def fake_programs(table=shapes.QUICK, dtypes=("f16", "bf16")):
    progs = []
    for i, (name, group, m, n, k) in enumerate(table):
        for dt in dtypes:
            progs.append({"name": "%s-%s" % (name, dt), "shape": name, "group": group,
                          "M": m, "N": n, "K": k, "dtype": dt,
                          "out_dtype": shapes.out_dtype(dt),
                          "dense_transposed": shapes.dense_transposed(dt),
                          "status": "ok", "kernel": GOOD_INFO[0],
                          "sm90a": {"target": "sm_90a", "status": "ok", "kernel": WGMMA_INFO,
                                    "ptx": "k_sm90a.ptx", "kernel_info": "k_sm90a.json"}})
    return progs


def timing(ms):
    return {"times_ms": [ms, ms * 1.1, ms * 0.95], "median_ms": ms, "min_ms": ms * 0.95,
            "repeats": 3, "warmup": 4}


def t_report():
    progs = fake_programs()
    progs[1]["sm90a"] = {"target": "sm_90a", "status": "failed",
                         "error": "ptxas -arch=sm_90a rejected the PTX:\nline 3"}
    progs[5]["sm90a"] = {"target": "sm_90a", "status": "not_built", "error": "--mock: none"}
    ok = lambda ms, **kw: dict(timing(ms), status="ok", rel_error=1e-3, **kw)  # noqa: E731
    unav = {"status": "unavailable", "error": "RuntimeError: only sm_8x\nmore"}
    recs = [
        {"type": "env", "gpu": {"name": "Fake GPU", "l2_bytes": 50 << 20,
                                "memory_bytes": 80 << 30}, "software": {"torch": "x"}},
        {"type": "format_check", "ok": True},
        {"type": "result", "index": 0, "methods": {
            "stc": ok(2.0, kernel=dict(GOOD_INFO[0], registers=96, blocks_per_sm=1)),
            "stc_sm90a": ok(0.5, kernel=dict(WGMMA_INFO, registers=168, blocks_per_sm=1)),
            "cublas": ok(1.0), "cutlass": unav, "cusparselt": ok(0.8)}, "copies": 3},
        {"type": "result", "index": 1, "methods": {
            "stc": dict(timing(3.0), status="wrong", rel_error=0.5, error="differs"),
            "stc_sm90a": {"status": "build_failed", "error": "ptxas -arch=sm_90a rejected"},
            "cublas": ok(1.0), "cutlass": unav, "cusparselt": ok(0.8)}},
        {"type": "result", "index": 2, "build_failed": "stc-compile exited with status 1"},
        {"type": "result", "index": 3, "skipped": "time budget used up"},
        {"type": "result", "index": 4, "worker_died": "killed: no output for 150 s"},
    ]
    meta = {"utc": "20260101T000000Z", "time_budget_s": 400, "stall_s": 150,
            "max_method_s": 0.5, "max_repeats": 200, "tolerance": 1e-2}
    doc = report.assemble({"mock": False, "quick": True, "commit": "abc1234def",
                           "commit_short": "abc1234", "target": "sm_90", "flags": []},
                          recs, progs, list(range(len(progs))), meta)
    json.dumps(doc)
    r0 = doc["results"][0]
    assert abs(r0["ratios"]["stc_speedup_vs_cublas"] - 0.5) < 1e-12, r0["ratios"]
    assert "stc_speedup_vs_cutlass" not in r0["ratios"]
    assert abs(r0["methods"]["stc"]["tflops_median"]
               - r0["flop"] / 2e-3 / 1e12) < 1e-9
    assert "stc_speedup_vs_cublas" not in doc["results"][1]["ratios"], "wrong result used"
    assert doc["results"][2]["methods"]["stc"]["status"] == "build_failed"
    assert doc["results"][3]["methods"]["cublas"]["status"] == "skipped"
    assert doc["results"][5]["methods"]["stc"]["status"] == "not_run"
    assert doc["summary"]["ok"] is False
    r0 = doc["results"][0]["ratios"]
    assert abs(r0["stc_sm90a_speedup_vs_cublas"] - 2.0) < 1e-12, r0
    assert abs(r0["stc_sm90a_speedup_vs_cusparselt"] - 1.6) < 1e-12, r0
    assert abs(r0["stc_sm90a_speedup_vs_stc"] - 4.0) < 1e-12, r0
    sm = [e["methods"]["stc_sm90a"]["status"] for e in doc["results"]]
    assert sm == ["ok", "build_failed", "not_run", "skipped", "not_run", "not_built"], sm
    assert "rejected the PTX" in doc["results"][1]["methods"]["stc_sm90a"]["error"]
    assert doc["results"][0]["large"] and not doc["results"][2]["large"]
    md = report.markdown(doc)
    for s in ("| square-4096 | 4096 | 4096 | 4096 | 2.0000 (1.9000) | 68.7 | 0.5000 (0.4750) "
              "| 274.9 |",
              "0.50×", "CUTLASS 2:4: unavailable: RuntimeError: only sm_8x, on 2 program(s)",
              "STC: wrong: differs (rel. error 5.00e-01)", "build_failed", "## bf16",
              "| square-4096-f16 | STC | `spmm_kernel` |",
              "| square-4096-f16 | STC sm_90a | `spmm_sm90a` | 16×32×1 | 288×1×1 | wgmma "
              "| 1×2×1 | 205904 | 168 |",
              "## STC sm_90a speedups",
              "| square-4096 | f16 | yes | `wgmma` | 274.9 | 2.00× | 1.60× | – | 4.00× |",
              "STC sm_90a: not_built: --mock: none, on 1 program(s)",
              "- ≥ 1.35× cuBLAS dense at square-8192-f16: not in this run.",
              "- ≥ 1.00× cuSPARSELt 2:4 on every large shape (every dimension (M, N, K) >= "
              "2048): measured on 1 of 2 large programs; 1 at or above 1.00×; lowest 1.60× "
              "(square-4096-f16); kernel variant `wgmma`."):
        assert s in md, "markdown lacks %r:\n%s" % (s, md)
    report.compact(doc)
    # DESIGN section 8's targets, on the programs they name.
    big = fake_programs([("square-8192", "square", 8192, 8192, 8192),
                         ("llm-up-11008x4096-n2048", "llm", 11008, 2048, 4096),
                         ("bert-base-attn-768x768-b8", "bert", 768, 1024, 768)])
    recs2 = recs[:2] + [
        {"type": "result", "index": i, "methods": {
            "stc": ok(2.0), "stc_sm90a": ok(sm_ms, kernel=dict(WGMMA_INFO)), "cublas": ok(1.5),
            "cutlass": unav, "cusparselt": ok(1.0)}}
        for i, sm_ms in enumerate((1.0, 1.25, 1.0, 0.8, 2.0, 0.5))]
    recs2[2]["methods"]["cusparselt"] = unav
    d2 = report.assemble({"target": "sm_90", "target_sm90a": "sm_90a"}, recs2, big,
                         list(range(len(big))), meta)
    t = d2["design_targets"]
    dn, lg = t["sm90a_vs_cublas_dense"], t["sm90a_vs_cusparselt_large"]
    assert dn["program"] == "square-8192-f16" and abs(dn["ratio"] - 1.5) < 1e-12, dn
    assert dn["at_or_above_target"] is True and dn["sm90a_variant"] == "wgmma", dn
    assert (lg["large_programs_in_run"], lg["measured"], lg["at_or_above_target"]) == (4, 3, 2), lg
    assert lg["min_ratio_program"] == "square-8192-bf16", lg
    assert abs(lg["min_ratio"] - 1.0 / 1.25) < 1e-12, lg
    assert [x["program"] for x in lg["programs"]] == [e["name"] for e in d2["results"][:4]]
    assert d2["summary"]["ok"] is True, d2["summary"]
    md2 = report.markdown(d2)
    for s in ("- ≥ 1.35× cuBLAS dense at square-8192-f16: measured 1.50× (kernel variant "
              "`wgmma`).", "measured on 3 of 4 large programs; 2 at or above 1.00×; lowest "
              "0.80× (square-8192-bf16)"):
        assert s in md2, "markdown lacks %r:\n%s" % (s, md2)
    # A manifest without sm_90a kernels (the mock, an older build): not a failure.
    old = fake_programs()
    for p in old:
        del p["sm90a"]
    recs3 = recs[:2] + [{"type": "result", "index": i, "methods": {
        "stc": ok(1.0), "cublas": ok(1.0), "cutlass": unav, "cusparselt": ok(1.0)}}
        for i in range(len(old))]
    d3 = report.assemble({"mock": True}, recs3, old, list(range(len(old))), meta)
    assert d3["summary"]["ok"] is True, d3["summary"]
    assert {e["methods"]["stc_sm90a"]["status"] for e in d3["results"]} == {"not_built"}
    assert "## STC sm_90a speedups" not in report.markdown(d3)
    return ("ratios (both STC kernels), statuses, tables, DESIGN §8 targets, a manifest "
            "without sm_90a")


#: An i8 sm_90a kernel info as stc-compile --target=sm_90a writes it for a
#: benchmark program (B given N x K): wgmma s8, byte (UINT8) tensor maps.
I8_WGMMA = {"accumulator": "s32", "dense_transposed": True, "input_type": "i8",
            "output_type": "i32", "mma": "m64n64k64", "block": [256, 1, 1],
            "cluster": [1, 1, 1], "shared_bytes": 74848, "stages": 6, "tile": [64, 64],
            "tensor_maps": [{"box": [64, 64], "data_type": 0, "operand": "values",
                             "param": "values_map", "swizzle": 64},
                            {"box": [128, 64], "data_type": 0, "operand": "dense",
                             "param": "dense_map", "swizzle": 128}]}


def t_report_int8():
    """The report with i8 programs beside f16 ones: TOPS, tables and a
    target block of their own, ratios only between int8 methods."""
    table = [("square-8192", "square", 8192, 8192, 8192),
             ("bert-base-attn-768x768-b8", "bert", 768, 1024, 768)]
    progs = fake_programs(table, dtypes=("f16", "i8"))
    ok = lambda ms, **kw: dict(timing(ms), status="ok", rel_error=0.0, **kw)  # noqa: E731
    unav = {"status": "unavailable", "error": "RuntimeError: only sm_8x"}
    i8k = dict(WGMMA_INFO, **I8_WGMMA)
    recs = [
        {"type": "env", "gpu": {"name": "Fake GPU"}, "software": {"torch": "x"}},
        {"type": "format_check", "ok": True},
        {"type": "result", "index": 0, "methods": {
            "stc": ok(4.0), "stc_sm90a": ok(1.0, kernel=dict(WGMMA_INFO)), "cublas": ok(1.5),
            "cutlass": unav, "cusparselt": ok(1.2)}},
        {"type": "result", "index": 1, "unit": "TOPS", "methods": {
            "stc": ok(2.0, tolerance="exact", mismatches=0),
            "stc_sm90a": ok(0.5, tolerance="exact", mismatches=0, kernel=i8k),
            "cublas": ok(1.0, api="torch._int_mm"), "cutlass": unav,
            "cusparselt": ok(0.8, api="torch._cslt_sparse_mm")}},
        {"type": "result", "index": 2, "methods": {
            "stc": ok(0.1), "stc_sm90a": ok(0.05), "cublas": ok(0.1), "cutlass": unav,
            "cusparselt": ok(0.1)}},
        {"type": "result", "index": 3, "methods": {
            "stc": ok(0.1), "stc_sm90a": dict(timing(0.04), status="wrong", rel_error=0.3,
                                              tolerance="exact", mismatches=17,
                                              error="result differs: 17 outputs differ"),
            "cublas": ok(0.1), "cutlass": unav,
            "cusparselt": {"status": "unavailable",
                           "error": "RuntimeError: CUDA error: operation not supported"}}},
    ]
    meta = {"utc": "20260101T000000Z", "time_budget_s": 400, "stall_s": 150,
            "max_method_s": 0.5, "max_repeats": 200, "tolerance": 1e-2}
    doc = report.assemble({"target": "sm_90", "target_sm90a": "sm_90a"}, recs, progs,
                          list(range(len(progs))), meta)
    json.dumps(doc)
    r = {e["name"]: e for e in doc["results"]}
    assert [e["unit"] for e in doc["results"]] == ["TFLOP/s", "TOPS"] * 2
    assert r["square-8192-i8"]["dense_transposed"] and r["square-8192-i8"]["out_dtype"] == "i32"
    ri = r["square-8192-i8"]["ratios"]
    assert abs(ri["stc_sm90a_speedup_vs_cublas"] - 2.0) < 1e-12, ri
    assert abs(ri["stc_sm90a_speedup_vs_cusparselt"] - 1.6) < 1e-12, ri
    assert abs(r["square-8192-f16"]["ratios"]["stc_sm90a_speedup_vs_cublas"] - 1.5) < 1e-12
    assert "stc_sm90a_speedup_vs_cublas" not in r["bert-base-attn-768x768-b8-i8"]["ratios"]
    t = doc["design_targets"]
    # The f16 targets see the f16 programs only, the int8 block the i8 ones.
    assert t["sm90a_vs_cublas_dense"]["program"] == "square-8192-f16"
    assert abs(t["sm90a_vs_cublas_dense"]["ratio"] - 1.5) < 1e-12, t
    assert [x["program"] for x in t["sm90a_vs_cusparselt_large"]["programs"]] == [
        "square-8192-f16"], t
    t8 = t["int8"]
    assert t8["sm90a_vs_cublas_dense"]["program"] == "square-8192-i8"
    assert abs(t8["sm90a_vs_cublas_dense"]["ratio"] - 2.0) < 1e-12, t8
    assert [x["program"] for x in t8["sm90a_vs_cusparselt_large"]["programs"]] == [
        "square-8192-i8"], t8
    assert doc["summary"]["ok"] is False  # the wrong sm_90a result
    md = report.markdown(doc)
    tops = 2 * 8192 ** 3 / 0.5e-3 / 1e12
    for s in ("## i8 (rates in TOPS", "| shape | M | N | K | STC ms (min) | STC TOPS | "
              "STC sm_90a ms (min) | STC sm_90a TOPS | cuBLAS TOPS |",
              "| shape | M | N | K | STC ms (min) | STC TFLOP/s |",
              "## STC sm_90a speedups\n", "## STC sm_90a speedups, int8 (TOPS)",
              "| STC sm_90a TOPS | vs cuBLAS |",
              "| square-8192 | i8 | yes | `wgmma` | %.1f | 2.00× | 1.60× | – | 4.00× |" % tops,
              "int8 (`i8`) programs: A and B int8 in [-127, 127]",
              "- ≥ 1.35× cuBLAS dense at square-8192-f16: measured 1.50×",
              "- ≥ 1.35× cuBLAS int8 dense at square-8192-i8: measured 2.00× (kernel variant "
              "`wgmma`).", "- ≥ 1.00× cuSPARSELt int8 2:4 on every large shape",
              "STC sm_90a: wrong: result differs: 17 outputs differ, on 1 program(s): "
              "bert-base-attn-768x768-b8-i8",
              "cuSPARSELt 2:4: unavailable: RuntimeError: CUDA error: operation not supported"):
        assert s in md, "markdown lacks %r:\n%s" % (s, md)
    # The int8 speedup table holds the i8 programs only, the other none.
    f16_part, i8_part = md.split("## STC sm_90a speedups, int8 (TOPS)")
    assert "| i8 |" not in f16_part.split("## STC sm_90a speedups\n")[1]
    assert "| f16 |" not in i8_part.split("## STC kernels")[0]
    assert "program (TFLOP/s; i8: TOPS)" in report.compact(doc)
    return ("TOPS columns and units, i8 tables and targets of their own, ratios between "
            "int8 methods only, unavailable and wrong int8 rows")


# ---------------------------------------------------------------------------
# Shared by the GEMM and the convolution checks below
# ---------------------------------------------------------------------------

def write_manifest(path, schema, progs, **fields):
    """A build manifest as the build steps write it (schema, commit,
    target ...; `fields` added) for the programs `progs`."""
    man = {"schema": schema, "utc": "x", "quick": True, "mock": False, "commit": "0" * 40,
           "commit_short": "0000000", "dirty": False, "target": "sm_90", "flags": []}
    man.update(fields)
    man["programs"] = progs
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(man, f)
    return path


def bench_run(script, mp, tmp, tag, args):
    """`script run` (gemm_bench.py, conv_bench.py) on manifest mp, results
    copied to tmp/out-TAG: (exit status, the results document, output)."""
    out = os.path.join(tmp, "out-" + tag)
    p = subprocess.run([sys.executable, os.path.join(HERE, script), "run",
                        "--manifest", mp, "--results-dir", os.path.join(tmp, "res"),
                        "--copy-to", out] + args,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=600)
    text = p.stdout.decode(errors="replace")
    js = [g for g in os.listdir(out) if g.endswith(".json")] if os.path.isdir(out) else []
    assert len(js) == 1, "no results JSON (exit %d):\n%s" % (p.returncode, text[-3000:])
    with open(os.path.join(out, js[0])) as f:
        return p.returncode, json.load(f), text


def check_build_dir(work, expect_mock, nprogs, parse, check=None):
    """A `build --quick` / `build-conv --quick` work directory: nprogs
    programs, all ok, each with PTX, kernel info (parse: the benchmark's
    parser; check(program, kernel info) asserts the rest) and program text,
    the PTX .entry matching, ptxas -arch=<target> accepting it. Returns
    (manifest, the check's summary)."""
    with open(os.path.join(work, "manifest.json")) as f:
        man = json.load(f)
    assert man["mock"] == expect_mock and man["quick"] is True
    progs = man["programs"]
    assert len(progs) == nprogs, len(progs)
    ptxas = os.path.join(CUDA, "bin", "ptxas")
    variants = {}
    for p in progs:
        assert p["status"] == "ok", "%s: %s" % (p["name"], p.get("error"))
        assert os.path.getsize(os.path.join(work, p["mlir"])) > 0, p["name"]
        # The program's kernel, and the sm_90a one where the build made it
        # (the GEMM benchmark's "sm90a"; --mock: not built).
        builds = [(man["target"], p)]
        sub = p.get("sm90a")
        if isinstance(sub, dict):
            assert sub["status"] == ("not_built" if expect_mock else "ok"), (p["name"], sub)
            if sub["status"] == "ok":
                builds.append((sub["target"], sub))
        for target, b in builds:
            for key in ("ptx", "kernel_info"):
                assert os.path.getsize(os.path.join(work, b[key])) > 0, (p["name"], key)
            with open(os.path.join(work, b["kernel_info"])) as f:
                ki = parse(f.read())
            assert len(ki) == 1
            with open(os.path.join(work, b["ptx"])) as f:
                cudrv.check_ptx_against_info(f.read(), ki[0])
            if check:
                check(p, ki[0])
            variants.setdefault(target, []).append(ki[0].get("variant", "?"))
            if os.access(ptxas, os.X_OK):
                r = subprocess.run([ptxas, "-arch=" + target, os.path.join(work, b["ptx"]),
                                    "-o", os.devnull],
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
                assert r.returncode == 0, "ptxas -arch=%s rejected %s:\n%s" % (
                    target, b["ptx"], r.stdout.decode())
    size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(work) for f in fs)
    return man, "%d programs, PTX + kernel info, ptxas %s ok%s; %.2f MiB" % (
        len(progs), ", ".join("-arch=%s (%s)" % (t, "/".join(sorted(set(v))))
                              for t, v in variants.items()),
        "" if os.access(ptxas, os.X_OK) else " (no ptxas: SKIPPED)", size / 2**20)


def quick_build(step, work_env, work, extra):
    """`run_gpu_bench.sh STEP --quick EXTRA` into work (work_env: the
    variable that names the work directory); asserts it succeeded."""
    env = dict(os.environ, **{work_env: work})
    p = subprocess.run([os.path.join(ROOT, "bench", "run_gpu_bench.sh"), step, "--quick"]
                       + extra, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
    out = p.stdout.decode(errors="replace")
    assert p.returncode == 0, "%s --quick%s exited %d:\n%s" % (
        step, "".join(" " + x for x in extra), p.returncode, out[-4000:])


def mock_build(step, work_env, work_name, check):
    """`run_gpu_bench.sh STEP --quick --mock` (nvcc; SKIP without it) into
    bench/work/WORK_NAME, then check(work, True)."""
    if not shutil.which("nvcc", path=os.path.join(CUDA, "bin")):
        return ("SKIP", "no nvcc in %s/bin" % CUDA)
    work = os.path.join(ROOT, "bench", "work", work_name)
    quick_build(step, work_env, work, ["--mock"])
    return check(work, True)


# ---------------------------------------------------------------------------
# 4. gemm_bench's parent, without torch
# ---------------------------------------------------------------------------

def t_parent():
    tmp = tempfile.mkdtemp(prefix="gpu-bench-selftest-")
    try:
        progs = fake_programs()
        progs[0]["status"] = "failed"
        progs[0]["error"] = "stc-compile exited with status 1"
        mp = write_manifest(os.path.join(tmp, "gpu", "manifest.json"), "stc-gpu-gemm-build/1",
                            progs)
        # No torch on this machine: the worker dies at start; every program
        # must still end with a record and the parent must write results.
        rc, doc, text = bench_run("gemm_bench.py", mp, tmp, "parent", ["--time-budget", "60"])
        assert rc == 1, "exit status %d:\n%s" % (rc, text)
        got = sorted(os.listdir(os.path.join(tmp, "out-parent")))
        assert len(got) == 3 and any(g.endswith(".md") for g in got), got
        js = [g for g in got if g.endswith(".json")][0]
        st = [e["methods"]["stc"]["status"] for e in doc["results"]]
        assert st[0] == "build_failed" and all(s == "not_run" for s in st[1:]), st
        err = doc["results"][1]["methods"]["stc"]["error"]
        has_torch = subprocess.run([sys.executable, "-c", "import torch"],
                                   stderr=subprocess.DEVNULL).returncode == 0
        if not has_torch:
            assert "worker failed before running any program" in err, err
            assert "torch" in err, err
        return "worker failure and build failures end as recorded results (%s)" % js
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def have_torch():
    return subprocess.run([sys.executable, "-c", "import torch"],
                          stderr=subprocess.DEVNULL).returncode == 0


def t_torch_ops():
    if not have_torch():
        return ("SKIP", "no torch for %s" % sys.executable)
    import torch
    t, n = format24.TorchOps(), format24.NumpyOps()
    k = 0
    for a in matrices():
        ta = torch.from_numpy(a.copy())
        p = format24.prune24(ta, t)
        v, m = format24.compress24(p, t)
        np_p = format24.prune24(a, n)
        np_v, np_m = format24.compress24(np_p, n)
        assert m.dtype == torch.int16
        assert (p.numpy() == np_p).all() and (v.numpy() == np_v).all(), "values differ"
        assert (m.numpy().view(np.uint16) == np_m).all(), "metadata differs"
        assert torch.equal(format24.decompress24(v, m, t), p)
        k += 1
    b = torch.randn(32, 128).to(torch.bfloat16)
    p = format24.prune24(b, t)
    v, m = format24.compress24(p, t)
    assert torch.equal(format24.decompress24(v, m, t), p)
    assert (p.float().numpy() == format24.prune24(b.float().numpy(), n)).all()
    # int8, as the i8 programs draw it: [-127, 127], many ties and zeros.
    c = np.random.default_rng(9).integers(-127, 128, (32, 256)).astype(np.int8)
    c[:, 1::4] = c[:, 0::4]
    p = format24.prune24(torch.from_numpy(c), t)
    v, m = format24.compress24(p, t)
    np_v, np_m = format24.compress24(format24.prune24(c, n), n)
    assert p.dtype == torch.int8 and (v.numpy() == np_v).all(), "int8 values differ"
    assert (m.numpy().view(np.uint16) == np_m).all(), "int8 metadata differs"
    assert torch.equal(format24.decompress24(v, m, t), p)
    return "%d matrices + bf16 + int8, torch %s" % (k, torch.__version__)


def sim_manifest(tmp):
    """Programs a, b, c in f16, bf16 and i8 (both STC kernels built: the
    sm_90 one, and an sm_90a one with tensor maps, a cluster and 201 KiB of
    shared memory; i8: B given N x K, byte tensor maps, i32 outputs), d-f16
    (the sm_90 build failed, the sm_90a one not), d-bf16 (the other way
    round) and e-f16 (no sm_90a kernel built, as the mock)."""
    progs = []
    ptx = SAMPLE_PTX
    for name, m, n, k in (("a", 64, 32, 128), ("b", 96, 16, 256), ("c", 128, 64, 64),
                          ("d", 64, 16, 64), ("e", 32, 8, 32)):
        for dt in shapes.DTYPES:
            pn = "%s-%s" % (name, dt)
            if pn in ("e-bf16", "d-i8", "e-i8"):
                continue
            out, tr = shapes.out_dtype(dt), shapes.dense_transposed(dt)
            rel = os.path.join("programs", pn)
            os.makedirs(os.path.join(tmp, "gpu", rel))
            ki = dict(GOOD_INFO[0], dense_transposed=tr)
            del ki["problem"]
            with open(os.path.join(tmp, "gpu", rel, "k.ptx"), "w") as f:
                f.write(ptx)
            with open(os.path.join(tmp, "gpu", rel, "k.json"), "w") as f:
                json.dump([ki], f)
            ka = wgmma_info(R=m, P=n, K=k, grid=[1, 2, 1],
                            **(I8_WGMMA if dt == "i8" else {}))
            ka.update(input_type=dt, output_type=out, cluster=[1, 2, 1])
            for tm in ka["tensor_maps"]:
                tm["data_type"] = cudrv.TENSOR_MAP_DATA_TYPES[dt][0]
            with open(os.path.join(tmp, "gpu", rel, "k_sm90a.ptx"), "w") as f:
                f.write(fake_ptx_for(ka))
            with open(os.path.join(tmp, "gpu", rel, "k_sm90a.json"), "w") as f:
                json.dump([ka], f)
            p = {"name": pn, "shape": name, "group": "t", "M": m, "N": n, "K": k,
                 "dtype": dt, "out_dtype": out, "dense_transposed": tr, "status": "ok",
                 "kernel": ki,
                 "ptx": os.path.join(rel, "k.ptx"), "kernel_info": os.path.join(rel, "k.json"),
                 "sm90a": {"target": "sm_90a", "status": "ok", "kernel": ka,
                           "ptx": os.path.join(rel, "k_sm90a.ptx"),
                           "kernel_info": os.path.join(rel, "k_sm90a.json")}}
            if pn == "d-f16":
                p.update(status="failed", error="stc-compile exited with status 1: planted")
            if pn == "d-bf16":
                p["sm90a"].update(status="failed", error="ptxas -arch=sm_90a rejected: planted")
            if pn == "e-f16":
                p["sm90a"] = {"target": None, "status": "not_built", "error": "planted"}
            progs.append(p)
    return write_manifest(os.path.join(tmp, "gpu", "manifest.json"), "stc-gpu-gemm-build/1",
                          progs, kernel_source="simulated", target_sm90a="sm_90a")


#: The settings of each benchmark's simulated runs (sized for the self test).
SIM_OPTIONS = {
    "gemm_bench.py": ["--time-budget", "120", "--max-method-s", "0.05", "--max-repeats", "20"],
    "conv_bench.py": ["--time-budget", "200", "--max-method-s", "0.02", "--max-repeats", "10"],
}


def sim_run(script, mp, tmp, tag, extra):
    """`script run --simulate` (its worker on the CPU, a stand-in kernel
    computing from the packed parameters): bench_run's result."""
    return bench_run(script, mp, tmp, tag, SIM_OPTIONS[script] + ["--simulate"] + extra)


def check_int8_baselines(e):
    """An i8 program's baselines in a simulated run: each ran (ok, exact)
    or is unavailable with its reason (torch without torch._int_mm or
    cuSPARSELt, as on this CPU), never wrong or crashed; their APIs are the
    int8 ones."""
    for m in report.BASELINES:
        b = e["methods"][m]
        assert b["status"] in ("ok", "unavailable"), (e["name"], m, b)
        if b["status"] == "unavailable":
            assert b.get("error"), (m, b)
        else:
            assert b["tolerance"] == "exact" and b["mismatches"] == 0, (m, b)
            assert b["out_dtype"] == "int32", (m, b)
    cb = e["methods"]["cublas"]
    assert "torch._int_mm" in cb["api"] and "K contiguous" in cb["b_layout"], cb
    if cb["status"] != "ok":
        # The contiguous B was tried too, and said why it did not run.
        assert [x["b_layout"] for x in cb["other_layouts"]] == ["K x N contiguous copy"], cb
        assert cb["other_layouts"][0]["status"] == "unavailable", cb
    assert "out_dtype=torch.int32" in e["methods"]["cusparselt"]["api"]


def t_worker_sim():
    if not have_torch():
        return ("SKIP", "no torch for %s" % sys.executable)
    tmp = tempfile.mkdtemp(prefix="gpu-bench-sim-")
    try:
        # The stand-in kernel's reading of a tensor-map parameter, and the
        # mistakes it must catch (a map of another buffer, a wrong stride).
        import torch
        import benchcommon
        w = type("W", (), {"cudrv": cudrv})()
        v, dn = torch.zeros(64, 64, dtype=torch.float16), torch.zeros(128, 32,
                                                                       dtype=torch.float16)
        other = torch.zeros(64, 64, dtype=torch.float16)
        ki = wgmma_info(R=64, P=32, K=128)

        def decoded(values):
            reqs = cudrv.tensor_map_requests(ki, {
                "values": (values.data_ptr(), tuple(values.shape), "f16"),
                "dense": (dn.data_ptr(), tuple(dn.shape), "f16")})
            out = {}
            for param, req in reqs:
                raw = ctypes.create_string_buffer(benchcommon.sim_encode_tensor_map(req), 128)
                out[param] = benchcommon.sim_decode_tensor_map(ctypes.addressof(raw))
            return out
        benchcommon.sim_check_tensor_maps(w, decoded(v), {"values": v, "dense": dn})
        for maps, text in ((decoded(other), "none of this launch's buffers"),
                           (dict(decoded(v), dense_map=dict(decoded(v)["dense_map"],
                                                            strides=[32])), "expected")):
            try:
                benchcommon.sim_check_tensor_maps(w, maps, {"values": v, "dense": dn})
                raise AssertionError("a bad tensor map was accepted")
            except cudrv.CudaError as e:
                assert text in str(e), e
        mp = sim_manifest(tmp)
        rc, doc, text = sim_run("gemm_bench.py", mp, tmp, "clean", ["--only", "^[ace]-"])
        for method in report.STC_METHODS:
            st = {e["name"]: e["methods"][method] for e in doc["results"]
                  if e["name"] != "e-f16" or method == "stc"}
            assert all(e["status"] == "ok" and e["rel_error"] < 1e-2 and e["deterministic"]
                       for e in st.values()), {k: (e["status"], e.get("error"))
                                               for k, e in st.items()}
            assert all(e["repeats"] >= 10 and len(e["times_ms"]) == e["repeats"]
                       for e in st.values())
            # The i8 programs' results are exact (their kernel read B as N x K).
            assert all(e["tolerance"] == "exact" and e["mismatches"] == 0
                       for k, e in st.items() if k.endswith("-i8")), st
        assert rc == 0, "clean simulated run exited %d:\n%s" % (rc, text[-3000:])
        by = {e["name"]: e for e in doc["results"]}
        check_int8_baselines(by["a-i8"])
        assert by["a-i8"]["unit"] == "TOPS" and by["a-i8"]["out_dtype"] == "i32"
        assert by["e-f16"]["methods"]["stc_sm90a"]["status"] == "not_built"
        sa = by["a-f16"]["methods"]["stc_sm90a"]
        assert sa["kernel"]["cluster"] == [1, 2, 1] and sa["kernel"]["variant"] == "wgmma", sa
        assert sa["kernel"]["max_active_clusters"] == 1 and "tensor_maps" in sa["kernel"]
        args = dict((nm, v) for nm, _, v in sa["kernel"]["args_copy0"])
        assert {"values_map", "dense_map"} <= set(args) and args["value_cols"] == 64, args
        assert "stc_sm90a_speedup_vs_stc" in by["a-f16"]["ratios"]
        bugs = ["nan@^a-f16$", "wrong@^a-bf16$", "error@^b-f16$", "crash:stc_sm90a@^b-bf16$",
                "hang@^c-f16$", "wrong:stc_sm90a@^c-bf16$", "nan@^a-i8$",
                "wrong:stc_sm90a@^c-i8$"]
        extra = ["--stall", "8"]
        for b in bugs:
            extra += ["--simulate-bug", b]
        rc, doc, text = sim_run("gemm_bench.py", mp, tmp, "faults", extra)
        st = {e["name"]: e["methods"]["stc"] for e in doc["results"]}
        want = {"a-f16": "wrong", "a-bf16": "wrong", "b-f16": "failed", "b-bf16": "not_run",
                "c-f16": "failed", "c-bf16": "ok", "d-f16": "build_failed", "d-bf16": "ok",
                "e-f16": "ok", "a-i8": "wrong", "b-i8": "ok", "c-i8": "ok"}
        got = {k: e["status"] for k, e in st.items()}
        assert got == want, "statuses %s, expected %s\n%s" % (got, want, text[-3000:])
        # The sm_90a kernel: the same planted faults (a bug without a method
        # names both kernels), one of its own, and its build statuses.
        sm = {e["name"]: e["methods"]["stc_sm90a"] for e in doc["results"]}
        want = {"a-f16": "wrong", "a-bf16": "wrong", "b-f16": "failed", "b-bf16": "failed",
                "c-f16": "not_run", "c-bf16": "wrong", "d-f16": "ok", "d-bf16": "build_failed",
                "e-f16": "not_built", "a-i8": "wrong", "b-i8": "ok", "c-i8": "wrong"}
        got = {k: e["status"] for k, e in sm.items()}
        assert got == want, "sm_90a statuses %s, expected %s\n%s" % (got, want, text[-3000:])
        assert sm["c-bf16"]["rel_error"] > 0.1 and "median_ms" in sm["c-bf16"], sm["c-bf16"]
        assert "planted" in sm["d-bf16"]["error"] and "planted" in st["d-f16"]["error"]
        # d-f16 ran (its sm_90a kernel and the baselines) although its sm_90
        # build failed.
        d = {e["name"]: e for e in doc["results"]}["d-f16"]
        assert d["methods"]["cublas"]["status"] != "not_run", d["methods"]["cublas"]
        assert rc == 1
        assert st["a-f16"]["nan_outputs"] > 0 and "NaN" in st["a-f16"]["error"]
        assert "diagnosis" in st["a-bf16"] and st["a-bf16"]["rel_error"] > 0.1
        assert "CUDA_ERROR_INVALID_VALUE" in st["b-f16"]["error"]
        # The crash in b-bf16's sm_90a kernel is that method's failure.
        assert "worker died" in sm["b-bf16"]["error"] and "exit status 9" in sm["b-bf16"]["error"]
        assert "in stc_sm90a" in sm["b-bf16"]["error"], sm["b-bf16"]["error"]
        assert "no output for 8 s" in st["c-f16"]["error"], st["c-f16"]["error"]
        assert len(doc["worker_restarts"]) == 2, doc["worker_restarts"]
        assert "median_ms" in st["c-bf16"], "the program after the hang was not timed"
        # i8: a row left unwritten (still INT_POISON) and swapped metadata
        # are caught by the exact comparison; the baselines still run.
        a8, c8 = st["a-i8"], sm["c-i8"]
        assert a8["nan_outputs"] == 32 and a8["mismatches"] >= 32, a8
        assert "unwritten" in a8["error"] and "exact integers" in a8["error"], a8["error"]
        assert c8["mismatches"] > 0 and c8["nan_outputs"] == 0 and "median_ms" in c8, c8
        assert "diagnosis" in c8 and st["c-i8"]["status"] == "ok"
        check_int8_baselines({e["name"]: e for e in doc["results"]}["b-i8"])
        return ("clean run ok (both STC kernels; the sm_90a one through its tensor maps and "
                "cluster; i8 exact, B transposed); NaN, swapped metadata, launch error, crash, "
                "hang each recorded (i8: unwritten row, swapped metadata); build failures of "
                "either kernel; int8 baselines %s"
                % ", ".join("%s %s" % (m, by["a-i8"]["methods"][m]["status"])
                            for m in report.BASELINES))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def t_int8_baselines():
    """The int8 baselines' handling (gemm_bench.GemmWorker.run_baseline,
    dense_layouts) with CPU stand-ins for torch._int_mm and cuSPARSELt: an
    exact int32 result is ok and timed, an int8 one (not the accumulator)
    unavailable, an off-by-one wrong with its reason, an exception
    unavailable with it."""
    if not have_torch():
        return ("SKIP", "no torch for %s" % sys.executable)
    import argparse
    import torch
    import gemm_bench
    w = gemm_bench.GemmWorker.__new__(gemm_bench.GemmWorker)
    w.torch, w.sim, w.cycles_per_ms = torch, True, None
    w.args = argparse.Namespace(max_repeats=5)
    g = torch.Generator().manual_seed(3)
    a = torch.randint(-127, 128, (64, 128), generator=g, dtype=torch.int8)
    bt = torch.randint(-127, 128, (48, 128), generator=g, dtype=torch.int8)
    ref = a.double() @ bt.double().t()
    exact = lambda b: (a.long() @ b.long()).int()  # noqa: E731
    off = lambda b: exact(b).index_put_((torch.tensor([5]), torch.tensor([7])),  # noqa: E731
                                        torch.tensor([1], dtype=torch.int32), accumulate=True)

    def run(fn):
        return w.run_baseline({}, lambda: fn(bt.t()), lambda i: fn(bt.t()), lambda: ref, 0.01,
                              True)
    e = run(exact)
    assert (e["status"], e["tolerance"], e["mismatches"], e["out_dtype"]) == (
        "ok", "exact", 0, "int32") and e["repeats"] == 5, e
    e = run(lambda b: exact(b).to(torch.int8))
    assert e["status"] == "unavailable" and "not the exact int32 accumulator" in e["error"], e
    e = run(off)
    assert e["status"] == "wrong" and e["mismatches"] == 1, e
    assert "1 outputs differ, 0 unwritten" in e["error"], e["error"]
    e = run(lambda b: torch.no_such_int8_mm(a, b))
    assert e["status"] == "unavailable" and "AttributeError" in e["error"], e
    lay = w.dense_layouts(True, [bt.t(), bt.t()])
    views, copies = lay[0][1](), lay[1][1]()
    assert len(views) == len(copies) == 2 and not views[0].is_contiguous(), lay
    assert copies[0].is_contiguous() and torch.equal(copies[0], views[0]), lay
    assert [x[0] for x in w.dense_layouts(False, [bt])] == ["K x N row-major"]
    names = [x[0] for x in w.sparse_baselines(True)]
    assert names == ["cutlass", "cusparselt"], names
    return ("exact int32 ok and timed; int8 output, exception: unavailable; off by one: "
            "wrong; B layouts (K-contiguous view, then a contiguous copy)")


# ---------------------------------------------------------------------------
# 5. The program text through stc-opt and stc-run (CPU)
# ---------------------------------------------------------------------------

def program_inputs(dt, tmp):
    """A 64x48x128 program's inputs as the benchmark makes them (A pruned
    and compressed by format24; i8: integers in [-127, 127], B given
    48 x 128), saved as .npy in tmp: (their paths, the float64 reference)."""
    rng = np.random.default_rng(5)
    if shapes.is_integer(dt):
        a = rng.integers(-127, 128, (64, 128)).astype(np.int8)
        b = rng.integers(-127, 128, (48, 128)).astype(np.int8)
    else:
        a = rng.standard_normal((64, 128)).astype(np.float16)
        b = rng.standard_normal((128, 48)).astype(np.float16)
    pr = format24.prune24(a)
    v, m = format24.compress24(pr)
    kn = b.T if shapes.dense_transposed(dt) else b
    paths = []
    for nm, arr in (("v", v), ("m", m.view(np.int16)), ("b", b)):
        paths.append(os.path.join(tmp, "%s_%s.npy" % (nm, dt)))
        np.save(paths[-1], arr)
    return paths, pr.astype(np.float64) @ kn.astype(np.float64)


def t_program_text():
    opt, run = os.path.join(BIN, "stc-opt"), os.path.join(BIN, "stc-run")
    if not os.access(opt, os.X_OK):
        return ("SKIP", "no %s (build the project first)" % opt)
    tmp = tempfile.mkdtemp(prefix="gpu-bench-prog-")
    try:
        for dt in shapes.DTYPES:
            path = os.path.join(tmp, "p_%s.mlir" % dt)
            with open(path, "w") as f:
                f.write(build_programs.program_text("t", dt, shapes.out_dtype(dt), 64, 48, 128))
            p = subprocess.run([opt, path], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            assert p.returncode == 0, "stc-opt rejected the %s program:\n%s" % (
                dt, p.stdout.decode())
        if not os.access(run, os.X_OK):
            return "stc-opt parses %s (no stc-run: CPU run skipped)" % "/".join(shapes.DTYPES)
        h = subprocess.run([run, "--help"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        # The CPU kernel, and where stc-run has it, the sm_90 GPU kernel run
        # on the CPU by the project's emulator; the sm_90a kernel too once the
        # emulator runs it (TMA, mbarriers: a note until then).
        devices = [("cpu", None)] + ([("emulate", "sm_90"), ("emulate", "sm_90a")]
                                     if b"emulate" in h.stdout else [])
        errs, notes = [], []
        for dt in ("f16", "i8"):
            inputs, ref = program_inputs(dt, tmp)
            for dev, target in devices:
                what = "%s %s%s" % (dt, dev, "/" + target if target else "")
                err = stc_run_program(run, os.path.join(tmp, "p_%s.mlir" % dt), inputs, dev,
                                      target, os.path.join(tmp, "o.npy"), ref, what, notes)
                if err is not None:
                    errs.append("%s %s" % (what, err))
        return ("stc-opt parses %s; stc-run on format24's inputs (i8: exact int32): %s%s"
                % ("/".join(shapes.DTYPES), ", ".join(errs),
                   ("; " + "; ".join(notes)) if notes else ""))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def stc_run_program(run, prog, inputs, dev, target, out_path, ref, what, notes):
    """stc-run of a 64x48 program on `inputs` (--device=dev, --target):
    its rel. error against `ref` (< 1e-2), or for an integer output
    "exact" (equal to it); None, with a note, when the sm_90a kernel does
    not run on the emulator yet."""
    p = subprocess.run([run, prog, "--entry=spmm", "--device=" + dev]
                       + ["--input=" + x for x in inputs] + ["--output=" + out_path]
                       + (["--target=" + target] if target else []),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=600)
    if p.returncode != 0 and target == "sm_90a":
        first = next((ln for ln in p.stdout.decode().splitlines() if "error" in ln), "failed")
        notes.append("%s not run yet (%s)" % (what, first.strip()[:160]))
        return None
    assert p.returncode == 0, "stc-run (%s) failed:\n%s" % (what, p.stdout.decode())
    out = np.load(out_path)
    assert out.shape == (64, 48), (what, out.shape)
    if np.issubdtype(out.dtype, np.integer):
        bad = np.argwhere(out.astype(np.float64) != ref)
        assert out.dtype == np.int32 and not len(bad), (
            "stc-run (%s) on format24's inputs: %s output, %d of 64x48 differ from the exact "
            "product (first at %s)" % (what, out.dtype, len(bad), bad[:1].tolist()))
        return "exact"
    err = stc_ref.rel_error(out, ref)
    if err >= 1e-2:
        bad = [r for r in range(64) if stc_ref.rel_error(out[r], ref[r]) >= 1e-2]
        raise AssertionError("stc-run (%s) on format24's inputs (64x48x128): rel. error %.3g; "
                             "wrong rows (of 64): %s" % (what, err, bad))
    return "%.1e" % err


# ---------------------------------------------------------------------------
# 6. build --quick [--mock]
# ---------------------------------------------------------------------------

def check_int8_kernel(p, ki):
    """A built i8 program's kernel: B transposed, i8 in, i32 out; its
    sm_90a kernel (not the mock's) the wgmma s8 one (m64nNk64, byte tensor
    maps), not an mma.sp fallback, which would mean the program's form is
    wrong for it."""
    if p["dtype"] != "i8":
        return
    assert ki["dense_transposed"] is True and p["dense_transposed"] is True, (p["name"], ki)
    assert (ki["input_type"], ki["output_type"]) == ("i8", "i32"), (p["name"], ki)
    sub = p["sm90a"]
    if sub["status"] == "ok":
        k = sub["kernel"]
        assert k["variant"] == "wgmma", "%s: sm_90a variant %r, not wgmma" % (
            p["name"], k["variant"])
        assert re.fullmatch(r"m64n\d+k64", k["mma"]), (p["name"], k["mma"])
        assert {m["data_type"] for m in k["tensor_maps"]} == {0}, (p["name"], k)


def check_build(work, expect_mock):
    return check_build_dir(work, expect_mock, len(shapes.QUICK) * len(shapes.DTYPES),
                           cudrv.parse_kernel_info, check_int8_kernel)[1]


def t_build_mock():
    return mock_build("build", "GPU_BENCH_WORK", "gpu-selftest-mock", check_build)


def t_build_stc():
    sc = os.environ.get("STC_COMPILE", os.path.join(BIN, "stc-compile"))
    if not os.access(sc, os.X_OK):
        return ("SKIP", "no %s" % sc)
    h = subprocess.run([sc, "--help"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if b"--kernel-info" not in h.stdout:
        return ("SKIP", "stc-compile does not accept --kernel-info yet (GPU code generator "
                "not landed); rerun when `build/bin/stc-compile --help | grep kernel-info` "
                "prints it")
    work = os.path.join(ROOT, "bench", "work", "gpu-selftest")
    quick_build("build", "GPU_BENCH_WORK", work, [])
    return check_build(work, False)


# ---------------------------------------------------------------------------
# 7. Convolutions (conv_shapes, conv_kernel, conv_bench, build-conv)
# ---------------------------------------------------------------------------

import conv_kernel  # noqa: E402
import conv_shapes  # noqa: E402
import build_conv_programs  # noqa: E402

#: The kernel info stc-opt --stc-lower-spmm-to-gpu wrote for a 3x3 stc.conv
#: (2x8x8x16 -> 2x8x8x32, pad 1), passes/GpuKernelInfo.h's form.
CONV_INFO = {
    "K": 144, "P": 128, "R": 32, "block": [128, 1, 1],
    "conv": {"C": 16, "Cp": 16, "H": 8, "KH": 3, "KW": 3, "N": 2, "OH": 8, "OW": 8, "W": 8,
             "dilation_h": 1, "dilation_w": 1, "groups": 1, "pad_bottom": 1, "pad_left": 1,
             "pad_right": 1, "pad_top": 1, "stride_h": 1, "stride_w": 1},
    "dense_transposed": False, "grid": [2, 1, 1], "groups": 1, "input_type": "f16",
    "kernel": "stc_conv_0", "mma": "m16n8k32", "num_pointers": 4, "ordered_metadata": True,
    "output_type": "f16", "param_types": ["ptr"] * 4 + ["i32"] * 10,
    "params": ["values", "meta", "dense", "out", "R", "P", "K", "value_cols", "meta_cols",
               "N", "H", "W", "OH", "OW"],
    "shared_bytes": 0, "sparse": "rhs", "stages": 3, "static_shared_bytes": 18432,
    "tile": [64, 64], "variant": "staged"}


def small_geometry(name, h, c, f, k, stride, batch, pad=None):
    row = conv_shapes._row(name, "test", h, c, f, k, stride, 1, "test")
    if pad is not None:
        row["pad"] = pad
    return conv_shapes.geometry(row, batch)


def fake_ptx_for(kinfo):
    """A PTX text whose .entry has the kernel info's parameters."""
    sz = {"ptr": "u64", "i32": "u32", "i64": "u64"}
    ps = ",\n".join("\t.param .%s %s_param_%d" % (sz[t], kinfo["kernel"], i)
                    for i, t in enumerate(kinfo["param_types"]))
    return (".version 8.5\n.target sm_90\n.address_size 64\n.visible .entry %s(\n%s\n)\n"
            "{\n\tret;\n}\n" % (kinfo["kernel"], ps))


def t_conv_shapes():
    t = conv_shapes.table()
    assert len(conv_shapes.RESNET50) == 23 and len(t) == 46, (len(conv_shapes.RESNET50), len(t))
    assert sum(r["layers"] for r in conv_shapes.RESNET50) == 53  # ResNet-50's convolutions
    assert len({(r["H"], r["C"], r["F"], r["KH"], r["stride"]) for r in conv_shapes.RESNET50}) == 23
    g = dict(t)
    stem = g["conv1-7x7s2-3-64-b32"]
    assert (stem["OH"], stem["Cp"], stem["K"], stem["Kpad"]) == (112, 4, 196, 208), stem
    assert stem["flop"] == 2 * 32 * 112 * 112 * 64 * 7 * 7 * 3
    assert (g["l2-3x3s2-128-128-b256"]["OH"], g["l4-1x1s2-1024-2048-b32"]["OH"]) == (28, 7)
    assert g["l4-3x3-512-512-b256"]["P"] == 256 * 49
    for name, geo in t:
        assert not conv_shapes.check_geometry(geo), (name, conv_shapes.check_geometry(geo))
    # Every program parses (stc-opt when built, else upstream mlir-opt).
    opt = os.path.join(BIN, "stc-opt")
    if not os.access(opt, os.X_OK):
        opt = "/usr/lib/llvm-22/bin/mlir-opt"
    if not os.access(opt, os.X_OK):
        return "%d programs (no stc-opt/mlir-opt: text not parsed)" % len(t)
    tmp = tempfile.mkdtemp(prefix="gpu-bench-conv-")
    try:
        for name, geo in t:
            path = os.path.join(tmp, name + ".mlir")
            with open(path, "w") as f:
                f.write(conv_shapes.program_text(name, geo))
            p = subprocess.run([opt, path, "-o", os.devnull], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT)
            assert p.returncode == 0, "%s rejected %s:\n%s" % (opt, name, p.stdout.decode())
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return "23 ResNet-50 shapes (53 layers) x batch 32, 256; %d programs parse with %s" % (
        len(t), os.path.basename(opt))


def im2col_conv(x, values, meta, g):
    """stc.conv's definition as an implicit GEMM, in NumPy: Out[p, o] =
    sum_k S[o, k] * D[k, p], S the decompressed (F, Kpad) matrix and
    D[(kh, kw, c), (n, oh, ow)] the zero-padded input's patch element."""
    s = stc_ref.decompress(values, meta, g["Kpad"], axis=1).astype(np.float64)
    n, h, w, c = x.shape
    xp = np.pad(x.astype(np.float64), ((0, 0), (g["pad_top"], g["pad_bottom"]),
                                       (g["pad_left"], g["pad_right"]), (0, g["Cp"] - c)))
    cols = []
    for kh in range(g["KH"]):
        for kw in range(g["KW"]):
            sl = xp[:, kh * g["dilation"]:kh * g["dilation"] + (g["OH"] - 1) * g["stride"] + 1:
                    g["stride"], kw * g["dilation"]:kw * g["dilation"] +
                    (g["OW"] - 1) * g["stride"] + 1:g["stride"], :]
            cols.append(sl.reshape(-1, g["Cp"]))
    d = np.concatenate(cols, axis=1)                       # P x K
    d = np.pad(d, ((0, 0), (0, g["Kpad"] - g["K"])))
    return (d @ s.T).reshape(n, g["OH"], g["OW"], -1)


def t_conv_filter():
    rng = np.random.default_rng(11)
    ops = format24.numpy_ops()
    n = 0
    for geo in (small_geometry("stem", 12, 3, 8, 7, 2, 2), small_geometry("k3", 9, 16, 16, 3, 1, 2),
                small_geometry("k3s2", 9, 12, 8, 3, 2, 1), small_geometry("k1", 5, 32, 24, 1, 1, 3),
                small_geometry("k1s2", 7, 8, 8, 1, 2, 1)):
        w = rng.standard_normal((geo["F"], geo["KH"], geo["KW"], geo["Cg"])).astype(np.float32)
        w[0, 0, 0, :] = 0                                   # a tap with no non-zeros
        x = rng.standard_normal((geo["N"], geo["H"], geo["W"], geo["C"])).astype(np.float32)
        m = conv_shapes.filter_matrix(w, geo)
        assert m.shape == (geo["F"], geo["Kpad"]), m.shape
        assert np.array_equal(conv_shapes.filter_from_matrix(m, geo), w)
        pm = format24.prune24(m, ops)
        wp = conv_shapes.filter_from_matrix(pm, geo)
        # 2:4 along C for every (f, kh, kw), channels padded to Cp with zeros.
        wpad = np.pad(w, ((0, 0), (0, 0), (0, 0), (0, geo["Cp"] - geo["Cg"])))
        ref_p = stc_ref.prune_nm(wpad, 2, 4, axis=3)[..., :geo["Cg"]]
        assert np.array_equal(wp, ref_p), "pruning is not 2:4 along C per (f, kh, kw)"
        if hasattr(stc_ref, "prune_conv_filter_24"):
            assert np.array_equal(wp, stc_ref.prune_conv_filter_24(w)), "!= prune_conv_filter_24"
        v, mt = format24.compress24(pm, ops)
        rv, rm = stc_ref.compress(pm, 2, 4, axis=1)
        assert np.array_equal(v, rv) and np.array_equal(mt, rm)
        ref = stc_ref.conv2d_nhwc_ref(x, wp, stride=geo["stride"], padding=geo["pad"])
        got = im2col_conv(x, v, mt, geo)
        err = stc_ref.rel_error(got, ref)
        assert err < 1e-12, (geo["name"], err)
        n += 1
    return ("%d geometries (7x7/2 with C=3 -> Cp=4, K=196 -> 208; 3x3; 1x1; strides): filter "
            "matrix round trip, 2:4 along C, stc_ref compress, implicit GEMM == "
            "stc_ref.conv2d_nhwc_ref" % n)


def t_conv_kernel_info():
    geo = small_geometry("s", 8, 16, 32, 3, 1, 2)
    ki = conv_kernel.parse(json.dumps([CONV_INFO]))[0]
    bad, layout = conv_kernel.check(ki, geo)
    assert bad == [] and layout == {"prepadded": False}, (bad, layout)
    cudrv.check_ptx_against_info(fake_ptx_for(ki), ki)
    sizes = conv_kernel.sizes_for(ki, geo, layout, 72, 9)
    bufs = {"values": 1, "meta": 2, "input": 3, "out": 4}
    args = conv_kernel.arg_values(ki, bufs, sizes)
    assert [v for _, _, v in args] == [1, 2, 3, 4, 32, 128, 144, 72, 9, 2, 8, 8, 8, 8], args
    # Reordered/renamed parameters need no code change; unknown ones are named.
    k2 = dict(CONV_INFO, params=["input", "values", "meta", "output", "OW", "OH", "W", "H", "N",
                                 "meta_cols", "value_cols", "K", "P", "R"])
    a2 = conv_kernel.arg_values(conv_kernel.parse(json.dumps([k2]))[0], bufs, sizes)
    assert [v for _, _, v in a2] == [3, 1, 2, 4, 8, 8, 8, 8, 2, 9, 72, 144, 128, 32], a2
    k3 = dict(CONV_INFO, params=CONV_INFO["params"][:13] + ["lda"])
    expect_error(lambda: conv_kernel.parse(json.dumps([k3])), "unknown integer parameter 'lda'")
    k4 = dict(CONV_INFO, params=["values", "meta", "weights", "out"] + CONV_INFO["params"][4:])
    expect_error(lambda: conv_kernel.parse(json.dumps([k4])), "unknown pointer parameter 'weights'")
    k5 = dict(CONV_INFO, params=["values", "meta", "bias", "out"] + CONV_INFO["params"][4:])
    expect_error(lambda: conv_kernel.parse(json.dumps([k5])),
                 "exactly one pointer parameter for 'input'")
    # Geometry mismatches, a missing conv object, a pre-padded input.
    b2, _ = conv_kernel.check(dict(ki, conv=dict(ki["conv"], stride_h=2)), geo)
    assert any("conv.stride_h=2" in m for m in b2), b2
    b3, _ = conv_kernel.check({k: v for k, v in ki.items() if k != "conv"}, geo)
    assert "no \"conv\" object" in b3[0], b3
    b4, _ = conv_kernel.check(dict(ki, R=64, input_type="bf16"), geo)
    assert len(b4) == 2, b4
    pre = dict(ki, conv=dict(ki["conv"], H=10, W=10, pad_top=0, pad_left=0, pad_bottom=0,
                             pad_right=0))
    b5, lay = conv_kernel.check(pre, geo)
    assert b5 == [] and lay["prepadded"], (b5, lay)
    s5 = conv_kernel.sizes_for(pre, geo, lay, 72, 9)
    assert (s5["H"], s5["W"], s5["OH"]) == (10, 10, 8), s5
    b6, _ = conv_kernel.check(dict(ki, conv=dict(ki["conv"], pad_top=0)), geo)
    assert any("do not match the program's pads" in m for m in b6), b6
    # The mock's kernel info is valid and consistent.
    for dt_geo in (geo, small_geometry("stem", 16, 3, 8, 7, 2, 1)):
        mk = conv_kernel.parse(json.dumps(build_conv_programs.mock_kernel_info(dt_geo, "f16")))[0]
        assert conv_kernel.check(mk, dt_geo)[0] == []
    return "parsing, geometry checks, pre-padded layout, argument order from the names"


def conv_sm90a_info(geo, tile=(4, 4), cluster=None, name="stc_conv_0", prepadded=False):
    """The kernel info stc-compile --target=sm_90a writes for a convolution
    of geometry `geo` (one group, the TMA + wgmma.sp kernel): the 4-D map of
    the NHWC input (box [64 or C, TW*sw, TH*sh, 1], element strides [1, sw,
    sh, 1]), the 2-D map of the compressed filter, pixel_tile [TH, TW] and
    grid x = N * ceil(OH/TH) * ceil(OW/TW)."""
    th, tw = tile
    st = geo["stride"]
    pads = ((0, 0, 0, 0) if prepadded else
            (geo["pad_top"], geo["pad_left"], geo["pad_bottom"], geo["pad_right"]))
    hh = geo["H"] + (geo["pad_top"] + geo["pad_bottom"] if prepadded else 0)
    ww = geo["W"] + (geo["pad_left"] + geo["pad_right"] if prepadded else 0)
    conv = {"C": geo["Cg"], "Cp": geo["Cp"], "H": hh, "W": ww, "KH": geo["KH"],
            "KW": geo["KW"], "N": geo["N"], "OH": geo["OH"], "OW": geo["OW"],
            "dilation_h": 1, "dilation_w": 1, "groups": 1, "pad_top": pads[0],
            "pad_left": pads[1], "pad_bottom": pads[2], "pad_right": pads[3],
            "stride_h": st, "stride_w": st}
    gx = geo["N"] * -(-geo["OH"] // th) * -(-geo["OW"] // tw)
    return {
        "K": geo["Kpad"], "P": geo["P"], "R": geo["R"], "accumulator": "f32",
        "block": [256, 1, 1], "cluster": cluster or [1, 1, 1], "conv": conv,
        "dense_transposed": False, "grid": [gx, 1, 1], "groups": 1, "input_type": "f16",
        "kernel": name, "meta_k_per_word": 64, "meta_kernel": name + "_meta",
        "meta_layout": "canonical", "meta_rows_per_block": 64, "meta_threads": 128,
        "mma": "m64n256k32", "num_pointers": 4, "ordered_metadata": False,
        "output_type": "f16", "param_types": ["ptr"] * 4 + ["i32"] * 10 + ["ptr"] * 2,
        "params": ["values", "meta", "dense", "out", "R", "P", "K", "value_cols",
                   "meta_cols", "N", "H", "W", "OH", "OW", "values_map", "dense_map"],
        "pixel_tile": [th, tw], "shared_bytes": 222304, "sparse": "rhs", "stages": 6,
        "static_shared_bytes": 0,
        "tensor_maps": [
            {"box": [32, 64], "data_type": 6, "operand": "values", "param": "values_map",
             "swizzle": 64},
            {"box": [min(64, geo["Cg"]), tw * st, th * st, 1], "data_type": 6,
             "element_strides": [1, st, st, 1], "operand": "dense", "param": "dense_map",
             "swizzle": 128}],
        "tile": [64, 256], "variant": "wgmma"}


def t_conv_sm90a_info():
    """An sm_90a convolution kernel info: tensor maps (a 4-D one of the
    NHWC input with element strides), pixel tile and grid, arguments with
    the map parameters; the 4-D cuTensorMapEncodeTiled requests; errors."""
    geo = small_geometry("s2", 16, 64, 64, 3, 2, 2)  # 3x3/2, C = 64
    ki = conv_kernel.parse(json.dumps([conv_sm90a_info(geo)]))[0]
    bad, layout = conv_kernel.check(ki, geo)
    assert bad == [] and layout == {"prepadded": False}, (bad, layout)
    cudrv.check_ptx_against_info(fake_ptx_for(ki), ki)
    sizes = conv_kernel.sizes_for(ki, geo, layout, geo["Kpad"] // 2, geo["Kpad"] // 16)
    bufs = {"values": 1, "meta": 2, "input": 3, "out": 4, "values_map": 0x100,
            "dense_map": 0x180}
    args = conv_kernel.arg_values(ki, bufs, sizes)
    assert [v for _, _, v in args][:4] + [v for _, _, v in args][-2:] == \
        [1, 2, 3, 4, 0x100, 0x180], args
    expect_error(lambda: conv_kernel.arg_values(ki, {"values": 1, "meta": 2, "input": 3,
                                                     "out": 4}, sizes),
                 "tensor-map parameter 'values_map' has no encoded map")
    # The input's map: dims C, W, H, N innermost first, dense strides, the
    # box and element strides of the kernel info.
    shp = conv_kernel.operand_shapes(geo, layout)
    ops = {"values": (0x7F0000001000, shp["values"], "f16"),
           "dense": (0x7F0000100000, shp["dense"], "f16")}
    reqs = dict(cudrv.tensor_map_requests(ki, ops))
    d, v = reqs["dense_map"], reqs["values_map"]
    assert (d["rank"], d["dims"], d["strides"], d["box"], d["element_strides"],
            d["swizzle"]) == (4, [64, 16, 16, 2], [128, 16 * 128, 16 * 16 * 128],
                              [64, 8, 8, 1], [1, 2, 2, 1], 3), d
    assert (v["rank"], v["dims"], v["strides"], v["element_strides"], v["swizzle"]) == \
        (2, [geo["Kpad"] // 2, 64], [geo["Kpad"]], [1, 1], 2), v
    expect_error(lambda: cudrv.tensor_map_requests(ki, dict(ops, dense=(0, (2, 16, 16, 4),
                                                                        "f16"))),
                 "the stride of dimension 1 (innermost first) is 8 bytes")
    expect_error(lambda: cudrv.tensor_map_requests(ki, dict(ops, dense=(0, (512, 64), "f16"))),
                 "a rank-4 box [64, 8, 8, 1] for a buffer of shape [512, 64] (rank 2)")
    # What the checks reject: a tile that does not give the grid, a box or
    # element strides that do not match the strides, bad element strides.
    def chk(**kw):
        k = conv_sm90a_info(geo)
        k.update(kw)
        return conv_kernel.check(conv_kernel.parse(json.dumps([k]))[0], geo)[0]
    assert any("N*ceil(OH/TH)*ceil(OW/TW)" in m for m in chk(grid=[7, 1, 1])), chk(grid=[7, 1, 1])
    assert any("no \"pixel_tile\"" in m for m in chk(pixel_tile=None))
    k = conv_sm90a_info(geo)
    k["tensor_maps"][1]["element_strides"] = [1, 1, 1, 1]
    b = conv_kernel.check(conv_kernel.parse(json.dumps([k]))[0], geo)[0]
    assert any("need [1, 2, 2, 1]" in m for m in b), b
    k["tensor_maps"][1].update(element_strides=[1, 2, 2, 1], box=[64, 4, 8, 1])
    b = conv_kernel.check(conv_kernel.parse(json.dumps([k]))[0], geo)[0]
    assert any("does not match pixel_tile" in m for m in b), b
    k["tensor_maps"][1].update(element_strides=[1, 9, 2, 1])
    expect_error(lambda: conv_kernel.parse(json.dumps([k])), "each 1 to 8")
    k["tensor_maps"][1].update(element_strides=[1, 2])
    expect_error(lambda: conv_kernel.parse(json.dumps([k])), "must be 4 integers")
    k = conv_sm90a_info(geo)
    k["params"] = k["params"][:-1] + ["x_map"]
    expect_error(lambda: conv_kernel.parse(json.dumps([k])),
                 "names parameter(s) ['dense_map']")
    k = conv_sm90a_info(geo)
    del k["meta_threads"]
    expect_error(lambda: conv_kernel.parse(json.dumps([k])), "meta_threads missing")
    expect_error(lambda: conv_kernel.parse(json.dumps([conv_sm90a_info(geo, cluster=[4, 1, 1],
                                                                       tile=(8, 3))])),
                 "not a whole number of clusters")
    # A pre-padded input: the map describes the padded image.
    kp = conv_kernel.parse(json.dumps([conv_sm90a_info(geo, prepadded=True)]))[0]
    bp_, lp = conv_kernel.check(kp, geo)
    assert bp_ == [] and lp["prepadded"], (bp_, lp)
    assert conv_kernel.operand_shapes(geo, lp)["dense"] == (2, 18, 18, 64)
    return ("4-D input map (dims, strides, box, element strides), pixel tile and grid, map "
            "arguments, 10 error messages, pre-padded input")


def t_conv_ctypes_sm90a():
    """An sm_90a convolution kernel through the launcher against
    fake_libcuda.c: cuTensorMapEncodeTiled with rank 4 (dims, strides, box,
    element strides, swizzle, L2 promotion, fill), the maps' device copies,
    the 217 KiB dynamic shared memory opt-in, and the 16 parameters
    (cuLaunchKernel for a 1x1x1 cluster, cuLaunchKernelEx for a 2x1x1 one)."""
    import benchcommon
    with fake_driver() as (drv, lib):
        if drv is None:
            return ("SKIP", "no C compiler")
        lib.fake_map_arg.restype = ctypes.c_uint64
        lib.fake_device_read.argtypes = [ctypes.c_uint64, ctypes.c_void_p, ctypes.c_size_t]
        drv.init()
        geo = small_geometry("s2", 16, 64, 64, 3, 2, 2)
        ki = conv_kernel.parse(json.dumps([conv_sm90a_info(geo)]))[0]
        mod, _ = drv.load_ptx(fake_ptx_for(ki))
        fn = drv.get_function(mod, ki["kernel"])
        shp = conv_kernel.operand_shapes(geo, {"prepadded": False})
        ptrs = {"values": 0x7F0000001000, "meta": 0x7F0000002000, "input": 0x7F0000100000,
                "out": 0x7F0000200000}
        ops = {"values": (ptrs["values"], shp["values"], "f16"),
               "dense": (ptrs["input"], shp["dense"], "f16")}
        maps = cudrv.DeviceTensorMaps(drv, cudrv.tensor_map_requests(ki, ops))
        assert lib.fake_map_calls() == 2, lib.fake_map_calls()
        # The last map encoded: the NHWC input, rank 4.
        got = [lib.fake_map_arg(i) for i in (0, 1, 2, 3, 4, 5, 50, 10, 11, 12, 13, 20, 21, 22,
                                             30, 31, 32, 33, 40, 41, 42, 43)]
        assert got == [6, 4, 0, 3, 2, 0, ptrs["input"], 64, 16, 16, 2, 128, 2048, 32768,
                       64, 8, 8, 1, 1, 2, 2, 1], got
        for param, want_addr in (("values_map", ptrs["values"]), ("dense_map", ptrs["input"])):
            raw = ctypes.create_string_buffer(128)
            assert lib.fake_device_read(maps.pointers[param], raw, 128) == 0
            assert raw.raw == maps.encoded[param], param
            words = [int(x) for x in np.frombuffer(raw.raw, dtype="<u8")]
            assert raw.raw[:8] == b"FAKETMAP" and words[1] == want_addr, (param, words[:7])
        w = benchcommon.Worker.__new__(benchcommon.Worker)
        w.drv, w.cudrv = drv, cudrv
        kent = {}
        w._configure(fn, ki, kent)
        assert lib.fake_dyn_shared() == 222304 and kent["blocks_per_sm"] == 2, kent
        assert "cluster" not in kent, kent
        bufs = dict(ptrs)
        bufs.update(maps.pointers)
        args = conv_kernel.arg_values(ki, bufs, conv_kernel.sizes_for(
            ki, geo, None, geo["Kpad"] // 2, geo["Kpad"] // 16))
        plain = lib.fake_launch_config(7)
        _, got = fake_launch(lib, drv, fn, ki, args)
        assert got == [v for _, _, v in args], [hex(x) for x in got]
        assert got[:4] == [ptrs["values"], ptrs["meta"], ptrs["input"], ptrs["out"]]
        assert got[-2:] == [maps.pointers["values_map"], maps.pointers["dense_map"]]
        assert got[9:14] == [2, 16, 16, 8, 8], got[9:14]  # N, H, W, OH, OW
        assert [lib.fake_launch_config(i) for i in range(8)] == \
            [8, 1, 1, 256, 1, 1, 222304, plain + 1]
        kc = conv_kernel.parse(json.dumps([conv_sm90a_info(geo, cluster=[2, 1, 1])]))[0]
        fake_launch(lib, drv, fn, kc, args)
        ex = [lib.fake_launch_ex_config(i) for i in range(13)]
        assert ex[:7] == [8, 1, 1, 256, 1, 1, 222304] and ex[9:12] == [2, 1, 1], ex
        maps.free()
        drv.unload(mod)
        return ("rank-4 cuTensorMapEncodeTiled (dims C,W,H,N, strides, box, element strides "
                "[1,2,2,1]), device copies, dynamic shared memory opt-in, 16 parameters, "
                "cuLaunchKernel / cuLaunchKernelEx")


def t_conv_ctypes():
    """The conv kernel's 14 parameters through cudrv.Launch into fake_libcuda."""
    with fake_driver() as (drv, lib):
        if drv is None:
            return ("SKIP", "no C compiler")
        drv.init()
        mod, _ = drv.load_ptx(fake_ptx_for(CONV_INFO))
        fn = drv.get_function(mod, "spmm_kernel")
        geo = small_geometry("s", 8, 16, 32, 3, 1, 2)
        ki = conv_kernel.parse(json.dumps([CONV_INFO]))[0]
        ptrs = {"values": 0x7F0000001000, "meta": 0x7F0000002000, "input": 0x7F0000003000,
                "out": 0xFFFF800000004000}
        args = conv_kernel.arg_values(ki, ptrs, conv_kernel.sizes_for(ki, geo, None, 72, 9))
        _, got = fake_launch(lib, drv, fn, ki, args)
        want = [ptrs["values"], ptrs["meta"], ptrs["input"], ptrs["out"],
                32, 128, 144, 72, 9, 2, 8, 8, 8, 8]
        assert got == want, [hex(x) for x in got]
        assert [lib.fake_launch_config(i) for i in range(6)] == [2, 1, 1, 128, 1, 1]
        drv.unload(mod)
        return "14 parameters packed in order, grid and block as the kernel info says"


def conv_fake_programs():
    progs = []
    for name, geo in conv_shapes.table(True):
        progs.append({"name": name, "shape": geo["name"], "group": geo["stage"],
                      "where": geo["where"], "layers": geo["layers"], "batch": geo["N"],
                      "dtype": "f16", "out_dtype": "f16", "conv": geo, "status": "ok",
                      "kernel": CONV_INFO,
                      "sm90a": {"target": "sm_90a", "status": "ok",
                                "kernel": conv_sm90a_info(geo)}})
    # The stem's sm_90a build was switched off.
    progs[0]["sm90a"] = {"target": None, "status": "not_built", "error": "planted: none"}
    return progs


def t_conv_report():
    progs = conv_fake_programs()
    ok = lambda ms, **kw: dict(timing(ms), status="ok", rel_error=1e-3, **kw)  # noqa: E731
    recs = [
        {"type": "env", "gpu": {"name": "Fake GPU", "l2_bytes": 50 << 20,
                                "memory_bytes": 80 << 30}, "software": {"torch": "x"}},
        {"type": "env_conv", "cudnn_version": 90100,
         "torch_settings": {"torch.backends.cudnn.benchmark": True}},
        {"type": "format_check", "ok": True},
        {"type": "result", "index": 0, "methods": {
            "stc": ok(2.0, kernel=dict(CONV_INFO, registers=96, blocks_per_sm=1)),
            "cudnn": ok(1.0), "cudnn_pruned": ok(1.1)}, "copies": 3},
        {"type": "result", "index": 1, "methods": {
            "stc": {"status": "wrong", "rel_error": 0.5, "error": "differs"},
            "stc_sm90a": ok(0.8, kernel=dict(conv_sm90a_info(progs[1]["conv"]), registers=168,
                                             blocks_per_sm=1)),
            "cudnn": ok(1.0), "cudnn_pruned": ok(1.0)}},
        {"type": "result", "index": 2, "build_failed": "stc-compile exited with status 1"},
    ]
    meta = {"utc": "20260101T000000Z", "time_budget_s": 400, "stall_s": 150,
            "max_method_s": 0.5, "max_repeats": 200, "tolerance": 1e-2}
    doc = report.assemble_conv({"mock": False, "quick": True, "commit": "abc1234def",
                                "commit_short": "abc1234", "target": "sm_90", "flags": [],
                                "schema": "stc-gpu-conv-build/1"},
                               recs, progs, list(range(len(progs))), meta)
    json.dumps(doc)
    r0 = doc["results"][0]
    assert abs(r0["ratios"]["stc_speedup_vs_cudnn"] - 0.5) < 1e-12, r0["ratios"]
    assert abs(r0["ratios"]["stc_speedup_vs_cudnn_pruned"] - 0.55) < 1e-12
    assert abs(r0["methods"]["stc"]["tflops_median"] - r0["flop"] / 2e-3 / 1e12) < 1e-9
    assert r0["flop"] == 2 * 32 * 112 * 112 * 64 * 49 * 3
    assert "stc_speedup_vs_cudnn" not in doc["results"][1]["ratios"]
    r1 = doc["results"][1]["ratios"]
    assert abs(r1["stc_sm90a_speedup_vs_cudnn"] - 1.25) < 1e-12, r1
    assert "stc_sm90a_speedup_vs_stc" not in r1, r1  # STC sm_90 was wrong
    assert r0["methods"]["stc_sm90a"]["status"] == "not_built", r0["methods"]["stc_sm90a"]
    assert doc["summary"]["status_counts"]["stc_sm90a"] == {"not_built": 1, "ok": 1,
                                                            "not_run": 2}, doc["summary"]
    assert doc["results"][2]["methods"]["stc"]["status"] == "build_failed"
    assert doc["results"][3]["methods"]["stc"]["status"] == "not_run"
    assert doc["summary"]["ok"] is False and doc["software"]["cudnn"] == 90100
    tot = doc["network_totals"]["32"]
    assert tot["stc_ms"] is None and tot["cudnn_ms"] is None, tot  # not every shape ok
    allok = [r for r in recs if r.get("type") != "result"] + [
        {"type": "result", "index": i, "methods": {"stc": ok(0.5), "stc_sm90a": ok(0.25),
                                                   "cudnn": ok(1.0), "cudnn_pruned": ok(1.0)}}
        for i in range(len(progs))]
    progs2 = [dict(p, sm90a=dict(progs[1]["sm90a"])) for p in progs]
    d2 = report.assemble_conv({"schema": "stc-gpu-conv-build/1"}, allok, progs2,
                              list(range(len(progs))), meta)
    t2 = d2["network_totals"]["32"]
    layers = sum(p["layers"] for p in progs)
    assert abs(t2["cudnn_ms"] - layers) < 1e-9 and abs(t2["stc_speedup_vs_cudnn"] - 2) < 1e-9
    assert abs(t2["stc_sm90a_speedup_vs_cudnn"] - 4) < 1e-9, t2
    assert abs(d2["results"][0]["ratios"]["stc_sm90a_speedup_vs_stc"] - 2) < 1e-9
    assert not t2["complete"] and d2["summary"]["ok"], (t2, d2["summary"])
    md = report.markdown_conv(doc)
    for s in ("| conv1-7x7s2-3-64 | 1 | 224×224 | 3→64 | 7×7/2 | 112×112 | 2.0000 (1.9000) |",
              "0.50×", "cuDNN 90100", "STC: wrong: differs (rel. error 5.00e-01)",
              "build_failed", "## batch 32", "| `stc_conv_0` |", "not the whole network",
              "| STC sm_90a | `stc_conv_0` |", "| 0.8000 (0.7600) | ", "| wgmma | ", "1.25×",
              "STC sm_90a: not_built: planted: none"):
        assert s in md, "markdown lacks %r:\n%s" % (s, md)
    report.compact_conv(doc)
    md2 = report.markdown_conv(d2)
    assert "STC sm_90a 0.250" in md2 or "STC sm_90a %.3f ms" % (layers * 0.25) in md2, md2
    report.compact_conv(d2)
    return "ratios (both STC kernels), network totals, statuses and tables"


def conv_sim_manifest(tmp):
    """Programs a-d with both STC kernels (the sm_90a one of a, c and d
    through tensor maps, a 4-D one of the input with element strides; b's,
    C = 3, an mma.sp kernel as stc-compile makes it), e (both builds
    failed) and f (the sm_90 build failed, the sm_90a one not)."""
    progs = []
    geos = [("a", small_geometry("a", 8, 16, 32, 3, 1, 2), False),
            ("b", small_geometry("b", 12, 3, 8, 7, 2, 2), False),   # stem-like: C=3
            ("c", small_geometry("c", 6, 32, 16, 1, 2, 3), False),   # 1x1 stride 2
            ("d", small_geometry("d", 7, 8, 16, 3, 2, 2), True),     # pre-padded input
            ("f", small_geometry("f", 9, 16, 16, 3, 2, 1), False)]   # sm_90 build failed
    for name, geo, pre in geos:
        rel = os.path.join("programs", name)
        os.makedirs(os.path.join(tmp, "gpu-conv", rel))
        ki = build_conv_programs.mock_kernel_info(geo, "f16")[0]
        ki["kernel"] = "sim_conv"
        if pre:
            ki["conv"] = dict(ki["conv"], H=geo["H"] + 2 * geo["pad"], W=geo["W"] + 2 * geo["pad"],
                              pad_top=0, pad_left=0, pad_bottom=0, pad_right=0)
        bad, layout = conv_kernel.check(ki, geo)
        assert not bad and layout["prepadded"] == pre, (bad, layout)
        if geo["Cg"] % 8 == 0:
            ka = conv_sm90a_info(geo, tile=(2, 4), name="sim_conv_sm90a", prepadded=pre)
        else:
            ka = dict(ki, kernel="sim_conv_sm90a")  # mma.sp for sm_90a
        bad, lay_a = conv_kernel.check(ka, geo)
        assert not bad and lay_a["prepadded"] == pre, (name, bad, lay_a)
        for stem, k in (("k", ki), ("k_sm90a", ka)):
            with open(os.path.join(tmp, "gpu-conv", rel, stem + ".ptx"), "w") as f:
                f.write(fake_ptx_for(k))
            with open(os.path.join(tmp, "gpu-conv", rel, stem + ".json"), "w") as f:
                json.dump([k], f)
        p = {"name": name, "shape": name, "group": "t", "where": "test", "layers": 1,
             "batch": geo["N"], "dtype": "f16", "out_dtype": "f16", "conv": geo,
             "M": geo["R"], "N": geo["P"], "K": geo["K"], "status": "ok",
             "kernel": ki, "layout": layout, "ptx": os.path.join(rel, "k.ptx"),
             "kernel_info": os.path.join(rel, "k.json"),
             "sm90a": {"target": "sm_90a", "status": "ok", "kernel": ka, "layout": lay_a,
                       "ptx": os.path.join(rel, "k_sm90a.ptx"),
                       "kernel_info": os.path.join(rel, "k_sm90a.json")}}
        if name == "f":
            p.update(status="failed", error="stc-compile --target=sm_90 exited with status 1: "
                                            "planted")
        progs.append(p)
    err = "stc-compile --sparsity=force --emit=stc exited with status 1"
    progs.append({"name": "e", "shape": "e", "batch": 2, "dtype": "f16", "out_dtype": "f16",
                  "conv": small_geometry("e", 8, 16, 32, 3, 1, 2), "status": "failed",
                  "error": err, "sm90a": {"target": "sm_90a", "status": "failed",
                                          "error": err}})
    return write_manifest(os.path.join(tmp, "gpu-conv", "manifest.json"),
                          "stc-gpu-conv-build/1", progs, kernel_source="simulated",
                          target_sm90a="sm_90a")


def t_conv_worker_sim():
    if not have_torch():
        return ("SKIP", "no torch for %s" % sys.executable)
    tmp = tempfile.mkdtemp(prefix="gpu-bench-convsim-")
    try:
        mp = conv_sim_manifest(tmp)
        rc, doc, text = sim_run("conv_bench.py", mp, tmp, "clean", [])
        for method in report.STC_METHODS:
            st = {e["name"]: e["methods"][method] for e in doc["results"]}
            for k in "abcdf":
                if k == "f" and method == "stc":
                    continue
                e = st[k]
                assert e["status"] == "ok" and e["rel_error"] < 1e-2 and e["deterministic"], (
                    method, k, e.get("status"), e.get("error"), text[-3000:])
                assert e["repeats"] >= 10 and len(e["times_ms"]) == e["repeats"]
            assert st["e"]["status"] == "build_failed", (method, st["e"])
        by = {e["name"]: e for e in doc["results"]}
        assert by["f"]["methods"]["stc"]["status"] == "build_failed"
        assert "planted" in by["f"]["methods"]["stc"]["error"]
        assert rc == 1, "exit %d (a build failure must give 1)" % rc
        for e in doc["results"][:5]:
            assert e["format"]["roundtrip"] and e["format"]["filter_is_2to4_along_c"], e["format"]
            assert e["format"]["torch_equals_numpy"], e["format"]
            for m in ("cudnn", "cudnn_pruned"):
                assert e["methods"][m]["status"] == "ok", (e["name"], m, e["methods"][m])
        assert by["d"]["build"]["layout"]["prepadded"]
        assert by["d"]["build"]["sm90a"]["layout"]["prepadded"]
        args = dict((n, v) for n, _, v in by["b"]["methods"]["stc"]["kernel"]["args_copy0"])
        assert (args["R"], args["K"], args["value_cols"], args["meta_cols"]) == (8, 196, 104, 13)
        # The sm_90a kernels read the input through a 4-D map (checked by the
        # stand-in against the launch's buffers, box and element strides).
        for k in "acdf":
            sa = by[k]["methods"]["stc_sm90a"]["kernel"]
            assert sa["variant"] == "wgmma" and sa["pixel_tile"] == [2, 4], sa
            args = dict((n, v) for n, _, v in sa["args_copy0"])
            assert {"values_map", "dense_map"} <= set(args), args
            assert len(sa["tensor_maps"][1]["box"]) == 4
        assert "stc_sm90a_speedup_vs_stc" in by["a"]["ratios"]
        assert "stc_sm90a_speedup_vs_cudnn" in by["f"]["ratios"]
        md = report.markdown_conv(doc)
        assert "STC sm_90a" in md and "wgmma" in md, md[:2000]
        bugs = ["nan@^a$", "wrong:stc_sm90a@^b$", "error@^c$", "crash@^d$"]
        extra = ["--stall", "8", "--only", "^[a-d]$"]
        for b in bugs:
            extra += ["--simulate-bug", b]
        rc, doc, text = sim_run("conv_bench.py", mp, tmp, "faults", extra)
        got = {e["name"]: (e["methods"]["stc"]["status"], e["methods"]["stc_sm90a"]["status"])
               for e in doc["results"]}
        want = {"a": ("wrong", "wrong"), "b": ("ok", "wrong"), "c": ("failed", "failed"),
                "d": ("failed", "not_run")}
        assert got == want, "statuses %s, expected %s\n%s" % (got, want, text[-3000:])
        st = {e["name"]: e["methods"]["stc"] for e in doc["results"]}
        sm = {e["name"]: e["methods"]["stc_sm90a"] for e in doc["results"]}
        assert st["a"]["nan_outputs"] > 0 and "median_ms" not in st["a"], st["a"]
        assert sm["a"]["nan_outputs"] > 0 and "median_ms" not in sm["a"], sm["a"]
        assert sm["b"]["rel_error"] > 0.1 and "diagnosis" in sm["b"]
        assert "median_ms" in st["b"]
        assert "CUDA_ERROR_INVALID_VALUE" in st["c"]["error"]
        assert "CUDA_ERROR_INVALID_VALUE" in sm["c"]["error"]
        assert "worker died" in st["d"]["error"] and "exit status 9" in st["d"]["error"]
        assert rc == 1
        # A hang, then the next program still runs.
        rc, doc, text = sim_run("conv_bench.py", mp, tmp, "hang",
                                ["--stall", "8", "--only", "^[ab]$", "--simulate-bug",
                                 "hang@^a$"])
        st = {e["name"]: e["methods"]["stc"] for e in doc["results"]}
        assert st["a"]["status"] == "failed" and "no output for 8 s" in st["a"]["error"], st["a"]
        assert st["b"]["status"] == "ok" and "median_ms" in st["b"]
        return ("clean run (3x3, C=3 7x7/2, 1x1/2, pre-padded input; both STC kernels, the "
                "sm_90a ones through a 4-D input map) ok; NaN, swapped metadata (sm_90a "
                "only), launch error, crash, hang each recorded; build failures of either "
                "kernel")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def conv_pipeline_ready():
    """None when stc-compile --sparsity=force --emit=stc turns a
    linalg.conv_2d_nhwc_fhwc into stc.conv; else why not."""
    sc = os.environ.get("STC_COMPILE", os.path.join(BIN, "stc-compile"))
    if not os.access(sc, os.X_OK):
        return "no %s" % sc
    geo = small_geometry("probe", 8, 16, 32, 3, 1, 2)
    tmp = tempfile.mkdtemp(prefix="gpu-bench-convprobe-")
    try:
        path = os.path.join(tmp, "p.mlir")
        with open(path, "w") as f:
            f.write(conv_shapes.program_text("probe", geo))
        p = subprocess.run([sc, path, "--sparsity=force", "--emit=stc", "-o", "-"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        out = p.stdout.decode(errors="replace")
        if p.returncode != 0:
            return "stc-compile --sparsity=force --emit=stc failed: %s" % out.strip()[-300:]
        if "stc.conv" not in out or "linalg.conv_2d" in out:
            return ("stc-compile --sparsity=force --emit=stc does not turn "
                    "linalg.conv_2d_nhwc_fhwc into stc.conv yet (the convolution pipeline "
                    "has not landed in this build)")
        return None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def direct_conv_program(g):
    """The benchmark's kernel as a program: one stc.conv taking the
    compressed filter, what --sparsity=force makes of prog.mlir."""
    v = "tensor<%dx%dxf16>" % (g["F"], g["Kpad"] // 2)
    m = "tensor<%dx%dxi16>" % (g["F"], g["Kpad"] // 16)
    x = "tensor<%dx%dx%dx%dxf16>" % (g["N"], g["H"], g["W"], g["C"])
    o = "tensor<%dx%dx%dx%dxf16>" % (g["N"], g["OH"], g["OW"], g["F"])
    return ("func.func @main(%%v: %s, %%m: %s, %%x: %s) -> %s {\n"
            "  %%y = stc.conv %%v, %%m, %%x {pattern = #stc.nm<2:4>, "
            "filter_size = array<i64: %d, %d>, strides = array<i64: %d, %d>, "
            "pad_low = array<i64: %d, %d>, pad_high = array<i64: %d, %d>}"
            " : %s, %s, %s -> %s\n  return %%y : %s\n}\n" % (
                v, m, x, o, g["KH"], g["KW"], g["stride"], g["stride"], g["pad_top"],
                g["pad_left"], g["pad_bottom"], g["pad_right"], v, m, x, o, o))


def t_conv_direct():
    """stc.conv fed the benchmark's compressed filter (conv_shapes +
    format24) through stc-run: the sm_90 kernel on the project's emulator
    (the GPU kernel's reading of the layout the benchmark passes it) and
    the CPU lowering, against stc_ref.conv2d_nhwc_ref with the pruned
    filter."""
    run = os.path.join(BIN, "stc-run")
    if not os.access(run, os.X_OK):
        return ("SKIP", "no %s" % run)
    h = subprocess.run([run, "--help"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    devices = ["cpu"] + (["emulate"] if b"emulate" in h.stdout else [])
    cpu_required = conv_pipeline_ready() is None
    tmp = tempfile.mkdtemp(prefix="gpu-bench-convdirect-")
    try:
        rng = np.random.default_rng(5)
        errs, notes = [], []
        for geo in (small_geometry("k3", 8, 16, 32, 3, 1, 2),
                    small_geometry("stem", 12, 3, 16, 7, 2, 1),
                    small_geometry("k1s2", 6, 32, 16, 1, 2, 2)):
            path = os.path.join(tmp, geo["name"] + ".mlir")
            with open(path, "w") as f:
                f.write(direct_conv_program(geo))
            x = rng.standard_normal((geo["N"], geo["H"], geo["W"], geo["C"])).astype(np.float16)
            w = (rng.standard_normal((geo["F"], geo["KH"], geo["KW"], geo["Cg"]))
                 / np.sqrt(geo["K"])).astype(np.float16)
            pm = format24.prune24(conv_shapes.filter_matrix(w, geo))
            v, m = format24.compress24(pm)
            for nm, arr in (("v", v), ("m", m.view(np.int16)), ("x", x)):
                np.save(os.path.join(tmp, nm + ".npy"), arr)
            ref = stc_ref.conv2d_nhwc_ref(x, conv_shapes.filter_from_matrix(pm, geo),
                                          stride=geo["stride"], padding=geo["pad"])
            for dev in devices:
                o = os.path.join(tmp, "o.npy")
                p = subprocess.run([run, path, "--device=" + dev]
                                   + ["--input=" + os.path.join(tmp, n + ".npy") for n in "vmx"]
                                   + ["--output=" + o]
                                   + (["--target=sm_90"] if dev == "emulate" else []),
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=600)
                if p.returncode != 0 and dev == "cpu" and not cpu_required:
                    msg = [ln for ln in p.stdout.decode().splitlines() if "error" in ln]
                    notes.append("cpu: not yet (%s)" % (msg[0].split("error:")[-1].strip()
                                                        if msg else "failed"))
                    continue
                assert p.returncode == 0, "stc-run --device=%s on %s failed:\n%s" % (
                    dev, geo["name"], p.stdout.decode()[-3000:])
                err = stc_ref.rel_error(np.load(o), ref)
                assert err < 1e-2, (geo["name"], dev, err)
                errs.append("%s/%s %.1e" % (geo["name"], dev, err))
        if not errs:
            return ("SKIP", "; ".join(sorted(set(notes))))
        return "rel. error: %s%s" % (", ".join(errs), ("; " + "; ".join(sorted(set(notes))))
                                     if notes else "")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def t_conv_stc_run():
    """A small benchmark-style program through stc-run: CPU, and the sm_90
    kernel on the emulator where stc-run has it."""
    why = conv_pipeline_ready()
    if why:
        return ("SKIP", why)
    run = os.path.join(BIN, "stc-run")
    if not os.access(run, os.X_OK):
        return ("SKIP", "no %s" % run)
    tmp = tempfile.mkdtemp(prefix="gpu-bench-convrun-")
    try:
        rng = np.random.default_rng(5)
        errs = []
        h = subprocess.run([run, "--help"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        emulate = b"emulate" in h.stdout
        for geo in (small_geometry("k3", 8, 16, 32, 3, 1, 2),
                    small_geometry("stem", 12, 3, 16, 7, 2, 1),
                    small_geometry("k1s2", 6, 32, 16, 1, 2, 2)):
            path = os.path.join(tmp, geo["name"] + ".mlir")
            with open(path, "w") as f:
                f.write(conv_shapes.program_text(geo["name"], geo))
            x = rng.standard_normal((geo["N"], geo["H"], geo["W"], geo["C"])).astype(np.float16)
            w = (rng.standard_normal((geo["F"], geo["KH"], geo["KW"], geo["Cg"]))
                 / np.sqrt(geo["K"])).astype(np.float16)
            np.save(os.path.join(tmp, "x.npy"), x)
            np.save(os.path.join(tmp, "w.npy"), w)
            wpad = np.pad(w, ((0, 0), (0, 0), (0, 0), (0, geo["Cp"] - geo["Cg"])))
            wp = stc_ref.prune_nm(wpad, 2, 4, axis=3)[..., :geo["Cg"]]
            ref = stc_ref.conv2d_nhwc_ref(x, wp, stride=geo["stride"], padding=geo["pad"])
            for dev in ["cpu"] + (["emulate"] if emulate else []):
                o = os.path.join(tmp, "o.npy")
                p = subprocess.run([run, path, "--sparsity=force", "--device=" + dev,
                                    "--input=" + os.path.join(tmp, "x.npy"),
                                    "--input=" + os.path.join(tmp, "w.npy"), "--output=" + o]
                                   + (["--target=sm_90"] if dev == "emulate" else []),
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=600)
                assert p.returncode == 0, "stc-run --device=%s on %s failed:\n%s" % (
                    dev, geo["name"], p.stdout.decode()[-3000:])
                err = stc_ref.rel_error(np.load(o), ref)
                assert err < 1e-2, (geo["name"], dev, err)
                errs.append("%s/%s %.1e" % (geo["name"], dev, err))
        return "stc-run --sparsity=force vs stc_ref (pruned filter), rel. error: " + ", ".join(errs)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def conv_kernel_fits(p, ki):
    bad = conv_kernel.check(ki, p["conv"])[0]
    assert bad == [], (p["name"], bad)


def check_conv_build(work, expect_mock):
    man, summary = check_build_dir(work, expect_mock, len(conv_shapes.QUICK),
                                   conv_kernel.parse, conv_kernel_fits)
    assert man["schema"] == "stc-gpu-conv-build/1"
    if not expect_mock:
        # The sm_90a kernels: TMA + wgmma.sp (a 4-D map of the input) for
        # one group and C a multiple of 64, mma.sp otherwise (the stem).
        for p in man["programs"]:
            with open(os.path.join(work, p["sm90a"]["kernel_info"])) as f:
                ka = conv_kernel.parse(f.read())[0]
            hopper = p["conv"]["groups"] == 1 and p["conv"]["Cg"] % 64 == 0
            assert (ka.get("variant") == "wgmma") == hopper, (p["name"], ka.get("variant"))
            if hopper:
                dm = [m for m in ka["tensor_maps"] if m["operand"] == "dense"]
                assert len(dm) == 1 and len(dm[0]["box"]) == 4, (p["name"], ka["tensor_maps"])
    pre = [p["name"] for p in man["programs"] if (p.get("layout") or {}).get("prepadded")]
    return summary + (("; PRE-PADDED input (tensor.pad not folded): %s" % ", ".join(pre))
                      if pre else "")


def t_conv_build_mock():
    return mock_build("build-conv", "GPU_CONV_WORK", "gpu-conv-selftest-mock",
                      check_conv_build)


def t_conv_build_stc():
    why = conv_pipeline_ready()
    if why:
        return ("SKIP", why)
    sc = os.environ.get("STC_COMPILE", os.path.join(BIN, "stc-compile"))
    h = subprocess.run([sc, "--help"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if b"--kernel-info" not in h.stdout:
        return ("SKIP", "stc-compile does not accept --kernel-info")
    work = os.path.join(ROOT, "bench", "work", "gpu-conv-selftest")
    quick_build("build-conv", "GPU_CONV_WORK", work, [])
    return check_conv_build(work, False)


CONV_CHECKS = (
    ("conv: ResNet-50 shape table and program text", t_conv_shapes),
    ("conv: filter matrix, 2:4 along C, implicit GEMM == stc_ref.conv2d_nhwc_ref",
     t_conv_filter),
    ("conv: kernel info validation and argument order", t_conv_kernel_info),
    ("conv: ctypes launch of the conv parameters against fake_libcuda.c", t_conv_ctypes),
    ("conv: sm_90a kernel info: 4-D input tensor map, pixel tile, grid", t_conv_sm90a_info),
    ("conv: sm_90a launcher against fake_libcuda.c: rank-4 cuTensorMapEncodeTiled, dynamic "
     "shared memory, launch", t_conv_ctypes_sm90a),
    ("conv: report JSON + Markdown from synthetic records", t_conv_report),
    ("conv: worker simulated on the CPU: clean run, then planted faults", t_conv_worker_sim),
    ("conv: stc.conv on the benchmark's compressed filter through stc-run (sm_90 kernel on "
     "the emulator; CPU)", t_conv_direct),
    ("conv: stc-run --sparsity=force on small programs (CPU, emulator)", t_conv_stc_run),
    ("conv: build-conv --quick --mock (nvcc) + ptxas", t_conv_build_mock),
    ("conv: build-conv --quick (stc-compile; SKIP until the convolution pipeline has "
     "landed) + ptxas", t_conv_build_stc),
)


def main():
    if "--conv-only" in sys.argv:
        return conv_main()
    print("GPU GEMM benchmark self test (%s, NumPy %s)" % (sys.executable, np.__version__))
    check("format24 == test/lib/stc_ref.py (prune, compress, decompress)", t_format_vs_ref)
    check("format24 error paths", t_format_errors)
    check("cudrv kernel info / PTX parsing", t_cudrv)
    check("cudrv ctypes driver calls against fake_libcuda.c", t_ctypes_driver)
    check("cudrv sm_90a kernel info: cluster, tensor maps, Hopper metadata", t_cudrv_sm90a)
    check("sm_90a launcher against fake_libcuda.c: tensor maps, dynamic shared memory, "
          "cluster launch", t_ctypes_sm90a)
    check("cudrv ctypes structures and constants == cuda.h", t_cuda_abi)
    check("report JSON + Markdown from synthetic records", t_report)
    check("report with int8 programs (TOPS, exact checks, int8 baselines)", t_report_int8)
    check("gemm_bench parent without torch (worker failure, build failures)", t_parent)
    check("format24 with torch == with NumPy", t_torch_ops)
    check("worker simulated on the CPU: clean run, then planted faults", t_worker_sim)
    check("int8 baselines: exact check, int32 outputs, unavailable reasons", t_int8_baselines)
    check("MLIR program text (stc-opt; stc-run on the CPU)", t_program_text)
    check("build --quick --mock (nvcc) + ptxas", t_build_mock)
    check("build --quick (stc-compile --target=sm_90 and sm_90a --emit=ptx --kernel-info) "
          "+ ptxas", t_build_stc)
    if "--gemm-only" not in sys.argv:
        for name, fn in CONV_CHECKS:
            check(name, fn)
    return summary()


def conv_main():
    """selftest --conv-only: the convolution checks alone."""
    print("GPU convolution benchmark self test (%s, NumPy %s)" % (sys.executable, np.__version__))
    for name, fn in CONV_CHECKS:
        check(name, fn)
    return summary()


def summary():
    """The counts line; the exit status (1 when a check failed)."""
    print("%d passed, %d failed, %d skipped" % (RESULTS["PASS"], RESULTS["FAIL"],
                                                RESULTS["SKIP"]))
    return 1 if RESULTS["FAIL"] else 0


if __name__ == "__main__":
    sys.exit(main())
