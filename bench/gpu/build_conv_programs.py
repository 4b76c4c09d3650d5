#!/usr/bin/env python3
"""Build step of the GPU convolution benchmark (build machine, no GPU).

    build_conv_programs.py --work DIR [--quick] [--only REGEX] [--mock]
                           [--stc-compile PATH] [--target sm_90] [--flags "..."]
                           [--sm90a-target sm_90a|none] [--sm90a-flags "..."]

For every ResNet-50 convolution of bench/gpu/conv_shapes.py at batch 32 and
256 (f16, NHWC) writes DIR/programs/<name>/prog.mlir (tensor.pad +
linalg.conv_2d_nhwc_fhwc, the filter a function argument), and compiles it
with
    stc-compile prog.mlir --sparsity=force --emit=stc      (must give stc.conv)
    stc-compile prog.mlir --sparsity=force --target=T --emit=ptx -o k.ptx
                --kernel-info=k.json
    stc-compile prog.mlir --sparsity=force --target=sm_90a --emit=ptx
                -o k_sm90a.ptx --kernel-info=k_sm90a.json
    stc-compile prog.mlir --sparsity=explicit --target=sm_90a --emit=ptx
                -o k_dense.ptx --kernel-info=k_dense.json --remarks
(--target T, default sm_90: method "stc", mma.sp; --sm90a-target, default
sm_90a, "none" to skip: method "stc_sm90a", recorded under the program's
"sm90a" key: the TMA + wgmma.sp kernel where stc-compile makes one, one
group and C a multiple of 64, else its mma.sp kernel for sm_90a;
--dense-target, default sm_90a, "none" to skip: method "stc_dense", under
"dense": the convolution left dense, STC's implicit GEMM with the whole
filter; "not_built" where stc-compile makes no tensor-core kernel of it, or
one behind a copy kernel: the stem, whose C = 3 is zero-padded to 8), checks
each kernel info (exactly one kernel, stc.conv's implicit GEMM, its
geometry equal to the program's, parameters the launcher knows, tensor
maps that fit the program's buffers, the PTX .entry matching) and
assembles each PTX with ptxas -arch=<its target> when the CUDA toolkit is
here; writes DIR/manifest.json for `run_gpu_bench.sh run-conv`.
--mock compiles bench/gpu/conv_mock.cu (nvcc) instead: a plain CUDA C direct
convolution with the same parameters, to test the harness on a GPU; its
results are labelled MOCK.

Exit status: 0 every program built, 1 some failed (recorded in the
manifest; the run marks them build_failed), 2 usage or setup error.
Pure Python 3 standard library.
"""

import json
import os
import re
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import build_programs as bp  # noqa: E402  (what both build steps share)
import conv_kernel  # noqa: E402
import conv_shapes  # noqa: E402
import kernel_info  # noqa: E402
import tunelib  # noqa: E402

MAX_TOTAL_BYTES = 32 << 20  # what the build may leave for the GPU machine


def log(msg):
    print("[run_gpu_bench build-conv] " + msg, file=sys.stderr, flush=True)


