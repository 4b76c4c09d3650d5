"""The end-to-end benchmark's blocks (bench/README.md, "GPU end-to-end
blocks"): the MLIR program of each block and size, its arguments, and a
NumPy reference. Imports only NumPy (lazily, for the reference); no torch.

A block's weights are function arguments, already pruned 2:4 along their
reduction dimension (K) and compressed in STC's canonical format
(docs/FORMAT.md): for a Linear layer y = x . W^T with W of shape N x K (the
PyTorch `weight`, out x in), `values` N x K/2 (same dtype) and `meta`
N x K/16 (i16, the bits of format24.compress24's words). The program uses
`stc.spmm ... {sparse = #stc.operand<rhs>}` on them directly, so nothing is
pruned or compressed at run time; the runtime converts the canonical
metadata to the kernel's layout with a small kernel on every call (part of
STC's time).

Blocks:
- `llama_mlp`: LLaMA-7B MLP, y = (SiLU(x W_gate^T) * (x W_up^T)) W_down^T,
  f16, hidden 4096, intermediate 11008. The two products and the product
  of SiLU(g) and u are rounded to f16 as PyTorch's f16 module does (SiLU
  and the product computed in f32).
- `bert_layer`: a BERT-base encoder layer (post-LayerNorm, no attention
  mask): Q, K, V projections with bias, scores and context per head as
  linalg.batch_matmul with a row softmax, the output projection, residual,
  LayerNorm, FFN with erf GELU (fused into the first product's epilogue),
  residual, LayerNorm. Biases and LayerNorm parameters are f32 arguments.
- `resnet_bottleneck`: ResNet-50's first-stage bottleneck in NHWC, three
  stc.conv with compressed filter arguments (the filter as the F x
  (KH*KW*C) matrix of the op, the pattern along C), bias and ReLU fused,
  the residual fused into the last one (acc, beta 1).

`programs(tiny)` lists every (block, size); `program_args`,
`program_result` and `program_mlir` give a program's interface and text;
`numpy_case` its seeded NumPy arguments and reference (the self test).
"""

import math

#: f16 products: relative Frobenius tolerance of the check against PyTorch's
#: dense result of the same pruned weights (benchcommon.TOLERANCE).
TOLERANCE = 1e-2

LLAMA = {"hidden": 4096, "intermediate": 11008}
LLAMA_TOKENS = [16, 128, 512, 2048, 4096]
#: --tiny: the same program at sizes the emulator runs in seconds (K a
#: multiple of 16; a token count that is not a multiple of the tiles).
TINY = {"hidden": 64, "intermediate": 96}
TINY_TOKENS = [16, 40]


def mlp_weights(hidden, inter):
    """The Linear layers of the MLP: [(name, N, K)] (weight N x K)."""
    return [("gate", inter, hidden), ("up", inter, hidden), ("down", hidden, inter)]


