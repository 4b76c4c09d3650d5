"""The tuning flow's checks (docs/TUNING.md; bench/README.md, "GPU tuning"):
build-tune (tune_build.py) on stc-tune's output (a stand-in for stc-tune,
fake_stc_tune.py, with real configurations from stc-opt, until and besides
the real one), its planted failures and setup errors; convolutions
through the real stc-tune (build-tune's checks of their kernels, the
synthetic run, the simulated GPU worker); the tuning database
(tunelib.py: entries, best and runner_up, merging, the atomic write,
refusing a corrupted file); run-tune --synthetic end to end on the GPU
emulator; run-tune's GPU worker simulated on the CPU (torch); the
GEMM benchmark's stc_auto method (build and report)."""

import copy
import json
import os
import stat
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from benchcheck import *  # noqa: E402,F401,F403 (the shared helpers and modules)

import tune_bench  # noqa: E402
import tune_build  # noqa: E402

FAKE_STC_TUNE = os.path.join(HERE, "fake_stc_tune.py")
RUN_GPU_BENCH = os.path.join(ROOT, "bench", "run_gpu_bench.sh")
#: The small products of the tests (the emulator runs them in a second).
SMALL_SHAPES = ("# small-f16\nmatmul 64 128 256 f16 f16\n"
                "# small-bf16\nmatmul 128 64 256 bf16\n")
#: The real stc-tune (the convolution checks: fake_stc_tune.py makes
#: matmul candidates only).
STC_TUNE = os.path.join(BIN, "stc-tune")
#: The convolutions of the tests (small: the emulator runs each candidate
#: in a second): a strided 3x3 one whose sm_90a kernels are wgmma ones
#: (C = 64), its input not square (so that a key with h and w swapped has
#: the same implicit GEMM), and a stem-like bf16 one (C = 3: the direct
#: kernels). F = 256: every cluster candidate's rows lie inside F (see
#: bench/README.md, "GPU tuning", Caveats).
CONV_SHAPES = ("# conv-3x3s2\nconv 2 8 12 64 256 3 3 2 1 f16\n"
               "# conv-stem-bf16\nconv 1 5 7 3 16 3 3 1 1 bf16\n")


def sh(args, env=None, timeout=900):
    """Runs a command: (exit status, output)."""
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       env=dict(os.environ, **(env or {})), timeout=timeout)
    return p.returncode, p.stdout.decode(errors="replace")


def build_tune(work, extra, stc_tune=FAKE_STC_TUNE, env=None):
    """`run_gpu_bench.sh build-tune EXTRA` into work: (status, output)."""
    e = {"GPU_TUNE_WORK": work, "STC_TUNE": stc_tune}
    e.update(env or {})
    return sh([RUN_GPU_BENCH, "build-tune"] + extra, env=e)


def tune_run(mp, tmp, tag, args):
    """`tune_bench.py run` on manifest mp, results copied to tmp/out-TAG:
    (exit status, the results document, output)."""
    out = os.path.join(tmp, "out-" + tag)
    rc, text = sh([sys.executable, os.path.join(BENCH, "tune_bench.py"), "run", "--manifest",
                   mp, "--results-dir", os.path.join(tmp, "res"), "--copy-to", out] + args)
    js = [g for g in os.listdir(out) if g.startswith("tune-") and g.endswith(".json")] \
        if os.path.isdir(out) else []
    assert len(js) == 1, "no results JSON (exit %d):\n%s" % (rc, text[-3000:])
    return rc, load(os.path.join(out, js[0])), text


