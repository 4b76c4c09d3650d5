//===- pack-weights.cpp - pack 2:4 weights without MLIR ---------*- C++ -*-===//
//
// What a weight-packing tool needs from STC: the format library alone
// (STC::StcFormat, no LLVM/MLIR).  Prunes a seeded random K x N weight to
// 2:4 along K, compresses it to the canonical values + metadata, derives the
// CPU kernel-ready indices, and checks that decompression gives the pruned
// weight back and that every index points at the value's dense position.
//
//===----------------------------------------------------------------------===//
#include "runtime/format/StcFormat.h"

#include <cstdio>
#include <random>
#include <vector>

using namespace stc::format;

int main() {
  const int64_t k = 96, n = 20;
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> weight(k * n);
  for (float &w : weight)
    w = normal(rng);

  // nn.Linear-style X.W: the pattern runs along dimension 0 (K) of W.
  std::vector<float> pruned =
      prune(weight, k, n, /*reductionDim=*/0, kPattern24);
  Compressed packed;
  Status status =
      compress(pruned, k, n, /*reductionDim=*/0, kPattern24, packed);
  if (!status.ok()) {
    std::fprintf(stderr, "pack-weights: %s\n", status.message.c_str());
    return 1;
  }
  std::vector<float> unpacked;
  status = decompress(packed, /*reductionDim=*/0, unpacked);
  if (!status.ok() || unpacked != pruned) {
    std::fprintf(stderr, "pack-weights: decompression differs\n");
    return 1;
  }

  // Kernel-ready CPU layout: the dense reduction index of every value.
  const int64_t valuesPerRowCount = valuesPerRow(k, kPattern24);
  std::vector<int32_t> indices(packed.rows * valuesPerRowCount);
  View2D<const uint16_t> meta = View2D<const uint16_t>::rowMajor(
      packed.meta.data(), packed.rows, metaWordsPerRow(k, kPattern24));
  status = decodeIndices(
      meta,
      View2D<int32_t>::rowMajor(indices.data(), packed.rows, valuesPerRowCount),
      kPattern24);
  if (!status.ok())
    return 1;
  for (int64_t col = 0; col < n; ++col)
    for (int64_t v = 0; v < valuesPerRowCount; ++v) {
      int32_t row = indices[col * valuesPerRowCount + v];
      if (packed.values[col * valuesPerRowCount + v] != pruned[row * n + col]) {
        std::fprintf(stderr, "pack-weights: index of value %lld wrong\n",
                     static_cast<long long>(v));
        return 1;
      }
    }
  std::printf("pack-weights: %lldx%lld weight -> values %lldx%lld, "
              "metadata %lldx%lld i16: OK\n",
              static_cast<long long>(k), static_cast<long long>(n),
              static_cast<long long>(packed.rows),
              static_cast<long long>(valuesPerRowCount),
              static_cast<long long>(packed.rows),
              static_cast<long long>(metaWordsPerRow(k, kPattern24)));
  return 0;
}
