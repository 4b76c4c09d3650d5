#!/usr/bin/env python3
"""Malformed and unsupported ONNX models for the importer's error tests.

  onnx_bad.py DIR [NAME ...]

writes DIR/NAME.onnx for every model below (or the named ones), the
file-level ones, and the external-data ones with their data (one file in
DIR/.., outside the models' directory). Each is the
smallest model that reaches one error: file-level problems (empty,
truncated, not a model, versions), what the ONNX checker rejects (an
undefined input, a cycle), and, for models the checker accepts, every
operator, attribute, type and shape the importer refuses.
"""

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F32, F16, I64, I8, U8 = (TensorProto.FLOAT, TensorProto.FLOAT16,
                         TensorProto.INT64, TensorProto.INT8, TensorProto.UINT8)


def vi(name, elem=F32, shape=(2, 4)):
    return helper.make_tensor_value_info(name, elem, shape)


def model(nodes, inputs, outputs, inits=(), opset=17, ir=8, extra_opsets=()):
    g = helper.make_graph(nodes, "bad", inputs, outputs, list(inits))
    m = helper.make_model(g, ir_version=ir, opset_imports=[
        helper.make_opsetid("", opset)] + list(extra_opsets))
    return m


def const(name, array, elem=None):
    t = numpy_helper.from_array(np.asarray(array), name)
    if elem is not None:
        t.data_type = elem
    return t


def one(op, ins, inputs, outputs, inits=(), n_out=1, outs=None, **attrs):
    """A one-node model: inputs/outputs are value infos."""
    node = helper.make_node(op, ins, outs or ["y"][:n_out], name="bad_" + op,
                            **attrs)
    return model([node], inputs, outputs, inits)


def raw_tensor(name, dims, floats):
    """A FLOAT TensorProto with `dims` and `floats` as given (no checks)."""
    t = TensorProto()
    t.name, t.data_type = name, F32
    t.dims.extend(dims)
    t.float_data.extend(floats)
    return t


def raw_bytes_tensor(name, dims, data):
    """A FLOAT TensorProto with `dims` and raw_data `data` (no checks)."""
    t = TensorProto()
    t.name, t.data_type, t.raw_data = name, F32, data
    t.dims.extend(dims)
    return t


def w(*shape):
    return np.ones(shape, np.float32)


