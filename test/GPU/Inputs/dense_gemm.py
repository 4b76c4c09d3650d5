"""Dense contractions on the tensor-core kernel, checked against NumPy.

Writes one program per case (a linalg.generic matrix product in each
operand orientation, batched or not, with a zero-filled or a given initial
result, f16 or bf16 operands, f32 or f16 results), runs it with stc-run on
the emulator, and compares with a float64 product of the same inputs. Each
case must also report (with --remarks) that it ran on the tensor cores.
bf16 inputs travel as f32 .npy files holding bf16-exact values.

With --cases=wgmma (before STC_RUN) the cases are those of the sm_90a
kernel with a dense A (run them with --target=sm_90a): its tiles, clusters,
multicast of B, ring depths, both orientations of B, a transposed product
and batches; each must report the wgmma kernel, and a batch that asks for
a cluster the mma.sync one.

usage: dense_gemm.py [--cases=wgmma] STC_RUN OUT_DIR [DEVICE [stc-run flags...]]
         (DEVICE: emulate, or cuda; the flags go to every run, e.g. a
         --target)
       dense_gemm.py --write-only OUT_DIR   (the programs only)
"""
import os
import subprocess
import sys

import numpy as np

ARGS = sys.argv[1:]
CASES = "mma_sync"
if ARGS and ARGS[0].startswith("--cases="):
    CASES = ARGS.pop(0)[len("--cases="):]
STC_RUN, OUT = ARGS[0], ARGS[1]
DEVICE = ARGS[2] if len(ARGS) > 2 else "emulate"
COMMON_FLAGS = [f for f in ARGS[3:] if f]
os.makedirs(OUT, exist_ok=True)
RNG = np.random.default_rng(20261127)


def tensor(shape, t):
    return "tensor<" + "x".join(map(str, shape)) + "x" + t + ">"


def to_bf16_exact(x):
    bits = np.asarray(x, np.float32).view(np.uint32)
    # round to nearest even on the upper 16 bits
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return bits.astype(np.uint32).view(np.float32)


def case(name, m, n, k, a_t=False, b_t=False, dt="f16", ot="f32", batch=0,
         acc=False, flags=(), kernel=None):
    lead = [batch] if batch else []
    bd = "b, " if batch else ""
    loops = bd + "m, n, k"
    amap = f"({loops}) -> ({bd}k, m)" if a_t else f"({loops}) -> ({bd}m, k)"
    bmap = f"({loops}) -> ({bd}n, k)" if b_t else f"({loops}) -> ({bd}k, n)"
    omap = f"({loops}) -> ({bd}m, n)"
    ashape = lead + ([k, m] if a_t else [m, k])
    bshape = lead + ([n, k] if b_t else [k, n])
    oshape = lead + [m, n]
    iters = ", ".join(['"parallel"'] * (len(lead) + 2) + ['"reduction"'])
    widen = dt != ot
    args = f"%a: {tensor(ashape, dt)}, %b: {tensor(bshape, dt)}"
    if acc:
        args += f", %c: {tensor(oshape, ot)}"
        init, fill = "%c", ""
    else:
        init = "%f"
        fill = (f"  %z = arith.constant 0.0 : {ot}\n"
                f"  %e = tensor.empty() : {tensor(oshape, ot)}\n"
                f"  %f = linalg.fill ins(%z : {ot}) outs(%e : {tensor(oshape, ot)}) -> {tensor(oshape, ot)}\n")
    body = ""
    x, y = "%x", "%y"
    if widen:
        body = (f"      %xw = arith.extf %x : {dt} to {ot}\n"
                f"      %yw = arith.extf %y : {dt} to {ot}\n")
        x, y = "%xw", "%yw"
    program = (
        f"func.func @main({args}) -> {tensor(oshape, ot)} {{\n{fill}"
        f"  %r = linalg.generic {{indexing_maps = [affine_map<{amap}>, "
        f"affine_map<{bmap}>, affine_map<{omap}>], iterator_types = [{iters}]}}\n"
        f"      ins(%a, %b : {tensor(ashape, dt)}, {tensor(bshape, dt)}) "
        f"outs({init} : {tensor(oshape, ot)}) {{\n"
        f"    ^bb0(%x: {dt}, %y: {dt}, %o: {ot}):\n{body}"
        f"      %p = arith.mulf {x}, {y} : {ot}\n"
        f"      %s = arith.addf %o, %p : {ot}\n"
        f"      linalg.yield %s : {ot}\n"
        f"  }} -> {tensor(oshape, ot)}\n"
        f"  return %r : {tensor(oshape, ot)}\n}}\n")
    path = os.path.join(OUT, name + ".mlir")
    with open(path, "w") as f:
        f.write(program)
    if STC_RUN == "--write-only":
        return True

    def operand(shape):
        x = RNG.standard_normal(shape)
        return to_bf16_exact(x) if dt == "bf16" else x.astype(np.float16)

    inputs = [operand(ashape), operand(bshape)]
    if acc:
        c = RNG.standard_normal(oshape)
        inputs.append(c.astype(np.float16 if ot == "f16" else np.float32))
    cmd = [STC_RUN, path, "--device=" + DEVICE, "--remarks", *COMMON_FLAGS,
           *flags]
    for i, x in enumerate(inputs):
        p = os.path.join(OUT, f"{name}.in{i}.npy")
        np.save(p, x)
        cmd.append("--input=" + p)
    out = os.path.join(OUT, name + ".out.npy")
    cmd.append("--output=" + out)
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        print(f"{name}: stc-run failed:\n{run.stderr}")
        return False
    tensor_cores = "runs on the GPU's tensor cores as @stc_gemm_" in run.stderr
    # The kernel the remark names: "(wgmma, 128x256 tiles)".
    ran = ""
    for family in ("wgmma", "mma.sync"):
        if f"@stc_gemm_0 ({family}," in run.stderr:
            ran = family
    a = inputs[0].astype(np.float64)
    b = inputs[1].astype(np.float64)
    if a_t:
        a = np.swapaxes(a, -1, -2)
    if b_t:
        b = np.swapaxes(b, -1, -2)
    want = a @ b
    if acc:
        want = want + inputs[2].astype(np.float64)
    got = np.load(out).astype(np.float64)
    err = np.max(np.abs(got - want)) / np.max(np.abs(want))
    # f32 results: f32 accumulation of exact products; f16 results: one
    # rounding to f16 (f16 accumulators: one per K step of 16).
    tol = 2e-3 if ot == "f16" else 1e-5
    ok = tensor_cores and err <= tol and (kernel is None or ran == kernel)
    print(f"{name}: tensor_cores={tensor_cores} kernel={ran} max relative "
          f"error {err:.2e} (tolerance {tol:.0e}) {'ok' if ok else 'FAILED'}")
    return ok


