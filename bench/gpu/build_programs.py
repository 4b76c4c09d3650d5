#!/usr/bin/env python3
"""Build step of the GPU GEMM benchmark (runs on the build machine, no GPU).

    build_programs.py --work DIR [--quick] [--mock] [--stc-compile PATH]
                      [--target sm_90] [--flags "..."] [--out-dtype same|f32]
                      [--sm90a-target sm_90a|none] [--sm90a-flags "..."]
                      [--dense-target TARGET|none] [--dense-flags "..."]

For every shape of bench/gpu/shapes.py and every dtype (f16, bf16, i8)
writes DIR/programs/<name>-<dtype>/prog.mlir (one `stc.spmm`, A sparse given
compressed; i8: B given transposed, N x K, and an i32 result), compiles it
twice,
    stc-compile prog.mlir --target=T --emit=ptx -o k.ptx --kernel-info=k.json
    stc-compile prog.mlir --target=sm_90a --emit=ptx -o k_sm90a.ptx
                --kernel-info=k_sm90a.json
(--target T, default sm_90: the "stc" method; --sm90a-target, default
sm_90a, "none" to skip: the "stc_sm90a" method, recorded under the
program's "sm90a" key). For f16 and bf16 it also writes
DIR/programs/<name>-<dtype>/dense.mlir, the same product as a plain
linalg.matmul of the whole A (no 2:4), which stc-compile keeps on its dense
tensor-core kernel, and compiles it for the "stc_dense" method,
    stc-compile dense.mlir --target=T --emit=ptx -o k_dense.ptx
                --kernel-info=k_dense.json
(--dense-target, default --target: the same target as "stc"; none: skip;
recorded under the program's "dense" key). For the "stc_auto" method it
asks stc-tune (--stc-tune; --shapes of the table's products, one list per
dtype, --target of the sm_90a kernel, --tuning-db: the committed database)
for --sparsity=auto's decision of each product and writes
DIR/programs/<name>-<dtype>/auto.mlir, the 2:4 or the dense program with
the decided kernel configuration attached, compiled for that target into
k_auto.ptx/k_auto.json and checked against the configuration too
(recorded under the program's "auto" key; not_built without stc-tune). It
checks each kernel info (one
kernel, known parameters, the program's problem, metadata for the 2:4
programs and none for the dense one, tensor maps that fit the operands,
matching the PTX .entry) and assembles each PTX with ptxas -arch=<its
target> (when the CUDA toolkit is here), and writes DIR/manifest.json,
which the run step reads. --mock instead compiles bench/gpu/mock_spmm.cu
with nvcc (a plain CUDA C kernel that tests the harness; never reported as
STC; no sm_90a or dense variant) and writes its kernel info.

Either way it also builds the "cutlass2" baseline (--cutlass2 auto, the
default; none: skip it): bench/gpu/cutlass2/cutlass2_spmm.cu, CUTLASS 2.x's
Ampere sparse GEMM (SparseGemm, Sm80 kernels) compiled for sm_90 with nvcc
into DIR/cutlass2/libcutlass2_spmm.so, from the CUTLASS sources of
--cutlass-tarball (unpacked once under bench/work/cutlass, which does not
travel). Without nvcc or the archive, or when nvcc fails, the manifest's
"cutlass2" says why and the run records the method as unavailable; that is
not a build failure (it is a baseline, not STC).

Exit status: 0 when every program built, 1 when some failed (the manifest
records why, and the run step marks them), 2 on a usage or setup error.
Pure Python 3 standard library.
"""

import argparse
import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import kernel_info  # noqa: E402
import shapes  # noqa: E402
import tunelib  # noqa: E402

ELEM = {"f16": "f16", "bf16": "bf16", "f32": "f32", "i8": "i8", "i32": "i32"}
#: nvcc -D flags selecting bench/gpu/mock_spmm.cu's entry for each dtype.
MOCK_DEFINES = {"f16": [], "bf16": ["-DMOCK_BF16"], "i8": ["-DMOCK_I8"]}
MAX_TOTAL_BYTES = 48 << 20  # what the build may leave for the GPU machine
#: The CUTLASS sources of the cutlass2 baseline (/work/shared/third_party
#: beside the checkout; its README.md says what the archive holds).
CUTLASS_TARBALL = os.path.join(os.path.dirname(ROOT), "shared", "third_party",
                               "cutlass-7107b05-baseline.tar.xz")
CUTLASS2_SOURCE = "bench/gpu/cutlass2/cutlass2_spmm.cu"
CUTLASS2_LIBRARY = "libcutlass2_spmm.so"


def log(msg):
    print("[run_gpu_bench build] " + msg, file=sys.stderr, flush=True)


def config_attr(config):
    """The `stc_gpu.kernel_config = ...` attribute of a configuration text
    (`#stc_gpu.kernel_config<...>`, as stc-tune and the compiler print it):
    stc-compile keeps it on the op instead of choosing one."""
    return "stc_gpu.kernel_config = " + config


