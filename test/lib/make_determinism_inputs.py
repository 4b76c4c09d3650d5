"""Writes the weights files of test/E2E/determinism.test: NPY, a 64 x 128
float32 weight, and SAFETENSORS, an nn.Linear float16 weight (96 x 64) and
a bfloat16 one (32 x 96), all seeded normal values.

usage: make_determinism_inputs.py NPY SAFETENSORS"""
import json
import struct
import sys

import numpy as np

npy_path, st_path = sys.argv[1:3]
rng = np.random.default_rng(2024)
np.save(npy_path, rng.standard_normal((64, 128)).astype(np.float32))

fc1 = rng.standard_normal((96, 64)).astype(np.float16)
# bfloat16: the high half of each float32.
fc2 = (rng.standard_normal((32, 96)).astype(np.float32).view(np.uint32)
       >> 16).astype(np.uint16)
tensors = [("fc1.weight", "F16", fc1.shape, fc1.tobytes()),
           ("fc2.weight", "BF16", fc2.shape, fc2.tobytes())]
header, offset, data = {}, 0, b""
for name, dtype, shape, raw in tensors:
    header[name] = {"dtype": dtype, "shape": list(shape),
                    "data_offsets": [offset, offset + len(raw)]}
    offset += len(raw)
    data += raw
text = json.dumps(header).encode()
text += b" " * (-len(text) % 8)
with open(st_path, "wb") as f:
    f.write(struct.pack("<Q", len(text)) + text + data)
