"""What the GPU benchmark's tests (test/Bench/*.test) share: the check
runner, paths, stand-in kernel infos and PTX, and the helpers that build
and run the benchmark's steps. Each check is a function that raises
(usually AssertionError) when the benchmark misbehaves, returns a note, or
("SKIP", why) when a tool it needs is missing; a .test runs checks by name
(run_checks) and FileChecks their PASS lines, so a SKIP fails it too.

No torch and no GPU needed here; the checks that need torch are in their
own .test files with `REQUIRES: torch`.
"""

import contextlib  # noqa: F401 (used by the check modules)
import json
import os
import re  # noqa: F401
import shutil
import subprocess
import sys
import tempfile  # noqa: F401
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
BENCH = os.path.join(ROOT, "bench", "gpu")
sys.path.insert(0, BENCH)
sys.path.insert(0, os.path.join(ROOT, "test", "lib"))

import numpy as np  # noqa: E402

import benchcommon as bc  # noqa: E402,F401
import build_conv_programs  # noqa: E402,F401
import build_programs  # noqa: E402,F401
import conv_kernel  # noqa: E402,F401
import conv_shapes  # noqa: E402,F401
import format24  # noqa: E402,F401
import kernel_info  # noqa: E402,F401
import report  # noqa: E402,F401
import shapes  # noqa: E402,F401
import stc_ref  # noqa: E402,F401
import tunelib  # noqa: E402,F401


def work_dir(name):
    """A build directory for a check: under $BENCH_TEST_WORK (lit's %t), or
    a fresh temporary directory; never the source tree's bench/work."""
    base = os.environ.get("BENCH_TEST_WORK") or tempfile.mkdtemp(prefix="gpu-bench-test-")
    return os.path.join(base, name)


CUDA = os.environ.get("CUDA_HOME", "/usr/local/cuda")


#: The tools of the build under test (lit sets STC_BUILD_DIR).
BIN = os.path.join(os.environ.get("STC_BUILD_DIR") or os.path.join(ROOT, "build"), "bin")


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


def expect_error(fn, text):
    try:
        fn()
    except (kernel_info.KernelInfoError, ValueError) as e:
        assert text in str(e), "message %r lacks %r" % (str(e), text)
        return
    raise AssertionError("no error (expected one mentioning %r)" % text)


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


#: An i8 sm_90a kernel info as stc-compile --target=sm_90a writes it for a
#: benchmark program (B given N x K): wgmma s8, byte (UINT8) tensor maps.
I8_WGMMA = {"accumulator": "s32", "dense_transposed": True, "input_type": "i8",
            "output_type": "i32", "mma": "m64n64k64", "block": [256, 1, 1],
            "cluster": [1, 1, 1], "shared_bytes": 74848, "stages": 6, "tile": [64, 64],
            "tensor_maps": [{"box": [64, 64], "data_type": 0, "operand": "values",
                             "param": "values_map", "swizzle": 64},
                            {"box": [128, 64], "data_type": 0, "operand": "dense",
                             "param": "dense_map", "swizzle": 128}]}


#: The kernel info of STC's dense tensor-core kernel as stc-compile
#: --target=sm_90 writes it for the benchmark's dense program of square-4096
#: f16 (method stc_dense): meta_layout "none", no meta parameter, values =
#: A whole, the metadata geometry 0.
DENSE_INFO = {
    "K": 4096, "P": 4096, "R": 4096, "accumulator": "f32", "block": [128, 1, 1],
    "cluster": [1, 1, 1], "dense_transposed": False, "grid": [32, 32, 1], "groups": 1,
    "input_type": "f16", "kernel": "stc_gemm_0", "meta_k_per_word": 0, "meta_layout": "none",
    "meta_rows_per_block": 0, "meta_threads": 0, "mma": "m16n8k16", "num_pointers": 3,
    "ordered_metadata": False, "output_type": "f16",
    "param_types": ["ptr"] * 3 + ["i32"] * 5,
    "params": ["values", "dense", "out", "R", "P", "K", "value_cols", "meta_cols"],
    "shared_bytes": 0, "sparse": "lhs", "stages": 3, "static_shared_bytes": 49152,
    "tile": [128, 128], "variant": "staged"}


def dense_info(**kw):
    k = json.loads(json.dumps(DENSE_INFO))
    k.update(kw)
    return k


def fake_ptx_for(kinfo):
    """A PTX text whose .entry has the kernel info's parameters."""
    sz = {"ptr": "u64", "i32": "u32", "i64": "u64"}
    ps = ",\n".join("\t.param .%s %s_param_%d" % (sz[t], kinfo["kernel"], i)
                    for i, t in enumerate(kinfo["param_types"]))
    return (".version 8.5\n.target sm_90\n.address_size 64\n.visible .entry %s(\n%s\n)\n"
            "{\n\tret;\n}\n" % (kinfo["kernel"], ps))


def small_geometry(name, h, c, f, k, stride, batch, pad=None):
    row = conv_shapes._row(name, "test", h, c, f, k, stride, 1, "test")
    if pad is not None:
        row["pad"] = pad
    return conv_shapes.geometry(row, batch)