MODELS = {
    # -- versions and structure ---------------------------------------------
    "opset12": lambda: model([helper.make_node("Relu", ["x"], ["y"])],
                             [vi("x")], [vi("y")], opset=12),
    "opset18": lambda: model([helper.make_node("Relu", ["x"], ["y"])],
                             [vi("x")], [vi("y")], opset=18, ir=8),
    "ir6": lambda: model([helper.make_node("Relu", ["x"], ["y"])],
                         [vi("x")], [vi("y")], opset=13, ir=6),
    "no_default_opset": lambda: helper.make_model(
        helper.make_graph([], "g", [vi("x")], [vi("x")]), ir_version=8,
        opset_imports=[helper.make_opsetid("ai.onnx.ml", 3)]),
    # The checker: an input nobody defines (a missing initializer), a cycle.
    "missing_initializer": lambda: one("MatMul", ["x", "W"], [vi("x")],
                                       [vi("y", shape=(2, 3))]),
    "cycle": lambda: model(
        [helper.make_node("Add", ["x", "b"], ["a"], name="first"),
         helper.make_node("Relu", ["a"], ["b"], name="second")],
        [vi("x")], [vi("b")]),
    "unknown_op": lambda: one("Frobnicate", ["x"], [vi("x")], [vi("y")]),
    "wrong_attribute_type": lambda: one("Softmax", ["x"], [vi("x")],
                                        [vi("y")], axis=1.5),
    "initializer_value_count": lambda: one(
        "Add", ["x", "b"], [vi("x")], [vi("y")],
        [raw_tensor("b", [4], [1.0, 2.0, 3.0])]),
    # -- graph inputs, outputs, initializers ---------------------------------
    "input_no_shape": lambda: one(
        "Relu", ["x"], [helper.make_tensor_value_info("x", F32, None)],
        [vi("y")]),
    "input_double": lambda: one("Relu", ["x"],
                                [vi("x", TensorProto.DOUBLE)],
                                [vi("y", TensorProto.DOUBLE)]),
    "output_type_mismatch": lambda: one("Relu", ["x"], [vi("x")],
                                        [vi("y", F16)]),
    "output_shape_mismatch": lambda: one("Relu", ["x"], [vi("x")],
                                         [vi("y", shape=(2, 5))]),
    "bool_initializer_used": lambda: one(
        "Identity", ["b"], [vi("x")], [vi("y", TensorProto.BOOL, (4,))],
        [const("b", np.ones(4, bool))]),
    "raw_data_size": lambda: one(
        "Add", ["x", "b"], [vi("x")], [vi("y")],
        [raw_bytes_tensor("b", [4], np.ones(3, np.float32).tobytes())]),
    "uint16_initializer": lambda: one(
        "Identity", ["b"], [vi("x")], [vi("y", TensorProto.UINT16, (4,))],
        [const("b", np.ones(4, np.uint16))]),
    "sparse_initializer": lambda: sparse_model(),
    # Sizes past the limits (docs/RELIABILITY.md, "Limits").
    "input_negative_dim": lambda: one("Relu", ["x"], [vi("x", shape=(2, -4))],
                                      [vi("y")]),
    "input_too_large": lambda: one("Relu", ["x"],
                                   [vi("x", shape=(2**40, 2**40))],
                                   [vi("y", shape=(2**40, 2**40))]),
    "input_dynamic_too_large": lambda: one(
        "Relu", ["x"], [vi("x", shape=("N", 2**30, 2**30))],
        [vi("y", shape=("N", 2**30, 2**30))]),
    "initializer_too_large": lambda: one(
        "Add", ["x", "b"], [vi("x")], [vi("y")],
        [raw_tensor("b", [2**32, 2**32, 2], [])]),
    "no_ir_version": lambda: no_ir_version(),
    "sequence_input": lambda: one(
        "Identity", ["x"], [helper.make_tensor_sequence_value_info(
            "x", F32, (2, 4))],
        [helper.make_tensor_sequence_value_info("y", F32, (2, 4))]),
    # -- operators, domains, outputs, attributes ----------------------------
    "unsupported_op": lambda: one("LRN", ["x"], [vi("x", shape=(1, 2, 3, 3))],
                                  [vi("y", shape=(1, 2, 3, 3))], size=3),
    "ml_domain": lambda: model(
        [helper.make_node("Normalizer", ["x"], ["y"], domain="ai.onnx.ml",
                          name="norm")], [vi("x")], [vi("y")],
        extra_opsets=[helper.make_opsetid("ai.onnx.ml", 3)]),
    "extra_output": lambda: one(
        "MaxPool", ["x"], [vi("x", shape=(1, 1, 4, 4))],
        [vi("y", shape=(1, 1, 2, 2)), vi("idx", I64, (1, 1, 2, 2))],
        outs=["y", "idx"], kernel_shape=[2, 2], strides=[2, 2]),
    "constant_sparse": lambda: model(
        [helper.make_node("Constant", [], ["y"], name="c", value_string="s")],
        [vi("x")], [vi("y", TensorProto.STRING, ())]),
    "constant_two_values": lambda: model(
        [helper.make_node("Constant", [], ["y"], name="c", value_int=1,
                          value_float=2.0)], [vi("x")], [vi("y", I64, ())]),
    "constant_string_tensor": lambda: model(
        [helper.make_node("Constant", [], ["y"], name="c",
                          value=helper.make_tensor("t", TensorProto.STRING,
                                                   [1], [b"s"]))],
        [vi("x")], [vi("y", TensorProto.STRING, (1,))]),
    # -- run-time values where constants are needed --------------------------
    "reshape_runtime_shape": lambda: one(
        "Reshape", ["x", "s"], [vi("x"), vi("s", I64, (2,))], [vi("y")]),
    # -- types ---------------------------------------------------------------
    "relu_int": lambda: one("Relu", ["x"], [vi("x", I64)], [vi("y", I64)]),
    "add_mixed_types": lambda: one("Add", ["x", "z"], [vi("x"), vi("z", F16)],
                                   [vi("y")]),
    "cast_to_string": lambda: one("Cast", ["x"], [vi("x")],
                                  [vi("y", TensorProto.STRING)],
                                  to=TensorProto.STRING),
    "gemm_int": lambda: one("Gemm", ["x", "w"], [vi("x", I64), vi("w", I64,
                                                                (4, 3))],
                            [vi("y", I64, (2, 3))]),
    "matmul_mixed_types": lambda: one("MatMul", ["x", "z"],
                                      [vi("x"), vi("z", F16, (4, 3))],
                                      [vi("y", shape=(2, 3))]),
    "matmul_scalars": lambda: one("MatMul", ["x", "z"],
                                  [vi("x", shape=()), vi("z", shape=())],
                                  [vi("y", shape=())]),
    "gemm_rank3": lambda: one("Gemm", ["x", "z"],
                              [vi("x", shape=(1, 2, 4)), vi("z", shape=(4, 3))],
                              [vi("y", shape=(2, 3))]),
    "gemm_bias_type": lambda: one("Gemm", ["x", "z", "c"],
                                  [vi("x"), vi("z", shape=(4, 3)),
                                   vi("c", F16, (3,))],
                                  [vi("y", shape=(2, 3))]),
    "conv_mixed_types": lambda: one("Conv", ["x", "W"],
                                    [vi("x", shape=(1, 2, 5, 5))],
                                    [vi("y", shape=(1, 4, 3, 3))],
                                    [const("W", w(4, 2, 3, 3).astype(
                                        np.float16))]),
    "batchnorm_rank1": lambda: one(
        "BatchNormalization", ["x", "s", "b", "m", "v"],
        [vi("x", shape=(4,))], [vi("y", shape=(4,))],
        [const(n, w(4)) for n in "sbmv"]),
    "batchnorm_param_rank": lambda: one(
        "BatchNormalization", ["x", "s", "b", "m", "v"],
        [vi("x", shape=(2, 4, 3))], [vi("y", shape=(2, 4, 3))],
        [const(n, w(4, 1)) for n in "sbmv"]),
    "div_int_zero": lambda: one("Div", ["x", "z"], [vi("x", I64)],
                                [vi("y", I64)], [const("z", np.array(0))]),
    "pow_int_base": lambda: one("Pow", ["x", "z"], [vi("x", I64), vi("z")],
                                [vi("y", I64)]),
    "clip_vector_bounds": lambda: one("Clip", ["x", "lo"], [vi("x")],
                                      [vi("y")], [const("lo", w(4))]),
    "cast_constant_to_string": lambda: model(
        [helper.make_node("Cast", ["b"], ["y"], name="cast",
                          to=TensorProto.STRING)], [vi("x")],
        [vi("y", TensorProto.STRING, (4,))], [const("b", w(4))]),
    "layernorm_int": lambda: one("LayerNormalization", ["x", "s"],
                                 [vi("x", I64)], [vi("y", I64)],
                                 [const("s", np.ones(4, np.int64))]),
    "layernorm_scale_rank": lambda: one("LayerNormalization", ["x", "s"],
                                        [vi("x")], [vi("y")],
                                        [const("s", w(2, 4))]),
    "softmax_int": lambda: one("Softmax", ["x"], [vi("x", I64)],
                               [vi("y", I64)]),
    "reduce_int": lambda: one("ReduceMax", ["x"], [vi("x", I64)],
                              [vi("y", I64, (1, 1))]),
    "global_pool_rank2": lambda: one("GlobalAveragePool", ["x"], [vi("x")],
                                     [vi("y")]),
    "quantize_int_input": lambda: one(
        "QuantizeLinear", ["x", "s", "z"], [vi("x", I64)], [vi("y", I8)],
        [const("s", np.array(0.1, np.float32)), const("z", np.array(0,
                                                                      np.int8))]),
    "quantize_scale_rank": lambda: one(
        "QuantizeLinear", ["x", "s", "z"], [vi("x")], [vi("y", I8)],
        [const("s", np.full((1, 4), 0.1, np.float32)),
         const("z", np.zeros((1, 4), np.int8))]),
    "dequantize_float_input": lambda: one(
        "DequantizeLinear", ["x", "s"], [vi("x")], [vi("y")],
        [const("s", np.array(0.1, np.float32))]),
    "dequantize_float_constant": lambda: model(
        [helper.make_node("DequantizeLinear", ["b", "s"], ["y"], name="dq")],
        [vi("x")], [vi("y", shape=(4,))],
        [const("b", w(4)), const("s", np.array(0.1, np.float32))]),
    "qdq_matmul_inner": lambda: qdq_matmul(k_activation=6, k_weight=4),
    "flatten_axis": lambda: one("Flatten", ["x"], [vi("x")],
                                [vi("y")], axis=3),
    "reshape_zero_rank": lambda: one("Reshape", ["x", "s"], [vi("x")],
                                     [vi("y", shape=(2, 4, 1))],
                                     [const("s", np.array([0, 0, 0]))]),
    "reshape_negative": lambda: one("Reshape", ["x", "s"], [vi("x")],
                                    [vi("y")],
                                    [const("s", np.array([-2, 4]))]),
    "reshape_dynamic_huge": lambda: one(
        "Reshape", ["x", "s"], [vi("x", shape=("N", 4, 8))],
        [vi("y", shape=("N", 4, 1, 2**46))],
        [const("s", np.array([0, 4, 1, 2**46]))]),
    "reshape_overflow": lambda: one("Reshape", ["x", "s"], [vi("x")],
                                    [vi("y")],
                                    [const("s", np.array([2**40, 2**40]))]),
    "output_too_large": lambda: one("Add", ["x", "z"],
                                    [vi("x", shape=(2**24, 1)),
                                     vi("z", shape=(1, 2**24))],
                                    [vi("y", shape=(2**24, 2**24))]),
    "shape_mul_overflow": lambda: model(
        [helper.make_node("Shape", ["x"], ["s"], name="shape"),
         helper.make_node("Mul", ["s", "k"], ["t"], name="times"),
         helper.make_node("Reshape", ["x", "t"], ["y"], name="reshape")],
        [vi("x", shape=("N", 4))], [vi("y", shape=("N", 4))],
        [const("k", np.array([2**62, 2**62]))]),
    "reshape_infer": lambda: one("Reshape", ["x", "s"], [vi("x")],
                                 [vi("y", shape=(3, 3))],
                                 [const("s", np.array([3, -1]))]),
    "unsqueeze_repeated": lambda: one("Unsqueeze", ["x", "a"], [vi("x")],
                                      [vi("y", shape=(1, 1, 2, 4))],
                                      [const("a", np.array([0, 0]))]),
    "squeeze_dynamic": lambda: one("Squeeze", ["x"], [vi("x", shape=("N", 1))],
                                   [vi("y", shape=("N",))]),
    "concat_types": lambda: one("Concat", ["x", "z"],
                                [vi("x"), vi("z", F16)],
                                [vi("y", shape=(4, 4))], axis=0),
    "slice_lengths": lambda: one("Slice", ["x", "s", "e"], [vi("x")],
                                 [vi("y")], [const("s", np.array([0, 0])),
                                             const("e", np.array([1]))]),
    "gather_float_indices": lambda: one("Gather", ["x", "i"],
                                        [vi("x"), vi("i", F32, (3,))],
                                        [vi("y", shape=(3, 4))]),
    "strides_zero": lambda: one("Conv", ["x", "W"],
                                [vi("x", shape=(1, 2, 5, 5))],
                                [vi("y", shape=(1, 4, 3, 3))],
                                [const("W", w(4, 2, 3, 3))], strides=[0, 1]),
    "pads_count": lambda: one("Conv", ["x", "W"],
                              [vi("x", shape=(1, 2, 5, 5))],
                              [vi("y", shape=(1, 4, 3, 3))],
                              [const("W", w(4, 2, 3, 3))], pads=[1, 1]),
    "auto_pad_unknown": lambda: one("Conv", ["x", "W"],
                                    [vi("x", shape=(1, 2, 5, 5))],
                                    [vi("y", shape=(1, 4, 3, 3))],
                                    [const("W", w(4, 2, 3, 3))],
                                    auto_pad="SOMETIMES"),
    # -- shapes --------------------------------------------------------------
    "matmul_inner": lambda: one("MatMul", ["x", "W"], [vi("x")],
                                [vi("y", shape=(2, 3))], [const("W", w(5, 3))]),
    "broadcast": lambda: one("Add", ["x", "b"], [vi("x")], [vi("y")],
                             [const("b", w(3))]),
    "reshape_count": lambda: one("Reshape", ["x", "s"], [vi("x")],
                                 [vi("y", shape=(3, 3))],
                                 [const("s", np.array([3, 3]))]),
    "reshape_two_minus_one": lambda: one("Reshape", ["x", "s"], [vi("x")],
                                         [vi("y", shape=(2, 4))],
                                         [const("s", np.array([-1, -1]))]),
    "squeeze_non_unit": lambda: one("Squeeze", ["x", "a"], [vi("x")],
                                    [vi("y", shape=(4,))],
                                    [const("a", np.array([0]))]),
    "concat_mismatch": lambda: one("Concat", ["x", "z"],
                                   [vi("x"), vi("z", shape=(3, 4))],
                                   [vi("y", shape=(5, 4))], axis=1),
    "transpose_perm": lambda: one("Transpose", ["x"], [vi("x")], [vi("y")],
                                  perm=[0, 0]),
    "axis_out_of_range": lambda: one("Softmax", ["x"], [vi("x")], [vi("y")],
                                     axis=2),
    "slice_negative_step": lambda: one(
        "Slice", ["x", "s", "e", "a", "t"], [vi("x")], [vi("y")],
        [const("s", np.array([3])), const("e", np.array([0])),
         const("a", np.array([1])), const("t", np.array([-1]))]),
    "slice_dynamic_dim": lambda: one(
        "Slice", ["x", "s", "e"], [vi("x", shape=("N", 4))],
        [vi("y", shape=("N", 4))],
        [const("s", np.array([0])), const("e", np.array([1]))]),
    # Shapes that depend on a dynamic size (x is N x 4).
    "dynamic_shape_pow": lambda: dynamic_shape(
        [helper.make_node("Pow", ["s", "two"], ["p"], name="pow")], "p"),
    "dynamic_shape_broadcast": lambda: dynamic_shape(
        [helper.make_node("Add", ["s", "three"], ["p"], name="add")], "p"),
    "dynamic_shape_div_zero": lambda: dynamic_shape(
        [helper.make_node("Div", ["s", "zero"], ["p"], name="div")], "p"),
    "dynamic_shape_unsqueeze": lambda: dynamic_shape(
        [helper.make_node("Unsqueeze", ["s", "one"], ["p"], name="unsq")],
        "p"),
    "dynamic_shape_gather": lambda: dynamic_shape(
        [helper.make_node("Gather", ["s", "five"], ["p"], name="gather")],
        "p"),
    "dynamic_shape_scalar": lambda: dynamic_shape(
        [helper.make_node("Gather", ["s", "zero"], ["p"], name="gather")],
        "p"),
    "gather_index_range": lambda: model(
        [helper.make_node("Shape", ["x"], ["s"], name="shape"),
         helper.make_node("Gather", ["s", "i"], ["y"], name="gather")],
        [vi("x")], [vi("y", I64, ())], [const("i", np.array(5))]),
    # -- convolution and pooling ---------------------------------------------
    "conv_3d": lambda: one("Conv", ["x", "W"], [vi("x", shape=(1, 2, 4, 4, 4))],
                           [vi("y", shape=(1, 4, 2, 2, 2))],
                           [const("W", w(4, 2, 3, 3, 3))]),
    "conv_1d_2d_filter": lambda: one("Conv", ["x", "W"],
                                     [vi("x", shape=(1, 2, 8))],
                                     [vi("y", shape=(1, 4, 6))],
                                     [const("W", w(4, 2, 3, 3))]),
    "conv_1d_pads": lambda: one("Conv", ["x", "W"], [vi("x", shape=(1, 2, 8))],
                                [vi("y", shape=(1, 4, 8))],
                                [const("W", w(4, 2, 3))], pads=[1, 1, 1, 1]),
    "conv_channels": lambda: one("Conv", ["x", "W"],
                                 [vi("x", shape=(1, 3, 5, 5))],
                                 [vi("y", shape=(1, 4, 3, 3))],
                                 [const("W", w(4, 2, 3, 3))]),
    "conv_group": lambda: one("Conv", ["x", "W"],
                              [vi("x", shape=(1, 6, 5, 5))],
                              [vi("y", shape=(1, 4, 3, 3))],
                              [const("W", w(4, 2, 3, 3))], group=3),
    "conv_dynamic_channels": lambda: one(
        "Conv", ["x", "W"], [vi("x", shape=(1, "C", 5, 5))],
        [vi("y", shape=(1, 4, 3, 3))], [const("W", w(4, 2, 3, 3))]),
    "conv_window_too_large": lambda: one(
        "Conv", ["x", "W"], [vi("x", shape=(1, 2, 2, 2))],
        [vi("y", shape=(1, 4, 1, 1))], [const("W", w(4, 2, 3, 3))]),
    "conv_dynamic_hw": lambda: one(
        "Conv", ["x", "W"], [vi("x", shape=(1, 2, "H", 5))],
        [vi("y", shape=(1, 4, "H", 3))], [const("W", w(4, 2, 3, 3))]),
    "conv_same_dynamic": lambda: one(
        "Conv", ["x", "W"], [vi("x", shape=(1, 2, "H", 5))],
        [vi("y", shape=(1, 4, "H", 5))], [const("W", w(4, 2, 3, 3))],
        auto_pad="SAME_UPPER"),
    "conv_kernel_shape": lambda: one(
        "Conv", ["x", "W"], [vi("x", shape=(1, 2, 5, 5))],
        [vi("y", shape=(1, 4, 3, 3))], [const("W", w(4, 2, 3, 3))],
        kernel_shape=[2, 2]),
    "conv_pads_and_auto_pad": lambda: one(
        "Conv", ["x", "W"], [vi("x", shape=(1, 2, 5, 5))],
        [vi("y", shape=(1, 4, 5, 5))], [const("W", w(4, 2, 3, 3))],
        auto_pad="SAME_UPPER", pads=[1, 1, 1, 1]),
    "conv_strides_3d": lambda: one(
        "Conv", ["x", "W"], [vi("x", shape=(1, 2, 5, 5))],
        [vi("y", shape=(1, 4, 3, 3))], [const("W", w(4, 2, 3, 3))],
        strides=[1, 1, 1]),
    "conv_negative_pads": lambda: one(
        "Conv", ["x", "W"], [vi("x", shape=(1, 2, 5, 5))],
        [vi("y", shape=(1, 4, 3, 3))], [const("W", w(4, 2, 3, 3))],
        pads=[-1, 0, 0, 0]),
    "conv_window_overflow": lambda: one(
        "Conv", ["x", "W"], [vi("x", shape=(1, 2, 5, 5))],
        [vi("y", shape=(1, 4, 3, 3))], [const("W", w(4, 2, 3, 3))],
        dilations=[2**62, 1]),
    "maxpool_auto_pad_overflow": lambda: one(
        "MaxPool", ["x"], [vi("x", shape=(1, 1, 5, 5))],
        [vi("y", shape=(1, 1, 5, 5))], kernel_shape=[3, 3],
        dilations=[2**62, 1], auto_pad="SAME_UPPER"),
    "avgpool_ceil": lambda: one("AveragePool", ["x"],
                                [vi("x", shape=(1, 1, 5, 5))],
                                [vi("y", shape=(1, 1, 3, 3))],
                                kernel_shape=[2, 2], strides=[2, 2],
                                ceil_mode=1),
    "maxpool_3d": lambda: one("MaxPool", ["x"], [vi("x", shape=(1, 1, 4, 4, 4))],
                              [vi("y", shape=(1, 1, 2, 2, 2))],
                              kernel_shape=[2, 2, 2], strides=[2, 2, 2]),
    "batchnorm_training": lambda: one(
        "BatchNormalization", ["x", "s", "b", "m", "v"],
        [vi("x", shape=(2, 4))], [vi("y")],
        [const(n, w(4)) for n in "sbmv"], training_mode=1),
    # -- normalization, activations, casts -----------------------------------
    "layernorm_stash": lambda: one("LayerNormalization", ["x", "s"],
                                   [vi("x")], [vi("y")], [const("s", w(4))],
                                   stash_type=0),
    "dropout_training": lambda: one(
        "Dropout", ["x", "r", "t"], [vi("x")], [vi("y")],
        [const("r", np.array(0.5, np.float32)), const("t", np.array(True))]),
    # -- quantization --------------------------------------------------------
    "quantize_uint8": lambda: one("QuantizeLinear", ["x", "s"], [vi("x")],
                                  [vi("y", U8)],
                                  [const("s", np.array(0.1, np.float32))]),
    "quantize_zero_point": lambda: one(
        "QuantizeLinear", ["x", "s", "z"], [vi("x")], [vi("y", I8)],
        [const("s", np.array(0.1, np.float32)), const("z", np.array(3,
                                                                      np.int8))]),
    "quantize_uint8_zero_point": lambda: one(
        "QuantizeLinear", ["x", "s", "z"], [vi("x")], [vi("y", U8)],
        [const("s", np.array(0.1, np.float32)), const("z", np.array(0,
                                                                      np.uint8))]),
    "dequantize_scale_count": lambda: one(
        "DequantizeLinear", ["x", "s", "z"], [vi("x", I8)], [vi("y")],
        [const("s", np.full(3, 0.1, np.float32)),
         const("z", np.zeros(3, np.int8))], axis=1),
    "dequantize_runtime_scale": lambda: one(
        "DequantizeLinear", ["x", "s"], [vi("x", I8), vi("s", F32, ())],
        [vi("y")]),
}


