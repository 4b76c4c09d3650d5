"""Single-operator (and few-operator) ONNX models for the ONNX front-end
tests: every converter and its attribute variants, on small shapes, against
the reference of onnx_ref.py.  Same conventions as onnx_cases.py: each case
is (rng, dtype, batch) -> ModelProto.
"""

import numpy as np
from onnx import TensorProto

from onnx_cases import Builder


def _one(op_type, in_shape, out_shape, *extra_inputs, opset=17, **attrs):
    """A model computing `op_type` of input x (and constant extra inputs)."""
    def build(rng, dtype, batch):
        g = Builder(rng, dtype)
        ins = ["x"] + [e(g) if callable(e) else e for e in extra_inputs]
        g.op(op_type, ins, **attrs)
        g.nodes[-1].output[0] = "y"
        shape = [batch if d == "B" else d for d in in_shape]
        out = [batch if d == "B" else d for d in out_shape]
        return g.model([("x", None, shape)], [("y", None, out)], opset=opset)
    return build


def _w(shape, sparse=False, axis=1):
    return lambda g: g.weight(shape, sparse=sparse,
                              axis=axis if len(shape) > 1 else 0)


def _ints(values):
    return lambda g: g.ints(values)


def _scalar(value):
    return lambda g: g.scalar(value)


CONV = dict(
    conv_grouped=_one("Conv", ["B", 8, 9, 9], ["B", 12, 9, 9],
                      _w((12, 4, 3, 3)), _w((12,)), group=2,
                      pads=[1, 1, 1, 1]),
    conv_depthwise=_one("Conv", ["B", 8, 9, 9], ["B", 8, 5, 5],
                        _w((8, 1, 3, 3)), group=8, strides=[2, 2],
                        pads=[1, 1, 1, 1]),
    conv_same_upper=_one("Conv", ["B", 6, 7, 8], ["B", 8, 4, 4],
                         _w((8, 6, 2, 3)), auto_pad="SAME_UPPER",
                         strides=[2, 2]),
    conv_same_lower=_one("Conv", ["B", 6, 7, 8], ["B", 8, 4, 4],
                         _w((8, 6, 2, 3)), auto_pad="SAME_LOWER",
                         strides=[2, 2]),
    conv_dilated=_one("Conv", ["B", 4, 10, 10], ["B", 8, 6, 8],
                      _w((8, 4, 3, 3)), _w((8,)), dilations=[2, 1],
                      pads=[0, 0, 0, 0]),
    conv_valid_asym=_one("Conv", ["B", 5, 8, 8], ["B", 4, 4, 2],
                         _w((4, 5, 3, 3)), pads=[1, 0, 0, 0],
                         strides=[2, 3]),
    # 1-D (N x C x L, torch's nn.Conv1d): strided and padded with a bias;
    # grouped and dilated; auto_pad SAME_LOWER with a stride.
    conv1d_bias=_one("Conv", ["B", 8, 20], ["B", 12, 10], _w((12, 8, 3)),
                     _w((12,)), strides=[2], pads=[1, 1]),
    conv1d_grouped_dilated=_one("Conv", ["B", 8, 16], ["B", 8, 12],
                                _w((8, 4, 3)), group=2, dilations=[2]),
    conv1d_same=_one("Conv", ["B", 6, 15], ["B", 8, 8], _w((8, 6, 4)),
                     auto_pad="SAME_LOWER", strides=[2]),
)

POOL = dict(
    maxpool_ceil=_one("MaxPool", ["B", 3, 8, 8], ["B", 3, 4, 4],
                      kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1),
    maxpool_dilated=_one("MaxPool", ["B", 3, 9, 9], ["B", 3, 5, 5],
                         kernel_shape=[2, 2], dilations=[2, 2],
                         pads=[1, 1, 1, 1], strides=[2, 2]),
    avgpool_exclude_pad=_one("AveragePool", ["B", 3, 7, 7], ["B", 3, 4, 4],
                             kernel_shape=[3, 3], strides=[2, 2],
                             pads=[1, 1, 1, 1]),
    avgpool_include_pad=_one("AveragePool", ["B", 3, 7, 7], ["B", 3, 4, 4],
                             kernel_shape=[3, 3], strides=[2, 2],
                             pads=[1, 1, 1, 1], count_include_pad=1),
    # 1-D (nn.MaxPool1d, nn.AvgPool1d).
    maxpool1d_ceil_dilated=_one("MaxPool", ["B", 3, 17], ["B", 3, 8],
                                kernel_shape=[3], strides=[2], dilations=[2],
                                pads=[1, 1], ceil_mode=1),
    avgpool1d_exclude_pad=_one("AveragePool", ["B", 4, 15], ["B", 4, 8],
                               kernel_shape=[3], strides=[2], pads=[1, 1]),
    global_maxpool=_one("GlobalMaxPool", ["B", 5, 4, 6], ["B", 5, 1, 1]),
    global_avgpool=_one("GlobalAveragePool", ["B", 5, 4, 6], ["B", 5, 1, 1]),
)

