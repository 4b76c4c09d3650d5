"""Writes the seed corpora of the fuzz targets (test/Fuzz/FuzzTargets.h)
from the project's test inputs, one directory per target kind:

  OUT/npy          .npy files like the tests write (every dtype the reader
                   takes, 0-d, empty, Fortran order, big-endian, format 2.0)
  OUT/safetensors  safetensors files (F32/F16/BF16/I64/U8/BOOL, metadata,
                   empty and scalar tensors)
  OUT/runtime      records for the runtime target: every entry point x
                   element type x pattern, with data
  OUT/onnx         small ONNX models from the ONNX tests' generators
                   (test/lib/onnx_cases.py, onnx_op_cases.py, onnx_bad.py):
                   an MLP, a transformer layer with a dynamic batch, convs,
                   QDQ MatMuls, external data, the importer's error cases,
                   truncated models; where python3-onnx is missing, only a
                   few hand-written byte strings
  OUT/tuning-db    tuning databases: the committed one and the tests'
                   (tuning/, test/Tuning/Inputs)
  OUT/mlir         every .mlir test and example program of at most 64 KiB,
                   split at "// -----" (for pipeline-cpu and pipeline-ptx)

usage: make_seeds.py SOURCE_ROOT OUT"""
import io
import json
import os
import random
import struct
import sys

import numpy as np

root, out = sys.argv[1:3]
KINDS = ("npy", "safetensors", "runtime", "onnx", "tuning-db", "mlir")
for kind in KINDS:
    os.makedirs(os.path.join(out, kind), exist_ok=True)


def write(kind, name, data):
    with open(os.path.join(out, kind, name), "wb") as f:
        f.write(data)


# .npy
rng = np.random.default_rng(7)
arrays = {
    "f4-2d": rng.standard_normal((4, 8)).astype(np.float32),
    "f2-2d": rng.standard_normal((3, 4)).astype(np.float16),
    "f8-1d": rng.standard_normal(5),
    "i1": np.arange(-4, 4, dtype=np.int8).reshape(2, 4),
    "i2": np.arange(6, dtype=np.int16),
    "i4": np.arange(6, dtype=np.int32).reshape(3, 2),
    "i8": np.arange(4, dtype=np.int64),
    "u1": np.arange(8, dtype=np.uint8),
    "b1": np.array([True, False, True]),
    "scalar": np.array(1.5, np.float32),
    "empty": np.zeros((0, 4), np.float32),
    "empty3": np.zeros((2, 0, 3), np.float16),
    "fortran": np.asfortranarray(rng.standard_normal((3, 5)).astype(np.float32)),
    "bigendian": rng.standard_normal((2, 3)).astype(">f4"),
}
for name, a in arrays.items():
    buf = io.BytesIO()
    np.save(buf, a)
    write("npy", name + ".npy", buf.getvalue())
buf = io.BytesIO()
np.lib.format.write_array(buf, arrays["f4-2d"], version=(2, 0))
write("npy", "v2.npy", buf.getvalue())

