#!/usr/bin/env python3
"""Snapshot of everything STC generates for GPU targets, to diff refactors.

    scripts/codegen-snapshot.py OUT [--build DIR] [--jobs N] [--quick]

Writes under OUT, for every GPU program the project has, what stc-compile
emits for it: the kernels (`--emit=ptx`), their `--kernel-info` JSON and
the host code (`--emit=llvm`), once for each distinct set of compile flags
the tests use on that program. The programs are
- the `.mlir` tests and examples that run on a GPU target or the emulator:
  their `stc-run`/`stc-compile` RUN lines give the targets and flags (the
  emulator's `--device=emulate` compiles the same kernels);
- the GPU benchmark's GEMM and convolution programs (bench/gpu/
  build_programs.py, build_conv_programs.py), for sm_90 and sm_90a, and
  the sm_90a knob variants of scripts/gpu-sweep-build.sh (--quick: the
  tests only).
A refactoring of code generation that must not change any kernel is
checked with
    scripts/codegen-snapshot.py /tmp/before --build OLD/build
    scripts/codegen-snapshot.py /tmp/after  --build NEW/build
    diff -r /tmp/before /tmp/after
from the same source tree (the programs' paths are in the host code).
Compile errors are recorded as .err files, compared too.
"""

import argparse
import concurrent.futures
import hashlib
import os
import re
import shlex
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GPU_FLAG = re.compile(
    r"^--(target|gpu-[a-z0-9-]+|sparsity|pattern|prune-method|"
    r"permute-[a-z-]+)(=.*)?$")
TEST_DIRS = ["test/GPU", "test/Tools", "test/E2E", "examples"]
SWEEP = [["--gpu-block-rows=256"], ["--gpu-group-rows=16"],
         ["--gpu-cluster-rows=2", "--gpu-tma-multicast"],
         ["--gpu-wgmma-a=registers"], ["--gpu-wgmma-stages=3"]]


def run_lines(path):
    """The RUN lines of a lit test, continuation lines joined."""
    lines, current = [], None
    with open(path, errors="replace") as f:
        for raw in f:
            m = re.search(r"RUN:\s?(.*)$", raw)
            if not m:
                continue
            text = m.group(1).rstrip()
            if current is not None:
                current += " " + text
            else:
                current = text
            if current.endswith("\\"):
                current = current[:-1]
                continue
            lines.append(current)
            current = None
    return lines


def flag_sets(path):
    """Distinct compile-flag sets of the GPU compiles in `path`'s RUN lines."""
    sets = set()
    for line in run_lines(path):
        for cmd in line.split("|"):
            try:
                words = shlex.split(cmd)
            except ValueError:
                continue
            tools = [i for i, w in enumerate(words)
                     if w in ("stc-run", "stc-compile")]
            if not tools or "%s" not in words:
                continue
            flags = [w for w in words[tools[0] + 1:] if GPU_FLAG.match(w)]
            gpu = "--device=emulate" in words or "--device=cuda" in words or \
                any(w.startswith("--target=sm_") for w in words)
            if not gpu:
                continue
            if not any(w.startswith("--target=") for w in flags):
                flags.append("--target=sm_80" if "--device=cuda" not in words
                             else "--target=sm_90")
            if any("%" in w for w in flags):
                continue
            sets.add(tuple(sorted(flags)))
    return sorted(sets)


def jobs_for_tests():
    jobs = []
    for d in TEST_DIRS:
        for dirpath, _, files in os.walk(os.path.join(ROOT, d)):
            for name in sorted(files):
                if not name.endswith(".mlir"):
                    continue
                path = os.path.join(dirpath, name)
                for flags in flag_sets(path):
                    jobs.append((os.path.relpath(path, ROOT), list(flags)))
    # The examples also for both GPU families, as run-example.sh would.
    for name in sorted(os.listdir(os.path.join(ROOT, "examples"))):
        if name.endswith(".mlir"):
            for target in ("sm_80", "sm_90a"):
                jobs.append(("examples/" + name,
                             ["--sparsity=force", "--target=" + target]))
    return jobs


def bench_programs(work, stc_compile):
    """Writes the benchmark's programs into `work` with its own generators
    (their build steps compile too; only the .mlir files are used here)."""
    env = dict(os.environ, STC_COMPILE=stc_compile, STC_GPU_TARGET_SM90A="none",
               GPU_BENCH_WORK=os.path.join(work, "gemm"),
               GPU_CONV_WORK=os.path.join(work, "conv"))
    out = []
    for step, sub in (("build", "gemm"), ("build-conv", "conv")):
        subprocess.run(["bash", os.path.join(ROOT, "bench/run_gpu_bench.sh"),
                        step], env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        for dirpath, _, files in os.walk(os.path.join(work, sub)):
            for name in files:
                if name.endswith(".mlir"):
                    out.append(os.path.join(dirpath, name))
    return sorted(out)


def compile_one(build, src, flags, out_dir, label):
    """Compiles `src` with `flags`; `label` (src relative to its root) names
    the outputs, so that snapshots taken in different places compare."""
    key = hashlib.sha1((label + " " + " ".join(flags)).encode()).hexdigest()[:10]
    base = os.path.join(out_dir, re.sub(r"[^A-Za-z0-9_.-]", "_", label) + "." +
                        key)
    stc = os.path.join(build, "bin", "stc-compile")
    with open(base + ".flags", "w") as f:
        f.write(label + " " + " ".join(flags) + "\n")
    for emit, suffix in (("ptx", ".ptx"), ("llvm", ".ll")):
        args = [stc, src if os.path.isabs(src) else os.path.join(ROOT, src),
                "--emit=" + emit, "-o", base + suffix] + flags
        if emit == "ptx":
            args.append("--kernel-info=" + base + ".json")
        r = subprocess.run(args, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, universal_newlines=True,
                           cwd=ROOT)
        if r.returncode != 0:
            with open(base + suffix + ".err", "w") as f:
                f.write(r.stdout)
    return base


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()
    a.build = os.path.abspath(a.build)
    os.makedirs(a.out, exist_ok=True)
    jobs = jobs_for_tests()
    if not a.quick:
        stc = os.path.join(a.build, "bin", "stc-compile")
        # One fixed place for the benchmark's programs: their path is in the
        # host code (error locations), so two snapshots must use the same.
        work = os.path.join(os.environ.get("TMPDIR", "/tmp"),
                            "stc-codegen-snapshot-programs")
        shutil.rmtree(work, ignore_errors=True)
        progs = bench_programs(work, stc)
        for p in progs:
            conv = "/conv/" in p
            jobs.append((p, ["--target=sm_90"] +
                         (["--sparsity=force"] if conv else [])))
            jobs.append((p, ["--target=sm_90a"] +
                         (["--sparsity=force"] if conv else [])))
            if re.search(r"(square-8192|llm-down-4096x11008-n4096)-(f16|i8)",
                         p):
                for s in SWEEP:
                    jobs.append((p, ["--target=sm_90a"] + s))
    kernels = os.path.join(a.out, "kernels")
    os.makedirs(kernels, exist_ok=True)
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        list(pool.map(lambda j: compile_one(
            a.build, j[0], j[1], kernels,
            "bench/" + os.path.relpath(j[0], work) if os.path.isabs(j[0])
            else j[0]),
            jobs))
    print("codegen-snapshot: %d compiles into %s" % (len(jobs), kernels))
    return 0


if __name__ == "__main__":
    sys.exit(main())
