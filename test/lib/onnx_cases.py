"""ONNX test models for the ONNX front-end tests, built with onnx.helper.

Every case is a function (rng, dtype, batch) -> ModelProto with seeded
random weights: `dtype` is "f32", "f16" or "bf16" (the model's float type),
`batch` an int (static batch) or a string (a symbolic, dynamic batch).
`CASES` maps the case names to them; `INPUT_RANGES` gives integer inputs
(Gather indices) their range.  Models are written into a test's %t at test
time, never committed.

MLP, transformer encoder and ResNet cases use the operators those models
export with (torch.onnx in opset 14-17 writes the same node patterns: Gemm
with transB for nn.Linear, MatMul + Add on 3-D activations, the Erf GELU,
LayerNormalization at opset 17 and its ReduceMean decomposition below it,
Conv + BatchNormalization).
"""

import numpy as np
from onnx import TensorProto, helper, numpy_helper

import stc_ref

DTYPES = {"f32": TensorProto.FLOAT, "f16": TensorProto.FLOAT16,
          "bf16": TensorProto.BFLOAT16}


class Builder:
    """Collects nodes and initializers of one graph."""

    def __init__(self, rng, dtype):
        self.rng, self.dtype = rng, dtype
        self.elem = DTYPES[dtype]
        self.nodes, self.inits, self.count = [], [], 0

    def name(self, prefix):
        self.count += 1
        return "%s_%d" % (prefix, self.count)

    def tensor(self, name, array, elem=None):
        """An initializer; float arrays take the model's float type."""
        array = np.asarray(array)
        elem = elem or (self.elem if array.dtype.kind == "f" else None)
        if elem == TensorProto.BFLOAT16:
            bits = stc_ref.to_bf16(array).view(np.uint32) >> 16
            t = helper.make_tensor(name, elem, array.shape,
                                   bits.astype(np.uint16).tobytes(), raw=True)
        elif elem == TensorProto.FLOAT16:
            t = numpy_helper.from_array(array.astype(np.float16), name)
        elif elem == TensorProto.FLOAT:
            t = numpy_helper.from_array(array.astype(np.float32), name)
        else:
            t = numpy_helper.from_array(array, name)
        self.inits.append(t)
        return name

    def weight(self, shape, scale=None, name=None, sparse=False, axis=0):
        """A normal random weight scaled by 1/sqrt(fan-in); 2:4 along `axis`
        when `sparse`."""
        fan_in = int(np.prod(shape[1:])) if len(shape) > 2 else shape[axis]
        w = self.rng.standard_normal(shape) * (scale or 1 / np.sqrt(fan_in))
        if sparse:
            w = stc_ref.prune_nm(w, 2, 4, axis=axis)
        return self.tensor(name or self.name("w"), w)

    def scalar(self, value, elem=None):
        """A rank-0 initializer: the model's float type, or `elem`
        (TensorProto.INT8, INT64)."""
        if elem is None:
            return self.tensor(self.name("c"), np.array(value, np.float64))
        dtype = {TensorProto.INT8: np.int8, TensorProto.INT64: np.int64}[elem]
        return self.tensor(self.name("c"), np.array(value, dtype), elem)

    def ints(self, values):
        return self.tensor(self.name("i"), np.array(values, np.int64),
                           TensorProto.INT64)

    def op(self, op_type, inputs, n_outputs=1, name=None, **attrs):
        outs = [self.name(op_type.lower()) for _ in range(n_outputs)]
        self.nodes.append(helper.make_node(op_type, inputs, outs,
                                           name=name or self.name(op_type),
                                           **attrs))
        return outs[0] if n_outputs == 1 else outs

    def model(self, inputs, outputs, opset=17):
        """`inputs`/`outputs`: (name, elem or None, shape) triples."""
        def info(n, e, s):
            return helper.make_tensor_value_info(n, e or self.elem, s)
        graph = helper.make_graph(self.nodes, "test",
                                  [info(*i) for i in inputs],
                                  [info(*o) for o in outputs], self.inits)
        return helper.make_model(
            graph, opset_imports=[helper.make_opsetid("", opset)],
            producer_name="stc-onnx-tests", ir_version=8)


# ---------------------------------------------------------------------------
# Layers
# ---------------------------------------------------------------------------

