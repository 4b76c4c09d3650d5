#!/usr/bin/env python3
"""Exports PyTorch modules to ONNX for the ONNX front-end tests (Debian's
python3-torch 1.13 and python3-torchvision, random weights, eval mode).

  onnx_torch.py OUT.onnx NAME [--opset N] [--dynamic] [--prune]

NAME: `linear` (an nn.Linear stack with ReLU and GELU), `encoder`
(nn.TransformerEncoderLayer, GELU, batch_first), `resnet18`
(torchvision, 10 classes, 64 x 64 inputs). --dynamic makes the batch
dimension symbolic (dynamic_axes); --prune prunes every Linear/Conv weight
2:4 along its input features/channels first, as Apex ASP leaves a model
(the 2 largest magnitudes of each group of 4).
"""

import argparse
import sys

import torch
import torchvision


class LinearStack(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Sequential(
            torch.nn.Linear(64, 128), torch.nn.ReLU(),
            torch.nn.Linear(128, 128), torch.nn.GELU(),
            torch.nn.Linear(128, 32))

    def forward(self, x):
        return self.net(x)


def build(name):
    if name == "linear":
        return LinearStack(), torch.randn(2, 64)
    if name == "encoder":
        return (torch.nn.TransformerEncoderLayer(
            64, 4, 128, dropout=0.0, activation="gelu", batch_first=True),
            torch.randn(2, 16, 64))
    if name == "resnet18":
        return (torchvision.models.resnet18(weights=None, num_classes=10),
                torch.randn(1, 3, 64, 64))
    raise SystemExit("onnx_torch.py: unknown model " + name)


def prune_2_4(module):
    """Keeps the 2 largest |w| of every 4 consecutive input features
    (channels, for each output channel and filter position)."""
    with torch.no_grad():
        for m in module.modules():
            if isinstance(m, (torch.nn.Linear, torch.nn.Conv2d)):
                w = m.weight
                if w.shape[1] % 4:
                    continue
                g = w.transpose(1, -1).reshape(-1, 4)
                keep = g.abs().argsort(dim=1, descending=True)[:, :2]
                mask = torch.zeros_like(g).scatter_(1, keep, 1.0)
                w.copy_((g * mask).reshape(w.transpose(1, -1).shape)
                        .transpose(1, -1))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("name")
    p.add_argument("--opset", type=int, default=14)
    p.add_argument("--dynamic", action="store_true")
    p.add_argument("--prune", action="store_true")
    args = p.parse_args()
    torch.manual_seed(0)
    model, x = build(args.name)
    model.eval()
    if args.prune:
        prune_2_4(model)
    kwargs = {}
    if args.dynamic:
        kwargs["dynamic_axes"] = {"x": {0: "N"}, "y": {0: "N"}}
    torch.onnx.export(model, x, args.out, input_names=["x"],
                      output_names=["y"], opset_version=args.opset, **kwargs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
