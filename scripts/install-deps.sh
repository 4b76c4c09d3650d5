#!/usr/bin/env bash
#===- scripts/install-deps.sh - install what STC needs (Debian 12) -------===#
#
# LLVM/MLIR 22 from Debian (never a second libmlir-N-dev: two versions
# conflict), CMake, Ninja, GoogleTest, NumPy (test references), and for the
# ONNX front end the ONNX/protobuf libraries and headers (the importer) and
# python3-onnx (its tests build models with onnx.helper). Skips the
# install when everything is already there.
#
#===----------------------------------------------------------------------===#
set -euo pipefail

packages=(llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools cmake
          ninja-build libgtest-dev python3-numpy libonnx-dev libprotobuf-dev
          python3-onnx "$@")
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
