#!/usr/bin/env python3
"""Self test of the GPU GEMM benchmark on the build machine (no GPU, no
torch): `bench/run_gpu_bench.sh selftest`.

1. format24 (the benchmark's 2:4 prune/compress) against the project's
   independent NumPy reference test/lib/stc_ref.py, on matrices with ties,
   zeros and empty rows; its error paths.
2. cudrv: kernel-info validation, PTX .entry parsing, argument packing; its
   ctypes driver calls against fake_libcuda.c (a stand-in libcuda built
   here): JIT logs, error texts, the launch's parameter array.
3. report: the JSON document and Markdown from synthetic records of every
   status.
4. gemm_bench's parent without torch: a manifest of failed builds, and a
   worker that cannot start (no torch here): both must end with results.
   Where torch (any version, CPU) is importable: format24's torch code
   against its NumPy code, and the worker simulated on the CPU (a stand-in
   kernel computes the product from the packed parameters): one clean run,
   and one with planted faults (NaN outputs, swapped metadata, a launch
   error, a crash, a hang) that must each end as the right status while
   the other programs still run.
5. The MLIR program text: stc-opt parses f16 and bf16 programs; stc-run on
   the CPU runs a small f16 one on inputs from format24 and matches NumPy,
   and so does its sm_90 GPU kernel run by the project's emulator
   (stc-run --device=emulate) where stc-run has it.
6. `build --quick --mock` (nvcc) and `build --quick` (stc-compile with
   --kernel-info; SKIP until the GPU code generator has landed): every
   program has PTX + kernel info, the PTX .entry matches, ptxas -arch=sm_90
   accepts it.
Prints PASS/FAIL/SKIP per check and a final "N passed, N failed, N skipped"
line; exit status 1 when a check failed.
"""

import json
import os
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