NORM = dict(
    softmax_axis1=_one("Softmax", ["B", 6, 5], ["B", 6, 5], axis=1),
    layernorm_axis1=_one("LayerNormalization", ["B", 3, 8], ["B", 3, 8],
                         lambda g: g.tensor(g.name("s"), 1 + g.rng.random(
                             (3, 8))), _w((3, 8)), axis=1, epsilon=1e-3),
    reduce_mean=_one("ReduceMean", ["B", 4, 6], ["B", 1, 6], axes=[1]),
    reduce_max=_one("ReduceMax", ["B", 4, 6], ["B", 4], axes=[-1],
                    keepdims=0),
    reduce_sum=_one("ReduceSum", ["B", 4, 6], ["B", 4, 1],
                    _ints([2])),
)


def _math(rng, dtype, batch):
    """Every unary and broadcasting binary element-wise operator, chained:
    positive inputs for Sqrt/Log/Pow."""
    g = Builder(rng, dtype)
    x = "x"
    a = g.op("Abs", [x])
    pos = g.op("Add", [a, g.scalar(0.5)])
    terms = [g.op("Sigmoid", [x]), g.op("Tanh", [x]), g.op("Erf", [x]),
             g.op("Sqrt", [pos]), g.op("Log", [pos]),
             g.op("Exp", [g.op("Neg", [a])]), g.op("Reciprocal", [pos]),
             g.op("Pow", [pos, g.weight((6,), 1.0)]),
             g.op("Pow", [x, g.scalar(2.0)]),
             g.op("Sub", [g.weight((1, 6)), x]),
             g.op("Div", [x, pos]),
             g.op("Clip", [x, g.scalar(-0.5), g.scalar(0.7)]),
             g.op("Mul", [x, g.weight((4, 1), 1.0)])]
    y = terms[0]
    for t in terms[1:]:
        y = g.op("Add", [y, t])
    g.nodes[-1].output[0] = "y"
    return g.model([("x", None, [batch, 4, 6])], [("y", None, [batch, 4, 6])])


def _shapes(rng, dtype, batch):
    """Flatten, Reshape (0 and -1), Transpose, Unsqueeze, Squeeze, Concat,
    Slice, Identity, Dropout, Cast (f32 -> i32 -> f32 truncates), a shape
    computed with Shape/Gather/Concat (folded at import)."""
    g = Builder(rng, dtype)
    f = g.op("Flatten", ["x"], axis=2)                    # [3B, 20]
    r = g.op("Reshape", [f, g.ints([-1, 12, 5])])         # [B, 12, 5]
    t = g.op("Transpose", [r], perm=[0, 2, 1])            # [B, 5, 12]
    t = g.op("Reshape", [t, g.ints([0, 0, 12])])          # the same
    u = g.op("Unsqueeze", [t, g.ints([1, -1])])           # [B, 1, 5, 12, 1]
    s = g.op("Squeeze", [u, g.ints([1])])                 # [B, 5, 12, 1]
    s = g.op("Squeeze", [s, g.ints([3])])                 # [B, 5, 12]
    c = g.op("Concat", [s, g.weight((batch, 5, 4), 1.0)], axis=-1)
    sl = g.op("Slice", [c, g.ints([1, 2]), g.ints([5, 1000]), g.ints([1, 2]),
                        g.ints([2, 3])])                  # [B, 2, 5]
    d = g.op("Dropout", [g.op("Identity", [sl])])
    i = g.op("Cast", [g.op("Mul", [d, g.scalar(4.0)])], to=TensorProto.INT32)
    back = g.op("Cast", [i], to=g.elem)
    shape = g.op("Shape", [back])                          # [B, 2, 5]
    last = g.op("Gather", [shape, g.ints([2])])
    flat = g.op("Concat", [g.op("Gather", [shape, g.ints([0])]),
                           g.ints([-1]), last], axis=0)
    g.op("Reshape", [back, flat])
    g.nodes[-1].output[0] = "y"
    return g.model([("x", None, [batch, 3, 4, 5])],
                   [("y", None, [batch, 2, 5])])


def _embedding(rng, dtype, batch):
    """Gather of token ids from an embedding table (negative ids count from
    the end) plus a positional embedding row picked with a scalar index."""
    g = Builder(rng, dtype)
    table = g.weight((50, 16), 1.0)
    e = g.op("Gather", [table, "ids"], axis=0)              # [B, 7, 16]
    pos = g.op("Gather", [g.weight((4, 16), 1.0), g.scalar(3, TensorProto.
                                                           INT64)], axis=0)
    g.op("Add", [e, pos])
    g.nodes[-1].output[0] = "y"
    return g.model([("ids", TensorProto.INT64, [batch, 7])],
                   [("y", None, [batch, 7, 16])])


