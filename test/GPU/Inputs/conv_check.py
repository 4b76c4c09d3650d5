"""Runs one stc.conv program through stc-run and checks it against NumPy.

Writes an MLIR program whose entry prunes and compresses a random filter at
run time (so the metadata is non-uniform) and applies stc.conv with a bias
(and optionally a residual and ReLU), runs it with the given stc-run
arguments (e.g. --device=emulate), and compares the result with a direct
float64 convolution of the pruned filter: a loop over filter taps with
strided slices of the zero-padded input, independent of STC's im2col
order. Prints one line `conv ... relerr E OK` (or FAIL, exit 1).

usage: conv_check.py --stc-run PATH --work DIR --shape N,H,W,C,G,F
           --filter KH,KW [--stride S,S] [--dilation D,D]
           [--pad T,L,B,R] [--dtype f16|bf16|f32|i8] [--out f32|i8|i32]
           [--residual] [--relu] [--dynamic] [--seed S]
           -- [stc-run arguments]
f32 uses the 1:2 pattern (tf32 on a GPU), f16/bf16/i8 2:4.

i8 (quantized, a QDQ Conv): input and filter are int8 values with
distinct magnitudes in every group of four along the channels (so that
pruning has no ties), the product is exact in i32, and `--out` picks the
result: i32 (the accumulator, no epilogue), f32 (the scaling epilogue:
act(scale[o] * conv + bias[o] (+ residual)), a per-output-channel scale)
or i8 (the same epilogue requantized: round half to even, saturate).
"""
import argparse
import os
import subprocess
import sys

import numpy as np