def t_ctypes_driver():
    """cudrv.Driver and Launch against fake_libcuda.c (no GPU)."""
    import ctypes
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        return ("SKIP", "no C compiler")
    tmp = tempfile.mkdtemp(prefix="gpu-bench-fakecuda-")
    try:
        so = os.path.join(tmp, "libcuda_fake.so")
        p = subprocess.run([cc, "-shared", "-fPIC", "-O1", os.path.join(HERE, "fake_libcuda.c"),
                            "-o", so], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        assert p.returncode == 0, p.stdout.decode()
        drv = cudrv.Driver(so)
        assert drv.init() == 0x1234 and drv.driver_version() == 13000
        assert drv.device_attribute(97) == 970
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
        lib = ctypes.CDLL(so)
        sizes = (ctypes.c_int * 7)(*[cudrv.PARAM_TYPES[t] for t in ki["param_types"]])
        lib.fake_set_param_sizes(7, sizes)
        lib.fake_param_u64.restype = ctypes.c_uint64
        launch = cudrv.Launch(drv, fn, ki, args)
        launch(0)
        got = [lib.fake_param_u64(i) for i in range(7)]
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
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# ---------------------------------------------------------------------------
# 3. report
# ---------------------------------------------------------------------------

def fake_programs():
    progs = []
    for i, (name, group, m, n, k) in enumerate(shapes.QUICK):
        for dt in shapes.DTYPES:
            progs.append({"name": "%s-%s" % (name, dt), "shape": name, "group": group,
                          "M": m, "N": n, "K": k, "dtype": dt, "out_dtype": dt,
                          "status": "ok", "kernel": GOOD_INFO[0]})
    return progs


def timing(ms):
    return {"times_ms": [ms, ms * 1.1, ms * 0.95], "median_ms": ms, "min_ms": ms * 0.95,
            "repeats": 3, "warmup": 4}


def t_report():
    progs = fake_programs()
    ok = lambda ms, **kw: dict(timing(ms), status="ok", rel_error=1e-3, **kw)  # noqa: E731
    unav = {"status": "unavailable", "error": "RuntimeError: only sm_8x\nmore"}
    recs = [
        {"type": "env", "gpu": {"name": "Fake GPU", "l2_bytes": 50 << 20,
                                "memory_bytes": 80 << 30}, "software": {"torch": "x"}},
        {"type": "format_check", "ok": True},
        {"type": "result", "index": 0, "methods": {
            "stc": ok(2.0, kernel=dict(GOOD_INFO[0], registers=96, blocks_per_sm=1)),
            "cublas": ok(1.0), "cutlass": unav, "cusparselt": ok(0.8)}, "copies": 3},
        {"type": "result", "index": 1, "methods": {
            "stc": dict(timing(3.0), status="wrong", rel_error=0.5, error="differs"),
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
    md = report.markdown(doc)
    for s in ("| square-4096 | 4096 | 4096 | 4096 | 2.0000 (1.9000) |", "0.50×",
              "CUTLASS 2:4: unavailable: RuntimeError: only sm_8x, on 2 program(s)",
              "STC: wrong: differs (rel. error 5.00e-01)", "build_failed", "## bf16",
              "| `spmm_kernel` |"):
        assert s in md, "markdown lacks %r:\n%s" % (s, md)
    return "ratios, statuses and table"


# ---------------------------------------------------------------------------
# 4. gemm_bench's parent, without torch
# ---------------------------------------------------------------------------

def t_parent():
    tmp = tempfile.mkdtemp(prefix="gpu-bench-selftest-")
    try:
        progs = fake_programs()
        progs[0]["status"] = "failed"
        progs[0]["error"] = "stc-compile exited with status 1"
        man = {"schema": "stc-gpu-gemm-build/1", "utc": "x", "quick": True, "mock": False,
               "commit": "0" * 40, "commit_short": "0000000", "dirty": False,
               "target": "sm_90", "flags": [], "programs": progs}
        mp = os.path.join(tmp, "gpu", "manifest.json")
        os.makedirs(os.path.dirname(mp))
        with open(mp, "w") as f:
            json.dump(man, f)
        out = os.path.join(tmp, "out")
        # No torch on this machine: the worker dies at start; every program
        # must still end with a record and the parent must write results.
        p = subprocess.run([sys.executable, os.path.join(HERE, "gemm_bench.py"), "run",
                            "--manifest", mp, "--results-dir", os.path.join(tmp, "res"),
                            "--copy-to", out, "--time-budget", "60"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300)
        text = p.stdout.decode(errors="replace")
        assert p.returncode == 1, "exit status %d:\n%s" % (p.returncode, text)
        got = sorted(os.listdir(out))
        assert len(got) == 3 and any(g.endswith(".md") for g in got), got
        js = [g for g in got if g.endswith(".json")][0]
        with open(os.path.join(out, js)) as f:
            doc = json.load(f)
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
    return "%d matrices + bf16, torch %s" % (k, torch.__version__)


def sim_manifest(tmp):
    progs = []
    ptx = SAMPLE_PTX
    for name, m, n, k in (("a", 64, 32, 128), ("b", 96, 16, 256), ("c", 128, 64, 64)):
        for dt in shapes.DTYPES:
            pn = "%s-%s" % (name, dt)
            rel = os.path.join("programs", pn)
            os.makedirs(os.path.join(tmp, "gpu", rel))
            ki = dict(GOOD_INFO[0])
            del ki["problem"]
            with open(os.path.join(tmp, "gpu", rel, "k.ptx"), "w") as f:
                f.write(ptx)
            with open(os.path.join(tmp, "gpu", rel, "k.json"), "w") as f:
                json.dump([ki], f)
            progs.append({"name": pn, "shape": name, "group": "t", "M": m, "N": n, "K": k,
                          "dtype": dt, "out_dtype": dt, "status": "ok", "kernel": ki,
                          "ptx": os.path.join(rel, "k.ptx"),
                          "kernel_info": os.path.join(rel, "k.json")})
    mp = os.path.join(tmp, "gpu", "manifest.json")
    with open(mp, "w") as f:
        json.dump({"schema": "stc-gpu-gemm-build/1", "utc": "x", "quick": True,
                   "mock": False, "commit": "0" * 40, "commit_short": "0000000",
                   "dirty": False, "target": "sm_90", "flags": [],
                   "kernel_source": "simulated", "programs": progs}, f)
    return mp


def sim_run(mp, tmp, tag, extra):
    out = os.path.join(tmp, "out-" + tag)
    p = subprocess.run([sys.executable, os.path.join(HERE, "gemm_bench.py"), "run",
                        "--manifest", mp, "--results-dir", os.path.join(tmp, "res"),
                        "--copy-to", out, "--time-budget", "120", "--max-method-s", "0.05",
                        "--max-repeats", "20", "--simulate"] + extra,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=600)
    text = p.stdout.decode(errors="replace")
    js = [g for g in os.listdir(out) if g.endswith(".json")]
    assert len(js) == 1, "no results JSON (exit %d):\n%s" % (p.returncode, text[-3000:])
    with open(os.path.join(out, js[0])) as f:
        return p.returncode, json.load(f), text


def t_worker_sim():
    if not have_torch():
        return ("SKIP", "no torch for %s" % sys.executable)
    tmp = tempfile.mkdtemp(prefix="gpu-bench-sim-")
    try:
        mp = sim_manifest(tmp)
        rc, doc, text = sim_run(mp, tmp, "clean", [])
        st = {e["name"]: e["methods"]["stc"] for e in doc["results"]}
        assert all(e["status"] == "ok" and e["rel_error"] < 1e-2 and e["deterministic"]
                   for e in st.values()), {k: (e["status"], e.get("error"))
                                           for k, e in st.items()}
        assert rc == 0, "clean simulated run exited %d:\n%s" % (rc, text[-3000:])
        assert all(e["repeats"] >= 10 and len(e["times_ms"]) == e["repeats"]
                   for e in st.values())
        bugs = ["nan@^a-f16$", "wrong@^a-bf16$", "error@^b-f16$", "crash@^b-bf16$",
                "hang@^c-f16$"]
        extra = ["--stall", "8"]
        for b in bugs:
            extra += ["--simulate-bug", b]
        rc, doc, text = sim_run(mp, tmp, "faults", extra)
        st = {e["name"]: e["methods"]["stc"] for e in doc["results"]}
        want = {"a-f16": "wrong", "a-bf16": "wrong", "b-f16": "failed", "b-bf16": "failed",
                "c-f16": "failed", "c-bf16": "ok"}
        got = {k: e["status"] for k, e in st.items()}
        assert got == want, "statuses %s, expected %s\n%s" % (got, want, text[-3000:])
        assert rc == 1
        assert st["a-f16"]["nan_outputs"] > 0 and "NaN" in st["a-f16"]["error"]
        assert "diagnosis" in st["a-bf16"] and st["a-bf16"]["rel_error"] > 0.1
        assert "CUDA_ERROR_INVALID_VALUE" in st["b-f16"]["error"]
        assert "worker died" in st["b-bf16"]["error"] and "exit status 9" in st["b-bf16"]["error"]
        assert "no output for 8 s" in st["c-f16"]["error"], st["c-f16"]["error"]
        assert len(doc["worker_restarts"]) == 2, doc["worker_restarts"]
        assert "median_ms" in st["c-bf16"], "the program after the hang was not timed"
        return "clean run ok; NaN, swapped metadata, launch error, crash, hang each recorded"
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# ---------------------------------------------------------------------------
# 5. The program text through stc-opt and stc-run (CPU)
# ---------------------------------------------------------------------------

def t_program_text():
    opt, run = os.path.join(BIN, "stc-opt"), os.path.join(BIN, "stc-run")
    if not os.access(opt, os.X_OK):
        return ("SKIP", "no %s (build the project first)" % opt)
    tmp = tempfile.mkdtemp(prefix="gpu-bench-prog-")
    try:
        for dt in ("f16", "bf16"):
            path = os.path.join(tmp, "p_%s.mlir" % dt)
            with open(path, "w") as f:
                f.write(build_programs.program_text("t", dt, dt, 64, 48, 128))
            p = subprocess.run([opt, path], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            assert p.returncode == 0, "stc-opt rejected the %s program:\n%s" % (
                dt, p.stdout.decode())
        if not os.access(run, os.X_OK):
            return "stc-opt parses f16/bf16 (no stc-run: CPU run skipped)"
        rng = np.random.default_rng(5)
        a = rng.standard_normal((64, 128)).astype(np.float16)
        pr = format24.prune24(a)
        v, m = format24.compress24(pr)
        b = rng.standard_normal((128, 48)).astype(np.float16)
        for nm, arr in (("v", v), ("m", m.view(np.int16)), ("b", b)):
            np.save(os.path.join(tmp, nm + ".npy"), arr)
        ref = pr.astype(np.float64) @ b.astype(np.float64)
        h = subprocess.run([run, "--help"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        # The CPU kernel, and where stc-run has it, the sm_90 GPU kernel run
        # on the CPU by the project's emulator.
        devices = ["cpu"] + (["emulate"] if b"emulate" in h.stdout else [])
        errs = []
        for dev in devices:
            o = os.path.join(tmp, "o_%s.npy" % dev)
            p = subprocess.run([run, os.path.join(tmp, "p_f16.mlir"), "--entry=spmm",
                                "--device=" + dev, "--input=" + os.path.join(tmp, "v.npy"),
                                "--input=" + os.path.join(tmp, "m.npy"),
                                "--input=" + os.path.join(tmp, "b.npy"), "--output=" + o]
                               + (["--target=sm_90"] if dev == "emulate" else []),
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=600)
            assert p.returncode == 0, "stc-run --device=%s failed:\n%s" % (dev, p.stdout.decode())
            out = np.load(o)
            err = stc_ref.rel_error(out, ref)
            assert out.shape == (64, 48) and err < 1e-2, (dev, out.shape, err)
            errs.append("%s %.1e" % (dev, err))
        return ("stc-opt parses f16/bf16; stc-run on format24's inputs, rel. error: %s"
                % ", ".join(errs))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# ---------------------------------------------------------------------------
# 6. build --quick [--mock]
# ---------------------------------------------------------------------------

def check_build(work, expect_mock):
    with open(os.path.join(work, "manifest.json")) as f:
        man = json.load(f)
    assert man["mock"] == expect_mock and man["quick"] is True
    progs = man["programs"]
    assert len(progs) == len(shapes.QUICK) * len(shapes.DTYPES), len(progs)
    ptxas = os.path.join(CUDA, "bin", "ptxas")
    for p in progs:
        assert p["status"] == "ok", "%s: %s" % (p["name"], p.get("error"))
        for key in ("ptx", "kernel_info", "mlir"):
            assert os.path.getsize(os.path.join(work, p[key])) > 0, (p["name"], key)
        with open(os.path.join(work, p["kernel_info"])) as f:
            ki = cudrv.parse_kernel_info(f.read())
        assert len(ki) == 1
        with open(os.path.join(work, p["ptx"])) as f:
            cudrv.check_ptx_against_info(f.read(), ki[0])
        if os.access(ptxas, os.X_OK):
            r = subprocess.run([ptxas, "-arch=" + man["target"],
                                os.path.join(work, p["ptx"]), "-o", os.devnull],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            assert r.returncode == 0, "ptxas rejected %s:\n%s" % (p["ptx"], r.stdout.decode())
    size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(work) for f in fs)
    return "%d programs, PTX + kernel info, ptxas -arch=%s ok%s; %.2f MiB" % (
        len(progs), man["target"], "" if os.access(ptxas, os.X_OK) else " (no ptxas: SKIPPED)",
        size / 2**20)


def build(work, extra):
    env = dict(os.environ, GPU_BENCH_WORK=work)
    p = subprocess.run([os.path.join(ROOT, "bench", "run_gpu_bench.sh"), "build", "--quick"]
                       + extra, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
    return p.returncode, p.stdout.decode(errors="replace")


def t_build_mock():
    if not shutil.which("nvcc", path=os.path.join(CUDA, "bin")):
        return ("SKIP", "no nvcc in %s/bin" % CUDA)
    work = os.path.join(ROOT, "bench", "work", "gpu-selftest-mock")
    rc, out = build(work, ["--mock"])
    assert rc == 0, "build --quick --mock exited %d:\n%s" % (rc, out)
    return check_build(work, True)


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
    rc, out = build(work, [])
    assert rc == 0, "build --quick exited %d:\n%s" % (rc, out)
    return check_build(work, False)


def main():
    print("GPU GEMM benchmark self test (%s, NumPy %s)" % (sys.executable, np.__version__))
    check("format24 == test/lib/stc_ref.py (prune, compress, decompress)", t_format_vs_ref)
    check("format24 error paths", t_format_errors)
    check("cudrv kernel info / PTX parsing", t_cudrv)
    check("cudrv ctypes driver calls against fake_libcuda.c", t_ctypes_driver)
    check("report JSON + Markdown from synthetic records", t_report)
    check("gemm_bench parent without torch (worker failure, build failures)", t_parent)
    check("format24 with torch == with NumPy", t_torch_ops)
    check("worker simulated on the CPU: clean run, then planted faults", t_worker_sim)
    check("MLIR program text (stc-opt; stc-run on the CPU)", t_program_text)
    check("build --quick --mock (nvcc) + ptxas", t_build_mock)
    check("build --quick (stc-compile --target=sm_90 --emit=ptx --kernel-info) + ptxas",
          t_build_stc)
    print("%d passed, %d failed, %d skipped" % (RESULTS["PASS"], RESULTS["FAIL"],
                                                RESULTS["SKIP"]))
    return 1 if RESULTS["FAIL"] else 0


if __name__ == "__main__":
    sys.exit(main())
