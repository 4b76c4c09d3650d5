//===- StcPrune.h - pruning methods that keep accuracy ----------*- C++ -*-===//
//
// Pruning methods beyond plain magnitude `strip` pruning (StcFormat.h), free
// of any MLIR/LLVM dependency so that the compiler's folders, the run-time
// library and the `stc-prune` tool share one implementation:
//
//   * tile:    in every 4x4 tile (4 rows x 4 reduction columns) keep exactly
//              two elements per row and two per column, maximising the kept
//              L1 magnitude exactly (the 90 such masks are enumerated), so
//              that both the matrix and its transpose are 2:4;
//   * channel permutation search (Pool & Yu, NeurIPS 2021): find a
//              permutation of the reduction columns under which strip pruning
//              keeps more magnitude.  Deterministic for a seed, bounded in
//              time.
//
// Views follow StcFormat.h: `rows` is the non-reduction dimension, `cols` the
// reduction dimension K along which the 2:4 groups run.  pruneTile and
// pruneWithMethod are instantiated for the storage types of StcFormat.h:
// float, uint16_t (f16/bf16 bits) and int8_t (i8, magnitudeS8).
//
//===----------------------------------------------------------------------===//

#ifndef STC_RUNTIME_FORMAT_STCPRUNE_H
#define STC_RUNTIME_FORMAT_STCPRUNE_H

#include "runtime/format/StcFormat.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace stc::format {

/// How the kept elements are chosen.
enum class PruneMethod {
  /// The p.n largest magnitudes of every 1 x p.m group (StcFormat.h prune).
  Strip,
  /// Exactly 2 per row and 2 per column of every 4x4 tile, maximum L1 (2:4
  /// only).
  Tile,
};

/// "strip" / "tile".
const char *pruneMethodName(PruneMethod method);
/// Parses "strip" / "tile"; none for anything else.
std::optional<PruneMethod> parsePruneMethod(const std::string &name);

//===----------------------------------------------------------------------===//
// Transposable 4x4 tile pruning
//===----------------------------------------------------------------------===//

/// The 90 4x4 masks with exactly two ones per row and per column.  Mask bit
/// 4*r + c is row r, column c of the tile.  Sorted increasingly.
const std::vector<uint16_t> &transposableTileMasks();

/// Tile pruning: for every 4x4 tile (rows 4i..4i+3, columns 4j..4j+3) keeps
/// the mask of transposableTileMasks() with the largest sum of `mag` over its
/// kept elements; on equal sums the first mask in that order wins (so the
/// result is deterministic).  Sums are taken in double (exact unless a tile's
/// magnitudes span more than about 2^26).  NaN magnitudes outrank every
/// other and +inf every finite one, as in strip pruning: a tile holding
/// either maximises (NaNs kept, +infs kept, sum of the rest) in that order.
/// Rows and columns beyond the view (ragged edges) count as zeros.  Pruned
/// elements become +0, kept ones are copied bit-exactly.  `out` must have in's
/// shape (or nothing is done and false is returned); it may be the same view as
/// `in`.  The result satisfies 2:4 along the columns and, for every complete
/// group of 4 rows, along the rows.
template <typename T>
bool pruneTile(InView<T> in, View2D<T> out, MagnitudeFn<T> mag);

/// Dispatches on `method`: Strip calls prune(in, out, p, mag); Tile requires
/// p == kPattern24 (returns false otherwise) and calls pruneTile.
template <typename T>
bool pruneWithMethod(InView<T> in, View2D<T> out, NMPattern p,
                     PruneMethod method, MagnitudeFn<T> mag);

//===----------------------------------------------------------------------===//
// Kept magnitude
//===----------------------------------------------------------------------===//

/// Sum of |x| over the whole view (float64 accumulation).
double totalMagnitude(View2D<const float> magnitudes);

