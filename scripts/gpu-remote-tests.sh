#!/usr/bin/env bash
#===- scripts/gpu-remote-tests.sh - the GPU lit tests on a machine without LLVM -===#
#
# Runs on the GPU machine, from the repository root, with the archive that
# scripts/gpu-pack.sh made on the build machine:
#
#   bash scripts/gpu-remote-tests.sh ARCHIVE [LIT_FILTER] [LIT_ARGS...]
#
# Unpacks it into build/ and a private LLVM directory, keeps only the
# shared libraries this machine lacks (a library whose soname the system
# has is its own, newer build), points the lit site config at this
# checkout, and runs lit over build/test (default filter: the GPU tests,
# `GPU/cuda-`). Exit status: lit's.
#
#===----------------------------------------------------------------------===#
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
archive="$1"; shift
filter="${1:-GPU/cuda-}"; [ $# -gt 0 ] && shift
priv="${STC_GPU_PRIV:-/tmp/stc-gpu}"

rm -rf "$priv" && mkdir -p "$priv"
if command -v xz >/dev/null 2>&1; then
  xz -dc "$archive" | tar -C "$priv" -xf - || exit 2
else
  python3 -c "import lzma,sys,tarfile; tarfile.open(fileobj=lzma.open(sys.argv[1])).extractall(sys.argv[2])" \
    "$archive" "$priv" || exit 2
fi
mkdir -p "$root/build"
cp -r "$priv/build/." "$root/build/"

# A library this machine has (by soname) is its own build, at least as new;
# the stand-ins of gpu-pack.sh fill in only what it lacks.
has() { ldconfig -p 2>/dev/null | grep -q "^[[:space:]]*$1 "; }
for lib in "$priv"/llvm/lib/*; do
  name="$(basename "$lib")"
  case "$name" in libLLVM*|libmlir*) continue ;; esac
  if has "$name"; then rm -f "$lib"; fi
done
for lib in "$priv"/llvm/stub/*; do
  name="$(basename "$lib")"
  has "$name" || mv "$lib" "$priv/llvm/lib/"
done
echo "gpu-remote-tests: private libraries: $(cd "$priv/llvm/lib" && echo *)"

old_root="$(sed -n 1p "$priv/build-paths.txt")"
old_llvm="$(sed -n 2p "$priv/build-paths.txt")"
# The build directory (line 3; older packs: the source root's build/).
old_obj="$(sed -n 3p "$priv/build-paths.txt")"; old_obj="${old_obj:-$old_root/build}"
py="$(command -v python3)"
cc="$(command -v cc || command -v gcc || echo cc)"
site="$root/build/test/lit.site.cfg.py"
sed -i -e "s#$old_llvm/bin#$priv/llvm/bin#g" -e "s#$old_obj#$root/build#g" -e "s#$old_root#$root#g" \
    -e "s#^config.python_executable = .*#config.python_executable = \"$py\"#" \
    -e "s#^config.host_cc = .*#config.host_cc = \"$cc\"#" "$site"

# The example programs are generated at build time, not carried (10 MB).
"$py" "$root/examples/gen_examples.py" --out-dir "$root/build/examples" >/dev/null

export LD_LIBRARY_PATH="$priv/llvm/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export STC_TEST_PYTHON="$py"
"$root/build/bin/stc-run" --list-devices || echo "gpu-remote-tests: stc-run --list-devices failed"
"$py" -c "import sys; sys.path.insert(0, sys.argv.pop(1)); from lit.main import main; main()" \
  "$priv/llvm/utils/lit" -sv --filter "$filter" "$@" "$root/build/test"
