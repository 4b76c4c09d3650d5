"""Results of the GPU GEMM and convolution benchmarks: the JSON documents assembled from the
worker's records, and the Markdown table generated from it (nothing typed by
hand). Pure Python (no torch, no NumPy): `run_gpu_bench.sh selftest` runs it
on synthetic records.
"""

METHODS = ("stc", "cublas", "cutlass", "cusparselt")
BASELINES = ("cublas", "cutlass", "cusparselt")
NAMES = {"stc": "STC", "cublas": "cuBLAS dense", "cutlass": "CUTLASS 2:4",
         "cusparselt": "cuSPARSELt 2:4"}


def finite_json(obj):
    """The document with every non-finite float (an infinite relative error)
    written as the string "inf"/"-inf"/"nan", so that the JSON is standard."""
    if isinstance(obj, float) and obj != obj:
        return "nan"
    if isinstance(obj, float) and obj in (float("inf"), float("-inf")):
        return "inf" if obj > 0 else "-inf"
    if isinstance(obj, dict):
        return {k: finite_json(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [finite_json(v) for v in obj]
    return obj


# ===========================================================================
# What both documents share (the GEMM one and the convolution one differ in
# their methods, their program fields and their tables' columns)
# ===========================================================================

#: A result record's fields copied into the program's entry.
RESULT_KEYS = ("copies", "working_set_bytes_stc", "rotation_target_bytes", "seed",
               "prep_seconds", "wall_seconds", "format", "format_error")

#: The settings' description of the timing (both benchmarks).
TIMING = ("CUDA events around every call on the current stream; the queue is "
          "pre-filled by a sleep kernel (torch.cuda._sleep) so the times are GPU "
          "times, not host launch overhead; warm-up first")


def _methods_of(rec, e, methods_run, result_keys=RESULT_KEYS):
    """Every method's entry of one program from its last record (None: the
    run ended before it), with the status of a program that never ran
    (build failure, skipped, worker died, not run) and the TFLOP/s of every
    timed method; copies `result_keys` of the record into e."""
    methods = {}
    if rec is None:
        methods["stc"] = {"status": "not_run", "error": "no record (the run ended early)"}
    elif "build_failed" in rec:
        methods["stc"] = {"status": "build_failed", "error": rec["build_failed"]}
    elif "skipped" in rec:
        methods = {m: {"status": "skipped", "error": rec["skipped"]} for m in methods_run}
    elif "worker_died" in rec:
        methods["stc"] = {"status": "failed", "error": rec["worker_died"]}
    elif "not_run" in rec:
        methods["stc"] = {"status": "not_run", "error": rec["not_run"]}
    else:
        methods = dict(rec.get("methods") or {})
        if "error" in rec:
            methods.setdefault("stc", {"status": "failed", "error": rec["error"]})
        for k in result_keys:
            if k in rec:
                e[k] = rec[k]
    for m in methods_run:
        methods.setdefault(m, {"status": "not_run"})
        ent = methods[m]
        if "median_ms" in ent and "tflops_median" not in ent and e["flop"]:
            ent["tflops_median"] = e["flop"] / (ent["median_ms"] * 1e-3) / 1e12
            ent["tflops_best"] = e["flop"] / (ent["min_ms"] * 1e-3) / 1e12
    return methods


def _ratios(methods, baselines, dense, others):
    """Median-time ratios of methods both ok: STC against every baseline
    (> 1: STC faster), and each of `others` against the dense baseline."""
    ratios = {}
    stc = methods["stc"]
    for b in baselines:
        be = methods[b]
        if stc.get("status") == "ok" and be.get("status") == "ok":
            ratios["stc_speedup_vs_" + b] = be["median_ms"] / stc["median_ms"]
    de = methods[dense]
    for b in others:
        be = methods[b]
        if de.get("status") == "ok" and be.get("status") == "ok":
            ratios[b + "_speedup_vs_" + dense] = de["median_ms"] / be["median_ms"]
    return ratios


def _records(recs):
    """(the records by type, the last result record of each program)."""
    by_type, by_index = {}, {}
    for r in recs:
        by_type.setdefault(r.get("type"), []).append(r)
        if r.get("type") == "result":
            by_index[r["index"]] = r  # the last record of a program wins
    return by_type, by_index


def _summary(results, methods_run, baselines, fmt, fatal):
    """Status counts per method; ok when every STC result is ok, no
    baseline is wrong, the format checks ran and passed and no worker
    failed at setup."""
    st = {}
    for e in results:
        for m in methods_run:
            s = e["methods"][m].get("status", "not_run")
            st.setdefault(m, {}).setdefault(s, 0)
            st[m][s] += 1
    stc_bad = sum(v for s, v in st.get("stc", {}).items() if s != "ok")
    base_wrong = sum(st.get(b, {}).get("wrong", 0) for b in baselines)
    # None: no format check ran (no worker got that far).
    fmt_ok = (all(r.get("ok") for r in fmt) and all(
        not e.get("format_error") for e in results)) if fmt else None
    return {"ok": stc_bad == 0 and base_wrong == 0 and fmt_ok is True and not fatal,
            "programs": len(results), "status_counts": st,
            "format_checks_ok": fmt_ok,
            "worker_fatal": [r["error"] for r in fatal]}


def _document(schema, manifest, meta, env, flop_counting, software, torch_settings,
              described, fmt, results, summary, extra=None):
    """The results document; `described`: the settings' texts (reference,
    timing, rotation, ...), `extra`: fields placed before the summary."""
    doc = {
        "schema": schema,
        "utc": meta["utc"],
        "mock": bool(manifest.get("mock")),
        "quick": bool(manifest.get("quick")),
        "commit": manifest.get("commit"), "commit_short": manifest.get("commit_short"),
        "dirty": manifest.get("dirty"),
        "flop_counting": flop_counting,
        "gpu": dict(env.get("gpu") or {}, nvidia_smi_start=meta.get("nvidia_smi_start"),
                    nvidia_smi_end=meta.get("nvidia_smi_end")),
        "software": software,
        "torch_settings": torch_settings,
        "build": {k: v for k, v in manifest.items() if k != "programs"},
        "settings": dict(
            {"tolerance": meta["tolerance"]}, **described,
            sleep_cycles_per_ms=env.get("sleep_cycles_per_ms"),
            time_budget_s=meta["time_budget_s"], stall_s=meta["stall_s"],
            max_method_s=meta["max_method_s"], max_repeats=meta["max_repeats"],
            only=meta.get("only")),
        "format_check": fmt,
        "worker_restarts": meta.get("worker_restarts"),
        "wall_seconds": meta.get("wall_seconds"),
        "results": results,
    }
    doc.update(extra or {})
    doc["summary"] = summary
    return doc


def _cell(ent, what):
    if ent.get("status") != "ok" and "median_ms" not in ent:
        return ent.get("status", "not_run")
    tag = "" if ent.get("status") == "ok" else " (%s)" % ent.get("status")
    if what == "ms":
        return "%.4f (%.4f)%s" % (ent["median_ms"], ent["min_ms"], tag)
    tf = ent["tflops_median"]
    return ("%.1f%s" if tf >= 10 else "%.3g%s") % (tf, tag)


def _ratio(r):
    return "%.2f×" % r if r is not None else "–"


def _md_head(doc, title, mock_source, library, library_key):
    """The Markdown's title and its lines on the GPU, its clocks, the
    software (library: the baselines' library, its version under
    library_key in "software") and the kernels' build."""
    g, sw, b = doc["gpu"], doc.get("software") or {}, doc["build"]
    smi0, smi1 = g.get("nvidia_smi_start") or {}, g.get("nvidia_smi_end") or {}
    md = ["# %s, %s%s%s\n" % (
        title, doc["utc"], " (quick)" if doc["quick"] else "",
        " — MOCK kernels, not STC" if doc["mock"] else "")]
    if doc["mock"]:
        md.append("**The STC column of this run is `%s`, a plain CUDA C "
                  "kernel that tests the harness; it is not STC.**\n" % mock_source)
    md.append("- GPU: %s (sm %s, %s SMs, L2 %s MiB, %s GiB); CUDA driver %s; nvidia-smi "
              "driver %s" % (
                  g.get("name"), g.get("compute_capability"), g.get("multiprocessors"),
                  "%.0f" % (g["l2_bytes"] / 2**20) if g.get("l2_bytes") else "?",
                  "%.0f" % (g["memory_bytes"] / 2**30) if g.get("memory_bytes") else "?",
                  g.get("cuda_driver_version"), smi0.get("driver_version")))
    md.append("- SM clock at start %s (max %s), at end %s; memory clock %s; power limit %s; "
              "clock event reasons at end `%s`" % (
                  smi0.get("clocks.sm"), smi0.get("clocks.max.sm"), smi1.get("clocks.sm"),
                  smi1.get("clocks.mem"), smi1.get("power.limit"),
                  smi1.get("clocks_event_reasons.active")))
    md.append("- torch %s (CUDA %s), %s %s, Python %s" % (
        sw.get("torch"), sw.get("torch_cuda"), library, sw.get(library_key), sw.get("python")))
    md.append("- Kernels: %s, target %s%s, built %s from commit `%s`%s; %s" % (
        b.get("kernel_source"), b.get("target"),
        (" flags `%s`" % " ".join(b["flags"])) if b.get("flags") else "",
        b.get("utc"), (doc.get("commit") or "unknown")[:12],
        " (dirty tree)" if doc.get("dirty") else "", b.get("stc_version") or ""))
    return md


def _md_kernels(doc, column):
    """The table of STC's kernels; column: (title, alignment, kernel info ->
    cell) of the one column the two benchmarks fill differently."""
    md = []
    kr = [e for e in doc["results"] if isinstance(e["methods"]["stc"].get("kernel"), dict)]
    if kr:
        title, align, cell = column
        md.append("## STC kernels\n")
        md.append("| program | kernel | grid | block | %s | regs | local B | blocks/SM | "
                  "rel. error | runs (warm-up) | copies |" % title)
        md.append("|---|---|---|---|%s|---:|---:|---:|---:|---:|---:|" % align)
        for e in kr:
            st = e["methods"]["stc"]
            k = st["kernel"]
            md.append("| %s | `%s` | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                e["name"], k.get("kernel"), "×".join(map(str, k.get("grid", []))),
                "×".join(map(str, k.get("block", []))), cell(k),
                k.get("registers", "?"), k.get("local_bytes", "?"),
                k.get("blocks_per_sm", "?"),
                ("%.1e" % st["rel_error"]) if isinstance(st.get("rel_error"), float)
                else str(st.get("rel_error", "–")),
                "%s (%s)" % (st.get("repeats", "–"), st.get("warmup", "–")),
                e.get("copies", "–")))
        md.append("")
    return md


def _md_tail(doc, methods_run, names):
    """What was not measured, unavailable or wrong (a baseline failing
    alike on many programs: one line), and the status counts."""
    md = []
    bad = [(e, m) for e in doc["results"] for m in methods_run
           if e["methods"][m].get("status") != "ok"]
    if bad:
        md.append("## Not measured, unavailable or wrong\n")
        groups = {}
        for e, m in bad:
            ent = e["methods"][m]
            first = ((ent.get("error") or "").strip().splitlines() or [""])[0]
            rel = ent.get("rel_error")
            rel = (" (rel. error %.2e)" % rel) if isinstance(rel, float) else ""
            if m == "stc":
                md.append("- %s, STC: %s%s%s" % (e["name"], ent.get("status"),
                                                  (": " + first) if first else "", rel))
            else:
                groups.setdefault((m, ent.get("status"), first), []).append(e["name"] + rel)
        for (m, status, first), progs in groups.items():
            md.append("- %s: %s%s, on %d program(s): %s" % (
                names[m], status, (": " + first) if first else "", len(progs),
                ", ".join(progs) if len(progs) <= 6 else ", ".join(progs[:6]) + ", ..."))
        md.append("")
    sm = doc["summary"]
    md.append("Status counts: %s. Format checks %s. Wall time %s s.%s" % (
        ", ".join("%s %s" % (names[m], ", ".join("%s %d" % kv for kv in sorted(c.items())))
                  for m, c in sm["status_counts"].items()),
        {True: "ok", False: "FAILED", None: "not run"}[sm["format_checks_ok"]],
        doc.get("wall_seconds"),
        (" Worker restarts: %s." % "; ".join("after %s (%s)" % (r["after"], r["why"])
                                              for r in doc["worker_restarts"]))
        if doc.get("worker_restarts") else ""))
    return md


def _compact(doc, methods_run, labels, width, ratio_keys, ratio_title):
    """One line per program (for the end of a console log): each method's
    TFLOP/s (dense-equivalent) or status, and two of STC's ratios."""
    fmt = "%-" + str(width) + "s" + " %12s" * len(methods_run) + "  %s"
    out = [fmt % (("program (TFLOP/s)",) + tuple(labels) + (ratio_title,))]
    for e in doc["results"]:
        cells = []
        for m in methods_run:
            ent = e["methods"][m]
            cells.append((_cell(ent, "tf") if "median_ms" in ent
                          else str(ent.get("status")))[:12])
        r = e["ratios"]
        out.append(fmt % ((e["name"][:width],) + tuple(cells) + (
            "%s / %s" % (_ratio(r.get(ratio_keys[0])), _ratio(r.get(ratio_keys[1]))),)))
    return "\n".join(out) + "\n"


# ===========================================================================
# GEMMs (gemm_bench.py): STC against cuBLAS and PyTorch's 2:4 backends
# ===========================================================================


def _entry_from(rec, prog):
    e = {k: prog.get(k) for k in ("name", "shape", "group", "M", "N", "K", "dtype",
                                  "out_dtype")}
    e["flop"] = 2 * prog["M"] * prog["N"] * prog["K"]
    build = {k: prog.get(k) for k in ("command", "compile_seconds", "ptx_version",
                                      "ptx_target", "ptx_bytes", "kernel", "ptxas")}
    e["build"] = {k: v for k, v in build.items() if v is not None}
    e["methods"] = methods = _methods_of(rec, e, METHODS)
    e["ratios"] = _ratios(methods, BASELINES, "cublas", ("cutlass", "cusparselt"))
    return e


def assemble(manifest, recs, programs, selected, meta):
    """The results document. `recs`: the worker's JSONL records plus the
    parent's own result records; `selected`: the program indices of this
    run, in order; `meta`: the parent's settings and nvidia-smi readings."""
    by_type, by_index = _records(recs)
    fmt = by_type.get("format_check", [])
    results = [_entry_from(by_index.get(i), programs[i]) for i in selected]
    env = (by_type.get("env") or [{}])[0]
    return _document(
        "stc-gpu-gemm-bench/1", manifest, meta, env,
        "dense-equivalent 2*M*N*K for every method", env.get("software"),
        env.get("torch_settings"), {
            "reference": "float64 torch on the GPU: A_pruned @ B (STC, 2:4 baselines), "
                         "A @ B (cuBLAS, which multiplies the unpruned A)",
            "timing": TIMING + "; median and min",
            "rotation": "every call uses the next of `copies` input sets (A/B/output), "
                        "chosen so STC's working set is at least twice the L2 size"},
        fmt, results, _summary(results, METHODS, BASELINES, fmt, by_type.get("fatal", [])))


def markdown(doc):
    md = _md_head(doc, "STC GPU GEMM benchmark", "bench/gpu/mock_spmm.cu", "cuSPARSELt",
                  "cusparselt")
    s = doc["settings"]
    md.append("- C = A·B, A the sparse M×K operand (2:4 along K; STC gets it in the canonical "
              "compressed format), B dense K×N. cuBLAS multiplies the unpruned A. "
              "TFLOP/s count dense-equivalent 2·M·N·K flops for every method; times are GPU "
              "times from CUDA events around each call (median, min in brackets), after "
              "warm-up, rotating over input copies ≥ 2× L2.")
    md.append("- Every result is checked against float64 torch first (relative Frobenius "
              "error < %.0e; NaN fails); a wrong one is not used for the ratios. "
              "Ratio = the other method's median / STC's median (> 1: STC faster).\n"
              % s["tolerance"])
    for dt in ("f16", "bf16"):
        rows = [e for e in doc["results"] if e["dtype"] == dt]
        if not rows:
            continue
        md.append("## %s\n" % dt)
        md.append("| shape | M | N | K | STC ms (min) | STC TFLOP/s | cuBLAS TFLOP/s | "
                  "CUTLASS 2:4 TFLOP/s | cuSPARSELt 2:4 TFLOP/s | STC vs cuBLAS | "
                  "STC vs CUTLASS | STC vs cuSPARSELt |")
        md.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for e in rows:
            mt, r = e["methods"], e["ratios"]
            md.append("| %s | %d | %d | %d | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                e["shape"], e["M"], e["N"], e["K"], _cell(mt["stc"], "ms"),
                _cell(mt["stc"], "tf"), _cell(mt["cublas"], "tf"), _cell(mt["cutlass"], "tf"),
                _cell(mt["cusparselt"], "tf"), _ratio(r.get("stc_speedup_vs_cublas")),
                _ratio(r.get("stc_speedup_vs_cutlass")),
                _ratio(r.get("stc_speedup_vs_cusparselt"))))
        md.append("")
    md += _md_kernels(doc, ("dyn. shared B", "---:", lambda k: k.get("shared_bytes")))
    md += _md_tail(doc, METHODS, NAMES)
    return "\n".join(md) + "\n"


