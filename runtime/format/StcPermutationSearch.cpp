//===- StcPermutationSearch.cpp - channel permutation search ----*- C++ -*-===//
//
// searchChannelPermutation of StcPrune.h: the permutation of the K reduction
// columns that keeps the most magnitude under N:M pruning.
//
// The permutation search is an iterated local search over the assignment of
// the K reduction columns to groups of M (4 for 2:4, 2 for 1:2):
//
//   * a move takes a window of 2 (or 3) groups and reassigns their 8 (12)
//     columns to the same groups in the best of all possible ways (35 ways
//     for two groups of 4, 5775 for three), which contains every single
//     column swap between them and every double swap.  Only these groups'
//     kept sums change, so a move costs O(rows) per candidate subset;
//   * a sweep visits all pairs of groups in a seeded random order (or, when
//     that would cost more than a fixed amount of work, a seeded random
//     sample of them) and applies every improving move at once (first
//     improvement);
//   * when pairs stop improving, sweeps over triples of groups follow; when
//     those stop improving too, the search has reached a local optimum: it
//     keeps it if it is the best seen (else it goes back to the best seen)
//     and escapes with a few random column swaps ("kick").
//
// Every choice comes from a seeded SplitMix64 generator and every bound is
// counted in work (never in time), so the result depends only on the
// inputs, the seed and maxRounds.
//
//===----------------------------------------------------------------------===//

#include "runtime/format/StcPrune.h"
#include "runtime/format/TopTwoOfFour.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <numeric>

