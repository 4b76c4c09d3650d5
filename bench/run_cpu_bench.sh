#!/usr/bin/env bash
# CPU benchmark of STC against dense OpenBLAS and upstream MLIR's 2:4
# sparsifier (docs/DESIGN.md §9). See bench/README.md.
#
#   bench/run_cpu_bench.sh [--quick]
#
# --quick: 1024^3 only, fewer repeats (CI smoke).
# Environment overrides:
#   MLIR_BIN        directory with mlir-opt / mlir-runner (/usr/lib/llvm-22/bin)
#   MLIR_LIB        directory with libmlir_*runner_utils.so (/usr/lib/llvm-22/lib)
#   STC_RUN         stc-run binary (build/bin/stc-run)
#   STC_FLAGS       extra stc-run flags (e.g. "--mr=4 --nv=4 --kc=256 --mc=64")
#   SPARSIFIER_OPTS options of mlir-opt --sparsifier (enable-runtime-library=false)
#   BENCH_SIZES     space-separated square sizes (overrides the default list)
#
# Writes bench/results/cpu-<UTC time>-<commit>.json (raw numbers) and .md (a
# table generated from the JSON). Builds everything under bench/work/.
# Exit status: 0 when every available method ran; 1 when one failed (the
# results are still written); 2 on a usage or setup error. A missing stc-run
# is reported as "missing" in the results and does not fail the run.
set -u -o pipefail

QUICK=0
for arg in "$@"; do
  case "$arg" in
    --quick) QUICK=1 ;;
    -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
    *) echo "run_cpu_bench.sh: unknown argument '$arg'" >&2; exit 2 ;;
  esac
done

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BENCH="$ROOT/bench"
WORK="$BENCH/work"
RESULTS="$BENCH/results"
MLIR_BIN="${MLIR_BIN:-/usr/lib/llvm-22/bin}"
MLIR_LIB="${MLIR_LIB:-/usr/lib/llvm-22/lib}"
STC_RUN="${STC_RUN:-$ROOT/build/bin/stc-run}"
STC_FLAGS="${STC_FLAGS:-}"
SPARSIFIER_OPTS="${SPARSIFIER_OPTS:-enable-runtime-library=false}"
mkdir -p "$WORK" "$RESULTS"
RAW="$WORK/raw"
rm -rf "$RAW"
mkdir -p "$RAW"

log() { echo "[run_cpu_bench] $*" >&2; }

# A Python with NumPy (Debian's python3-numpy lives in /usr/bin/python3; the
# python3 first on PATH may be another one).
PY_NUMPY=python3
for cand in python3 /usr/bin/python3; do
  if "$cand" -c "import numpy" 2>/dev/null; then PY_NUMPY="$cand"; break; fi
done

# ---- repeats per size: "<size> <warmup> <repeats>" per method --------------
if [ "$QUICK" = 1 ]; then
  SIZES="${BENCH_SIZES:-1024}"
  BLAS_WARM=1;  BLAS_REP=5
  SPARSE_WARM=1; SPARSE_REP=3
  STC_WARM=4;   STC_REP=5
else
  SIZES="${BENCH_SIZES:-1024 2048}"
  BLAS_WARM=3;  BLAS_REP=11
  SPARSE_WARM=1; SPARSE_REP=7
  STC_WARM=4;   STC_REP=9
fi
# stc-run has no warm-up option: it is run with --repeat=STC_WARM+STC_REP and
# the first STC_WARM of the per-run times it prints are dropped (its first
# three calls are measurably slower). Both counts keep the medians exact: the
# timed count is odd, and so is the total (stc-run's own median, the fallback
# when it prints no per-run list).
STC_TOTAL=$((STC_WARM + STC_REP))

# ---- machine info (before we touch the environment) ------------------------
CORETYPE_FOUND="${OPENBLAS_CORETYPE-<unset>}"
unset OPENBLAS_CORETYPE          # baseline uses OpenBLAS's auto-detected kernels
NCORES="$(nproc)"
echo "$CORETYPE_FOUND" > "$RAW/openblas_coretype_found.txt"
cat /proc/loadavg > "$RAW/loadavg_start.txt"
(lscpu 2>/dev/null | sed -n 's/^Model name:[[:space:]]*//p' | head -1) > "$RAW/cpu_model.txt"
(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown) > "$RAW/commit.txt"
(git -C "$ROOT" rev-parse HEAD 2>/dev/null || echo unknown) > "$RAW/commit_full.txt"
if [ -n "$(git -C "$ROOT" status --porcelain --untracked-files=no 2>/dev/null)" ]; then
  echo 1 > "$RAW/dirty.txt"; else echo 0 > "$RAW/dirty.txt"; fi