def compact(doc):
    """One line per program (for the end of a console log): each method's
    TFLOP/s (dense-equivalent) or status, and STC's ratios."""
    return _compact(doc, METHODS, ("STC", "cuBLAS", "CUTLASS", "cuSPARSELt"), 40,
                    ("stc_speedup_vs_cublas", "stc_speedup_vs_cusparselt"),
                    "STC vs cuBLAS / cuSPARSELt")


# ===========================================================================
# Convolutions (conv_bench.py): STC's stc.conv against cuDNN
# ===========================================================================

CONV_METHODS = ("stc", "cudnn", "cudnn_pruned")
CONV_NAMES = {"stc": "STC", "cudnn": "cuDNN dense", "cudnn_pruned": "cuDNN, pruned filter"}


def _conv_entry(rec, prog):
    g = prog.get("conv") or {}
    e = {k: prog.get(k) for k in ("name", "shape", "group", "where", "layers", "batch",
                                  "dtype", "out_dtype")}
    e["conv"] = {k: g.get(k) for k in ("N", "H", "W", "C", "F", "KH", "KW", "stride", "pad",
                                       "dilation", "groups", "OH", "OW", "R", "P", "K")}
    e["flop"] = g.get("flop")
    build = {k: prog.get(k) for k in ("command", "compile_seconds", "ptx_version",
                                      "ptx_target", "ptx_bytes", "kernel", "ptxas", "layout")}
    e["build"] = {k: v for k, v in build.items() if v is not None}
    e["methods"] = methods = _methods_of(rec, e, CONV_METHODS, RESULT_KEYS + ("reference",))
    e["ratios"] = _ratios(methods, ("cudnn", "cudnn_pruned"), "cudnn", ("cudnn_pruned",))
    return e


