#!/usr/bin/env python3
"""Static instruction counts of the generated kernels' K loops, without a GPU.

For each configuration (a program, a target and stc-compile flags) this
compiles the program to PTX with the build's stc-compile, assembles it with
a ptxas, disassembles it with cuobjdump, finds the innermost loop of each
kernel that holds tensor-core instructions (HMMA, the SASS of mma.sp and
mma.sync) and counts the instructions a K step executes on its cheapest path
that still issues a whole stage's cp.async copies (LDGSTS; the count
follows from the kernel info's tile and threads): the loop's steady state,
a step inside K whose copies run ahead. Fewer instructions per tensor-core
instruction is the point: an mma.sp kernel with few warps an SM issues its
address arithmetic from the same slots as its mma.sp.

The CUDA 13 toolkit of the build machines has ptxas but no cuobjdump or
nvdisasm, and Debian's CUDA 11.8 cuobjdump cannot read CUDA 13 cubins, so
both tools come from Debian's nvidia-cuda-toolkit 11.8 (non-free; its .deb
unpacked is enough, see --toolkit): the PTX is relabelled .version 7.8 and
compiled with plain mma.sp (--gpu-ordered-metadata=false, which PTX 7.8
lacks). Counts are therefore those of ptxas 11.8, not of the driver's
ptxas, and are only to be compared with counts of the same tool.

usage: sass_mainloop.py --stc-compile BIN --toolkit DIR --out FILE.json
                        [--commit C] [--only REGEX]
  DIR: a directory with bin/ptxas and bin/cuobjdump of CUDA 11.8 (the
  unpacked nvidia-cuda-toolkit .deb: DIR = <unpacked>/usr).
"""
import argparse
import collections
import datetime
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MM4096 = "test/Tools/Inputs/matmul-f16-4096.mlir"

# (name, program, target, flags). The 4096^3 f16 matmul takes the
# heuristic's 128 x 128 blocks of four 64 x 64 warps; the convolution is
# ResNet-50's l3 3x3 layer on the implicit-GEMM kernel (batch 32's 64 x
# 64 blocks, and the 128 x 128 blocks of larger batches).
CONFIGS = [
    ("mma-sp-default", MM4096, "sm_80", []),
    ("mma-sp-rows256", MM4096, "sm_80", ["--gpu-block-rows=256"]),
    ("mma-sp-k64", MM4096, "sm_80", ["--gpu-stage-k-steps=2"]),
    ("mma-sp-warps32", MM4096, "sm_80", ["--gpu-warp-rows=32", "--gpu-warp-cols=32"]),
    ("mma-sp-f16acc", MM4096, "sm_80", ["--gpu-accumulate=f16"]),
    ("mma-sync-dense", MM4096, "sm_80", ["--sparsity=explicit"]),
    ("mma-sp-conv3x3", "bench/static/conv-3x3-256.mlir", "sm_80", []),
    ("mma-sp-conv3x3-128", "bench/static/conv-3x3-256.mlir", "sm_80",
     ["--gpu-block-rows=128", "--gpu-block-cols=128"]),
]


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw)


def parse_sass(text):
    """kernel name -> [(address, instruction text)]"""
    kernels = {}
    for m in re.finditer(r"Function : (\S+)\n(.*?)(?=\n\s+Function :|\Z)", text, re.S):
        ins = []
        for line in m.group(2).splitlines():
            mm = re.match(r"\s+/\*([0-9a-f]{4,})\*/\s+(.*?);", line)
            if mm:
                ins.append((int(mm.group(1), 16), mm.group(2).strip()))
        kernels[m.group(1)] = ins
    return kernels


def opcode(text):
    text = re.sub(r"^@!?U?P\w+\s+", "", text)
    return text.split()[0].split(".")[0]


