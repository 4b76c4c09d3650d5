#!/usr/bin/env python3
"""Build step of the GPU tuning flow (build machine, no GPU; docs/TUNING.md,
bench/README.md "GPU tuning"): `bench/run_gpu_bench.sh build-tune`.

    tune_build.py --work DIR [--quick] [--only REGEX] [--no-conv] [--targets sm_90a,sm_90]
                  [--shapes FILE | --from DIR ...] [--candidates N] [-j N]
                  [--stc-tune PATH] [--stc-compile PATH] [--tuning-db FILE]

1. The shape list (docs/TUNING.md: `matmul M N K DTYPE OUT` and `conv N H
   W C F KH KW STRIDE PAD DTYPE OUT` lines, each after a comment naming
   the benchmark's shape): every shape of bench/gpu/shapes.py's table in
   f16 and bf16 (--quick: its QUICK shapes, f16 only) and every distinct
   ResNet-50 convolution of bench/gpu/conv_shapes.py at batch 32 in f16
   (--quick: its QUICK convolutions; --no-conv: none); --only: a regex on
   "<shape>-<dtype>" (a convolution's shape is "<name>-b32"); written to
   DIR/shapes.txt; or --shapes FILE, a list of one's own.
2. stc-tune --shapes=DIR/shapes.txt --target=T -o DIR/T for each target of
   --targets (default sm_90a and sm_90: the wgmma kernels and the mma.sp
   ones are different problems of one device): one stc-tune output
   directory per target, each with its manifest.json and one MLIR program
   per candidate. (--from DIR ...: stc-tune output directories made
   before, or by hand, copied into DIR/<their target> instead.)
3. Every candidate's program compiled (in parallel, -j, default the number
   of CPUs) with stc-compile PROGRAM --target=T --emit=ptx -o C.ptx
   --kernel-info=C.json beside it, checked as the GEMM benchmark checks its
   kernels (build_programs.compile_stc: one kernel, the key's problem,
   metadata for a 2:4 candidate and none for a dense one, tensor maps; the
   kernel has the candidate's configuration: family, tile, stages,
   cluster); a convolution's as the convolution benchmark checks its
   kernels (build_conv_programs.compile_conv: conv_kernel.check, the
   kernel info's conv geometry equal to the key's, the sm_90a kernels'
   4-D input map, pixel tile and grid; the configuration including the
   pixel tile), and assembled with ptxas -arch=T where the CUDA toolkit
   is.
4. Each target's manifest.json written back with, per candidate, "ptx" and
   "kernel_info" (relative to that directory) and "build" (status ok or
   failed with error, the command, ptxas's figures); a candidate that
   fails is recorded, not fatal. DIR/manifest.json, what the run step
   (tune_bench.py) reads, lists the ops of every target ("ops") and every
   candidate as one program ("programs", named <target>-<candidate>, paths
   relative to DIR). stc_runtime's library is copied into DIR, which
   travels to the GPU machine (compress it: tar -C bench/work -cJf
   .gpu-carry/tune-work.tar.xz gpu-tune).

Exit status: 0 every candidate built, 1 some failed (recorded), 2 a usage
or setup error (no stc-tune, stc-tune failed, a manifest that does not
read, an op the run step cannot feed, DIR over MAX_TOTAL_BYTES). Standard
library only.
"""

import argparse
import concurrent.futures
import json
import os
import re
import shutil
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import build_conv_programs as bcp  # noqa: E402
import build_programs as bp  # noqa: E402
import conv_shapes  # noqa: E402
import shapes  # noqa: E402
import tunelib  # noqa: E402

SCHEMA = "stc-gpu-tune-build/1"
#: The dtypes tuned (the formats stc-tune's candidates and the run step
#: take; i8 products are not tuned yet).
DTYPES = ("f16", "bf16")
QUICK_DTYPES = ("f16",)
#: The convolutions tuned: conv_shapes' ResNet-50 layers at this batch, in
#: these dtypes (the convolution benchmark's inputs).
CONV_BATCH = 32
CONV_DTYPES = ("f16",)
#: The dtypes a convolution candidate may have (ConvWorker's inputs).
CONV_INPUT_DTYPES = ("f16", "bf16")
TARGETS = ("sm_90a", "sm_90")
#: What DIR may hold: PTX compresses about ten times (tar -cJf), and the
#: carry to the GPU machine, with the repository, must stay under 64 MiB.
MAX_TOTAL_BYTES = 256 << 20
_LOG_LOCK = threading.Lock()