def _network_totals(results):
    """ResNet-50's convolutions in one forward pass, per batch size: each
    shape's median time times the number of layers with it, for every
    method measured (ok) on every shape of that batch; None otherwise."""
    out = {}
    for batch in sorted({e["batch"] for e in results if e.get("batch")}):
        rows = [e for e in results if e.get("batch") == batch]
        tot = {"programs": len(rows), "layers": sum(e.get("layers") or 0 for e in rows)}
        tot["complete"] = tot["layers"] == 53  # every convolution of ResNet-50
        for m in CONV_METHODS:
            if rows and all(e["methods"][m].get("status") == "ok" for e in rows):
                tot[m + "_ms"] = sum(e["methods"][m]["median_ms"] * (e.get("layers") or 0)
                                     for e in rows)
            else:
                tot[m + "_ms"] = None
        if tot["stc_ms"] and tot["cudnn_ms"]:
            tot["stc_speedup_vs_cudnn"] = tot["cudnn_ms"] / tot["stc_ms"]
        out[str(batch)] = tot
    return out


def assemble_conv(manifest, recs, programs, selected, meta):
    """The convolution results document (as assemble, for conv_bench.py)."""
    by_type, by_index = _records(recs)
    fmt = by_type.get("format_check", [])
    results = [_conv_entry(by_index.get(i), programs[i]) for i in selected]
    env = (by_type.get("env") or [{}])[0]
    ec = (by_type.get("env_conv") or [{}])[0]
    sw = dict(env.get("software") or {})
    if "cudnn_version" in ec:
        sw["cudnn"] = ec["cudnn_version"]
    ts = dict(env.get("torch_settings") or {})
    ts.update(ec.get("torch_settings") or {})
    return _document(
        "stc-gpu-conv-bench/1", manifest, meta, env,
        "dense-equivalent 2*N*OH*OW*F*KH*KW*C (C per group) for every method", sw, ts, {
            "layout": "f16, NHWC input and output, FHWC filter (torch: channels_last)",
            "reference": "float64 torch conv2d on the GPU with the pruned filter (STC, cuDNN "
                         "pruned) or the unpruned one (cuDNN dense)",
            "timing": TIMING + " (it also runs cudnn.benchmark's algorithm search); median "
                               "and min",
            "rotation": "every call uses the next of `copies` input sets (input, filter, "
                        "output), chosen so STC's working set is at least twice the L2 size"},
        fmt, results,
        _summary(results, CONV_METHODS, ("cudnn", "cudnn_pruned"), fmt,
                 by_type.get("fatal", [])),
        extra={"network_totals": _network_totals(results)})


