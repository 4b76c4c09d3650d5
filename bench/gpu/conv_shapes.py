"""Shapes and program text of the GPU convolution benchmark (docs/DESIGN.md
§8: "ResNet-50 3x3 and 1x1 convolutions at batch 32-256").

Every distinct convolution layer of ResNet-50 at 224x224 input, f16, NHWC
activations and FHWC (out, kh, kw, in) filters.

Source: K. He, X. Zhang, S. Ren, J. Sun, "Deep Residual Learning for Image
Recognition", CVPR 2016, Table 1 (the 50-layer column), in the form of
torchvision's `torchvision.models.resnet50` (`Bottleneck` with the stride on
the 3x3 convolution, "ResNet v1.5", and a 1x1 strided projection shortcut,
`downsample`, in the first block of every stage):

    conv1    7x7, 64, stride 2, pad 3                224 -> 112
    (maxpool 3x3 stride 2: 112 -> 56)
    layer1   3 x [1x1 64, 3x3 64, 1x1 256]            56
    layer2   4 x [1x1 128, 3x3 128, 1x1 512]          56 -> 28 (first 3x3 stride 2)
    layer3   6 x [1x1 256, 3x3 256, 1x1 1024]         28 -> 14
    layer4   3 x [1x1 512, 3x3 512, 1x1 2048]         14 -> 7
    + one 1x1 projection per stage (stride 1 in layer1, 2 after)

`layers` counts how many of ResNet-50's 53 convolutions have the shape (a
network total weights each shape by it). Layer1's conv3 (1x1 64->256) and
its projection shortcut have the same shape and are one row.

Pure Python: imported by the build step (no GPU, no torch) and by the run
step. The filter helpers work on NumPy arrays and on torch tensors.
"""

DTYPES = ("f16",)
BATCHES = (32, 256)


def _row(name, stage, h, c, f, k, stride, layers, where):
    pad = (k - 1) // 2  # ResNet's convolutions: "same" padding, symmetric
    return {"name": name, "stage": stage, "H": h, "W": h, "C": c, "F": f,
            "KH": k, "KW": k, "stride": stride, "pad": pad, "dilation": 1,
            "groups": 1, "layers": layers, "where": where}


#: Distinct ResNet-50 convolutions: (name, stage, input H=W, C in, F out,
#: kernel, stride, layers with this shape, where they are).
RESNET50 = (
    _row("conv1-7x7s2-3-64", "stem", 224, 3, 64, 7, 2, 1, "conv1"),
    _row("l1-1x1-64-64", "layer1", 56, 64, 64, 1, 1, 1, "layer1.0.conv1"),
    _row("l1-3x3-64-64", "layer1", 56, 64, 64, 3, 1, 3, "layer1.*.conv2"),
    _row("l1-1x1-64-256", "layer1", 56, 64, 256, 1, 1, 4,
         "layer1.*.conv3, layer1.0.downsample"),
    _row("l1-1x1-256-64", "layer1", 56, 256, 64, 1, 1, 2, "layer1.1-2.conv1"),
    _row("l2-1x1-256-128", "layer2", 56, 256, 128, 1, 1, 1, "layer2.0.conv1"),
    _row("l2-3x3s2-128-128", "layer2", 56, 128, 128, 3, 2, 1, "layer2.0.conv2"),
    _row("l2-1x1-128-512", "layer2", 28, 128, 512, 1, 1, 4, "layer2.*.conv3"),
    _row("l2-1x1s2-256-512", "layer2", 56, 256, 512, 1, 2, 1, "layer2.0.downsample"),
    _row("l2-1x1-512-128", "layer2", 28, 512, 128, 1, 1, 3, "layer2.1-3.conv1"),
    _row("l2-3x3-128-128", "layer2", 28, 128, 128, 3, 1, 3, "layer2.1-3.conv2"),
    _row("l3-1x1-512-256", "layer3", 28, 512, 256, 1, 1, 1, "layer3.0.conv1"),
    _row("l3-3x3s2-256-256", "layer3", 28, 256, 256, 3, 2, 1, "layer3.0.conv2"),
    _row("l3-1x1-256-1024", "layer3", 14, 256, 1024, 1, 1, 6, "layer3.*.conv3"),
    _row("l3-1x1s2-512-1024", "layer3", 28, 512, 1024, 1, 2, 1, "layer3.0.downsample"),
    _row("l3-1x1-1024-256", "layer3", 14, 1024, 256, 1, 1, 5, "layer3.1-5.conv1"),
    _row("l3-3x3-256-256", "layer3", 14, 256, 256, 3, 1, 5, "layer3.1-5.conv2"),
    _row("l4-1x1-1024-512", "layer4", 14, 1024, 512, 1, 1, 1, "layer4.0.conv1"),
    _row("l4-3x3s2-512-512", "layer4", 14, 512, 512, 3, 2, 1, "layer4.0.conv2"),
    _row("l4-1x1-512-2048", "layer4", 7, 512, 2048, 1, 1, 3, "layer4.*.conv3"),
    _row("l4-1x1s2-1024-2048", "layer4", 14, 1024, 2048, 1, 2, 1, "layer4.0.downsample"),
    _row("l4-1x1-2048-512", "layer4", 7, 2048, 512, 1, 1, 2, "layer4.1-2.conv1"),
    _row("l4-3x3-512-512", "layer4", 7, 512, 512, 3, 1, 2, "layer4.1-2.conv2"),
)