def mock_kernel_info(g, dt):
    """The kernel info of bench/gpu/conv_mock.cu (the same keys as
    stc-compile's), one thread per output element."""
    total = g["P"] * g["F"]
    conv = {"KH": g["KH"], "KW": g["KW"], "stride_h": g["stride"], "stride_w": g["stride"],
            "dilation_h": g["dilation"], "dilation_w": g["dilation"],
            "pad_top": g["pad_top"], "pad_left": g["pad_left"],
            "pad_bottom": g["pad_bottom"], "pad_right": g["pad_right"],
            "C": g["Cg"], "Cp": g["Cp"], "groups": g["groups"], "N": g["N"],
            "H": g["H"], "W": g["W"], "OH": g["OH"], "OW": g["OW"]}
    return [{"kernel": "mock_conv_" + dt, "block": [256, 1, 1],
             "grid": [-(-total // 256), 1, 1], "shared_bytes": 0,
             "params": ["values", "meta", "dense", "out", "R", "P", "K", "value_cols",
                        "meta_cols", "N", "H", "W", "OH", "OW"],
             "param_types": ["ptr"] * 4 + ["i32"] * 10, "num_pointers": 4,
             "R": g["R"], "P": g["P"], "K": g["K"], "sparse": "rhs",
             "dense_transposed": False, "input_type": dt, "output_type": dt,
             "groups": g["groups"], "conv": conv,
             "note": "mock: bench/gpu/conv_mock.cu, not STC"}]


def compile_conv(args, target, flags, pdir, rel, stem, g, dt, ptxas, source="prog.mlir",
                 sparsity="force", out_dt=None, config=None, log=log, dense=False):
    """Compiles the convolution program `source` in pdir (prog.mlir: the
    benchmark's, with --sparsity=SPARSITY; stc-tune's candidates, already
    one stc.conv: sparsity None) with stc-compile --target=TARGET into
    STEM.ptx and STEM.json, checks the kernel info (conv_kernel.check:
    geometry, parameters, the sm_90a kernels' tensor maps, pixel tile and
    grid; given `config`, the configuration the program carries, the
    kernel must have it: tunelib.config_mismatches) and the PTX .entry, and
    assembles the PTX with ptxas -arch=TARGET. `out_dt`: the output type
    (default: `dt`). `dense`: the program compiled to STC's dense
    convolution (--sparsity=explicit, --remarks): a kernel info without a
    kernel is status "not_built" (the element-wise kernel computes the
    convolution; error: stc-compile's remark why). Returns the build's
    fields (ptx, kernel_info, command, compile_seconds, kernel, layout,
    ptx_version/target/bytes, ptxas, status "ok" or "failed" with error)."""
    out_dt = out_dt or dt
    res = {"ptx": os.path.join(rel, stem + ".ptx"),
           "kernel_info": os.path.join(rel, stem + ".json")}
    ptx_path, ki_path = os.path.join(pdir, stem + ".ptx"), os.path.join(pdir, stem + ".json")
    cmd = [args.stc_compile, source] + (["--sparsity=" + sparsity] if sparsity else []) + [
        "--target=" + target, "--emit=ptx", "-o", stem + ".ptx",
        "--kernel-info=" + stem + ".json"] + flags
    res["command"] = " ".join(["stc-compile"] + cmd[1:])
    rc, out, secs = bp.run(cmd, 900, cwd=pdir)
    res["compile_seconds"] = round(secs, 2)
    with open(os.path.join(pdir, "compile.log" if stem == "k" else "compile_%s.log" % (
            stem[2:] if stem.startswith("k_") else stem)), "w") as f:
        f.write(out)

    def failed(msg):
        log("  FAILED (%s): %s" % (target, bp.tail(msg, 4)))
        res.update(status="failed", error=msg)
        return res

    if rc != 0:
        return failed("stc-compile --target=%s --emit=ptx exited with status %d (the GPU "
                      "lowering of stc.conv):\n%s" % (target, rc, bp.tail(out)))
    if out.strip() and not dense:
        res["compile_output"] = bp.tail(out, 10)
    if dense:
        try:
            with open(ki_path) as f:
                listed = json.load(f)
        except (OSError, ValueError):
            listed = None
        if listed == []:
            why = [line.split("remark: ", 1)[1] for line in out.splitlines()
                   if "remark: " in line and "tensor-core" in line]
            res.update(status="not_built",
                       error="stc-compile made no tensor-core kernel of this convolution "
                             "(an element-wise kernel computes it)"
                             + (": " + why[0] if why else ""))
            log("  not built (%s): %s" % (target, res["error"]))
            return res
        if isinstance(listed, list) and len(listed) == 1 and isinstance(
                listed[0].get("conv"), dict) and listed[0]["conv"].get("C") != g["Cg"]:
            # The stem: its C = 3 channels reach the kernel zero-padded by a
            # copy kernel in front of it, which a one-kernel benchmark does
            # not launch.
            res.update(status="not_built",
                       error="the kernel takes the input's %d channels zero-padded to %s by a "
                             "copy kernel in front of it, which this one-kernel benchmark "
                             "does not launch" % (g["Cg"], listed[0]["conv"].get("C")))
            log("  not built (%s): %s" % (target, res["error"]))
            return res
    try:
        kinfo, ptx = bp.read_kernel(rel, ptx_path, ki_path, conv_kernel.parse,
                                    " (stc.conv's implicit GEMM; the filter's "
                                    "prune+compress runs on the host)")
        bad, layout = conv_kernel.check(kinfo, g, dt, out_dt)
        if config:
            bad += ["not the configuration it was built with (%s): %s" % (config, x)
                    for x in tunelib.config_mismatches(config, kinfo)]
        if bad:
            raise kernel_info.KernelInfoError("; ".join(bad))
        res["kernel"] = kinfo
        res["layout"] = layout
        res["ptx_version"], res["ptx_target"] = kernel_info.ptx_header(ptx)
        res["ptx_bytes"] = len(ptx)
    except (kernel_info.KernelInfoError, ValueError, OSError) as e:
        return failed(str(e))
    err = bp.assemble_ptx(res, ptxas, target, ptx_path)
    if err:
        return failed(err)
    res["status"] = "ok"
    k, pa = res["kernel"], res["ptxas"]
    log("  ok (%s): %s %s grid %s block %s%s shared %d B%s%s" % (
        target, k["kernel"], k.get("variant", "?"), k["grid"], k["block"],
        (" cluster %s" % kernel_info.cluster_of(k)) if kernel_info.cluster_of(k) != [1, 1, 1] else "",
        k["shared_bytes"],
        (", %s registers, %s B spilled" % (pa.get("registers"), pa.get("spill_store_bytes")))
        if pa.get("ok") else "", ", PRE-PADDED input" if layout["prepadded"] else ""))
    return res


def main():
    ap = bp.arg_parser(__doc__)
    ap.add_argument("--sm90a-target", default="sm_90a",
                    help="target of STC's second kernel (stc_sm90a); none: do not build it")
    ap.add_argument("--sm90a-flags", default=None,
                    help="its extra stc-compile flags (default: --flags)")
    ap.add_argument("--dense-target", default="sm_90a",
                    help="target of STC's dense convolution (stc_dense: the program "
                         "compiled with --sparsity=explicit); none: do not build it")
    args = ap.parse_args()
    sm90a = None if args.sm90a_target in ("", "none") else args.sm90a_target
    dense_target = None if args.dense_target in ("", "none") else args.dense_target

    work = os.path.abspath(args.work)
    tools = bp.find_tools(args, "bench/gpu/conv_mock.cu", log,
                          "%s does not accept --kernel-info (no GPU code generator in this "
                          "build)")
    if tools is None:
        return 2
    ptxas, ptxas_version, nvcc, stc_version = tools

    todo = [(n, g) for n, g in conv_shapes.table(args.quick)
            if not args.only or re.search(args.only, n)]
    if not todo:
        log("no program matches --only %r" % args.only)
        return 2
    if os.path.isdir(work):
        shutil.rmtree(work)  # nothing stale may travel
    os.makedirs(os.path.join(work, "programs"))
    bp.copy_runtime(args, work)

    mock_ptx = {}  # geometry -> PTX (the mock bakes the geometry in, as STC does)

    def mock_for(g):
        key = (g["KH"], g["KW"], g["stride"], g["pad_top"], g["pad_left"], g["dilation"],
               g["Cg"], g["Cp"])
        if key not in mock_ptx:
            defs = ["-D%s=%d" % kv for kv in zip(
                ("KH_", "KW_", "STRIDE_", "PAD_T", "PAD_L", "DIL_", "C_", "CP_"), key)]
            rc, out = bp.nvcc_ptx(nvcc, args.target, "bench/gpu/conv_mock.cu", defs,
                                  os.path.join(work, "mock_conv.ptx"))
            if rc != 0:
                raise RuntimeError("nvcc failed on bench/gpu/conv_mock.cu:\n%s" % bp.tail(out))
            mock_ptx[key] = out
        return mock_ptx[key]

    flags = args.flags.split()
    flags_sm90a = flags if args.sm90a_flags is None else args.sm90a_flags.split()
    programs, nfail = [], 0
    for i, (name, g) in enumerate(todo):
        dt = "f16"
        rel = os.path.join("programs", name)
        pdir = os.path.join(work, rel)
        os.makedirs(pdir)
        entry = {"name": name, "shape": g["name"], "group": g["stage"], "where": g["where"],
                 "layers": g["layers"], "batch": g["N"], "dtype": dt, "out_dtype": dt,
                 "conv": g, "M": g["R"], "N": g["P"], "K": g["K"], "dir": rel,
                 "mlir": os.path.join(rel, "prog.mlir"), "ptx": os.path.join(rel, "k.ptx"),
                 "kernel_info": os.path.join(rel, "k.json")}
        programs.append(entry)
        # STC's second kernel, --target=sm_90a (report method stc_sm90a),
        # and its dense convolution of the same program (stc_dense): not
        # built on purpose under --mock or when switched off.
        for key, target, what, switch in (
                ("sm90a", sm90a, "sm_90a", "STC_GPU_TARGET_SM90A"),
                ("dense", dense_target, "dense", "STC_GPU_TARGET_DENSE_CONV")):
            if args.mock:
                entry[key] = {"target": target, "status": "not_built",
                              "error": "--mock: the mock kernel has no %s variant" % what}
            elif target is None:
                entry[key] = {"target": None, "status": "not_built",
                              "error": "built with the %s kernel disabled (%s=none)"
                                       % (what, switch)}

        def fail(msg):
            # A failure before any kernel was compiled fails them all.
            entry.update(status="failed", error=msg)
            for key, target in (("sm90a", sm90a), ("dense", dense_target)):
                if key not in entry:
                    entry[key] = {"target": target, "status": "failed", "error": msg}
            log("  FAILED: %s" % bp.tail(msg, 4))

        why = conv_shapes.check_geometry(g)
        if why:
            fail("shape unsupported: " + "; ".join(why))
            nfail += 1
            continue
        with open(os.path.join(pdir, "prog.mlir"), "w") as f:
            f.write(conv_shapes.program_text(name, g, dt))
        ptx_path, ki_path = os.path.join(pdir, "k.ptx"), os.path.join(pdir, "k.json")
        if args.mock:
            try:
                text = mock_for(g)
            except RuntimeError as e:
                log(str(e))
                return 2
            with open(ptx_path, "w") as f:
                f.write(text)
            with open(ki_path, "w") as f:
                json.dump(mock_kernel_info(g, dt), f, indent=1)
            entry["command"] = "nvcc -ptx -arch=%s bench/gpu/conv_mock.cu" % args.target
            entry["compile_seconds"] = 0.0
        else:
            # 1. The sparsifier: the convolution must become one stc.conv.
            cmd = [args.stc_compile, "prog.mlir", "--sparsity=force", "--emit=stc",
                   "-o", "prog.stc.mlir"] + flags
            log("[%d/%d] %s" % (i + 1, len(todo), name))
            rc, out, secs = bp.run(cmd, 600, cwd=pdir)
            if rc != 0:
                fail("stc-compile --sparsity=force --emit=stc exited with status %d (the "
                     "convolution path of the pipeline: stc-sparsify-convolutions):\n%s"
                     % (rc, bp.tail(out)))
                nfail += 1
                continue
            with open(os.path.join(pdir, "prog.stc.mlir")) as f:
                stc_text = f.read()
            nconv = len(re.findall(r"\bstc\.conv\b", stc_text))
            if nconv != 1 or "linalg.conv_2d" in stc_text:
                fail("stc-compile --sparsity=force --emit=stc did not rewrite the "
                     "convolution to one stc.conv (%d stc.conv, linalg.conv_2d %s): the "
                     "build's stc-sparsify-convolutions does not handle this program yet"
                     % (nconv, "left" if "linalg.conv_2d" in stc_text else "gone"))
                nfail += 1
                continue
            # 2. The GPU kernels: sm_90 (method stc), then sm_90a (stc_sm90a).
            entry.update(compile_conv(args, args.target, flags, pdir, rel, "k", g, dt,
                                      ptxas))
            failed = entry["status"] != "ok"
            if sm90a is not None:
                entry["sm90a"] = dict(target=sm90a, **compile_conv(
                    args, sm90a, flags_sm90a, pdir, rel, "k_sm90a", g, dt, ptxas))
                failed = failed or entry["sm90a"]["status"] != "ok"
            if dense_target is not None:
                # Not built (no tensor-core kernel for it, e.g. the NHWC
                # stem's C = 3) is not a failure.
                entry["dense"] = dict(target=dense_target, **compile_conv(
                    args, dense_target, flags_sm90a + ["--remarks"], pdir, rel, "k_dense", g,
                    dt, ptxas, sparsity="explicit", dense=True))
                failed = failed or entry["dense"]["status"] == "failed"
            nfail += failed
            continue
        try:
            kinfo, ptx = bp.read_kernel(rel, ptx_path, ki_path, conv_kernel.parse,
                                        " (the mock convolution)")
            bad, layout = conv_kernel.check(kinfo, g, dt, dt)
            if bad:
                raise kernel_info.KernelInfoError("; ".join(bad))
            entry["kernel"] = kinfo
            entry["layout"] = layout
            entry["ptx_version"], entry["ptx_target"] = kernel_info.ptx_header(ptx)
            entry["ptx_bytes"] = len(ptx)
            err = bp.assemble_ptx(entry, ptxas, args.target, ptx_path)
        except (kernel_info.KernelInfoError, ValueError, OSError) as e:
            err = str(e)
        if err:
            fail(err)
            nfail += 1
            continue
        entry["status"] = "ok"

    manifest = bp.manifest_fields(
        "stc-gpu-conv-build/1", args,
        "mock: bench/gpu/conv_mock.cu (nvcc), NOT STC" if args.mock
        else "stc-compile --sparsity=force", stc_version, flags, "same", ptxas_version)
    manifest["shapes_source"] = ("bench/gpu/conv_shapes.py (ResNet-50, He et al. 2016 "
                                 "Table 1; torchvision resnet50 v1.5)")
    manifest["target_sm90a"] = None if args.mock else sm90a
    manifest["flags_sm90a"] = flags_sm90a if sm90a and not args.mock else []
    manifest["target_dense"] = None if args.mock else dense_target
    manifest["programs"] = programs
    return bp.finish(work, manifest, nfail, log, "convolution programs", MAX_TOTAL_BYTES,
                     "allowed to travel")


if __name__ == "__main__":
    sys.exit(main())