def program_text(name, dtype, out_dtype, m, n, k, config=None):
    """The 2:4 program (func.func @spmm: one stc.spmm, A given compressed;
    i8: B given transposed, N x K), with the kernel configuration text
    `config` attached to the stc.spmm when given."""
    t, to = ELEM[dtype], ELEM[out_dtype]
    tr = shapes.dense_transposed(dtype)
    v = "tensor<%dx%dx%s>" % (m, k // 2, t)
    mt = "tensor<%dx%dxi16>" % (m, k // 16)
    d = "tensor<%dx%dx%s>" % ((n, k, t) if tr else (k, n, t))
    o = "tensor<%dx%dx%s>" % (m, n, to)
    if tr:
        # i8: the sm_90a kernel (TMA + wgmma s8) reads B with K contiguous.
        dense = ("B is\n// given transposed, %dx%d (N x K, K contiguous); C is %dx%d %s (exact\n"
                 "// s32 accumulation)" % (n, k, m, n, out_dtype))
    else:
        dense = ("B is\n// the dense %dx%d operand; C is %dx%d %s (f32 accumulation)"
                 % (k, n, m, n, out_dtype))
    return (
        "// Generated by bench/gpu/build_programs.py: %s, %s.\n"
        "// C = A . B: A is the sparse %dx%d operand (2:4 along K), given in the\n"
        "// canonical compressed format (values %dx%d, metadata %dx%d i16); %s.\n"
        "func.func @spmm(%%values: %s, %%meta: %s, %%dense: %s) -> %s {\n"
        "  %%out = stc.spmm %%values, %%meta, %%dense\n"
        "      {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>%s%s}\n"
        "      : %s, %s, %s -> %s\n"
        "  return %%out : %s\n"
        "}\n" % (name, dtype, m, k, m, k // 2, m, k // 16, dense,
                 v, mt, d, o, ", dense_transposed = true" if tr else "",
                 (", " + config_attr(config)) if config else "", v, mt, d, o, o))


def dense_program_text(name, dtype, out_dtype, m, n, k, config=None):
    """The dense counterpart of program_text's product (method stc_dense):
    C = A . B with A the whole M x K operand, as a frontend emits a linear
    layer that is not sparse (a zero-filled init and linalg.matmul), so
    stc-compile keeps it dense and runs it on its dense tensor-core kernel.
    B is K x N: only dtypes with a K x N B have the method
    (shapes.has_stc_dense). `config`: a kernel configuration text attached
    to the linalg.matmul."""
    if shapes.dense_transposed(dtype):
        raise ValueError("%s programs give B transposed; the dense program takes it K x N"
                         % dtype)
    t, to = ELEM[dtype], ELEM[out_dtype]
    a, b = "tensor<%dx%dx%s>" % (m, k, t), "tensor<%dx%dx%s>" % (k, n, t)
    o = "tensor<%dx%dx%s>" % (m, n, to)
    return (
        "// Generated by bench/gpu/build_programs.py: %s, %s, STC's dense kernel.\n"
        "// C = A . B with A the whole %dx%d operand (not pruned) and B the dense %dx%d\n"
        "// one; C is %dx%d %s (f32 accumulation). A contraction that stays dense.\n"
        "func.func @gemm(%%a: %s, %%b: %s) -> %s {\n"
        "  %%zero = arith.constant 0.0 : %s\n"
        "  %%init = tensor.empty() : %s\n"
        "  %%c0 = linalg.fill ins(%%zero : %s) outs(%%init : %s) -> %s\n"
        "  %%out = linalg.matmul%s ins(%%a, %%b : %s, %s) outs(%%c0 : %s) -> %s\n"
        "  return %%out : %s\n"
        "}\n" % (name, dtype, m, k, k, n, m, n, out_dtype, a, b, o, to, o, to, o, o,
                 (" {%s}" % config_attr(config)) if config else "", a, b, o, o, o))


def run(cmd, timeout, cwd=None):
    """(returncode, combined output, seconds); never raises for the tool."""
    t0 = time.time()
    try:
        p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=timeout)
        out = p.stdout.decode(errors="replace")
        return p.returncode, out, time.time() - t0
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode(errors="replace")
        return 124, out + "\n(timed out after %d s)" % timeout, time.time() - t0
    except OSError as e:
        return 127, "cannot run %s: %s" % (cmd[0], e), time.time() - t0


def tail(text, n=15):
    return "\n".join(text.strip().splitlines()[-n:])


def ptxas_check(ptxas, arch, ptx_path):
    """Assembles the PTX for `arch`; returns a dict with ok, output and the
    resource figures ptxas -v prints."""
    if not ptxas:
        return {"ok": None, "note": "ptxas not found: not assembled here"}
    rc, out, secs = run([ptxas, "-arch=" + arch, "-v", ptx_path, "-o", os.devnull], 600)
    res = {"ok": rc == 0, "arch": arch, "seconds": round(secs, 2), "output": tail(out, 20)}
    m = re.search(r"Used (\d+) registers", out)
    if m:
        res["registers"] = int(m.group(1))
    m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", out)
    if m:
        res["stack_frame_bytes"], res["spill_store_bytes"], res["spill_load_bytes"] = (
            int(m.group(1)), int(m.group(2)), int(m.group(3)))
    m = re.search(r"(\d+) bytes smem", out)
    if m:
        res["static_smem_bytes"] = int(m.group(1))
    return res


def git(*args):
    try:
        p = subprocess.run(["git", "-C", ROOT] + list(args), stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, timeout=30)
        return p.stdout.decode().strip() if p.returncode == 0 else None
    except (OSError, subprocess.TimeoutExpired):
        return None


# ---------------------------------------------------------------------------
# What both build steps share (this one and build_conv_programs.py)
# ---------------------------------------------------------------------------

def arg_parser(doc):
    """The options both build steps take."""
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    ap.add_argument("--work", required=True)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--mock", action="store_true")
    build = os.environ.get("STC_BUILD_DIR") or os.path.join(ROOT, "build")
    ap.add_argument("--stc-compile", default=os.path.join(build, "bin", "stc-compile"))
    ap.add_argument("--target", default="sm_90")
    ap.add_argument("--flags", default="", help="extra stc-compile flags")
    ap.add_argument("--cuda", default="/usr/local/cuda")
    ap.add_argument("--only", default=None, help="regex on program names")
    ap.add_argument("--runtime-lib",
                    default=os.path.join(build, "lib", "libstc_runtime_cuda.so"),
                    help="stc_runtime's CUDA C API, copied into the work directory: the "
                         "run step launches the kernels through it")
    return ap


def cuda_tool(name, cuda):
    """The CUDA toolkit's `name` (ptxas, nvcc) in cuda/bin or on PATH."""
    return shutil.which(name, path=os.path.join(cuda, "bin")) or shutil.which(name)


def find_tools(args, mock_source, log, no_kernel_info):
    """(ptxas or None, its version, nvcc (--mock) or None, stc-compile's
    version (not --mock)), or None after logging why the build cannot
    start: --mock without nvcc, no stc-compile, or one without
    --kernel-info (no_kernel_info: what to say then)."""
    if not os.path.isfile(args.runtime_lib):
        log("no %s: the run step launches the kernels through it; build it first "
            "(ninja -C build stc_runtime_cuda)" % args.runtime_lib)
        return None
    ptxas = cuda_tool("ptxas", args.cuda)
    ptxas_version = None
    if ptxas:
        rc, out, _ = run([ptxas, "--version"], 60)
        ptxas_version = out.strip().splitlines()[-1] if rc == 0 and out.strip() else None
    nvcc = stc_version = None
    if args.mock:
        nvcc = cuda_tool("nvcc", args.cuda)
        if not nvcc:
            log("--mock needs nvcc (the CUDA toolkit) to compile %s; none in %s/bin or on "
                "PATH" % (mock_source, args.cuda))
            return None
    else:
        sc = args.stc_compile
        if not os.access(sc, os.X_OK):
            log("stc-compile not found at %s: build it first "
                "(flock /tmp/stc-build.lock ninja -C build stc-compile)" % sc)
            return None
        rc, helptext, _ = run([sc, "--help"], 120)
        if "--kernel-info" not in helptext:
            log(no_kernel_info % sc)
            return None
        rc, out, _ = run([sc, "--version"], 60)
        stc_version = next((l.strip() for l in out.splitlines() if "version" in l.lower()),
                           out.strip()[:200] or None)
    return ptxas, ptxas_version, nvcc, stc_version


def copy_runtime(args, work):
    """Copies the runtime library into the work directory, which travels to
    the GPU machine (the run step loads it from there first: stcrt.py)."""
    shutil.copy(args.runtime_lib, os.path.join(work, os.path.basename(args.runtime_lib)))


def nvcc_ptx(nvcc, target, source, defines, path):
    """Compiles the mock kernel `source` (bench/gpu/...) to PTX through the
    scratch file `path`: (exit status, the PTX or nvcc's output)."""
    rc, out, _ = run([nvcc, "-ptx", "-arch=" + target, "-O3"] + defines
                     + [os.path.join(ROOT, source), "-o", path], 600)
    if rc != 0:
        return rc, out
    with open(path) as f:
        ptx = f.read()
    os.remove(path)
    return 0, ptx


def read_kernel(rel, ptx_path, ki_path, parse, why_one=""):
    """The one kernel of a built program's kernel info (parse: the
    benchmark's validating parser) and its PTX, the .entry checked against
    it; raises kernel_info.KernelInfoError. why_one: said after "exactly one"."""
    for p in (ptx_path, ki_path):
        if not os.path.isfile(p) or os.path.getsize(p) == 0:
            raise kernel_info.KernelInfoError("%s was not written (or is empty)" % p)
    with open(ki_path) as f:
        kinfos = parse(f.read(), where=os.path.join(rel, "k.json"))
    if len(kinfos) != 1:
        raise kernel_info.KernelInfoError(
            "%s lists %d kernels (%s); the benchmark launches exactly one%s"
            % (os.path.join(rel, "k.json"), len(kinfos),
               ", ".join(x["kernel"] for x in kinfos) or "none", why_one))
    with open(ptx_path) as f:
        ptx = f.read()
    kernel_info.check_ptx_against_info(ptx, kinfos[0], where=os.path.join(rel, "k.ptx"))
    return kinfos[0], ptx


def assemble_ptx(entry, ptxas, target, ptx_path):
    """ptxas on the program's PTX (entry["ptxas"]); the error when ptxas
    rejected it, else None."""
    entry["ptxas"] = ptxas_check(ptxas, target, ptx_path)
    if entry["ptxas"]["ok"] is False:
        return "ptxas -arch=%s rejected the PTX:\n%s" % (target, entry["ptxas"]["output"])
    return None


def manifest_fields(schema, args, kernel_source, stc_version, flags, out_dtype,
                    ptxas_version):
    """The manifest's fields before the benchmark's own: what was built,
    from which commit, with which tools."""
    commit = git("rev-parse", "HEAD") or "unknown"
    dirty = bool(git("status", "--porcelain", "--untracked-files=no"))
    return {
        "schema": schema,
        "utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ"),
        "quick": args.quick, "mock": args.mock, "only": args.only,
        "commit": commit, "commit_short": commit[:7] if commit != "unknown" else "unknown",
        "dirty": dirty,
        "kernel_source": kernel_source,
        "stc_compile": None if args.mock else os.path.relpath(args.stc_compile, ROOT),
        "stc_version": stc_version, "target": args.target, "flags": flags,
        "out_dtype": out_dtype, "ptxas_version": ptxas_version,
    }


