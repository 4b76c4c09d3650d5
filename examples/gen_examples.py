#!/usr/bin/env python3
"""Generates the STC example programs and checks their results.

  python3 examples/gen_examples.py [--out-dir DIR]
      (re)writes, in DIR (default: build/examples; the build does this,
      examples/CMakeLists.txt, and tests read them there), mlp.mlir and transformer_ffn.mlir (seeded: the output is
      the same on every run), and mlp_f16.mlir: the same MLP with every
      tensor, constant and weight in f16 (the weights are mlp.mlir's,
      rounded), the form the GPU kernels (mma.sp on f16/bf16) take.
      And resnet_bottleneck.mlir: a ResNet-50 bottleneck block (three
      convolutions, NHWC, linalg.conv_2d_nhwc_fhwc) for the stc.conv path.
  python3 examples/gen_examples.py verify PROG.mlir X.npy Y.npy [--dense]
      recomputes PROG's result for the input X in float64 with NumPy, using
      the weights read back from PROG's dense_resource blobs, each nn.Linear
      weight pruned 2:4 along in_features (each convolution filter along
      its input channels; what `stc-run --sparsity=force` does; --dense: no
      pruning), and compares it with Y (the output of
      stc-run).  Prints the relative error and exits 1 if it is above 1e-5
      or if the pruned and the unpruned results cannot be told apart.

The programs are written the way torch-mlir exports the PyTorch modules to
linalg on tensors: parameters as `arith.constant dense_resource<...>`, the
nn.Linear weight [out, in] transposed by a linalg.generic, linalg.matmul,
the bias added by a broadcasting linalg.generic, ReLU as cmpf ugt + select
(and arith.maximumf), GELU(approximate='tanh') spelled out with math.tanh.

  mlp.mlir:             Linear(256, 512) -> ReLU -> Linear(512, 512) -> ReLU
                        -> Linear(512, 64), batch 32.
  transformer_ffn.mlir: x + Linear(1024, 256)(GELU(Linear(256, 1024)(x))),
                        64 tokens, d_model 256.
  resnet_bottleneck.mlir: relu(x + Conv1x1(64->256)(relu(Conv3x3(64->64, pad 1)
                        (relu(Conv1x1(256->64)(x)))))), x 1x14x14x256 NHWC,
                        FHWC filters (nn.Conv2d's default init).
Parameters follow nn.Linear's default init, U(-1/sqrt(in), 1/sqrt(in)).
"""

import math
import os
import re
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

MAP_ID = "affine_map<(d0, d1) -> (d0, d1)>"
MAP_T = "affine_map<(d0, d1) -> (d1, d0)>"
MAP_ROW = "affine_map<(d0, d1) -> (d1)>"
PAR2 = '["parallel", "parallel"]'


class Module:
    """Collects the body of @main and its dense_resource blobs."""

    def __init__(self):
        self.lines = []
        self.blobs = []  # (name, array)
        self.n = 0

    def tmp(self):
        self.n += 1
        return "%%%d" % self.n

    def emit(self, text):
        self.lines.append(text)

    def resource(self, arr):
        shape = "_".join(str(d) for d in arr.shape)
        name = "torch_tensor_%s_torch.float32" % shape
        used = [n for n, _ in self.blobs]
        if name in used:
            name += "_%d" % sum(1 for u in used if u.startswith(name))
        self.blobs.append((name, arr.astype("<f4")))
        v = self.tmp()
        self.emit("  %s = arith.constant dense_resource<%s> : %s"
                  % (v, name, ttype(arr.shape)))
        return v

    def text(self, header, sig, result, rtype, maps=None):
        maps = maps or [MAP_ID, MAP_T, MAP_ROW]
        out = [header] + ["#map%s = %s" % (str(i) if i else "", m)
                          for i, m in enumerate(maps)]
        out += ["module {", "func.func @main(%s) -> %s {" % (sig, rtype),
                "  %cst = arith.constant 0.000000e+00 : f32"]
        out += self.lines
        out += ["  return %s : %s" % (result, rtype), "}", "}", "",
                "{-#", "  dialect_resources: {", "    builtin: {"]
        ents = []
        for name, arr in self.blobs:
            # 4-byte alignment header, then the little-endian f32 data.
            ents.append('      %s: "0x04000000%s"'
                        % (name, arr.tobytes().hex().upper()))
        out.append(",\n".join(ents))
        out += ["    }", "  }", "#-}", ""]
        return "\n".join(out)


