#!/usr/bin/env python3
"""Exports torchvision's ResNet-18 to ONNX after pruning it 2:4, as the
NVIDIA sparsity workflow (Apex ASP, then ONNX, then an inference compiler)
leaves a model, for examples/onnx/run.sh.

  export_resnet18.py OUT_DIR [--seed N] [--batch N] [--size N]

Writes OUT_DIR/resnet18_asp.onnx (FLOAT, dynamic batch),
OUT_DIR/resnet18_asp_f16.onnx (the same graph in FLOAT16, what the GPU's
sparse tensor cores take) and OUT_DIR/x.npy (a seeded input batch).

The weights are random (torchvision's resnet18(weights=None); no download),
then pruned like ASP's default: in every Conv and Linear weight, the two
largest magnitudes of each group of four consecutive input channels are
kept (the 3-channel stem is left dense). A pretrained checkpoint would be
fine-tuned after this step; the compiler does not care where the weights
come from, only that they are 2:4, which the importer reports.
"""

import argparse
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, numpy_helper
import torch
import torchvision


def prune_2_4(model):
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, (torch.nn.Conv2d, torch.nn.Linear)):
                w = m.weight
                if w.shape[1] % 4:
                    continue
                # Input channels last, in groups of 4.
                g = w.transpose(1, -1).reshape(-1, 4)
                keep = g.abs().argsort(dim=1, descending=True)[:, :2]
                mask = torch.zeros_like(g).scatter_(1, keep, 1.0)
                w.copy_((g * mask).reshape(w.transpose(1, -1).shape)
                        .transpose(1, -1))


def to_float16(model):
    """The same graph with FLOAT16 weights, inputs and outputs (the ops
    ResNet-18 exports with are all type-polymorphic)."""
    m = onnx.ModelProto()
    m.CopyFrom(model)
    for t in m.graph.initializer:
        if t.data_type == TensorProto.FLOAT:
            t.CopyFrom(numpy_helper.from_array(
                numpy_helper.to_array(t).astype(np.float16), t.name))
    for vi in list(m.graph.input) + list(m.graph.output):
        if vi.type.tensor_type.elem_type == TensorProto.FLOAT:
            vi.type.tensor_type.elem_type = TensorProto.FLOAT16
    return m


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out_dir")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--batch", type=int, default=4)
    p.add_argument("--size", type=int, default=64)
    args = p.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    torch.manual_seed(args.seed)
    model = torchvision.models.resnet18(weights=None, num_classes=10).eval()
    prune_2_4(model)
    x = torch.randn(args.batch, 3, args.size, args.size)
    path = os.path.join(args.out_dir, "resnet18_asp.onnx")
    torch.onnx.export(model, x, path, input_names=["x"], output_names=["y"],
                      opset_version=14,
                      dynamic_axes={"x": {0: "N"}, "y": {0: "N"}})
    onnx.save(to_float16(onnx.load(path)),
              os.path.join(args.out_dir, "resnet18_asp_f16.onnx"))
    np.save(os.path.join(args.out_dir, "x.npy"), x.numpy())
    print("export_resnet18: %s (and _f16), input %s" % (path,
                                                        tuple(x.shape)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