#: A program's further STC kernels besides its own (the "stc" method's):
#: (manifest key, how the log names one, given its target). The sm_90a
#: kernel (both benchmarks) and STC's dense kernel of the same product (the
#: GEMM benchmark's stc_dense); the manifest says each one's target under
#: "target_<key>".
SUB_BUILDS = (("sm90a", "%s"), ("dense", "dense %s"), ("auto", "auto %s"))


def finish(work, manifest, nfail, log, what, max_bytes, over):
    """Writes the manifest, says how many programs built and how much the
    work directory holds; the exit status: 2 when it is over max_bytes
    (over: what the limit is), 1 when a program failed, else 0."""
    programs = manifest["programs"]
    with open(os.path.join(work, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")
    total = sum(os.path.getsize(os.path.join(d, fn)) for d, _, fs in os.walk(work) for fn in fs)
    nok = sum(1 for p in programs if p.get("status") == "ok")
    kernels = ""
    for key, label in SUB_BUILDS:
        subs = [p[key] for p in programs if isinstance(p.get(key), dict)
                and p[key].get("status") != "not_built"]
        if subs:
            kernels += ", %d of %d %s kernels" % (
                sum(1 for x in subs if x.get("status") == "ok"), len(subs),
                label % manifest.get("target_" + key))
    log("%d of %d %s built%s%s; %s holds %.1f MiB"
        % (nok, len(programs), what, " (mock kernels)" if manifest["mock"] else "",
           kernels, work, total / 2**20))
    if total > max_bytes:
        log("%s is %.1f MiB, over the %d MiB %s: build fewer programs (--quick or --only)"
            % (work, total / 2**20, max_bytes >> 20, over))
        return 2
    if nfail:
        log("%d program(s) failed to build; see %s/manifest.json (the run marks them "
            "build_failed)" % (nfail, work))
        for p in programs:
            if p.get("status") != "ok":
                log("  %s: %s" % (p["name"], (p.get("error") or "").splitlines()[0]))
            for key, label in SUB_BUILDS:
                sub = p.get(key) or {}
                if sub.get("status") == "failed" and sub.get("error") != p.get("error"):
                    log("  %s (%s): %s" % (p["name"], label % sub.get("target"),
                                           (sub.get("error") or "").splitlines()[0]))
        return 1
    return 0



def compile_stc(args, target, flags, pdir, rel, stem, prog, ptxas, say, source="prog.mlir",
                sparse=True, config=None, log=log):
    """Compiles program `prog` (name, M, N, K, dtype, out_dtype) in pdir
    from `source` (prog.mlir, the 2:4 program; dense.mlir, its dense
    counterpart: sparse=False) with stc-compile --target=TARGET into
    STEM.ptx and STEM.json, checks the kernel info (one kernel, the
    program's problem, metadata where A is sparse and none where it is
    dense, tensor maps that fit the operands) and the PTX .entry, and
    assembles the PTX with ptxas -arch=TARGET. `config`: the kernel
    configuration text the program carries (stc-tune's candidates, the
    stc_auto method), which the kernel must have (family, tile, stages,
    cluster: tunelib.config_mismatches). The compile log is
    compile.log (stem k), compile_X.log (stem k_X) or compile_STEM.log.
    Returns the build's fields (ptx, kernel_info, command,
    compile_seconds, kernel, ptx_version/target/bytes, ptxas, status "ok"
    or "failed" with error). `log`: where its outcome is said (a parallel
    build names the program in it)."""
    m, n, k, dt, out_dt = prog["M"], prog["N"], prog["K"], prog["dtype"], prog["out_dtype"]
    tr = shapes.dense_transposed(dt)
    res = {"ptx": os.path.join(rel, stem + ".ptx"),
           "kernel_info": os.path.join(rel, stem + ".json")}
    ptx_path = os.path.join(pdir, stem + ".ptx")
    ki_path = os.path.join(pdir, stem + ".json")
    cmd = [args.stc_compile, source, "--target=" + target, "--emit=ptx",
           "-o", stem + ".ptx", "--kernel-info=" + stem + ".json"] + flags
    res["command"] = " ".join(["stc-compile"] + cmd[1:])
    say(res["command"])
    rc, out, secs = run(cmd, 900, cwd=pdir)
    res["compile_seconds"] = round(secs, 2)
    log_name = "compile.log" if stem == "k" else "compile_%s.log" % (
        stem[2:] if stem.startswith("k_") else stem)
    with open(os.path.join(pdir, log_name), "w") as f:
        f.write(out)
    if rc != 0:
        log("  FAILED: stc-compile status %d: %s" % (rc, tail(out, 3)))
        res.update(status="failed",
                   error="stc-compile exited with status %d:\n%s" % (rc, tail(out)))
        return res
    if out.strip():
        res["compile_output"] = tail(out, 10)
    try:
        kinfo, ptx = read_kernel(rel, ptx_path, ki_path, kernel_info.parse_kernel_info)
        bad = kernel_info.check_problem(kinfo, m, n, k, dt, out_dt, dense_transposed=tr,
                                        sparse=sparse)
        # The values: A compressed (M x K/2), or A whole for the dense kernel.
        bad += kernel_info.check_tensor_maps(
            kinfo, {"values": (m, k // 2 if sparse else k), "dense": (n, k) if tr else (k, n),
                    "out": (m, n)},
            {"values": dt, "dense": dt, "out": out_dt})
        if config:
            bad += ["not the configuration it was built with (%s): %s" % (config, x)
                    for x in tunelib.config_mismatches(config, kinfo)]
        if bad:
            raise kernel_info.KernelInfoError("; ".join(bad))
        res["kernel"] = kinfo
        res["ptx_version"], res["ptx_target"] = kernel_info.ptx_header(ptx)
        res["ptx_bytes"] = len(ptx)
    except (kernel_info.KernelInfoError, ValueError, OSError) as e:
        log("  FAILED: %s" % e)
        res.update(status="failed", error=str(e))
        return res
    err = assemble_ptx(res, ptxas, target, ptx_path)
    if err:
        log("  FAILED: ptxas: %s" % tail(res["ptxas"]["output"], 3))
        res.update(status="failed", error=err)
        return res
    res["status"] = "ok"
    ki, pa = res["kernel"], res["ptxas"]
    log("  ok: %s %s grid %s block %s%s shared %d B%s" % (
        ki["kernel"], ki.get("variant", "?"), ki["grid"], ki["block"],
        (" cluster %s" % kernel_info.cluster_of(ki)) if kernel_info.cluster_of(ki) != [1, 1, 1] else "",
        ki["shared_bytes"],
        (", %s registers, %s B spilled" % (pa.get("registers"), pa.get("spill_store_bytes")))
        if pa.get("ok") else ""))
    return res


def unpack_cutlass(tarball, dest):
    """The CUTLASS sources of `tarball` unpacked in `dest` (once: a stamp
    names the archive, its size and time; another archive replaces them).
    Unpacks into a fresh directory beside it and renames it into place, so
    two builds at once never see half an unpacked tree. Returns the error,
    or None."""
    st = os.stat(tarball)
    stamp = "%s %d %d\n" % (os.path.abspath(tarball), st.st_size, int(st.st_mtime))
    stamp_path = os.path.join(dest, ".unpacked-from")
    try:
        with open(stamp_path) as f:
            if f.read() == stamp:
                return None
    except OSError:
        pass
    parent = os.path.dirname(os.path.abspath(dest))
    os.makedirs(parent, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=".cutlass-", dir=parent)
    rc, out, _ = run(["tar", "-xJf", tarball, "-C", tmp], 600)
    if rc != 0:
        shutil.rmtree(tmp, ignore_errors=True)
        return "tar -xJf %s failed (status %d):\n%s" % (tarball, rc, tail(out))
    with open(os.path.join(tmp, ".unpacked-from"), "w") as f:
        f.write(stamp)
    if os.path.isdir(dest):
        shutil.rmtree(dest, ignore_errors=True)
    try:
        os.rename(tmp, dest)
    except OSError:
        # Another build put its copy there first: the same archive's.
        shutil.rmtree(tmp, ignore_errors=True)
    return None


def build_cutlass2(args, work):
    """The cutlass2 baseline's library (bench/gpu/cutlass2/cutlass2_spmm.cu,
    nvcc -arch sm_90) in work/cutlass2: the manifest's "cutlass2" entry,
    status "ok" (library: its path relative to work) or "unavailable"
    (error: why). Never fails the build: the run step records the reason."""
    ent = {"source": CUTLASS2_SOURCE, "tarball": args.cutlass_tarball}
    if args.cutlass2 == "none":
        return dict(ent, status="unavailable", error="not built (--cutlass2 none)")
    nvcc = cuda_tool("nvcc", args.cuda)
    if not nvcc:
        return dict(ent, status="unavailable",
                    error="no nvcc in %s/bin or on PATH at build time" % args.cuda)
    if not os.path.isfile(args.cutlass_tarball):
        return dict(ent, status="unavailable",
                    error="no CUTLASS archive %s at build time" % args.cutlass_tarball)
    src = os.path.abspath(args.cutlass_src)
    t0 = time.time()
    err = unpack_cutlass(args.cutlass_tarball, src)
    if err:
        return dict(ent, status="unavailable", error=err)
    try:
        with open(os.path.join(src, "COMMIT")) as f:
            ent["cutlass_commit"] = f.read().strip()
    except OSError:
        pass
    ent["unpack_seconds"] = round(time.time() - t0, 2)
    out_dir = os.path.join(work, "cutlass2")
    os.makedirs(out_dir, exist_ok=True)
    lib = os.path.join(out_dir, CUTLASS2_LIBRARY)
    # SASS for sm_90 only (no PTX): the library runs on H100/H200 alone and
    # stays small for the carry to the GPU machine. The static CUDA runtime
    # (nvcc's default) keeps it free of a libcudart of its own version.
    # --expt-relaxed-constexpr: CUTLASS's headers call constexpr host
    # functions from host-device code (warnings otherwise, as its CMake
    # build sets it too).
    cmd = [nvcc, "-std=c++17", "-O3", "-gencode", "arch=compute_90,code=sm_90",
           "--expt-relaxed-constexpr", "-shared", "-Xcompiler", "-fPIC",
           "-Xptxas", "-warn-spills", "--resource-usage",
           "-I" + os.path.join(src, "include"),
           "-I" + os.path.join(src, "tools", "util", "include"),
           os.path.join(ROOT, CUTLASS2_SOURCE), "-o", lib]
    ent["command"] = " ".join(["nvcc"] + [a.replace(ROOT + os.sep, "") for a in cmd[1:]])
    log("cutlass2 baseline: %s" % ent["command"])
    rc, out, secs = run(cmd, 1800)
    ent["compile_seconds"] = round(secs, 1)
    with open(os.path.join(out_dir, "build.log"), "w") as f:
        f.write(out)
    if rc != 0:
        log("  cutlass2 FAILED (nvcc status %d): %s" % (rc, tail(out, 3)))
        return dict(ent, status="unavailable",
                    error="nvcc exited with status %d:\n%s" % (rc, tail(out)))
    strip = shutil.which("strip")
    if strip:
        run([strip, "--strip-unneeded", lib], 120)
    ent["registers"] = [int(x) for x in re.findall(r"Used (\d+) registers", out)]
    # ptxas -warn-spills warnings, and --resource-usage lines with spills.
    ent["spill_warnings"] = [l.strip() for l in out.splitlines() if "spill" in l.lower() and (
        "warning" in l.lower() or re.search(r"\b[1-9]\d* bytes spill", l))]
    ent.update(status="ok", library=os.path.relpath(lib, work), bytes=os.path.getsize(lib))
    log("  cutlass2 ok: %s, %.1f MiB, %d kernels, compiled in %.0f s%s" % (
        ent["library"], ent["bytes"] / 2**20, len(ent["registers"]), secs,
        ", SPILLS: %s" % ent["spill_warnings"][0] if ent["spill_warnings"] else ""))
    return ent


#: The committed tuning database (docs/TUNING.md), given to stc-tune for
#: the stc_auto method's decisions.
TUNING_DB = os.path.join(ROOT, "tuning", "stc-tuning-db.json")


def auto_decisions(args, target, todo, out_dtype, work):
    """--sparsity=auto's decision for each program of `todo` ((row, dtype)
    pairs) with the committed tuning database, for the stc_auto method:
    stc-tune --shapes (one list per dtype, so that one dtype stc-tune
    refuses does not take the others with it) --target=TARGET
    [--tuning-db=args.tuning_db], its manifest's "auto" of each key.
    Returns {(m, n, k, dtype, out): ("ok", auto) or (status, why)}, status
    "not_built" where there is nothing to decide with (no target, the mock,
    no stc-tune) and "failed" where stc-tune failed."""
    keys = {}
    for (name, _g, m, n, k), dt in todo:
        keys.setdefault(dt, {})[(m, n, k, dt, shapes.out_dtype(dt, out_dtype))] = name
    why = None
    if args.mock:
        why = "--mock: the mock kernel has no stc_auto variant"
    elif target is None:
        why = "built with the sm_90a kernel disabled (STC_GPU_TARGET_SM90A=none): stc_auto " \
              "takes its target"
    elif args.stc_tune in ("", "none"):
        why = "built without stc-tune (STC_TUNE=none)"
    elif not os.access(args.stc_tune, os.X_OK):
        why = "no stc-tune at %s at build time (ninja -C build stc-tune)" % args.stc_tune
    out = {}
    if why:
        for ks in keys.values():
            out.update((key, ("not_built", why)) for key in ks)
        return out
    db = args.tuning_db if args.tuning_db and os.path.isfile(args.tuning_db) else None
    tmp = tempfile.mkdtemp(prefix=".auto-", dir=work)
    try:
        for dt, ks in keys.items():
            lst = os.path.join(tmp, "shapes-%s.txt" % dt)
            with open(lst, "w") as f:
                f.write(tunelib.shape_list_text(
                    [(nm,) + key for key, nm in ks.items()],
                    "bench/gpu/build_programs.py: the stc_auto method's shapes (%s)" % dt))
            d = os.path.join(tmp, dt)
            rc, text, cmd, secs = tunelib.run_stc_tune(args.stc_tune, lst, target, d, db)
            log("stc_auto %s: %s (%.1f s)" % (dt, cmd.replace(tmp + os.sep, ""), secs))
            err = None
            if rc != 0:
                err = "%s exited with status %d:\n%s" % (cmd.replace(tmp + os.sep, ""), rc,
                                                         tail(text))
            else:
                try:
                    man = tunelib.read_manifest(os.path.join(d, "manifest.json"))
                    got = {}
                    for op in man["ops"]:
                        kk = op["key"]
                        auto = op.get("auto")
                        if not isinstance(auto, dict) or not isinstance(auto.get("sparse"), bool):
                            raise tunelib.TuneError("op %s has no \"auto\" decision"
                                                    % op["name"])
                        tunelib.parse_config(auto.get("config"))
                        got[(kk["m"], kk["n"], kk["k"], kk["dtype"], kk["out"])] = auto
                    for key in ks:
                        out[key] = ("ok", got[key]) if key in got else (
                            "failed", "stc-tune's manifest has no op for %s" % (key,))
                except (tunelib.TuneError, OSError) as e:
                    err = "stc-tune's manifest: %s" % e
            if err:
                log("  stc_auto %s FAILED: %s" % (dt, err.splitlines()[0]))
                out.update((key, ("failed", err)) for key in ks)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return out


def build_auto(args, target, flags, decision, pdir, rel, entry, ptxas, say):
    """The stc_auto method's kernel of program `entry` (the manifest's
    "auto"): from its decision ((status, auto) of auto_decisions), the
    2:4 program (auto.mlir, the form of prog.mlir) or the dense one (the
    form of dense.mlir) with the decided configuration attached, compiled
    for `target` and checked as the others (and against the
    configuration)."""
    status, auto = decision
    if status != "ok":
        return {"target": target, "status": status, "error": auto}
    sparse, config = auto["sparse"], auto["config"]
    ent = {"target": target, "sparse": sparse, "config": config, "decision": auto,
           "mlir": os.path.join(rel, "auto.mlir")}
    name, dt, out_dt = entry["name"], entry["dtype"], entry["out_dtype"]
    m, n, k = entry["M"], entry["N"], entry["K"]
    if not sparse and shapes.dense_transposed(dt):
        return dict(ent, status="failed",
                    error="--sparsity=auto keeps the %s product dense, but the benchmark's "
                          "dense program takes B K x N (%s programs give it N x K)" % (dt, dt))
    with open(os.path.join(pdir, "auto.mlir"), "w") as f:
        f.write(program_text(name, dt, out_dt, m, n, k, config) if sparse
                else dense_program_text(name, dt, out_dt, m, n, k, config))
    ent.update(compile_stc(args, target, flags, pdir, rel, "k_auto", entry, ptxas, say,
                           source="auto.mlir", sparse=sparse, config=config))
    return ent


def dense_not_built(mock, target, dtype):
    """Why a `dtype` program gets no dense kernel (method stc_dense), or
    None when it gets one."""
    if mock:
        return "--mock: the mock kernel has no dense variant"
    if target is None:
        return "built with the dense kernel disabled (STC_GPU_TARGET_DENSE=none)"
    if not shapes.has_stc_dense(dtype):
        return ("%s: STC's dense tensor-core kernel (mma.sync m16n8k16) multiplies f16 and "
                "bf16 only" % dtype)
    return None


def main():
    ap = arg_parser(__doc__)
    ap.add_argument("--out-dtype", default="same", choices=("same", "f32"))
    ap.add_argument("--sm90a-target", default="sm_90a",
                    help="target of STC's second kernel (stc_sm90a); none: do not build it")
    ap.add_argument("--sm90a-flags", default=None,
                    help="its extra stc-compile flags (default: --flags)")
    ap.add_argument("--dense-target", default=None,
                    help="target of STC's dense kernel of each f16/bf16 product (stc_dense; "
                         "default: --target, as the stc method); none: do not build it")
    ap.add_argument("--dense-flags", default=None,
                    help="its extra stc-compile flags (default: --flags)")
    ap.add_argument("--cutlass2", default="auto", choices=("auto", "none"),
                    help="build the cutlass2 baseline's library (auto: where nvcc and the "
                         "CUTLASS archive are)")
    ap.add_argument("--cutlass-tarball", default=CUTLASS_TARBALL,
                    help="the CUTLASS sources of the cutlass2 baseline")
    ap.add_argument("--cutlass-src", default=os.path.join(ROOT, "bench", "work", "cutlass"),
                    help="where they are unpacked (once; not carried to the GPU machine)")
    build = os.environ.get("STC_BUILD_DIR") or os.path.join(ROOT, "build")
    ap.add_argument("--stc-tune", default=os.path.join(build, "bin", "stc-tune"),
                    help="stc-tune, which decides each product's stc_auto form and "
                         "configuration (none: no stc_auto method)")
    ap.add_argument("--tuning-db", default=TUNING_DB,
                    help="the tuning database stc-tune is given for those decisions")
    args = ap.parse_args()
    sm90a = None if args.sm90a_target in ("", "none") else args.sm90a_target
    dense_target = (args.target if args.dense_target is None
                    else None if args.dense_target in ("", "none") else args.dense_target)

    work = os.path.abspath(args.work)
    progs_dir = os.path.join(work, "programs")
    if args.mock and args.out_dtype != "same":
        log("--mock writes outputs of the program's own type only (the input type; i32 for "
            "i8): STC_GPU_OUT=same")
        return 2
    tools = find_tools(args, "bench/gpu/mock_spmm.cu", log,
                       "%s does not accept --kernel-info yet (the GPU code generator has not "
                       "landed in this build): nothing to benchmark. `build --mock` tests the "
                       "harness with a plain CUDA kernel instead.")
    if tools is None:
        return 2
    ptxas, ptxas_version, nvcc, stc_version = tools

    # Start from an empty work directory: nothing stale may travel.
    if os.path.isdir(work):
        shutil.rmtree(work)
    os.makedirs(progs_dir)
    copy_runtime(args, work)

    mock_ptx = {}
    if args.mock:
        for dt in shapes.DTYPES:
            rc, mock_ptx[dt] = nvcc_ptx(nvcc, args.target, "bench/gpu/mock_spmm.cu",
                                        MOCK_DEFINES[dt], os.path.join(work, "mock_%s.ptx" % dt))
            if rc != 0:
                log("nvcc failed on bench/gpu/mock_spmm.cu (%s):\n%s" % (dt, tail(mock_ptx[dt])))
                return 2

    flags = args.flags.split()
    flags_sm90a = flags if args.sm90a_flags is None else args.sm90a_flags.split()
    flags_dense = flags if args.dense_flags is None else args.dense_flags.split()
    table = shapes.table(args.quick)
    programs = []
    nfail = 0
    todo = [(row, dt) for row in table for dt in shapes.DTYPES
            if not args.only or re.search(args.only, "%s-%s" % (row[0], dt))]
    if not todo:
        log("no program matches --only %r" % args.only)
        return 2
    # --sparsity=auto's decisions (method stc_auto), for the sm_90a target.
    decisions = auto_decisions(args, sm90a, todo, args.out_dtype, work)
    for i, ((name, group, m, n, k), dt) in enumerate(todo):
        pname = "%s-%s" % (name, dt)
        rel = os.path.join("programs", pname)
        pdir = os.path.join(work, rel)
        os.makedirs(pdir)
        out_dt = shapes.out_dtype(dt, args.out_dtype)
        entry = {"name": pname, "shape": name, "group": group, "M": m, "N": n, "K": k,
                 "dtype": dt, "out_dtype": out_dt,
                 "dense_transposed": shapes.dense_transposed(dt), "dir": rel,
                 "mlir": os.path.join(rel, "prog.mlir"),
                 "ptx": os.path.join(rel, "k.ptx"),
                 "kernel_info": os.path.join(rel, "k.json")}
        programs.append(entry)
        # STC's second kernel, --target=sm_90a (report method stc_sm90a).
        if args.mock:
            entry["sm90a"] = {"target": sm90a, "status": "not_built",
                              "error": "--mock: the mock kernel has no sm_90a variant"}
        elif sm90a is None:
            entry["sm90a"] = {"target": None, "status": "not_built",
                              "error": "built with the sm_90a kernel disabled "
                                       "(STC_GPU_TARGET_SM90A=none)"}
        # --sparsity=auto's choice (method stc_auto): nothing to decide with.
        status, why = decisions[(m, n, k, dt, out_dt)]
        if status == "not_built":
            entry["auto"] = {"target": None if args.mock else sm90a, "status": status,
                             "error": why}
        # STC's dense kernel of the same product (report method stc_dense).
        why_not = dense_not_built(args.mock, dense_target, dt)
        if why_not:
            entry["dense"] = {"target": None if args.mock else dense_target,
                              "status": "not_built", "error": why_not}
        why = shapes.check_shape(m, n, k, dt)
        if why:
            entry.update(status="failed", error="shape unsupported: " + "; ".join(why))
            for key, target in (("sm90a", sm90a), ("dense", dense_target), ("auto", sm90a)):
                if key not in entry:
                    entry[key] = {"target": target, "status": "failed", "error": entry["error"]}
            nfail += 1
            continue
        with open(os.path.join(pdir, "prog.mlir"), "w") as f:
            f.write(program_text(pname, dt, out_dt, m, n, k))
        if args.mock:
            ptx_path = os.path.join(pdir, "k.ptx")
            ki_path = os.path.join(pdir, "k.json")
            with open(ptx_path, "w") as f:
                f.write(mock_ptx[dt])
            # The same keys as stc-compile's (passes/GpuKernelInfo.h).
            kinfo = [{"kernel": "mock_spmm_" + dt, "block": [32, 8, 1],
                      "grid": [-(-n // 32), -(-m // 8), 1], "shared_bytes": 64 << 10,
                      "params": ["values", "meta", "dense", "out", "R", "P", "K",
                                 "value_cols", "meta_cols"],
                      "param_types": ["ptr"] * 4 + ["i32"] * 5, "num_pointers": 4,
                      "R": m, "P": n, "K": k, "sparse": "lhs",
                      "dense_transposed": entry["dense_transposed"],
                      "input_type": dt, "output_type": out_dt, "variant": "mock",
                      "note": "mock: bench/gpu/mock_spmm.cu, not STC"}]
            with open(ki_path, "w") as f:
                json.dump(kinfo, f, indent=1)
            entry["command"] = "nvcc -ptx -arch=%s bench/gpu/mock_spmm.cu" % args.target
            entry["compile_seconds"] = 0.0
            try:
                kinfo, ptx = read_kernel(rel, ptx_path, ki_path, kernel_info.parse_kernel_info)
                bad = kernel_info.check_problem(kinfo, m, n, k, dt, out_dt,
                                          dense_transposed=entry["dense_transposed"])
                if bad:
                    raise kernel_info.KernelInfoError("; ".join(bad))
                entry["kernel"] = kinfo
                entry["ptx_version"], entry["ptx_target"] = kernel_info.ptx_header(ptx)
                entry["ptx_bytes"] = len(ptx)
                err = assemble_ptx(entry, ptxas, args.target, ptx_path)
            except (kernel_info.KernelInfoError, ValueError, OSError) as e:
                err = str(e)
            if err:
                entry.update(status="failed", error=err)
                log("  FAILED: %s" % tail(err, 3))
                nfail += 1
            else:
                entry["status"] = "ok"
            continue
        say = lambda c, i=i: log("[%d/%d] %s: %s" % (i + 1, len(todo), pname, c))  # noqa: E731
        entry.update(compile_stc(args, args.target, flags, pdir, rel, "k", entry, ptxas, say))
        failed = entry["status"] != "ok"
        if sm90a is not None:
            entry["sm90a"] = dict(target=sm90a, **compile_stc(
                args, sm90a, flags_sm90a, pdir, rel, "k_sm90a", entry, ptxas, say))
            failed = failed or entry["sm90a"]["status"] != "ok"
        if "dense" not in entry:
            with open(os.path.join(pdir, "dense.mlir"), "w") as f:
                f.write(dense_program_text(pname, dt, out_dt, m, n, k))
            entry["dense"] = dict(target=dense_target, mlir=os.path.join(rel, "dense.mlir"),
                                  **compile_stc(args, dense_target, flags_dense, pdir, rel,
                                                "k_dense", entry, ptxas, say,
                                                source="dense.mlir", sparse=False))
            failed = failed or entry["dense"]["status"] != "ok"
        # --sparsity=auto's form and configuration (report method stc_auto).
        entry["auto"] = entry.get("auto") or build_auto(args, sm90a, flags_sm90a,
                                   decisions[(m, n, k, dt, out_dt)], pdir, rel, entry, ptxas,
                                   say)
        failed = failed or entry["auto"]["status"] == "failed"
        nfail += failed

    manifest = manifest_fields(
        "stc-gpu-gemm-build/1", args,
        "mock: bench/gpu/mock_spmm.cu (nvcc), NOT STC" if args.mock else "stc-compile",
        stc_version, flags, args.out_dtype, ptxas_version)
    manifest["target_sm90a"] = None if args.mock else sm90a
    manifest["flags_sm90a"] = flags_sm90a if sm90a and not args.mock else []
    manifest["target_dense"] = None if args.mock else dense_target
    manifest["flags_dense"] = flags_dense if dense_target and not args.mock else []
    manifest["target_auto"] = None if args.mock else sm90a
    manifest["auto"] = {"stc_tune": args.stc_tune, "tuning_db": os.path.relpath(
        args.tuning_db, ROOT) if args.tuning_db and os.path.isfile(args.tuning_db) else None}
    # The cutlass2 baseline (after the programs: its compile is the longest
    # step, and the programs do not depend on it).
    manifest["cutlass2"] = build_cutlass2(args, work)
    manifest["programs"] = programs
    return finish(work, manifest, nfail, log, "programs", MAX_TOTAL_BYTES,
                  "the GPU machine's copy allows for it")


if __name__ == "__main__":
    sys.exit(main())
