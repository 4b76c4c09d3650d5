"""Results of the GPU GEMM and convolution benchmarks: the JSON documents assembled from the
worker's records, and the Markdown table generated from it (nothing typed by
hand). Pure Python (no torch, no NumPy): `run_gpu_bench.sh selftest` runs it
on synthetic records.
"""

import shapes

#: STC's 2:4 kernels of a program (both benchmarks): "stc" (stc-compile
#: --target=sm_90, the mma.sp kernel) and "stc_sm90a" (--target=sm_90a: the
#: warp-specialised TMA + wgmma.mma_async.sp kernel for f16/bf16).
STC_METHODS = ("stc", "stc_sm90a")
#: STC's kernels of a GEMM program: those two, and "stc_dense", STC's dense
#: tensor-core kernel (mma.sync m16n8k16) on the same product given dense
#: (a plain linalg.matmul of the unpruned A, as cuBLAS multiplies it; f16
#: and bf16 programs), compiled for the "stc" method's target.
#: Last "stc_auto": what --sparsity=auto decides for the product with the
#: committed tuning database (docs/TUNING.md; stc-tune's "auto" of the
#: product for the stc_sm90a method's target): the 2:4 program or the dense
#: one, with the decided kernel configuration attached, compiled for that
#: target (dense: on the unpruned A, checked against A @ B).
GEMM_STC_METHODS = STC_METHODS + ("stc_dense", "stc_auto")
#: The baselines: cuBLAS dense; PyTorch's 2:4 backends ("cutlass": its
#: _FORCE_CUTLASS kernels, which refuse sm_90; "cusparselt"); "cutlass2":
#: CUTLASS 2.x's Ampere SparseGemm (Sm80 kernels, mma.sp) built for sm_90 by
#: the benchmark itself (bench/gpu/cutlass2), the open yardstick of STC's own
#: mma.sp kernel.
BASELINES = ("cublas", "cutlass", "cusparselt", "cutlass2")
METHODS = GEMM_STC_METHODS + BASELINES
NAMES = {"stc": "STC", "stc_sm90a": "STC sm_90a", "stc_dense": "STC dense",
         "stc_auto": "STC auto",
         "cublas": "cuBLAS dense", "cutlass": "CUTLASS 2:4", "cusparselt": "cuSPARSELt 2:4",
         "cutlass2": "CUTLASS 2.x 2:4 (sm80 kernel)"}
#: Methods that results written before they existed lack: such a document
#: renders as it did then (no column, no status line for them).
LATER_METHODS = ("cutlass2", "stc_dense", "stc_auto")
#: The names of the i8 programs' methods where it matters (targets).
INT8_NAMES = dict(NAMES, cublas="cuBLAS int8 dense", cusparselt="cuSPARSELt int8 2:4")
#: The manifest key of each STC method's build: None = the program entry's
#: own fields (ptx, kernel_info, kernel, status, ...), else a sub-object
#: with the same fields.
BUILD_KEYS = {"stc": None, "stc_sm90a": "sm90a", "stc_dense": "dense", "stc_auto": "auto"}
#: Statuses of an STC method that do not make a run "not ok": the kernel
#: was not built on purpose (the mock, a build without sm_90a, an older
#: manifest), which the report says.
NOT_A_FAILURE = ("not_built",)

#: docs/DESIGN.md §8's targets for the sm_90a kernel, reported beside the
#: measured ratios (median times; > 1: STC faster). "large": every
#: dimension at least shapes.LARGE_MIN_DIM (shapes.is_large).
TARGET_DENSE = {"shape": "square-8192", "dtype": "f16", "baseline": "cublas", "ratio": 1.35}
TARGET_LARGE = {"baseline": "cusparselt", "ratio": 1.0}
#: The target of STC's dense kernel (stc_dense), the issue that added it
#: (not DESIGN §8): at least 0.8x cuBLAS dense at 4096^3 f16 on an
#: H100/H200 (median times; > 1: STC faster). Reported beside the
#: measured ratio like the sm_90a targets, under design_targets'
#: "stc_dense_vs_cublas_dense".
TARGET_STC_DENSE = {"shape": "square-4096", "dtype": "f16", "baseline": "cublas",
                    "ratio": 0.8}
#: The dtypes docs/DESIGN.md's targets are about (TFLOP/s). The i8 programs get
#: the same comparisons in a block of their own (design_targets' "int8":
#: square-8192-i8 against cuBLAS int8, the large i8 programs against
#: cuSPARSELt int8, the same thresholds), never mixed with these.
TARGET_DTYPES = ("f16", "bf16")
INT8_DTYPES = ("i8",)


def stc_build(p, method):
    """(status, error, program) of STC method `method`'s kernel of manifest
    program p: status "ok" (program: p with that kernel's ptx,
    kernel_info, kernel, ...), "build_failed" or "not_built" (error: why;
    program None)."""
    key = BUILD_KEYS[method]
    if key is None:
        if p.get("status") == "ok":
            return "ok", None, p
        return "build_failed", p.get("error") or "not built", None
    sub = p.get(key)
    if not isinstance(sub, dict):
        return ("not_built", "the build manifest has no %s kernel (built before the %s "
                "column existed, or without it)" % (key, method), None)
    if sub.get("status") == "ok":
        return "ok", None, dict(p, **sub)
    if sub.get("status") == "not_built":
        return "not_built", sub.get("error") or "not built", None
    return "build_failed", sub.get("error") or "not built", None


def gemm_runnable(p):
    """Whether a GEMM program has any STC kernel to run (else the parent
    records it as build_failed without a worker)."""
    return any(stc_build(p, m)[0] == "ok" for m in GEMM_STC_METHODS)


def gemm_methods(doc):
    """The GEMM methods of a results document: METHODS, less a
    LATER_METHODS one that none of its results has (a document written
    before that method existed)."""
    return tuple(m for m in METHODS if m not in LATER_METHODS
                 or any(m in e["methods"] for e in doc["results"]))


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
        # The STC kernel it died in (the others' results died with it).
        methods[rec.get("method", "stc")] = {"status": "failed", "error": rec["worker_died"]}
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


