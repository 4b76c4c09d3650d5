#!/usr/bin/env python3
"""One Markdown table of several benchmark runs of the same programs, for
kernel variants timed in one device call (scripts/gpu-session.sh's sweep).

    variant_table.py [--method stc] [--baselines cublas,cusparselt]
                     LABEL=RESULT.json [LABEL=RESULT.json ...]

Each RESULT.json is a gpu-gemm-*.json or gpu-conv-*.json of
bench/run_gpu_bench.sh. A row per program (in the first run's order), a
column per label with `--method`'s rate (TFLOP/s or TOPS, dense-equivalent
flops over the median time), then each baseline method's rate from the
first run, and each label's ratio to the first label. A method that did
not run correctly shows its status. Only numbers from the JSON: the table
is regenerated, never edited.
"""

import argparse
import json
import sys


def rate(result, method):
    """The method's rate in the run's unit, or its status when it has no
    correct median."""
    entry = result["methods"].get(method, {})
    if entry.get("status") != "ok" or not entry.get("median_ms"):
        return entry.get("status", "-")
    return result["flop"] / entry["median_ms"] / 1e9


def fmt(value):
    return "%.0f" % value if isinstance(value, float) else str(value)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--method", default="stc")
    ap.add_argument("--baselines", default="cublas,cusparselt")
    ap.add_argument("runs", nargs="+", metavar="LABEL=RESULT.json")
    args = ap.parse_args(argv)
    labels, runs = [], []
    for spec in args.runs:
        label, sep, path = spec.partition("=")
        if not sep or not label or not path:
            ap.error("expected LABEL=RESULT.json, got %r" % spec)
        with open(path) as f:
            runs.append({r["name"]: r for r in json.load(f)["results"]})
        labels.append(label)
    baselines = [b for b in args.baselines.split(",") if b]
    first = runs[0]
    head = ["program"] + labels + baselines + ["%s / %s" % (l, labels[0]) for l in labels[1:]]
    print("| " + " | ".join(head) + " |")
    print("|---" + "|---:" * (len(head) - 1) + "|")
    for name, r0 in first.items():
        rates = [rate(run[name], args.method) if name in run else "missing" for run in runs]
        cells = [name] + [fmt(x) for x in rates]
        cells += [fmt(rate(r0, b)) for b in baselines]
        for x in rates[1:]:
            ok = isinstance(x, float) and isinstance(rates[0], float)
            cells.append("%.2f×" % (x / rates[0]) if ok else "–")
        print("| " + " | ".join(cells) + " |")
    unit = next(iter(first.values())).get("unit", "TFLOP/s")
    print()
    print("Rates in %s (dense-equivalent operations over the median time); "
          "method `%s` per label, baselines from `%s`." % (unit, args.method, labels[0]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
