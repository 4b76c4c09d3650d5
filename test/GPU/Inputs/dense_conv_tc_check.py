"""Dense convolutions for the GPU's tensor-core kernel (the implicit GEMM
with a dense filter), checked against a float64 NumPy convolution.

usage: dense_conv_tc_check.py STC_RUN WORKDIR [stc-run arguments]
       dense_conv_tc_check.py --emit-mlir FILE

Writes the program (dense-conv-tc.mlir in WORKDIR: one function per case,
constant filters as hex data), runs every case through stc-run and prints
`dense conv ENTRY max_rel_err E OK` (or FAIL, exit 1). The cases cover the
layouts stc-sparsify-convolutions brings to NHWC (NCHW/FCHW, NHWC/HWCF,
grouped NGCHW/GFCHW) and the NHWC/FHWC form itself, argument and constant
filters, a zero pad in front of the input (NCHW and NHWC), strides,
dilations, a dynamic batch, an init that is added (beta = 1), f16 and bf16
operands with f16, bf16 and f32 results, and channel counts for both the
mma.sync kernel (C = 8, 16) and the sm_90a wgmma one (C = 64, 128); NCHW
stems (C = 3) get their channels zero-padded to 8 by the input's
transpose, an NHWC input with C = 12 to 16 by a copy through the pad,
two groups of 12 to 16 each.
"""
import os
import subprocess
import sys

import numpy as np