def _add_speedup(ratios, methods, method, other):
    """ratios["<method>_speedup_vs_<other>"] = other's median / method's
    (> 1: `method` faster), where both are ok."""
    a, b = methods[method], methods[other]
    if a.get("status") == "ok" and b.get("status") == "ok":
        ratios["%s_speedup_vs_%s" % (method, other)] = b["median_ms"] / a["median_ms"]


def _ratios(methods, baselines, dense, others, stc_methods=("stc",)):
    """Median-time ratios of methods both ok: each STC method against every
    baseline ("<method>_speedup_vs_<baseline>", > 1: STC faster), and each
    of `others` against the dense baseline."""
    ratios = {}
    for sm in stc_methods:
        for b in baselines:
            _add_speedup(ratios, methods, sm, b)
    for b in others:
        _add_speedup(ratios, methods, b, dense)
    return ratios


def _records(recs):
    """(the records by type, the last result record of each program)."""
    by_type, by_index = {}, {}
    for r in recs:
        by_type.setdefault(r.get("type"), []).append(r)
        if r.get("type") == "result":
            by_index[r["index"]] = r  # the last record of a program wins
    return by_type, by_index


def _summary(results, methods_run, baselines, fmt, fatal, stc_methods=("stc",)):
    """Status counts per method; ok when every STC result is ok (or, for
    an STC method, not built on purpose: NOT_A_FAILURE), no baseline is
    wrong, the format checks ran and passed and no worker failed at
    setup."""
    st = {}
    for e in results:
        for m in methods_run:
            s = e["methods"][m].get("status", "not_run")
            st.setdefault(m, {}).setdefault(s, 0)
            st[m][s] += 1
    stc_bad = sum(v for m in stc_methods for s, v in st.get(m, {}).items()
                  if s != "ok" and s not in NOT_A_FAILURE)
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
    md.append("- Kernels: %s, target %s%s%s%s, built %s from commit `%s`%s; %s" % (
        b.get("kernel_source"), b.get("target"),
        (" flags `%s`" % " ".join(b["flags"])) if b.get("flags") else "",
        (" (and %s%s)" % (b["target_sm90a"], (" flags `%s`" % " ".join(b["flags_sm90a"]))
                          if b.get("flags_sm90a") else "")) if b.get("target_sm90a") else "",
        (" (dense kernel %s%s)" % (b["target_dense"], (" flags `%s`" % " ".join(
            b["flags_dense"])) if b.get("flags_dense") else ""))
        if b.get("target_dense") else "",
        b.get("utc"), (doc.get("commit") or "unknown")[:12],
        " (dirty tree)" if doc.get("dirty") else "", b.get("stc_version") or ""))
    return md


