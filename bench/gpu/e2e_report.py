"""The end-to-end benchmark's results document and its Markdown (e2e_bench.py
writes them; the self test renders synthetic results). No torch, no NumPy.

A result (one block at one size) has per method an entry {status, median_ms,
...}; `median_ms` maps every method that ran to its median; `ratios` are
speedups of STC (> 1: STC faster): `stc_speedup_vs_torch_dense`,
`stc_speedup_vs_torch_sparse`, `stc_speedup_vs_torch_compile` with STC's
best method (`stc_method` says which), and the same per STC method
(`per_method[<method>]["speedup_vs_<baseline>"]`).
"""

import json
import math

SCHEMA = "stc-gpu-e2e/1"
STC_METHODS = ("stc", "stc_sm90a")
BASELINES = ("torch_dense", "torch_sparse", "torch_compile")
METHODS = STC_METHODS + BASELINES
LABELS = {"stc": "STC sm_90 (mma.sp)", "stc_sm90a": "STC sm_90a (wgmma.sp)",
          "torch_dense": "PyTorch dense (cuBLAS)",
          "torch_sparse": "PyTorch 2:4 (cuSPARSELt)",
          "torch_compile": "torch.compile (dense)"}
#: issue 16's targets: (what, block, min tokens, baseline, min speedup).
TARGETS = [
    ("LLaMA MLP at >= 2048 tokens: >= 1.3x PyTorch dense", "llama_mlp", 2048,
     "torch_dense", 1.3),
    ("LLaMA MLP at >= 2048 tokens: >= 1.0x PyTorch semi-structured", "llama_mlp", 2048,
     "torch_sparse", 1.0),
    ("no block slower than 0.9x PyTorch dense", None, 0, "torch_dense", 0.9),
]