def ttype(shape):
    return "tensor<%sxf32>" % "x".join(str(d) for d in shape)


def linear(mod, x, m, in_f, out_f, rng):
    """torch-mlir's nn.Linear: transpose the [out, in] weight, matmul into a
    zero-filled init, add the bias broadcast over rows."""
    bound = 1.0 / math.sqrt(in_f)
    w = rng.uniform(-bound, bound, size=(out_f, in_f)).astype(np.float32)
    b = rng.uniform(-bound, bound, size=(out_f,)).astype(np.float32)
    wv = mod.resource(w)
    bv = mod.resource(b)
    e1, wt = mod.tmp(), mod.tmp()
    mod.emit("  %s = tensor.empty() : %s" % (e1, ttype((in_f, out_f))))
    mod.emit("  %s = linalg.generic {indexing_maps = [#map1, #map], "
             "iterator_types = %s} ins(%s : %s) outs(%s : %s) {\n"
             "  ^bb0(%%in: f32, %%out: f32):\n"
             "    linalg.yield %%in : f32\n"
             "  } -> %s" % (wt, PAR2, wv, ttype((out_f, in_f)), e1,
                            ttype((in_f, out_f)), ttype((in_f, out_f))))
    e2, z, mm, y = mod.tmp(), mod.tmp(), mod.tmp(), mod.tmp()
    t = ttype((m, out_f))
    mod.emit("  %s = tensor.empty() : %s" % (e2, t))
    mod.emit("  %s = linalg.fill ins(%%cst : f32) outs(%s : %s) -> %s"
             % (z, e2, t, t))
    mod.emit("  %s = linalg.matmul ins(%s, %s : %s, %s) outs(%s : %s) -> %s"
             % (mm, x, wt, ttype((m, in_f)), ttype((in_f, out_f)), z, t, t))
    mod.emit("  %s = linalg.generic {indexing_maps = [#map, #map2, #map], "
             "iterator_types = %s} ins(%s, %s : %s, %s) outs(%s : %s) {\n"
             "  ^bb0(%%in: f32, %%in_0: f32, %%out: f32):\n"
             "    %%s = arith.addf %%in, %%in_0 : f32\n"
             "    linalg.yield %%s : f32\n"
             "  } -> %s" % (y, PAR2, mm, bv, t, ttype((out_f,)), e2, t, t))
    return y, e2, w, b


def relu(mod, x, init, shape, form):
    y = mod.tmp()
    t = ttype(shape)
    if form == "select":
        body = ("    %c = arith.cmpf ugt, %in, %cst : f32\n"
                "    %s = arith.select %c, %in, %cst : f32\n"
                "    linalg.yield %s : f32\n")
    else:
        body = ("    %s = arith.maximumf %in, %cst : f32\n"
                "    linalg.yield %s : f32\n")
    mod.emit("  %s = linalg.generic {indexing_maps = [#map, #map], "
             "iterator_types = %s} ins(%s : %s) outs(%s : %s) {\n"
             "  ^bb0(%%in: f32, %%out: f32):\n%s  } -> %s"
             % (y, PAR2, x, t, init, t, body, t))
    return y


def gelu_tanh(mod, x, init, shape):
    """0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))."""
    y = mod.tmp()
    t = ttype(shape)
    body = ("    %half = arith.constant 5.000000e-01 : f32\n"
            "    %one = arith.constant 1.000000e+00 : f32\n"
            "    %k = arith.constant 0.797884583 : f32\n"
            "    %c = arith.constant 4.471500e-02 : f32\n"
            "    %x2 = arith.mulf %in, %in : f32\n"
            "    %x3 = arith.mulf %x2, %in : f32\n"
            "    %cx3 = arith.mulf %x3, %c : f32\n"
            "    %inner = arith.addf %in, %cx3 : f32\n"
            "    %arg = arith.mulf %inner, %k : f32\n"
            "    %th = math.tanh %arg : f32\n"
            "    %onep = arith.addf %th, %one : f32\n"
            "    %hx = arith.mulf %in, %half : f32\n"
            "    %r = arith.mulf %hx, %onep : f32\n"
            "    linalg.yield %r : f32\n")
    mod.emit("  %s = linalg.generic {indexing_maps = [#map, #map], "
             "iterator_types = %s} ins(%s : %s) outs(%s : %s) {\n"
             "  ^bb0(%%in: f32, %%out: f32):\n%s  } -> %s"
             % (y, PAR2, x, t, init, t, body, t))
    return y