def _md_kernels(doc, columns, methods=("stc",), names=None):
    """The table of STC's kernels, one row per program and STC method that
    loaded one (a "method" column when there are several); columns: the
    benchmark's own [(title, alignment, kernel info -> cell)], after grid
    and block."""
    md = []
    rows = [(e, m) for e in doc["results"] for m in methods
            if isinstance(e["methods"][m].get("kernel"), dict)]
    if rows:
        many = len(methods) > 1
        md.append("## STC kernels\n")
        md.append("| program |%s kernel | grid | block | %s | regs | local B | blocks/SM | "
                  "rel. error | runs (warm-up) | copies |"
                  % (" method |" if many else "", " | ".join(c[0] for c in columns)))
        md.append("|---|%s---|---|---|%s|---:|---:|---:|---:|---:|---:|"
                  % ("---|" if many else "", "|".join(c[1] for c in columns)))
        for e, m in rows:
            st = e["methods"][m]
            k = st["kernel"]
            md.append("| %s |%s `%s` | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                e["name"], (" %s |" % (names or NAMES)[m]) if many else "", k.get("kernel"),
                "×".join(map(str, k.get("grid", []))),
                "×".join(map(str, k.get("block", []))),
                " | ".join(str(c[2](k)) for c in columns),
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


def _compact(doc, methods_run, labels, width, ratio_cols, title="program (TFLOP/s)"):
    """One line per program (for the end of a console log): each method's
    TFLOP/s (dense-equivalent) or status, then per (title, key, key) of
    ratio_cols two of STC's ratios."""
    fmt = "%-" + str(width) + "s" + " %12s" * len(methods_run) + "  %s" * len(ratio_cols)
    out = [fmt % ((title,) + tuple(labels) + tuple(c[0] for c in ratio_cols))]
    for e in doc["results"]:
        cells = []
        for m in methods_run:
            ent = e["methods"][m]
            cells.append((_cell(ent, "tf") if "median_ms" in ent
                          else str(ent.get("status")))[:12])
        r = e["ratios"]
        out.append(fmt % ((e["name"][:width],) + tuple(cells) + tuple(
            ("%s / %s" % (_ratio(r.get(a)), _ratio(r.get(b)))).ljust(len(t))
            for t, a, b in ratio_cols)))
    return "\n".join(out) + "\n"


# ===========================================================================
# GEMMs (gemm_bench.py): STC against cuBLAS and PyTorch's 2:4 backends
# ===========================================================================


def _entry_from(rec, prog):
    e = {k: prog.get(k) for k in ("name", "shape", "group", "M", "N", "K", "dtype",
                                  "out_dtype")}
    e["dense_transposed"] = bool(prog.get("dense_transposed",
                                          shapes.dense_transposed(prog["dtype"])))
    # The rates' unit: "tflops_*" hold TOPS for integer programs.
    e["unit"] = shapes.rate_unit(prog["dtype"])
    e["flop"] = 2 * prog["M"] * prog["N"] * prog["K"]
    e["large"] = shapes.is_large(prog["M"], prog["N"], prog["K"])
    keys = ("command", "compile_seconds", "ptx_version", "ptx_target", "ptx_bytes", "kernel",
            "ptxas")
    build = {k: prog.get(k) for k in keys}
    e["build"] = {k: v for k, v in build.items() if v is not None}
    for key in ("sm90a", "dense", "auto"):
        if isinstance(prog.get(key), dict):
            sub = prog[key]
            e["build"][key] = {k: sub.get(k) for k in ("target", "status", "error", "sparse",
                                                       "config", "decision") + keys
                               if sub.get(k) is not None}
    e["methods"] = methods = _methods_of(rec, e, METHODS)
    for m in GEMM_STC_METHODS:
        # A kernel that was not built never ran: the manifest says why (the
        # worker's or the parent's record may not, e.g. for a skipped program).
        status, error, _ = stc_build(prog, m)
        if status != "ok":
            methods[m] = {"status": status, "error": error}
    e["ratios"] = _ratios(methods, BASELINES, "cublas", ("cutlass", "cusparselt", "cutlass2"),
                          STC_METHODS)
    _add_speedup(e["ratios"], methods, "stc_sm90a", "stc")
    # STC's dense kernel does what cuBLAS does (the unpruned A): compared
    # with it alone.
    _add_speedup(e["ratios"], methods, "stc_dense", "cublas")
    # --sparsity=auto's choice against both libraries, whichever form it
    # took (dense: the unpruned A, as cuBLAS; 2:4: the pruned one).
    for b in ("cublas", "cusparselt"):
        _add_speedup(e["ratios"], methods, "stc_auto", b)
    return e


def _variant(ent):
    """The kernel variant an STC method ran ("wgmma", "staged", ...)."""
    k = ent.get("kernel") if isinstance(ent.get("kernel"), dict) else {}
    return k.get("variant")


def _target_at(results, program, method, prefix, target):
    """One STC method against `target`'s baseline at one program: the
    ratio (None: not in the run or not measured), the target, both
    statuses and the kernel variant (keys "<prefix>_status",
    "<prefix>_variant")."""
    hit = [e for e in results if e["name"] == program]
    t = {"program": program, "baseline": target["baseline"], "target_ratio": target["ratio"],
         "in_run": bool(hit), "ratio": None}
    if hit:
        e = hit[0]
        t["ratio"] = e["ratios"].get("%s_speedup_vs_%s" % (method, target["baseline"]))
        t[prefix + "_status"] = e["methods"][method].get("status")
        t["baseline_status"] = e["methods"][target["baseline"]].get("status")
        t[prefix + "_variant"] = _variant(e["methods"][method])
    if t["ratio"] is not None:
        t["at_or_above_target"] = t["ratio"] >= target["ratio"]
    return t


def _targets(results, dense_program, dtypes):
    """The two target comparisons on the results of `dtypes`: STC sm_90a
    against TARGET_DENSE's baseline at `dense_program`, and against
    TARGET_LARGE's on every large program."""
    tl = TARGET_LARGE
    dense = _target_at(results, dense_program, "stc_sm90a", "sm90a", TARGET_DENSE)
    rows = []
    for e in results:
        if not e.get("large") or e.get("dtype") not in dtypes:
            continue
        r = e["ratios"].get("stc_sm90a_speedup_vs_" + tl["baseline"])
        rows.append({"program": e["name"], "ratio": r,
                     "sm90a_status": e["methods"]["stc_sm90a"].get("status"),
                     "baseline_status": e["methods"][tl["baseline"]].get("status"),
                     "sm90a_variant": _variant(e["methods"]["stc_sm90a"]),
                     "at_or_above_target": None if r is None else r >= tl["ratio"]})
    measured = [x for x in rows if x["ratio"] is not None]
    low = min(measured, key=lambda x: x["ratio"]) if measured else None
    large = {"definition": "every dimension (M, N, K) >= %d" % shapes.LARGE_MIN_DIM,
             "dtypes": list(dtypes),
             "baseline": tl["baseline"], "target_ratio": tl["ratio"], "programs": rows,
             "large_programs_in_run": len(rows), "measured": len(measured),
             "at_or_above_target": sum(1 for x in measured if x["at_or_above_target"]),
             "min_ratio": low["ratio"] if low else None,
             "min_ratio_program": low["program"] if low else None}
    return {"sm90a_vs_cublas_dense": dense, "sm90a_vs_cusparselt_large": large}


def design_targets(results):
    """docs/DESIGN.md §8's targets for the sm_90a kernel beside the
    measured ratios (nothing is judged here beyond the comparison of each
    ratio with its threshold): the ratio to cuBLAS at TARGET_DENSE's
    program, and the ratio to cuSPARSELt on every large program, both on
    the TARGET_DTYPES programs; under "int8" the same comparisons on the
    i8 programs (square-8192-i8, int8 baselines); under
    "stc_dense_vs_cublas_dense" STC's dense kernel against cuBLAS at
    TARGET_STC_DENSE's program (an issue's target, not DESIGN's)."""
    doc = _targets(results, "%s-%s" % (TARGET_DENSE["shape"], TARGET_DENSE["dtype"]),
                   TARGET_DTYPES)
    doc["int8"] = _targets(results, "%s-i8" % TARGET_DENSE["shape"], INT8_DTYPES)
    td = TARGET_STC_DENSE
    doc["stc_dense_vs_cublas_dense"] = dict(
        _target_at(results, "%s-%s" % (td["shape"], td["dtype"]), "stc_dense", "stc_dense", td),
        source="the issue that added the stc_dense method (not DESIGN §8)")
    return doc


def assemble(manifest, recs, programs, selected, meta):
    """The results document. `recs`: the worker's JSONL records plus the
    parent's own result records; `selected`: the program indices of this
    run, in order; `meta`: the parent's settings and nvidia-smi readings."""
    by_type, by_index = _records(recs)
    fmt = by_type.get("format_check", [])
    results = [_entry_from(by_index.get(i), programs[i]) for i in selected]
    env = (by_type.get("env") or [{}])[0]
    return _document(
        "stc-gpu-gemm-bench/2", manifest, meta, env,
        "dense-equivalent 2*M*N*K for every method (i8 programs: integer operations; "
        "their tflops_* fields are TOPS, each result's \"unit\")", env.get("software"),
        env.get("torch_settings"), {
            "reference": "float64 torch on the GPU: A_pruned @ B (STC, 2:4 baselines), "
                         "A @ B (cuBLAS, which multiplies the unpruned A); i8 programs: "
                         "the same products, exact for their integers in [-127, 127], "
                         "which the int32 outputs must equal exactly",
            "stc_methods": {"stc": "stc-compile --target=%s (mma.sp)" % manifest.get("target"),
                            "stc_sm90a": "stc-compile --target=%s (TMA + wgmma.mma_async.sp "
                                         "where the kernel info's variant is wgmma)"
                                         % (manifest.get("target_sm90a") or "sm_90a"),
                            "stc_dense": "stc-compile --target=%s of the product as a dense "
                                         "linalg.matmul (the dense tensor-core kernel, "
                                         "mma.sync m16n8k16) on the unpruned A, checked "
                                         "against A @ B like cuBLAS; f16/bf16"
                                         % (manifest.get("target_dense")
                                            or manifest.get("target"))},
            "timing": TIMING + "; median and min",
            "rotation": "every call uses the next of `copies` input sets (A/B/output), "
                        "chosen so STC's working set is at least twice the L2 size"},
        fmt, results,
        _summary(results, METHODS, BASELINES, fmt, by_type.get("fatal", []),
                 GEMM_STC_METHODS),
        extra={"design_targets": design_targets(results)})


def _md_target_at(d, method, prefix, names):
    """The line of one _target_at() comparison (names: the methods')."""
    if not d["in_run"]:
        got = "not in this run"
    elif d["ratio"] is None:
        got = "not measured (%s %s, %s %s)" % (
            names[method], d.get(prefix + "_status"), names[d["baseline"]],
            d.get("baseline_status"))
    else:
        got = "measured %s (kernel variant `%s`)" % (_ratio(d["ratio"]),
                                                    d.get(prefix + "_variant"))
    return "- ≥ %.2f× %s at %s: %s." % (d["target_ratio"], names[d["baseline"]],
                                        d["program"], got)


def _md_target_lines(t, names):
    """The two lines of one _targets() block (names: the methods')."""
    g = t["sm90a_vs_cusparselt_large"]
    md = [_md_target_at(t["sm90a_vs_cublas_dense"], "stc_sm90a", "sm90a", names)]
    if not g["large_programs_in_run"]:
        got = "no large program in this run"
    elif not g["measured"]:
        got = "none of the %d large programs measured" % g["large_programs_in_run"]
    else:
        variants = sorted({str(x["sm90a_variant"]) for x in g["programs"]
                           if x["ratio"] is not None})
        got = ("measured on %d of %d large programs; %d at or above %.2f×; lowest %s (%s); "
               "kernel variant%s %s" % (
                   g["measured"], g["large_programs_in_run"], g["at_or_above_target"],
                   g["target_ratio"], _ratio(g["min_ratio"]), g["min_ratio_program"],
                   "s" if len(variants) > 1 else "", ", ".join("`%s`" % v for v in variants)))
    md.append("- ≥ %.2f× %s on every large shape (%s): %s." % (
        g["target_ratio"], names[g["baseline"]], g["definition"], got))
    return md


def _md_targets(doc):
    """docs/DESIGN.md §8's sm_90a targets and the measured ratios; the
    int8 comparisons when the run has i8 programs."""
    t = doc.get("design_targets")
    if not t:
        return []
    # "DESIGN" is docs/DESIGN.md; the wording stays as the committed reports
    # under bench/results/ render it (a test re-renders them).
    md = ["## DESIGN §8 targets of the sm_90a kernel\n",
          "Targets as DESIGN.md §8 states them for STC's sm_90a kernel; the measured ratios "
          "are the medians of this run (> 1: STC sm_90a faster).\n"]
    md += _md_target_lines(t, NAMES)
    if t.get("int8") and any(e["dtype"] in INT8_DTYPES for e in doc["results"]):
        md.append("\nint8 programs, the same comparisons against the int8 baselines (DESIGN §8 "
                  "states its targets for f16/bf16; these thresholds are for comparison):\n")
        md += _md_target_lines(t["int8"], INT8_NAMES)
    md.append("")
    # Documents written before the stc_dense method have no such target.
    if t.get("stc_dense_vs_cublas_dense"):
        md += ["## Target of STC's dense kernel\n",
               "STC dense is stc-compile's dense tensor-core kernel on the same product (the "
               "unpruned A, as cuBLAS gets it); the target is the issue's that added the "
               "method, on an H100/H200 (median times; > 1: STC dense faster).\n",
               _md_target_at(t["stc_dense_vs_cublas_dense"], "stc_dense", "stc_dense", NAMES),
               ""]
    return md


def _has_stc_dense(rows):
    """Whether any of `rows` has STC's dense kernel (a status other than
    not_built: i8 programs, mock runs and documents written before the
    method have none), so that its columns are shown."""
    return any(e["methods"].get("stc_dense", {}).get("status", "not_built")
               not in NOT_A_FAILURE for e in rows)


def _md_dtype_table(rows, dt, unit, c2=False):
    """The table of every method on the `dt` programs (rates in `unit`);
    c2: with the cutlass2 columns (documents that have the method); STC
    dense's rate beside cuBLAS's and its ratio last, where the rows have
    that kernel (_has_stc_dense)."""
    sd = _has_stc_dense(rows)
    md = ["## %s%s\n" % (dt, " (rates in TOPS: dense-equivalent 2·M·N·K integer operations "
                                "per second; int8 baselines)" if unit == "TOPS" else "")]
    md.append("| shape | M | N | K | STC ms (min) | STC {u} | STC sm_90a ms (min) | "
              "STC sm_90a {u} | {sd}cuBLAS {u} | CUTLASS 2:4 {u} | "
              "cuSPARSELt 2:4 {u} | {c2}STC vs cuBLAS | STC vs CUTLASS | "
              "STC vs cuSPARSELt |{c2r}{sdr}".format(
                  u=unit, c2=("%s %s | " % (NAMES["cutlass2"], unit)) if c2 else "",
                  c2r=" STC vs CUTLASS 2.x |" if c2 else "",
                  sd=("%s %s | " % (NAMES["stc_dense"], unit)) if sd else "",
                  sdr=" STC dense vs cuBLAS |" if sd else ""))
    md.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
              + ("---:|---:|" if c2 else "") + ("---:|---:|" if sd else ""))
    for e in rows:
        mt, r = e["methods"], e["ratios"]
        md.append("| %s | %d | %d | %d | %s | %s | %s | %s | %s%s | %s | %s | %s%s | %s | %s |%s%s"
                  % (e["shape"], e["M"], e["N"], e["K"], _cell(mt["stc"], "ms"),
                     _cell(mt["stc"], "tf"), _cell(mt["stc_sm90a"], "ms"),
                     _cell(mt["stc_sm90a"], "tf"),
                     ("%s | " % _cell(mt["stc_dense"], "tf")) if sd else "",
                     _cell(mt["cublas"], "tf"),
                     _cell(mt["cutlass"], "tf"), _cell(mt["cusparselt"], "tf"),
                     ("%s | " % _cell(mt["cutlass2"], "tf")) if c2 else "",
                     _ratio(r.get("stc_speedup_vs_cublas")),
                     _ratio(r.get("stc_speedup_vs_cutlass")),
                     _ratio(r.get("stc_speedup_vs_cusparselt")),
                     (" %s |" % _ratio(r.get("stc_speedup_vs_cutlass2"))) if c2 else "",
                     (" %s |" % _ratio(r.get("stc_dense_speedup_vs_cublas"))) if sd else ""))
    md.append("")
    return md