def wgmma_cases():
    """The sm_90a kernel with a dense A (--target=sm_90a)."""
    w = "wgmma"
    tile = lambda r, c: ["--gpu-block-rows=%d" % r, "--gpu-block-cols=%d" % c]
    return [
        # B k-major (N contiguous: MN-major in shared memory), ragged M, N
        # and K (TMA's zero fill), the heuristic's tile.
        case("w_nn", 96, 80, 72, kernel=w),
        # B given N x K (K-major), 2 consumer warpgroups, several K steps.
        case("w_nt", 136, 72, 200, b_t=True, flags=tile(128, 64), kernel=w),
        # A given K x M: B (N x K) plays S, the transpose is stored.
        case("w_tn", 72, 56, 136, a_t=True, b_t=True, kernel=w),
        # 256-row blocks (two 64-row tiles per consumer warpgroup), more K
        # steps than ring slots (the ring wraps), an initial result.
        case("w_256_acc", 264, 136, 320, acc=True,
             flags=tile(256, 128) + ["--gpu-wgmma-stages=2"], kernel=w),
        # 128 x 256: setmaxnreg moves registers to the consumers.
        case("w_128x256_bf16", 136, 264, 128, b_t=True, dt="bf16",
             flags=tile(128, 256), kernel=w),
        # A cluster of 2 sharing B by TMA multicast, both orientations.
        case("w_multicast", 200, 136, 192,
             flags=tile(64, 128) + ["--gpu-cluster-rows=2",
                                    "--gpu-tma-multicast"], kernel=w),
        case("w_multicast_nt", 200, 72, 136, b_t=True,
             flags=tile(64, 64) + ["--gpu-cluster-rows=2",
                                   "--gpu-tma-multicast"], kernel=w),
        # Grouped block order, f16 result.
        case("w_grouped_f16", 392, 200, 64, ot="f16",
             flags=tile(64, 64) + ["--gpu-group-rows=2"], kernel=w),
        # Batches: 4-D TMA maps, the block's matrix from grid y; B in
        # both orientations, an initial result, A transposed (B plays S).
        case("w_batch", 40, 24, 32, b_t=True, batch=3, kernel=w),
        case("w_batch_acc_bf16", 72, 136, 80, batch=2, acc=True, dt="bf16",
             flags=tile(64, 128), kernel=w),
        case("w_batch_tn", 136, 40, 72, a_t=True, b_t=True, batch=2,
             kernel=w),
        # A cluster asked for a batch: the mma.sync kernel.
        case("w_batch_cluster", 40, 24, 32, batch=2,
             flags=["--gpu-cluster-rows=2"], kernel="mma.sync"),
    ]


if CASES == "wgmma":
    sys.exit(0 if all(wgmma_cases()) else 1)

results = [
    case("nn", 96, 80, 64),
    # K not a multiple of 32 (the last K step zero-filled), M and N not of
    # the tile.
    case("nt", 70, 50, 40, b_t=True),
    # A given K x M: B (N x K) plays S, the transpose is stored.
    case("tn", 72, 50, 48, a_t=True, b_t=True),
    case("acc", 33, 136, 136, acc=True),
    case("f16_result", 64, 64, 256, b_t=True, ot="f16"),
    case("f16_accumulators", 64, 64, 64, ot="f16", flags=["--gpu-accumulate=f16"]),
    case("bf16", 48, 40, 72, b_t=True, dt="bf16"),
    case("batch", 40, 24, 32, b_t=True, batch=3),
    case("batch_acc_bf16", 20, 72, 24, batch=2, acc=True, dt="bf16"),
    # Several blocks each way: 128 x 128 tiles of 64 x 64 warps, and 64 x 128
    # of 32 x 64 warps with 2 stages of 2 K steps.
    case("blocks", 288, 264, 96, flags=["--gpu-block-rows=128", "--gpu-block-cols=128"]),
    case("pipeline", 136, 264, 160, b_t=True,
         flags=["--gpu-block-rows=64", "--gpu-block-cols=128", "--gpu-warp-rows=32",
                "--gpu-stages=2", "--gpu-stage-k-steps=2"]),
]
sys.exit(0 if all(results) else 1)
