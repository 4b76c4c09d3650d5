#!/usr/bin/env python3
"""Checks of the GPU end-to-end benchmark (test/Bench/e2e-*.test).

  e2e_checks.py report
      e2e_report on synthetic results: per-method medians, the speedups
      (STC's faster method; per method), issue 16's targets (pass, fail,
      no data), strict JSON (non-finite floats as strings) and the Markdown.
  e2e_checks.py results FILE.json
      a results document the run step wrote: its schema, every result's
      fields and checked STC entries.
"""
import json
import math
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "bench", "gpu"))

import e2e_report  # noqa: E402


def ok(ms, **kw):
    return dict(status="ok", median_ms=ms, rel_error=1e-3, **kw)


def synthetic():
    def res(tokens, stc, sm90a, dense, sparse, comp):
        return {"name": "llama_mlp-t%d" % tokens, "block": "llama_mlp", "dtype": "f16",
                "tokens": tokens, "params": {"tokens": tokens}, "flop": 1.0,
                "methods": {"stc": stc, "stc_sm90a": sm90a, "torch_dense": dense,
                            "torch_sparse": sparse, "torch_compile": comp}}
    unavailable = {"status": "unavailable", "error": "torch 2.0 has no torch.compile"}
    return [
        res(16, ok(0.2), ok(0.1), ok(0.12), ok(0.15), unavailable),
        res(2048, ok(2.0), ok(1.5), ok(2.1), ok(1.6), ok(2.0)),
        res(4096, {"status": "wrong", "error": "result differs", "rel_error": float("inf")},
            ok(3.0), ok(4.5), ok(2.9), ok(4.4)),
    ]


