//===- StcPrune.cpp - pruning methods that keep accuracy --------*- C++ -*-===//
//
// Implementation of StcPrune.h: exact transposable 4x4 tile pruning and the
// kept-magnitude measures.  The channel permutation search is in
// StcPermutationSearch.cpp.
//
//===----------------------------------------------------------------------===//

#include "runtime/format/StcPrune.h"
#include "runtime/format/TopTwoOfFour.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

namespace stc::format {

const char *pruneMethodName(PruneMethod method) {
  switch (method) {
  case PruneMethod::Strip:
    return "strip";
  case PruneMethod::Tile:
    return "tile";
  }
  return "unknown";
}

std::optional<PruneMethod> parsePruneMethod(const std::string &name) {
  if (name == "strip")
    return PruneMethod::Strip;
  if (name == "tile")
    return PruneMethod::Tile;
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Transposable 4x4 tile pruning
//===----------------------------------------------------------------------===//

namespace {

/// The six ways to keep two of four elements, as 4-bit masks, increasing.
constexpr uint8_t kTwoOfFour[6] = {0x3, 0x5, 0x6, 0x9, 0xA, 0xC};

/// The transposable masks with, for each, the row choices split into the
/// top two rows (index 6*c0 + c1 into kTwoOfFour choices of rows 0 and 1)
/// and the bottom two rows (6*c2 + c3), so that a mask's sum is one addition
/// of two precomputed half sums.
struct TileMaskTable {
  std::vector<uint16_t> masks;
  std::vector<uint8_t> topHalf;
  std::vector<uint8_t> bottomHalf;
};

const TileMaskTable &tileMaskTable() {
  static const TileMaskTable table = [] {
    struct Entry {
      uint16_t mask;
      uint8_t top, bottom;
    };
    std::vector<Entry> entries;
    for (int c0 = 0; c0 < 6; ++c0)
      for (int c1 = 0; c1 < 6; ++c1)
        for (int c2 = 0; c2 < 6; ++c2)
          for (int c3 = 0; c3 < 6; ++c3) {
            unsigned mask =
                unsigned(kTwoOfFour[c0]) | unsigned(kTwoOfFour[c1]) << 4 |
                unsigned(kTwoOfFour[c2]) << 8 | unsigned(kTwoOfFour[c3]) << 12;
            bool twoPerColumn = true;
            for (int col = 0; col < 4; ++col) {
              int count = 0;
              for (int row = 0; row < 4; ++row)
                count += (mask >> (4 * row + col)) & 1;
              twoPerColumn &= count == 2;
            }
            if (twoPerColumn)
              entries.push_back(
                  {uint16_t(mask), uint8_t(6 * c0 + c1), uint8_t(6 * c2 + c3)});
          }
    std::sort(entries.begin(), entries.end(),
              [](const Entry &a, const Entry &b) { return a.mask < b.mask; });
    TileMaskTable t;
    for (const Entry &e : entries) {
      t.masks.push_back(e.mask);
      t.topHalf.push_back(e.top);
      t.bottomHalf.push_back(e.bottom);
    }
    return t;
  }();
  return table;
}

/// The best mask for a tile whose magnitudes contain NaN or +inf: kept
/// magnitudes compare as (number of NaNs, number of +infs, sum of the
/// others), so that NaN outranks everything and +inf every finite value,
/// as in strip pruning.
uint16_t bestTileMaskNonFinite(const float *mags, const TileMaskTable &table) {
  size_t best = 0;
  int bestNaNs = -1, bestInfs = -1;
  double bestSum = -std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < table.masks.size(); ++i) {
    int nans = 0, infs = 0;
    double sum = 0;
    for (int e = 0; e < 16; ++e) {
      if (!((table.masks[i] >> e) & 1))
        continue;
      if (std::isnan(mags[e]))
        ++nans;
      else if (mags[e] == std::numeric_limits<float>::infinity())
        ++infs;
      else
        sum += double(mags[e]);
    }
    bool better = nans != bestNaNs   ? nans > bestNaNs
                  : infs != bestInfs ? infs > bestInfs
                                     : sum > bestSum;
    if (better) {
      best = i;
      bestNaNs = nans;
      bestInfs = infs;
      bestSum = sum;
    }
  }
  return table.masks[best];
}

/// The first mask (in increasing order) with the largest kept sum of the 16
/// magnitudes of a tile (row-major, element 4*r + c).  Sums are in double,
/// which is exact for 8 floats unless their exponents span more than about
/// 2^26, so the result does not depend on the order of the additions.
uint16_t bestTileMask(const float *mags, const TileMaskTable &table) {
  double all = 0;
  for (int e = 0; e < 16; ++e)
    all += double(mags[e]);
  if (!std::isfinite(all))
    return bestTileMaskNonFinite(mags, table);
  double pair[4][6];
  for (int row = 0; row < 4; ++row)
    for (int c = 0; c < 6; ++c) {
      double sum = 0;
      for (int col = 0; col < 4; ++col)
        if ((kTwoOfFour[c] >> col) & 1)
          sum += double(mags[4 * row + col]);
      pair[row][c] = sum;
    }
  double top[36], bottom[36];
  for (int a = 0; a < 6; ++a)
    for (int b = 0; b < 6; ++b) {
      top[6 * a + b] = pair[0][a] + pair[1][b];
      bottom[6 * a + b] = pair[2][a] + pair[3][b];
    }
  size_t best = 0;
  double bestSum = top[table.topHalf[0]] + bottom[table.bottomHalf[0]];
  for (size_t i = 1; i < table.masks.size(); ++i) {
    double sum = top[table.topHalf[i]] + bottom[table.bottomHalf[i]];
    if (sum > bestSum) {
      bestSum = sum;
      best = i;
    }
  }
  return table.masks[best];
}

} // namespace

const std::vector<uint16_t> &transposableTileMasks() {
  return tileMaskTable().masks;
}

template <typename T>
bool pruneTile(InView<T> in, View2D<T> out, MagnitudeFn<T> mag) {
  if (in.rows != out.rows || in.cols != out.cols || in.rows < 0 || in.cols < 0)
    return false;
  const TileMaskTable &table = tileMaskTable();
  for (int64_t tileRow = 0; tileRow < in.rows; tileRow += 4) {
    const int rowsHere = int(std::min<int64_t>(4, in.rows - tileRow));
    for (int64_t tileCol = 0; tileCol < in.cols; tileCol += 4) {
      const int colsHere = int(std::min<int64_t>(4, in.cols - tileCol));
      // The whole tile is read before any of it is written, so that `out`
      // may alias `in`.
      T values[16];
      float mags[16];
      for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 4; ++c) {
          bool inside = r < rowsHere && c < colsHere;
          values[4 * r + c] = inside ? in.at(tileRow + r, tileCol + c) : T{};
          mags[4 * r + c] = inside ? mag(values[4 * r + c]) : 0.0f;
        }
      uint16_t keep = bestTileMask(mags, table);
      for (int r = 0; r < rowsHere; ++r)
        for (int c = 0; c < colsHere; ++c)
          out.at(tileRow + r, tileCol + c) =
              (keep >> (4 * r + c)) & 1 ? values[4 * r + c] : T{};
    }
  }
  return true;
}