namespace stc::format {

//===----------------------------------------------------------------------===//
// Channel permutation search
//===----------------------------------------------------------------------===//

namespace {

/// SplitMix64 (Steele et al.): small, fast and fully specified, unlike the
/// standard library's distributions, whose output differs between library
/// implementations; a seed must give the same permutation everywhere.
class SplitMix64 {
public:
  explicit SplitMix64(uint64_t seed) : state(seed) {}
  uint64_t next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, bound), bound > 0 (the modulo bias, below 2^-30 for the
  /// bounds used here, does not matter for a search).
  uint64_t below(uint64_t bound) { return next() % bound; }

private:
  uint64_t state;
};

/// Rows are processed in blocks of kLanes independent float accumulators
/// (the loop the compiler vectorises); the column buffers are padded with
/// zero rows to a multiple of it.
constexpr int64_t kLanes = 8;
/// Float accumulators are flushed into a double every kChunkRows rows, so
/// each lane adds at most kChunkRows / kLanes values in float.
constexpr int64_t kChunkRows = 512;
/// One round of the search: this many row x subset kept-sum evaluations
/// (about 15 ms on one current x86 core).  Counting work rather than time
/// makes options.maxRounds a bound that gives reproducible results.
constexpr double kWorkPerRound = double(1 << 25);
/// Work of one scan of a group's partners; when trying every other group
/// would cost more, the scan tries a random sample of partners instead, with
/// the cheaper single-swap moves.
constexpr double kWorkPerScan = double(1 << 24);
/// Random column swaps of one escape move.  Measured on random matrices
/// (64x128 to 256x256 and Apex's 128x64), 2 escapes best; 1 to 4 are
/// within 1% efficacy of it.
constexpr int kKickSwaps = 2;
/// A local optimum reached after an escape becomes the new starting point
/// when it is at most this fraction of a mean group's kept sum worse than the
/// previous one (else the search goes back): a little drift explores more
/// (+0.1 to 0.3% efficacy over accepting only non-worse optima).
constexpr double kAcceptSlack = 0.003;
/// Escapes in a row that find no better optimum before the search stops.
constexpr int kMaxFruitlessKicks = 1000;

/// Kept magnitude of one row of a group (the group's M columns `cols`).
template <int M>
inline float keptOfRow(const float *const *cols, int64_t r) {
  if constexpr (M == 4)
    return topTwoOfFour(cols[0][r], cols[1][r], cols[2][r], cols[3][r]);
  else
    return std::max(cols[0][r], cols[1][r]);
}

/// Kept magnitude of a group over `paddedRows` rows (a multiple of kLanes),
/// accumulated in float lanes: fast, with a relative error of about 1e-7,
/// good enough to rank candidate moves (an accepted move is confirmed with
/// keptSumExact).
template <int M>
double keptSumFast(const float *const *columns, int64_t paddedRows) {
  const float *cols[M];
  for (int j = 0; j < M; ++j)
    cols[j] = columns[j];
  double total = 0;
  for (int64_t chunk = 0; chunk < paddedRows; chunk += kChunkRows) {
    float acc[kLanes] = {};
    const int64_t end = std::min(paddedRows, chunk + kChunkRows);
    for (int64_t r = chunk; r < end; r += kLanes)
    // Unrolled, the lanes stay in registers (else GCC keeps them in
    // memory, a store-to-load chain that halves the speed).
#pragma GCC unroll 8
      for (int64_t l = 0; l < kLanes; ++l)
        acc[l] += keptOfRow<M>(cols, r + l);
    for (int64_t l = 0; l < kLanes; ++l)
      total += double(acc[l]);
  }
  return total;
}

/// Kept magnitude of a group in double (the kept values are floats, so each
/// row's kept sum is exact).
template <int M>
double keptSumExact(const float *const *cols, int64_t rows) {
  double total = 0;
  for (int64_t r = 0; r < rows; ++r) {
    if constexpr (M == 4)
      total +=
          topTwoOfFourExact(cols[0][r], cols[1][r], cols[2][r], cols[3][r]);
    else
      total += double(std::max(cols[0][r], cols[1][r]));
  }
  return total;
}

/// Sum over `paddedRows` rows (a multiple of kLanes) of max(0, y - t), in
/// float lanes like keptSumFast: what column y adds to a group of M - 1
/// columns whose N-th largest value is t.
double hingeSumFast(const float *y, const float *t, int64_t paddedRows) {
  double total = 0;
  for (int64_t chunk = 0; chunk < paddedRows; chunk += kChunkRows) {
    float acc[kLanes] = {};
    const int64_t end = std::min(paddedRows, chunk + kChunkRows);
    for (int64_t r = chunk; r < end; r += kLanes)
#pragma GCC unroll 8
      for (int64_t l = 0; l < kLanes; ++l)
        acc[l] += std::max(0.0f, y[r + l] - t[r + l]);
    for (int64_t l = 0; l < kLanes; ++l)
      total += double(acc[l]);
  }
  return total;
}

/// Ways to deal the columns of a window of `groups` groups of M back into
/// groups of M.  The window's columns are numbered by position ("items":
/// group i holds items i*M .. i*M+M-1).
struct WindowTable {
  int groups = 0;
  /// The item subsets that the partitions use, as bit masks and as lists.
  std::vector<uint16_t> subsetMasks;
  std::vector<std::array<uint8_t, 4>> subsetItems;
  /// Partitions, `groups` subset indices each; subset i of a partition goes
  /// to window group i.  The first subset of every partition holds item 0,
  /// and the first partition is the current assignment (so on a tie the
  /// columns stay where they are).
  std::vector<uint16_t> partitions;
};

/// All partitions of a window of `groups` groups of m columns.
WindowTable makeWindowTable(int m, int groups) {
  const int items = m * groups;
  const unsigned all = (1u << items) - 1;
  std::vector<uint16_t> masks;
  std::vector<int> indexOfMask(size_t(all) + 1, -1);
  for (unsigned mask = 0; mask <= all; ++mask)
    if (__builtin_popcount(mask) == m) {
      indexOfMask[mask] = int(masks.size());
      masks.push_back(uint16_t(mask));
    }
  // Depth-first: the lowest unassigned item joins every (m-1)-subset of the
  // other unassigned items, in increasing mask order, so the identity comes
  // first.
  std::vector<std::vector<unsigned>> partitions;
  std::vector<unsigned> current;
  auto deal = [&](auto &&self, unsigned remaining) -> void {
    if (remaining == 0) {
      partitions.push_back(current);
      return;
    }
    unsigned lowest = remaining & (0u - remaining);
    unsigned rest = remaining & ~lowest;
    unsigned sub = 0; // Submasks of `rest` in increasing order.
    do {
      if (__builtin_popcount(sub) == m - 1) {
        current.push_back(sub | lowest);
        self(self, rest & ~sub);
        current.pop_back();
      }
      sub = (sub - rest) & rest;
    } while (sub != 0);
  };
  deal(deal, all);

  WindowTable t;
  t.groups = groups;
  std::vector<int> subsetIndex(masks.size(), -1);
  for (const std::vector<unsigned> &partition : partitions)
    for (unsigned mask : partition) {
      int &index = subsetIndex[size_t(indexOfMask[mask])];
      if (index < 0) {
        index = int(t.subsetMasks.size());
        t.subsetMasks.push_back(uint16_t(mask));
        std::array<uint8_t, 4> list{};
        for (int i = 0, n = 0; i < items; ++i)
          if ((mask >> i) & 1)
            list[size_t(n++)] = uint8_t(i);
        t.subsetItems.push_back(list);
      }
      t.partitions.push_back(uint16_t(index));
    }
  return t;
}

/// The search for groups of M (2:4: M = 4, 1:2: M = 2).
template <int M>
class PermutationSearch {
public:
  PermutationSearch(View2D<const float> magnitudes,
                    const PermutationSearchOptions &options)
      : options(options), rng(options.seed), rows(magnitudes.rows),
        k(magnitudes.cols), groups((k + M - 1) / M),
        paddedRows((rows + kLanes - 1) / kLanes * kLanes),
        columns(size_t(groups * M * paddedRows), 0.0f),
        slots(size_t(groups * M)), groupSums(size_t(groups), 0.0),
        look(size_t(groups), 1), swapCacheStale(size_t(groups), 1) {
    // Column-major copy so that the row loops read contiguous memory.
    // Columns k.. (the padding of the last group) stay zero.  Non-finite
    // magnitudes would make every sum they enter inf or NaN and hide all
    // differences: the search treats them as 0.
    for (int64_t c = 0; c < k; ++c)
      for (int64_t r = 0; r < rows; ++r) {
        float v = std::fabs(magnitudes.at(r, c));
        columns[size_t(c * paddedRows + r)] = std::isfinite(v) ? v : 0.0f;
      }
    std::iota(slots.begin(), slots.end(), int64_t(0));
    for (int64_t g = 0; g < groups; ++g)
      groupSums[size_t(g)] = exactGroupSum(&slots[size_t(g * M)]);
    total = std::accumulate(groupSums.begin(), groupSums.end(), 0.0);
  }