#: `build-conv --quick`: the stem, a 3x3, a strided 3x3 and a 1x1, batch 32.
QUICK = ("conv1-7x7s2-3-64", "l1-3x3-64-64", "l3-3x3s2-256-256", "l3-1x1-256-1024")


def out_size(n, k, stride, pad_lo, pad_hi, dilation):
    return (n + pad_lo + pad_hi - dilation * (k - 1) - 1) // stride + 1


def geometry(row, batch):
    """The full geometry of one program: the row plus N, OH, OW, Cp (C per
    group rounded up to 4, the filter matrix's channels), K = KH*KW*Cp (the
    flattened reduction), Kpad (K rounded up to 16: the canonical format's
    columns), the dense-equivalent flop count and the pads."""
    g = dict(row)
    g["N"] = batch
    p = g["pad"]
    g.update(pad_top=p, pad_bottom=p, pad_left=p, pad_right=p)
    g["OH"] = out_size(g["H"], g["KH"], g["stride"], p, p, g["dilation"])
    g["OW"] = out_size(g["W"], g["KW"], g["stride"], p, p, g["dilation"])
    cg = g["C"] // g["groups"]
    g["Cg"] = cg
    g["Cp"] = -(-cg // 4) * 4
    g["K"] = g["KH"] * g["KW"] * g["Cp"]
    g["Kpad"] = -(-g["K"] // 16) * 16
    g["R"] = g["F"] // g["groups"]
    g["P"] = batch * g["OH"] * g["OW"]
    # Dense-equivalent: 2 * N*OH*OW * F * KH*KW*(C per group).
    g["flop"] = 2 * g["P"] * g["F"] * g["KH"] * g["KW"] * cg
    return g


def key_geometry(c, name="conv"):
    """The geometry (as geometry() gives it) of a tuning key's "conv"
    object (docs/TUNING.md, "Keys": n, h, w, c, f, kh, kw, stride [h, w],
    pad [top, left, bottom, right], dilation [h, w], groups). The
    benchmark's geometry has one stride and one dilation for both axes: a
    key with two different ones is a ValueError."""
    sh, sw = c["stride"]
    dh, dw = c["dilation"]
    if sh != sw or dh != dw:
        raise ValueError("stride %s and dilation %s: the benchmark's convolutions have one "
                         "stride and one dilation for both axes" % (c["stride"], c["dilation"]))
    pt, pl, pb, pr = c["pad"]
    row = {"name": name, "stage": "tune", "H": c["h"], "W": c["w"], "C": c["c"], "F": c["f"],
           "KH": c["kh"], "KW": c["kw"], "stride": sh, "pad": pt, "dilation": dh,
           "groups": c["groups"], "layers": 1, "where": name}
    g = geometry(row, c["n"])
    if (pt, pl, pb, pr) != (pt,) * 4:
        g.update(pad_top=pt, pad_left=pl, pad_bottom=pb, pad_right=pr)
        g["OH"] = out_size(g["H"], g["KH"], sh, pt, pb, dh)
        g["OW"] = out_size(g["W"], g["KW"], sh, pl, pr, dh)
        g["P"] = g["N"] * g["OH"] * g["OW"]
        g["flop"] = 2 * g["P"] * g["F"] * g["KH"] * g["KW"] * g["Cg"]
    return g


def tune_line(g, dtype, out=None):
    """stc-tune's shape-list line of the geometry (docs/TUNING.md,
    "stc-tune": square stride, symmetric padding, one group)."""
    return "conv %d %d %d %d %d %d %d %d %d %s %s" % (
        g["N"], g["H"], g["W"], g["C"], g["F"], g["KH"], g["KW"], g["stride"], g["pad"],
        dtype, out or dtype)


def table(quick=False):
    """[(program name, geometry)] of a `build-conv [--quick]`, in run order."""
    rows = [r for r in RESNET50 if not quick or r["name"] in QUICK]
    out = []
    for batch in ((32,) if quick else BATCHES):
        for r in rows:
            out.append(("%s-b%d" % (r["name"], batch), geometry(r, batch)))
    return out


def check_geometry(g):
    """Reasons why the geometry does not suit the benchmark (empty: fine)."""
    why = []
    if g["C"] % g["groups"] or g["F"] % g["groups"]:
        why.append("C=%d or F=%d is not a multiple of groups=%d"
                   % (g["C"], g["F"], g["groups"]))
    if g["OH"] <= 0 or g["OW"] <= 0:
        why.append("empty output %dx%d" % (g["OH"], g["OW"]))
    if g["R"] % 8:
        why.append("F per group = %d is not a multiple of 8" % g["R"])
    return why


# ---------------------------------------------------------------------------
# The MLIR program (the form a frontend emits)
# ---------------------------------------------------------------------------

def _t(shape, elem):
    return "tensor<%sx%s>" % ("x".join(str(d) for d in shape), elem)


def program_text(name, g, dtype="f16"):
    """`@main(%x: NxHxWxC, %w: FxKHxKWxC) -> NxOHxOWxF`: zero padding as a
    tensor.pad in front (what torch-mlir and IREE's importers emit), a
    zero-filled init and linalg.conv_2d_nhwc_fhwc with strides and
    dilations. The filter is a function argument: with --sparsity=force STC
    prunes and compresses it at run time on the host, and the one GPU kernel
    (stc.conv's implicit GEMM) takes it compressed, which is what the
    benchmark passes it."""
    e = dtype
    n, h, w, c = g["N"], g["H"], g["W"], g["C"]
    f, kh, kw = g["F"], g["KH"], g["KW"]
    xt = _t((n, h, w, c), e)
    wt = _t((f, kh, kw, g["Cg"]), e)
    ot = _t((n, g["OH"], g["OW"], f), e)
    lines = [
        "// Generated by bench/gpu/build_conv_programs.py: %s, %s." % (name, dtype),
        "// ResNet-50 %s (%s): %dx%d conv, stride %d, pad %d, %d -> %d channels,"
        % (g["where"], g["stage"], kh, kw, g["stride"], g["pad"], c, f),
        "// input %s NHWC, filter %s FHWC (pruned 2:4 along C with" % (xt, wt),
        "// --sparsity=force), output %s NHWC." % ot,
        "func.func @main(%%x: %s, %%w: %s) -> %s {" % (xt, wt, ot),
        "  %%zero = arith.constant 0.000000e+00 : %s" % e,
    ]
    src = "%x"
    if any(g[k] for k in ("pad_top", "pad_bottom", "pad_left", "pad_right")):
        pt = _t((n, h + g["pad_top"] + g["pad_bottom"], w + g["pad_left"] + g["pad_right"], c), e)
        lines += [
            "  %%padded = tensor.pad %%x low[0, %d, %d, 0] high[0, %d, %d, 0] {"
            % (g["pad_top"], g["pad_left"], g["pad_bottom"], g["pad_right"]),
            "  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):",
            "    tensor.yield %zero : " + e,
            "  } : %s to %s" % (xt, pt),
        ]
        src, xt = "%padded", pt
    lines += [
        "  %%init = tensor.empty() : %s" % ot,
        "  %%acc = linalg.fill ins(%%zero : %s) outs(%%init : %s) -> %s" % (e, ot, ot),
        "  %%y = linalg.conv_2d_nhwc_fhwc {dilations = dense<%d> : tensor<2xi64>, "
        "strides = dense<%d> : tensor<2xi64>}" % (g["dilation"], g["stride"]),
        "      ins(%s, %%w : %s, %s) outs(%%acc : %s) -> %s" % (src, xt, wt, ot, ot),
        "  return %%y : %s" % ot,
        "}",
        "",
    ]
    return "\n".join(lines)


# ---------------------------------------------------------------------------
# The filter as stc.conv's sparse matrix (NumPy or torch)
# ---------------------------------------------------------------------------

def _lib(x):
    return "torch" if type(x).__module__.startswith("torch") else "numpy"


def filter_matrix(w, g):
    """FHWC filter (F, KH, KW, C per group) -> the (F, Kpad) matrix whose
    row o is (kh, kw, c)-flattened with the channels zero-padded to Cp and
    the columns zero-padded to Kpad (a multiple of 16): what stc.conv's
    `values`/`meta` compress (the 2:4 groups run along the channels of each
    tap, as TensorRT and Apex ASP prune)."""
    f, kh, kw, c = w.shape
    cp, k, kpad = g["Cp"], g["K"], g["Kpad"]
    if _lib(w) == "torch":
        import torch
        if cp != c:
            w = torch.cat([w, torch.zeros((f, kh, kw, cp - c), dtype=w.dtype,
                                          device=w.device)], dim=3)
        m = w.reshape(f, k)
        if kpad != k:
            m = torch.cat([m, torch.zeros((f, kpad - k), dtype=m.dtype, device=m.device)],
                          dim=1)
        return m.contiguous()
    import numpy as np
    w = np.pad(w, ((0, 0), (0, 0), (0, 0), (0, cp - c)))
    return np.pad(w.reshape(f, k), ((0, 0), (0, kpad - k)))


def filter_from_matrix(m, g):
    """The inverse of filter_matrix: (F, Kpad) -> (F, KH, KW, C per group)."""
    f = m.shape[0]
    w = m[:, :g["K"]].reshape(f, g["KH"], g["KW"], g["Cp"])
    return w[..., :g["Cg"]]


def reference_numpy(x, pm, g):
    """The float64 NumPy reference of stc.conv as an implicit GEMM: x the
    NHWC input (N, H, W, C), pm the pruned (F, Kpad) filter matrix
    (filter_matrix's layout); Out[n, oh, ow, o] = sum over (kh, kw, c) of
    pm[o, (kh, kw, c)] * the zero-padded input's patch element. One group.
    Returns (N, OH, OW, F) float64."""
    import numpy as np
    if g["groups"] != 1:
        raise ValueError("reference_numpy computes one group, not %d" % g["groups"])
    n, c = x.shape[0], x.shape[3]
    xp = np.pad(np.asarray(x, dtype=np.float64),
                ((0, 0), (g["pad_top"], g["pad_bottom"]), (g["pad_left"], g["pad_right"]),
                 (0, g["Cp"] - c)))
    s, d = g["stride"], g["dilation"]
    cols = []
    for kh in range(g["KH"]):
        for kw in range(g["KW"]):
            sl = xp[:, kh * d:kh * d + (g["OH"] - 1) * s + 1:s,
                    kw * d:kw * d + (g["OW"] - 1) * s + 1:s, :]
            cols.append(sl.reshape(-1, g["Cp"]))
    patches = np.concatenate(cols, axis=1)                 # P x K
    w = np.asarray(pm, dtype=np.float64)[:, :g["K"]]       # F x K
    return (patches @ w.T).reshape(n, g["OH"], g["OW"], -1)
