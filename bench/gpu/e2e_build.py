#!/usr/bin/env python3
"""Build step of the GPU end-to-end benchmark (bench/README.md, "GPU
end-to-end blocks"; run by `bench/run_gpu_bench.sh build-e2e`).

For every block and size of e2e_blocks.programs() and every STC method
("stc": --target sm_90, mma.sp; "stc_sm90a": --target sm_90a, TMA +
wgmma.sp) it writes the block's MLIR program (weights as arguments, already
compressed), compiles it with

    stc-compile prog.mlir --target=T --sparsity=explicit --gpu-device-entry --emit=obj

and links all objects with stc_runtime (libstc_runtime.a, libStcFormat.a of
the build) into one shared library, libstc_e2e.so, that the GPU machine
loads with ctypes (e2e_call.py): it needs no MLIR there, and libcuda.so.1 is
opened by the runtime at run time, so linking needs no GPU. The library
exports the runtime's C API too (stcrt.py loads it from the same file: one
copy of the runtime, one device-memory pool, one stream setting). The
kernels are PTX in the objects, JIT-compiled by the driver when the library
is loaded. Writes WORK/manifest.json.

--tiny: the same blocks at the sizes of e2e_blocks.TINY (the self test).
--check-emulate: run each built program on the GPU emulator (stc-run
--device=emulate --gpu-device-entry, both targets) on seeded NumPy inputs
and weights (format24's pruning and compression) and compare with
e2e_blocks' NumPy reference; --cpu-call-check: also compile the programs
for the CPU into WORK/libstc_e2e_cpu.so and call them through e2e_call.py
(the ctypes path the GPU run uses, with host pointers). Both are for --tiny
sizes. --fake-driver-check: load the GPU library on the build's fake CUDA
driver (libstc_fake_cuda.so, which computes nothing) and call every program
through its device-entry interface, as the run step does.
"""

import argparse
import json
import os
import re
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import build_programs as bp  # noqa: E402  (run, git, tail)
import e2e_blocks  # noqa: E402

SCHEMA = "stc-gpu-e2e-manifest/1"
LIBRARY = "libstc_e2e.so"
CPU_LIBRARY = "libstc_e2e_cpu.so"
#: The carry limit of the GPU run (the whole work directory travels).
MAX_BYTES = 48 << 20
#: What the library exports besides the programs: the runtime's C API that
#: stcrt.Runtime and the run step call (forced in with -u, the objects do
#: not reference them).
EXPORTS = [
    "stc_cuda_last_error", "stc_cuda_clear_error", "stc_cuda_has_error", "stc_cuda_init",
    "stc_cuda_device_info", "stc_cuda_module_load_ptx", "stc_cuda_module_unload",
    "stc_cuda_module_get_function", "stc_cuda_function_attribute",
    "stc_cuda_function_set_max_dynamic_shared", "stc_cuda_occupancy_blocks_per_sm",
    "stc_cuda_occupancy_clusters", "stc_cuda_mem_alloc", "stc_cuda_mem_free",
    "stc_cuda_memcpy_htod", "stc_cuda_memcpy_dtoh", "stc_cuda_memset_d8", "stc_cuda_launch",
    "stc_cuda_launch_cluster", "stc_cuda_synchronize", "stc_cuda_tensor_map_encode_tiled_ex",
    "stc_cuda_set_stream", "stc_cuda_set_stream_nowait", "stc_cuda_clear_stream",
    "stc_cuda_counters",
    "stc_cuda_release_cached_memory", "mgpuMemFree",
    "stc_rt_has_error", "stc_rt_error_message", "stc_rt_clear_error",
]
#: method -> (manifest key of its target, what it is).
METHODS = {"stc": "mma.sp (--target %s)", "stc_sm90a": "TMA + wgmma.sp (--target %s)"}


def log(msg):
    print("[e2e_build] " + msg, file=sys.stderr, flush=True)


def func_name(prog, method):
    return re.sub(r"[^A-Za-z0-9_]", "_", "%s_%s" % (prog["name"], method))


