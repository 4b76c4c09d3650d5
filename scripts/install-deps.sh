#!/usr/bin/env bash
#===- scripts/install-deps.sh - install what STC needs (Debian 12) -------===#
#
# LLVM/MLIR 22 from Debian (never a second libmlir-N-dev: two versions
# conflict), CMake, Ninja, GoogleTest, NumPy (test references), and for the
# ONNX front end the ONNX/protobuf libraries and headers (the importer) and
# python3-onnx (its tests build models with onnx.helper), plus
# python3-torch and python3-torchvision without their recommends (about
# 50 MB: the tests that export models from torch). Skips the install when
# everything is already there.
#
#===----------------------------------------------------------------------===#
set -euo pipefail

packages=(llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools cmake
          ninja-build libgtest-dev python3-numpy libonnx-dev libprotobuf-dev
          python3-onnx "$@")
# Installed without recommends (they pull in video and GIS libraries).
lean_packages=(python3-torch python3-torchvision)
is_missing() {
  ! dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"
}
missing=()
for p in "${packages[@]}"; do
  if is_missing "$p"; then missing+=("$p"); fi
done
lean_missing=()
for p in "${lean_packages[@]}"; do
  if is_missing "$p"; then lean_missing+=("$p"); fi
done
if [ ${#missing[@]} -eq 0 ] && [ ${#lean_missing[@]} -eq 0 ]; then
  exit 0
fi
echo "install-deps: installing ${missing[*]} ${lean_missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
$SUDO apt-get update -qq
if [ ${#missing[@]} -gt 0 ]; then
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
if [ ${#lean_missing[@]} -gt 0 ]; then
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq \
    --no-install-recommends "${lean_missing[@]}" >/dev/null
fi