def bf16_round(a):
    """float32 values rounded to the nearest bfloat16 (ties to even)."""
    bits = np.asarray(a, np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return bits.astype(np.uint32).view(np.float32)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--stc-run", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--shape", required=True)
    ap.add_argument("--filter", required=True)
    ap.add_argument("--stride", default="1,1")
    ap.add_argument("--dilation", default="1,1")
    ap.add_argument("--pad", default="0,0,0,0")
    ap.add_argument("--dtype", default="f16")
    ap.add_argument("--out", default="f32")
    ap.add_argument("--residual", action="store_true")
    ap.add_argument("--relu", action="store_true")
    ap.add_argument("--dynamic", action="store_true")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("rest", nargs="*")
    a = ap.parse_args()
    n, h, w, c, g, f = map(int, a.shape.split(","))
    kh, kw = map(int, a.filter.split(","))
    sh, sw = map(int, a.stride.split(","))
    dh, dw = map(int, a.dilation.split(","))
    pt, pl, pb, pr = map(int, a.pad.split(","))
    keep, group = (1, 2) if a.dtype == "f32" else (2, 4)
    cp = -(-c // group) * group
    k = kh * kw * cp
    kpad = -(-k // (4 * group)) * (4 * group)
    oh = (h + pt + pb - dh * (kh - 1) - 1) // sh + 1
    ow = (w + pl + pr - dw * (kw - 1) - 1) // sw + 1
    dt = a.dtype
    quantized = dt == "i8"
    out = a.out if quantized else "f32"
    epilogue = out != "i32"
    rng = np.random.default_rng(a.seed)
    npy_type = {"f16": np.float16, "i8": np.int8}.get(dt, np.float32)
    rnd = (lambda s: bf16_round(rng.standard_normal(s))) if dt == "bf16" else (
        lambda s: rng.standard_normal(s).astype(npy_type))
    if quantized:
        rnd = lambda s: rng.integers(-127, 128, s).astype(np.int8)
    x = rnd((n, h, w, g * c))
    w4 = np.zeros((g * f, kh, kw, cp), npy_type)
    if quantized:
        # Distinct magnitudes 1..127 in each group of four channels, random
        # signs; padded channels stay zero.
        mags = np.argsort(rng.random((g * f, kh, kw, cp // 4, 127)),
                          axis=-1)[..., :4] + 1
        signs = rng.choice([-1, 1], mags.shape)
        w4[:] = (mags * signs).reshape(g * f, kh, kw, cp).astype(np.int8)
        w4[..., c:] = 0
    else:
        w4[..., :c] = rnd((g * f, kh, kw, c))
    wflat = w4.reshape(g * f, k)
    bias = rng.standard_normal(g * f).astype(np.float32)
    if quantized:
        bias *= 4
    # Per-output-channel scales that bring the i32 sums to order 1..100.
    scale = (rng.random(g * f) * 4e-4 + 1e-4).astype(np.float32)
    res = rng.standard_normal((n, oh, ow, g * f)).astype(np.float32)

    def t(*dims, elem=dt):
        return "tensor<" + "x".join(str(d) for d in dims) + "x" + elem + ">"

    xdims = ("?", "?", "?") if a.dynamic else (n, h, w)
    odims = ("?", "?", "?") if a.dynamic else (n, oh, ow)
    x_t, y_t = t(*xdims, g * c), t(*odims, g * f, elem=out)
    r_t = t(*odims, g * f, elem="f32")
    w_t, b_t = t(g * f, k), t(g * f, elem="f32")
    v_t, m_t = t(g * f, kpad * keep // group), t(g * f, kpad // (4 * group), elem="i16")
    nm = f"#stc.nm<{keep}:{group}>"
    args = [f"%x: {x_t}", f"%w: {w_t}"]
    if epilogue:
        args.append(f"%b: {b_t}")
    if a.residual:
        args.append(f"%r: {r_t}")
    if quantized and epilogue:
        args.append(f"%s: {b_t}")
    acc = f" acc(%r : {r_t})" if a.residual else ""
    bias_text = f" bias(%b : {b_t})" if epilogue else ""
    scale_text = f" scale(%s : {b_t})" if quantized and epilogue else ""
    attrs = [f"pattern = {nm}", f"filter_size = array<i64: {kh}, {kw}>",
             f"strides = array<i64: {sh}, {sw}>",
             f"dilations = array<i64: {dh}, {dw}>",
             f"pad_low = array<i64: {pt}, {pl}>",
             f"pad_high = array<i64: {pb}, {pr}>", f"groups = {g}"]
    if a.residual:
        attrs.append("beta = 1.0 : f64")
    if a.relu:
        attrs.append("activation = #stc.activation<relu>")
    program = f"""func.func @main({", ".join(args)}) -> {y_t} {{
  %p = stc.prune %w by {nm} along 1 : {w_t}
  %v, %m = stc.compress %p by {nm} along 1 : {w_t} -> {v_t}, {m_t}
  %y = stc.conv %v, %m, %x{bias_text}{acc}{scale_text}
      {{{", ".join(attrs)}}}
      : {v_t}, {m_t}, {x_t} -> {y_t}
  return %y : {y_t}
}}
"""
    os.makedirs(a.work, exist_ok=True)
    path = lambda name: os.path.join(a.work, name)
    with open(path("conv.mlir"), "w") as fh:
        fh.write(program)
    inputs = [("x", x), ("w", wflat)] + ([("b", bias)] if epilogue else []) + (
        [("r", res)] if a.residual else []) + (
        [("s", scale)] if quantized and epilogue else [])
    cmd = [a.stc_run, path("conv.mlir"), f"--output={path('y.npy')}"]
    for name, value in inputs:
        np.save(path(name + ".npy"), value)
        cmd.append(f"--input={path(name + '.npy')}")
    # Poison: a stale result must not pass.
    np.save(path("y.npy"), np.full((n, oh, ow, g * f), np.nan, np.float32)
            if out == "f32" else np.full((n, oh, ow, g * f), 77,
                                         {"i8": np.int8, "i32": np.int32}[out]))
    run = subprocess.run(cmd + a.rest, capture_output=True, text=True)
    if run.returncode != 0:
        sys.stderr.write(run.stderr)
        print("conv stc-run failed", run.returncode)
        return 1
    y = np.load(path("y.npy")).astype(np.float64)

    # Reference: prune each group of `group` along the flattened rows by
    # magnitude (ties to the lower index), then convolve tap by tap.
    grouped = wflat.astype(np.float64).reshape(g * f, -1, group)
    drop = np.argsort(-np.abs(grouped), axis=2, kind="stable")[:, :, keep:]
    pruned = grouped.copy()
    np.put_along_axis(pruned, drop, 0.0, axis=2)
    pruned = pruned.reshape(g * f, kh, kw, cp)[..., :c]
    xin = x.astype(np.float64)
    xpad = np.pad(xin, ((0, 0), (pt, pb), (pl, pr), (0, 0)))
    ref = np.zeros((n, oh, ow, g * f))
    for gi in range(g):
        for i in range(kh):
            for j in range(kw):
                patch = xpad[:, i * dh:i * dh + sh * (oh - 1) + 1:sh,
                             j * dw:j * dw + sw * (ow - 1) + 1:sw,
                             gi * c:(gi + 1) * c]
                ref[..., gi * f:(gi + 1) * f] += np.einsum(
                    "nhwc,fc->nhwf", patch, pruned[gi * f:(gi + 1) * f, i, j])
    if quantized and epilogue:
        ref *= scale.astype(np.float64)
    if epilogue:
        ref += bias
    if a.residual:
        ref += res
    if a.relu:
        ref = np.maximum(ref, 0)
    if out == "i8":
        ref = np.clip(np.rint(ref), -128, 127)
    # f32 runs as tf32 on a GPU (10-bit mantissas): docs/DESIGN.md §7. The
    # i32 accumulator is exact; f32 from it is rounded once; i8 may differ
    # by one where f32 and float64 round a value near a half differently.
    tol = {"f32": 2e-3, "i32": 0.0}.get(dt, 1e-2)
    if quantized:
        tol = {"i32": 0.0, "f32": 1e-5, "i8": 5e-3}[out]
    if y.shape != ref.shape:
        print("conv shape", y.shape, "expected", ref.shape, "FAIL")
        return 1
    err = np.linalg.norm(y - ref) / np.linalg.norm(ref)
    ok = np.isfinite(err) and (err <= tol if tol == 0.0 else err < tol)
    print(f"conv {a.shape} {a.filter} {dt}" + (f"->{out}" if quantized else "")
          + f" relerr {err:.2e}",
          "OK" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