def log(msg):
    with _LOG_LOCK:
        print("[run_gpu_bench build-tune] " + msg, file=sys.stderr, flush=True)


def table_rows(quick, only):
    """(name, m, n, k, dtype, out) of the benchmark's table to tune."""
    rows = []
    for name, _group, m, n, k in shapes.table(quick):
        for dt in (QUICK_DTYPES if quick else DTYPES):
            if only and not re.search(only, "%s-%s" % (name, dt)):
                continue
            rows.append((name, m, n, k, dt, shapes.out_dtype(dt)))
    return rows


def conv_rows(quick, only):
    """(name, stc-tune line) of the convolution benchmark's table to tune:
    every distinct ResNet-50 convolution (conv_shapes.RESNET50; --quick:
    conv_shapes.QUICK) at batch CONV_BATCH in CONV_DTYPES; `only`: a regex
    on "<name>-b32-<dtype>"."""
    rows = []
    for r in conv_shapes.RESNET50:
        if quick and r["name"] not in conv_shapes.QUICK:
            continue
        g = conv_shapes.geometry(r, CONV_BATCH)
        for dt in CONV_DTYPES:
            name = "%s-b%d" % (r["name"], CONV_BATCH)
            if only and not re.search(only, "%s-%s" % (name, dt)):
                continue
            rows.append((name, conv_shapes.tune_line(g, dt)))
    return rows


def conv_line_key(w):
    """The name key of a shape list's `conv` line (its words): the
    geometry and types as a key's conv object says them (conv_key)."""
    n, h, wd, c, f, kh, kw, s, p = (int(x) for x in w[1:10])
    return ("conv", n, h, wd, c, f, kh, kw, s, s, p, p, p, p, w[10],
            w[11] if len(w) > 11 else w[10])


def conv_key(key):
    """conv_line_key of an op's key (op conv)."""
    c = key["conv"]
    return ("conv", c["n"], c["h"], c["w"], c["c"], c["f"], c["kh"], c["kw"]) + \
        tuple(c["stride"]) + tuple(c["pad"]) + (key["dtype"], key["out"])


def shape_names(path):
    """{(m, n, k, dtype, out) or conv_line_key: name} of a shape list whose
    lines follow a `# name` comment (as table_rows' and conv_rows' list);
    other lines are unnamed."""
    names, last = {}, None
    with open(path) as f:
        for line in f:
            s = line.strip()
            if s.startswith("#"):
                last = s[1:].strip()
                continue
            w = s.split()
            if len(w) >= 5 and w[0] == "matmul" and last and " " not in last:
                try:
                    key = (int(w[1]), int(w[2]), int(w[3]), w[4],
                           w[5] if len(w) > 5 else w[4])
                except ValueError:
                    continue
                names[key] = last
            elif len(w) >= 11 and w[0] == "conv" and last and " " not in last:
                try:
                    names[conv_line_key(w)] = last
                except ValueError:
                    pass
            last = None
    return names


def name_key(key):
    """The key of an op's key in shape_names' map."""
    if key["op"] == "conv":
        return conv_key(key)
    return (key["m"], key["n"], key["k"], key["dtype"], key["out"])


def label(key):
    if key["op"] == "conv":
        c = key["conv"]
        return "conv-%dx%dx%dx%d-%dx%dx%d-s%d-p%d-%s" % (
            c["n"], c["h"], c["w"], c["c"], c["f"], c["kh"], c["kw"], c["stride"][0],
            c["pad"][0], key["dtype"])
    return "%dx%dx%d-%s" % (key["m"], key["n"], key["k"], key["dtype"])