(cc --version 2>&1 | head -1) > "$RAW/cc_version.txt"
("$MLIR_BIN/mlir-opt" --version 2>&1 | grep -i -m1 'version' || echo unknown) > "$RAW/mlir_version.txt"
if [ -x "$STC_RUN" ]; then
  ("$STC_RUN" --version 2>&1 | grep -i -m1 'version' || echo unknown) > "$RAW/stc_version.txt"
fi
(dpkg-query -W -f='${db:Status-Abbrev} ${Package} ${Version}\n' 'libopenblas0*' 2>/dev/null \
  | awk '$1 == "ii" { printf "%s%s %s", sep, $2, $3; sep = ", " } END { print "" }') > "$RAW/openblas_pkg.txt"
log "cpu: $(cat "$RAW/cpu_model.txt"), $NCORES cores, OPENBLAS_CORETYPE found: $CORETYPE_FOUND (unset for the baseline)"
LOAD1="$(cut -d' ' -f1 /proc/loadavg)"
if awk -v l="$LOAD1" 'BEGIN{exit !(l > 0.5)}'; then
  log "WARNING: load average $LOAD1: another job is running; timings (memory-bound ones above all) will be slower and noisier"
fi

# ---- (a) OpenBLAS ----------------------------------------------------------
OPENBLAS_OK=1
if ! printf '#include <cblas.h>\nint main(void){return 0;}\n' | cc -x c - -fsyntax-only 2>/dev/null; then
  log "cblas.h not found: installing libopenblas-dev"
  if command -v apt-get >/dev/null; then
    SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
    $SUDO apt-get install -y libopenblas-dev >&2 || { $SUDO apt-get update >&2 && $SUDO apt-get install -y libopenblas-dev >&2; } || OPENBLAS_OK=0
  else
    OPENBLAS_OK=0
  fi
fi
if [ "$OPENBLAS_OK" = 1 ]; then
  if ! cc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -Wall "$BENCH/cpu/sgemm_openblas.c" \
      -o "$WORK/sgemm_openblas" -lopenblas 2> "$RAW/openblas_build.err"; then
    log "building sgemm_openblas failed:"; cat "$RAW/openblas_build.err" >&2
    OPENBLAS_OK=0
  fi
fi
THREADS_LIST="1"
[ "$NCORES" -gt 1 ] && THREADS_LIST="1 $NCORES"
for s in $SIZES; do
  for t in $THREADS_LIST; do
    out="$RAW/openblas-t$t-$s"
    if [ "$OPENBLAS_OK" != 1 ]; then echo "OpenBLAS unavailable" > "$out.err"; echo 1 > "$out.rc"; continue; fi
    log "OpenBLAS sgemm ${s}^3, $t thread(s)"
    OPENBLAS_NUM_THREADS=$t "$WORK/sgemm_openblas" "$s" "$s" "$s" "$BLAS_WARM" "$BLAS_REP" \
      > "$out.out" 2> "$out.err"
    echo $? > "$out.rc"
  done
done

# ---- (b) upstream MLIR sparsifier ------------------------------------------
SHLIBS="$MLIR_LIB/libmlir_c_runner_utils.so,$MLIR_LIB/libmlir_runner_utils.so"
for s in $SIZES; do
  out="$RAW/sparsifier-t1-$s"
  src="$WORK/sparsifier_$s.mlir"
  log "MLIR sparsifier (--sparsifier=\"$SPARSIFIER_OPTS\", mlir-runner -O3) ${s}^3"
  python3 "$BENCH/cpu/gen_sparsifier_bench.py" "$s" "$s" "$s" "$SPARSE_WARM" "$SPARSE_REP" > "$src" 2> "$out.err" \
    && "$MLIR_BIN/mlir-opt" "$src" --sparsifier="$SPARSIFIER_OPTS" -o "$WORK/sparsifier_$s.llvm.mlir" 2>> "$out.err" \
    && "$MLIR_BIN/mlir-runner" -O3 -e main -entry-point-result=void -shared-libs="$SHLIBS" \
         "$WORK/sparsifier_$s.llvm.mlir" > "$out.out" 2>> "$out.err"
  echo $? > "$out.rc"