def _md_auto(doc):
    """The table of the stc_auto method (--sparsity=auto's choice with the
    committed tuning database), where the run has it: per program the form
    it chose, the configuration, its rate and its ratios."""
    rows = [e for e in doc["results"]
            if e["methods"].get("stc_auto", {}).get("status", "not_built") not in NOT_A_FAILURE]
    if not rows:
        return []
    md = ["## STC auto (--sparsity=auto)\n",
          "%s: the form --sparsity=auto chose for the product with the committed tuning "
          "database (stc-tune's `auto`, docs/TUNING.md) — the 2:4 program or the dense one "
          "(which multiplies the unpruned A) — with the chosen kernel configuration attached, "
          "built for the sm_90a method's target. Ratio = the other method's median / STC "
          "auto's median.\n" % NAMES["stc_auto"]]
    md.append("| program | form | configuration | STC auto rate | vs cuBLAS | vs cuSPARSELt |")
    md.append("|---|---|---|---:|---:|---:|")
    for e in rows:
        a = e["methods"]["stc_auto"]
        b = (e.get("build") or {}).get("auto") or {}
        sparse = a.get("sparse", b.get("sparse"))
        md.append("| %s | %s | `%s` | %s | %s | %s |" % (
            e["name"], {True: "2:4", False: "dense"}.get(sparse, "?"),
            a.get("config") or b.get("config") or "–", _cell(a, "tf"),
            _ratio(e["ratios"].get("stc_auto_speedup_vs_cublas")),
            _ratio(e["ratios"].get("stc_auto_speedup_vs_cusparselt"))))
    md.append("")
    return md