def check_report():
    results = synthetic()
    doc = e2e_report.document(results, {"gpu": {"name": "Fake H100"}, "tolerance": 0.01},
                              {"utc": "B", "commit_short": "abc1234"},
                              {"utc": "U", "commit": "abc1234", "notes": ["a note"]})
    r16, r2k, r4k = doc["results"]
    assert r16["median_ms"] == {"stc": 0.2, "stc_sm90a": 0.1, "torch_dense": 0.12,
                                "torch_sparse": 0.15}, r16["median_ms"]
    ra = r16["ratios"]
    assert ra["stc_method"] == "stc_sm90a", ra
    assert math.isclose(ra["stc_speedup_vs_torch_dense"], 1.2), ra
    assert math.isclose(ra["stc_speedup_vs_torch_sparse"], 1.5), ra
    assert ra["stc_speedup_vs_torch_compile"] is None, ra
    per = ra["per_method"]
    assert math.isclose(per["stc"]["speedup_vs_torch_dense"], 0.6), per
    assert math.isclose(per["stc_sm90a"]["speedup_vs_torch_sparse"], 1.5), per
    assert "speedup_vs_torch_compile" not in per["stc"], per
    # A wrong STC result is not timed: the best is the other method.
    assert r4k["ratios"]["stc_method"] == "stc_sm90a", r4k["ratios"]
    assert math.isclose(r4k["ratios"]["stc_speedup_vs_torch_dense"], 1.5)
    t = {x["target"]: x for x in doc["targets"]}
    dense13 = t[e2e_report.TARGETS[0][0]]
    sparse10 = t[e2e_report.TARGETS[1][0]]
    all09 = t[e2e_report.TARGETS[2][0]]
    # 2048: 2.1 / 1.5 = 1.4; 4096: 4.5 / 3.0 = 1.5 -> pass; vs 2:4 at 2048:
    # 1.6 / 1.5 = 1.07, at 4096: 2.9 / 3.0 = 0.97 -> fail.
    assert dense13["status"] == "pass" and math.isclose(dense13["worst"], 1.4), dense13
    assert sparse10["status"] == "fail" and sparse10["at"] == "llama_mlp-t4096", sparse10
    assert all09["status"] == "pass" and math.isclose(all09["worst"], 1.2), all09
    with tempfile.TemporaryDirectory() as d:
        e2e_report.write(doc, os.path.join(d, "r"))
        with open(os.path.join(d, "r.json")) as f:
            back = json.loads(f.read(), parse_constant=lambda c: (_ for _ in ()).throw(
                AssertionError("non-strict JSON constant " + c)))
        assert back["results"][2]["methods"]["stc"]["rel_error"] == "inf"
        assert back["device"] == "Fake H100"
        with open(os.path.join(d, "r.md")) as f:
            md = f.read()
    for want in ("| llama_mlp | 2048 tokens | 2.000 | 1.500 | 2.100 | 1.600 | 2.000 | 1.40x | "
                 "1.07x | 1.33x |",
                 "| llama_mlp | 16 tokens | 0.200 | 0.100 | 0.120 | 0.150 | unavailable | 1.20x "
                 "| 1.50x | - |",
                 "| llama_mlp | 4096 tokens | wrong |",
                 ">= 1.3x PyTorch dense: **PASS** (worst 1.40x at llama_mlp-t2048)",
                 ">= 1.0x PyTorch semi-structured: **FAIL** (worst 0.97x at llama_mlp-t4096)",
                 "- llama_mlp-t4096 stc: wrong: result differs", "- a note", "device: Fake H100"):
        assert want in md, "missing from the Markdown: %r\n%s" % (want, md)
    # A block the time budget skipped, and one whose set-up failed.
    extra = [{"name": "resnet_bottleneck-n32", "block": "resnet_bottleneck", "dtype": "f16",
              "tokens": None, "batch": 32, "params": {}, "flop": 1.0, "methods": {},
              "skipped": "time budget (--time-budget 480 s) used up"},
             {"name": "bert_layer-b8s128", "block": "bert_layer", "dtype": "f16",
              "tokens": 1024, "batch": 8, "seq": 128, "params": {}, "flop": 1.0,
              "methods": {}, "error": "RuntimeError: out of memory\nmore"}]
    doc3 = e2e_report.document(synthetic() + extra, {}, {}, {})
    md3 = e2e_report.markdown(doc3)
    for want in ("| resnet_bottleneck | batch 32 | - |", "| bert_layer | 8 x 128 (batch x seq) |",
                 "- resnet_bottleneck-n32: skipped: time budget",
                 "- bert_layer-b8s128: failed: RuntimeError: out of memory"):
        assert want in md3, "missing from the Markdown: %r\n%s" % (want, md3)
    assert doc3["results"][3]["ratios"]["stc_speedup_vs_torch_dense"] is None
    # Blocks with no ratio leave "no block slower" incomplete, not passed.
    t3 = doc3["targets"][2]
    assert t3["status"] == "incomplete", t3
    assert t3["missing"] == ["resnet_bottleneck-n32", "bert_layer-b8s128"], t3
    assert ("no block slower than 0.9x PyTorch dense: **INCOMPLETE** (worst 1.20x at "
            "llama_mlp-t16); no ratio for resnet_bottleneck-n32, bert_layer-b8s128") in md3, md3
    # No data for a target: no result at >= 2048 tokens.
    doc2 = e2e_report.document(synthetic()[:1], {}, {}, {})
    assert doc2["targets"][0]["status"] == "no data", doc2["targets"]
    assert "kernel variant" not in e2e_report.markdown(doc2)
    # A build with an sm_90a kernel variant (build-e2e --flags-sm90a) says so.
    doc4 = e2e_report.document(synthetic()[:1], {}, {"flags_sm90a": "--gpu-meta-tma"}, {})
    assert doc4["build"]["flags_sm90a"] == "--gpu-meta-tma", doc4["build"]
    assert "- sm_90a kernel variant: `--gpu-meta-tma`" in e2e_report.markdown(doc4)


def check_results(path):
    with open(path) as f:
        doc = json.load(f)
    assert doc["schema"] == e2e_report.SCHEMA, doc["schema"]
    assert doc["device"], "no device name"
    assert doc["results"], "no results"
    for r in doc["results"]:
        for k in ("name", "dtype", "tokens", "median_ms", "ratios", "methods"):
            assert k in r, "%s has no %s" % (r.get("name"), k)
        for m in ("stc", "stc_sm90a", "torch_dense"):
            e = r["methods"][m]
            assert e["status"] == "ok", (r["name"], m, e)
            assert e["rel_error"] < e2e_report_tolerance(doc), (r["name"], m, e)
            assert e["median_ms"] > 0 and e["repeats"] >= 3, (r["name"], m, e)
        for k in ("stc_speedup_vs_torch_dense", "stc_speedup_vs_torch_sparse"):
            assert k in r["ratios"], (r["name"], k)
        assert r["ratios"]["stc_speedup_vs_torch_dense"] > 0
    print("results: %d blocks, device %s" % (len(doc["results"]), doc["device"]))


def e2e_report_tolerance(doc):
    return float((doc.get("env") or {}).get("tolerance", 1e-2))


def main(argv):
    if argv[:1] == ["report"]:
        check_report()
        print("PASS: report")
    elif argv[:1] == ["results"] and len(argv) == 2:
        check_results(argv[1])
        print("PASS: results")
    else:
        print(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