def mlp_args(tokens, hidden, inter, dtype="f16"):
    """The program's arguments in order: [{name, shape, dtype}]."""
    args = [{"name": "x", "shape": [tokens, hidden], "dtype": dtype}]
    for name, n, k in mlp_weights(hidden, inter):
        args.append({"name": name + ".values", "shape": [n, k // 2], "dtype": dtype})
        args.append({"name": name + ".meta", "shape": [n, k // 16], "dtype": "i16"})
    return args


def _t(shape, dtype):
    return "tensor<%sx%s>" % ("x".join(str(d) for d in shape), dtype)


def mlp_mlir(func, tokens, hidden, inter, dtype="f16"):
    """The MLIR text of the MLP as one public function `func`."""
    t, h, i = tokens, hidden, inter
    a = {x["name"]: _t(x["shape"], x["dtype"]) for x in mlp_args(t, h, i, dtype)}
    x_t, hi_t, y_t = _t([t, h], dtype), _t([t, i], dtype), _t([t, h], dtype)
    attrs = "{pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>}"
    return f"""// LLaMA MLP block, {t} tokens, hidden {h}, intermediate {i} (bench/gpu/e2e_blocks.py).
#id = affine_map<(i, j) -> (i, j)>
func.func @{func}(%x: {x_t},
    %gv: {a['gate.values']}, %gm: {a['gate.meta']},
    %uv: {a['up.values']}, %um: {a['up.meta']},
    %dv: {a['down.values']}, %dm: {a['down.meta']}) -> {y_t} {{
  %g = stc.spmm %gv, %gm, %x {attrs}
      : {a['gate.values']}, {a['gate.meta']}, {x_t} -> {hi_t}
  %u = stc.spmm %uv, %um, %x {attrs}
      : {a['up.values']}, {a['up.meta']}, {x_t} -> {hi_t}
  %h0 = tensor.empty() : {hi_t}
  %h = linalg.generic {{indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}}
      ins(%g, %u : {hi_t}, {hi_t}) outs(%h0 : {hi_t}) {{
  ^bb0(%a: {dtype}, %b: {dtype}, %o: {dtype}):
    %a32 = arith.extf %a : {dtype} to f32
    %b32 = arith.extf %b : {dtype} to f32
    %one = arith.constant 1.0 : f32
    %na = arith.negf %a32 : f32
    %e = math.exp %na : f32
    %d = arith.addf %e, %one : f32
    %s = arith.divf %a32, %d : f32
    %r = arith.mulf %s, %b32 : f32
    %r16 = arith.truncf %r : f32 to {dtype}
    linalg.yield %r16 : {dtype}
  }} -> {hi_t}
  %y = stc.spmm %dv, %dm, %h {attrs}
      : {a['down.values']}, {a['down.meta']}, {hi_t} -> {y_t}
  return %y : {y_t}
}}
"""


def mlp_flop(tokens, hidden, inter):
    """Dense-equivalent FLOP of one forward call (3 products)."""
    return 2.0 * tokens * hidden * inter * 3


# ---------------------------------------------------------------------------
# NumPy side (tests; the GPU run makes the same in torch)
# ---------------------------------------------------------------------------

def numpy_weights(rng, hidden, inter):
    """Seeded f16 weights N x K (PyTorch's Linear layout), pruned 2:4 along
    K by magnitude (format24.prune24), with their canonical compression:
    {name: (pruned, values, meta as int16)}."""
    import numpy as np
    import format24
    out = {}
    for name, n, k in mlp_weights(hidden, inter):
        w = (rng.standard_normal((n, k)) / math.sqrt(k)).astype(np.float16)
        p = format24.prune24(w)
        v, m = format24.compress24(p)
        out[name] = (p, v, m.view(np.int16))
    return out


def numpy_mlp(x, pruned):
    """The MLP's reference in f32, rounding to f16 where the program does."""
    import numpy as np
    f16 = lambda a: a.astype(np.float16).astype(np.float32)  # noqa: E731
    x = x.astype(np.float32)
    g = f16(x @ pruned["gate"].astype(np.float32).T)
    u = f16(x @ pruned["up"].astype(np.float32).T)
    h = f16(g / (1.0 + np.exp(-g)) * u)
    return h @ pruned["down"].astype(np.float32).T


def rel_error(out, ref):
    import numpy as np
    out = np.asarray(out, dtype=np.float64)
    ref = np.asarray(ref, dtype=np.float64)
    if not np.all(np.isfinite(out)):
        return float("inf")
    return float(np.linalg.norm(out - ref) / max(np.linalg.norm(ref), 1e-30))


# ---------------------------------------------------------------------------
# BERT-base encoder layer
# ---------------------------------------------------------------------------

BERT = {"hidden": 768, "heads": 12, "ffn": 3072}
BERT_SHAPES = [(8, 128), (32, 128)]
TINY_BERT = {"hidden": 64, "heads": 2, "ffn": 128}
TINY_BERT_SHAPES = [(2, 32)]
LN_EPS = 1e-12


def bert_weights(hidden, ffn):
    """The Linear layers of the layer: [(name, N, K)] (weight N x K)."""
    return [("q", hidden, hidden), ("k", hidden, hidden), ("v", hidden, hidden),
            ("o", hidden, hidden), ("ff1", ffn, hidden), ("ff2", hidden, ffn)]


def bert_vectors(hidden, ffn):
    """Biases and LayerNorm parameters (f32 arguments): [(name, size)]."""
    return [("q.bias", hidden), ("k.bias", hidden), ("v.bias", hidden), ("o.bias", hidden),
            ("ln1.weight", hidden), ("ln1.bias", hidden), ("ff1.bias", ffn),
            ("ff2.bias", hidden), ("ln2.weight", hidden), ("ln2.bias", hidden)]


def bert_args(batch, seq, hidden, ffn, dtype="f16"):
    args = [{"name": "x", "shape": [batch * seq, hidden], "dtype": dtype}]
    for name, n, k in bert_weights(hidden, ffn):
        args.append({"name": name + ".values", "shape": [n, k // 2], "dtype": dtype})
        args.append({"name": name + ".meta", "shape": [n, k // 16], "dtype": "i16"})
    for name, n in bert_vectors(hidden, ffn):
        args.append({"name": name, "shape": [n], "dtype": "f32"})
    return args


def _layernorm(out, r, t, d, gamma, beta, dtype):
    """LayerNorm of %r (t x d, dtype) along d: mean, variance (two passes,
    f32), (r - mean) * rsqrt(var + eps) * gamma + beta, rounded to dtype."""
    T2, T1 = _t([t, d], dtype), _t([t], "f32")
    return f"""  %{out}_e = tensor.empty() : {T1}
  %{out}_z = linalg.fill ins(%zero : f32) outs(%{out}_e : {T1}) -> {T1}
  %{out}_s = linalg.generic {{indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}} ins(%{r} : {T2}) outs(%{out}_z : {T1}) {{
  ^bb0(%a: {dtype}, %acc: f32):
    %a32 = arith.extf %a : {dtype} to f32
    %v = arith.addf %a32, %acc : f32
    linalg.yield %v : f32
  }} -> {T1}
  %{out}_m = linalg.generic {{indexing_maps = [#vec, #vec], iterator_types = ["parallel"]}} ins(%{out}_s : {T1}) outs(%{out}_e : {T1}) {{
  ^bb0(%a: f32, %o: f32):
    %v = arith.divf %a, %nd : f32
    linalg.yield %v : f32
  }} -> {T1}
  %{out}_q = linalg.generic {{indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]}} ins(%{r}, %{out}_m : {T2}, {T1}) outs(%{out}_z : {T1}) {{
  ^bb0(%a: {dtype}, %mu: f32, %acc: f32):
    %a32 = arith.extf %a : {dtype} to f32
    %c = arith.subf %a32, %mu : f32
    %c2 = arith.mulf %c, %c : f32
    %v = arith.addf %c2, %acc : f32
    linalg.yield %v : f32
  }} -> {T1}
  %{out}_o = tensor.empty() : {T2}
  %{out} = linalg.generic {{indexing_maps = [#id, #row, #row, #col, #col, #id], iterator_types = ["parallel", "parallel"]}} ins(%{r}, %{out}_m, %{out}_q, %{gamma}, %{beta} : {T2}, {T1}, {T1}, {_t([d], "f32")}, {_t([d], "f32")}) outs(%{out}_o : {T2}) {{
  ^bb0(%a: {dtype}, %mu: f32, %ss: f32, %g: f32, %b: f32, %o: {dtype}):
    %a32 = arith.extf %a : {dtype} to f32
    %c = arith.subf %a32, %mu : f32
    %var = arith.divf %ss, %nd : f32
    %ve = arith.addf %var, %eps : f32
    %rs = math.rsqrt %ve : f32
    %n = arith.mulf %c, %rs : f32
    %ng = arith.mulf %n, %g : f32
    %v = arith.addf %ng, %b : f32
    %v16 = arith.truncf %v : f32 to {dtype}
    linalg.yield %v16 : {dtype}
  }} -> {T2}
"""


def _add(out, a, b, shape, dtype):
    T = _t(shape, dtype)
    return f"""  %{out}_o = tensor.empty() : {T}
  %{out} = linalg.generic {{indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}} ins(%{a}, %{b} : {T}, {T}) outs(%{out}_o : {T}) {{
  ^bb0(%a: {dtype}, %b: {dtype}, %o: {dtype}):
    %v = arith.addf %a, %b : {dtype}
    linalg.yield %v : {dtype}
  }} -> {T}
"""


def bert_mlir(func, batch, seq, hidden, heads, ffn, dtype="f16"):
    """The MLIR text of one BERT encoder layer (post-LayerNorm, no attention
    mask) as one public function `func`: x (batch*seq x hidden) ->
    y (batch*seq x hidden)."""
    b, s, d, h, f = batch, seq, hidden, heads, ffn
    t, dh, bh = b * s, hidden // heads, batch * heads
    a = {x["name"]: _t(x["shape"], x["dtype"]) for x in bert_args(b, s, d, f, dtype)}
    ssa = {x["name"]: "%" + x["name"].replace(".", "_") for x in bert_args(b, s, d, f, dtype)}
    sig = ",\n    ".join("%s: %s" % (ssa[n], ty) for n, ty in a.items())
    TD, TF = _t([t, d], dtype), _t([t, f], dtype)
    attrs = "{pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>%s}"

    def spmm(out, w, x, xt, rt, act=None):
        at = attrs % (", activation = #stc.activation<%s>" % act if act else "")
        return (f"  %{out} = stc.spmm {ssa[w + '.values']}, {ssa[w + '.meta']}, %{x} "
                f"bias({ssa[w + '.bias']} : {a[w + '.bias']}) {at}\n"
                f"      : {a[w + '.values']}, {a[w + '.meta']}, {xt} -> {rt}\n")
    B4 = _t([b, s, h, dh], dtype)
    BHSD, BHDS = _t([bh, s, dh], dtype), _t([bh, dh, s], dtype)
    SC, SC16 = _t([bh, s, s], "f32"), _t([bh, s, s], dtype)
    R1 = _t([bh, s], "f32")
    CX = _t([bh, s, dh], "f32")
    text = f"""// BERT-base encoder layer, batch {b} x sequence {s}, hidden {d}, {h} heads, FFN {f} (bench/gpu/e2e_blocks.py).
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
#col = affine_map<(i, j) -> (j)>
#vec = affine_map<(i) -> (i)>
#id3 = affine_map<(i, j, k) -> (i, j, k)>
#row3 = affine_map<(i, j, k) -> (i, j)>
func.func @{func}({sig.replace("%x:", "%x:")}) -> {TD} {{
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %scale = arith.constant {1.0 / math.sqrt(dh):.9e} : f32
  %nd = arith.constant {float(d):.1f} : f32
  %eps = arith.constant {LN_EPS:e} : f32
"""
    for w in ("q", "k", "v"):
        text += spmm(w + "l", w, "x", TD, TD)
        text += (f"  %{w}4 = tensor.expand_shape %{w}l [[0, 1], [2, 3]] output_shape [{b}, {s}, {h}, {dh}]"
                 f" : {TD} into {B4}\n")
    # Q, V: [b, h, s, dh]; K: [b, h, dh, s]; then the batch of heads.
    for w, perm, shp in (("q", "[0, 2, 1, 3]", [b, h, s, dh]), ("k", "[0, 2, 3, 1]", [b, h, dh, s]),
                         ("v", "[0, 2, 1, 3]", [b, h, s, dh])):
        T4 = _t(shp, dtype)
        T3 = _t([bh] + shp[2:], dtype)
        text += (f"  %{w}t0 = tensor.empty() : {T4}\n"
                 f"  %{w}t = linalg.transpose ins(%{w}4 : {B4}) outs(%{w}t0 : {T4}) permutation = {perm}\n"
                 f"  %{w}h = tensor.collapse_shape %{w}t [[0, 1], [2], [3]] : {T4} into {T3}\n")
    text += f"""  %sc0 = tensor.empty() : {SC}
  %scz = linalg.fill ins(%zero : f32) outs(%sc0 : {SC}) -> {SC}
  %sc = linalg.batch_matmul ins(%qh, %kh : {BHSD}, {BHDS}) outs(%scz : {SC}) -> {SC}
  %r0 = tensor.empty() : {R1}
  %mi = linalg.fill ins(%ninf : f32) outs(%r0 : {R1}) -> {R1}
  %mx = linalg.generic {{indexing_maps = [#id3, #row3], iterator_types = ["parallel", "parallel", "reduction"]}} ins(%sc : {SC}) outs(%mi : {R1}) {{
  ^bb0(%a: f32, %acc: f32):
    %v = arith.maximumf %a, %acc : f32
    linalg.yield %v : f32
  }} -> {R1}
  %ex = linalg.generic {{indexing_maps = [#id3, #row3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}} ins(%sc, %mx : {SC}, {R1}) outs(%sc0 : {SC}) {{
  ^bb0(%a: f32, %m: f32, %o: f32):
    %dd = arith.subf %a, %m : f32
    %ds = arith.mulf %dd, %scale : f32
    %v = math.exp %ds : f32
    linalg.yield %v : f32
  }} -> {SC}
  %si = linalg.fill ins(%zero : f32) outs(%r0 : {R1}) -> {R1}
  %sm = linalg.generic {{indexing_maps = [#id3, #row3], iterator_types = ["parallel", "parallel", "reduction"]}} ins(%ex : {SC}) outs(%si : {R1}) {{
  ^bb0(%a: f32, %acc: f32):
    %v = arith.addf %a, %acc : f32
    linalg.yield %v : f32
  }} -> {R1}
  %p0 = tensor.empty() : {SC16}
  %p = linalg.generic {{indexing_maps = [#id3, #row3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}} ins(%ex, %sm : {SC}, {R1}) outs(%p0 : {SC16}) {{
  ^bb0(%a: f32, %su: f32, %o: {dtype}):
    %v = arith.divf %a, %su : f32
    %v16 = arith.truncf %v : f32 to {dtype}
    linalg.yield %v16 : {dtype}
  }} -> {SC16}
  %cx0 = tensor.empty() : {CX}
  %cxz = linalg.fill ins(%zero : f32) outs(%cx0 : {CX}) -> {CX}
  %cx = linalg.batch_matmul ins(%p, %vh : {SC16}, {BHSD}) outs(%cxz : {CX}) -> {CX}
  %cx4 = tensor.expand_shape %cx [[0, 1], [2], [3]] output_shape [{b}, {h}, {s}, {dh}] : {CX} into {_t([b, h, s, dh], "f32")}
  %ct0 = tensor.empty() : {B4}
  %ct = linalg.generic {{indexing_maps = [affine_map<(i, j, k, l) -> (i, k, j, l)>, affine_map<(i, j, k, l) -> (i, j, k, l)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}} ins(%cx4 : {_t([b, h, s, dh], "f32")}) outs(%ct0 : {B4}) {{
  ^bb0(%a: f32, %o: {dtype}):
    %v16 = arith.truncf %a : f32 to {dtype}
    linalg.yield %v16 : {dtype}
  }} -> {B4}
  %ctx = tensor.collapse_shape %ct [[0, 1], [2, 3]] : {B4} into {TD}
"""
    text += spmm("at", "o", "ctx", TD, TD)
    text += _add("r1", "x", "at", [t, d], dtype)
    text += _layernorm("h1", "r1", t, d, ssa["ln1.weight"][1:], ssa["ln1.bias"][1:], dtype)
    text += spmm("f1", "ff1", "h1", TD, TF, act="gelu_erf")
    text += spmm("f2", "ff2", "f1", TF, TD)
    text += _add("r2", "h1", "f2", [t, d], dtype)
    text += _layernorm("y", "r2", t, d, ssa["ln2.weight"][1:], ssa["ln2.bias"][1:], dtype)
    text += f"  return %y : {TD}\n}}\n"
    return text


def bert_flop(batch, seq, hidden, ffn):
    t = batch * seq
    return 2.0 * t * hidden * (4 * hidden + 2 * ffn) + 2.0 * 2 * batch * seq * seq * hidden


def numpy_bert(x, w, vec, batch, seq, hidden, heads):
    """The layer's reference in f32 (f64 where PyTorch accumulates), rounding
    to f16 where the program does. w: {name: pruned N x K}, vec: {name: f32}."""
    import numpy as np
    f16 = lambda a: a.astype(np.float16).astype(np.float32)  # noqa: E731
    x = x.astype(np.float32)
    lin = lambda a, n: a @ w[n].astype(np.float32).T + vec[n + ".bias"]  # noqa: E731
    dh = hidden // heads

    def heads_of(a):
        return a.reshape(batch, seq, heads, dh).transpose(0, 2, 1, 3)
    q, k, v = (heads_of(f16(lin(x, n))) for n in ("q", "k", "v"))
    sc = q @ k.transpose(0, 1, 3, 2)
    e = np.exp((sc - sc.max(-1, keepdims=True)) / math.sqrt(dh))
    p = f16(e / e.sum(-1, keepdims=True))
    ctx = f16((p @ v).transpose(0, 2, 1, 3).reshape(batch * seq, hidden))

    def ln(r, n):
        mu = r.mean(-1, keepdims=True)
        var = ((r - mu) ** 2).mean(-1, keepdims=True)
        return f16((r - mu) / np.sqrt(var + LN_EPS) * vec[n + ".weight"] + vec[n + ".bias"])
    h1 = ln(f16(x + f16(lin(ctx, "o"))), "ln1")
    f1 = lin(h1, "ff1")
    from math import erf
    gelu = np.vectorize(lambda z: 0.5 * z * (1.0 + erf(z / math.sqrt(2.0))))
    f1 = f16(gelu(f1.astype(np.float64)).astype(np.float32))
    return ln(f16(h1 + f16(lin(f1, "ff2"))), "ln2")


def numpy_bert_params(rng, hidden, ffn):
    """Seeded weights (pruned, values, meta) and f32 vectors (f16 values)."""
    import numpy as np
    import format24
    w = {}
    for name, n, k in bert_weights(hidden, ffn):
        a = (rng.standard_normal((n, k)) / math.sqrt(k)).astype(np.float16)
        p = format24.prune24(a)
        v, m = format24.compress24(p)
        w[name] = (p, v, m.view(np.int16))
    vec = {}
    for name, n in bert_vectors(hidden, ffn):
        base = 1.0 if name.endswith(".weight") else 0.0
        vec[name] = (base + 0.1 * rng.standard_normal(n)).astype(np.float16).astype(np.float32)
    return w, vec


# ---------------------------------------------------------------------------
# ResNet-50 bottleneck block (NHWC, inference: BatchNorm folded into biases)
# ---------------------------------------------------------------------------

#: conv2_x's bottleneck (the first stage, identity shortcut): 56 x 56,
#: 256 -> 64 (1x1) -> 64 (3x3) -> 256 (1x1), + x, ReLU.
RESNET = {"height": 56, "width": 56, "channels": 256, "mid": 64}
RESNET_BATCHES = [32]
TINY_RESNET = {"height": 8, "width": 8, "channels": 128, "mid": 64}
TINY_RESNET_BATCHES = [2]


def resnet_convs(channels, mid):
    """[(name, out channels, in channels, kernel size, padding)]."""
    return [("conv1", mid, channels, 1, 0), ("conv2", mid, mid, 3, 1),
            ("conv3", channels, mid, 1, 0)]


def resnet_args(batch, height, width, channels, mid, dtype="f16"):
    args = [{"name": "x", "shape": [batch, height, width, channels], "dtype": dtype}]
    for name, f, c, k, _ in resnet_convs(channels, mid):
        kk = k * k * c
        args.append({"name": name + ".values", "shape": [f, kk // 2], "dtype": dtype})
        args.append({"name": name + ".meta", "shape": [f, kk // 16], "dtype": "i16"})
    for name, f, _, _, _ in resnet_convs(channels, mid):
        args.append({"name": name + ".bias", "shape": [f], "dtype": "f32"})
    return args


def resnet_mlir(func, batch, height, width, channels, mid, dtype="f16"):
    """The bottleneck as three stc.conv (ReLU and, in the last, the residual
    fused: act(conv + 1 * x + bias)) with compressed filter arguments."""
    a = {x["name"]: _t(x["shape"], x["dtype"])
         for x in resnet_args(batch, height, width, channels, mid, dtype)}
    ssa = {n: "%" + n.replace(".", "_") for n in a}
    sig = ",\n    ".join("%s: %s" % (ssa[n], ty) for n, ty in a.items())
    X = a["x"]
    M = _t([batch, height, width, mid], dtype)
    text = (f"// ResNet-50 bottleneck, batch {batch}, {height}x{width}, {channels} -> {mid} -> "
            f"{channels} (bench/gpu/e2e_blocks.py).\n"
            f"func.func @{func}({sig}) -> {X} {{\n")
    src = "x"
    for name, f, c, k, pad in resnet_convs(channels, mid):
        out_t = X if name == "conv3" else M
        acc = f" acc(%x : {X})" if name == "conv3" else ""
        beta = ", beta = 1.0" if name == "conv3" else ""
        text += (f"  %{name} = stc.conv {ssa[name + '.values']}, {ssa[name + '.meta']}, %{src} "
                 f"bias({ssa[name + '.bias']} : {a[name + '.bias']}){acc}\n"
                 f"      {{pattern = #stc.nm<2:4>, filter_size = array<i64: {k}, {k}>, "
                 f"strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, "
                 f"pad_low = array<i64: {pad}, {pad}>, pad_high = array<i64: {pad}, {pad}>, "
                 f"activation = #stc.activation<relu>{beta}}}\n"
                 f"      : {a[name + '.values']}, {a[name + '.meta']}, "
                 f"{X if src == 'x' else M} -> {out_t}\n")
        src = name
    return text + f"  return %conv3 : {X}\n}}\n"


def resnet_flop(batch, height, width, channels, mid):
    px = batch * height * width
    return 2.0 * px * (channels * mid + 9 * mid * mid + mid * channels)


def filter_matrix(w):
    """A F x C x KH x KW (PyTorch) filter as STC's F x (KH*KW*C) matrix."""
    f = w.shape[0]
    return w.transpose(0, 2, 3, 1).reshape(f, -1)


def numpy_resnet(x, w, bias):
    """The bottleneck in f32 (NHWC), rounding to f16 after each conv. w:
    {name: pruned F x C x KH x KW}, bias: {name: f32}."""
    import numpy as np
    f16 = lambda a: a.astype(np.float16).astype(np.float32)  # noqa: E731

    def conv(inp, wt, b, pad):
        n, h, wd, c = inp.shape
        f, _, k, _ = wt.shape
        p = np.pad(inp, ((0, 0), (pad, pad), (pad, pad), (0, 0)))
        out = np.zeros((n, h, wd, f), np.float32)
        for i in range(k):
            for j in range(k):
                out += p[:, i:i + h, j:j + wd, :] @ wt[:, :, i, j].astype(np.float32).T
        return out + b
    x = x.astype(np.float32)
    c1 = f16(np.maximum(conv(x, w["conv1"], bias["conv1.bias"], 0), 0))
    c2 = f16(np.maximum(conv(c1, w["conv2"], bias["conv2.bias"], 1), 0))
    return f16(np.maximum(conv(c2, w["conv3"], bias["conv3.bias"], 0) + x, 0))


def programs(tiny=False):
    """Every (block, size) of the benchmark: [{block, name, tokens, params}]."""
    dims, tokens = (TINY, TINY_TOKENS) if tiny else (LLAMA, LLAMA_TOKENS)
    out = [{"block": "llama_mlp", "name": "llama_mlp-t%d" % t, "tokens": t,
            "dtype": "f16", "params": dict(dims, tokens=t),
            "flop": mlp_flop(t, dims["hidden"], dims["intermediate"])}
           for t in tokens]
    dims, shapes = (TINY_BERT, TINY_BERT_SHAPES) if tiny else (BERT, BERT_SHAPES)
    out += [{"block": "bert_layer", "name": "bert_layer-b%ds%d" % (b, s), "tokens": b * s,
             "dtype": "f16", "params": dict(dims, batch=b, seq=s),
             "flop": bert_flop(b, s, dims["hidden"], dims["ffn"])}
            for b, s in shapes]
    dims, batches = (TINY_RESNET, TINY_RESNET_BATCHES) if tiny else (RESNET, RESNET_BATCHES)
    out += [{"block": "resnet_bottleneck", "name": "resnet_bottleneck-n%d" % n, "tokens": None,
             "batch": n, "dtype": "f16", "params": dict(dims, batch=n),
             "flop": resnet_flop(n, dims["height"], dims["width"], dims["channels"],
                                 dims["mid"])}
            for n in batches]
    return out


def program_args(p):
    q = p["params"]
    if p["block"] == "resnet_bottleneck":
        return resnet_args(q["batch"], q["height"], q["width"], q["channels"], q["mid"],
                           p["dtype"])
    if p["block"] == "bert_layer":
        return bert_args(q["batch"], q["seq"], q["hidden"], q["ffn"], p["dtype"])
    return mlp_args(q["tokens"], q["hidden"], q["intermediate"], p["dtype"])


def program_result(p):
    q = p["params"]
    if p["block"] == "resnet_bottleneck":
        return {"shape": [q["batch"], q["height"], q["width"], q["channels"]],
                "dtype": p["dtype"]}
    return {"shape": [p["tokens"], q["hidden"]], "dtype": p["dtype"]}


def program_mlir(p, func):
    q = p["params"]
    if p["block"] == "resnet_bottleneck":
        return resnet_mlir(func, q["batch"], q["height"], q["width"], q["channels"], q["mid"],
                           p["dtype"])
    if p["block"] == "bert_layer":
        return bert_mlir(func, q["batch"], q["seq"], q["hidden"], q["heads"], q["ffn"],
                         p["dtype"])
    return mlp_mlir(func, q["tokens"], q["hidden"], q["intermediate"], p["dtype"])


def numpy_case(p, rng):
    """Seeded NumPy arguments of a program (in order) and its reference."""
    import numpy as np
    q = p["params"]
    if p["block"] == "resnet_bottleneck":
        import format24
        x = rng.standard_normal((q["batch"], q["height"], q["width"],
                                 q["channels"])).astype(np.float16)
        arrays, pruned, bias = [x], {}, {}
        for name, f, c, k, _ in resnet_convs(q["channels"], q["mid"]):
            w = (rng.standard_normal((f, c, k, k)) / math.sqrt(c * k * k)).astype(np.float16)
            pm = format24.prune24(filter_matrix(w))
            v, m = format24.compress24(pm)
            pruned[name] = pm.reshape(f, k, k, c).transpose(0, 3, 1, 2)
            arrays += [v, m.view(np.int16)]
        for name, f, _, _, _ in resnet_convs(q["channels"], q["mid"]):
            bias[name + ".bias"] = (0.1 * rng.standard_normal(f)).astype(
                np.float16).astype(np.float32)
            arrays.append(bias[name + ".bias"])
        return [np.ascontiguousarray(a) for a in arrays], numpy_resnet(x, pruned, bias)
    x = rng.standard_normal((p["tokens"], q["hidden"])).astype(np.float16)
    if p["block"] == "bert_layer":
        w, vec = numpy_bert_params(rng, q["hidden"], q["ffn"])
        arrays = [x]
        for name, _, _ in bert_weights(q["hidden"], q["ffn"]):
            arrays += [w[name][1], w[name][2]]
        arrays += [vec[name] for name, _ in bert_vectors(q["hidden"], q["ffn"])]
        ref = numpy_bert(x, {k: v[0] for k, v in w.items()}, vec, q["batch"], q["seq"],
                         q["hidden"], q["heads"])
        return [np.ascontiguousarray(a) for a in arrays], ref
    w = numpy_weights(rng, q["hidden"], q["intermediate"])
    arrays = [x]
    for name, _, _ in mlp_weights(q["hidden"], q["intermediate"]):
        arrays += [w[name][1], w[name][2]]
    return [np.ascontiguousarray(a) for a in arrays], numpy_mlp(x, {k: v[0] for k, v in w.items()})
