#!/usr/bin/env python3
"""Checks stc-run's output for examples/resnet_bottleneck.mlir against a
float64 NumPy reference built from test/lib/stc_ref.py: every filter pruned
2:4 along its input channels for each (f, kh, kw) (prune_conv_filter_24),
the block computed with conv2d_nhwc_ref (bias and ReLU applied by it; the
residual add of the block input before the last ReLU).

    resnet_bottleneck_ref.py PROG.mlir X.npy Y.npy

The weights are read back from PROG's dense_resource blobs (in program
order: w1, b1, w2, b2, w3, b3; FHWC filters). Prints
`resnet_bottleneck_ref: rel_error=E (vs unpruned: U) PASS|FAIL`; PASS needs
E <= 1e-5 and U > 1e-5 (the pruned and unpruned blocks can be told apart).
"""

import os
import re
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "lib"))
import stc_ref  # noqa: E402


def constants(text):
    blobs = {}
    for name, hexs in re.findall(r'^\s*([\w.]+): "0x([0-9A-Fa-f]+)"', text, re.M):
        blobs[name] = np.frombuffer(bytes.fromhex(hexs)[4:], dtype="<f4").astype(np.float64)
    return [blobs[name].reshape(tuple(int(d) for d in shape.split("x")))
            for name, shape in re.findall(r"dense_resource<([\w.]+)> : tensor<([0-9x]+)xf32>",
                                          text)]


def prune(w):
    if hasattr(stc_ref, "prune_conv_filter_24"):
        return stc_ref.prune_conv_filter_24(w)
    # Older stc_ref: the same rule through prune_nm on the channel axis.
    return stc_ref.prune_nm(w, 2, 4, axis=3)


def block(x, c, pruned):
    p = prune if pruned else (lambda w: w)
    w1, b1, w2, b2, w3, b3 = c
    y = stc_ref.conv2d_nhwc_ref(x, p(w1), bias=b1, act="relu")
    y = stc_ref.conv2d_nhwc_ref(y, p(w2), padding=1, bias=b2, act="relu")
    y = stc_ref.conv2d_nhwc_ref(y, p(w3), bias=b3) + x
    return np.maximum(y, 0.0)


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    with open(argv[0]) as f:
        c = constants(f.read())
    if len(c) != 6 or any(w.ndim != 4 for w in c[0::2]):
        print("resnet_bottleneck_ref: expected 3 FHWC filters and 3 biases, got shapes %s"
              % [w.shape for w in c])
        return 1
    x = np.load(argv[1]).astype(np.float64)
    y = np.load(argv[2])
    ref = block(x, c, True)
    if y.shape != ref.shape or y.dtype != np.float32:
        print("resnet_bottleneck_ref: output %s %s, expected %s float32"
              % (y.shape, y.dtype, ref.shape))
        return 1
    err = stc_ref.rel_error(y, ref)
    other = stc_ref.rel_error(block(x, c, False), ref)
    ok = err <= 1e-5 and other > 1e-5
    print("resnet_bottleneck_ref: rel_error=%.3e (vs unpruned: %.3e) %s"
          % (err, other, "PASS" if ok else "FAIL"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
