//===- TopTwoOfFour.h - the kept sum of a group of four ---------*- C++ -*-===//
//
// The sum of the two largest of four magnitudes, which 2:4 pruning keeps: in
// float for the permutation search's row loops, and in double for the
// measures of StcPrune.h.  Shared by StcPrune.cpp and
// StcPermutationSearch.cpp; internal to the format library (not part of its
// API).
//
//===----------------------------------------------------------------------===//

#ifndef STC_RUNTIME_FORMAT_TOPTWOOFFOUR_H
#define STC_RUNTIME_FORMAT_TOPTWOOFFOUR_H

#include <algorithm>

namespace stc::format {

/// Sum of the two largest of four values.  Written with max/min only (no
/// branches) so that the search's row loops vectorise.
inline float topTwoOfFour(float a, float b, float c, float d) {
  float hi1 = std::max(a, b), lo1 = std::min(a, b);
  float hi2 = std::max(c, d), lo2 = std::min(c, d);
  return std::max(hi1, hi2) + std::max(std::min(hi1, hi2), std::max(lo1, lo2));
}

/// The same in double, from exactly the same selection (so that it is the
/// exact sum of the two kept values).
inline double topTwoOfFourExact(float a, float b, float c, float d) {
  float hi1 = std::max(a, b), lo1 = std::min(a, b);
  float hi2 = std::max(c, d), lo2 = std::min(c, d);
  return double(std::max(hi1, hi2)) +
         double(std::max(std::min(hi1, hi2), std::max(lo1, lo2)));
}

} // namespace stc::format

#endif // STC_RUNTIME_FORMAT_TOPTWOOFFOUR_H