def _md_cutlass2_configs(doc):
    """Which of cutlass2's tile configurations each program timed fastest
    (the reported one), and every configuration's rate."""
    rows = [e for e in doc["results"] if e["methods"].get("cutlass2", {}).get("configs")]
    if not rows:
        return []
    md = ["## CUTLASS 2.x configurations\n",
          "%s: every tile configuration (threadblock_warp_stages) of bench/gpu/cutlass2 is "
          "checked and timed on each program, the fastest correct one again; its rate is the "
          "column above. Here each configuration's screening rate (or status).\n"
          % NAMES["cutlass2"]]
    md.append("| program | fastest | configurations |")
    md.append("|---|---|---|")
    for e in rows:
        c2 = e["methods"]["cutlass2"]
        cells = []
        for c in c2["configs"]:
            if c.get("status") == "ok" and c.get("median_ms"):
                rate = e["flop"] / (c["median_ms"] * 1e-3) / 1e12
                cells.append("%s %s" % (c["config"], ("%.1f" if rate >= 10 else "%.3g") % rate))
            else:
                cells.append("%s %s" % (c["config"], c.get("status")))
        md.append("| %s | `%s` | %s |" % (e["name"], c2.get("config", "–"), ", ".join(cells)))
    md.append("")
    return md


def _md_sm90a_speedups(rows, unit, c2=False):
    """The table of STC sm_90a against every other method, one row per
    program of `rows` (all with rates in `unit`); c2: with cutlass2."""
    md = ["## STC sm_90a speedups%s\n" % (", int8 (TOPS)" if unit == "TOPS" else "")]
    md.append("Ratio = the other method's median / STC sm_90a's median (> 1: STC sm_90a "
              "faster); large = every dimension ≥ %d.\n" % shapes.LARGE_MIN_DIM)
    md.append("| shape | dtype | large | sm_90a kernel | STC sm_90a %s | "
              "vs cuBLAS | vs cuSPARSELt | vs CUTLASS | %svs STC sm_90 |"
              % (unit, "vs CUTLASS 2.x | " if c2 else ""))
    md.append("|---|---|---|---|---:|---:|---:|---:|---:|" + ("---:|" if c2 else ""))
    for e in rows:
        a, r = e["methods"]["stc_sm90a"], e["ratios"]
        md.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s%s |" % (
            e["shape"], e["dtype"], "yes" if e.get("large") else "",
            ("`%s`" % _variant(a)) if _variant(a) else "–", _cell(a, "tf"),
            _ratio(r.get("stc_sm90a_speedup_vs_cublas")),
            _ratio(r.get("stc_sm90a_speedup_vs_cusparselt")),
            _ratio(r.get("stc_sm90a_speedup_vs_cutlass")),
            ("%s | " % _ratio(r.get("stc_sm90a_speedup_vs_cutlass2"))) if c2 else "",
            _ratio(r.get("stc_sm90a_speedup_vs_stc"))))
    md.append("")
    return md


