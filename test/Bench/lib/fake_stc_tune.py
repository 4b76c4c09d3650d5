#!/usr/bin/env python3
"""A stand-in for stc-tune's shape-list mode (docs/TUNING.md, "stc-tune"),
for the tuning flow's tests: the same command line and the same output
(DIR/manifest.json and one MLIR program per candidate, in the benchmark's
program forms), with real configurations: stc-opt
--stc-configure-gpu-kernels with a few knob sets on each product (the
heuristic's choice first), duplicates once. No cost model: predicted_us is
tunelib's synthetic formula, and "auto" is the heuristic's 2:4 candidate
(or dense one: FAKE_STC_TUNE_AUTO).

    fake_stc_tune.py --shapes=FILE --target=T -o DIR [--tuning-db=FILE] [--candidates=N]

FAKE_STC_TUNE_FAIL=TEXT in the environment: print TEXT and exit 1 (a
failing stc-tune); FAKE_STC_TUNE_AUTO=dense: "auto" is the heuristic's
dense candidate where the dtype has one. Standard library only.
"""

import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.join(ROOT, "bench", "gpu"))
import build_programs  # noqa: E402
import shapes  # noqa: E402
import tunelib  # noqa: E402

SPARSE_KNOBS = ("", "kernel=staged", "block-rows=64 block-cols=128")
DENSE_KNOBS = ("", "stages=2", "block-rows=64 block-cols=128 stages=4")


def configs(opt, text, target, knobs, tmp):
    """The distinct configurations stc-opt gives the program `text` under
    each knob set (the first: none, the heuristic's)."""
    path = os.path.join(tmp, ".fake-stc-tune.mlir")
    with open(path, "w") as f:
        f.write(text)
    out = []
    for kn in knobs:
        if "kernel=staged" in kn and target != "sm_90a":
            continue
        p = subprocess.run([opt, "--stc-configure-gpu-kernels=target=%s %s" % (target, kn),
                            path], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        t = p.stdout.decode()
        if p.returncode != 0:
            sys.exit("fake stc-tune: stc-opt failed:\n" + t)
        i = t.index("#stc_gpu.kernel_config<")
        c = t[i:t.index(">", i) + 1]
        if c not in out:
            out.append(c)
    os.remove(path)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shapes", required=True)
    ap.add_argument("--target", required=True)
    ap.add_argument("-o", dest="out", required=True)
    ap.add_argument("--tuning-db")
    ap.add_argument("--candidates", type=int)
    args = ap.parse_args()
    if os.environ.get("FAKE_STC_TUNE_FAIL"):
        print(os.environ["FAKE_STC_TUNE_FAIL"])
        return 1
    opt = os.path.join(os.environ.get("STC_BUILD_DIR") or os.path.join(ROOT, "build"), "bin",
                       "stc-opt")
    os.makedirs(args.out, exist_ok=True)
    ops = []
    with open(args.shapes) as f:
        lines = [ln.split() for ln in f if ln.strip() and not ln.strip().startswith("#")]
    for i, w in enumerate(lines):
        if w[0] != "matmul":
            print("fake stc-tune: %s lines are not made here (matmul only): use the real "
                  "stc-tune" % w[0])
            return 1
        m, n, k, dt = int(w[1]), int(w[2]), int(w[3]), w[4]
        out = w[5] if len(w) > 5 else dt
        name = "t%d" % i
        key = {"arch": args.target, "op": "matmul", "m": m, "n": n, "k": k, "batch": 1,
               "dtype": dt, "out": out, "epilogue": "none"}
        os.makedirs(os.path.join(args.out, name), exist_ok=True)
        cands = []
        forms = [("s", True, build_programs.program_text, SPARSE_KNOBS)]
        if shapes.has_stc_dense(dt):
            forms.append(("d", False, build_programs.dense_program_text, DENSE_KNOBS))
        for letter, sparse, text, knobs in forms:
            for j, c in enumerate(configs(opt, text(name, dt, out, m, n, k), args.target,
                                          knobs, args.out)):
                if args.candidates and j >= args.candidates:
                    break
                prog = "%s/%s%d.mlir" % (name, letter, j)
                with open(os.path.join(args.out, prog), "w") as f:
                    f.write(text(name, dt, out, m, n, k, c))
                cands.append({"name": "%s-%s%d" % (name, letter, j), "sparse": sparse,
                              "heuristic": j == 0,
                              "predicted_us": tunelib.synthetic_time_us(c, key, sparse),
                              "config": c, "program": prog})
        sp = cands[0]
        dn = next((c for c in cands if not c["sparse"]), None)
        auto = dn if os.environ.get("FAKE_STC_TUNE_AUTO") == "dense" and dn else sp
        ops.append({"name": name, "key": key, "dense_transposed": shapes.dense_transposed(dt),
                    "auto": {"sparse": auto["sparse"], "predicted_sparse_us": sp["predicted_us"],
                             "predicted_dense_us": dn["predicted_us"] if dn else None,
                             "config": auto["config"]},
                    "candidates": cands})
    with open(os.path.join(args.out, "manifest.json"), "w") as f:
        json.dump({"format": "stc-tune-manifest", "version": 1, "target": args.target,
                   "fake": "test/Bench/lib/fake_stc_tune.py", "ops": ops}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