def residual(mod, a, b, shape):
    e, y = mod.tmp(), mod.tmp()
    t = ttype(shape)
    mod.emit("  %s = tensor.empty() : %s" % (e, t))
    mod.emit("  %s = linalg.generic {indexing_maps = [#map, #map, #map], "
             "iterator_types = %s} ins(%s, %s : %s, %s) outs(%s : %s) {\n"
             "  ^bb0(%%in: f32, %%in_0: f32, %%out: f32):\n"
             "    %%s = arith.addf %%in, %%in_0 : f32\n"
             "    linalg.yield %%s : f32\n"
             "  } -> %s" % (y, PAR2, a, b, t, t, e, t, t))
    return y


MLP = dict(batch=32, sizes=(256, 512, 512, 64), seed=2024)
FFN = dict(tokens=64, d_model=256, hidden=1024, seed=2025)

RUN_HINT = ("// Run it on random inputs, checked against the dense reference"
            " of the pruned\n// program:\n"
            "//   stc-run build/examples/%s --sparsity=force --random-inputs"
            " --check\n"
            "// Which contractions became 2:4 sparse:  add --remarks.  "
            "With an input file:\n"
            "//   stc-run build/examples/%s --sparsity=force --input=x.npy"
            " --output=y.npy\n"
            "//   python3 examples/gen_examples.py verify build/examples/%s x.npy"
            " y.npy\n"
            "// Generated by examples/gen_examples.py (seeded); do not edit"
            " by hand.")


def gen_mlp():
    rng = np.random.default_rng(MLP["seed"])
    b, s = MLP["batch"], MLP["sizes"]
    mod = Module()
    x = "%arg0"
    forms = ["select", "max"]
    for i in range(3):
        x, init, _, _ = linear(mod, x, b, s[i], s[i + 1], rng)
        if i < 2:
            x = relu(mod, x, init, (b, s[i + 1]), forms[i])
    header = ("// A 3-layer MLP as torch-mlir exports it to linalg on tensors"
              " (batch %d,\n// %d -> %d -> %d -> %d): nn.Linear weights [out,"
              " in] and biases as dense_resource\n// constants, weight"
              " transposed by a linalg.generic, linalg.matmul, broadcast\n//"
              " bias add, ReLU (cmpf ugt + select after layer 1, maximumf"
              " after layer 2).\n// Meant for --sparsity=force: all three"
              " weights are pruned 2:4 along\n// in_features and compressed"
              " at compile time.\n" % ((b,) + tuple(s))
              + RUN_HINT % ("mlp.mlir", "mlp.mlir", "mlp.mlir"))
    return mod.text(header, "%%arg0: %s" % ttype((b, s[0])), x,
                    ttype((b, s[-1])))


def gen_ffn():
    rng = np.random.default_rng(FFN["seed"])
    t, d, h = FFN["tokens"], FFN["d_model"], FFN["hidden"]
    mod = Module()
    y, init, _, _ = linear(mod, "%arg0", t, d, h, rng)
    y = gelu_tanh(mod, y, init, (t, h))
    y, _, _, _ = linear(mod, y, t, h, d, rng)
    y = residual(mod, "%arg0", y, (t, d))
    header = ("// A transformer feed-forward block as torch-mlir exports it"
              " (%d tokens,\n// d_model %d): x + Linear(%d, %d)(GELU(Linear"
              "(%d, %d)(x))), GELU with\n// approximate='tanh' written out"
              " (0.5*x*(1+tanh(sqrt(2/pi)*(x+0.044715*x^3)))),\n// weights"
              " as dense_resource constants transposed by a linalg.generic.\n"
              "// Meant for --sparsity=force: both weights are pruned 2:4"
              " along in_features.\n" % (t, d, h, d, d, h)
              + RUN_HINT % ("transformer_ffn.mlir", "transformer_ffn.mlir",
                            "transformer_ffn.mlir"))
    return mod.text(header, "%%arg0: %s" % ttype((t, d)), y, ttype((t, d)))


# ---------------------------------------------------------------------------
# ResNet bottleneck block (convolutions)
# ---------------------------------------------------------------------------

MAP4_ID = "affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>"
MAP4_CH = "affine_map<(d0, d1, d2, d3) -> (d3)>"
PAR4 = '["parallel", "parallel", "parallel", "parallel"]'
BOTTLENECK = dict(size=14, channels=256, width=64, seed=2026)