done

# ---- (c) STC ---------------------------------------------------------------
# "stc": the weight is compressed once, untimed (like the sparsifier's
# conversion); @main is the sparse product only. Checked against NumPy once.
# "stc_prune": @main also prunes and compresses A on every call.
for s in $SIZES; do
  for method in stc stc_const stc_prune; do
    out="$RAW/$method-t1-$s"
    if [ ! -x "$STC_RUN" ]; then
      log "stc-run not found at $STC_RUN: STC skipped"
      echo "missing: $STC_RUN" > "$out.err"; echo missing > "$out.rc"; continue
    fi
    src="$WORK/${method}_$s.mlir"
    if [ "$method" = stc ]; then
      inputs="$WORK/stc_inputs_$s"
      mkdir -p "$inputs"
      python3 "$BENCH/cpu/gen_stc_bench.py" --precompressed "$s" "$s" "$s" > "$src"
      args=(--input="$inputs/v.npy" --input="$inputs/m.npy" --input="$inputs/b.npy")
      # Correctness first (one untimed run against the float64 reference).
      rm -f "$inputs/out.npy"
      # shellcheck disable=SC2086
      if "$PY_NUMPY" "$BENCH/cpu/make_stc_inputs.py" write "$s" "$s" "$s" "$inputs" 2> "$out.check.err" \
         && "$STC_RUN" "$src" --device=cpu "${args[@]}" --output="$inputs/out.npy" $STC_FLAGS \
              > /dev/null 2>> "$out.check.err"; then
        # 0: within 1e-5; 1: wrong result; 2+: the check itself failed.
        "$PY_NUMPY" "$BENCH/cpu/make_stc_inputs.py" check "$inputs" "$inputs/out.npy" \
          > "$out.check" 2>> "$out.check.err"
        echo $? > "$out.check.rc"
      else
        echo 2 > "$out.check.rc"
      fi
    elif [ "$method" = stc_const ]; then
      # The same A as "stc" (written by it above), as a constant weight.
      inputs="$WORK/stc_inputs_$s"
      "$PY_NUMPY" "$BENCH/cpu/make_stc_inputs.py" constprog "$inputs" "$s" "$s" "$s" > "$src"
      args=(--input="$inputs/b.npy")
      # shellcheck disable=SC2086
      "$STC_RUN" "$src" "${args[@]}" --output="$inputs/out_const.npy" $STC_FLAGS \
          > /dev/null 2> "$out.check.err" \
        && "$PY_NUMPY" "$BENCH/cpu/make_stc_inputs.py" check "$inputs" "$inputs/out_const.npy" \
          > "$out.check" 2>> "$out.check.err"
      echo $? > "$out.check.rc"
    else
      python3 "$BENCH/cpu/gen_stc_bench.py" "$s" "$s" "$s" > "$src"
      args=(--random-inputs --seed=1)
    fi
    log "STC ($method) stc-run ${s}^3 $STC_FLAGS"
    # shellcheck disable=SC2086
    "$STC_RUN" "$src" --device=cpu "${args[@]}" --repeat="$STC_TOTAL" $STC_FLAGS \
      > "$out.out" 2> "$out.err"
    echo $? > "$out.rc"
  done
done
cat /proc/loadavg > "$RAW/loadavg_end.txt"

# ---- collect: JSON (raw numbers) and Markdown (generated from the JSON) -----
STAMP="$(date -u +%Y%m%dT%H%M%SZ)"
BASE="$RESULTS/cpu-$STAMP-$(cat "$RAW/commit.txt")"
python3 - "$RAW" "$BASE" "$QUICK" "$SIZES" "$SPARSIFIER_OPTS" "$STC_FLAGS" "$NCORES" \
  "$BLAS_WARM" "$BLAS_REP" "$SPARSE_WARM" "$SPARSE_REP" "$STC_WARM" "$STC_REP" "$STAMP" <<'PY'
import json, os, re, statistics, sys

