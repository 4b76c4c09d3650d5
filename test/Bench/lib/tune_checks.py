"""The tuning flow's checks (docs/TUNING.md; bench/README.md, "GPU tuning"):
build-tune (tune_build.py) on stc-tune's output (a stand-in for stc-tune,
fake_stc_tune.py, with real configurations from stc-opt, until and besides
the real one), its planted failures and setup errors; the tuning database
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


def small_list(tmp):
    path = os.path.join(tmp, "shapes.txt")
    os.makedirs(tmp, exist_ok=True)
    with open(path, "w") as f:
        f.write(SMALL_SHAPES)
    return path


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
    tmp = tempfile.mkdtemp(prefix="tune-shapes-")
    try:
        path = os.path.join(tmp, "s.txt")
        with open(path, "w") as f:
            f.write(tunelib.shape_list_text(full, "test"))
        lines = [ln for ln in open(path) if ln.startswith("matmul ")]
        assert len(lines) == len(full) and lines[0] == "matmul 4096 4096 4096 f16 f16\n", lines
        names = tune_build.shape_names(path)
        assert names[(11008, 16, 4096, "bf16", "bf16")] == "llm-up-11008x4096-n16", names
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return "--quick %d lines (f16), full %d (f16, bf16), --only, names" % (len(quick), len(full))


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
        ("sm_90a", False, "staged") in fams, fams
    assert "22 of 22 candidates built" in out, out[-500:]
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
    format, a convolution op, which these steps do not tune)."""
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
    m = copy.deepcopy(good)
    m["ops"][0]["key"].update(op="conv", conv=conv_entry([1, 1])["key"]["conv"])
    cases.append((m, "op t0: op conv: build-tune and run-tune tune matmuls only"))
    for man, text in cases:
        with open(os.path.join(src, "manifest.json"), "w") as f:
            json.dump(man, f)
        rc, out = sh([sys.executable, os.path.join(BENCH, "tune_build.py"), "--work", work,
                      "--from", src])
        assert rc == 2 and text in out, "expected exit 2 and %r, got %d:\n%s" % (text, rc, out)
    return "no stc-tune, failing stc-tune, incomplete key, program outside, bad config, " \
           "wrong format, conv op: exit 2 with the reason"


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
    assert counts == {"ok": 20, "wrong": 1, "failed": 1}, counts
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
    assert len(w) == 1 and "median_us" not in w[0] and e0["best"]["config"] != w[0]["config"]
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
    return "22 candidates on the emulator: 20 ok, the wrong and the failed one recorded; " \
           "4 entries (SYNTHETIC, cc 9.0); an entry replaced; a corrupted database refused"


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
    "db": t_db,
    "db-errors": t_db_errors,
    "synthetic": t_synthetic,
    "worker-sim": t_worker_sim,
    "auto-build": t_auto_build,
    "report-auto": t_report_auto,
}

if __name__ == "__main__":
    sys.exit(run_checks(CHECKS, sys.argv[1:]))
