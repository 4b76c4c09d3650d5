#!/usr/bin/env bash
#===- scripts/fuzz.sh - STC's long fuzzing campaign ------------------------===#
#
# Runs the campaign of docs/RELIABILITY.md ("Fuzzing") and writes its result
# to test/Fuzz/results/<UTC>-<commit>.md (and .json), to be committed:
#
# 1. the libFuzzer targets of test/Fuzz (npy, safetensors, runtime, onnx,
#    pipeline-cpu, pipeline-ptx) in the instrumented build (build-asan:
#    clang-22, ASan+UBSan, libFuzzer coverage; the build of scripts/test.sh
#    --sanitize), each from its seed corpus until its execution count (10M
#    for the readers, the ONNX importer and the runtime, 1M for the
#    pipelines) or its time limit, whichever comes first;
# 2. the mutation fuzzer (test/Fuzz/mutate_tools.py) over the project's
#    .mlir tests and examples through the tools of the Release build.
#
# Everything runs under `nice -n 19` (the machines are shared). Findings
# (libFuzzer's crash-/timeout-/oom- files, mutants with their command) stay
# under BUILD/fuzz-work/. Usage:
#
#   scripts/fuzz.sh [--targets "npy runtime ..."] [--reader-runs N]
#                   [--pipeline-runs N] [--max-time SECONDS] [--mutants N]
#                   [--jobs J] [--no-build] [--no-mutants]
#
#===----------------------------------------------------------------------===#
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
fuzz_build="${STC_FUZZ_BUILD_DIR:-$root/build-asan}"
release_build="${STC_BUILD_DIR:-$root/build}"
targets="npy safetensors runtime onnx tuning-db pipeline-cpu pipeline-ptx"
reader_runs=10000000
pipeline_runs=1000000
max_time=21600
mutants=10000
jobs=1
build=1
run_mutants=1
while [ $# -gt 0 ]; do
  case "$1" in
    --targets) targets="$2"; shift 2 ;;
    --reader-runs) reader_runs="$2"; shift 2 ;;
    --pipeline-runs) pipeline_runs="$2"; shift 2 ;;
    --max-time) max_time="$2"; shift 2 ;;
    --mutants) mutants="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --no-build) build=0; shift ;;
    --no-mutants) run_mutants=0; shift ;;
    *) sed -n '2,/^#====/p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
  esac
done

if [ "$build" = 1 ]; then
  if [ ! -f "$fuzz_build/build.ninja" ]; then
    cmake -G Ninja -S "$root" -B "$fuzz_build" -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
      -DSTC_SANITIZE=address,undefined -DSTC_FUZZ=ON || exit 1
  fi
  nice -n 19 ninja -C "$fuzz_build" stc-fuzz stc-fuzz-replay || exit 1
  if [ "$run_mutants" = 1 ]; then
    STC_BUILD_DIR="$release_build" nice -n 19 bash "$root/scripts/build.sh" || exit 1
  fi
fi
stc_fuzz="$fuzz_build/bin/stc-fuzz"
[ -x "$stc_fuzz" ] || { echo "fuzz.sh: no $stc_fuzz (clang-22 with libFuzzer?)"; exit 1; }

commit="$(git -C "$root" rev-parse --short HEAD)"
dirty=""
git -C "$root" diff --quiet HEAD -- . ':!test/Fuzz/results' || dirty=" (with uncommitted changes)"
stamp="$(date -u +%Y%m%dT%H%M%SZ)"
work="$fuzz_build/fuzz-work"
mkdir -p "$work"
/usr/bin/python3 "$root/test/Fuzz/make_seeds.py" "$root" "$work/seeds" || exit 1
export ASAN_OPTIONS="allow_user_poisoning=0:detect_leaks=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"