  /// Runs the search; returns the best slot assignment (slot i holds column
  /// slots[i]; slots k.. hold the padding) and sets rounds.
  std::vector<int64_t> run(int &rounds);

private:
  /// Every way to deal two groups (35 for 2:4).
  static const WindowTable &pairMoves() {
    static const WindowTable table = makeWindowTable(M, 2);
    return table;
  }
  /// Every way to deal three groups (5775 for 2:4), used when there are
  /// exactly three: the search is then exhaustive.
  static const WindowTable &tripleMoves() {
    static const WindowTable table = makeWindowTable(M, 3);
    return table;
  }

  const float *columnData(int64_t column) const {
    return columns.data() + column * paddedRows;
  }

  double exactGroupSum(const int64_t *groupSlots) const {
    const float *cols[M];
    for (int j = 0; j < M; ++j)
      cols[j] = columnData(groupSlots[j]);
    return keptSumExact<M>(cols, rows);
  }

  /// Number of padding columns in group g (only the last group has any).
  int paddingIn(int64_t g) const {
    return int(std::max<int64_t>(0, (g + 1) * M - k));
  }

  /// True once the round bound is reached.
  bool shouldStop() const {
    return work >= double(options.maxRounds) * kWorkPerRound;
  }

  /// A random group other than `a`.
  int64_t otherGroup(int64_t a) {
    int64_t b = int64_t(rng.below(uint64_t(groups - 1)));
    return b + (b >= a);
  }