(raw, base, quick, sizes, sp_opts, stc_flags, ncores,
 bw, br, sw, sr, stcw, stcr, stamp) = sys.argv[1:]
stcw, stcr = int(stcw), int(stcr)
REL_TOL = 1e-5
sizes = [int(s) for s in sizes.split()]

def rd(name, default=""):
    try:
        with open(os.path.join(raw, name)) as f:
            return f.read().strip()
    except OSError:
        return default

def tail(text, n=15):
    return "\n".join(text.splitlines()[-n:])

def stats(times):
    return {"times_ms": times, "median_ms": statistics.median(times),
            "min_ms": min(times)}

corename = None
results = []
ok = True
for s in sizes:
    flop = 2.0 * s * s * s
    for method, threads in ([("openblas", 1)] +
                            ([("openblas", int(ncores))] if int(ncores) > 1 else []) +
                            [("sparsifier", 1), ("stc", 1), ("stc_const", 1),
                             ("stc_prune", 1)]):
        stem = f"{method}-t{threads}-{s}"
        rc, out, err = rd(stem + ".rc", "1"), rd(stem + ".out"), rd(stem + ".err")
        entry = {"method": method, "M": s, "N": s, "K": s, "threads": threads,
                 "dense_equivalent_flop": flop}
        wrong = False
        try:
            if rc == "missing":
                entry["status"] = "missing"
                entry["error"] = err
                results.append(entry)
                continue
            if rc != "0":
                raise RuntimeError(f"exit status {rc}")
            if method == "openblas":
                times = [float(x) for x in re.findall(r"^time_ms\s+(\S+)", out, re.M)]
                m = re.search(r"^corename\s+(\S+)", out, re.M)
                entry["corename"] = m.group(1) if m else None
                m = re.search(r"^threads\s+(\d+)", out, re.M)
                entry["openblas_threads"] = int(m.group(1)) if m else None
                m = re.search(r"^config\s+(.*)$", out, re.M)
                entry["openblas_config"] = m.group(1) if m else None
                if threads == 1 and corename is None:
                    corename = entry["corename"]
                entry.update(warmup=int(bw), **stats(times))
            elif method == "sparsifier":
                vals = [float(x) for x in out.split()]
                if len(vals) != int(sr) + 1:
                    raise RuntimeError(f"expected {int(sr) + 1} numbers, got {len(vals)}")
                entry["checksum"] = vals[-1]
                entry.update(warmup=int(sw), options=sp_opts, runner="mlir-runner -O3",
                             **stats([v * 1e3 for v in vals[:-1]]))
            else:
                m = re.search(r"timing:.*?median\s+([-+0-9.eE]+)\s*ms.*?min\s+([-+0-9.eE]+)\s*ms"
                              r"(?:.*?over\s+(\d+))?", err + "\n" + out)
                if not m:
                    raise RuntimeError("no 'stc-run: timing:' line")
                total = stcw + stcr
                runs = re.search(r"timing: runs \(ms\):((?:[ \t]+[-+0-9.eE]+)+)", err)
                runs = [float(x) for x in runs.group(1).split()] if runs else None
                if runs is not None and len(runs) == total:
                    # The first stcw calls are the warm-up: dropped.
                    entry.update(warmup=stcw, warmup_times_ms=runs[:stcw],
                                 **stats(runs[stcw:]))
                else:
                    # No per-run list: stc-run's own median over every run.
                    entry.update(times_ms=None, median_ms=float(m.group(1)),
                                 min_ms=float(m.group(2)), warmup=0,
                                 warmup_note="no per-run times printed: stc-run's "
                                             f"median over all {total} runs")
                entry.update(stc_run_median_all_runs_ms=float(m.group(1)),
                             stc_run_min_all_runs_ms=float(m.group(2)),
                             stc_run_repeat=int(m.group(3)) if m.group(3) else None,
                             flags=stc_flags)
                if method in ("stc", "stc_const"):
                    entry["note"] = (
                        "weight given compressed (values + metadata), like the "
                        "sparsifier's untimed conversion" if method == "stc" else
                        "weight is a constant of the program: decoding and "
                        "tiling happen at compile time (the inference case)")
                    check_rc = rd(stem + ".check.rc", "2")
                    check = rd(stem + ".check")
                    entry["check"] = (check + "\n" + tail(rd(stem + ".check.err"), 5)).strip()
                    mm = re.search(r"^rel_error\s+(\S+)", check, re.M)
                    entry["rel_error"] = float(mm.group(1)) if mm else None
                    entry["rel_error_tolerance"] = REL_TOL
                    if entry["rel_error"] is None:
                        raise RuntimeError(f"result check did not run (status {check_rc})")
                    if not entry["rel_error"] < REL_TOL or check_rc != "0":
                        wrong = True
                else:
                    entry["note"] = "@main also prunes and compresses A on every call"
            if not entry.get("median_ms"):
                raise RuntimeError("no timings")
            entry["gflops_median"] = flop / (entry["median_ms"] * 1e-3) / 1e9
            entry["gflops_best"] = flop / (entry["min_ms"] * 1e-3) / 1e9
            if wrong:
                ok = False
                entry["status"] = "wrong"
                entry["error"] = (f"result differs from float64 NumPy: rel_error "
                                  f"{entry['rel_error']:.3e} (tolerance {REL_TOL:.0e})")
            else:
                entry["status"] = "ok"
        except Exception as e:  # record the failure, keep going
            ok = False
            entry["status"] = "failed"
            entry["error"] = f"{e}\n{tail(err)}\n{tail(out, 5)}".strip()
        results.append(entry)