def _unit(e):
    """A result entry's rate unit (entries of older documents: TFLOP/s)."""
    return e.get("unit") or shapes.rate_unit(e.get("dtype"))


def markdown(doc):
    md = _md_head(doc, "STC GPU GEMM benchmark", "bench/gpu/mock_spmm.cu", "cuSPARSELt",
                  "cusparselt")
    s = doc["settings"]
    md.append("- C = A·B, A the sparse M×K operand (2:4 along K; STC gets it in the canonical "
              "compressed format), B dense K×N. cuBLAS multiplies the unpruned A. "
              "STC is stc-compile's sm_90 kernel (`mma.sp`); STC sm_90a its sm_90a kernel "
              "(TMA + `wgmma.mma_async.sp`; the kernel table says which variant each is). "
              "TFLOP/s count dense-equivalent 2·M·N·K flops for every method; times are GPU "
              "times from CUDA events around each call (median, min in brackets), after "
              "warm-up, rotating over input copies ≥ 2× L2.")
    md.append("- Every result is checked against float64 torch first (relative Frobenius "
              "error < %.0e; NaN fails); a wrong one is not used for the ratios. "
              "Ratio = the other method's median / STC's median (> 1: STC faster)."
              % s["tolerance"])
    if any(_unit(e) == "TOPS" for e in doc["results"]):
        md.append("- int8 (`i8`) programs: A and B int8 in [-127, 127], C the int32 "
                  "accumulator, which must equal the exact product (float64 torch, exact for "
                  "these integers; an unwritten output fails); B is given transposed, N×K "
                  "(K contiguous: `dense_transposed = true`), to STC, to cuBLAS "
                  "(`torch._int_mm`) and to cuSPARSELt (`torch._cslt_sparse_mm`, int32 "
                  "outputs). Their rates are TOPS (the same 2·M·N·K count, integer "
                  "operations) and their ratios compare int8 methods only.")
    methods = gemm_methods(doc)
    c2 = "cutlass2" in methods
    if _has_stc_dense(doc["results"]):
        md.append("- %s: stc-compile's dense tensor-core kernel (`mma.sync` m16n8k16, "
                  "`cp.async` pipeline) for the same product written as a plain "
                  "`linalg.matmul`, which STC keeps dense, built for STC's target; f16 and "
                  "bf16 programs. It multiplies the unpruned A, as cuBLAS does, and is "
                  "checked against float64 A·B; its ratio is cuBLAS's median / its median."
                  % NAMES["stc_dense"])
    if c2:
        md.append("- %s: CUTLASS 2.x's `cutlass::gemm::device::SparseGemm` with "
                  "`cutlass::arch::Sm80` kernels (`mma.sp`, as CUTLASS's example 15) compiled "
                  "for sm_90 by the benchmark (bench/gpu/cutlass2), given the same pruned A "
                  "(compressed by the library) and B as N×K; the fastest of its tile "
                  "configurations. The CUTLASS 2:4 column is PyTorch's own CUTLASS backend "
                  "(`_FORCE_CUTLASS`), which refuses sm_90." % NAMES["cutlass2"])
    md.append("")
    md += _md_targets(doc)
    for dt in shapes.DTYPES:
        rows = [e for e in doc["results"] if e["dtype"] == dt]
        if rows:
            md += _md_dtype_table(rows, dt, shapes.rate_unit(dt), c2)
    if any(e["methods"]["stc_sm90a"].get("status") not in NOT_A_FAILURE
           for e in doc["results"]):
        for unit in ("TFLOP/s", "TOPS"):
            rows = [e for e in doc["results"] if _unit(e) == unit]
            if rows:
                md += _md_sm90a_speedups(rows, unit, c2)
    md += _md_auto(doc)
    md += _md_cutlass2_configs(doc)
    md += _md_kernels(doc, [
        ("variant", "---", lambda k: k.get("variant", "?")),
        ("cluster", "---", lambda k: "×".join(map(str, k.get("cluster") or [1, 1, 1]))),
        ("dyn. shared B", "---:", lambda k: k.get("shared_bytes"))],
        tuple(m for m in GEMM_STC_METHODS if m in methods))
    md += _md_tail(doc, methods, NAMES)
    return "\n".join(md) + "\n"


def compact(doc):
    """One line per program (for the end of a console log): each method's
    TFLOP/s (dense-equivalent; TOPS for i8 programs) or status, and STC's
    ratios."""
    methods = gemm_methods(doc)
    labels = {"stc": "STC", "stc_sm90a": "STC sm_90a", "stc_dense": "STC dense",
              "stc_auto": "STC auto", "cublas": "cuBLAS", "cutlass": "CUTLASS",
              "cusparselt": "cuSPARSELt", "cutlass2": "CUTLASS 2.x"}
    cols = [("STC vs cuBLAS / cuSPARSELt", "stc_speedup_vs_cublas", "stc_speedup_vs_cusparselt"),
            ("sm_90a vs cuBLAS / cuSPARSELt", "stc_sm90a_speedup_vs_cublas",
             "stc_sm90a_speedup_vs_cusparselt")]
    if "cutlass2" in methods:
        cols.append(("STC / sm_90a vs CUTLASS 2.x", "stc_speedup_vs_cutlass2",
                     "stc_sm90a_speedup_vs_cutlass2"))
    if "stc_dense" in methods:
        cols.append(("dense vs cuBLAS / sm_90a vs cuBLAS", "stc_dense_speedup_vs_cublas",
                     "stc_sm90a_speedup_vs_cublas"))
    if "stc_auto" in methods:
        cols.append(("auto vs cuBLAS / cuSPARSELt", "stc_auto_speedup_vs_cublas",
                     "stc_auto_speedup_vs_cusparselt"))
    return _compact(doc, methods, tuple(labels[m] for m in methods), 40, cols,
                    title="program (TFLOP/s; i8: TOPS)")