def linear(g, x, n_in, n_out, sparse=False, gemm=True):
    """nn.Linear: Gemm(x, W[out, in], b, transB=1) on 2-D inputs, MatMul by
    W^T plus Add otherwise (as torch exports it)."""
    if gemm:
        w = g.weight((n_out, n_in), sparse=sparse, axis=1)
        return g.op("Gemm", [x, w, g.weight((n_out,), 0.1)], transB=1)
    w = g.weight((n_in, n_out), sparse=sparse, axis=0)
    return g.op("Add", [g.op("MatMul", [x, w]), g.weight((n_out,), 0.1)])


def gelu(g, x):
    """torch's nn.GELU() export: x * 0.5 * (1 + erf(x / sqrt(2)))."""
    erf = g.op("Erf", [g.op("Div", [x, g.scalar(np.sqrt(2.0))])])
    return g.op("Mul", [g.op("Mul", [x, g.op("Add", [erf, g.scalar(1.0)])]),
                        g.scalar(0.5)])


def layer_norm(g, x, d, opset):
    scale = g.tensor(g.name("ln_w"), 1 + 0.1 * g.rng.standard_normal(d))
    bias = g.weight((d,), 0.1)
    if opset >= 17:
        return g.op("LayerNormalization", [x, scale, bias], axis=-1,
                    epsilon=1e-5)
    # torch.onnx below opset 17.
    mean = g.op("ReduceMean", [x], axes=[-1])
    centered = g.op("Sub", [x, mean])
    var = g.op("ReduceMean", [g.op("Pow", [centered, g.scalar(2.0)])],
               axes=[-1])
    std = g.op("Sqrt", [g.op("Add", [var, g.scalar(1e-5)])])
    return g.op("Add", [g.op("Mul", [g.op("Div", [centered, std]), scale]),
                        bias])