def conv2d(mod, x, xshape, c_out, k, pad, rng):
    """torch-mlir's nn.Conv2d(c_in, c_out, k, padding=pad) in NHWC: the
    FHWC weight and the bias as dense_resource constants, zero padding as a
    tensor.pad in front, linalg.conv_2d_nhwc_fhwc into a zero-filled init,
    then the bias added by a broadcasting linalg.generic (#map1 = the
    channel). Returns (result, its empty init, result shape)."""
    n, h, w, c_in = xshape
    fan_in = c_in * k * k
    bound = 1.0 / math.sqrt(fan_in)  # nn.Conv2d's default init bound
    wt = rng.uniform(-bound, bound, size=(c_out, k, k, c_in)).astype(np.float32)
    b = rng.uniform(-bound, bound, size=(c_out,)).astype(np.float32)
    wv = mod.resource(wt)
    bv = mod.resource(b)
    src, st = x, ttype(xshape)
    if pad:
        pshape = (n, h + 2 * pad, w + 2 * pad, c_in)
        src = mod.tmp()
        mod.emit("  %s = tensor.pad %s low[0, %d, %d, 0] high[0, %d, %d, 0] {\n"
                 "  ^bb0(%%i0: index, %%i1: index, %%i2: index, %%i3: index):\n"
                 "    tensor.yield %%cst : f32\n"
                 "  } : %s to %s" % (src, x, pad, pad, pad, pad, st, ttype(pshape)))
        st = ttype(pshape)
    oshape = (n, h + 2 * pad - k + 1, w + 2 * pad - k + 1, c_out)
    t = ttype(oshape)
    e, z, cv, y = mod.tmp(), mod.tmp(), mod.tmp(), mod.tmp()
    mod.emit("  %s = tensor.empty() : %s" % (e, t))
    mod.emit("  %s = linalg.fill ins(%%cst : f32) outs(%s : %s) -> %s" % (z, e, t, t))
    mod.emit("  %s = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, "
             "strides = dense<1> : tensor<2xi64>} ins(%s, %s : %s, %s) outs(%s : %s) -> %s"
             % (cv, src, wv, st, ttype(wt.shape), z, t, t))
    mod.emit("  %s = linalg.generic {indexing_maps = [#map, #map1, #map], "
             "iterator_types = %s} ins(%s, %s : %s, %s) outs(%s : %s) {\n"
             "  ^bb0(%%in: f32, %%in_0: f32, %%out: f32):\n"
             "    %%s = arith.addf %%in, %%in_0 : f32\n"
             "    linalg.yield %%s : f32\n"
             "  } -> %s" % (y, PAR4, cv, bv, t, ttype((c_out,)), e, t, t))
    return y, e, oshape


def eltwise4(mod, ins, init, shape, body):
    """A 4-D element-wise linalg.generic over `ins` (all of `shape`)."""
    y = mod.tmp()
    t = ttype(shape)
    args = ", ".join("%%in%s: f32" % ("_%d" % (i - 1) if i else "") for i in range(len(ins)))
    mod.emit("  %s = linalg.generic {indexing_maps = [%s], iterator_types = %s} "
             "ins(%s : %s) outs(%s : %s) {\n  ^bb0(%s, %%out: f32):\n%s  } -> %s"
             % (y, ", ".join(["#map"] * (len(ins) + 1)), PAR4, ", ".join(ins),
                ", ".join([t] * len(ins)), init, t, args, body, t))
    return y


RELU_SELECT = ("    %c = arith.cmpf ugt, %in, %cst : f32\n"
               "    %s = arith.select %c, %in, %cst : f32\n"
               "    linalg.yield %s : f32\n")
RELU_MAX = ("    %s = arith.maximumf %in, %cst : f32\n"
            "    linalg.yield %s : f32\n")
ADD = ("    %s = arith.addf %in, %in_0 : f32\n"
       "    linalg.yield %s : f32\n")