# ===========================================================================
# Convolutions (conv_bench.py): STC's stc.conv against cuDNN
# ===========================================================================

#: STC's kernels of a convolution program (as the GEMM's: "stc" =
#: --target=sm_90, mma.sp; "stc_sm90a" = --target=sm_90a, TMA + wgmma.sp
#: for one group and C a multiple of 64, else mma.sp; "stc_dense" = the
#: program compiled with --sparsity=explicit, STC's dense implicit GEMM
#: with the unpruned filter, recorded under the program's "dense" key),
#: then cuDNN.
CONV_STC_METHODS = STC_METHODS + ("stc_dense",)
CONV_BASELINES = ("cudnn", "cudnn_pruned")
CONV_METHODS = CONV_STC_METHODS + CONV_BASELINES
CONV_NAMES = {"stc": "STC", "stc_sm90a": "STC sm_90a", "stc_dense": "STC dense",
              "cudnn": "cuDNN dense", "cudnn_pruned": "cuDNN, pruned filter"}


def conv_methods(doc):
    """The convolution methods of a results document: CONV_METHODS, less
    stc_dense where none of its results has it (a document written before
    that method existed)."""
    return tuple(m for m in CONV_METHODS if m != "stc_dense"
                 or any(m in e["methods"] for e in doc["results"]))


def _conv_entry(rec, prog):
    g = prog.get("conv") or {}
    e = {k: prog.get(k) for k in ("name", "shape", "group", "where", "layers", "batch",
                                  "dtype", "out_dtype")}
    e["conv"] = {k: g.get(k) for k in ("N", "H", "W", "C", "F", "KH", "KW", "stride", "pad",
                                       "dilation", "groups", "OH", "OW", "R", "P", "K")}
    e["flop"] = g.get("flop")
    keys = ("command", "compile_seconds", "ptx_version", "ptx_target", "ptx_bytes", "kernel",
            "ptxas", "layout")
    build = {k: prog.get(k) for k in keys}
    e["build"] = {k: v for k, v in build.items() if v is not None}
    for key in ("sm90a", "dense"):
        if isinstance(prog.get(key), dict):
            sub = prog[key]
            e["build"][key] = {k: sub.get(k) for k in ("target", "status", "error") + keys
                               if sub.get(k) is not None}
    e["methods"] = methods = _methods_of(rec, e, CONV_METHODS, RESULT_KEYS + ("reference",))
    for m in CONV_STC_METHODS:
        # A kernel that was not built never ran: the manifest says why.
        status, error, _ = stc_build(prog, m)
        if status != "ok":
            methods[m] = {"status": status, "error": error}
    e["ratios"] = _ratios(methods, CONV_BASELINES, "cudnn", ("cudnn_pruned",),
                          CONV_STC_METHODS)
    _add_speedup(e["ratios"], methods, "stc_sm90a", "stc")
    # 2:4 against STC's own dense kernel: what pruning buys with STC alone.
    _add_speedup(e["ratios"], methods, "stc_sm90a", "stc_dense")
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
        for m in CONV_STC_METHODS:
            if tot[m + "_ms"] and tot["cudnn_ms"]:
                tot[m + "_speedup_vs_cudnn"] = tot["cudnn_ms"] / tot[m + "_ms"]
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
        _summary(results, CONV_METHODS, CONV_BASELINES, fmt, by_type.get("fatal", []),
                 CONV_STC_METHODS),
        extra={"network_totals": _network_totals(results)})