def finite_json(obj):
    """obj with non-finite floats as strings (strict JSON)."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return str(obj)
    if isinstance(obj, dict):
        return {k: finite_json(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [finite_json(v) for v in obj]
    return obj


def add_ratios(res):
    """Fills res["median_ms"] and res["ratios"] from res["methods"]."""
    meds = {m: e["median_ms"] for m, e in res["methods"].items()
            if e.get("status") == "ok" and e.get("median_ms")}
    res["median_ms"] = meds
    ratios = {}
    stc = [(meds[m], m) for m in STC_METHODS if m in meds]
    best = min(stc)[1] if stc else None
    ratios["stc_method"] = best
    per = {}
    for b in BASELINES:
        ratios["stc_speedup_vs_" + b] = (meds[b] / meds[best]
                                         if best and b in meds else None)
        for m in STC_METHODS:
            if m in meds and b in meds:
                per.setdefault(m, {})["speedup_vs_" + b] = meds[b] / meds[m]
    ratios["per_method"] = per
    res["ratios"] = ratios
    return res


def targets(results):
    """issue 16's targets against the results: [{target, status, worst,
    at, missing}] (status: pass; fail: a result below; incomplete: the
    results there are pass, but `missing` have no ratio; no data)."""
    out = []
    for what, block, min_tokens, base, need in TARGETS:
        vals = [(r["ratios"].get("stc_speedup_vs_" + base), r["name"]) for r in results
                if (block is None or r["block"] == block)
                and (r.get("tokens") or 0) >= min_tokens]
        have = [(v, n) for v, n in vals if v is not None]
        if not have:
            out.append({"target": what, "status": "no data", "worst": None, "at": None})
            continue
        worst = min(have)
        status = ("fail" if worst[0] < need else
                  "pass" if len(have) == len(vals) else "incomplete")
        out.append({"target": what, "need": need, "status": status,
                    "worst": worst[0], "at": worst[1],
                    "missing": [n for v, n in vals if v is None]})
    return out


def document(results, env, manifest, meta):
    for r in results:
        add_ratios(r)
    return {"schema": SCHEMA, "utc": meta.get("utc"), "commit": meta.get("commit"),
            "device": (env.get("gpu") or {}).get("name"), "env": env,
            "build": {k: manifest.get(k) for k in ("utc", "commit", "commit_short", "dirty",
                                                    "flags", "flags_sm90a", "targets",
                                                    "methods", "tiny", "quick", "only")},
            "methods": {m: LABELS[m] for m in METHODS},
            "method_notes": meta.get("method_notes", {}),
            "notes": meta.get("notes", []),
            "results": results, "targets": targets(results)}


def _ms(e):
    if not e:
        return "-"
    if e.get("status") != "ok":
        return e.get("status", "?")
    return "%.3f" % e["median_ms"]


def _x(v):
    return "-" if v is None else "%.2fx" % v


def markdown(doc):
    lines = ["# GPU end-to-end blocks: STC against PyTorch", "",
             "- device: %s" % doc.get("device"),
             "- run: %s, commit %s; build %s, commit %s%s" % (
                 doc.get("utc"), doc.get("commit"), (doc.get("build") or {}).get("utc"),
                 (doc.get("build") or {}).get("commit_short"),
                 " (dirty)" if (doc.get("build") or {}).get("dirty") else ""),
             "- times: median ms per forward call (CUDA events), inputs and weights on "
             "the device; speedup > 1: STC (its faster method) is faster", ""]
    sw = (doc.get("env") or {}).get("software") or {}
    if sw:
        lines[4:4] = ["- software: " + ", ".join("%s %s" % kv for kv in sorted(sw.items()))]
    variant = (doc.get("build") or {}).get("flags_sm90a")
    if variant:
        lines[4:4] = ["- sm_90a kernel variant: `%s`" % variant]
    head = ["block", "size"] + [LABELS[m] for m in METHODS] + [
        "vs dense", "vs 2:4", "vs compile"]
    lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in doc["results"]:
        ra = r.get("ratios", {})
        if r.get("seq"):
            size = "%d x %d (batch x seq)" % (r["batch"], r["seq"])
        elif r.get("tokens"):
            size = "%d tokens" % r["tokens"]
        else:
            size = "batch %s" % r.get("batch")
        lines.append("| " + " | ".join(
            [r["block"], size] + [_ms(r["methods"].get(m)) for m in METHODS]
            + [_x(ra.get("stc_speedup_vs_" + b)) for b in BASELINES]) + " |")
    lines += ["", "## Targets (issue 16)", ""]
    for t in doc.get("targets", []):
        lines.append("- %s: **%s**%s%s" % (
            t["target"], t["status"].upper(),
            "" if t.get("worst") is None else " (worst %.2fx at %s)" % (t["worst"], t["at"]),
            "; no ratio for " + ", ".join(t["missing"]) if t.get("missing") else ""))
    probs = []
    for r in doc["results"]:
        for m in METHODS:
            e = r["methods"].get(m) or {}
            if e.get("status") not in (None, "ok"):
                probs.append("- %s %s: %s: %s" % (r["name"], m, e.get("status"),
                                                  (e.get("error") or "").splitlines()[0]
                                                  if e.get("error") else ""))
    probs += ["- %s: skipped: %s" % (r["name"], r["skipped"]) for r in doc["results"]
              if r.get("skipped")]
    probs += ["- %s: failed: %s" % (r["name"], r["error"].splitlines()[0])
              for r in doc["results"] if r.get("error")]
    if probs:
        lines += ["", "## Not timed", ""] + probs
    checks = []
    for r in doc["results"]:
        for m in METHODS:
            e = r["methods"].get(m) or {}
            if e.get("rel_error") is not None:
                checks.append("%s %s %.1e" % (r["name"], m, e["rel_error"]))
    if checks:
        lines += ["", "## Checks", "",
                  "Every result against PyTorch's dense result of the same pruned weights "
                  "before timing (relative Frobenius error, tolerance %s): " % (
                      (doc.get("env") or {}).get("tolerance", "1e-2")) + "; ".join(checks)]
    notes = list(doc.get("notes", [])) + ["%s: %s" % kv for kv in
                                          sorted(doc.get("method_notes", {}).items())]
    if notes:
        lines += ["", "## Notes", ""] + ["- " + n for n in notes]
    return "\n".join(lines) + "\n"


def write(doc, stem):
    with open(stem + ".json", "w") as f:
        json.dump(finite_json(doc), f, indent=1)
        f.write("\n")
    with open(stem + ".md", "w") as f:
        f.write(markdown(doc))