template <typename T>
bool pruneWithMethod(InView<T> in, View2D<T> out, NMPattern p,
                     PruneMethod method, MagnitudeFn<T> mag) {
  switch (method) {
  case PruneMethod::Strip:
    return prune<T>(in, out, p, mag);
  case PruneMethod::Tile:
    if (p != kPattern24)
      return false;
    return pruneTile<T>(in, out, mag);
  }
  return false;
}

template bool pruneTile<float>(InView<float>, View2D<float>,
                               MagnitudeFn<float>);
template bool pruneTile<uint16_t>(InView<uint16_t>, View2D<uint16_t>,
                                  MagnitudeFn<uint16_t>);
template bool pruneWithMethod<float>(InView<float>, View2D<float>, NMPattern,
                                     PruneMethod, MagnitudeFn<float>);
template bool pruneWithMethod<uint16_t>(InView<uint16_t>, View2D<uint16_t>,
                                        NMPattern, PruneMethod,
                                        MagnitudeFn<uint16_t>);
template bool pruneTile<int8_t>(InView<int8_t>, View2D<int8_t>,
                                MagnitudeFn<int8_t>);
template bool pruneWithMethod<int8_t>(InView<int8_t>, View2D<int8_t>, NMPattern,
                                      PruneMethod, MagnitudeFn<int8_t>);

//===----------------------------------------------------------------------===//
// Kept magnitude
//===----------------------------------------------------------------------===//

double totalMagnitude(View2D<const float> magnitudes) {
  double total = 0;
  for (int64_t r = 0; r < magnitudes.rows; ++r)
    for (int64_t c = 0; c < magnitudes.cols; ++c)
      total += std::fabs(double(magnitudes.at(r, c)));
  return total;
}

double keptMagnitudeStrip(View2D<const float> magnitudes, NMPattern p,
                          const std::vector<int64_t> &perm) {
  const int64_t k = magnitudes.cols;
  if (!p.isSupported() || (!perm.empty() && !isPermutation(perm, k)))
    return std::numeric_limits<double>::quiet_NaN();
  const int64_t groups = (k + p.m - 1) / p.m;
  double kept = 0;
  for (int64_t r = 0; r < magnitudes.rows; ++r)
    for (int64_t g = 0; g < groups; ++g) {
      float v[4] = {0, 0, 0, 0};
      for (int j = 0; j < p.m; ++j) {
        int64_t c = g * p.m + j;
        if (c < k)
          v[j] = magnitudes.at(r, perm.empty() ? c : perm[size_t(c)]);
      }
      kept += p.m == 4 ? topTwoOfFourExact(v[0], v[1], v[2], v[3])
                       : double(std::max(v[0], v[1]));
    }
  return kept;
}

double keptMagnitudeRowBound(View2D<const float> magnitudes, NMPattern p) {
  if (!p.isSupported())
    return std::numeric_limits<double>::quiet_NaN();
  const int64_t k = std::max<int64_t>(magnitudes.cols, 0);
  const int64_t keptPerRow = std::min(k, (k + p.m - 1) / p.m * p.n);
  std::vector<float> row(static_cast<size_t>(k));
  double kept = 0;
  for (int64_t r = 0; r < magnitudes.rows; ++r) {
    for (int64_t c = 0; c < k; ++c)
      row[size_t(c)] = magnitudes.at(r, c);
    std::nth_element(row.begin(), row.begin() + keptPerRow, row.end(),
                     std::greater<float>());
    for (int64_t c = 0; c < keptPerRow; ++c)
      kept += double(row[size_t(c)]);
  }
  return kept;
}

bool isPermutation(const std::vector<int64_t> &perm, int64_t size) {
  if (size < 0 || int64_t(perm.size()) != size)
    return false;
  std::vector<bool> seen(size_t(size), false);
  for (int64_t v : perm) {
    if (v < 0 || v >= size || seen[size_t(v)])
      return false;
    seen[size_t(v)] = true;
  }
  return true;
}

} // namespace stc::format