def conv_bn(g, x, c_in, c_out, k, stride=1, relu=True, sparse=False):
    w = g.weight((c_out, c_in, k, k), sparse=sparse, axis=1)
    y = g.op("Conv", [x, w], kernel_shape=[k, k], strides=[stride, stride],
             pads=[k // 2] * 4)
    bn = [g.tensor(g.name("bn"), v) for v in (
        1 + 0.1 * g.rng.standard_normal(c_out), 0.1 * g.rng.standard_normal(
            c_out), 0.1 * g.rng.standard_normal(c_out),
        1 + 0.1 * np.abs(g.rng.standard_normal(c_out)))]
    y = g.op("BatchNormalization", [y] + bn, epsilon=1e-5)
    return g.op("Relu", [y]) if relu else y


# ---------------------------------------------------------------------------
# Models
# ---------------------------------------------------------------------------

def mlp(rng, dtype, batch, sparse=False):
    """64 -> 128 -> 128 -> 32: MatMul + Add + ReLU, Gemm + ReLU, Gemm."""
    g = Builder(rng, dtype)
    h = g.op("Relu", [linear(g, "x", 64, 128, sparse, gemm=False)])
    h = g.op("Relu", [linear(g, h, 128, 128, sparse)])
    y = linear(g, h, 128, 32, sparse)
    g.nodes[-1].output[0] = "y"
    return g.model([("x", None, [batch, 64])], [("y", None, [batch, 32])])


def mlp_sparse(rng, dtype, batch):
    """mlp with every weight already 2:4 along K (as Apex ASP leaves it)."""
    return mlp(rng, dtype, batch, sparse=True)


def transformer(rng, dtype, batch, opset=17, seq=16, d=64, heads=4, ff=128):
    """A post-LN transformer encoder layer (nn.TransformerEncoderLayer with
    activation='gelu', eval mode) on [batch, seq, d]."""
    g = Builder(rng, dtype)
    dh = d // heads

    def split_heads(t):
        t = g.op("Reshape", [t, g.ints([0, seq, heads, dh])])
        return g.op("Transpose", [t], perm=[0, 2, 1, 3])

    q = split_heads(linear(g, "x", d, d, gemm=False))
    k = split_heads(linear(g, "x", d, d, gemm=False))
    v = split_heads(linear(g, "x", d, d, gemm=False))
    kt = g.op("Transpose", [k], perm=[0, 1, 3, 2])
    scores = g.op("Div", [g.op("MatMul", [q, kt]), g.scalar(np.sqrt(dh))])
    attn = g.op("MatMul", [g.op("Softmax", [scores], axis=-1), v])
    attn = g.op("Reshape", [g.op("Transpose", [attn], perm=[0, 2, 1, 3]),
                            g.ints([0, seq, d])])
    h = layer_norm(g, g.op("Add", ["x", linear(g, attn, d, d, gemm=False)]),
                   d, opset)
    f = linear(g, gelu(g, linear(g, h, d, ff, gemm=False)), ff, d,
               gemm=False)
    y = layer_norm(g, g.op("Add", [h, f]), d, opset)
    g.nodes[-1].output[0] = "y"
    return g.model([("x", None, [batch, seq, d])],
                   [("y", None, [batch, seq, d])], opset=opset)


def transformer14(rng, dtype, batch):
    """transformer as torch.onnx writes it at opset 14 (LayerNorm from
    ReduceMean, Sub, Pow, Sqrt, Div)."""
    return transformer(rng, dtype, batch, opset=14)


def resnet(rng, dtype, batch):
    """A small ResNet: stem conv 3x3/2 + BN + ReLU, max pool 3x3/2, a basic
    block, a downsampling basic block (1x1/2 conv on the shortcut), global
    average pool, flatten, fc."""
    g = Builder(rng, dtype)
    x = conv_bn(g, "x", 4, 16, 3, stride=2)
    x = g.op("MaxPool", [x], kernel_shape=[3, 3], strides=[2, 2],
             pads=[1, 1, 1, 1])
    y = conv_bn(g, conv_bn(g, x, 16, 16, 3), 16, 16, 3, relu=False)
    x = g.op("Relu", [g.op("Add", [y, x])])
    y = conv_bn(g, conv_bn(g, x, 16, 32, 3, stride=2), 32, 32, 3, relu=False)
    short = conv_bn(g, x, 16, 32, 1, stride=2, relu=False)
    x = g.op("Relu", [g.op("Add", [y, short])])
    x = g.op("Flatten", [g.op("GlobalAveragePool", [x])], axis=1)
    y = linear(g, x, 32, 8)
    g.nodes[-1].output[0] = "y"
    return g.model([("x", None, [batch, 4, 32, 32])], [("y", None, [batch, 8])])


def qdq_mlp(rng, dtype, batch):
    """Two QDQ Linear layers as TensorRT takes them: the activation
    quantized per tensor, int8 weights [in, out] with per-output-channel
    scales, zero points 0, ReLU between."""
    g = Builder(rng, "f32")
    i8 = TensorProto.INT8

    def qlinear(x, n_in, n_out):
        sx = g.scalar(0.05)
        q = g.op("QuantizeLinear", [x, sx, g.scalar(0, i8)])
        xq = g.op("DequantizeLinear", [q, sx, g.scalar(0, i8)])
        wq = g.tensor(g.name("wq"), g.rng.integers(-127, 128, (n_in, n_out))
                      .astype(np.int8), i8)
        sw = g.tensor(g.name("sw"), 0.01 * (1 + g.rng.random(n_out)))
        zw = g.tensor(g.name("zw"), np.zeros(n_out, np.int8), i8)
        w = g.op("DequantizeLinear", [wq, sw, zw], axis=1)
        return g.op("Add", [g.op("MatMul", [xq, w]), g.weight((n_out,), 0.1)])

    h = g.op("Relu", [qlinear("x", 64, 128)])
    y = qlinear(h, 128, 32)
    g.nodes[-1].output[0] = "y"
    return g.model([("x", None, [batch, 64])], [("y", None, [batch, 32])])


def qdq_gemm(rng, dtype, batch):
    """qdq_mlp with Gemm layers, as nn.Linear exports: transB=1 (weights
    [out, in], per-output-channel scales along axis 0) with a bias and
    beta=0.5, then transB=0 ([in, out], scales along axis 1) with alpha=2
    and no bias."""
    g = Builder(rng, "f32")
    i8 = TensorProto.INT8

    def qgemm(x, n_in, n_out, trans_b, **attrs):
        sx = g.scalar(0.05)
        q = g.op("QuantizeLinear", [x, sx, g.scalar(0, i8)])
        xq = g.op("DequantizeLinear", [q, sx, g.scalar(0, i8)])
        shape = (n_out, n_in) if trans_b else (n_in, n_out)
        wq = g.tensor(g.name("wq"), g.rng.integers(-127, 128, shape)
                      .astype(np.int8), i8)
        sw = g.tensor(g.name("sw"), 0.01 * (1 + g.rng.random(n_out)))
        zw = g.tensor(g.name("zw"), np.zeros(n_out, np.int8), i8)
        w = g.op("DequantizeLinear", [wq, sw, zw], axis=0 if trans_b else 1)
        return g.op("Gemm", [xq, w] + attrs.pop("bias", []), transB=trans_b,
                    **attrs)

    h = g.op("Relu", [qgemm("x", 64, 128, 1, beta=0.5,
                            bias=[g.weight((128,), 0.1)])])
    y = qgemm(h, 128, 32, 0, alpha=2.0)
    g.nodes[-1].output[0] = "y"
    return g.model([("x", None, [batch, 64])], [("y", None, [batch, 32])])


def qdq_cnn(rng, dtype, batch):
    """QDQ convolutions as TensorRT takes them (the activation quantized
    per tensor, int8 filters with per-output-channel scales along axis 0,
    zero points 0): a 3x3 conv 16 -> 32 with a float bias and ReLU; a 3x3
    stride-2 conv 32 -> 32 with one filter scale and an int32 bias
    dequantized (scale x_scale * w_scale, as quantizers write it); a
    grouped 1x1 conv (2 groups) and a 1x1 conv 32 -> 16; then global
    average pooling (every weighted op int8, so that --sparsity=force
    runs on GPU targets too: an f32 2:4 product needs 1:2 there)."""
    g = Builder(rng, "f32")
    i8, i32 = TensorProto.INT8, TensorProto.INT32

    def qconv(x, c_in, c_out, k, stride=1, group=1, per_channel=True,
              bias="float"):
        sx_value = 0.05
        sx = g.scalar(sx_value)
        q = g.op("QuantizeLinear", [x, sx, g.scalar(0, i8)])
        xq = g.op("DequantizeLinear", [q, sx, g.scalar(0, i8)])
        wq = g.tensor(g.name("wq"), g.rng.integers(
            -127, 128, (c_out, c_in // group, k, k)).astype(np.int8), i8)
        n_scales = c_out if per_channel else 1
        sw_values = 0.004 * (1 + g.rng.random(n_scales))
        sw = g.tensor(g.name("sw"), sw_values if per_channel
                      else np.array(sw_values[0]))
        zw = g.tensor(g.name("zw"), np.zeros(n_scales, np.int8)
                      if per_channel else np.array(0, np.int8), i8)
        w = g.op("DequantizeLinear", [wq, sw, zw], axis=0)
        inputs = [xq, w]
        if bias == "float":
            inputs.append(g.weight((c_out,), 0.1))
        elif bias == "int32":
            bq = g.tensor(g.name("bq"), g.rng.integers(
                -200, 200, c_out).astype(np.int32), i32)
            sb = g.tensor(g.name("sb"), np.full(
                c_out, sx_value * sw_values[0]))
            inputs.append(g.op("DequantizeLinear", [bq, sb], axis=0))
        return g.op("Conv", inputs, kernel_shape=[k, k],
                    strides=[stride, stride], pads=[k // 2] * 4, group=group)

    h = g.op("Relu", [qconv("x", 16, 32, 3)])
    h = g.op("Relu", [qconv(h, 32, 32, 3, stride=2, per_channel=False,
                            bias="int32")])
    h = g.op("Relu", [qconv(h, 32, 32, 1, group=2, bias=None)])
    h = qconv(h, 32, 16, 1)
    g.op("Flatten", [g.op("GlobalAveragePool", [h])], axis=1)
    g.nodes[-1].output[0] = "y"
    return g.model([("x", None, [batch, 16, 12, 12])],
                   [("y", None, [batch, 16])])


CASES = {f.__name__: f for f in (mlp, mlp_sparse, transformer, transformer14,
                                  resnet, qdq_mlp, qdq_gemm, qdq_cnn)}
INPUT_RANGES = {}

# The single-operator cases (they use Builder from here).
import onnx_op_cases  # noqa: E402

CASES.update(onnx_op_cases.CASES)
INPUT_RANGES.update(onnx_op_cases.INPUT_RANGES)