def markdown_conv(doc):
    md = _md_head(doc, "STC GPU convolution benchmark (ResNet-50)", "bench/gpu/conv_mock.cu",
                  "cuDNN", "cudnn")
    s = doc["settings"]
    md.append("- Every distinct ResNet-50 convolution (`bench/gpu/conv_shapes.py`), f16, NHWC. "
              "STC: `tensor.pad` + `linalg.conv_2d_nhwc_fhwc` compiled with "
              "`--sparsity=force` to one `stc.conv` kernel, given the filter pruned 2:4 along "
              "C and compressed. cuDNN: `torch.nn.functional.conv2d` on channels_last "
              "tensors, `cudnn.benchmark = True`, with the dense filter and with the pruned "
              "one. TFLOP/s count dense-equivalent 2·N·OH·OW·F·KH·KW·C flops for every "
              "method; times are GPU times from CUDA events around each call (median, min in "
              "brackets), after warm-up, rotating over input copies ≥ 2× L2.")
    md.append("- Every result is checked against float64 torch first (relative Frobenius "
              "error < %.0e; NaN fails); a wrong STC result is not timed. Ratio = the other "
              "method's median / STC's median (> 1: STC faster). `layers`: how many of "
              "ResNet-50's 53 convolutions have the shape.\n" % s["tolerance"])
    for batch in sorted({e.get("batch") for e in doc["results"] if e.get("batch")}):
        rows = [e for e in doc["results"] if e.get("batch") == batch]
        md.append("## batch %d\n" % batch)
        md.append("| shape | layers | H×W | C→F | k/s | OH×OW | STC ms (min) | STC TFLOP/s | "
                  "cuDNN TFLOP/s | cuDNN pruned TFLOP/s | STC vs cuDNN | STC vs cuDNN "
                  "pruned |")
        md.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for e in rows:
            c, mt, r = e["conv"], e["methods"], e["ratios"]
            md.append("| %s | %s | %s×%s | %s→%s | %s×%s/%s | %s×%s | %s | %s | %s | %s | %s | "
                      "%s |" % (
                          e["shape"], e.get("layers"), c["H"], c["W"], c["C"], c["F"],
                          c["KH"], c["KW"], c["stride"], c["OH"], c["OW"],
                          _cell(mt["stc"], "ms"), _cell(mt["stc"], "tf"),
                          _cell(mt["cudnn"], "tf"), _cell(mt["cudnn_pruned"], "tf"),
                          _ratio(r.get("stc_speedup_vs_cudnn")),
                          _ratio(r.get("stc_speedup_vs_cudnn_pruned"))))
        tot = (doc.get("network_totals") or {}).get(str(batch))
        if tot:
            ms = lambda v: "%.3f ms" % v if v is not None else "–"  # noqa: E731
            md.append("\n%s at batch %d (median × layers): STC %s, cuDNN %s, cuDNN pruned "
                      "%s%s.\n" % (
                          ("All %d convolutions of one ResNet-50 forward pass" % tot["layers"])
                          if tot.get("complete") else
                          ("The %d ResNet-50 layers of these %d shapes (not the whole network)"
                           % (tot["layers"], tot["programs"])),
                          batch, ms(tot["stc_ms"]), ms(tot["cudnn_ms"]),
                          ms(tot["cudnn_pruned_ms"]),
                          (", STC vs cuDNN %s" % _ratio(tot["stc_speedup_vs_cudnn"]))
                          if tot.get("stc_speedup_vs_cudnn") else ""))
        else:
            md.append("")
    md += _md_kernels(doc, ("variant", "---", lambda k: k.get("variant", "?")))
    md += _md_tail(doc, CONV_METHODS, CONV_NAMES)
    return "\n".join(md) + "\n"


def compact_conv(doc):
    """compact() for the convolution document."""
    return _compact(doc, CONV_METHODS, ("STC", "cuDNN", "cuDNN pruned"), 34,
                    ("stc_speedup_vs_cudnn", "stc_speedup_vs_cudnn_pruned"),
                    "STC vs cuDNN / cuDNN pruned")