def compile_obj(args, mlir_path, obj_path, target, method=None):
    cmd = [args.stc_compile, mlir_path, "--target=" + target, "--sparsity=explicit",
           "--emit=obj", "-o", obj_path] + (["--gpu-device-entry"] if target != "cpu" else [])
    cmd += args.flags.split()
    if method == "stc_sm90a":
        cmd += args.flags_sm90a.split()
    rc, out, secs = bp.run(cmd, 900)
    if rc == 0:
        # Every object defines helpers of its own under the same global
        # names (dealloc_helper): keep only the function's two symbols
        # global, so that the objects link into one library.
        func = os.path.splitext(os.path.basename(mlir_path))[0]
        ocmd = [args.objcopy, "--keep-global-symbol=" + func,
                "--keep-global-symbol=_mlir_ciface_" + func, obj_path]
        rc, oout, _ = bp.run(ocmd, 120)
        out += oout
    return rc, out, secs, cmd


def link(args, objs, path, extra=()):
    """One shared library of the objects and the static runtime; every
    symbol must resolve here (--no-undefined), not at dlopen on the GPU
    machine."""
    rt = args.runtime_static_dir
    cmd = [args.cc, "-shared", "-Wl,--no-undefined", "-o", path] + objs + [
        os.path.join(rt, "libstc_runtime.a"), os.path.join(rt, "libStcFormat.a")]
    cmd += ["-Wl,-u," + s for s in EXPORTS]
    cmd += list(extra) + ["-lstdc++", "-ldl", "-lm", "-lpthread"]
    rc, out, _ = bp.run(cmd, 300)
    return rc, out, cmd


def save_inputs(prog, d, seed):
    """Seeded NumPy inputs and weights of a program as .npy in d: the
    arrays and their paths in argument order, and the reference output."""
    import numpy as np
    arrays, ref = e2e_blocks.numpy_case(prog, np.random.default_rng(seed))
    paths = []
    for i, a in enumerate(arrays):
        paths.append(os.path.join(d, "%s.arg%d.npy" % (prog["name"], i)))
        np.save(paths[-1], a)
    return arrays, paths, ref


def check_emulate(args, work, manifest):
    """Runs every built program's MLIR on the emulator; returns failures."""
    import numpy as np
    nfail = 0
    with tempfile.TemporaryDirectory() as d:
        for p in manifest["programs"]:
            _, paths, ref = save_inputs(p, d, 7)
            for method, ent in p["methods"].items():
                if ent["status"] != "ok":
                    continue
                out = os.path.join(d, "%s.%s.out.npy" % (p["name"], method))
                cmd = [args.stc_run, os.path.join(work, ent["mlir"]), "--device=emulate",
                       "--target=" + ent["target"], "--sparsity=explicit",
                       "--gpu-device-entry", "--entry=" + ent["func"], "--output=" + out]
                cmd += ["--input=" + x for x in paths]
                rc, text, secs = bp.run(cmd, 900)
                if rc:
                    nfail += 1
                    print("FAIL emulate %s %s: %s" % (p["name"], method, bp.tail(text, 5)))
                    continue
                err = e2e_blocks.rel_error(np.load(out).astype(np.float32), ref)
                ok = err <= e2e_blocks.TOLERANCE
                nfail += not ok
                print("%s emulate %s %s (%s): relative error %.2e (tolerance %.0e)"
                      % ("PASS" if ok else "FAIL", p["name"], method, ent["target"], err,
                         e2e_blocks.TOLERANCE))
    return nfail