def compile_candidate(args, part_dir, part, target, op, cand, ptxas):
    """Compiles one candidate (build_programs.compile_stc, a convolution's
    build_conv_programs.compile_conv, in its program's directory); returns
    (its fields relative to the part's directory, the same relative to the
    work directory)."""
    key = op["key"]
    prog = {"name": "%s-%s" % (part, cand["name"]), "M": key["m"], "N": key["n"],
            "K": key["k"], "dtype": key["dtype"], "out_dtype": key["out"]}
    src = os.path.join(part_dir, cand["program"])
    pdir, source = os.path.dirname(src), os.path.basename(src)
    rel = os.path.relpath(pdir, os.path.dirname(part_dir))   # from the work directory
    stem = os.path.splitext(source)[0]
    say = lambda c: log("%s:%s" % (prog["name"], c.replace("  ", " ", 1)))  # noqa: E731
    if not os.path.isfile(src):
        res = {"status": "failed", "error": "stc-tune wrote no program %s" % cand["program"]}
    elif key["op"] == "conv":
        res = bcp.compile_conv(args, target, [], pdir, rel, stem, op["geometry"],
                               key["dtype"], ptxas, source=source, sparsity=None,
                               out_dt=key["out"], config=cand["config"], log=say)
        if res["status"] == "ok" and res["layout"].get("prepadded"):
            res = dict(res, status="failed",
                       error="the kernel takes a pre-padded input, but the candidate's "
                             "program (one stc.conv) takes the unpadded NHWC input")
    else:
        res = bp.compile_stc(args, target, [], pdir, rel, stem, prog, ptxas,
                             lambda c: None, source=source, sparse=cand["sparse"],
                             config=cand["config"], log=say)
    top = dict(res)
    local = dict(res)
    for f in ("ptx", "kernel_info"):
        if f in res:
            local[f] = os.path.relpath(os.path.join(os.path.dirname(part_dir), res[f]), part_dir)
    return local, top


def check_conv_op(op, where):
    """check_op of a convolution: one group, 2:4 candidates only, a dtype
    the convolution benchmark's inputs have, its geometry one the
    benchmark's (conv_shapes.key_geometry) with the key's implicit GEMM
    (m = F, n = N*OH*OW, k = KH*KW*Cp). Sets op["geometry"]."""
    key = op["key"]
    c = key["conv"]
    if c["groups"] != 1:
        return "%s: a convolution of %d groups; the run step tunes one group" % (
            where, c["groups"])
    if key["dtype"] not in CONV_INPUT_DTYPES or key["out"] not in CONV_INPUT_DTYPES + ("f32",):
        return "%s: a %s -> %s convolution; the run step's inputs are %s (outputs those or " \
               "f32)" % (where, key["dtype"], key["out"], ", ".join(CONV_INPUT_DTYPES))
    dense = [cd["name"] for cd in op["candidates"] if not cd["sparse"]]
    if dense:
        return "%s: dense candidate(s) %s: a convolution has 2:4 candidates only (stc.conv)" % (
            where, ", ".join(dense))
    try:
        g = conv_shapes.key_geometry(c, op["name"])
    except ValueError as e:
        return "%s: %s" % (where, e)
    why = conv_shapes.check_geometry(g)
    if why:
        return "%s: the convolution does not suit the run step: %s" % (where, "; ".join(why))
    want = {"m": g["R"], "n": g["P"], "k": g["K"]}
    if any(key[m] != v for m, v in want.items()):
        return "%s: the key's product m=%d n=%d k=%d is not its geometry's implicit GEMM " \
               "m=%d n=%d k=%d" % (where, key["m"], key["n"], key["k"], want["m"], want["n"],
                                   want["k"])
    op["geometry"] = g
    return None


