"""Independent NumPy reference of ONNX semantics, for the ONNX front-end tests.

Written from the ONNX operator specification (opsets 13-17), not from the
importer: it interprets a ModelProto node by node in float64, rounding every
node's output to that tensor's element type (FLOAT, FLOAT16, BFLOAT16, INT8,
INT64), which is the semantics an ONNX runtime computes.  onnx 1.12 (Debian)
has no onnx.reference, hence this module.

`run(model, inputs, sparsity=...)` also models what STC's --sparsity option
does to the weights of contractions (docs/DESIGN.md §5), with the 2:4 pruning
of test/lib/stc_ref.py:
  explicit  nothing is pruned;
  enable    nothing changes numerically (only weights already 2:4 are used
            sparse);
  force     every MatMul/Gemm/Conv prunes its weight 2:4 along the reduction
            (K; input channels of a Conv, per output channel and filter
            position): the constant operand when exactly one is constant,
            else the right-hand one (for a batched MatMul only when the batch
            is static and at most 64, which STC unrolls).  Depthwise
            convolutions (one input channel per group) stay dense.
"""

import math

import numpy as np
from onnx import numpy_helper

import stc_ref

FLOAT, UINT8, INT8, INT32, INT64, BOOL, FLOAT16, DOUBLE, BFLOAT16 = \
    1, 2, 3, 6, 7, 9, 10, 11, 16

_ERF = np.vectorize(math.erf, otypes=[np.float64])


def round_to_dtype(x, dtype):
    """`x` (float64 or int) rounded to ONNX element type `dtype`, returned as
    float64 for float types and int64 for integer ones."""
    if dtype == FLOAT:
        return np.asarray(x, np.float32).astype(np.float64)
    if dtype == FLOAT16:
        return stc_ref.round_to(x, "f16")
    if dtype == BFLOAT16:
        return stc_ref.round_to(x, "bf16")
    if dtype == DOUBLE:
        return np.asarray(x, np.float64)
    if dtype in (INT8, INT32, INT64, UINT8, BOOL):
        return np.asarray(x).astype(np.int64)
    raise ValueError("onnx_ref: unsupported element type %d" % dtype)


class Value:
    """A tensor: float64 or int64 data and its ONNX element type."""

    def __init__(self, data, dtype):
        self.data = round_to_dtype(data, dtype)
        self.dtype = dtype


def _attrs(node):
    from onnx import helper
    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


# ---------------------------------------------------------------------------
# Pruning policy (--sparsity)
# ---------------------------------------------------------------------------

def _prune(w, axis):
    return stc_ref.prune_nm(w, 2, 4, axis=axis)


def _prune_filter(w):
    """F x C x KH x KW filter, 2:4 along C (zero-padded to a multiple of 4)
    for every (f, kh, kw)."""
    return _prune(w, 1)


# ---------------------------------------------------------------------------
# Operators: each takes (inputs as Value or None, attrs, ctx) and returns
# a list of (data, dtype).
# ---------------------------------------------------------------------------

def _unary(fn):
    return lambda ins, a, ctx: [(fn(ins[0].data), ins[0].dtype)]


def _binary(fn):
    return lambda ins, a, ctx: [(fn(ins[0].data, ins[1].data), ins[0].dtype)]


def _matmul(ins, a, ctx):
    x, w = ins[0], ins[1]
    xd, wd = x.data, w.data
    if ctx.sparsity == "force":
        xc, wc = ctx.is_const(0), ctx.is_const(1)
        if xc and not wc:
            if xd.ndim == 2:
                xd = _prune(xd, 1)
        elif wd.ndim == 2:
            wd = _prune(wd, 0)
        elif ctx.static_batch(xd, wd):
            wd = _prune(wd, -2)
    return [(np.matmul(xd.astype(np.float64), wd.astype(np.float64)),
             x.dtype)]