def gen_resnet_bottleneck():
    cfg = BOTTLENECK
    rng = np.random.default_rng(cfg["seed"])
    hw, c, wd = cfg["size"], cfg["channels"], cfg["width"]
    xs = (1, hw, hw, c)
    mod = Module()
    y, e, s = conv2d(mod, "%arg0", xs, wd, 1, 0, rng)
    y = eltwise4(mod, [y], e, s, RELU_SELECT)
    y, e, s = conv2d(mod, y, s, wd, 3, 1, rng)
    y = eltwise4(mod, [y], e, s, RELU_MAX)
    y, e, s = conv2d(mod, y, s, c, 1, 0, rng)
    y = eltwise4(mod, [y, "%arg0"], e, s, ADD)
    y = eltwise4(mod, [y], e, s, RELU_MAX)
    header = (
        "// A ResNet-50 bottleneck block (an identity block of stage 3: 14x14, 256\n"
        "// channels, width 64) as torch-mlir exports it to linalg on tensors, in\n"
        "// NHWC: Conv2d(256, 64, 1) -> ReLU -> Conv2d(64, 64, 3, padding=1) ->\n"
        "// ReLU -> Conv2d(64, 256, 1) -> + x -> ReLU. Each nn.Conv2d: FHWC weight\n"
        "// and bias as dense_resource constants, zero padding as a tensor.pad in\n"
        "// front, linalg.conv_2d_nhwc_fhwc into a zero-filled init, broadcast\n"
        "// bias add (linalg.generic); ReLU as cmpf ugt + select (first) and\n"
        "// arith.maximumf; the residual add of the block input. (BatchNorm is\n"
        "// folded into the weights and biases, as for inference.)\n"
        "// Meant for --sparsity=force: all three filters are pruned 2:4 along the\n"
        "// input channels for every (out channel, kh, kw) and compressed at compile\n"
        "// time; each convolution becomes one stc.conv with its bias, ReLU and\n"
        "// (last) the residual add fused.\n"
        + RUN_HINT % ("resnet_bottleneck.mlir", "resnet_bottleneck.mlir",
                      "resnet_bottleneck.mlir"))
    return mod.text(header, "%%arg0: %s" % ttype(xs), y, ttype(xs),
                    maps=[MAP4_ID, MAP4_CH])


# ---------------------------------------------------------------------------
# verify
# ---------------------------------------------------------------------------

def read_blobs(text):
    """name -> float32 array (flat) of every dense_resource blob."""
    blobs = {}
    for name, hexs in re.findall(r'^\s*([\w.]+): "0x([0-9A-Fa-f]+)"', text,
                                 re.M):
        raw = bytes.fromhex(hexs)[4:]  # drop the alignment header
        blobs[name] = np.frombuffer(raw, dtype="<f4").astype(np.float64)
    return blobs


def read_constants(text):
    """Ordered list of (shape, values) of the dense_resource constants of
    @main, in program order."""
    blobs = read_blobs(text)
    out = []
    for name, shape in re.findall(
            r"dense_resource<([\w.]+)> : tensor<([0-9x]+)xf32>", text):
        dims = tuple(int(d) for d in shape.split("x"))
        out.append(blobs[name].reshape(dims))
    return out


def prune24(w):
    """2:4 by magnitude along axis 1 (in_features), ties to the lower
    index (independent of test/lib/stc_ref.py on purpose: both are written
    from docs/DESIGN.md §3)."""
    o, i = w.shape
    pad = (-i) % 4
    g = np.pad(w, ((0, 0), (0, pad))).reshape(o, -1, 4)
    order = np.argsort(-np.abs(g), axis=-1, kind="stable")
    keep = np.zeros(g.shape, bool)
    np.put_along_axis(keep, order[..., :2], True, axis=-1)
    return np.where(keep, g, 0.0).reshape(o, -1)[:, :i]


def gelu(x):
    return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) *
                                    (x + 0.044715 * x ** 3)))


def prune_conv24(w):
    """An F x KH x KW x C filter pruned 2:4 along C for every (f, kh, kw)."""
    return prune24(w.reshape(-1, w.shape[3])).reshape(w.shape)


def conv_nhwc(x, w, pad):
    """Stride-1 NHWC x FHWC convolution (cross-correlation) in float64."""
    n, h, wd, _ = x.shape
    f, kh, kw, _ = w.shape
    xp = np.pad(x, ((0, 0), (pad, pad), (pad, pad), (0, 0)))
    oh, ow = h + 2 * pad - kh + 1, wd + 2 * pad - kw + 1
    out = np.zeros((n, oh, ow, f))
    for i in range(kh):
        for j in range(kw):
            out += np.einsum("nhwc,fc->nhwf", xp[:, i:i + oh, j:j + ow, :], w[:, i, j, :])
    return out


