#!/usr/bin/env bash
# Session 10, device call 3: the whole-programs GPU test with the pool's
# lowest-address policy (sm_90 default target and sm_90a, concurrently, each
# in its own copy), then Nsight Compute's per-kernel durations of the BERT
# layer end to end (the first STC calls of bert_layer-b32s128 and -b8s128).
set -uo pipefail
out="$1"; root="$(pwd)"; carry="$root/.gpu-carry"
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv | tee "$out/session.log"
t0=$(date +%s)
pass() {
  local name="$1" filter="$2"; shift 2
  local r="/tmp/repo-$name"
  rm -rf "$r" && mkdir -p "$r" && (cd "$root" && tar --exclude=./.gpu-carry --exclude=./build --exclude=./bench/work -cf - .) | tar -C "$r" -xf -
  STC_GPU_PRIV="/tmp/stc-gpu-$name" timeout 150 bash "$r/scripts/gpu-remote-tests.sh" \
    "$carry/stc-gpu-tests.tar.xz" "$filter" -j 4 --show-pass "$@" > "$out/lit-$name.log" 2>&1
  echo "pass $name rc $? after $(( $(date +%s) - t0 )) s" >> "$out/session.log"
}
# The lit passes run beside the profiles (which only locate a slow kernel).
pass sm90 "GPU/cuda-whole-programs" &
pass sm90a "GPU/cuda-whole-programs" --param gpu_target=sm_90a &
mkdir -p bench/work && xz -dc "$carry/e2e-work.tar.xz" | tar -C bench/work -xf -
for b in bert_layer-b32s128 bert_layer-b8s128 llama_mlp-t16; do
  echo "== ncu $b $(date -u +%T)" | tee -a "$out/session.log"
  timeout 90 ncu --clock-control none --metrics gpu__time_duration.sum -k 'regex:^stc_' -c 90 --csv \
    --log-file "$out/ncu-$b.csv" \
    bash bench/run_gpu_bench.sh run-e2e --only "^$b\$" --no-compile --time-budget 20 --max-repeats 3 \
    > "$out/e2e-$b.log" 2>&1
  echo "ncu rc $? after $(( $(date +%s) - t0 )) s" | tee -a "$out/session.log"
  python3 - "$out/ncu-$b.csv" <<'PY' 2>&1 | tee -a "$out/session.log"
import csv, sys, collections
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
hdr = rows[0]; rows = rows[1:]
ki, vi, ii = hdr.index("Kernel Name"), hdr.index("Metric Value"), hdr.index("ID")
# The first 45 launches: the first call (its own kernels; ids ascend).
t = collections.OrderedDict()
for r in rows[:45]:
    t.setdefault(r[ki], []).append(float(r[vi].replace(",", "")))
tot = sum(sum(v) for v in t.values())
print("first 45 launches: %.1f us in all" % (tot / 1e3))
for k, v in sorted(t.items(), key=lambda kv: -sum(kv[1]))[:20]:
    print("%-22s x%d %10.1f us" % (k, len(v), sum(v) / 1e3))
PY
done
wait
grep -h -E "^(PASS|FAIL|TIMEOUT):|check_profile|error" "$out"/lit-*.log | tee -a "$out/session.log"
(cd "$out" && tar -cf lit-logs.tar lit-*.log e2e-*.log && rm -f lit-*.log e2e-*.log && tar -cf ncu.tar ncu-*.csv && rm -f ncu-*.csv)
echo "== done $(date -u +%T), $(( $(date +%s) - t0 )) s" | tee -a "$out/session.log"
