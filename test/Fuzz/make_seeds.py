"""Writes the seed corpora of the fuzz targets (test/Fuzz/FuzzTargets.h)
from the project's test inputs, one directory per target kind:

  OUT/npy          .npy files like the tests write (every dtype the reader
                   takes, 0-d, empty, Fortran order, big-endian, format 2.0)
  OUT/safetensors  safetensors files (F32/F16/BF16/I64/U8/BOOL, metadata,
                   empty and scalar tensors)
  OUT/runtime      records for the runtime target: every entry point x
                   element type x pattern, with data
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
for kind in ("npy", "safetensors", "runtime", "mlir"):
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
print("make_seeds.py: %d npy, %d safetensors, %d runtime, %d mlir seeds"
      % tuple(len(os.listdir(os.path.join(out, k)))
              for k in ("npy", "safetensors", "runtime", "mlir")))
