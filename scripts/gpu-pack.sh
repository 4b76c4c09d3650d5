#!/usr/bin/env bash
#===- scripts/gpu-pack.sh - pack the built tools for a GPU machine -------===#
#
# The GPU machines lent to sessions have CUDA, PyTorch and nvcc but no
# LLVM/MLIR, and take at most 64 MiB of files per call. This packs what
# the `REQUIRES: cuda` lit tests need into one xz archive (about 39 MiB):
# the stripped stc tools, the runtime and emulator archives, the runtime's
# CUDA C API as a shared library (for the GPU benchmarks), the lit site
# config, FileCheck/not/count, lit itself, libLLVM and the small libraries
# it needs that a non-Debian machine may lack, and stand-ins for three it
# names but never calls (below). scripts/gpu-remote-tests.sh unpacks it
# there and runs the tests.
#
#   scripts/gpu-pack.sh [OUT_DIR]     (default .gpu-carry, git-ignored)
#
# Then, with the device tool: carry=[".gpu-carry"] and run
# `bash scripts/gpu-remote-tests.sh .gpu-carry/stc-gpu-tests.tar.xz`.
#
#===----------------------------------------------------------------------===#
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${STC_BUILD_DIR:-$root/build}"
out="${1:-$root/.gpu-carry}"
llvm=/usr/lib/llvm-22

for t in bin/stc-run bin/stc-compile lib/libstc_runtime_cuda.so; do
  [ -f "$build/$t" ] || { echo "gpu-pack: $build/$t missing: run scripts/build.sh" >&2; exit 1; }
done
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT

mkdir -p "$stage/build/bin" "$stage/build/lib" "$stage/build/runtime" "$stage/build/test" \
         "$stage/llvm/bin" "$stage/llvm/lib" "$stage/llvm/utils"
for t in stc-run stc-compile; do
  strip -o "$stage/build/bin/$t" "$build/bin/$t"
done
cp "$build"/runtime/*.a "$stage/build/runtime/"
# The runtime's CUDA C API, which the GPU benchmarks launch their kernels
# through (bench/gpu/stcrt.py finds it in build/lib).
strip --strip-unneeded -o "$stage/build/lib/libstc_runtime_cuda.so" \
  "$build/lib/libstc_runtime_cuda.so"
cp "$build/test/lit.site.cfg.py" "$stage/build/test/"
for t in FileCheck not count; do cp "$llvm/bin/$t" "$stage/llvm/bin/"; done
cp -r "$llvm/utils/lit" "$stage/llvm/utils/"
find "$stage/llvm/utils" -name __pycache__ -prune -exec rm -rf {} +

# The shared libraries the tools load that a machine without LLVM lacks.
# Left out: glibc, libstdc++, libgcc_s, zlib, zstd, lzma (every Linux
# machine has a build at least as new) and the CUDA driver (the machine's).
{ ldd "$stage/build/bin/stc-run"; ldd "$stage/build/bin/stc-compile";
  ldd "$stage/llvm/bin/FileCheck"; } |
  awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | sort -u |
  grep -v -E '/(libc|libm|libdl|libpthread|librt|ld-linux[^/]*|libcuda|libstdc\+\+|libgcc_s|libz|libzstd|liblzma|libMLIR|libz3|libxml2|libicu[a-z]*)\.so' |
  while read -r lib; do cp -L "$lib" "$stage/llvm/lib/"; done

# Stand-ins for three libraries that the tools never call but that Debian's
# builds name as needed (about 70 MiB, more than a call may carry):
# libMLIR.so (mlir_c_runner_utils is linked against it and uses none of its
# symbols; the tools link MLIR statically), libz3 (the static analyzer's
# solver) and libxml2 (llvm-mt), of which libLLVM binds only `xmlFree`, a
# variable, at load time; the rest are lazily bound calls that nothing
# makes. gpu-remote-tests.sh uses them only where the machine has no
# library of that name.
stub="$stage/llvm/stub"
mkdir -p "$stub"
echo 'void *xmlFree = 0;' > "$stage/xml.c"
printf 'LIBXML2_2.4.30 { global: xmlFree; local: *; };\nLIBXML2_2.6.0 { } LIBXML2_2.4.30;\n' \
  > "$stage/xml.map"
cc -shared -fPIC -o "$stub/libxml2.so.2" -Wl,-soname,libxml2.so.2 \
  -Wl,--version-script,"$stage/xml.map" "$stage/xml.c"
echo '' > "$stage/empty.c"
mlir_soname="$(readelf -d "$llvm/lib/libmlir_c_runner_utils.so" | sed -n 's/.*(NEEDED).*\[\(libMLIR\.so[^]]*\)\].*/\1/p')"
for so in libz3.so.4 "$mlir_soname"; do
  cc -shared -fPIC -o "$stub/$so" -Wl,-soname,"$so" "$stage/empty.c"
done
rm -f "$stage/xml.c" "$stage/xml.map" "$stage/empty.c"

# The build machine's paths, for gpu-remote-tests.sh to rewrite: the
# source tree the build was configured from (not necessarily this
# checkout: STC_BUILD_DIR may be another worktree's build), LLVM, and the
# build directory itself.
src="$(sed -n 's/^config.stc_src_root = "\(.*\)"$/\1/p' "$build/test/lit.site.cfg.py")"
obj="$(sed -n 's/^config.stc_obj_root = "\(.*\)"$/\1/p' "$build/test/lit.site.cfg.py")"
[ -n "$src" ] && [ -n "$obj" ] ||
  { echo "gpu-pack: no stc_src_root/stc_obj_root in $build/test/lit.site.cfg.py" >&2; exit 1; }
printf '%s\n%s\n%s\n' "$src" "$llvm" "$obj" > "$stage/build-paths.txt"

mkdir -p "$out"
# One xz stream with a dictionary larger than the whole tar: stc-run and
# stc-compile link the same MLIR code statically, and a window that holds
# both stores it once (41 MB instead of 45 MB at -6; about 3 minutes on two
# cores), which keeps the pack and the repository inside the device tool's
# 64 MiB.
tar -C "$stage" -cf - . | xz -9e --lzma2=preset=9e,dict=192MiB > "$out/stc-gpu-tests.tar.xz"
ls -l "$out/stc-gpu-tests.tar.xz"
# Beside the pack, for a call that only runs the benchmarks
# (STC_SESSION_STEPS in gpu-session.sh) and carries this instead.
cp "$stage/build/lib/libstc_runtime_cuda.so" "$out/"
