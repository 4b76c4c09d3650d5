#!/usr/bin/env bash
#===- scripts/build.sh - configure and build STC -------------------------===#
#
# Configures build/ (Release, Ninja) against /usr/lib/llvm-22 once, then
# builds every target. Two parallel jobs fit the 2-core, 24 GiB machines.
#
#===----------------------------------------------------------------------===#
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${STC_BUILD_DIR:-$root/build}"
jobs="${STC_JOBS:-2}"
if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
# stc-doc: the ODS reference, which `cmake --install` ships.
ninja -C "$build" -j "$jobs" all stc-doc
