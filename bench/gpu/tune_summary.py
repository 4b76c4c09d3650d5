#!/usr/bin/env python3
"""Summarizes a tuning run's JSON (bench/run_gpu_bench.sh run-tune): per
problem, the heuristic's time, the fastest candidate's, the best dense
candidate's, and the configuration that won, as a Markdown table.

    python3 bench/gpu/tune_summary.py bench/results/tune-<UTC>-<commit>.json
"""
import json
import sys


def config_text(config):
    prefix, suffix = "#stc_gpu.kernel_config<", ">"
    if config.startswith(prefix) and config.endswith(suffix):
        return config[len(prefix):-len(suffix)]
    return config


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    with open(argv[1]) as f:
        run = json.load(f)
    print("Device %s, commit %s, %s" % (run["device"] if isinstance(run["device"], str)
                                        else run["device"].get("name"), run["commit_short"], run["utc"]))
    print()
    print("| problem | heuristic 2:4 µs | best µs | best / heuristic | best dense µs | best candidate |")
    print("|---|---:|---:|---:|---:|---|")
    for op in run["ops"]:
        ok = [c for c in op["candidates"] if c.get("status") == "ok"]
        if not ok:
            print("| %s | – | – | – | – | no candidate ok |" % op["name"])
            continue
        best = min(ok, key=lambda c: c["median_us"])
        heur = [c for c in ok if c.get("heuristic") and c.get("sparse")]
        dense = [c["median_us"] for c in ok if not c.get("sparse")]
        h = heur[0]["median_us"] if heur else None
        print("| %s | %s | %.1f | %s | %s | %s: `%s` |" % (
            op["name"], "%.1f" % h if h else "–", best["median_us"],
            "%.2f" % (best["median_us"] / h) if h else "–",
            "%.1f" % min(dense) if dense else "–",
            "2:4" if best.get("sparse") else "dense", config_text(best.get("config", ""))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