def _matmuls(rng, dtype, batch):
    """MatMul broadcasting: [B,3,4,5] x [5,6] (flattened), [B,3,4,5] x
    [3,5,2] (batch broadcast), [5] x [5,6] and [B,3,4,5] x [5] (rank 1),
    and Gemm with transA, alpha and beta and a [1, N] C."""
    g = Builder(rng, dtype)
    a = g.op("MatMul", ["x", g.weight((5, 6))])              # [B,3,4,6]
    b = g.op("MatMul", ["x", g.weight((3, 5, 2))])           # [B,3,4,2]
    v = g.op("MatMul", [g.weight((5,), 1.0), g.weight((5, 6))])  # [6]
    w = g.op("MatMul", ["x", g.weight((5,), 1.0)])           # [B,3,4]
    s = g.op("Add", [g.op("ReduceSum", [a, g.ints([-1])]),
                     g.op("ReduceSum", [b, g.ints([-1])])])  # [B,3,4,1]
    s = g.op("Add", [g.op("Squeeze", [s, g.ints([-1])]), w])  # [B,3,4]
    flat = g.op("Reshape", [s, g.ints([-1, 4])])             # [3B, 4]
    gm = g.op("Gemm", [g.weight((6, 3 * batch)), flat, g.weight((1, 4))],
              alpha=0.5, beta=2.0)                           # [6, 4]
    gm = g.op("Gemm", [gm, g.weight((6, 6)), g.weight((1, 6))], transA=1,
              alpha=1.5, beta=0.25)                          # [4, 6]
    g.op("Add", [gm, v])
    g.nodes[-1].output[0] = "y"
    return g.model([("x", None, [batch, 3, 4, 5])], [("y", None, [4, 6])])


def _batchnorm(rng, dtype, batch):
    """BatchNormalization that cannot fold (its input is a ReLU)."""
    g = Builder(rng, dtype)
    bn = [g.tensor(g.name("bn"), v) for v in (
        1 + g.rng.random(5), g.rng.standard_normal(5),
        g.rng.standard_normal(5), 1 + g.rng.random(5))]
    g.op("BatchNormalization", [g.op("Relu", ["x"])] + bn, epsilon=1e-3)
    g.nodes[-1].output[0] = "y"
    return g.model([("x", None, [batch, 5, 3, 3])],
                   [("y", None, [batch, 5, 3, 3])])


def _linear_bn(rng, dtype, batch):
    """nn.Linear then BatchNorm1d (folded into the Gemm at import), twice:
    transB=1 with a bias, transB=0 without one."""
    g = Builder(rng, dtype)

    def bn(x, n):
        return g.op("BatchNormalization", [x] + [
            g.tensor(g.name("bn"), v) for v in (
                1 + g.rng.random(n), g.rng.standard_normal(n),
                g.rng.standard_normal(n), 1 + g.rng.random(n))], epsilon=1e-3)

    h = g.op("Gemm", ["x", g.weight((12, 8)), g.weight((12,))], transB=1,
             beta=0.5)
    h = g.op("Relu", [bn(h, 12)])
    y = bn(g.op("Gemm", [h, g.weight((12, 8))], alpha=2.0), 8)
    g.nodes[-1].output[0] = "y"
    return g.model([("x", None, [batch, 8])], [("y", None, [batch, 8])])


def _conv1d_bn(rng, dtype, batch):
    """nn.Conv1d, BatchNorm1d (folded into the Conv at import), ReLU, and a
    second Conv1d: a temporal convolution block."""
    g = Builder(rng, dtype)
    h = g.op("Conv", ["x", g.weight((16, 8, 5), axis=1)], pads=[2, 2])
    h = g.op("BatchNormalization", [h] + [
        g.tensor(g.name("bn"), v) for v in (
            1 + 0.1 * g.rng.standard_normal(16), 0.1 * g.rng.standard_normal(16),
            0.1 * g.rng.standard_normal(16),
            1 + 0.1 * np.abs(g.rng.standard_normal(16)))], epsilon=1e-5)
    h = g.op("Relu", [h])
    g.op("Conv", [h, g.weight((8, 16, 3), axis=1), g.weight((8,))],
         strides=[2])
    g.nodes[-1].output[0] = "y"
    return g.model([("x", None, [batch, 8, 24])], [("y", None, [batch, 8, 11])])


CASES = dict(CONV, **POOL, **NORM, math=_math, shapes=_shapes,
             embedding=_embedding, matmuls=_matmuls, batchnorm=_batchnorm,
             linear_bn=_linear_bn, conv1d_bn=_conv1d_bn)
INPUT_RANGES = {"embedding": {"ids": (-50, 50)}}
