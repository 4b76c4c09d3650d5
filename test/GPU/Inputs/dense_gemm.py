"""Dense contractions on the tensor-core kernel, checked against NumPy.

Writes one program per case (a linalg.generic matrix product in each
operand orientation, batched or not, with a zero-filled or a given initial
result, f16 or bf16 operands, f32 or f16 results), runs it with stc-run on
the emulator, and compares with a float64 product of the same inputs. Each
case must also report (with --remarks) that it ran on the tensor cores.
bf16 inputs travel as f32 .npy files holding bf16-exact values.

usage: dense_gemm.py STC_RUN OUT_DIR [DEVICE [stc-run flags...]]
         (DEVICE: emulate, or cuda; the flags go to every run, e.g. a
         --target)
       dense_gemm.py --write-only OUT_DIR   (the programs only)
"""
import os
import subprocess
import sys

import numpy as np

STC_RUN, OUT = sys.argv[1], sys.argv[2]
DEVICE = sys.argv[3] if len(sys.argv) > 3 else "emulate"
COMMON_FLAGS = [f for f in sys.argv[4:] if f]
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
         acc=False, flags=()):
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
    ok = tensor_cores and err <= tol
    print(f"{name}: tensor_cores={tensor_cores} max relative error "
          f"{err:.2e} (tolerance {tol:.0e}) {'ok' if ok else 'FAILED'}")
    return ok


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