# safetensors
def safetensors(tensors, metadata=None):
    header, data = {}, b""
    if metadata is not None:
        header["__metadata__"] = metadata
    for name, dtype, shape, raw in tensors:
        header[name] = {"dtype": dtype, "shape": shape,
                        "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + data


w = rng.standard_normal((8, 16)).astype(np.float32)
write("safetensors", "linear.safetensors", safetensors([
    ("fc.weight", "F32", [8, 16], w.tobytes()),
    ("fc.bias", "F32", [8], rng.standard_normal(8).astype(np.float32).tobytes()),
], {"format": "pt"}))
write("safetensors", "mixed.safetensors", safetensors([
    ("a", "F16", [4, 4], rng.standard_normal((4, 4)).astype(np.float16).tobytes()),
    ("b", "BF16", [2, 4], (w[:2, :4].view(np.uint32) >> 16).astype(np.uint16).tobytes()),
    ("c", "I64", [3], np.arange(3, dtype=np.int64).tobytes()),
    ("d", "U8", [2, 2], bytes([1, 2, 3, 4])),
    ("e", "BOOL", [2], bytes([0, 1])),
    ("empty", "F32", [0, 4], b""),
    ("scalar", "F32", [], struct.pack("<f", 2.0)),
]))
write("safetensors", "conv.safetensors", safetensors([
    ("conv.weight", "F16", [4, 8, 3, 3],
     rng.standard_normal((4, 8, 3, 3)).astype(np.float16).tobytes()),
], {"stc.version": "0.1.0"}))

# runtime records: op, type, pattern, reduction dim, rows, cols, method,
# flags, then data (see RuntimeTargets.cpp).
random.seed(11)
for op in range(8):
    for elem in range(4):
        for pattern in (0, 1, 2):
            record = bytes([op, elem, pattern, random.choice([0, 1, 250]),
                            random.randint(0, 16), random.randint(0, 32),
                            random.choice([0, 1, 210]), random.randint(0, 255)])
            record += bytes(random.randint(0, 255) for _ in range(64))
            write("runtime", "op%d-t%d-p%d" % (op, elem, pattern), record)

# ONNX models. The byte strings need no onnx package: an ir_version alone,
# a model with an empty graph (hand-encoded protobuf), not a protobuf.
write("onnx", "ir-only.onnx", b"\x08\x08")
write("onnx", "empty-graph.onnx",
      b"\x08\x08\x3a\x03\x12\x01g\x42\x02\x10\x11")
write("onnx", "garbage.onnx", b"\x08\x08 not a protobuf \xff\xff\xff")
try:
    sys.path.insert(0, os.path.join(root, "test", "lib"))
    import onnx_bad
    import onnx_cases
    import onnx_op_cases
except ImportError:  # no python3-onnx: the byte strings only
    onnx_cases = None
if onnx_cases is not None:
    from onnx import TensorProto

    def tiny_mlp(rng, dtype, batch):
        """onnx_cases.mlp's layers (MatMul + Add + Relu, Gemm + Relu, Gemm),
        8 -> 16 -> 16 -> 4."""
        g = onnx_cases.Builder(rng, dtype)
        h = g.op("Relu", [onnx_cases.linear(g, "x", 8, 16, gemm=False)])
        h = g.op("Relu", [onnx_cases.linear(g, h, 16, 16, sparse=True)])
        onnx_cases.linear(g, h, 16, 4)
        g.nodes[-1].output[0] = "y"
        return g.model([("x", None, [batch, 8])], [("y", None, [batch, 4])])

    def tiny_resnet(rng, dtype, batch):
        """Conv + BatchNormalization + Relu, MaxPool, a residual Add,
        GlobalAveragePool, Flatten, Gemm."""
        g = onnx_cases.Builder(rng, dtype)
        x = onnx_cases.conv_bn(g, "x", 3, 8, 3, stride=2)
        x = g.op("MaxPool", [x], kernel_shape=[2, 2], strides=[2, 2])
        y = onnx_cases.conv_bn(g, x, 8, 8, 3, relu=False, sparse=True)
        x = g.op("Relu", [g.op("Add", [y, x])])
        x = g.op("Flatten", [g.op("GlobalAveragePool", [x])], axis=1)
        onnx_cases.linear(g, x, 8, 4)
        g.nodes[-1].output[0] = "y"
        return g.model([("x", None, [batch, 3, 8, 8])],
                       [("y", None, [batch, 4])])

    onnx_rng = np.random.default_rng(5)
    good = {
        "mlp": tiny_mlp(onnx_rng, "f32", 2),
        "mlp-f16-dynamic": tiny_mlp(onnx_rng, "f16", "N"),
        "mlp-bf16": tiny_mlp(onnx_rng, "bf16", 3),
        "transformer14-dynamic": onnx_cases.transformer(
            onnx_rng, "f32", "N", opset=14, seq=4, d=8, heads=2, ff=16),
        "transformer17": onnx_cases.transformer(
            onnx_rng, "f16", 2, opset=17, seq=4, d=8, heads=2, ff=16),
        "resnet-dynamic": tiny_resnet(onnx_rng, "f32", "N"),
        "conv-grouped": onnx_op_cases.CASES["conv_grouped"](
            onnx_rng, "f32", 1),
        "conv-same-upper": onnx_op_cases.CASES["conv_same_upper"](
            onnx_rng, "f16", 2),
        "qdq-matmul": onnx_bad.qdq_matmul(4, 4),
        "external-data": onnx_bad.external_model(None, "weights.bin"),
        "external-data-offset": onnx_bad.external_model(
            None, "weights.bin", 0, 48),
        "external-data-missing": onnx_bad.external_model(None, "nowhere.bin"),
    }
    for name, m in good.items():
        write("onnx", name + ".onnx", m.SerializeToString())
    # Truncated: half of a model, and its first field alone.
    data = good["mlp"].SerializeToString()
    write("onnx", "mlp-truncated-half.onnx", data[:len(data) // 2])
    data = good["transformer14-dynamic"].SerializeToString()
    write("onnx", "transformer-truncated.onnx", data[:len(data) - 7])
    # The importer's error cases (test/Onnx/errors-*.test): one model each.
    for name, build in sorted(onnx_bad.MODELS.items()):
        write("onnx", "bad-%s.onnx" % name, build().SerializeToString())

# Tuning databases (docs/TUNING.md).
for d in ("tuning", os.path.join("test", "Tuning", "Inputs")):
    for name in sorted(os.listdir(os.path.join(root, d))):
        if name.endswith(".json"):
            with open(os.path.join(root, d, name), "rb") as f:
                write("tuning-db", name, f.read())

# .mlir programs
count = 0
for base in ("test", "examples"):
    for dirpath, _, files in sorted(os.walk(os.path.join(root, base))):
        # Not the fuzz directory, nor the reproducers of upstream crashes
        # (test/Tools/upstream-crashes.test): known, contained, reported.
        parts = dirpath.split(os.sep)
        if "Fuzz" in parts or "upstream" in parts:
            continue
        for name in sorted(files):
            if not name.endswith(".mlir"):
                continue
            path = os.path.join(dirpath, name)
            if os.path.getsize(path) > 64 * 1024:
                continue
            text = open(path, encoding="utf-8").read()
            rel = os.path.relpath(path, root).replace(os.sep, "_")
            for i, part in enumerate(text.split("\n// -----\n")):
                write("mlir", "%s.%d.mlir" % (rel, i), part.encode())
                count += 1
print("make_seeds.py: %d npy, %d safetensors, %d runtime, %d onnx, "
      "%d tuning-db, %d mlir seeds" % tuple(len(os.listdir(os.path.join(out, k))) for k in KINDS))