def markdown_conv(doc):
    methods = conv_methods(doc)
    # Documents from before the stc_dense method render as they did.
    dense = "stc_dense" in methods
    md = _md_head(doc, "STC GPU convolution benchmark (ResNet-50)", "bench/gpu/conv_mock.cu",
                  "cuDNN", "cudnn")
    s = doc["settings"]
    md.append("- Every distinct ResNet-50 convolution (`bench/gpu/conv_shapes.py`), f16, NHWC. "
              "STC: `tensor.pad` + `linalg.conv_2d_nhwc_fhwc` compiled with "
              "`--sparsity=force` to one `stc.conv` kernel, given the filter pruned 2:4 along "
              "C and compressed, twice: STC = `--target=sm_90` (`mma.sp`), STC sm_90a = "
              "`--target=sm_90a` (TMA with a 4-D map of the NHWC input + `wgmma.mma_async.sp` "
              "for one group and C a multiple of 64, variant `wgmma`; `mma.sp` otherwise)"
              + ("; STC dense = the program compiled with `--sparsity=explicit` (the "
                 "convolution stays dense: STC's implicit GEMM with the unpruned filter, dense "
                 "wgmma or `mma.sync`), given the unpruned filter" if dense else "") + ". "
              "cuDNN: `torch.nn.functional.conv2d` on channels_last "
              "tensors, `cudnn.benchmark = True`, with the dense filter and with the pruned "
              "one. TFLOP/s count dense-equivalent 2·N·OH·OW·F·KH·KW·C flops for every "
              "method; times are GPU times from CUDA events around each call (median, min in "
              "brackets), after warm-up, rotating over input copies ≥ 2× L2.")
    md.append("- Every result is checked against float64 torch first (relative Frobenius "
              "error < %.0e; NaN fails); a wrong STC result is not timed. Ratio = the other "
              "method's median / that STC kernel's median (> 1: STC faster). `layers`: how many of "
              "ResNet-50's 53 convolutions have the shape.\n" % s["tolerance"])
    for batch in sorted({e.get("batch") for e in doc["results"] if e.get("batch")}):
        rows = [e for e in doc["results"] if e.get("batch") == batch]
        md.append("## batch %d\n" % batch)
        md.append("| shape | layers | H×W | C→F | k/s | OH×OW | STC ms (min) | STC TFLOP/s | "
                  "STC sm_90a ms (min) | STC sm_90a TFLOP/s | sm_90a variant | "
                  + ("STC dense ms (min) | STC dense TFLOP/s | " if dense else "") +
                  "cuDNN TFLOP/s | cuDNN pruned TFLOP/s | STC vs cuDNN | STC vs cuDNN "
                  "pruned | sm_90a vs cuDNN | sm_90a vs cuDNN pruned | sm_90a vs STC |"
                  + (" dense vs cuDNN | sm_90a vs dense |" if dense else ""))
        md.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|"
                  "---:|---:|---:|" + ("---:|---:|---:|---:|" if dense else ""))
        for e in rows:
            c, mt, r = e["conv"], dict(e["methods"]), e["ratios"]
            mt.setdefault("stc_dense", {"status": "not_run"})
            cells = [e["shape"], e.get("layers"), "%s×%s" % (c["H"], c["W"]),
                     "%s→%s" % (c["C"], c["F"]), "%s×%s/%s" % (c["KH"], c["KW"], c["stride"]),
                     "%s×%s" % (c["OH"], c["OW"]),
                     _cell(mt["stc"], "ms"), _cell(mt["stc"], "tf"),
                     _cell(mt["stc_sm90a"], "ms"), _cell(mt["stc_sm90a"], "tf"),
                     _variant(mt["stc_sm90a"]) or "–"]
            if dense:
                cells += [_cell(mt["stc_dense"], "ms"), _cell(mt["stc_dense"], "tf")]
            cells += [_cell(mt["cudnn"], "tf"), _cell(mt["cudnn_pruned"], "tf"),
                      _ratio(r.get("stc_speedup_vs_cudnn")),
                      _ratio(r.get("stc_speedup_vs_cudnn_pruned")),
                      _ratio(r.get("stc_sm90a_speedup_vs_cudnn")),
                      _ratio(r.get("stc_sm90a_speedup_vs_cudnn_pruned")),
                      _ratio(r.get("stc_sm90a_speedup_vs_stc"))]
            if dense:
                cells += [_ratio(r.get("stc_dense_speedup_vs_cudnn")),
                          _ratio(r.get("stc_sm90a_speedup_vs_stc_dense"))]
            md.append("| " + " | ".join(str(x) for x in cells) + " |")
        tot = (doc.get("network_totals") or {}).get(str(batch))
        if tot:
            ms = lambda v: "%.3f ms" % v if v is not None else "–"  # noqa: E731
            md.append("\n%s at batch %d (median × layers): STC %s, STC sm_90a %s, %scuDNN %s, "
                      "cuDNN pruned %s%s%s%s.\n" % (
                          ("All %d convolutions of one ResNet-50 forward pass" % tot["layers"])
                          if tot.get("complete") else
                          ("The %d ResNet-50 layers of these %d shapes (not the whole network)"
                           % (tot["layers"], tot["programs"])),
                          batch, ms(tot["stc_ms"]), ms(tot.get("stc_sm90a_ms")),
                          ("STC dense %s, " % ms(tot.get("stc_dense_ms"))) if dense else "",
                          ms(tot["cudnn_ms"]), ms(tot["cudnn_pruned_ms"]),
                          (", STC vs cuDNN %s" % _ratio(tot["stc_speedup_vs_cudnn"]))
                          if tot.get("stc_speedup_vs_cudnn") else "",
                          (", STC sm_90a vs cuDNN %s"
                           % _ratio(tot["stc_sm90a_speedup_vs_cudnn"]))
                          if tot.get("stc_sm90a_speedup_vs_cudnn") else "",
                          (", STC dense vs cuDNN %s"
                           % _ratio(tot["stc_dense_speedup_vs_cudnn"]))
                          if tot.get("stc_dense_speedup_vs_cudnn") else ""))
        else:
            md.append("")
    md += _md_kernels(doc, [
        ("variant", "---", lambda k: k.get("variant", "?")),
        ("pixel tile", "---", _pixel_tile_cell),
        ("cluster", "---", lambda k: "×".join(map(str, k.get("cluster") or [1, 1, 1]))),
        ("dyn. shared B", "---:", lambda k: k.get("shared_bytes"))],
        [m for m in CONV_STC_METHODS if m in methods], CONV_NAMES)
    md += _md_tail(doc, methods, CONV_NAMES)
    return "\n".join(md) + "\n"


def _pixel_tile_cell(k):
    """The kernel table's pixel tile: TH×TW per image, "flat" for an sm_90a
    kernel whose pixels are tiled flat (a pointwise convolution: tensor maps,
    no pixel tile), "–" for the kernels without tiles of pixels."""
    if k.get("pixel_tile"):
        return "×".join(map(str, k["pixel_tile"]))
    return "flat" if k.get("tensor_maps") else "–"


def compact_conv(doc):
    """compact() for the convolution document."""
    methods = conv_methods(doc)
    short = {"stc": "STC", "stc_sm90a": "STC sm_90a", "stc_dense": "STC dense",
             "cudnn": "cuDNN", "cudnn_pruned": "cuDNN pruned"}
    return _compact(doc, methods, tuple(short[m] for m in methods), 34,
                    [("STC vs cuDNN / cuDNN pruned", "stc_speedup_vs_cudnn",
                      "stc_speedup_vs_cudnn_pruned"),
                     ("sm_90a vs cuDNN / cuDNN pruned", "stc_sm90a_speedup_vs_cudnn",
                      "stc_sm90a_speedup_vs_cudnn_pruned"),
                     ("dense vs cuDNN / sm_90a vs dense", "stc_dense_speedup_vs_cudnn",
                      "stc_sm90a_speedup_vs_stc_dense")])