/// Sum of magnitudes kept by strip pruning of `magnitudes` (non-negative,
/// rows x K) with pattern p, the columns taken in the order `perm`
/// (permuted column i = original column perm[i]); an empty `perm` is the
/// identity.  A K that is not a multiple of p.m is padded with zeros.
/// NaN if p is not supported or perm is neither empty nor a permutation of
/// 0..K-1.
double keptMagnitudeStrip(View2D<const float> magnitudes, NMPattern p,
                          const std::vector<int64_t> &perm = {});

/// Upper bound of the magnitude that strip pruning keeps under any column
/// permutation: per row, the sum of its p.n * groups largest magnitudes
/// (groups = ceil(K / p.m)), i.e. the best pruning that keeps the same number
/// of elements per row with no structure.  NaN if p is not supported.
double keptMagnitudeRowBound(View2D<const float> magnitudes, NMPattern p);

//===----------------------------------------------------------------------===//
// Channel permutation search
//===----------------------------------------------------------------------===//

struct PermutationSearchOptions {
  /// Seed of every random choice: the same inputs, seed and options give the
  /// same permutation, on any machine and under any load.
  uint64_t seed = 0;
  /// Upper bound on improvement rounds.  A round is a fixed amount of
  /// evaluation work (2^25 row x candidate-group kept sums, about 15 ms on
  /// one current x86 core, whatever the matrix size), so this bounds the
  /// search by its work rather than by time: there is deliberately no
  /// wall-clock budget, which would make the permutation depend on the
  /// machine's speed (docs/RELIABILITY.md, "Determinism").  <= 0: no search.
  int maxRounds = 1000;
  /// Called now and then with the fraction done in [0, 1] (for progress
  /// bars); may be empty.
  std::function<void(double)> progress;
};

struct PermutationSearchResult {
  /// permuted[..., i] = original[..., perm[i]]; a true permutation of
  /// 0..K-1.
  std::vector<int64_t> perm;
  /// Total magnitude, and the magnitude kept by strip pruning without and
  /// with the permutation.
  double totalMagnitude = 0;
  double keptIdentity = 0;
  double keptPermuted = 0;
  /// Fraction of the magnitude lost by plain strip that the permutation won
  /// back: (keptPermuted - keptIdentity) / (total - keptIdentity); 0 when
  /// strip loses nothing.
  double recoveredFraction = 0;
  /// keptMagnitudeRowBound: no permutation keeps more.
  double keptRowBound = 0;
  /// The permutation's share of what any permutation could win back:
  /// (keptPermuted - keptIdentity) / (keptRowBound - keptIdentity); 0 when
  /// the identity reaches the bound.  This is the "efficacy" that Pool & Yu
  /// and NVIDIA Apex ASP's permutation_test.py report (their 32-37% on a
  /// random 128-row x 64-column matrix).
  double efficacy = 0;
  /// Wall-clock time of the search: a measurement only, which nothing in
  /// the result depends on.
  double seconds = 0;
  /// Rounds of work done (the last one possibly partial).
  int rounds = 0;
};

/// Searches a permutation of the K columns of `magnitudes` (non-negative,
/// rows x K) that maximises keptMagnitudeStrip.  Never returns a
/// permutation worse than the identity (as keptMagnitudeStrip measures it).
/// Requires p.isSupported() (else returns the identity).
///
/// An iterated local search: moves re-deal the columns of two groups in the
/// best possible way (all 35 ways for 2:4, or the 16 single swaps on large
/// matrices); only those two groups' kept sums change, so a move costs
/// O(rows).  Groups are scanned against their partners (all of them, or a
/// random sample when there are too many) until no move improves, then a
/// few random swaps escape the local optimum; the best optimum seen is
/// returned.  With K <= 3 * p.m the moves are exhaustive and the result is
/// optimal.  Non-finite magnitudes count as 0 during the search.
PermutationSearchResult
searchChannelPermutation(View2D<const float> magnitudes, NMPattern p,
                         const PermutationSearchOptions &options);

/// True if `perm` is a permutation of 0..size-1.
bool isPermutation(const std::vector<int64_t> &perm, int64_t size);

} // namespace stc::format

#endif // STC_RUNTIME_FORMAT_STCPRUNE_H