def check_cpu_call(args, work, manifest):
    """Compiles the programs for the CPU into one library and calls each
    through e2e_call.py with NumPy buffers; returns failures."""
    import ctypes
    import numpy as np
    import e2e_call
    objs, nfail = [], 0
    progs = manifest["programs"]
    d = os.path.join(work, "cpu")
    os.makedirs(d, exist_ok=True)
    for p in progs:
        func = func_name(p, "cpu")
        src = os.path.join(d, func + ".mlir")
        with open(src, "w") as f:
            f.write(e2e_blocks.program_mlir(p, func))
        rc, out, _, _ = compile_obj(args, src, os.path.join(d, func + ".o"), "cpu")
        if rc:
            print("FAIL cpu compile %s: %s" % (p["name"], bp.tail(out, 5)))
            return 1
        objs.append(os.path.join(d, func + ".o"))
    lib_path = os.path.join(work, CPU_LIBRARY)
    # The CPU programs copy memrefs through MLIR's runner utilities
    # (memrefCopy); the GPU ones do not need them.
    extra = []
    if os.path.isdir(args.mlir_lib_dir):
        extra = ["-L" + args.mlir_lib_dir, "-lmlir_c_runner_utils",
                 "-Wl,-rpath," + args.mlir_lib_dir]
    rc, out, _ = link(args, objs, lib_path, extra)
    if rc:
        print("FAIL cpu link: %s" % bp.tail(out, 5))
        return 1
    lib = ctypes.CDLL(lib_path)
    libc = ctypes.CDLL(None)
    with tempfile.TemporaryDirectory() as td:
        for p in progs:
            arrays, _, ref = save_inputs(p, td, 7)
            prog = e2e_call.Program(lib, func_name(p, "cpu"), [a.shape for a in arrays],
                                    e2e_blocks.program_result(p)["shape"])
            prog.bind([a.ctypes.data for a in arrays])
            for rep in range(2):   # the second call reuses the descriptors
                res = prog.call()
                err = e2e_call.runtime_errors(lib)
                if err:
                    print("FAIL cpu call %s: %s" % (p["name"], err))
                    nfail += 1
                    break
                prog.check_result(res)
                n = int(np.prod(prog.result_shape))
                buf = (ctypes.c_uint16 * n).from_address(res.aligned)
                y = np.frombuffer(buf, dtype=np.float16).reshape(prog.result_shape).copy()
                libc.free(ctypes.c_void_p(res.allocated))
                e = e2e_blocks.rel_error(y.astype(np.float32), ref)
                ok = e <= e2e_blocks.TOLERANCE
                nfail += not ok
                print("%s cpu call %s #%d (ctypes, e2e_call.py): relative error %.2e"
                      % ("PASS" if ok else "FAIL", p["name"], rep + 1, e))
    return nfail


def fake_call(work):
    """In a process whose runtime opens the fake CUDA driver
    ($STC_CUDA_DRIVER_LIBRARY): loads the GPU library as the run step does
    (stcrt.Runtime, one copy of the runtime), sets the caller's stream and
    calls every program three times on device buffers of the runtime,
    freeing each result with mgpuMemFree: the device-entry calling
    convention end to end (the fake computes nothing); returns failures."""
    import ctypes
    import stcrt
    import e2e_call
    with open(os.path.join(work, "manifest.json")) as f:
        manifest = json.load(f)
    rt = stcrt.Runtime(os.path.join(work, manifest["library"]))
    err = e2e_call.runtime_errors(rt.lib)
    if err:
        print("FAIL fake driver: loading the library: %s" % err)
        return 1
    rt.init(0)
    L = rt.lib
    # As the run step: on the caller's stream, without waiting.
    L.stc_cuda_set_stream_nowait.argtypes = [ctypes.c_void_p]
    L.mgpuMemFree.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    L.stc_cuda_memset_d8.argtypes = [ctypes.c_uint64, ctypes.c_ubyte, ctypes.c_size_t]
    L.stc_cuda_set_stream_nowait(None)
    nfail = 0
    for p in manifest["programs"]:
        for method, ent in p["methods"].items():
            if ent["status"] != "ok":
                continue
            ptrs = []
            for a in p["args"]:
                n = e2e_call.ELEMENT_BYTES[a["dtype"]]
                for s in a["shape"]:
                    n *= s
                ptrs.append(rt.mem_alloc(n))
            prog = e2e_call.Program(L, ent["func"], [a["shape"] for a in p["args"]],
                                    p["result"]["shape"])
            prog.bind(ptrs)
            err = None
            for _ in range(3):
                res = prog.call()
                err = e2e_call.runtime_errors(L)
                if err:
                    break
                prog.check_result(res)
                n = e2e_call.ELEMENT_BYTES[p["result"]["dtype"]]
                for d in p["result"]["shape"]:
                    n *= d
                if L.stc_cuda_memset_d8(res.aligned, 0xFF, n):   # the run step's poison
                    err = "stc_cuda_memset_d8: %s" % e2e_call.runtime_errors(L)
                    break
                L.mgpuMemFree(res.allocated, None)
            for q in ptrs:
                rt.mem_free(q)
            nfail += bool(err)
            print("%s fake driver %s %s: 3 device-entry calls%s"
                  % ("FAIL" if err else "PASS", p["name"], method, ": " + err if err else ""))
    return nfail


