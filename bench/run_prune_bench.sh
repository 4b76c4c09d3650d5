#!/usr/bin/env bash
# Pruning quality benchmark (how much weight magnitude strip, tile and
# strip+channel-permutation pruning keep; not a speed benchmark). See
# bench/README.md ("Pruning quality").
#
#   bench/run_prune_bench.sh [--quick]
#
# --quick: the two smallest Gaussian matrices and one example weight (smoke).
# Environment overrides:
#   CXX        C++ compiler (g++)
#   CXXFLAGS   its flags (-O2)
#
# Compiles bench/prune/prune_quality.cpp with the format library into
# bench/work/prune/ (git-ignored), writes the input matrices there
# (bench/prune/make_inputs.py, seeded), runs it, and writes
# bench/results/prune-<UTC time>-<commit>.json (raw numbers and machine
# information) and .md (a table generated from the JSON).
# Exit status: 0 when every matrix was measured and passed its consistency
# checks, 1 when one did not (the results are still written), 2 on a usage or
# setup error.
set -u -o pipefail

QUICK=0
for arg in "$@"; do
  case "$arg" in
    --quick) QUICK=1 ;;
    -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
    *) echo "run_prune_bench.sh: unknown argument '$arg'" >&2; exit 2 ;;
  esac
done

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BENCH="$ROOT/bench"
WORK="$BENCH/work/prune"
RESULTS="$BENCH/results"
CXX="${CXX:-g++}"
CXXFLAGS="${CXXFLAGS:--O2}"
mkdir -p "$WORK" "$RESULTS"

log() { echo "[run_prune_bench] $*" >&2; }

# A Python with NumPy (Debian's python3-numpy lives in /usr/bin/python3; the
# python3 first on PATH may be another one).
PY_NUMPY=""
for cand in /usr/bin/python3 python3; do
  if "$cand" -c "import numpy" 2>/dev/null; then PY_NUMPY="$cand"; break; fi
done
if [ -z "$PY_NUMPY" ]; then
  log "no python3 with NumPy found (apt-get install python3-numpy)"; exit 2
fi

log "compiling prune_quality ($CXX $CXXFLAGS)"
# shellcheck disable=SC2086
if ! "$CXX" $CXXFLAGS -std=c++17 -I"$ROOT" \
    "$BENCH/prune/prune_quality.cpp" "$ROOT/runtime/format/StcFormat.cpp" \
    "$ROOT/runtime/format/StcPrune.cpp" \
    "$ROOT/runtime/format/StcPermutationSearch.cpp" \
    "$ROOT/runtime/format/StcAtomicFile.cpp" \
    "$ROOT/runtime/format/StcLimits.cpp" \
    "$ROOT/runtime/npy/Npy.cpp" \
    -o "$WORK/prune_quality"; then
  log "compiling prune_quality failed"; exit 2
fi

log "writing the input matrices"
QUICK_ARG=()
[ "$QUICK" = 1 ] && QUICK_ARG=(--quick)
if ! "$PY_NUMPY" "$BENCH/prune/make_inputs.py" "$WORK/inputs" "${QUICK_ARG[@]}" \
    > "$WORK/jobs.tsv"; then
  log "make_inputs.py failed"; exit 2
fi

LOAD_START="$(cat /proc/loadavg)"
if awk -v l="${LOAD_START%% *}" 'BEGIN{exit !(l > 0.5)}'; then
  log "WARNING: load average ${LOAD_START%% *}: another job is running; search times (not the results, which are bounded by work) will be longer"
fi
log "running $(wc -l < "$WORK/jobs.tsv") matrices"
"$WORK/prune_quality" "$WORK/jobs.tsv" > "$WORK/raw.json"
RC=$?
LOAD_END="$(cat /proc/loadavg)"

STAMP="$(date -u +%Y%m%dT%H%M%SZ)"
COMMIT="$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"
COMMIT_FULL="$(git -C "$ROOT" rev-parse HEAD 2>/dev/null || echo unknown)"
DIRTY=false
if [ -n "$(git -C "$ROOT" status --porcelain --untracked-files=no 2>/dev/null)" ]; then
  DIRTY=true
fi
export STAMP COMMIT COMMIT_FULL DIRTY LOAD_START LOAD_END CXXFLAGS
export CPU_MODEL="$(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo | head -1)"
export CORES="$(nproc)"
export COMPILER="$("$CXX" --version 2>&1 | head -1)"
export PYTHON_VERSION="$("$PY_NUMPY" --version 2>&1)"
"$PY_NUMPY" - "$WORK/machine.json" <<'EOF'
import json, os, sys
import numpy
e = os.environ
json.dump({
    "utc_time": e["STAMP"], "commit": e["COMMIT"],
    "commit_full": e["COMMIT_FULL"], "dirty": e["DIRTY"] == "true",
    "cpu_model": e["CPU_MODEL"], "cores": int(e["CORES"]),
    "compiler": e["COMPILER"], "cxxflags": e["CXXFLAGS"] + " -std=c++17",
    "python": e["PYTHON_VERSION"], "numpy": numpy.__version__,
    "loadavg_start": e["LOAD_START"], "loadavg_end": e["LOAD_END"],
}, open(sys.argv[1], "w"), indent=1)
EOF

OUT="$RESULTS/prune-$STAMP-$COMMIT"
if ! "$PY_NUMPY" "$BENCH/prune/report.py" "$WORK/raw.json" "$WORK/machine.json" \
    "$OUT.json" "$OUT.md"; then
  log "report.py failed (raw output in $WORK/raw.json)"; exit 2
fi
log "wrote $OUT.json and $OUT.md"
[ "$RC" = 0 ] || log "some matrices failed their checks (prune_quality exit $RC)"
[ "$RC" = 0 ] && exit 0 || exit 1
