"""The mutation fuzzer of docs/RELIABILITY.md: mutates the project's own
.mlir tests and examples and runs each mutant through a tool, looking for
crashes (a signal, "PLEASE submit a bug report", "LLVM ERROR", a sanitizer
report, a crash contained in one of STC's passes), hangs (past --timeout)
and errors printed with exit status 0. Crashes the tools contained in
upstream code (an MLIR pass, the parser; compiler/lib/CrashContainment.h)
are counted apart, as contained-upstream-crash, and kept for a report. A
mutant that times out is run again unmutated: when the program it came
from takes as long (a 4096^3 product on the emulator), it is counted apart
as slow-program, not as a hang the mutation caused.

Each mutant is a function of (--seed, its index): a test or example program
(at most 256 KiB; one part of a split file), one to three mutations (a line
dropped, duplicated or swapped with another; a number replaced by 0, -1, 1,
2^31, 2^32 or 2^40; an element type swapped for another), and one of the
invocations below. Findings are copied to --out with the command that
shows them; the summary (JSON, with the counts by kind) is printed and
written to --out/summary.json.

usage: mutate_tools.py --bin BUILD/bin --src SOURCE_ROOT --out DIR
                       [--mutants N] [--first I] [--seed S] [--jobs J]
                       [--timeout SECONDS]"""
import argparse
import concurrent.futures
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

INVOCATIONS = [
    ("stc-opt-cpu", ["stc-opt", "{in}", "--stc-pipeline=sparsity=force",
                     "-o", "{tmp}/out.mlir"]),
    ("stc-opt-sm90a", ["stc-opt", "{in}",
                       "--stc-pipeline=target=sm_90a sparsity=force",
                       "-o", "{tmp}/out.mlir"]),
    ("stc-opt-explicit", ["stc-opt", "{in}", "--stc-pipeline=",
                          "-o", "{tmp}/out.mlir"]),
    ("stc-compile-ptx-sm80", ["stc-compile", "{in}", "--target=sm_80",
                              "--sparsity=force", "--emit=ptx",
                              "-o", "{tmp}/out.ptx"]),
    ("stc-compile-ptx-sm90a", ["stc-compile", "{in}", "--target=sm_90a",
                               "--sparsity=force", "--emit=ptx",
                               "-o", "{tmp}/out.ptx"]),
    ("stc-run-cpu", ["stc-run", "{in}", "--device=cpu", "--random-inputs",
                     "--sparsity=force", "--output={tmp}/out.npy"]),
    ("stc-run-emulate", ["stc-run", "{in}", "--device=emulate",
                         "--random-inputs", "--sparsity=force"]),
]

TYPES = ["f32", "f16", "bf16", "i8", "i32", "i64", "index", "i1", "f64"]
NUMBERS = ["0", "-1", "1", "2147483648", "4294967296", "1099511627776"]
CRASH_MARKS = ["PLEASE submit a bug report", "LLVM ERROR", "Stack dump",
               "ERROR: AddressSanitizer", "ERROR: LeakSanitizer",
               "runtime error:", "ThreadSanitizer", "terminate called"]


def programs(src):
    found = []
    for base in ("test", "examples"):
        for dirpath, _, files in sorted(os.walk(os.path.join(src, base))):
            # Not the reproducers of known upstream crashes
            # (test/Tools/upstream-crashes.test): their mutants only find
            # them again.
            if "upstream" in dirpath.split(os.sep):
                continue
            for name in sorted(files):
                path = os.path.join(dirpath, name)
                if name.endswith(".mlir") and os.path.getsize(path) <= 256 * 1024:
                    text = open(path, encoding="utf-8").read()
                    for part in text.split("\n// -----\n"):
                        found.append((os.path.relpath(path, src), part))
    return found


def mutate(text, rng):
    lines = text.split("\n")
    for _ in range(rng.randint(1, 3)):
        kind = rng.randrange(6)
        i = rng.randrange(len(lines))
        if kind == 0 and len(lines) > 1:
            del lines[i]
        elif kind == 1:
            lines.insert(i, lines[i])
        elif kind == 2:
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif kind in (3, 4):
            # A number (in shapes, attributes, constants) on a line that has one.
            candidates = [k for k, l in enumerate(lines)
                          if re.search(r"\d", l) and not l.lstrip().startswith("//")]
            if candidates:
                k = rng.choice(candidates)
                spans = [m.span() for m in re.finditer(r"\d+", lines[k])]
                a, b = rng.choice(spans)
                lines[k] = lines[k][:a] + rng.choice(NUMBERS) + lines[k][b:]
        else:
            candidates = [k for k, l in enumerate(lines)
                          if re.search(r"\b(%s)\b" % "|".join(TYPES), l)]
            if candidates:
                k = rng.choice(candidates)
                spans = [m.span() for m in
                         re.finditer(r"\b(%s)\b" % "|".join(TYPES), lines[k])]
                a, b = rng.choice(spans)
                lines[k] = lines[k][:a] + rng.choice(TYPES) + lines[k][b:]
    return "\n".join(lines)