def dynamic_shape(nodes, shape_name):
    """Reshape(x, f(Shape(x))) for x of N x 4, with `nodes` computing
    `shape_name` from the shape `s`."""
    nodes = [helper.make_node("Shape", ["x"], ["s"], name="shape")] + nodes + \
        [helper.make_node("Reshape", ["x", shape_name], ["y"], name="reshape")]
    inits = [const("two", np.array([2, 2])), const("three", np.array([1, 2, 3])),
             const("zero", np.array(0)), const("one", np.array([1])),
             const("five", np.array(5))]
    return model(nodes, [vi("x", shape=("N", 4))], [vi("y", shape=("N", 4))],
                 inits)


def sparse_model():
    m = one("Relu", ["x"], [vi("x")], [vi("y")])
    values = numpy_helper.from_array(np.ones(1, np.float32), "sp")
    indices = numpy_helper.from_array(np.zeros(1, np.int64), "sp_i")
    m.graph.sparse_initializer.append(
        helper.make_sparse_tensor(values, indices, [4]))
    return m


def no_ir_version():
    m = one("Relu", ["x"], [vi("x")], [vi("y")])
    m.ClearField("ir_version")
    return m


def qdq_matmul(k_activation, k_weight):
    """DQ(Q(x)) x DQ(int8 weight) with mismatched K."""
    i8 = TensorProto.INT8
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"],
                              name="q"),
             helper.make_node("DequantizeLinear", ["q", "s", "z"], ["xd"],
                              name="dq"),
             helper.make_node("DequantizeLinear", ["wq", "s"], ["wd"],
                              name="dqw"),
             helper.make_node("MatMul", ["xd", "wd"], ["y"], name="mm")]
    inits = [const("s", np.array(0.1, np.float32)),
             const("z", np.array(0, np.int8), i8),
             const("wq", np.ones((k_weight, 3), np.int8), i8)]
    return model(nodes, [vi("x", shape=(2, k_activation))],
                 [vi("y", shape=(2, 3))], inits)