def _gemm(ins, a, ctx):
    A, B = ins[0].data, ins[1].data
    if a.get("transA", 0):
        A = A.T
    bd = B
    if ctx.sparsity == "force":
        bd = _prune(B, 1 if a.get("transB", 0) else 0)
    if a.get("transB", 0):
        bd = bd.T
    y = a.get("alpha", 1.0) * (A @ bd)
    if len(ins) > 2 and ins[2] is not None:
        y = y + a.get("beta", 1.0) * ins[2].data
    return [(y, ins[0].dtype)]


def _pads_for(a, spatial, kernel, strides, dilations):
    auto = a.get("auto_pad", b"NOTSET")
    auto = auto.decode() if isinstance(auto, bytes) else auto
    if auto in ("SAME_UPPER", "SAME_LOWER"):
        begin, end = [], []
        for i, n in enumerate(spatial):
            out = -(-n // strides[i])
            extent = (kernel[i] - 1) * dilations[i] + 1
            total = max(0, (out - 1) * strides[i] + extent - n)
            small = total // 2
            b = small if auto == "SAME_UPPER" else total - small
            begin.append(b)
            end.append(total - b)
        return begin, end
    pads = list(a.get("pads", [0] * (2 * len(spatial))))
    if auto == "VALID":
        pads = [0] * (2 * len(spatial))
    return pads[:len(spatial)], pads[len(spatial):]


def _windows(xp, kernel, strides, dilations, out):
    """Yields (kh, kw, slice of xp [N, C, OH, OW]) for every window offset."""
    for kh in range(kernel[0]):
        for kw in range(kernel[1]):
            h0, w0 = kh * dilations[0], kw * dilations[1]
            yield kh, kw, xp[:, :, h0:h0 + strides[0] * (out[0] - 1) + 1:
                             strides[0],
                             w0:w0 + strides[1] * (out[1] - 1) + 1:
                             strides[1]]


def _one_d(op):
    """A window op (Conv, MaxPool, AveragePool) that also takes a 1-D
    N x C x L input (and a 1-D F x C x K filter) as the 2-D op over a height
    of 1: attributes get a leading 1 (pads [b, e] become [0, b, 0, e])."""
    def wrapped(ins, a, ctx):
        if ins[0].data.ndim != 3:
            return op(ins, a, ctx)
        a = dict(a)
        for key in ("strides", "dilations", "kernel_shape"):
            if key in a:
                a[key] = [1] + list(a[key])
        if "pads" in a:
            a["pads"] = [0, a["pads"][0], 0, a["pads"][1]]
        lifted = [Value(v.data[:, :, None, :], v.dtype)
                  if v is not None and v.data.ndim == 3 else v for v in ins]
        return [(y[:, :, 0, :], dtype) for y, dtype in op(lifted, a, ctx)]
    return wrapped


@_one_d
def _conv(ins, a, ctx):
    x, w = ins[0].data, ins[1].data
    group = a.get("group", 1)
    kernel = list(w.shape[2:])
    strides = list(a.get("strides", [1, 1]))
    dilations = list(a.get("dilations", [1, 1]))
    begin, end = _pads_for(a, x.shape[2:], kernel, strides, dilations)
    if ctx.sparsity == "force" and w.shape[1] > 1:
        w = _prune_filter(w)
    xp = np.pad(x, ((0, 0), (0, 0), (begin[0], end[0]), (begin[1], end[1])))
    out = [(xp.shape[2 + i] - ((kernel[i] - 1) * dilations[i] + 1))
           // strides[i] + 1 for i in range(2)]
    n, c = x.shape[0], x.shape[1]
    f = w.shape[0]
    cg, fg = c // group, f // group
    y = np.zeros((n, f, out[0], out[1]))
    for kh, kw, sl in _windows(xp, kernel, strides, dilations, out):
        for g in range(group):
            y[:, g * fg:(g + 1) * fg] += np.einsum(
                "nchw,fc->nfhw", sl[:, g * cg:(g + 1) * cg],
                w[g * fg:(g + 1) * fg, :, kh, kw])
    if len(ins) > 2 and ins[2] is not None:
        y += ins[2].data.reshape(1, f, 1, 1)
    return [(y, ins[0].dtype)]


def _batchnorm(ins, a, ctx):
    x = ins[0].data
    shape = (1, -1) + (1,) * (x.ndim - 2)
    scale, bias, mean, var = (v.data.reshape(shape) for v in ins[1:5])
    eps = a.get("epsilon", 1e-5)
    return [((x - mean) / np.sqrt(var + eps) * scale + bias, ins[0].dtype)]


def _layernorm(ins, a, ctx):
    x = ins[0].data
    axis = a.get("axis", -1) % x.ndim
    axes = tuple(range(axis, x.ndim))
    mean = x.mean(axis=axes, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
    y = (x - mean) / np.sqrt(var + a.get("epsilon", 1e-5)) * ins[1].data
    if len(ins) > 2 and ins[2] is not None:
        y = y + ins[2].data
    return [(y, ins[0].dtype)]


def _softmax(ins, a, ctx):
    x = ins[0].data
    axis = a.get("axis", -1)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return [(e / e.sum(axis=axis, keepdims=True), ins[0].dtype)]


def _reduce(fn):
    def op(ins, a, ctx):
        x = ins[0].data
        axes = a.get("axes")
        if axes is None and len(ins) > 1 and ins[1] is not None:
            axes = [int(v) for v in ins[1].data.reshape(-1)]
        axes = tuple(range(x.ndim)) if not axes else tuple(
            int(v) % x.ndim for v in axes)
        return [(fn(x, axis=axes, keepdims=bool(a.get("keepdims", 1))),
                 ins[0].dtype)]
    return op


def _pool(kind):
    @_one_d
    def op(ins, a, ctx):
        x = ins[0].data
        kernel = list(a["kernel_shape"])
        strides = list(a.get("strides", [1, 1]))
        dilations = list(a.get("dilations", [1, 1]))
        begin, end = _pads_for(a, x.shape[2:], kernel, strides, dilations)
        ceil = a.get("ceil_mode", 0)
        out = []
        for i in range(2):
            span = x.shape[2 + i] + begin[i] + end[i] - \
                ((kernel[i] - 1) * dilations[i] + 1)
            out.append((-(-span // strides[i]) if ceil else
                        span // strides[i]) + 1)
        extra = [max(0, (out[i] - 1) * strides[i] + (kernel[i] - 1) *
                     dilations[i] + 1 - (x.shape[2 + i] + begin[i] + end[i]))
                 for i in range(2)]
        pad = ((0, 0), (0, 0), (begin[0], end[0] + extra[0]),
               (begin[1], end[1] + extra[1]))
        if kind == "max":
            xp = np.pad(x, pad, constant_values=-np.inf)
            y = np.full((x.shape[0], x.shape[1], out[0], out[1]), -np.inf)
            for _, _, sl in _windows(xp, kernel, strides, dilations, out):
                y = np.maximum(y, sl)
            return [(y, ins[0].dtype)]
        xp = np.pad(x, pad)
        ones = np.pad(np.ones((1, 1) + x.shape[2:]), pad)
        total = np.zeros((x.shape[0], x.shape[1], out[0], out[1]))
        count = np.zeros((1, 1, out[0], out[1]))
        for _, _, sl in _windows(xp, kernel, strides, dilations, out):
            total += sl
        for _, _, sl in _windows(ones, kernel, strides, dilations, out):
            count += sl
        if a.get("count_include_pad", 0):
            count = np.full_like(count, kernel[0] * kernel[1])
        return [(total / count, ins[0].dtype)]
    return op


def _global_pool(fn):
    def op(ins, a, ctx):
        x = ins[0].data
        return [(fn(x, axis=tuple(range(2, x.ndim)), keepdims=True),
                 ins[0].dtype)]
    return op


def _flatten(ins, a, ctx):
    x = ins[0].data
    axis = a.get("axis", 1)
    if axis < 0:
        axis += x.ndim
    lead = int(np.prod(x.shape[:axis]))
    return [(x.reshape(lead, -1) if x.size else x.reshape(lead, 0),
             ins[0].dtype)]


def _reshape(ins, a, ctx):
    x = ins[0].data
    shape = [int(v) for v in ins[1].data]
    if not a.get("allowzero", 0):
        shape = [x.shape[i] if v == 0 else v for i, v in enumerate(shape)]
    return [(x.reshape(shape), ins[0].dtype)]


def _unsqueeze(ins, a, ctx):
    x = ins[0].data
    axes = [int(v) for v in ins[1].data.reshape(-1)]
    rank = x.ndim + len(axes)
    for ax in sorted(v % rank for v in axes):
        x = np.expand_dims(x, ax)
    return [(x, ins[0].dtype)]


def _squeeze(ins, a, ctx):
    x = ins[0].data
    if len(ins) > 1 and ins[1] is not None:
        axes = tuple(int(v) % x.ndim for v in ins[1].data.reshape(-1))
    else:
        axes = tuple(i for i, d in enumerate(x.shape) if d == 1)
    return [(np.squeeze(x, axis=axes), ins[0].dtype)]


def _slice(ins, a, ctx):
    x = ins[0].data
    starts = [int(v) for v in ins[1].data]
    ends = [int(v) for v in ins[2].data]
    axes = [int(v) for v in ins[3].data] if len(ins) > 3 and ins[3] is not None \
        else list(range(len(starts)))
    steps = [int(v) for v in ins[4].data] if len(ins) > 4 and \
        ins[4] is not None else [1] * len(starts)
    index = [slice(None)] * x.ndim
    for s, e, ax, st in zip(starts, ends, axes, steps):
        index[ax % x.ndim] = slice(s, e, st)
    return [(x[tuple(index)], ins[0].dtype)]


def _gather(ins, a, ctx):
    x, idx = ins[0].data, ins[1].data.astype(np.int64)
    axis = a.get("axis", 0) % x.ndim
    return [(np.take(x, idx, axis=axis), ins[0].dtype)]


def _concat(ins, a, ctx):
    return [(np.concatenate([v.data for v in ins], axis=a.get("axis", 0)),
             ins[0].dtype)]


def _transpose(ins, a, ctx):
    perm = a.get("perm")
    return [(np.transpose(ins[0].data, perm), ins[0].dtype)]


def _cast(ins, a, ctx):
    to = a["to"]
    x = ins[0].data
    if to in (INT8, INT32, INT64):
        x = np.trunc(x)
    return [(x, to)]


def _clip(ins, a, ctx):
    x = ins[0].data
    if len(ins) > 1 and ins[1] is not None:
        x = np.maximum(x, ins[1].data)
    if len(ins) > 2 and ins[2] is not None:
        x = np.minimum(x, ins[2].data)
    return [(x, ins[0].dtype)]


def _axis_shape(a, rank, scale):
    if scale.size == 1:
        return scale.reshape(())
    shape = [1] * rank
    shape[a.get("axis", 1) % rank] = -1
    return scale.reshape(shape)


def _quantize(ins, a, ctx):
    x = ins[0].data
    s = _axis_shape(a, x.ndim, ins[1].data)
    zp = ins[2]
    q = np.clip(np.round(x / s), -128, 127)  # np.round: half to even
    return [(q, zp.dtype if zp is not None else UINT8)]


def _dequantize(ins, a, ctx):
    q = ins[0].data
    s = _axis_shape(a, q.ndim, ins[1].data)
    return [(q * s, ins[1].dtype)]


def _constant(node):
    a = _attrs(node)
    if "value" in a:
        t = a["value"]
        return numpy_helper.to_array(t).astype(np.float64), t.data_type
    if "value_float" in a:
        return np.array(a["value_float"]), FLOAT
    if "value_floats" in a:
        return np.array(a["value_floats"]), FLOAT
    if "value_int" in a:
        return np.array(a["value_int"]), INT64
    return np.array(a["value_ints"]), INT64


OPS = {
    "Relu": _unary(lambda x: np.maximum(x, 0)),
    "Sigmoid": _unary(lambda x: 1 / (1 + np.exp(-x))),
    "Tanh": _unary(np.tanh),
    "Erf": _unary(_ERF),
    "Sqrt": _unary(np.sqrt),
    "Exp": _unary(np.exp),
    "Log": _unary(np.log),
    "Abs": _unary(np.abs),
    "Neg": _unary(np.negative),
    "Reciprocal": _unary(lambda x: 1 / x),
    "Identity": _unary(lambda x: x),
    "Dropout": _unary(lambda x: x),
    "Add": _binary(np.add),
    "Sub": _binary(np.subtract),
    "Mul": _binary(np.multiply),
    "Div": _binary(lambda x, y: np.trunc(x / y) if x.dtype == np.int64
                   else x / y),
    "Pow": _binary(np.power),
    "MatMul": _matmul,
    "Gemm": _gemm,
    "Conv": _conv,
    "BatchNormalization": _batchnorm,
    "LayerNormalization": _layernorm,
    "Softmax": _softmax,
    "ReduceMean": _reduce(np.mean),
    "ReduceSum": _reduce(np.sum),
    "ReduceMax": _reduce(np.max),
    "MaxPool": _pool("max"),
    "AveragePool": _pool("avg"),
    "GlobalAveragePool": _global_pool(np.mean),
    "GlobalMaxPool": _global_pool(np.max),
    "Flatten": _flatten,
    "Reshape": _reshape,
    "Unsqueeze": _unsqueeze,
    "Squeeze": _squeeze,
    "Slice": _slice,
    "Gather": _gather,
    "Concat": _concat,
    "Transpose": _transpose,
    "Cast": _cast,
    "Clip": _clip,
    "QuantizeLinear": _quantize,
    "DequantizeLinear": _dequantize,
    "Shape": lambda ins, a, ctx: [(np.array(ins[0].data.shape), INT64)],
}


class _Context:
    """What an operator may ask about the node it computes."""

    def __init__(self, consts, node, sparsity, static_batch):
        self.consts, self.node = consts, node
        self.sparsity = sparsity
        self.batch_static = static_batch

    def is_const(self, i):
        return self.node.input[i] in self.consts

    def static_batch(self, x, w):
        batch = np.broadcast_shapes(x.shape[:-2], w.shape[:-2])
        return 0 < int(np.prod(batch)) <= 64 and self.batch_static


def run(model, inputs, sparsity="explicit", static_batch=True):
    """Evaluates `model` on `inputs` (name -> numpy array). Returns the graph
    outputs in order, as float64/int64 arrays. `static_batch` says whether
    the program STC compiles has static batched-MatMul batch sizes (what
    force splits)."""
    graph = model.graph
    env = {}
    consts = set()
    for t in graph.initializer:
        env[t.name] = Value(numpy_helper.to_array(t).astype(np.float64),
                            t.data_type)
        consts.add(t.name)
    for vi in graph.input:
        if vi.name in env:
            continue
        env[vi.name] = Value(np.asarray(inputs[vi.name], np.float64),
                             vi.type.tensor_type.elem_type)
    for node in graph.node:
        if node.op_type == "Constant":
            data, dtype = _constant(node)
            env[node.output[0]] = Value(data, dtype)
            consts.add(node.output[0])
            continue
        ins = [env[n] if n else None for n in node.input]
        ctx = _Context(consts, node, sparsity, static_batch)
        outs = OPS[node.op_type](ins, _attrs(node), ctx)
        for name, (data, dtype) in zip(node.output, outs):
            env[name] = Value(data, dtype)
        # Outputs computed only from constants are constants (STC folds
        # them, e.g. a dequantized weight).
        if node.op_type in ("DequantizeLinear", "Identity", "Cast",
                            "Reshape", "Unsqueeze", "Squeeze") and \
                node.input[0] in consts:
            consts.add(node.output[0])
    return [env[vi.name].data for vi in graph.output]