def steady_step(ins, need):
    """The cheapest path through the innermost HMMA loop that issues at
    least `need` LDGSTS (a stage's copies; ptxas may predicate a branch's
    copies instead of branching around them, so a path can hold more):
    (instructions, opcode counts, loop size), or None without such a loop."""
    addr = {a: i for i, (a, _) in enumerate(ins)}

    def target(t):
        b = re.search(r"\bBRA\s+(?:\S*\s+)?0x([0-9a-f]+)", t)
        return addr.get(int(b.group(1), 16)) if b else None

    best = None
    for i, (_, t) in enumerate(ins):
        tg = target(t)
        if tg is not None and tg < i and any("HMMA" in x for _, x in ins[tg:i + 1]):
            if best is None or i - tg < best[1] - best[0]:
                best = (tg, i)
    if best is None:
        return None
    s, e = best
    leaders = {s}
    for i in range(s, e + 1):
        tg = target(ins[i][1])
        if tg is not None and s <= tg <= e:
            leaders.add(tg)
        if re.search(r"\b(BRA|EXIT)\b", ins[i][1]):
            leaders.add(i + 1)
    leaders = sorted(x for x in leaders if s <= x <= e)
    blocks = {}
    for j, x in enumerate(leaders):
        blocks[x] = (x, leaders[j + 1] if j + 1 < len(leaders) else e + 1)

    def succ(x):
        a, b = blocks[x]
        last = ins[b - 1][1]
        out = []
        tg = target(last)
        if tg is not None and s < tg <= e:
            out.append(tg)
        if not re.match(r"^BRA\b", last) and b <= e:
            out.append(b)
        return out

    def copies(x):
        a, b = blocks[x]
        return sum("LDGSTS" in ins[i][1] for i in range(a, b))

    memo = {}

    def cost(x, need):
        key = (x, need)
        if key not in memo:
            a, b = blocks[x]
            left = max(0, need - copies(x))
            nxt = succ(x)
            if b - 1 == e or not nxt:
                memo[key] = (b - a) if left == 0 else float("inf")
            else:
                memo[key] = (b - a) + min(cost(y, left) for y in nxt)
        return memo[key]

    n = cost(s, need)
    ops = collections.Counter()
    x, left = s, need
    while True:
        a, b = blocks[x]
        for i in range(a, b):
            ops[opcode(ins[i][1])] += 1
        left = max(0, left - copies(x))
        nxt = succ(x)
        if b - 1 == e or not nxt:
            break
        x = min(nxt, key=lambda y: cost(y, left))
    return n, dict(ops.most_common()), e - s + 1


def stage_copies(kernel, flags):
    """A thread's 16-byte cp.async copies a stage: A's rows (2 chunks of
    stored values a K step, 4 for a dense A) and B's columns (4 chunks)."""
    rows, cols = kernel["tile"]
    k_steps = 2 if "--gpu-stage-k-steps=2" in flags else 1
    a_chunks = 4 if kernel["meta_layout"] == "none" else 2
    threads = kernel["block"][0]
    return (rows * a_chunks + cols * 4) * k_steps // threads


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--stc-compile", required=True)
    ap.add_argument("--toolkit", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--commit", default="")
    ap.add_argument("--only", default="")
    ap.add_argument("--root", default=ROOT,
                    help="the checkout whose test programs to compile")
    args = ap.parse_args()
    ptxas = os.path.join(args.toolkit, "bin", "ptxas")
    cuobjdump = os.path.join(args.toolkit, "bin", "cuobjdump")
    for tool in (ptxas, cuobjdump):
        if not os.access(tool, os.X_OK):
            sys.exit(f"sass_mainloop: no {tool} (see --toolkit)")
    version = run([ptxas, "--version"]).stdout.strip().splitlines()[-1]
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, program, target, flags in CONFIGS:
            if args.only and not re.search(args.only, name):
                continue
            ptx = os.path.join(tmp, name + ".ptx")
            cubin = os.path.join(tmp, name + ".cubin")
            info_json = os.path.join(tmp, name + ".json")
            sparsity = [] if any(f.startswith("--sparsity") for f in flags) \
                else ["--sparsity=force"]
            cmd = [args.stc_compile, os.path.join(args.root, program), *sparsity,
                   "--target=" + target, "--emit=ptx", "--gpu-ordered-metadata=false",
                   *flags, "-o", ptx, "--kernel-info=" + info_json]
            run(cmd)
            text = open(ptx).read()
            text = re.sub(r"^\.version .*$", ".version 7.8", text, flags=re.M)
            open(ptx, "w").write(text)
            kernels = {k["kernel"]: k for k in json.load(open(info_json))}
            info = run([ptxas, "-arch=" + target, "-v", ptx, "-o", cubin]).stderr
            regs = dict(re.findall(r"Compiling entry function '(\S+)'.*?Used (\d+) registers",
                                   info, re.S))
            sass = parse_sass(run([cuobjdump, "-sass", cubin]).stdout)
            for kernel, ins in sass.items():
                if kernel not in kernels:
                    continue
                step = steady_step(ins, stage_copies(kernels[kernel], flags))
                if step is None:
                    continue
                n, ops, loop = step
                hmma = ops.get("HMMA", 0)
                results.append({
                    "config": name, "kernel": kernel, "target": target,
                    "flags": " ".join(flags), "registers": int(regs.get(kernel, 0)),
                    "step_instructions": n, "hmma": hmma,
                    "other_per_hmma": round((n - hmma) / hmma, 3) if hmma else None,
                    "loop_instructions": loop, "opcodes": ops})
                print(f"{name:16s} {kernel:14s} regs {regs.get(kernel, '?'):>3s}  "
                      f"step {n:4d} instructions, {hmma} HMMA, "
                      f"{(n - hmma) / max(hmma, 1):.2f} others each (loop {loop})")
    out = {
        "kind": "static-sass-mainloop",
        "utc": datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ"),
        "commit": args.commit,
        "tools": {"ptxas": version, "cuobjdump": "CUDA 11.8 (Debian nvidia-cuda-toolkit)"},
        "method": __doc__.strip().splitlines()[0],
        "results": results,
    }
    with open(args.out, "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