  /// Fisher-Yates with the search's own generator.
  void shuffle(std::vector<int64_t> &list) {
    for (size_t i = list.size(); i > 1; --i)
      std::swap(list[i - 1], list[size_t(rng.below(i))]);
  }

  /// Group g's columns changed: its pairs must be scanned again and its
  /// swap cache recomputed.
  void groupChanged(int64_t g) {
    look[size_t(g)] = 1;
    swapCacheStale[size_t(g)] = 1;
  }

  void countWork(double amount);
  bool improveWindow(const int64_t *windowGroups, const WindowTable &table);
  void refreshSwapCache(int64_t g);
  bool improveBySwap(int64_t a, int64_t b);
  void scanPartners(int64_t a);
  void kick();

  const PermutationSearchOptions &options;
  SplitMix64 rng;
  const int64_t rows, k, groups, paddedRows;
  /// Column-major magnitudes, paddedRows per column, groups*M columns.
  std::vector<float> columns;
  /// The current assignment: slot i (of group i / M) holds column slots[i].
  std::vector<int64_t> slots;
  /// Kept magnitude of each group (exact) and their sum.
  std::vector<double> groupSums;
  double total = 0;
  /// "Don't look" bits: look[g] is 0 while no pair (g, other) can improve,
  /// that is from a scan of g's partners that found nothing until g or a
  /// partner changes.  (Exact when scans try every partner.)
  std::vector<uint8_t> look;
  /// For single swaps, per slot s of group g: the group without slot s
  /// keeps swapBase[s] over all rows, and a column y put in its place adds
  /// max(0, y - threshold) row by row, threshold being row r of
  /// swapThresholds[s * paddedRows + r] (the N-th largest of the others).
  /// Recomputed when the group changes.
  std::vector<float> swapThresholds;
  std::vector<double> swapBase;
  std::vector<uint8_t> swapCacheStale;
  std::vector<double> subsetSums;
  /// Row x subset evaluations so far.
  double work = 0;
  int roundsReported = 0;
};

template <int M>
void PermutationSearch<M>::countWork(double amount) {
  work += amount;
  int rounds = int(work / kWorkPerRound);
  if (rounds <= roundsReported)
    return;
  roundsReported = rounds;
  if (!options.progress)
    return;
  double done =
      options.maxRounds > 0 ? double(rounds) / double(options.maxRounds) : 1;
  options.progress(std::min(1.0, done));
}

/// Deals the columns of the window's groups in the best of the table's
/// ways; true if that improved the kept sum (confirmed in double) and was
/// applied.
template <int M>
bool PermutationSearch<M>::improveWindow(const int64_t *windowGroups,
                                         const WindowTable &table) {
  const int w = table.groups;
  // The group with padding columns (if any) comes first, its padding items
  // first: item 0 is then a padding item, partitions put item 0 in their
  // first subset, and requiring that subset to hold every padding item keeps
  // the padding in its group, at the end of the permutation.
  int64_t order[3];
  std::copy(windowGroups, windowGroups + w, order);
  for (int i = 1; i < w; ++i)
    if (paddingIn(order[i]) > 0)
      std::swap(order[0], order[i]);
  const int padding = paddingIn(order[0]);
  const unsigned paddingMask = (1u << padding) - 1;

  int64_t itemColumn[3 * M];
  const float *itemData[3 * M];
  for (int i = 0; i < w; ++i)
    for (int j = 0; j < M; ++j) {
      // Group 0 lists its padding slots (the last ones) first.
      int slotInGroup = i == 0 ? (j + M - padding) % M : j;
      itemColumn[i * M + j] = slots[size_t(order[i] * M + slotInGroup)];
      itemData[i * M + j] = columnData(itemColumn[i * M + j]);
    }

  const size_t subsets = table.subsetMasks.size();
  subsetSums.resize(subsets);
  for (size_t s = 0; s < subsets; ++s) {
    const float *cols[M];
    for (int j = 0; j < M; ++j)
      cols[j] = itemData[table.subsetItems[s][size_t(j)]];
    subsetSums[s] = keptSumFast<M>(cols, paddedRows);
  }
  countWork(double(subsets) * double(paddedRows));

  const size_t partitions = table.partitions.size() / size_t(w);
  auto score = [&](size_t p) {
    double sum = 0;
    for (int i = 0; i < w; ++i)
      sum += subsetSums[table.partitions[p * size_t(w) + size_t(i)]];
    return sum;
  };
  const double current = score(0);
  size_t best = 0;
  double bestScore = current;
  for (size_t p = 1; p < partitions; ++p) {
    const uint16_t *part = &table.partitions[p * size_t(w)];
    if ((table.subsetMasks[part[0]] & paddingMask) != paddingMask)
      continue;
    double s = score(p);
    if (s > bestScore) {
      bestScore = s;
      best = p;
    }
  }
  // Below this margin the float sums cannot tell a move from rounding.
  if (best == 0 || !(bestScore > current * (1 + 1e-6)))
    return false;

  // Confirm in double, then apply.
  int64_t newSlots[3][M];
  double oldSum = 0, newSum = 0, newGroupSums[3];
  for (int i = 0; i < w; ++i) {
    const auto &items =
        table.subsetItems[table.partitions[best * size_t(w) + size_t(i)]];
    // Group 0 receives the padding items last (they must stay in slots
    // k..): items are listed increasing, padding items being the lowest.
    for (int j = 0; j < M; ++j)
      newSlots[i][j] =
          itemColumn[items[size_t(i == 0 ? (j + padding) % M : j)]];
    newGroupSums[i] = exactGroupSum(newSlots[i]);
    oldSum += groupSums[size_t(order[i])];
    newSum += newGroupSums[i];
  }
  if (!(newSum > oldSum))
    return false;
  for (int i = 0; i < w; ++i) {
    std::copy(newSlots[i], newSlots[i] + M, &slots[size_t(order[i] * M)]);
    groupSums[size_t(order[i])] = newGroupSums[i];
    groupChanged(order[i]);
  }
  total += newSum - oldSum;
  return true;
}

template <int M>
void PermutationSearch<M>::refreshSwapCache(int64_t g) {
  if (swapThresholds.empty()) {
    swapThresholds.assign(size_t(groups * M * paddedRows), 0.0f);
    swapBase.assign(size_t(groups * M), 0.0);
  }
  const float *cols[M];
  for (int j = 0; j < M; ++j)
    cols[j] = columnData(slots[size_t(g * M + j)]);
  for (int j = 0; j < M; ++j) {
    const float *others[M - 1];
    for (int i = 0, n = 0; i < M; ++i)
      if (i != j)
        others[n++] = cols[i];
    float *threshold = &swapThresholds[size_t((g * M + j) * paddedRows)];
    // Float lanes as in keptSumFast (the gains are confirmed in double).
    double base = 0;
    for (int64_t chunk = 0; chunk < paddedRows; chunk += kChunkRows) {
      float acc[kLanes] = {};
      const int64_t end = std::min(paddedRows, chunk + kChunkRows);
      for (int64_t r0 = chunk; r0 < end; r0 += kLanes)
#pragma GCC unroll 8
        for (int64_t l = 0; l < kLanes; ++l) {
          const int64_t r = r0 + l;
          if constexpr (M == 4) {
            // Of three values: the second largest is the median, and the
            // two largest sum to all three minus the smallest.
            float p = others[0][r], q = others[1][r], s = others[2][r];
            float lo = std::min(p, q), hi = std::max(p, q);
            threshold[r] = std::max(lo, std::min(hi, s));
            acc[l] += hi + std::max(lo, s);
          } else {
            threshold[r] = others[0][r];
            acc[l] += others[0][r];
          }
        }
      for (int64_t l = 0; l < kLanes; ++l)
        base += double(acc[l]);
    }
    swapBase[size_t(g * M + j)] = base;
  }
  swapCacheStale[size_t(g)] = 0;
}

/// Applies the best single swap of a column of group a with a column of
/// group b, if it improves the kept sum (confirmed in double).  Costs two
/// hinge sums per candidate swap instead of two kept sums of M columns.
template <int M>
bool PermutationSearch<M>::improveBySwap(int64_t a, int64_t b) {
  for (int64_t g : {a, b})
    if (swapCacheStale[size_t(g)])
      refreshSwapCache(g);
  const int realA = M - paddingIn(a), realB = M - paddingIn(b);
  double bestGain = 0;
  int bestA = -1, bestB = -1;
  const double current = groupSums[size_t(a)] + groupSums[size_t(b)];
  for (int ja = 0; ja < realA; ++ja) {
    const int64_t sa = a * M + ja;
    const float *x = columnData(slots[size_t(sa)]);
    for (int jb = 0; jb < realB; ++jb) {
      const int64_t sb = b * M + jb;
      const float *y = columnData(slots[size_t(sb)]);
      double gain = swapBase[size_t(sa)] +
                    hingeSumFast(y, &swapThresholds[size_t(sa * paddedRows)],
                                 paddedRows) +
                    swapBase[size_t(sb)] +
                    hingeSumFast(x, &swapThresholds[size_t(sb * paddedRows)],
                                 paddedRows) -
                    current;
      if (gain > bestGain) {
        bestGain = gain;
        bestA = ja;
        bestB = jb;
      }
    }
  }
  countWork(2.0 * realA * realB * double(paddedRows));
  // Below this margin the float sums cannot tell a move from rounding.
  if (bestA < 0 || !(bestGain > current * 1e-6))
    return false;
  const size_t sa = size_t(a * M + bestA), sb = size_t(b * M + bestB);
  std::swap(slots[sa], slots[sb]);
  double newA = exactGroupSum(&slots[size_t(a * M)]);
  double newB = exactGroupSum(&slots[size_t(b * M)]);
  if (!(newA + newB > current)) {
    std::swap(slots[sa], slots[sb]);
    return false;
  }
  total += newA + newB - current;
  groupSums[size_t(a)] = newA;
  groupSums[size_t(b)] = newB;
  groupChanged(a);
  groupChanged(b);
  return true;
}

/// Tries group a with every other group, in a random order, dealing each
/// pair in the best of all ways; where that would cost more than
/// kWorkPerScan, with single swaps only; where that still would, single
/// swaps with a random sample of partners.
template <int M>
void PermutationSearch<M>::scanPartners(int64_t a) {
  look[size_t(a)] = 0;
  const double dealCost =
      double(pairMoves().subsetMasks.size()) * double(paddedRows);
  const double swapCost = 2.0 * M * M * double(paddedRows);
  const bool deal = double(groups - 1) * dealCost <= kWorkPerScan;
  std::vector<int64_t> partners;
  if (deal || double(groups - 1) * swapCost <= kWorkPerScan) {
    for (int64_t b = 0; b < groups; ++b)
      if (b != a)
        partners.push_back(b);
    shuffle(partners);
  } else {
    int64_t samples = std::max<int64_t>(1, int64_t(kWorkPerScan / swapCost));
    for (int64_t i = 0; i < samples; ++i)
      partners.push_back(otherGroup(a));
  }
  for (int64_t b : partners) {
    if (shouldStop())
      return;
    int64_t window[2] = {a, b};
    if (deal)
      improveWindow(window, pairMoves());
    else
      improveBySwap(a, b);
  }
}

/// Escape from a local optimum: swaps a random column between random pairs
/// of groups, whatever that costs.
template <int M>
void PermutationSearch<M>::kick() {
  for (int i = 0; i < kKickSwaps; ++i) {
    int64_t window[2];
    window[0] = int64_t(rng.below(uint64_t(groups)));
    window[1] = otherGroup(window[0]);
    int64_t slot[2];
    for (int j = 0; j < 2; ++j)
      slot[j] = window[j] * M +
                int64_t(rng.below(uint64_t(M - paddingIn(window[j]))));
    std::swap(slots[size_t(slot[0])], slots[size_t(slot[1])]);
    for (int64_t g : window) {
      double sum = exactGroupSum(&slots[size_t(g * M)]);
      total += sum - groupSums[size_t(g)];
      groupSums[size_t(g)] = sum;
      groupChanged(g);
    }
  }
}

template <int M>
std::vector<int64_t> PermutationSearch<M>::run(int &rounds) {
  // The best local optimum seen, and the one the next escape starts from.
  std::vector<int64_t> bestSlots = slots, homeSlots = slots;
  std::vector<double> homeGroupSums = groupSums;
  double bestTotal = total, homeTotal = total;
  int fruitlessKicks = 0;
  std::vector<int64_t> queue;
  while (groups >= 2 && !shouldStop()) {
    // Scan the groups whose look bit is set, in a random order, until none
    // is: a local optimum for pair moves.
    queue.clear();
    for (int64_t g = 0; g < groups; ++g)
      if (look[size_t(g)])
        queue.push_back(g);
    if (!queue.empty()) {
      shuffle(queue);
      for (int64_t a : queue)
        if (look[size_t(a)] && !shouldStop())
          scanPartners(a);
      continue;
    }
    if (groups == 3) {
      const int64_t all[3] = {0, 1, 2};
      if (improveWindow(all, tripleMoves()))
        continue;
    }
    if (total > bestTotal) {
      bestSlots = slots;
      bestTotal = total;
      fruitlessKicks = 0;
    } else {
      ++fruitlessKicks;
    }
    // With two or three groups the moves were exhaustive: this is the
    // global optimum.
    if (groups <= 3 || fruitlessKicks >= kMaxFruitlessKicks)
      break;
    if (total >= homeTotal - kAcceptSlack * bestTotal / double(groups)) {
      homeSlots = slots;
      homeGroupSums = groupSums;
      homeTotal = total;
    } else {
      // Every group of the home assignment was at a local optimum: no look
      // bit needs setting.
      slots = homeSlots;
      groupSums = homeGroupSums;
      total = homeTotal;
      std::fill(swapCacheStale.begin(), swapCacheStale.end(), 1);
    }
    kick();
  }
  if (total > bestTotal)
    bestSlots = slots;
  // The last window may overshoot the bound by a sliver of a round.
  rounds = int(std::min(double(std::max(options.maxRounds, 0)),
                        std::ceil(work / kWorkPerRound)));
  return bestSlots;
}

} // namespace

PermutationSearchResult
searchChannelPermutation(View2D<const float> magnitudes, NMPattern p,
                         const PermutationSearchOptions &options) {
  const auto start = std::chrono::steady_clock::now();
  PermutationSearchResult result;
  const int64_t k = std::max<int64_t>(magnitudes.cols, 0);
  result.perm.resize(size_t(k));
  std::iota(result.perm.begin(), result.perm.end(), int64_t(0));
  if (!p.isSupported())
    return result;
  result.totalMagnitude = totalMagnitude(magnitudes);
  result.keptIdentity = keptMagnitudeStrip(magnitudes, p);
  result.keptPermuted = result.keptIdentity;
  if (magnitudes.rows > 0 && k > 0) {
    std::vector<int64_t> slots;
    if (p == kPattern24) {
      PermutationSearch<4> search(magnitudes, options);
      slots = search.run(result.rounds);
    } else {
      PermutationSearch<2> search(magnitudes, options);
      slots = search.run(result.rounds);
    }
    std::vector<int64_t> perm(slots.begin(), slots.begin() + k);
    double kept = keptMagnitudeStrip(magnitudes, p, perm);
    // The search's sums are taken in another order: accept only a
    // permutation that is better when measured the canonical way.
    if (kept > result.keptIdentity) {
      result.perm = std::move(perm);
      result.keptPermuted = kept;
    }
  }
  const double won = result.keptPermuted - result.keptIdentity;
  const double lost = result.totalMagnitude - result.keptIdentity;
  if (lost > 0)
    result.recoveredFraction = won / lost;
  result.keptRowBound = keptMagnitudeRowBound(magnitudes, p);
  const double winnable = result.keptRowBound - result.keptIdentity;
  if (winnable > 0)
    result.efficacy = won / winnable;
  result.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  if (options.progress)
    options.progress(1.0);
  return result;
}

} // namespace stc::format