rows=""
json="{\"commit\": \"$commit\", \"utc\": \"$stamp\", \"targets\": ["
first=1
for target in $targets; do
  case "$target" in
    pipeline-*) runs=$pipeline_runs; seeds="$work/seeds/mlir"; timeout=120 ;;
    npy|safetensors|runtime|onnx|tuning-db) runs=$reader_runs; seeds="$work/seeds/$target"; timeout=30 ;;
    *) echo "fuzz.sh: unknown target $target"; exit 2 ;;
  esac
  corpus="$work/corpus/$target"
  # One folder a run: the counts below are of this run's findings only.
  artifacts="$work/artifacts/$target-$stamp"
  mkdir -p "$corpus" "$artifacts"
  log="$work/$target-$stamp.log"
  echo "fuzz.sh: $target: up to $runs executions or $max_time s (log: $log)"
  start=$(date +%s)
  STC_FUZZ_TARGET="$target" nice -n 19 "$stc_fuzz" -runs="$runs" \
    -max_total_time="$max_time" -timeout="$timeout" -rss_limit_mb=4096 \
    -malloc_limit_mb=4096 -print_final_stats=1 \
    -artifact_prefix="$artifacts/" "$corpus" "$seeds" > "$log" 2>&1
  rc=$?
  seconds=$(( $(date +%s) - start ))
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  crashes=$(ls "$artifacts" | grep -c '^crash-' || true)
  hangs=$(ls "$artifacts" | grep -c '^timeout-' || true)
  ooms=$(ls "$artifacts" | grep -c '^oom-' || true)
  leaks=$(ls "$artifacts" | grep -c '^leak-' || true)
  reports=$(grep -c -E 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:' "$log" || true)
  size=$(ls "$corpus" | wc -l)
  rows="$rows| $target | ${execs:-0} | $seconds | ${rate:-0} | $crashes | $hangs | $ooms | $leaks | $reports | $size | $rc |
"
  [ $first = 1 ] || json="$json, "
  first=0
  json="$json{\"target\": \"$target\", \"executions\": ${execs:-0}, \"seconds\": $seconds, \"exec_per_sec\": ${rate:-0}, \"crashes\": $crashes, \"hangs\": $hangs, \"ooms\": $ooms, \"leaks\": $leaks, \"sanitizer_reports\": $reports, \"corpus\": $size, \"exit\": $rc}"
done
json="$json]"

mutation=""
if [ "$run_mutants" = 1 ]; then
  echo "fuzz.sh: mutation fuzzer, $mutants mutants"
  out="$work/mutants-$stamp"
  nice -n 19 /usr/bin/python3 "$root/test/Fuzz/mutate_tools.py" \
    --bin "$release_build/bin" --src "$root" --out "$out" \
    --mutants "$mutants" --jobs "$jobs" > "$out.summary" 2>&1
  mutation="$(tail -1 "$out.summary")"
  json="$json, \"mutation\": $mutation"
fi
json="$json}"

results="$root/test/Fuzz/results"
mkdir -p "$results"
md="$results/$stamp-$commit.md"
{
  echo "# Fuzzing campaign $stamp, commit $commit$dirty"
  echo
  echo "scripts/fuzz.sh on $(nproc) cores ($(uname -m)), nice -n 19; libFuzzer"
  if [ -n "$targets" ]; then
    echo "targets in $fuzz_build (clang-22, ASan+UBSan, libFuzzer coverage),"
    echo "limits: $reader_runs executions for the readers and the runtime,"
    echo "$pipeline_runs for the pipelines, $max_time s per target."
  else
    echo "no libFuzzer target in this run (--targets \"\")."
  fi
  echo
  echo "| target | executions | seconds | exec/s | crashes | hangs | OOMs | leaks | sanitizer reports | corpus | exit |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|"
  printf '%s' "$rows"
  if [ -n "$mutation" ]; then
    echo
    echo "Mutation fuzzer (test/Fuzz/mutate_tools.py, tools of $release_build):"
    echo
    echo '```'
    echo "$mutation"
    echo '```'
  fi
} > "$md"
echo "$json" > "${md%.md}.json"
cat "$md"
