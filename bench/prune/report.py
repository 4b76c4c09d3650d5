#!/usr/bin/env python3
"""Combines the raw output of prune_quality with the machine information
into the results JSON, and renders the markdown table from that JSON.

  report.py RAW_RESULTS.json MACHINE.json OUT.json OUT.md

Nothing in the outputs is typed by hand: every number comes from the two
inputs, except the Apex ASP reference points, which are quoted (with their
source) from Apex's permutation_tests/README.md.
"""

import json
import sys

# NVIDIA Apex, apex/contrib/sparsity/permutation_tests/README.md: results of
# permutation_test.py --channels 64 --filters 128 on a V100 (the matrix that
# make_inputs.py writes as asp_rand_128x64).  (strategy, magnitude,
# efficacy %, seconds).
ASP_REFERENCE = {
    "source": "https://github.com/NVIDIA/apex/blob/master/apex/contrib/"
              "sparsity/permutation_tests/README.md",
    "matrix": "asp_rand_128x64",
    "device": "V100 (GPU kernels)",
    "default_2to4_magnitude": 2852.376,
    "rows_50pct_magnitude": 3042.332,
    "results": [
        ["channel_swap,0", 2913.352, 32.1, 0.214],
        ["channel_swap,1000", 2920.694, 36.0, 20.248],
        ["optimize_stripe_groups,8,0", 2919.757, 35.5, 0.013],
        ["optimize_stripe_groups,8,1000", 2919.935, 35.6, 1.387],
        ["optimize_stripe_groups,12,0", 2921.947, 36.6, 0.860],
    ],
}


def pct(x):
    return "—" if x is None else "%.2f%%" % (100.0 * x)


def render(doc):
    m = doc["machine"]
    lines = [
        "# STC pruning quality benchmark, %s" % m["utc_time"],
        "",
        "- CPU: %s, %s cores; load average at start `%s`, at end `%s`"
        % (m["cpu_model"], m["cores"], m["loadavg_start"], m["loadavg_end"]),
        "- Commit `%s`%s; %s; flags `%s`"
        % (m["commit"], " (uncommitted changes)" if m["dirty"] else "",
           m["compiler"], m["cxxflags"]),
        "- Inputs written by `bench/prune/make_inputs.py` (%s, NumPy %s)"
        % (m["python"], m["numpy"]),
        "- Pattern 2:4 along K (axis 1). Kept ratios are kept |w| / total "
        "|w|. *recovered* = (perm − strip) / (total − strip), the share of "
        "the magnitude strip pruning loses that the permutation wins back; "
        "*efficacy* = (perm − strip) / (row bound − strip), Apex ASP's "
        "metric, where the row bound keeps the largest half of every row "
        "(no permutation can do better).",
        "- Search: `searchChannelPermutation`, seed %s, bounded by max "
        "rounds (a fixed amount of work, so the permutation is reproducible)"
        "; the time budget is a safety net (*timed out* says when it cut a "
        "search short)." % doc["results"][0].get("search_seed", "?"),
        "",
        "| matrix | rows×K | strip | tile | strip+perm | row bound | "
        "recovered | efficacy | search s | rounds (max) | timed out |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in doc["results"]:
        if "error" in r:
            lines.append("| %s | error: %s |||||||||" % (r["name"],
                                                         r["error"]))
            continue
        lines.append(
            "| %s | %d×%d | %s | %s | %s | %s | %s | %s | %.2f | %d (%d) | %s |"
            % (r["name"], r["rows"], r["cols"], pct(r["kept_ratio_strip"]),
               pct(r["kept_ratio_tile"]), pct(r["kept_ratio_strip_perm"]),
               pct(r["kept_ratio_row_bound"]), pct(r["recovered_fraction"]),
               pct(r["efficacy"]), r["search_seconds"], r["rounds"],
               r["max_rounds"], "yes" if r["timed_out"] else "no"))
    lines += ["", "Sources of the matrices:", ""]
    for r in doc["results"]:
        lines.append("- `%s`: %s" % (r["name"], r["source"]))

    ref = doc["asp_reference"]
    ours = [r for r in doc["results"] if r["name"] == ref["matrix"]]
    lines += [
        "",
        "## Against Apex ASP on its own test matrix",
        "",
        "Apex's README reports, for `%s` (%s), strip 2:4 magnitude %.3f and "
        "row bound %.3f:" % (ref["matrix"], ref["device"],
                             ref["default_2to4_magnitude"],
                             ref["rows_50pct_magnitude"]),
        "",
        "| search | kept magnitude | efficacy | seconds |",
        "|---|---:|---:|---:|",
    ]
    for name, mag, eff, sec in ref["results"]:
        lines.append("| ASP %s (quoted) | %.3f | %.1f%% | %.3f |"
                     % (name, mag, eff, sec))
    for r in ours:
        if "error" in r:
            continue
        lines.append("| STC (measured here, one CPU core) | %.3f | %.1f%% "
                     "| %.3f |" % (r["kept_strip_perm"],
                                   100 * r["efficacy"],
                                   r["search_seconds"]))
        lines.append("")
        lines.append("Our strip 2:4 magnitude on it is %.3f and the row "
                     "bound %.3f (the same matrix as Apex's)."
                     % (r["kept_strip"], r["kept_row_bound"]))
    lines.append("")
    lines.append("Source: %s" % ref["source"])
    lines.append("")
    return "\n".join(lines)


def main(argv):
    if len(argv) != 4:
        sys.stderr.write(__doc__)
        return 2
    with open(argv[0]) as f:
        results = json.load(f)
    with open(argv[1]) as f:
        machine = json.load(f)
    doc = {"machine": machine, "results": results,
           "asp_reference": ASP_REFERENCE}
    with open(argv[2], "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    with open(argv[3], "w") as f:
        f.write(render(doc))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