#: The kernel info stc-opt --stc-lower-spmm-to-gpu wrote for a 3x3 stc.conv
#: (2x8x8x16 -> 2x8x8x32, pad 1), the form of docs/DESIGN.md §10.
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


def timing(ms):
    return {"times_ms": [ms, ms * 1.1, ms * 0.95], "median_ms": ms, "min_ms": ms * 0.95,
            "repeats": 3, "warmup": 4}


def fake_programs(table=shapes.QUICK, dtypes=("f16", "bf16"), dense=False):
    """Manifest programs of `table` x `dtypes`, both 2:4 kernels built;
    dense: also STC's dense kernel where the dtype has it (else its
    not_built entry, as the build writes them)."""
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
            if dense:
                why = build_programs.dense_not_built(False, "sm_90", dt)
                progs[-1]["dense"] = (
                    {"target": "sm_90", "status": "not_built", "error": why} if why else
                    {"target": "sm_90", "status": "ok", "kernel": dense_info(input_type=dt,
                                                                             output_type=dt),
                     "ptx": "k_dense.ptx", "kernel_info": "k_dense.json"})
    return progs


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
    p = subprocess.run([sys.executable, os.path.join(BENCH, script), "run",
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
    parser; check(program, kernel info, build key) asserts the rest: key
    None for the program's own kernel, else its manifest key) and program
    text, the PTX .entry matching, ptxas -arch=<target> accepting it; the
    same for every further kernel (build_programs.SUB_BUILDS: sm_90a, and
    the GEMM's dense one) the program has, ok unless the build leaves it
    out on purpose (--mock; the dense kernel of a dtype without it).
    Returns (manifest, the check's summary)."""
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
        # The program's kernel, and the others where the build made them.
        builds = [(man["target"], p, None)]
        for key, _ in build_programs.SUB_BUILDS:
            sub = p.get(key)
            if not isinstance(sub, dict):
                continue
            skipped = expect_mock or (key == "dense" and not shapes.has_stc_dense(p["dtype"]))
            # stc_auto's kernel: not built where this build has no stc-tune.
            skipped = skipped or (key == "auto" and sub["status"] == "not_built"
                                  and "no stc-tune" in (sub.get("error") or ""))
            # STC's dense convolution: not built where stc-compile makes no
            # tensor-core kernel of it, or one behind a copy kernel (the
            # stem's C = 3 padded to 8).
            skipped = skipped or (key == "dense" and sub["status"] == "not_built" and (
                "no tensor-core kernel" in (sub.get("error") or "")
                or "copy kernel" in (sub.get("error") or "")))
            assert sub["status"] == ("not_built" if skipped else "ok"), (p["name"], key, sub)
            if sub["status"] == "ok":
                assert sub["target"] == man["target_" + key], (p["name"], key, sub)
                builds.append((sub["target"], sub, key))
        for target, b, key in builds:
            for field in ("ptx", "kernel_info"):
                assert os.path.getsize(os.path.join(work, b[field])) > 0, (p["name"], field)
            with open(os.path.join(work, b["kernel_info"])) as f:
                ki = parse(f.read())
            assert len(ki) == 1
            with open(os.path.join(work, b["ptx"])) as f:
                kernel_info.check_ptx_against_info(f.read(), ki[0])
            if check:
                check(p, ki[0], key)
            variants.setdefault(target if key != "dense" else "%s dense" % target,
                                []).append(ki[0].get("variant", "?"))
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
    work = work_dir(work_name)
    quick_build(step, work_env, work, ["--mock"])
    return check(work, True)


def have_torch():
    return subprocess.run([sys.executable, "-c", "import torch"],
                          stderr=subprocess.DEVNULL).returncode == 0


#: The settings of each benchmark's simulated runs (sized for the self test).
SIM_OPTIONS = {
    "gemm_bench.py": ["--time-budget", "120", "--max-method-s", "0.05", "--max-repeats", "20"],
    "conv_bench.py": ["--time-budget", "200", "--max-method-s", "0.02", "--max-repeats", "10"],
}


def sim_run(script, mp, tmp, tag, extra):
    """`script run --simulate` (its worker on the CPU, a stand-in kernel
    computing from the packed parameters): bench_run's result."""
    return bench_run(script, mp, tmp, tag, SIM_OPTIONS[script] + ["--simulate"] + extra)


def summary():
    """The counts line; the exit status (1 when a check failed)."""
    print("%d passed, %d failed, %d skipped" % (RESULTS["PASS"], RESULTS["FAIL"],
                                                RESULTS["SKIP"]))
    return 1 if RESULTS["FAIL"] else 0


def run_checks(checks, argv):
    """Runs the checks named in argv (all of `checks` when none is): one
    PASS/FAIL/SKIP line each, then the counts; exit status 1 when one
    failed, 2 for an unknown name."""
    unknown = [a for a in argv if a not in checks]
    if unknown:
        print("unknown check(s) %s; known: %s" % (", ".join(unknown), ", ".join(checks)))
        return 2
    for name in argv or list(checks):
        check(name, checks[name])
    return summary()