def find(method, s, threads=1):
    for r in results:
        if (r["method"], r["M"], r["threads"]) == (method, s, threads) and r["status"] == "ok":
            return r
    return None

ratios = []
for s in sizes:
    stc, blas, sp = find("stc", s), find("openblas", s), find("sparsifier", s)
    rr = {"M": s, "N": s, "K": s}
    if stc and blas:
        rr["stc_speedup_vs_openblas_1t"] = blas["median_ms"] / stc["median_ms"]
    if stc and sp:
        rr["stc_speedup_vs_sparsifier"] = sp["median_ms"] / stc["median_ms"]
    if sp and blas:
        rr["sparsifier_speedup_vs_openblas_1t"] = blas["median_ms"] / sp["median_ms"]
    pr = find("stc_prune", s)
    if pr and blas:
        rr["stc_prune_speedup_vs_openblas_1t"] = blas["median_ms"] / pr["median_ms"]
    if pr and sp:
        rr["stc_prune_speedup_vs_sparsifier"] = sp["median_ms"] / pr["median_ms"]
    ratios.append(rr)

doc = {
    "schema": "stc-cpu-bench/1",
    "utc": stamp,
    "quick": quick == "1",
    "dtype": "f32",
    "flop_counting": "dense-equivalent 2*M*N*K for every method",
    "machine": {
        "cpu_model": rd("cpu_model.txt"),
        "cores": int(ncores),
        "openblas_corename": corename,
        "openblas_coretype_env_found": rd("openblas_coretype_found.txt"),
        "openblas_coretype_env_used": "<unset>",
        "openblas_package": rd("openblas_pkg.txt"),
        "loadavg_start": rd("loadavg_start.txt"),
        "loadavg_end": rd("loadavg_end.txt"),
    },
    "software": {
        "git_commit": rd("commit_full.txt"),
        "git_dirty": rd("dirty.txt") == "1",
        "cc": rd("cc_version.txt"),
        "mlir": rd("mlir_version.txt"),
        "stc_run": rd("stc_version.txt", None),
    },
    "settings": {
        "openblas": {"warmup": int(bw), "repeats": int(br)},
        "sparsifier": {"warmup": int(sw), "repeats": int(sr), "options": sp_opts},
        "stc": {"warmup": stcw, "repeats": stcr, "stc_run_repeat": stcw + stcr,
                "flags": stc_flags, "rel_error_tolerance": REL_TOL},
    },
    "results": results,
    "ratios": ratios,
}
with open(base + ".json", "w") as f:
    json.dump(doc, f, indent=2)
    f.write("\n")

# ---- Markdown, generated only from `doc` ----
names = {"openblas": "OpenBLAS cblas_sgemm (dense)",
         "sparsifier": "MLIR sparsifier, 2:4 A",
         "stc": "STC, 2:4 A given compressed",
         "stc_const": "STC, 2:4 A a compile-time constant",
         "stc_prune": "STC incl. run-time prune+compress of A each call"}