def classify(rc, stderr, timed_out):
    if timed_out:
        return "hang"
    if rc < 0 or any(m in stderr for m in CRASH_MARKS):
        return "crash"
    # A crash the tools contained (compiler/lib/CrashContainment.h) is still
    # a crash when it happened in one of STC's own passes; in upstream code
    # (a pass of MLIR, the parser) it is counted apart, for a report.
    contained = re.search(r"error: .* crashed( in pass '([^']*)')? \(a bug", stderr)
    if contained:
        if contained.group(2) and contained.group(2).startswith("Stc"):
            return "crash"
        return "contained-upstream-crash"
    if rc == 0 and re.search(r"(^|: )error: ", stderr, re.M):
        return "error-but-exit-0"
    return None


def run_tool(template, path, tmp, args):
    """Runs one invocation on the program at `path`: (command, exit
    status, stderr, whether it timed out)."""
    cmd = [c.format(**{"in": path, "tmp": tmp}) for c in template]
    cmd[0] = os.path.join(os.path.abspath(args.bin), cmd[0])
    try:
        proc = subprocess.run(cmd, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, timeout=args.timeout,
                              cwd=tmp)
        return cmd, proc.returncode, proc.stderr.decode(errors="replace"), False
    except subprocess.TimeoutExpired as e:
        return cmd, -9, (e.stderr or b"").decode(errors="replace"), True


def run_one(index, args, pool):
    rng = random.Random("%d:%d" % (args.seed, index))
    origin, text = rng.choice(pool)
    mutant = mutate(text, rng)
    name, template = rng.choice(INVOCATIONS)
    tmp = tempfile.mkdtemp(prefix="stc-mutant-")
    try:
        path = os.path.join(tmp, "mutant.mlir")
        with open(path, "w", encoding="utf-8") as f:
            f.write(mutant)
        start = time.monotonic()
        cmd, rc, stderr, timed_out = run_tool(template, path, tmp, args)
        kind = classify(rc, stderr, timed_out)
        if kind == "hang":
            # The same invocation on the unmutated program: if that times out
            # too, the program is slow (a large product emulated instruction
            # by instruction), not hung by the mutation.
            original = os.path.join(tmp, "original.mlir")
            with open(original, "w", encoding="utf-8") as f:
                f.write(text)
            if run_tool(template, original, tmp, args)[3]:
                kind = "slow-program"
        result = {"index": index, "origin": origin, "invocation": name,
                  "rc": rc, "seconds": round(time.monotonic() - start, 3),
                  "kind": kind}
        if kind:
            dest = os.path.join(args.out, "%s-%06d" % (kind, index))
            os.makedirs(dest, exist_ok=True)
            shutil.copy(path, os.path.join(dest, "mutant.mlir"))
            with open(os.path.join(dest, "command.txt"), "w") as f:
                f.write(" ".join(cmd).replace(path, "mutant.mlir") + "\n")
            with open(os.path.join(dest, "stderr.txt"), "w") as f:
                f.write(stderr[-20000:])
            result["stderr_tail"] = stderr[-400:]
        return result
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--src", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--mutants", type=int, default=10000)
    parser.add_argument("--first", type=int, default=0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=60.0)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    pool = programs(args.src)
    counts = {"crash": 0, "hang": 0, "error-but-exit-0": 0,
              "contained-upstream-crash": 0, "slow-program": 0}
    by_invocation = {}
    findings = []
    start = time.monotonic()
    log = open(os.path.join(args.out, "progress.jsonl"), "a")
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as executor:
        futures = [executor.submit(run_one, i, args, pool)
                   for i in range(args.first, args.first + args.mutants)]
        for done, future in enumerate(concurrent.futures.as_completed(futures), 1):
            r = future.result()
            log.write(json.dumps(r) + "\n")
            log.flush()
            by_invocation[r["invocation"]] = by_invocation.get(r["invocation"], 0) + 1
            if r["kind"]:
                counts[r["kind"]] += 1
                findings.append(r)
    summary = {"mutants": args.mutants, "first": args.first, "seed": args.seed,
               "programs": len(pool), "seconds": round(time.monotonic() - start),
               "counts": counts, "by_invocation": by_invocation,
               "findings": sorted(findings, key=lambda r: r["index"])}
    with open(os.path.join(args.out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    print(json.dumps({k: v for k, v in summary.items() if k != "findings"}))
    failed = counts["crash"] + counts["hang"] + counts["error-but-exit-0"]
    return 0 if not failed else 1


if __name__ == "__main__":
    sys.exit(main())