def check_op(op, where):
    """What the run step needs of an op beyond tunelib.read_manifest's
    checks: a matmul of a dtype and layout the benchmark's inputs have, or
    a convolution the convolution benchmark's worker can feed
    (check_conv_op)."""
    key = op["key"]
    if key["batch"] != 1 or key["epilogue"] != "none":
        return "%s: only plain %ss (batch 1, epilogue none) are tuned, not %s" % (
            where, key["op"], {m: key[m] for m in ("batch", "epilogue")})
    if key["op"] == "conv":
        return check_conv_op(op, where)
    if key["dtype"] not in shapes.DTYPE_INFO:
        return "%s: dtype %s is none of the benchmark's (%s)" % (
            where, key["dtype"], ", ".join(shapes.DTYPE_INFO))
    tr = bool(op.get("dense_transposed", shapes.dense_transposed(key["dtype"])))
    if tr != shapes.dense_transposed(key["dtype"]):
        return "%s: dense_transposed %s, but the benchmark gives %s B %s" % (
            where, tr, key["dtype"], "N x K" if shapes.dense_transposed(key["dtype"]) else
            "K x N")
    km = shapes.DTYPE_INFO[key["dtype"]]["k_multiple"]
    if key["k"] % km:
        return "%s: K=%d is not a multiple of %d (the canonical 2:4 format of %s)" % (
            where, key["k"], km, key["dtype"])
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    build = os.environ.get("STC_BUILD_DIR") or os.path.join(ROOT, "build")
    ap.add_argument("--work", required=True)
    ap.add_argument("--quick", action="store_true",
                    help="the benchmark's QUICK shapes, f16 only")
    ap.add_argument("--only", default=None, help="regex on <shape>-<dtype>")
    ap.add_argument("--no-conv", action="store_true",
                    help="no convolutions in the table's shape list")
    ap.add_argument("--shapes", default=None, help="a shape list instead of the table")
    ap.add_argument("--from", dest="from_dirs", action="append", default=[],
                    help="an stc-tune output directory made before (repeatable); no stc-tune run")
    ap.add_argument("--targets", default=",".join(TARGETS))
    ap.add_argument("--candidates", type=int, default=None, help="stc-tune --candidates")
    ap.add_argument("--tuning-db", default=None, help="stc-tune --tuning-db")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--stc-tune", default=os.path.join(build, "bin", "stc-tune"))
    ap.add_argument("--stc-compile", default=os.path.join(build, "bin", "stc-compile"))
    ap.add_argument("--runtime-lib", default=os.path.join(build, "lib", "libstc_runtime_cuda.so"))
    ap.add_argument("--cuda", default="/usr/local/cuda")
    args = ap.parse_args()
    args.mock = False
    targets = [t for t in args.targets.split(",") if t]
    work = os.path.abspath(args.work)
    if not targets and not args.from_dirs:
        log("--targets names no target")
        return 2
    if args.jobs < 1:
        log("-j must be at least 1")
        return 2
    tools = bp.find_tools(args, "(none)", log,
                          "%s does not accept --kernel-info: the GPU code generator is not in "
                          "this build")
    if tools is None:
        return 2
    ptxas, ptxas_version, _, stc_version = tools

    # The stc-tune output directories: made here, or given (--from).
    if args.from_dirs:
        mans = []
        for d in args.from_dirs:
            try:
                mans.append((d, tunelib.read_manifest(os.path.join(d, "manifest.json"))))
            except tunelib.TuneError as e:
                log(str(e))
                return 2
    elif not os.access(args.stc_tune, os.X_OK):
        log("stc-tune not found at %s: build it first (flock /tmp/stc-build.lock ninja -C "
            "build stc-tune), or give its output with --from DIR" % args.stc_tune)
        return 2
    shapes_src = None
    if args.shapes:
        if not os.path.isfile(args.shapes):
            log("no shape list %s" % args.shapes)
            return 2
        shapes_src = os.path.abspath(args.shapes)
    if args.tuning_db and not os.path.isfile(args.tuning_db):
        log("no tuning database %s (--tuning-db)" % args.tuning_db)
        return 2

    # Start from an empty work directory: nothing stale may travel.
    if os.path.isdir(work):
        shutil.rmtree(work)
    os.makedirs(work)
    bp.copy_runtime(args, work)
    shape_list = os.path.join(work, "shapes.txt")
    parts = []
    if args.from_dirs:
        for d, man in mans:
            name = man["target"]
            while any(p["name"] == name for p in parts):
                name += "_"
            shutil.copytree(d, os.path.join(work, name))
            parts.append({"name": name, "target": man["target"], "from": os.path.abspath(d)})
    else:
        if shapes_src:
            shutil.copy(shapes_src, shape_list)
        else:
            rows = table_rows(args.quick, args.only)
            crows = [] if args.no_conv else conv_rows(args.quick, args.only)
            if not rows and not crows:
                log("no shape matches --only %r" % args.only)
                return 2
            with open(shape_list, "w") as f:
                f.write(tunelib.shape_list_text(
                    rows, "bench/gpu/tune_build.py: bench/gpu/shapes.py's table%s%s%s" % (
                        "" if args.no_conv else
                        " and bench/gpu/conv_shapes.py's at batch %d" % CONV_BATCH,
                        " (--quick)" if args.quick else "",
                        ", --only %s" % args.only if args.only else ""), crows))
        for t in targets:
            d = os.path.join(work, t)
            rc, text, cmd, secs = tunelib.run_stc_tune(args.stc_tune, shape_list, t, d,
                                                       args.tuning_db, args.candidates)
            cmd = cmd.replace(work + os.sep, "")
            log("%s (%.1f s)" % (cmd, secs))
            with open(os.path.join(work, "stc-tune-%s.log" % t), "w") as f:
                f.write(text)
            if rc != 0:
                log("stc-tune failed (exit status %d):\n%s" % (rc, bp.tail(text)))
                return 2
            parts.append({"name": t, "target": t, "stc_tune": cmd,
                          "stc_tune_seconds": round(secs, 1)})
    names = shape_names(shape_list) if os.path.isfile(shape_list) else {}

    # Read every part's manifest; one job per candidate.
    jobs, ops, bad = [], [], []
    for part in parts:
        pdir = os.path.join(work, part["name"])
        mpath = os.path.join(pdir, "manifest.json")
        try:
            man = tunelib.read_manifest(mpath)
        except tunelib.TuneError as e:
            log(str(e).replace(work + os.sep, ""))
            return 2
        if man["target"] != part["target"]:
            log("%s: target %s, stc-tune was asked for %s" % (mpath, man["target"],
                                                               part["target"]))
            return 2
        part.update(manifest=os.path.join(part["name"], "manifest.json"), doc=man)
        for op in man["ops"]:
            why = check_op(op, "%s: op %s" % (os.path.relpath(mpath, work), op["name"]))
            if why:
                bad.append(why)
                continue
            ops.append((part, op))
            for cand in op["candidates"]:
                jobs.append((part, op, cand))
    if bad:
        for b in bad:
            log(b)
        return 2
    if not jobs:
        log("the stc-tune manifests list no candidate")
        return 2
    log("%d ops, %d candidates (%s); compiling with -j %d" % (
        len(ops), len(jobs), ", ".join("%s: %d ops" % (p["name"], len(p["doc"]["ops"]))
                                       for p in parts), args.jobs))
    t0 = time.time()
    results = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as ex:
        futs = {ex.submit(compile_candidate, args, os.path.join(work, p["name"]), p["name"],
                          p["target"], op, c, ptxas): (p["name"], op["name"], c["name"])
                for p, op, c in jobs}
        for fut in concurrent.futures.as_completed(futs):
            results[futs[fut]] = fut.result()
    log("compiled in %.0f s" % (time.time() - t0))

    # Each part's manifest written back; the flat one for the run step.
    programs, op_list, nfail = [], [], 0
    for part in parts:
        man = part.pop("doc")
        for op in man["ops"]:
            key = op["key"]
            shape = names.get(name_key(key), label(key))
            oname = "%s-%s" % (part["name"], op["name"])
            geo = op.pop("geometry", None)
            op_ent = {"name": oname, "part": part["name"], "op": op["name"], "key": key,
                      "shape": shape, "auto": op.get("auto"), "source": op.get("source"),
                      "candidates": []}
            for cand in op["candidates"]:
                local, top = results[(part["name"], op["name"], cand["name"])]
                cand["ptx"] = local.get("ptx")
                cand["kernel_info"] = local.get("kernel_info")
                cand["build"] = {k: v for k, v in local.items() if k not in ("ptx",
                                                                              "kernel_info")}
                name = "%s-%s" % (part["name"], cand["name"])
                op_ent["candidates"].append(name)
                prog = {"name": name, "op": oname, "candidate": cand["name"],
                        "part": part["name"], "target": part["target"], "key": key,
                        "shape": shape, "group": "tune", "M": key["m"], "N": key["n"],
                        "K": key["k"], "dtype": key["dtype"], "out_dtype": key["out"],
                        "dense_transposed": shapes.dense_transposed(key["dtype"]),
                        "sparse": cand["sparse"], "heuristic": cand.get("heuristic"),
                        "predicted_us": cand.get("predicted_us"), "config": cand["config"],
                        "mlir": os.path.join(part["name"], cand["program"])}
                if geo is not None:
                    # A convolution: the geometry the worker makes its inputs
                    # and reference of (conv_shapes.key_geometry).
                    prog.update(conv=geo, dense_transposed=False)
                prog.update(top)
                programs.append(prog)
                if top["status"] != "ok":
                    nfail += 1
            op_list.append(op_ent)
        with open(os.path.join(work, part["manifest"]), "w") as f:
            json.dump(man, f, indent=1)
            f.write("\n")
    args.target = ",".join(p["target"] for p in parts)
    manifest = bp.manifest_fields(SCHEMA, args, "stc-compile", stc_version, [], "per key",
                                  ptxas_version)
    manifest.update(shapes=os.path.relpath(shape_list, work) if os.path.isfile(shape_list)
                    else None, parts=parts, ops=op_list, programs=programs)
    return bp.finish(work, manifest, nfail, log, "candidates", MAX_TOTAL_BYTES,
                     "limit of what is carried, compressed, to the GPU machine")


if __name__ == "__main__":
    sys.exit(main())