md = []
mach, sw_ = doc["machine"], doc["software"]
md.append(f"# STC CPU benchmark, {doc['utc']}{' (quick)' if doc['quick'] else ''}\n")
md.append(f"- CPU: {mach['cpu_model']}, {mach['cores']} cores; load average at start "
          f"`{mach['loadavg_start']}`, at end `{mach['loadavg_end']}`")
md.append(f"- OpenBLAS core type: {mach['openblas_corename']} "
          f"(OPENBLAS_CORETYPE found: `{mach['openblas_coretype_env_found']}`, unset for the run); "
          f"{mach['openblas_package'] or 'package unknown'}")
md.append(f"- Commit `{sw_['git_commit'][:12]}`{' (dirty tree)' if sw_['git_dirty'] else ''}; "
          f"{sw_['mlir']}; {sw_['cc']}")
md.append(f"- Sparsifier: `mlir-opt --sparsifier=\"{doc['settings']['sparsifier']['options']}\"` "
          f"then `mlir-runner -O3`; STC: `stc-run --repeat={doc['settings']['stc']['stc_run_repeat']}"
          f"{(' ' + stc_flags) if stc_flags else ''}`, the first "
          f"{doc['settings']['stc']['warmup']} runs untimed warm-up")
md.append("- The STC row used for the speedups takes A already pruned and compressed "
          "(values + metadata, made once by NumPy), as the sparsifier's conversion of A "
          "is outside its timing; its result is checked against float64 NumPy first. "
          "The \"incl. run-time prune+compress\" row times `stc.prune` + `stc.compress` "
          "of A inside every call as well.")
md.append("- f32, GFLOP/s count dense-equivalent 2·M·N·K flops for every method; "
          "times are medians (min in brackets).\n")
md.append("| M=N=K | method | threads | median ms (min) | GFLOP/s | STC speedup vs this |")
md.append("|---:|---|---:|---:|---:|---:|")
for r in results:
    stc = find("stc", r["M"])
    if r["status"] == "ok":
        t = f"{r['median_ms']:.2f} ({r['min_ms']:.2f})"
        g = f"{r['gflops_median']:.1f}"
        sp = (f"{r['median_ms'] / stc['median_ms']:.2f}×"
              if stc and r["method"] != "stc" else "")
    else:
        t, g, sp = r["status"], "", ""
    name = names[r["method"]]
    if r.get("rel_error") is not None:
        name += f" (rel. error {r['rel_error']:.1e})"
    md.append(f"| {r['M']} | {name} | {r['threads']} | {t} | {g} | {sp} |")
md.append("")
md.append("| M=N=K | STC vs OpenBLAS (1 thread) | STC vs sparsifier | "
          "STC incl. prune vs OpenBLAS (1 thread) | STC incl. prune vs sparsifier | "
          "sparsifier vs OpenBLAS (1 thread) |")
md.append("|---:|---:|---:|---:|---:|---:|")
fmt = lambda v: f"{v:.2f}×" if v is not None else "n/a"
for rr in ratios:
    md.append(f"| {rr['M']} | {fmt(rr.get('stc_speedup_vs_openblas_1t'))} | "
              f"{fmt(rr.get('stc_speedup_vs_sparsifier'))} | "
              f"{fmt(rr.get('stc_prune_speedup_vs_openblas_1t'))} | "
              f"{fmt(rr.get('stc_prune_speedup_vs_sparsifier'))} | "
              f"{fmt(rr.get('sparsifier_speedup_vs_openblas_1t'))} |")
md.append("\nSpeedup = the other method's median time / STC's median time (> 1: STC is "
          "faster); in the first table, STC is the row with A given compressed.")
failed = [r for r in results if r["status"] != "ok"]
if failed:
    md.append("\n## Not measured, or wrong\n")
    for r in failed:
        first = (r.get("error") or "").splitlines()[:1]
        md.append(f"- {r['M']}³ {names[r['method']]}: {r['status']}"
                  f"{(': ' + first[0]) if first else ''}")
with open(base + ".md", "w") as f:
    f.write("\n".join(md) + "\n")
print("\n".join(md))
sys.exit(0 if ok else 1)
PY
rc=$?
log "wrote $BASE.json and $BASE.md"
exit $rc