def external_model(directory, location, offset=None, length=None):
    """A MatMul whose 4 x 3 weight lives in external file `location`."""
    t = numpy_helper.from_array(np.arange(12, dtype=np.float32).reshape(4, 3),
                                "W")
    t.ClearField("raw_data")
    t.data_location = TensorProto.EXTERNAL
    entries = [("location", location)]
    if offset is not None:
        entries.append(("offset", str(offset)))
    if length is not None:
        entries.append(("length", str(length)))
    for k, v in entries:
        e = t.external_data.add()
        e.key, e.value = k, v
    return one("MatMul", ["x", "W"], [vi("x")], [vi("y", shape=(2, 3))], [t])


def main():
    directory = sys.argv[1]
    names = sys.argv[2:] or list(MODELS)
    os.makedirs(directory, exist_ok=True)
    for name in names:
        onnx.save(MODELS[name](), os.path.join(directory, name + ".onnx"))
    good = model([helper.make_node("Relu", ["x"], ["y"])], [vi("x")],
                 [vi("y")]).SerializeToString()
    files = {"empty.onnx": b"", "truncated.onnx": good[:len(good) // 2],
             "garbage.onnx": b"\x08\x08 this is not a protobuf \xff\xff\xff",
             "no_graph.onnx": helper.make_model(
                 helper.make_graph([], "g", [], []), ir_version=8)
             .SerializeToString()[:2]}
    for name, data in files.items():
        with open(os.path.join(directory, name), "wb") as f:
            f.write(data)
    # External data: bytes 0..47 of weights.bin are the 4 x 3 floats.
    with open(os.path.join(directory, "weights.bin"), "wb") as f:
        f.write(np.arange(12, dtype=np.float32).tobytes())
    # A file outside the model's directory (in DIR/..: tests pass %t/m) that
    # exists, so that only the importer's own rule refuses it, and a
    # directory where a file should be.
    with open(os.path.join(directory, "..", "outside.bin"), "wb") as f:
        f.write(np.arange(12, dtype=np.float32).tobytes())
    os.makedirs(os.path.join(directory, "adir"), exist_ok=True)
    for name, args in {"external_ok": ("weights.bin",),
                       "external_missing": ("nowhere.bin",),
                       "external_escape": ("../outside.bin",),
                       "external_absolute": (os.path.abspath(os.path.join(
                           directory, "weights.bin")),),
                       "external_short": ("weights.bin", 16),
                       "external_length": ("weights.bin", 0, 40),
                       "external_offset_text": ("weights.bin", "four"),
                       "external_directory": ("adir",)}.items():
        onnx.save(external_model(directory, *args),
                  os.path.join(directory, name + ".onnx"))
    m = external_model(directory, "weights.bin")
    del m.graph.initializer[0].external_data[0]
    onnx.save(m, os.path.join(directory, "external_no_location.onnx"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