def reference(text, x, prune):
    consts = read_constants(text)
    if "linalg.conv_2d_nhwc_fhwc" in text:  # ResNet bottleneck
        p = prune_conv24 if prune else (lambda w: w)
        (w1, b1), (w2, b2), (w3, b3) = [(p(consts[i]), consts[i + 1])
                                        for i in range(0, 6, 2)]
        y = np.maximum(conv_nhwc(x, w1, 0) + b1, 0.0)
        y = np.maximum(conv_nhwc(y, w2, 1) + b2, 0.0)
        return np.maximum(conv_nhwc(y, w3, 0) + b3 + x, 0.0)
    p = prune24 if prune else (lambda w: w)
    lin = [(p(consts[i]), consts[i + 1]) for i in range(0, len(consts), 2)]
    if "math.tanh" in text:  # transformer FFN
        (w1, b1), (w2, b2) = lin
        return x + gelu(x @ w1.T + b1) @ w2.T + b2
    y = x
    for n, (w, b) in enumerate(lin):
        y = y @ w.T + b
        if n < len(lin) - 1:
            y = np.maximum(y, 0.0)
    return y


def rel(a, b):
    if not np.all(np.isfinite(a)):
        return math.inf
    return float(np.linalg.norm(a - b) / np.linalg.norm(b))


def verify(argv):
    dense = "--dense" in argv
    argv = [a for a in argv if a != "--dense"]
    if len(argv) != 3:
        sys.stderr.write("usage: gen_examples.py verify PROG.mlir X.npy Y.npy"
                         " [--dense]\n")
        return 2
    text = open(argv[0]).read()
    x = np.load(argv[1]).astype(np.float64)
    y = np.load(argv[2])
    ref = reference(text, x, prune=not dense)
    if y.shape != ref.shape or y.dtype != np.float32:
        print("verify: output %s %s, expected %s float32"
              % (y.shape, y.dtype, ref.shape))
        return 1
    err = rel(y.astype(np.float64), ref)
    other = rel(reference(text, x, prune=dense), ref)
    ok = err <= 1e-5 and other > 1e-5
    print("verify %s: rel_error=%.3e (vs %s: %.3e) %s"
          % (os.path.basename(argv[0]), err,
             "pruned" if dense else "unpruned", other,
             "PASS" if ok else "FAIL"))
    return 0 if ok else 1


def to_f16(text, name):
    """The f32 program `text` (examples/`name`.mlir) with every f32 type and
    constant in f16, its dense_resource blobs rewritten as f16 (2-byte
    alignment header) and its own file name as `name`_f16.mlir."""
    body, sep, resources = text.partition("{-#")

    def blob(m):
        raw = bytes.fromhex(m.group(2))[4:]
        halves = np.frombuffer(raw, dtype="<f4").astype("<f2")
        return '%s"0x02000000%s"' % (m.group(1), halves.tobytes().hex().upper())
    resources = re.sub(r'(\s*[\w.]+: )"0x([0-9A-Fa-f]+)"', blob, resources)
    body = body.replace("f32", "f16").replace(name + ".mlir",
                                              name + "_f16.mlir")
    return body + sep + resources


def gen_mlp_f16():
    header = ("// The MLP of mlp.mlir in f16 (weights rounded from mlp.mlir's):"
              " what the GPU\n// path compiles (stc-run --device=cuda|auto;"
              " --device=emulate without a GPU).\n")
    return header + to_f16(gen_mlp(), "mlp")


def gen_resnet_bottleneck_f16():
    header = ("// The ResNet bottleneck block of resnet_bottleneck.mlir in f16"
              " (weights rounded\n// from it): what the GPU path compiles"
              " (stc-run --device=cuda|auto;\n// --device=emulate without a"
              " GPU). Each stc.conv is an implicit-GEMM mma.sp kernel.\n")
    return header + to_f16(gen_resnet_bottleneck(), "resnet_bottleneck")


def main(argv):
    if argv and argv[0] == "verify":
        return verify(argv[1:])
    out_dir = os.path.join(os.path.dirname(HERE), "build", "examples")
    if argv[:1] == ["--out-dir"] and len(argv) == 2:
        out_dir = argv[1]
    elif argv:
        sys.stderr.write(__doc__)
        return 2
    os.makedirs(out_dir, exist_ok=True)
    for name, fn in (("mlp.mlir", gen_mlp), ("transformer_ffn.mlir",
                                              gen_ffn),
                     ("mlp_f16.mlir", gen_mlp_f16),
                     ("resnet_bottleneck.mlir", gen_resnet_bottleneck),
                     ("resnet_bottleneck_f16.mlir",
                      gen_resnet_bottleneck_f16)):
        path = os.path.join(out_dir, name)
        with open(path, "w") as f:
            f.write(fn())
        print("wrote %s (%d bytes)" % (path, os.path.getsize(path)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