def bf16_round(a):
    """float32 values rounded to the nearest bfloat16 (ties to even)."""
    bits = np.asarray(a, np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return bits.astype(np.uint32).view(np.float32)


# name: layout, in/out element types, N (negative: dynamic), G, C, F, H, W,
# KH, KW, stride, dilation, pad (H, W), constant filter, init added
CASES = {
    "nchw_c16": dict(layout="nchw_fchw", dt="f16", out="f16", n=-3, g=1, c=16,
                     f=24, h=10, w=9, k=(3, 3), s=1, d=1, pad=(1, 1),
                     const=False, init=False),
    "hwcf_c64": dict(layout="nhwc_hwcf", dt="f16", out="f32", n=2, g=1, c=64,
                     f=32, h=9, w=9, k=(3, 3), s=2, d=1, pad=(1, 1),
                     const=True, init=False),
    "grouped_bf16": dict(layout="ngchw_gfchw", dt="bf16", out="f32", n=2, g=2,
                         c=8, f=16, h=11, w=9, k=(3, 3), s=2, d=2, pad=(0, 0),
                         const=False, init=True),
    "nhwc_1x1": dict(layout="nhwc_fhwc", dt="f16", out="f16", n=4, g=1, c=128,
                     f=64, h=7, w=7, k=(1, 1), s=1, d=1, pad=(0, 0),
                     const=True, init=False),
    "stem_c3": dict(layout="nchw_fchw", dt="f16", out="f16", n=1, g=1, c=3,
                    f=8, h=12, w=12, k=(7, 7), s=2, d=1, pad=(3, 3),
                    const=False, init=False),
    "stem_const": dict(layout="nchw_fchw", dt="bf16", out="f32", n=-2, g=1,
                       c=3, f=16, h=15, w=13, k=(7, 7), s=2, d=1,
                       pad=(3, 3), const=True, init=False),
    "grouped_c12": dict(layout="ngchw_gfchw", dt="f16", out="f16", n=2, g=2,
                        c=12, f=8, h=7, w=7, k=(3, 3), s=1, d=1, pad=(0, 0),
                        const=True, init=False),
    "nhwc_c12": dict(layout="nhwc_hwcf", dt="f16", out="f16", n=2, g=1, c=12,
                     f=8, h=6, w=6, k=(3, 3), s=1, d=1, pad=(1, 1),
                     const=False, init=False),
}

MLIR_TYPES = {"f16": "f16", "bf16": "bf16", "f32": "f32"}


def shapes(cs):
    """Input, filter and output shapes in the case's own layout."""
    n = abs(cs["n"])
    g, c, f, h, w = cs["g"], cs["c"], cs["f"], cs["h"], cs["w"]
    kh, kw = cs["k"]
    ph, pw = cs["pad"]
    s, d = cs["s"], cs["d"]
    oh = (h + 2 * ph - d * (kh - 1) - 1) // s + 1
    ow = (w + 2 * pw - d * (kw - 1) - 1) // s + 1
    lay = cs["layout"]
    if lay == "nchw_fchw":
        return (n, c, h, w), (f, c, kh, kw), (n, f, oh, ow)
    if lay == "nhwc_hwcf":
        return (n, h, w, c), (kh, kw, c, f), (n, oh, ow, f)
    if lay == "nhwc_fhwc":
        return (n, h, w, c), (f, kh, kw, c), (n, oh, ow, f)
    assert lay == "ngchw_gfchw"
    return (n, g, c, h, w), (g, f, c, kh, kw), (n, g, f, oh, ow)


def to_canonical(cs, x, wt):
    """The input as N x G x C x H x W, the filter as G x F x C x KH x KW."""
    lay = cs["layout"]
    if lay == "nchw_fchw":
        return x[:, None], wt[None]
    if lay == "nhwc_hwcf":
        return (x.transpose(0, 3, 1, 2)[:, None],
                wt.transpose(3, 2, 0, 1)[None])
    if lay == "nhwc_fhwc":
        return x.transpose(0, 3, 1, 2)[:, None], wt.transpose(0, 3, 1, 2)[None]
    return x, wt


def from_canonical(cs, y):
    """N x G x F x OH x OW to the case's own result layout."""
    lay = cs["layout"]
    if lay == "nchw_fchw":
        return y[:, 0]
    if lay in ("nhwc_hwcf", "nhwc_fhwc"):
        return y[:, 0].transpose(0, 2, 3, 1)
    return y


def reference(cs, x, wt):
    xc, wc = to_canonical(cs, x.astype(np.float64), wt.astype(np.float64))
    ph, pw = cs["pad"]
    s, d = cs["s"], cs["d"]
    xp = np.pad(xc, ((0, 0), (0, 0), (0, 0), (ph, ph), (pw, pw)))
    g, f, _, kh, kw = wc.shape
    oh = (xp.shape[3] - d * (kh - 1) - 1) // s + 1
    ow = (xp.shape[4] - d * (kw - 1) - 1) // s + 1
    out = np.zeros((xc.shape[0], g, f, oh, ow))
    for i in range(kh):
        for j in range(kw):
            patch = xp[:, :, :, i * d:i * d + s * (oh - 1) + 1:s,
                       j * d:j * d + s * (ow - 1) + 1:s]
            out += np.einsum("ngchw,gfc->ngfhw", patch, wc[:, :, :, i, j])
    return from_canonical(cs, out)


def type_str(shape, et, dynamic_batch=False):
    dims = ["?" if (i == 0 and dynamic_batch) else str(v)
            for i, v in enumerate(shape)]
    return "tensor<" + "x".join(dims) + "x" + MLIR_TYPES[et] + ">"


def hex_data(a, et):
    if et == "f16":
        raw = a.astype(np.float16).tobytes()
    else:  # bf16: the upper half of each f32
        raw = (a.astype(np.float32).view(np.uint32) >> 16).astype(
            np.uint16).tobytes()
    return "0x" + raw.hex().upper()


def emit_function(name, cs, wdata):
    xs, fs, ys = shapes(cs)
    dyn = cs["n"] < 0
    et, ot = cs["dt"], cs["out"]
    xt = type_str(xs, et, dyn)
    ft = type_str(fs, et)
    yt = type_str(ys, ot, dyn)
    lay = cs["layout"]
    args = ["%x: " + xt]
    if not cs["const"]:
        args.append("%w: " + ft)
    if cs["init"]:
        args.append("%acc: " + yt)
    lines = ["func.func @%s(%s) -> %s {" % (name, ", ".join(args), yt)]
    zero = "0.0 : " + MLIR_TYPES[et]
    lines.append("  %%zi = arith.constant %s" % zero)
    lines.append("  %%zo = arith.constant 0.0 : %s" % MLIR_TYPES[ot])
    if cs["const"]:
        lines.append('  %%w = arith.constant dense<"%s"> : %s'
                     % (hex_data(wdata, et), ft))
    x = "%x"
    ph, pw = cs["pad"]
    if ph or pw:
        rank = len(xs)
        low = [0] * rank
        hdim, wdim = (2, 3) if lay == "nchw_fchw" else (1, 2)
        low[hdim], low[wdim] = ph, pw
        padded = list(xs)
        padded[hdim] += 2 * ph
        padded[wdim] += 2 * pw
        pt = type_str(padded, et, dyn)
        idx = ", ".join("%%i%d: index" % i for i in range(rank))
        lines.append("  %%p = tensor.pad %%x low[%s] high[%s] {" %
                     (", ".join(map(str, low)), ", ".join(map(str, low))))
        lines.append("  ^bb0(%s):" % idx)
        lines.append("    tensor.yield %zi : " + MLIR_TYPES[et])
        lines.append("  } : %s to %s" % (xt, pt))
        x, xt = "%p", pt
    if cs["init"]:
        out = "%acc"
    else:
        if dyn:
            lines.append("  %c0 = arith.constant 0 : index")
            lines.append("  %%n = tensor.dim %%x, %%c0 : %s" %
                         type_str(xs, et, dyn))
            lines.append("  %%e = tensor.empty(%%n) : %s" % yt)
        else:
            lines.append("  %%e = tensor.empty() : %s" % yt)
        lines.append("  %%o = linalg.fill ins(%%zo : %s) outs(%%e : %s) -> %s"
                     % (MLIR_TYPES[ot], yt, yt))
        out = "%o"
    s, d = cs["s"], cs["d"]
    lines.append(
        "  %%y = linalg.conv_2d_%s {strides = dense<[%d, %d]> : "
        "tensor<2xi64>, dilations = dense<[%d, %d]> : tensor<2xi64>} "
        "ins(%s, %%w : %s, %s) outs(%s : %s) -> %s"
        % (lay, s, s, d, d, x, xt, ft, out, yt, yt))
    lines.append("  return %%y : %s" % yt)
    lines.append("}")
    return "\n".join(lines)


def make_data():
    rng = np.random.default_rng(11)
    data = {}
    for name, cs in CASES.items():
        xs, fs, ys = shapes(cs)
        rnd = ((lambda sh: bf16_round(rng.standard_normal(sh)))
               if cs["dt"] == "bf16" else
               (lambda sh: rng.standard_normal(sh).astype(np.float16)))
        x, w = rnd(xs), rnd(fs)
        acc = rng.standard_normal(ys).astype(np.float32) if cs["init"] else None
        data[name] = (x, w, acc)
    return data


def emit_mlir(path, data):
    with open(path, "w") as f:
        f.write("// Generated by dense_conv_tc_check.py.\n")
        for name, cs in CASES.items():
            f.write(emit_function(name, cs, data[name][1]) + "\n")


def main():
    data = make_data()
    if sys.argv[1] == "--emit-mlir":
        emit_mlir(sys.argv[2], data)
        return 0
    stc_run, work = sys.argv[1:3]
    rest = sys.argv[3:]
    os.makedirs(work, exist_ok=True)
    mlir = os.path.join(work, "dense-conv-tc.mlir")
    emit_mlir(mlir, data)
    failed = 0
    for name, cs in CASES.items():
        x, w, acc = data[name]
        ref = reference(cs, x, w)
        if acc is not None:
            ref = ref + acc
        paths = {}
        inputs = [("x", x)]
        if not cs["const"]:
            inputs.append(("w", w))
        if acc is not None:
            inputs.append(("acc", acc))
        args = [stc_run, mlir, "--entry=" + name]
        for tag, a in inputs:
            paths[tag] = os.path.join(work, "%s.%s.npy" % (name, tag))
            np.save(paths[tag], a)
            args.append("--input=" + paths[tag])
        ys = os.path.join(work, name + ".y.npy")
        np.save(ys, np.full(ref.shape, np.nan,
                            np.float16 if cs["out"] == "f16" else np.float32))
        run = subprocess.run(args + ["--output=" + ys] + rest,
                             capture_output=True, text=True)
        if run.returncode != 0:
            sys.stderr.write(run.stderr)
            print("dense conv", name, "stc-run failed FAIL")
            failed = 1
            continue
        y = np.load(ys).astype(np.float64)
        # One rounding of the result (f16: 2^-11, bf16: 2^-8) relative to
        # the largest output, plus f32 accumulation.
        tol = {"f16": 2e-3, "bf16": 1e-2, "f32": 1e-5}[cs["out"]]
        err = (np.abs(y - ref).max() / np.abs(ref).max()
               if y.shape == ref.shape else np.inf)
        ok = np.isfinite(err) and err < tol
        print("dense conv %s max_rel_err %.2e %s" % (name, err,
                                                   "OK" if ok else "FAIL"))
        failed |= not ok
    return failed


if __name__ == "__main__":
    sys.exit(main())