def small_list(tmp, text=SMALL_SHAPES, name="shapes.txt"):
    path = os.path.join(tmp, name)
    os.makedirs(tmp, exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    return path


def no_stc_tune():
    """A SKIP when the build has no stc-tune (the convolution checks)."""
    if not os.access(STC_TUNE, os.X_OK):
        return ("SKIP", "no stc-tune at %s" % STC_TUNE)
    return None


def conv_build(tmp, extra_shapes="", extra=()):
    """build-tune with the real stc-tune on CONV_SHAPES (and extra_shapes
    before them) for both targets into tmp/work: the manifest."""
    work = os.path.join(tmp, "work")
    rc, out = build_tune(work, ["--shapes", small_list(tmp, extra_shapes + CONV_SHAPES,
                                                       "conv-shapes.txt"), "-j", "2"]
                         + list(extra), stc_tune=STC_TUNE)
    assert rc == 0, "build-tune exited %d:\n%s" % (rc, out[-3000:])
    return work, load(os.path.join(work, "manifest.json"))


def check_conv_programs(work, man):
    """Every convolution candidate of a build-tune manifest: 2:4, built,
    its geometry the key's (conv_shapes.key_geometry; its implicit GEMM
    the key's m, n, k), its kernel info read by the convolution
    benchmark's checks (conv_kernel.parse, .check) with the key's
    geometry, its conv object the key's sizes, strides and pads, the
    kernel the candidate's configuration (pixel tile included), the input
    not pre-padded. Returns them."""
    convs = [p for p in man["programs"] if p["key"]["op"] == "conv"]
    assert convs, [p["name"] for p in man["programs"]]
    for p in convs:
        k, g = p["key"], p["conv"]
        assert p["sparse"] is True and p["status"] == "ok", (p["name"], p.get("error"))
        assert g == conv_shapes.key_geometry(k["conv"], g["name"]), (p["name"], g)
        assert (p["M"], p["N"], p["K"]) == (k["m"], k["n"], k["k"]) == (g["R"], g["P"],
                                                                         g["K"]), p["name"]
        with open(os.path.join(work, p["kernel_info"])) as f:
            kis = conv_kernel.parse(f.read())
        assert len(kis) == 1, p["name"]
        ki = kis[0]
        with open(os.path.join(work, p["ptx"])) as f:
            kernel_info.check_ptx_against_info(f.read(), ki)
        bad, lay = conv_kernel.check(ki, g, k["dtype"], k["out"])
        assert bad == [] and lay == {"prepadded": False}, (p["name"], bad, lay)
        c, kc = k["conv"], ki["conv"]
        assert [kc[x] for x in ("N", "H", "W", "C", "KH", "KW")] == [
            c[x] for x in ("n", "h", "w", "c", "kh", "kw")], (p["name"], kc, c)
        assert [kc["stride_h"], kc["stride_w"]] == c["stride"] and [
            kc[x] for x in ("pad_top", "pad_left", "pad_bottom", "pad_right")] == c["pad"]
        assert ki["R"] == c["f"] and ki["P"] == k["n"], (p["name"], ki["R"], ki["P"])
        assert tunelib.config_mismatches(p["config"], ki) == [], (p["name"], ki)
        cfg = tunelib.parse_config(p["config"])
        assert ki.get("variant") == cfg["family"], (p["name"], ki.get("variant"))
        if "pixel_tile_h" in cfg:
            assert ki["pixel_tile"] == [cfg["pixel_tile_h"], cfg["pixel_tile_w"]], p["name"]
        assert "stc.conv" in open(os.path.join(work, p["mlir"])).read(), p["name"]
        assert p["ptxas"]["ok"] in (True, None), p["ptxas"]
    return convs


def load(path):
    with open(path) as f:
        return json.load(f)


def fake_output(tmp, target="sm_90a"):
    """fake stc-tune's output for the small shapes in tmp/fake-TARGET."""
    d = os.path.join(tmp, "fake-" + target)
    rc, out = sh([FAKE_STC_TUNE, "--shapes=" + small_list(tmp), "--target=" + target, "-o", d])
    assert rc == 0, out
    return d


def check_built(work, nops):
    """A build-tune directory: its manifest (schema, every op and every
    candidate, each ok with PTX and kernel info that match the candidate's
    product and configuration), each target's manifest written back with
    the same (paths relative to it), the runtime library. Returns the
    manifest."""
    man = load(os.path.join(work, "manifest.json"))
    assert man["schema"] == "stc-gpu-tune-build/1", man["schema"]
    assert len(man["ops"]) == nops, [o["name"] for o in man["ops"]]
    assert os.path.isfile(os.path.join(work, "libstc_runtime_cuda.so"))
    progs = {p["name"]: p for p in man["programs"]}
    assert sum(len(o["candidates"]) for o in man["ops"]) == len(progs)
    for p in man["programs"]:
        assert p["status"] == "ok", (p["name"], p.get("error"))
        kis = kernel_info.parse_kernel_info(open(os.path.join(work, p["kernel_info"])).read())
        assert len(kis) == 1, p["name"]
        kernel_info.check_ptx_against_info(open(os.path.join(work, p["ptx"])).read(), kis[0])
        assert kernel_info.check_problem(kis[0], p["M"], p["N"], p["K"], p["dtype"],
                                         p["out_dtype"], sparse=p["sparse"]) == [], p["name"]
        assert tunelib.config_mismatches(p["config"], kis[0]) == [], (p["name"], kis[0])
        assert p["ptxas"]["ok"] in (True, None), p["ptxas"]
        assert p["config"] in open(os.path.join(work, p["mlir"])).read(), p["name"]
    for part in man["parts"]:
        pm = load(os.path.join(work, part["manifest"]))
        for op in pm["ops"]:
            for c in op["candidates"]:
                assert c["build"]["status"] == "ok", c
                for f in ("ptx", "kernel_info"):
                    assert os.path.getsize(os.path.join(work, part["name"], c[f])) > 0, c
                assert progs["%s-%s" % (part["name"], c["name"])]["ptx"] == os.path.join(
                    part["name"], c["ptx"])
    return man


# ---------------------------------------------------------------------------
# build-tune
# ---------------------------------------------------------------------------

def t_shape_list():
    """The shape lists build-tune writes from the GEMM table: --quick its
    three shapes in f16, else every shape in f16 and bf16; --only; each
    line named (the names come back from the list)."""
    quick = tune_build.table_rows(True, None)
    full = tune_build.table_rows(False, None)
    assert [r[0] for r in quick] == [r[0] for r in shapes.QUICK] and \
        {r[4] for r in quick} == {"f16"}, quick
    assert len(full) == 2 * len(shapes.full_table()) and \
        {r[4] for r in full} == {"f16", "bf16"}, len(full)
    only = tune_build.table_rows(False, "^square-8192-bf16$")
    assert only == [("square-8192", 8192, 8192, 8192, "bf16", "bf16")], only
    # The convolutions: ResNet-50's distinct ones at batch 32 in f16 (--quick:
    # conv_shapes.QUICK), stc-tune's conv lines.
    cq, cf = tune_build.conv_rows(True, None), tune_build.conv_rows(False, None)
    assert [r[0] for r in cq] == ["%s-b32" % n for n in conv_shapes.QUICK], cq
    assert len(cf) == len(conv_shapes.RESNET50) == 23, len(cf)
    assert ("conv1-7x7s2-3-64-b32", "conv 32 224 224 3 64 7 7 2 3 f16 f16") in cq, cq
    assert tune_build.conv_rows(False, "^l3-3x3s2-256-256-b32-f16$") == [
        ("l3-3x3s2-256-256-b32", "conv 32 28 28 256 256 3 3 2 1 f16 f16")]
    assert tune_build.conv_rows(True, "-bf16$") == [] and \
        tune_build.table_rows(True, "-b32-") == []
    tmp = tempfile.mkdtemp(prefix="tune-shapes-")
    try:
        path = os.path.join(tmp, "s.txt")
        with open(path, "w") as f:
            f.write(tunelib.shape_list_text(full, "test", cf))
        lines = [ln for ln in open(path) if ln.startswith("matmul ")]
        assert len(lines) == len(full) and lines[0] == "matmul 4096 4096 4096 f16 f16\n", lines
        assert len([ln for ln in open(path) if ln.startswith("conv ")]) == len(cf)
        names = tune_build.shape_names(path)
        assert names[(11008, 16, 4096, "bf16", "bf16")] == "llm-up-11008x4096-n16", names
        # A convolution's name, by its key as stc-tune writes it.
        key = {"op": "conv", "dtype": "f16", "out": "f16",
               "conv": {"n": 32, "h": 56, "w": 56, "c": 128, "f": 128, "kh": 3, "kw": 3,
                        "stride": [2, 2], "pad": [1, 1, 1, 1], "dilation": [1, 1],
                        "groups": 1}}
        assert names[tune_build.name_key(key)] == "l2-3x3s2-128-128-b32", names
        # build-tune's default lists: the convolutions unless --no-conv.
        for extra, nconv in ((["--quick"], len(cq)), (["--quick", "--no-conv"], 0)):
            rc, out = build_tune(os.path.join(tmp, "w"), extra,
                                 env={"FAKE_STC_TUNE_FAIL": "stop after the list"})
            assert rc == 2 and "stop after the list" in out, (rc, out)
            text = open(os.path.join(tmp, "w", "shapes.txt")).read()
            assert text.count("\nconv ") == nconv and text.count("\nmatmul ") == len(quick), text
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return "--quick %d + %d conv lines (f16), full %d (f16, bf16) + %d conv, --only, " \
           "--no-conv, names" % (len(quick), len(cq), len(full), len(cf))


def t_build():
    """build-tune (run_gpu_bench.sh) on stc-tune's output for two small
    products and both targets: one stc-tune directory per target, every
    candidate compiled, checked, with its configuration, manifests written
    back."""
    tmp = work_dir("tune-build")
    work = os.path.join(tmp, "work")
    rc, out = build_tune(work, ["--shapes", small_list(tmp), "-j", "2"])
    assert rc == 0, "build-tune exited %d:\n%s" % (rc, out[-3000:])
    man = check_built(work, 4)
    assert [p["name"] for p in man["parts"]] == ["sm_90a", "sm_90"], man["parts"]
    ops = {o["name"]: o for o in man["ops"]}
    assert ops["sm_90a-t0"]["shape"] == "small-f16" and ops["sm_90-t1"]["shape"] == \
        "small-bf16", ops.keys()
    fams = {(p["target"], p["sparse"], tunelib.parse_config(p["config"])["family"])
            for p in man["programs"]}
    assert ("sm_90a", True, "wgmma") in fams and ("sm_90", True, "staged") in fams and \
        ("sm_90a", False, "wgmma") in fams, fams
    assert "20 of 20 candidates built" in out, out[-500:]
    return "%d candidates of 4 ops (sm_90a, sm_90; 2:4 and dense) built and checked" % len(
        man["programs"])


def t_build_mutations():
    """Planted failures end as failed candidates, the others build, the
    manifests record them, the step exits 1: a candidate whose program is
    corrupted (stc-compile rejects it), one whose manifest configuration is
    not the one its program carries (the kernel's tile differs), one whose
    program is missing."""
    tmp = work_dir("tune-build-mut")
    src = fake_output(tmp)
    man = load(os.path.join(src, "manifest.json"))
    t0 = man["ops"][0]["candidates"]
    with open(os.path.join(src, t0[1]["program"]), "a") as f:
        f.write("\nthis is not MLIR\n")
    t0[2]["config"] = t0[0]["config"]           # its program carries another tile
    os.remove(os.path.join(src, man["ops"][1]["candidates"][0]["program"]))
    with open(os.path.join(src, "manifest.json"), "w") as f:
        json.dump(man, f)
    work = os.path.join(tmp, "work")
    rc, out = sh([sys.executable, os.path.join(BENCH, "tune_build.py"), "--work", work,
                  "--from", src])
    assert rc == 1, "exit %d:\n%s" % (rc, out[-3000:])
    top = load(os.path.join(work, "manifest.json"))
    st = {p["name"]: p for p in top["programs"]}
    bad = {n: p for n, p in st.items() if p["status"] != "ok"}
    assert sorted(bad) == ["sm_90a-t0-s1", "sm_90a-t0-s2", "sm_90a-t1-s0"], sorted(bad)
    assert "stc-compile exited with status" in bad["sm_90a-t0-s1"]["error"], bad
    assert "not the configuration it was built with" in bad["sm_90a-t0-s2"]["error"] and \
        "block 64x64, but the kernel's tile is 64x128" in bad["sm_90a-t0-s2"]["error"], bad
    assert "wrote no program" in bad["sm_90a-t1-s0"]["error"], bad
    pm = load(os.path.join(work, "sm_90a", "manifest.json"))
    assert pm["ops"][0]["candidates"][1]["build"]["status"] == "failed"
    assert pm["ops"][0]["candidates"][0]["build"]["status"] == "ok"
    assert "3 candidate(s) failed to build" in out or "3 program(s) failed" in out, out[-800:]
    return "corrupted program, configuration mismatch, missing program: failed, recorded; " \
           "%d others ok" % (len(st) - 3)


def t_build_errors():
    """Setup errors: one message each and exit status 2 (no stc-tune, a
    failing stc-tune, a manifest whose op lacks a key member, one whose
    program leaves its directory, a configuration without arch, an unknown
    format; a convolution op the run step cannot feed: with dense
    candidates, of two groups, with two strides, a key whose m, n, k are
    not its geometry's implicit GEMM)."""
    tmp = work_dir("tune-build-err")
    lst = small_list(tmp)
    work = os.path.join(tmp, "work")
    rc, out = build_tune(work, ["--shapes", lst], stc_tune=os.path.join(tmp, "no-stc-tune"))
    assert rc == 2 and "stc-tune not found at" in out, (rc, out)
    rc, out = build_tune(work, ["--shapes", lst], env={"FAKE_STC_TUNE_FAIL": "error: planted"})
    assert rc == 2 and "stc-tune failed (exit status 1)" in out and "planted" in out, (rc, out)
    src = fake_output(tmp)
    good = load(os.path.join(src, "manifest.json"))
    cases = []
    m = copy.deepcopy(good)
    del m["ops"][1]["key"]["out"]
    cases.append((m, "op 1 (t1): the key lacks out"))
    m = copy.deepcopy(good)
    m["ops"][0]["candidates"][1]["program"] = "../x.mlir"
    cases.append((m, "op 0 (t0), candidate 1 (t0-s1): program '../x.mlir' is not a path"))
    m = copy.deepcopy(good)
    m["ops"][0]["candidates"][0]["config"] = "#stc_gpu.kernel_config<block_rows = 64>"
    cases.append((m, "candidate 0 (t0-s0): configuration '#stc_gpu.kernel_config<block_rows "
                     "= 64>' has no arch"))
    m = dict(good, format="something-else")
    cases.append((m, "not an stc-tune manifest"))
    # Convolutions (conv_entry's: 2x8x8x64 * 64x3x3, stride 1, pad 1: an
    # implicit GEMM of m 64, n 128, k 576).
    conv = conv_entry([1, 1])["key"]
    m = copy.deepcopy(good)
    m["ops"][0]["key"].update(op="conv", conv=conv["conv"], m=64, n=128, k=576)
    cases.append((m, "op t0: dense candidate(s) t0-d0"))
    for edit, text in (
            (lambda c: c["conv"].update(groups=2), "op t0: a convolution of 2 groups"),
            (lambda c: c["conv"].update(stride=[1, 2]),
             "op t0: stride [1, 2] and dilation [1, 1]: the benchmark's convolutions have one "
             "stride"),
            (lambda c: c.update(k=512), "op t0: the key's product m=64 n=128 k=512 is not its "
                                        "geometry's implicit GEMM m=64 n=128 k=576"),
            (lambda c: c.update(dtype="i8"), "op t0: a i8 -> f16 convolution")):
        m = copy.deepcopy(good)
        m["ops"][0]["key"].update(op="conv", conv=copy.deepcopy(conv["conv"]), m=64, n=128,
                                  k=576)
        m["ops"][0]["candidates"] = [c for c in m["ops"][0]["candidates"] if c["sparse"]]
        edit(m["ops"][0]["key"])
        cases.append((m, text))
    for man, text in cases:
        with open(os.path.join(src, "manifest.json"), "w") as f:
            json.dump(man, f)
        rc, out = sh([sys.executable, os.path.join(BENCH, "tune_build.py"), "--work", work,
                      "--from", src])
        assert rc == 2 and text in out, "expected exit 2 and %r, got %d:\n%s" % (text, rc, out)
    return "no stc-tune, failing stc-tune, incomplete key, program outside, bad config, " \
           "wrong format, 5 convolutions the run cannot feed: exit 2 with the reason"


def t_build_conv():
    """build-tune on the real stc-tune's output for a matmul and two
    convolutions, both targets: every convolution candidate 2:4, compiled
    and checked as the convolution benchmark checks its kernels (the kernel
    info's conv geometry the key's, the sm_90a wgmma kernels' 4-D input
    map, pixel tile and grid, the configuration with its pixel tile), the
    names from the list; planted: a candidate whose manifest pixel tile is
    not its program's, an op whose key has h and w swapped (the same
    implicit GEMM, another geometry): failed, recorded, exit 1."""
    skip = no_stc_tune()
    if skip:
        return skip
    tmp = work_dir("tune-build-conv")
    work, man = conv_build(tmp, "# small-f16\nmatmul 64 128 256 f16 f16\n")
    check_built_matmuls = [p for p in man["programs"] if p["key"]["op"] == "matmul"]
    assert check_built_matmuls and all(p["status"] == "ok" for p in check_built_matmuls)
    convs = check_conv_programs(work, man)
    ops = {o["name"]: o for o in man["ops"]}
    assert [o["shape"] for o in man["ops"]] == ["small-f16", "conv-3x3s2",
                                                "conv-stem-bf16"] * 2, ops.keys()
    fams = {(p["target"], p["key"]["dtype"], tunelib.parse_config(p["config"])["family"])
            for p in convs}
    assert fams == {("sm_90a", "f16", "wgmma"), ("sm_90", "f16", "staged"),
                    ("sm_90a", "bf16", "direct"), ("sm_90", "bf16", "direct")}, fams
    for p in convs:
        if p["target"] == "sm_90a" and p["key"]["dtype"] == "f16":
            dm = [m for m in p["kernel"]["tensor_maps"] if m["operand"] == "dense"]
            assert len(dm) == 1 and len(dm[0]["box"]) == 4, (p["name"], p["kernel"])
    tiles = {tuple(p["kernel"]["pixel_tile"]) for p in convs if "pixel_tile" in p["kernel"]}
    assert len(tiles) > 1, tiles                 # the candidates differ in their pixel tile
    # The part manifest written back keeps stc-tune's key (no geometry added).
    pm = load(os.path.join(work, "sm_90a", "manifest.json"))
    assert "geometry" not in pm["ops"][1] and pm["ops"][1]["key"]["op"] == "conv", pm["ops"][1]
    # Planted: a pixel tile the program does not carry; h and w swapped.
    src = os.path.join(work, "sm_90a")
    sm = load(os.path.join(src, "manifest.json"))
    c1 = sm["ops"][1]["candidates"]
    wg = next(c for c in c1 if "pixel_tile_w = " in c["config"])
    tw = int(re.search(r"pixel_tile_w = (\d+)", wg["config"]).group(1))
    wg["config"] = wg["config"].replace("pixel_tile_w = %d" % tw, "pixel_tile_w = %d" % (2 * tw))
    cc = sm["ops"][1]["key"]["conv"]
    sm["ops"][2]["key"]["conv"].update(h=7, w=5)
    with open(os.path.join(src, "manifest.json"), "w") as f:
        json.dump(sm, f)
    bad_src = os.path.join(tmp, "planted")
    shutil.copytree(src, bad_src)
    work2 = os.path.join(tmp, "work2")
    rc, out = sh([sys.executable, os.path.join(BENCH, "tune_build.py"), "--work", work2,
                  "--from", bad_src])
    assert rc == 1, "exit %d:\n%s" % (rc, out[-3000:])
    st = {p["name"]: p for p in load(os.path.join(work2, "manifest.json"))["programs"]}
    bad = {n for n, p in st.items() if p["status"] != "ok"}
    stem = {n for n in st if n.startswith("sm_90a-t2-")}
    assert bad == {"sm_90a-" + wg["name"]} | stem, (sorted(bad), out[-2000:])
    e = st["sm_90a-" + wg["name"]]["error"]
    assert "not the configuration it was built with" in e and "pixel tile" in e, e
    for n in stem:
        assert "do not match the program's pads" in st[n]["error"] and "5x7" in \
            st[n]["error"], st[n]["error"]
    assert cc["h"] == 8 and cc["w"] == 12
    return "%d convolution candidates (wgmma with pixel tiles, staged, direct; f16, bf16) " \
           "and %d matmul ones built and checked; a wrong pixel tile and a swapped geometry " \
           "failed" % (len(convs), len(check_built_matmuls))


# ---------------------------------------------------------------------------
# The database
# ---------------------------------------------------------------------------

CFG = "#stc_gpu.kernel_config<arch = sm_90a, family = wgmma, block_rows = %d, " \
      "block_cols = %d, stages = 4>"


def db_key(m, device="NVIDIA H200", arch="sm_90a"):
    return {"device": device, "cc": "9.0", "arch": arch, "op": "matmul", "m": m, "n": 256,
            "k": 512, "batch": 1, "dtype": "f16", "out": "f16", "epilogue": "none"}


def conv_entry(stride, us=2.0):
    """A convolution's entry (op conv: its geometry in the key)."""
    key = dict(db_key(64), op="conv", n=128, k=576,
               conv={"n": 2, "h": 8, "w": 8, "c": 64, "f": 64, "kh": 3, "kw": 3,
                     "stride": stride, "pad": [1, 1, 1, 1], "dilation": [1, 1], "groups": 1})
    return tunelib.entry(key, [cand("ok", us)], {})


def cand(status, us=None, sparse=True, tile=(64, 64), why=None):
    c = {"sparse": sparse, "config": CFG % tile, "status": status}
    if us is not None:
        c.update(median_us=us, min_us=us * 0.9)
    if why:
        c["why"] = why
    return c


def t_db():
    """tunelib's database: an entry's best and runner_up are the two
    fastest ok candidates, sparse or dense (wrong, failed never; ties to the
    first), no entry without an ok one; merging replaces an entry with the
    same key and sorts by key (sizes numerically); the write is atomic
    (nothing but the file, its mode kept, the old file intact when the
    write fails) and deterministic; convolution keys (their geometry part
    of the key); the committed database and the compiler's test databases
    read."""
    cs = [cand("ok", 50.0), cand("wrong", 1.0, why="rel. error 0.5"),
          cand("ok", 30.0, sparse=False, tile=(128, 128)),
          cand("failed", why="build: stc-compile exited with status 1"),
          cand("ok", 40.0, tile=(64, 128)), cand("ok", 30.0, tile=(128, 256))]
    e = tunelib.entry(db_key(256), cs, {"utc": "u", "commit": "c", "source": "s"})
    assert e["best"] == {"sparse": False, "median_us": 30.0, "config": CFG % (128, 128)}, e
    assert e["runner_up"]["config"] == CFG % (128, 256), e["runner_up"]
    assert [c["status"] for c in e["candidates"]] == ["ok", "wrong", "ok", "failed", "ok",
                                                      "ok"]
    assert "median_us" not in e["candidates"][1] and e["candidates"][1]["why"] == \
        "rel. error 0.5" and e["candidates"][3]["why"].startswith("build:"), e["candidates"]
    one = tunelib.entry(db_key(256), [cand("ok", 5.0), cand("wrong", 1.0)], {})
    assert one["best"]["median_us"] == 5.0 and one["runner_up"] is None, one
    assert tunelib.entry(db_key(256), [cand("wrong", 1.0), cand("failed")], {}) is None

    db = {"stc_tuning_db": 1, "note": "kept", "entries": [
        dict(tunelib.entry(db_key(1024), [cand("ok", 9.0)], {"utc": "old"}), extra="kept"),
        tunelib.entry(db_key(256), [cand("ok", 7.0)], {"utc": "old"})]}
    tunelib.check_db(db, "db")
    new, added, replaced = tunelib.merge(db, [
        tunelib.entry(db_key(256), [cand("ok", 3.0)], {"utc": "new"}),
        tunelib.entry(db_key(512), [cand("ok", 4.0)], {"utc": "new"}),
        tunelib.entry(db_key(64, device="NVIDIA H100 80GB HBM3"), [cand("ok", 2.0)], {})])
    assert (added, replaced) == (2, 1), (added, replaced)
    order = [(e["key"]["device"], e["key"]["m"]) for e in new["entries"]]
    assert order == [("NVIDIA H100 80GB HBM3", 64), ("NVIDIA H200", 256), ("NVIDIA H200", 512),
                     ("NVIDIA H200", 1024)], order
    assert new["entries"][1]["measured"] == {"utc": "new"} and new["note"] == "kept"
    assert new["entries"][3]["extra"] == "kept"
    assert len(db["entries"]) == 2, "merge changed its input"

    tmp = work_dir("tune-db")
    os.makedirs(tmp, exist_ok=True)
    path = os.path.join(tmp, "db.json")
    with open(path, "w") as f:
        f.write("{}")
    os.chmod(path, 0o640)
    tunelib.write_db(path, new)
    assert tunelib.load_db(path) == new
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o640
    assert os.listdir(tmp) == ["db.json"], os.listdir(tmp)
    text = open(path).read()
    tunelib.write_db(path, tunelib.load_db(path))
    assert open(path).read() == text, "rewriting the same database changed its bytes"
    lines = text.splitlines()
    assert sum(1 for ln in lines if ln.startswith('        {"sparse": ')) == sum(
        len(e["candidates"]) for e in new["entries"]), text       # a line per candidate
    assert sum(1 for ln in lines if ln.startswith('      "key": {"device": ')) == 4, text
    real = os.fsync

    def broken(fd):
        raise OSError(28, "No space left on device (planted)")
    os.fsync = broken
    try:
        tunelib.write_db(path, db)
        raise AssertionError("a failing write did not raise")
    except OSError as e:
        assert "planted" in str(e)
    finally:
        os.fsync = real
    assert open(path).read() == text and os.listdir(tmp) == ["db.json"], os.listdir(tmp)
    # Convolutions (op conv): the geometry is part of the key, so two with one
    # implicit GEMM but another stride are two entries; a new measurement of
    # one replaces it alone.
    c1, c2 = conv_entry([1, 1]), conv_entry([2, 2])
    assert c1["key"]["conv"]["stride"] == [1, 1], c1
    cdb, a, r = tunelib.merge(tunelib.empty_db(), [c1, c2])
    assert (a, r, len(cdb["entries"])) == (2, 0, 2), cdb
    cdb, a, r = tunelib.merge(cdb, [conv_entry([2, 2], us=1.0)])
    assert (a, r) == (0, 1) and sorted(e["best"]["median_us"] for e in cdb["entries"]) == [
        1.0, 2.0], cdb
    tunelib.check_db(cdb, "conv db")
    # The compiler's own test databases read here too.
    for name in ("h200-db.json", "a100-db.json"):
        p = os.path.join(ROOT, "test", "Tuning", "Inputs", name)
        if os.path.isfile(p):
            tunelib.load_db(p, missing_ok=False)
    committed = os.path.join(ROOT, "tuning", "stc-tuning-db.json")
    if os.path.isfile(committed):
        tunelib.load_db(committed, missing_ok=False)
    assert tunelib.load_db(os.path.join(tmp, "none.json")) == tunelib.empty_db()
    assert tunelib.db_text(tunelib.empty_db()) == \
        '{\n  "stc_tuning_db": 1,\n  "entries": []\n}\n'
    return "best/runner_up, merge (replace, add, sort), atomic deterministic write"


def t_db_errors():
    """A database that is not one is refused with one message naming the
    file, the entry and what is wrong; run-tune's merge of a corrupted
    database exits 2 and leaves it as it was."""
    tmp = work_dir("tune-db-err")
    os.makedirs(tmp, exist_ok=True)
    good = tunelib.entry(db_key(256), [cand("ok", 3.0)], {})
    cases = [("[1", "is not valid JSON"),
             ("[]", "db.json: not a JSON object"),
             ('{"entries": []}', 'no "stc_tuning_db": 1 (found None)'),
             ('{"stc_tuning_db": 2, "entries": []}', "(found 2): not a tuning database"),
             ('{"stc_tuning_db": 1, "entries": {}}', '"entries" is not a list')]
    e = copy.deepcopy(good)
    del e["key"]["cc"]
    cases.append((json.dumps({"stc_tuning_db": 1, "entries": [good, e]}),
                  "db.json: entry 1: the key lacks cc"))
    e = copy.deepcopy(good)
    e["key"]["m"] = "256"
    cases.append((json.dumps({"stc_tuning_db": 1, "entries": [e]}),
                  "entry 0: key member m is '256', not an integer in 1..2^31"))
    e = copy.deepcopy(good)
    e["best"]["config"] = "wgmma 128x256"
    cases.append((json.dumps({"stc_tuning_db": 1, "entries": [e]}),
                  'entry 0: "best" does not parse: configuration \'wgmma 128x256\' is not'))
    e = copy.deepcopy(good)
    del e["best"]
    cases.append((json.dumps({"stc_tuning_db": 1, "entries": [e]}), 'entry 0: no "best"'))
    cases.append((json.dumps({"stc_tuning_db": 1, "entries": [good, good]}),
                  "entry 1: the same key as entry 0"))
    cases.append((json.dumps({"stc_tuning_db": 1, "entries": [dict(good, best=None)]}),
                  'entry 0: "best" is not an object'))
    e = copy.deepcopy(good)
    e["candidates"].append({"sparse": True, "config": CFG % (64, 64), "status": "slow"})
    cases.append((json.dumps({"stc_tuning_db": 1, "entries": [e]}),
                  "entry 0: candidates[1] has unknown status 'slow'"))
    e = copy.deepcopy(good)
    e["key"]["op"] = "gemm"
    cases.append((json.dumps({"stc_tuning_db": 1, "entries": [e]}),
                  "entry 0: key op 'gemm' is not tuned (expected matmul or conv)"))
    e = copy.deepcopy(good)
    e["key"]["op"] = "conv"
    cases.append((json.dumps({"stc_tuning_db": 1, "entries": [e]}),
                  'entry 0: key op conv has no "conv" object'))
    e = conv_entry([2, 2])
    e["key"]["conv"]["pad"] = [1, 1]
    cases.append((json.dumps({"stc_tuning_db": 1, "entries": [e]}),
                  "entry 0: conv member pad is [1, 1], not 4 integers >= 0"))
    e = copy.deepcopy(good)
    e["best"]["config"] = "#stc_gpu.kernel_config<arch = sm_90a, family = wgmma, " \
                          "block_rows = 128>"
    cases.append((json.dumps({"stc_tuning_db": 1, "entries": [e]}),
                  "has no block_cols"))
    path = os.path.join(tmp, "db.json")
    for text, want in cases:
        with open(path, "w") as f:
            f.write(text)
        try:
            tunelib.load_db(path)
            raise AssertionError("accepted %r" % text)
        except tunelib.TuneError as e:
            assert want in str(e) and path in str(e), (str(e), want)
    # run-tune's merge (tune_bench.merge_into_db, and `tune_bench.py merge`).
    doc = {"schema": tune_bench.RESULTS_SCHEMA, "utc": "u", "commit_short": "c",
           "synthetic": False, "device": {"name": "NVIDIA H200", "cc": "9.0"},
           "ops": [{"name": "sm_90a-t0", "key": {k: v for k, v in db_key(256).items()
                                                 if k not in ("device", "cc")},
                    "candidates": [dict(cand("ok", 3.0), name="a")]}]}
    res = os.path.join(tmp, "tune-x.json")
    with open(res, "w") as f:
        json.dump(doc, f)
    with open(path, "w") as f:
        f.write("{ corrupted")
    said = []
    assert tune_bench.merge_into_db(doc, res, path, said.append) == 2, said
    assert "tuning database NOT updated" in said[0] and "not valid JSON" in said[0], said
    assert open(path).read() == "{ corrupted"
    rc, out = sh([sys.executable, os.path.join(BENCH, "tune_bench.py"), "merge", res,
                  "--tuning-db", path])
    assert rc == 2 and "NOT updated" in out, (rc, out)
    os.remove(path)
    rc, out = sh([sys.executable, os.path.join(BENCH, "tune_bench.py"), "merge", res,
                  "--tuning-db", path])
    assert rc == 0 and "1 entry added, 0 replaced, 1 in all" in out, (rc, out)
    src = tunelib.load_db(path)["entries"][0]["measured"]["source"]
    assert src.endswith("tune-x.json") and not os.path.isabs(src), src
    # Synthetic results never go into the committed database.
    with open(res, "w") as f:
        json.dump(dict(doc, synthetic=True), f)
    rc, out = sh([sys.executable, os.path.join(BENCH, "tune_bench.py"), "merge", res])
    assert rc == 2 and "refusing to merge synthetic entries into the committed" in out, out
    return "%d corruptions refused with the entry and the reason; merge exits 2 and keeps " \
           "the file; synthetic results kept out of the committed database" % len(cases)


# ---------------------------------------------------------------------------
# run-tune
# ---------------------------------------------------------------------------

def t_synthetic():
    """The flow without a GPU: stc-tune's output (fake) -> build-tune ->
    run-tune --synthetic (every candidate on the emulator against NumPy,
    timed by the formula) -> the database. Planted: a dense candidate whose
    output comes back with its columns reversed (its result is wrong), a
    corrupted program (its build failed): both recorded and kept out of best and
    runner_up; best and runner_up the two fastest ok candidates of the
    formula; a second run replaces its entry; a corrupted database: exit 2,
    the results still written."""
    tmp = work_dir("tune-synthetic")
    srcs = [fake_output(tmp, t) for t in ("sm_90a", "sm_90")]
    man = load(os.path.join(srcs[0], "manifest.json"))
    dense = next(c for c in man["ops"][0]["candidates"] if not c["sparse"])
    broken = man["ops"][1]["candidates"][1]
    with open(os.path.join(srcs[0], broken["program"]), "w") as f:
        f.write("func.func @spmm(\n")
    work = os.path.join(tmp, "work")
    rc, out = sh([sys.executable, os.path.join(BENCH, "tune_build.py"), "--work", work]
                 + sum([["--from", s] for s in srcs], []))
    assert rc == 1, "build exit %d:\n%s" % (rc, out[-2000:])
    db = os.path.join(tmp, "db.json")
    res = os.path.join(tmp, "res")
    env = {"GPU_TUNE_WORK": work}
    # The wrong result: the dense candidate's output columns reversed (a
    # planted fault, as the GEMM worker's --simulate-bug wrong).
    rc, out = sh([RUN_GPU_BENCH, "run-tune", "--synthetic", "--tuning-db", db,
                  "--results-dir", res, "--simulate-bug", "wrong@^sm_90a-%s$" % dense["name"]],
                 env=env)
    assert rc == 1, "run-tune --synthetic exit %d (a wrong and a failed candidate):\n%s" % (
        rc, out[-3000:])
    js = [f for f in os.listdir(res) if f.endswith(".json")]
    assert len(js) == 1 and js[0].startswith("tune-synthetic-"), js
    doc = load(os.path.join(res, js[0]))
    assert doc["synthetic"] is True and doc["device"] == {"name": "SYNTHETIC", "cc": "9.0"}
    ops = {o["name"]: o for o in doc["ops"]}
    assert len(ops) == 4, ops.keys()
    c0 = {c["candidate"]: c for c in ops["sm_90a-t0"]["candidates"]}
    wrong = c0[dense["name"]]
    assert wrong["status"] == "wrong" and wrong["rel_error"] > 0.01, wrong
    assert "result differs from float64 NumPy" in wrong["why"], wrong
    c1 = {c["candidate"]: c for c in ops["sm_90a-t1"]["candidates"]}
    assert c1[broken["name"]]["status"] == "failed" and \
        c1[broken["name"]]["why"].startswith("build: stc-compile exited"), c1[broken["name"]]
    counts = doc["summary"]["status_counts"]
    assert counts == {"ok": 18, "wrong": 1, "failed": 1}, counts
    for o in doc["ops"]:
        ok = [c for c in o["candidates"] if c["status"] == "ok"]
        for c in ok:
            assert c["rel_error"] < 1e-2 and c["synthetic"] is True, c
            want = tunelib.synthetic_time_us(c["config"], o["key"], c["sparse"])
            assert abs(c["median_us"] - want) < 1e-6, (c, want)
        ranked = sorted(ok, key=lambda c: c["median_us"])
        assert (o["best"], o["runner_up"]) == (ranked[0]["name"], ranked[1]["name"]), o
    d = tunelib.load_db(db, missing_ok=False)
    assert len(d["entries"]) == 4, d
    for e in d["entries"]:
        k = e["key"]
        assert (k["device"], k["cc"], e["measured"]["synthetic"]) == ("SYNTHETIC", "9.0", True)
        o = next(o for o in doc["ops"] if all(o["key"][m] == k[m] for m in
                                               tunelib.KEY_MEMBERS))
        assert e["best"]["config"] == next(c["config"] for c in o["candidates"]
                                           if c["name"] == o["best"]), (e, o)
        assert e["measured"]["source"].endswith(js[0]) and len(e["candidates"]) == len(
            o["candidates"])
    e0 = next(e for e in d["entries"] if e["key"]["arch"] == "sm_90a" and
              e["key"]["dtype"] == "f16")
    w = [c for c in e0["candidates"] if c["status"] == "wrong"]
    # (A dense wgmma candidate can have the text of a sparse one: the kind
    # tells them apart.)
    assert len(w) == 1 and "median_us" not in w[0] and \
        (e0["best"]["config"], e0["best"]["sparse"]) != (w[0]["config"], w[0]["sparse"])
    e1 = next(e for e in d["entries"] if e["key"]["arch"] == "sm_90a" and
              e["key"]["dtype"] == "bf16")
    assert [c["status"] for c in e1["candidates"]].count("failed") == 1, e1
    first = open(db).read()
    # A second run of one op: its entry replaced, the others kept.
    rc, out = sh([RUN_GPU_BENCH, "run-tune", "--synthetic", "--tuning-db", db,
                  "--results-dir", res, "--only", "^sm_90-t0-"], env=env)
    assert rc == 0 and "0 entries added, 1 replaced, 4 in all" in out, (rc, out[-2000:])
    d2 = tunelib.load_db(db)
    changed = [a["key"] for a, b in zip(d["entries"], d2["entries"]) if a != b]
    assert len(changed) == 1 and changed[0]["arch"] == "sm_90" and changed[0]["dtype"] == \
        "f16", changed
    assert first != open(db).read()
    # A corrupted database: refused, exit 2, the results written anyway.
    with open(db, "w") as f:
        f.write('{"stc_tuning_db": 1, "entries": [{"key": {}}]}')
    n = len(os.listdir(res))
    rc, out = sh([RUN_GPU_BENCH, "run-tune", "--synthetic", "--tuning-db", db,
                  "--results-dir", res, "--only", "^sm_90-t0-s0$"], env=env)
    assert rc == 2, (rc, out[-2000:])
    assert "tuning database NOT updated (the results are written): %s: entry 0: the key " \
           "lacks device" % db in out, out[-2000:]
    assert len(os.listdir(res)) == n + 2, os.listdir(res)
    return "%d candidates on the emulator: %d ok, the wrong and the failed one recorded; " \
           % (sum(counts.values()), counts["ok"]) + \
           "4 entries (SYNTHETIC, cc 9.0); an entry replaced; a corrupted database refused"


def t_synthetic_conv():
    """Convolutions without a GPU: the real stc-tune -> build-tune ->
    run-tune --synthetic (every candidate's stc.conv program on the GPU
    emulator against the float64 NumPy implicit GEMM of the pruned filter,
    conv_shapes.reference_numpy; the formula's times) -> the database: a
    planted wrong result (one candidate's output channels reversed) is
    `wrong`, not timed, kept out of best and runner_up; every entry has its
    op's conv key (geometry included); stc-compile --tuning-db on the
    benchmark's form of the convolution (linalg.conv_2d_nhwc_fhwc,
    --sparsity=force) takes the measured best: an exact hit."""
    skip = no_stc_tune()
    if skip:
        return skip
    tmp = work_dir("tune-synthetic-conv")
    work, man = conv_build(tmp)
    convs = check_conv_programs(work, man)
    planted = next(p["name"] for p in convs
                   if p["name"].startswith("sm_90a-t0-") and not p["heuristic"])
    db, res = os.path.join(tmp, "db.json"), os.path.join(tmp, "res")
    rc, out = sh([RUN_GPU_BENCH, "run-tune", "--synthetic", "--tuning-db", db,
                  "--results-dir", res, "--simulate-bug", "wrong@^%s$" % planted],
                 env={"GPU_TUNE_WORK": work})
    assert rc == 1, "run-tune --synthetic exit %d (one wrong candidate):\n%s" % (rc, out[-3000:])
    js = [f for f in os.listdir(res) if f.endswith(".json")]
    doc = load(os.path.join(res, js[0]))
    counts = doc["summary"]["status_counts"]
    assert counts == {"ok": len(convs) - 1, "wrong": 1}, (counts, out[-3000:])
    assert "conv2d" in doc["settings"]["reference"] or "reference_numpy" in \
        doc["settings"]["reference"], doc["settings"]
    by = {c["name"]: c for o in doc["ops"] for c in o["candidates"]}
    w = by[planted]
    assert w["status"] == "wrong" and w["rel_error"] > 0.1 and "median_us" not in w, w
    for o in doc["ops"]:
        assert o["key"]["op"] == "conv" and "conv" in o["key"], o["key"]
        ok = [c for c in o["candidates"] if c["status"] == "ok"]
        for c in ok:
            assert c["rel_error"] < 1e-2, c
            assert abs(c["median_us"] - tunelib.synthetic_time_us(c["config"], o["key"],
                                                                  True)) < 1e-6, c
        ranked = sorted(ok, key=lambda c: c["median_us"])
        assert (o["best"], o["runner_up"]) == (ranked[0]["name"], ranked[1]["name"]), o
        assert planted not in (o["best"], o["runner_up"])
    d = tunelib.load_db(db, missing_ok=False)
    assert len(d["entries"]) == len(doc["ops"]) == 4, d
    for e in d["entries"]:
        o = next(o for o in doc["ops"] if o["key"]["arch"] == e["key"]["arch"] and
                 o["key"]["conv"] == e["key"]["conv"])
        assert {k: v for k, v in e["key"].items() if k not in ("device", "cc")} == o["key"]
        assert e["best"]["config"] == by[o["best"]]["config"], (e, o)
        assert len(e["candidates"]) == len(o["candidates"]), e
    e0 = next(e for e in d["entries"] if e["key"]["arch"] == "sm_90a" and
              e["key"]["conv"]["c"] == 64)
    assert [c["status"] for c in e0["candidates"]].count("wrong") == 1, e0
    # The compiler reads the entry: the benchmark's program of the 3x3.
    c = e0["key"]["conv"]
    g = conv_shapes.key_geometry(c, "conv-3x3s2")
    prog = os.path.join(tmp, "conv.mlir")
    with open(prog, "w") as f:
        f.write(conv_shapes.program_text("conv-3x3s2", dict(g, stage="tune", where="test")))
    rc, out = sh([os.path.join(BIN, "stc-compile"), prog, "--sparsity=force", "--tuning-db=" + db,
                  "--target=sm_90a", "--remarks", "--emit=ptx", "-o",
                  os.path.join(tmp, "conv.ptx")])
    assert rc == 0, out[-2000:]
    hit = "tuning database: exact hit for conv 2x8x12x64 * 256x3x3 s2,2 p1,1,1,1"
    assert hit in out and e0["best"]["config"] in out, out[-2000:]
    return "%d convolution candidates on the emulator: %d ok, the planted wrong one out of " \
           "best; 4 conv entries; stc-compile --tuning-db: exact hit" % (len(convs),
                                                                      len(convs) - 1)


def t_worker_sim_conv():
    """run-tune's GPU worker (TuneWorker) on convolutions, simulated on the
    CPU with torch, after a matmul in one run: each candidate's real kernel
    info through the convolution worker's hooks (conv_kernel's checks and
    arguments, the sm_90a kernels' 4-D input map checked by the stand-in
    kernel), ConvWorker.make_inputs' inputs made once per op and shared by
    its candidates, checked against float64 torch conv2d of the pruned
    filter, then timed; planted faults (a wrong result: swapped metadata, a
    crash, a launch error) recorded, kept out of best and the database,
    which has conv keys."""
    if not have_torch():
        return ("SKIP", "no torch for %s" % sys.executable)
    skip = no_stc_tune()
    if skip:
        return skip
    tmp = work_dir("tune-worker-sim-conv")
    work, man = conv_build(tmp, "# small-f16\nmatmul 64 128 256 f16 f16\n")
    mp = os.path.join(work, "manifest.json")
    db = os.path.join(tmp, "db.json")
    bugs = ["wrong@^sm_90a-t1-s1$", "crash@^sm_90-t1-s2$", "error@^sm_90a-t2-s0$"]
    rc, doc, text = tune_run(mp, tmp, "conv",
                              ["--simulate", "--tuning-db", db, "--max-method-s", "0.02",
                               "--max-repeats", "5", "--stall", "60"]
                              + sum([["--simulate-bug", b] for b in bugs], []))
    assert rc == 1, "exit %d:\n%s" % (rc, text[-3000:])
    st = {c["name"]: c for o in doc["ops"] for c in o["candidates"]}
    got = {n: c["status"] for n, c in st.items() if c["status"] != "ok"}
    assert got == {"sm_90a-t1-s1": "wrong", "sm_90-t1-s2": "failed",
                   "sm_90a-t2-s0": "failed"}, (got, text[-3000:])
    assert st["sm_90a-t1-s1"]["rel_error"] > 0.1 and "median_us" not in st["sm_90a-t1-s1"]
    assert "float64 torch conv2d with the pruned filter" in st["sm_90a-t1-s1"]["why"], \
        st["sm_90a-t1-s1"]
    assert "worker died" in st["sm_90-t1-s2"]["why"], st["sm_90-t1-s2"]
    assert "CUDA_ERROR_INVALID_VALUE" in st["sm_90a-t2-s0"]["why"], st["sm_90a-t2-s0"]
    # Inputs made once per op (seeded by its name), and once more after the
    # crash: the fresh worker goes on inside sm_90-t1.
    assert text.count("  inputs: ") == len(doc["ops"]) + 1 == 7, text[-3000:]
    for o in doc["ops"]:
        seeds = {c.get("seed") for c in o["candidates"] if c["status"] in ("ok", "wrong")}
        assert len(seeds) == 1, (o["name"], seeds)
        ok = [c for c in o["candidates"] if c["status"] == "ok"]
        assert ok and all(c["repeats"] >= 3 and c["rel_error"] < 1e-2 for c in ok), o["name"]
        assert o["best"] == min(ok, key=lambda c: c["median_us"])["name"]
    wg = st["sm_90a-t1-s0"]["kernel"]
    assert wg["variant"] == "wgmma" and len(wg["pixel_tile"]) == 2, wg
    assert st["sm_90a-t2-s1"]["kernel"]["variant"] == "direct", st["sm_90a-t2-s1"]
    d = tunelib.load_db(db, missing_ok=False)
    kinds = sorted((e["key"]["arch"], e["key"]["op"]) for e in d["entries"])
    assert kinds == [("sm_90", "conv"), ("sm_90", "conv"), ("sm_90", "matmul"),
                     ("sm_90a", "conv"), ("sm_90a", "conv"), ("sm_90a", "matmul")], kinds
    for e in d["entries"]:
        assert e["key"]["device"] == "simulated (CPU, no GPU)", e["key"]
        if e["key"]["op"] == "conv":
            assert e["key"]["conv"]["groups"] == 1 and e["best"]["sparse"], e
    e = next(e for e in d["entries"] if e["key"]["arch"] == "sm_90a" and
             e["key"]["op"] == "conv" and e["key"]["conv"]["c"] == 64)
    assert [c["status"] for c in e["candidates"]].count("wrong") == 1, e
    return "matmul then convolutions in one worker; wgmma (4-D input map), staged, direct " \
           "kernels; wrong, crash, launch error recorded; shared inputs per op; 6 entries"


def t_worker_sim():
    """run-tune's GPU worker (TuneWorker) simulated on the CPU with torch:
    the candidates' real kernel infos (sm_90a tensor maps, the dense
    kernel's A whole) launched through the stand-in kernel, an op's
    candidates on the same inputs; planted faults (a wrong result, a crash,
    a launch error) recorded and kept out of best; the database keyed by
    the device; a time budget used up: every candidate skipped, nothing
    merged."""
    if not have_torch():
        return ("SKIP", "no torch for %s" % sys.executable)
    tmp = work_dir("tune-worker-sim")
    work = os.path.join(tmp, "work")
    rc, out = build_tune(work, ["--shapes", small_list(tmp)])
    assert rc == 0, out[-2000:]
    mp = os.path.join(work, "manifest.json")
    db = os.path.join(tmp, "db.json")
    bugs = ["wrong@^sm_90a-t0-s1$", "crash@^sm_90a-t1-d0$", "error@^sm_90-t0-s0$"]
    rc, doc, text = tune_run(mp, tmp, "faults",
                              ["--simulate", "--tuning-db", db, "--max-method-s", "0.02",
                               "--max-repeats", "5", "--stall", "30"]
                              + sum([["--simulate-bug", b] for b in bugs], []))
    assert rc == 1, "exit %d:\n%s" % (rc, text[-3000:])
    st = {c["name"]: c for o in doc["ops"] for c in o["candidates"]}
    got = {n: c["status"] for n, c in st.items() if c["status"] != "ok"}
    assert got == {"sm_90a-t0-s1": "wrong", "sm_90a-t1-d0": "failed",
                   "sm_90-t0-s0": "failed"}, (got, text[-3000:])
    assert "worker died" in st["sm_90a-t1-d0"]["why"] and "in t1-d0" in \
        st["sm_90a-t1-d0"]["why"], st["sm_90a-t1-d0"]
    assert "CUDA_ERROR_INVALID_VALUE" in st["sm_90-t0-s0"]["why"], st["sm_90-t0-s0"]
    assert len(doc["worker_restarts"]) == 1, doc["worker_restarts"]
    for o in doc["ops"]:
        seeds = {c.get("seed") for c in o["candidates"] if c["status"] in ("ok", "wrong")}
        assert len(seeds) == 1, (o["name"], seeds)
        ok = [c for c in o["candidates"] if c["status"] == "ok"]
        assert all(c["repeats"] >= 3 and c["rel_error"] < 1e-2 for c in ok), ok
        assert o["best"] == min(ok, key=lambda c: c["median_us"])["name"]
    wg = next(c for c in st.values() if c["name"] == "sm_90a-t0-s0")
    assert wg["kernel"]["variant"] == "wgmma", wg
    d = tunelib.load_db(db, missing_ok=False)
    assert len(d["entries"]) == 4 and {e["key"]["device"] for e in d["entries"]} == {
        "simulated (CPU, no GPU)"}, d
    # --copy-to: the updated database beside the results.
    assert load(os.path.join(tmp, "out-faults", "db.json")) == d
    e = next(e for e in d["entries"] if e["key"]["arch"] == "sm_90a" and
             e["key"]["dtype"] == "f16")
    assert [c["status"] for c in e["candidates"]].count("wrong") == 1, e
    # No time left: every candidate skipped, recorded, nothing merged.
    before = open(db).read()
    rc, doc, text = tune_run(mp, tmp, "budget",
                              ["--simulate", "--tuning-db", db, "--time-budget", "0"])
    sts = {c["status"] for o in doc["ops"] for c in o["candidates"]}
    assert sts == {"skipped"}, sts
    assert "nothing to merge" in text and open(db).read() == before, text[-1000:]
    return "faults recorded (wrong, crash, launch error), shared inputs per op, wgmma " \
           "kernels through tensor maps, 4 entries; a spent budget skips every candidate"


# ---------------------------------------------------------------------------
# The GEMM benchmark's stc_auto method
# ---------------------------------------------------------------------------

def gemm_build(work, only, env):
    e = {"GPU_BENCH_WORK": work, "STC_GPU_CUTLASS2": "none"}
    e.update(env)
    return sh([RUN_GPU_BENCH, "build", "--quick", "--only", only], env=e)


def t_auto_build():
    """build's stc_auto kernel: stc-tune's "auto" of each product (fake:
    the heuristic's 2:4 candidate, or with FAKE_STC_TUNE_AUTO=dense the
    dense one), the program in that form with the configuration attached,
    compiled for sm_90a and checked against it; without stc-tune not built
    (not a failure); a failing stc-tune fails the method (exit 1)."""
    tmp = work_dir("tune-auto-build")
    only = "^(square-4096-f16|llm-up-11008x4096-n16-bf16)$"
    rc, out = gemm_build(os.path.join(tmp, "sparse"), only, {"STC_TUNE": FAKE_STC_TUNE})
    assert rc == 0, out[-3000:]
    man = load(os.path.join(tmp, "sparse", "manifest.json"))
    assert man["target_auto"] == "sm_90a", man["target_auto"]
    for p in man["programs"]:
        a = p["auto"]
        assert a["status"] == "ok" and a["sparse"] is True and a["target"] == "sm_90a", a
        text = open(os.path.join(tmp, "sparse", a["mlir"])).read()
        assert "stc.spmm" in text and "stc_gpu.kernel_config = " + a["config"] in text, text
        assert tunelib.config_mismatches(a["config"], a["kernel"]) == [], a["kernel"]
        assert a["kernel"]["variant"] == "wgmma", a["kernel"]
    rc, out = gemm_build(os.path.join(tmp, "dense"), only, {"STC_TUNE": FAKE_STC_TUNE,
                                                           "FAKE_STC_TUNE_AUTO": "dense"})
    assert rc == 0, out[-3000:]
    for p in load(os.path.join(tmp, "dense", "manifest.json"))["programs"]:
        a = p["auto"]
        assert a["status"] == "ok" and a["sparse"] is False, a
        text = open(os.path.join(tmp, "dense", a["mlir"])).read()
        assert "linalg.matmul {stc_gpu.kernel_config = " + a["config"] in text, text
        assert a["kernel"]["meta_layout"] == "none" and a["kernel"]["params"][:3] == [
            "values", "dense", "out"], a["kernel"]
    rc, out = gemm_build(os.path.join(tmp, "none"), "^square-4096-f16$",
                         {"STC_TUNE": os.path.join(tmp, "no-stc-tune")})
    assert rc == 0, out[-2000:]
    a = load(os.path.join(tmp, "none", "manifest.json"))["programs"][0]["auto"]
    assert a["status"] == "not_built" and "no stc-tune" in a["error"], a
    rc, out = gemm_build(os.path.join(tmp, "fail"), "^square-4096-f16$",
                         {"STC_TUNE": FAKE_STC_TUNE, "FAKE_STC_TUNE_FAIL": "error: planted"})
    assert rc == 1, (rc, out[-2000:])
    a = load(os.path.join(tmp, "fail", "manifest.json"))["programs"][0]["auto"]
    assert a["status"] == "failed" and "planted" in a["error"], a
    return "2:4 and dense auto forms with their configurations built for sm_90a; no " \
           "stc-tune: not built; a failing stc-tune: failed"


def t_report_auto():
    """stc_auto in the GEMM report: its ratios against cuBLAS and
    cuSPARSELt (either form), a failure failing the run, not_built not,
    its table (form, configuration), its compact column."""
    table = [("square-4096", "square", 4096, 4096, 4096)]
    progs = fake_programs(table, dtypes=("f16", "bf16", "i8"), dense=True)
    cfg = CFG % (128, 256)
    progs[0]["auto"] = {"target": "sm_90a", "status": "ok", "sparse": True, "config": cfg,
                        "kernel": WGMMA_INFO}
    progs[1]["auto"] = {"target": "sm_90a", "status": "ok", "sparse": False, "config": cfg,
                        "kernel": DENSE_INFO}
    progs[2]["auto"] = {"target": "sm_90a", "status": "not_built", "error": "no stc-tune"}
    ok = lambda ms, **kw: dict(timing(ms), status="ok", rel_error=1e-3, **kw)  # noqa: E731
    base = lambda **kw: dict({"stc": ok(2.0), "stc_sm90a": ok(0.5), "cublas": ok(1.0),  # noqa: E731
                              "cutlass": ok(1.0), "cusparselt": ok(0.8)}, **kw)
    recs = [{"type": "env", "gpu": {"name": "Fake GPU"}, "software": {}},
            {"type": "format_check", "ok": True},
            {"type": "result", "index": 0, "methods": base(stc_auto=ok(0.4, sparse=True,
                                                                       config=cfg))},
            {"type": "result", "index": 1, "methods": base(stc_auto=ok(1.6, sparse=False,
                                                                       config=cfg))},
            {"type": "result", "index": 2, "unit": "TOPS", "methods": base()}]
    meta = {"utc": "20260101T000000Z", "time_budget_s": 400, "stall_s": 150,
            "max_method_s": 0.5, "max_repeats": 200, "tolerance": 1e-2}
    man = {"target": "sm_90", "target_sm90a": "sm_90a", "target_dense": "sm_90"}
    doc = report.assemble(man, recs, progs, [0, 1, 2], meta)
    by = {e["name"]: e for e in doc["results"]}
    r = by["square-4096-f16"]["ratios"]
    assert abs(r["stc_auto_speedup_vs_cublas"] - 2.5) < 1e-12 and \
        abs(r["stc_auto_speedup_vs_cusparselt"] - 2.0) < 1e-12, r
    r = by["square-4096-bf16"]["ratios"]
    assert abs(r["stc_auto_speedup_vs_cublas"] - 0.625) < 1e-12, r
    assert by["square-4096-i8"]["methods"]["stc_auto"]["status"] == "not_built"
    assert doc["summary"]["status_counts"]["stc_auto"] == {"ok": 2, "not_built": 1}
    md = report.markdown(doc)
    for x in ("## STC auto (--sparsity=auto)",
              "| square-4096-f16 | 2:4 | `%s` |" % cfg,
              "| square-4096-bf16 | dense | `%s` |" % cfg, "| 2.50× | 2.00× |"):
        assert x in md, "markdown lacks %r:\n%s" % (x, md)
    assert "auto vs cuBLAS / cuSPARSELt" in report.compact(doc)
    recs[3]["methods"]["stc_auto"] = {"status": "failed", "error": "CudaError: planted"}
    d2 = report.assemble(man, recs, progs, [0, 1, 2], meta)
    assert d2["summary"]["ok"] is False and "stc_auto_speedup_vs_cublas" not in \
        d2["results"][1]["ratios"]
    return "ratios vs cuBLAS/cuSPARSELt for 2:4 and dense choices, statuses, table, compact"


CHECKS = {
    "shape-list": t_shape_list,
    "build": t_build,
    "build-mutations": t_build_mutations,
    "build-errors": t_build_errors,
    "build-conv": t_build_conv,
    "db": t_db,
    "db-errors": t_db_errors,
    "synthetic": t_synthetic,
    "synthetic-conv": t_synthetic_conv,
    "worker-sim": t_worker_sim,
    "worker-sim-conv": t_worker_sim_conv,
    "auto-build": t_auto_build,
    "report-auto": t_report_auto,
}

if __name__ == "__main__":
    sys.exit(run_checks(CHECKS, sys.argv[1:]))