def check_fake_driver(args, work):
    fake = os.path.join(os.path.dirname(args.runtime_static_dir), "lib", "libstc_fake_cuda.so")
    if not os.path.isfile(fake):
        print("SKIP fake driver: no %s" % fake)
        return 0
    env = dict(os.environ, STC_CUDA_DRIVER_LIBRARY=fake)
    import subprocess
    p = subprocess.run([sys.executable, os.path.abspath(__file__), "--work", work,
                        "--fake-call-only"], env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=600)
    print(p.stdout.decode(errors="replace"), end="")
    return 0 if p.returncode == 0 else max(1, p.stdout.decode().count("FAIL"))


def main():
    build = os.environ.get("STC_BUILD_DIR") or os.path.join(bp.ROOT, "build")
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--work", required=True)
    ap.add_argument("--tiny", action="store_true", help="the self test's sizes")
    ap.add_argument("--quick", action="store_true",
                    help="only the smallest and the largest size of each block")
    ap.add_argument("--only", default=None, help="regex on program names")
    ap.add_argument("--stc-compile", default=os.path.join(build, "bin", "stc-compile"))
    ap.add_argument("--stc-run", default=None, help="(default: beside stc-compile)")
    ap.add_argument("--runtime-static-dir", default=os.path.join(build, "runtime"),
                    help="where libstc_runtime.a and libStcFormat.a are")
    ap.add_argument("--cc", default=os.environ.get("CC", "cc"))
    ap.add_argument("--mlir-lib-dir", default="/usr/lib/llvm-22/lib",
                    help="libmlir_c_runner_utils for --cpu-call-check's CPU programs")
    ap.add_argument("--objcopy", default=os.environ.get("OBJCOPY", "objcopy"))
    ap.add_argument("--target", default="sm_90")
    ap.add_argument("--sm90a-target", default="sm_90a", help="none: only the first")
    ap.add_argument("--flags", default="", help="extra stc-compile flags")
    ap.add_argument("--flags-sm90a", default="",
                    help="extra stc-compile flags of the sm_90a method only (a kernel "
                    "variant beside the unchanged sm_90 one)")
    ap.add_argument("--check-emulate", action="store_true")
    ap.add_argument("--cpu-call-check", action="store_true")
    ap.add_argument("--fake-driver-check", action="store_true",
                    help="call the GPU library's programs on the fake CUDA driver of the build")
    ap.add_argument("--fake-call-only", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.fake_call_only:
        return 1 if fake_call(os.path.abspath(args.work)) else 0
    args.stc_run = args.stc_run or os.path.join(os.path.dirname(args.stc_compile), "stc-run")
    work = os.path.abspath(args.work)
    os.makedirs(work, exist_ok=True)
    for fn in os.listdir(work):
        if fn.endswith((".mlir", ".o", ".so")) or fn == "manifest.json":
            os.remove(os.path.join(work, fn))
    for tool, what in ((args.stc_compile, "stc-compile"),
                       (os.path.join(args.runtime_static_dir, "libstc_runtime.a"),
                        "the static runtime")):
        if not os.path.isfile(tool):
            log("no %s at %s: build STC first (scripts/build.sh)" % (what, tool))
            return 2

    progs = e2e_blocks.programs(tiny=args.tiny)
    if args.quick and not args.tiny:
        # The smallest and the largest size of each block.
        keep = []
        for blk in dict.fromkeys(p["block"] for p in progs):
            sizes = [p for p in progs if p["block"] == blk]
            keep += [sizes[0]] + ([sizes[-1]] if len(sizes) > 1 else [])
        progs = keep
    if args.only:
        progs = [p for p in progs if re.search(args.only, p["name"])]
    targets = {"stc": args.target}
    if args.sm90a_target != "none":
        targets["stc_sm90a"] = args.sm90a_target
    commit = bp.git("rev-parse", "HEAD") or "unknown"
    manifest = {
        "schema": SCHEMA, "utc": bp.datetime.datetime.now(bp.datetime.timezone.utc)
        .strftime("%Y%m%dT%H%M%SZ"),
        "commit": commit, "commit_short": commit[:7] if commit != "unknown" else "unknown",
        "dirty": bool(bp.git("status", "--porcelain", "--untracked-files=no")),
        "tiny": args.tiny, "quick": args.quick, "only": args.only,
        "stc_compile": os.path.relpath(os.path.abspath(args.stc_compile), bp.ROOT),
        "flags": "--sparsity=explicit --gpu-device-entry --emit=obj " + args.flags,
        "flags_sm90a": args.flags_sm90a,
        "targets": targets, "library": None,
        "methods": {m: METHODS[m] % t for m, t in targets.items()},
        "tolerance": e2e_blocks.TOLERANCE, "programs": [],
    }
    objs, nfail = [], 0
    for p in progs:
        ent = dict(p, args=e2e_blocks.program_args(p), result=e2e_blocks.program_result(p),
                   methods={})
        for method, target in targets.items():
            func = func_name(p, method)
            mlir, obj = func + ".mlir", func + ".o"
            with open(os.path.join(work, mlir), "w") as f:
                f.write(e2e_blocks.program_mlir(p, func))
            rc, out, secs, cmd = compile_obj(args, os.path.join(work, mlir),
                                             os.path.join(work, obj), target, method)
            m = {"func": func, "target": target, "mlir": mlir, "obj": obj,
                 "command": " ".join([os.path.basename(cmd[0])] +
                                     [os.path.basename(c) if c.startswith(work) else c
                                      for c in cmd[1:]]),
                 "seconds": round(secs, 2), "status": "ok" if rc == 0 else "build_failed"}
            if rc:
                m["error"] = bp.tail(out, 10)
                nfail += 1
                log("%s %s (%s): stc-compile failed: %s" % (p["name"], method, target,
                                                           bp.tail(out, 3)))
            else:
                objs.append(os.path.join(work, obj))
                log("%s %s (%s): %.1f s, %d KiB" % (p["name"], method, target, secs,
                                                   os.path.getsize(os.path.join(work, obj)) >> 10))
            ent["methods"][method] = m
        manifest["programs"].append(ent)
    if objs:
        rc, out, cmd = link(args, objs, os.path.join(work, LIBRARY))
        if rc:
            log("linking %s failed: %s" % (LIBRARY, bp.tail(out, 10)))
            manifest["library_error"] = bp.tail(out, 10)
            nfail += 1
        else:
            manifest["library"] = LIBRARY
            manifest["link"] = " ".join(os.path.basename(c) if c.endswith((".o", ".a")) else c
                                        for c in cmd[:6]) + " ..."
    with open(os.path.join(work, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")
    total = sum(os.path.getsize(os.path.join(work, fn)) for fn in os.listdir(work)
                if os.path.isfile(os.path.join(work, fn)))
    log("%d programs x %d methods, %d failed; %s holds %.1f MiB"
        % (len(progs), len(targets), nfail, work, total / 2**20))
    if total > MAX_BYTES:
        log("%s is over %d MiB: build fewer programs (--only)" % (work, MAX_BYTES >> 20))
        return 2
    if args.check_emulate:
        nfail += check_emulate(args, work, manifest)
    if args.cpu_call_check:
        nfail += check_cpu_call(args, work, manifest)
    if args.fake_driver_check and manifest["library"]:
        nfail += check_fake_driver(args, work)
    return 1 if nfail else 0


if __name__ == "__main__":
    sys.exit(main())
