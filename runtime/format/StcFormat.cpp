//===- StcFormat.cpp - canonical N:M sparse format --------------*- C++ -*-===//
//
// Implementation of the canonical N:M format (see StcFormat.h): exact
// f16/bf16 bit conversions, nibble encoding, and prune / check / compress /
// decompress / decodeIndices over strided views, explicitly instantiated for
// the three storage types, float, uint16_t and int8_t.
//
// Longer than issue 24's 800 lines on purpose: it has one job, and its
// largest part, the fast 2:4 / 1:2 kernels, is templates that only prune,
// checkPattern and compress below instantiate.  Split off, they would be
// some 270 lines of templates in a header with this file as its only
// includer, tied to it by the magnitude order they must reproduce.
//
//===----------------------------------------------------------------------===//

#include "runtime/format/StcFormat.h"
#include "runtime/format/StcLimits.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <type_traits>

namespace stc::format {

//===----------------------------------------------------------------------===//
// Patterns and sizes
//===----------------------------------------------------------------------===//

int64_t paddedReduction(int64_t k, NMPattern p) {
  int64_t q = 4 * int64_t(p.m);
  if (k <= 0 || q <= 0)
    return 0;
  return (k + q - 1) / q * q;
}

int64_t valuesPerRow(int64_t k, NMPattern p) {
  if (p.m <= 0)
    return 0;
  return paddedReduction(k, p) / p.m * p.n;
}

int64_t metaWordsPerRow(int64_t k, NMPattern p) {
  if (p.m <= 0)
    return 0;
  return paddedReduction(k, p) / (4 * int64_t(p.m));
}

int64_t groupsPerRow(int64_t k, NMPattern p) {
  if (p.m <= 0)
    return 0;
  return paddedReduction(k, p) / p.m;
}

//===----------------------------------------------------------------------===//
// Metadata nibbles
//===----------------------------------------------------------------------===//

bool isLegalNibble(unsigned nibble, NMPattern p) {
  int idx[2];
  return decodeNibble(nibble, p, idx);
}

int encodeNibble(const int *idx, NMPattern p) {
  if (p.n == 2 && p.m == 4) {
    if (idx[0] < 0 || idx[0] >= idx[1] || idx[1] > 3)
      return -1;
    return idx[0] | (idx[1] << 2);
  }
  if (p.n == 1 && p.m == 2) {
    if (idx[0] == 0)
      return 0x4;
    if (idx[0] == 1)
      return 0xE;
    return -1;
  }
  return -1;
}

bool decodeNibble(unsigned nibble, NMPattern p, int *idx) {
  nibble &= 0xF;
  if (p.n == 2 && p.m == 4) {
    int i0 = nibble & 3, i1 = (nibble >> 2) & 3;
    if (i0 >= i1)
      return false;
    idx[0] = i0;
    idx[1] = i1;
    return true;
  }
  if (p.n == 1 && p.m == 2) {
    if (nibble == 0x4) {
      idx[0] = 0;
      return true;
    }
    if (nibble == 0xE) {
      idx[0] = 1;
      return true;
    }
  }
  return false;
}

//===----------------------------------------------------------------------===//
// Bit conversions
//===----------------------------------------------------------------------===//

static uint32_t bitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  return u;
}

static float floatOf(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
}

float f16ToFloat(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1F;
  uint32_t mant = h & 0x3FF;
  if (exp == 0) {
    // Zero or subnormal: mant * 2^-24, exact in float.
    float v = std::ldexp(float(mant), -24);
    return floatOf(bitsOf(v) | sign);
  }
  if (exp == 31)
    return floatOf(sign | 0x7F800000u | (mant << 13));
  return floatOf(sign | ((exp - 15 + 127) << 23) | (mant << 13));
}

uint16_t floatToF16(float value) {
  uint32_t x = bitsOf(value);
  uint16_t sign = uint16_t((x >> 16) & 0x8000);
  uint32_t ax = x & 0x7FFFFFFFu;
  if (ax >= 0x7F800000u) {
    if (ax == 0x7F800000u)
      return sign | 0x7C00;
    // NaN: keep the top payload bits, force quiet.
    return sign | 0x7E00 | uint16_t((ax >> 13) & 0x3FF);
  }
  int e = int(ax >> 23) - 127;
  if (e > 15)
    return sign | 0x7C00;
  if (e >= -14) {
    uint32_t mant = ax & 0x7FFFFF;
    uint32_t h = (uint32_t(e + 15) << 10) | (mant >> 13);
    uint32_t rem = mant & 0x1FFF;
    if (rem > 0x1000 || (rem == 0x1000 && (h & 1)))
      ++h; // May carry into the exponent, up to 0x7C00 (inf): correct.
    return sign | uint16_t(h);
  }
  if (e < -25)
    return sign;
  // Subnormal result: units of 2^-24.
  uint32_t m = (ax & 0x7FFFFF) | 0x800000;
  int shift = -e - 1; // 14..24
  uint32_t h = m >> shift;
  uint32_t rem = m & ((1u << shift) - 1);
  uint32_t half = 1u << (shift - 1);
  if (rem > half || (rem == half && (h & 1)))
    ++h;
  return sign | uint16_t(h);
}

float bf16ToFloat(uint16_t bits) { return floatOf(uint32_t(bits) << 16); }

uint16_t floatToBF16(float value) {
  uint32_t x = bitsOf(value);
  if ((x & 0x7FFFFFFFu) > 0x7F800000u)
    return uint16_t((x >> 16) | 0x40); // Quiet NaN.
  uint32_t rounding = 0x7FFF + ((x >> 16) & 1);
  return uint16_t((x + rounding) >> 16);
}

float magnitudeF32(float value) { return std::fabs(value); }
float magnitudeF16(uint16_t bits) { return std::fabs(f16ToFloat(bits)); }
float magnitudeBF16(uint16_t bits) { return std::fabs(bf16ToFloat(bits)); }
float magnitudeS8(int8_t value) {
  // In int: -(-128) = 128 does not overflow.
  int v = value;
  return float(v < 0 ? -v : v);
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

namespace {

/// a > b in magnitude order, NaN being the largest.
bool magGreater(float a, float b) {
  bool an = std::isnan(a), bn = std::isnan(b);
  if (an || bn)
    return an && !bn;
  return a > b;
}

bool isNonZero(float mag) { return !(mag == 0.0f); }

/// Picks the n largest of mags[0..m) (lower index wins ties), increasing.
void selectTopN(const float *mags, int m, int n, int *idx) {
  bool taken[4] = {false, false, false, false};
  for (int k = 0; k < n; ++k) {
    int best = -1;
    for (int j = 0; j < m; ++j)
      if (!taken[j] && (best < 0 || magGreater(mags[j], mags[best])))
        best = j;
    taken[best] = true;
  }
  int c = 0;
  for (int j = 0; j < m; ++j)
    if (taken[j])
      idx[c++] = j;
}

template <typename T>
void zeroFill(View2D<T> v) {
  if (!v.data || v.rows <= 0 || v.cols <= 0)
    return;
  for (int64_t r = 0; r < v.rows; ++r)
    for (int64_t c = 0; c < v.cols; ++c)
      v.at(r, c) = T{};
}

std::string patternName(NMPattern p) {
  return std::to_string(p.n) + ":" + std::to_string(p.m);
}

Status unsupported(NMPattern p) {
  Status s;
  s.code = ErrorCode::UnsupportedPattern;
  s.message = "unsupported sparsity pattern " + patternName(p) +
              " (supported: 2:4, 1:2)";
  return s;
}

template <typename A>
bool checkShape(const char *what, const View2D<A> &v, int64_t rows,
                int64_t cols, Status &s) {
  if (v.rows == rows && v.cols == cols && (v.data || rows == 0 || cols == 0))
    return true;
  s.code = ErrorCode::ShapeMismatch;
  s.message = std::string(what) + " has shape " + std::to_string(v.rows) + "x" +
              std::to_string(v.cols) + ", expected " + std::to_string(rows) +
              "x" + std::to_string(cols);
  return false;
}

Status illegalNibble(NMPattern p, int64_t row, int64_t group, unsigned nibble) {
  Status s;
  s.code = ErrorCode::IllegalNibble;
  s.row = row;
  s.group = group;
  s.nibble = nibble;
  char hex[8];
  std::snprintf(hex, sizeof(hex), "0x%X", nibble);
  s.message = std::string("illegal ") + patternName(p) + " metadata nibble " +
              hex + " at row " + std::to_string(row) + ", group " +
              std::to_string(group);
  return s;
}

//===----------------------------------------------------------------------===//
// Fast paths: the built-in magnitudes, 2:4 and 1:2
//===----------------------------------------------------------------------===//
//
// For the built-in float magnitude functions, the magnitude order equals the
// order of an integer key taken from the element's bits: the bits without
// the sign, every NaN mapped to one value (all ones) above +inf.  So -0
// and +0 are equal (key 0, the only zero key), all NaNs are equal and larger
// than everything else, and f16/bf16 need no conversion (their widening to
// float is exact and monotone in these bits).  For int8_t the key is |x| in
// int (0..128), which is magnitudeS8 exactly.  This is exactly the order of
// magGreater() and the non-zero test of the generic path, in the default
// floating-point environment (with denormals-are-zero set, the generic path
// would see f32/bf16 subnormals as zeros; the keys never do).
//
// The kernels select with fixed comparisons (no calls, no allocation) and
// visit groups in the generic order, reading a whole group before writing
// it, so in-place pruning behaves the same.  Strided views are handled too;
// `Contig` specialises the common case of unit column strides.

enum class KeyKind { F32, F16, BF16, S8 };

template <KeyKind K>
struct KeyTraits;
template <>
struct KeyTraits<KeyKind::F32> {
  using Bits = uint32_t;
  static constexpr uint32_t kAbs = 0x7FFFFFFFu, kInf = 0x7F800000u;
};
template <>
struct KeyTraits<KeyKind::F16> {
  using Bits = uint16_t;
  static constexpr uint32_t kAbs = 0x7FFFu, kInf = 0x7C00u;
};
template <>
struct KeyTraits<KeyKind::BF16> {
  using Bits = uint16_t;
  static constexpr uint32_t kAbs = 0x7FFFu, kInf = 0x7F80u;
};

/// The element's bits without the sign.
template <KeyKind K, typename T>
inline uint32_t absBits(T value) {
  using Traits = KeyTraits<K>;
  static_assert(sizeof(T) == sizeof(typename Traits::Bits), "storage size");
  typename Traits::Bits bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return uint32_t(bits) & Traits::kAbs;
}

/// The magnitude key: the bits without the sign, every NaN (bits above
/// +inf) mapped to all ones (kAbs); for S8, |x| (0..128).  Keys are < 2^31,
/// so they compare as int32, which vectorises better without SSE4.
template <KeyKind K, typename T>
inline int32_t magnitudeKey(T value) {
  if constexpr (K == KeyKind::S8) {
    static_assert(std::is_same_v<T, int8_t>, "S8 keys are int8_t");
    int32_t v = value;
    return v < 0 ? -v : v;
  } else {
    uint32_t a = absBits<K>(value);
    uint32_t nan = 0u - uint32_t(a > KeyTraits<K>::kInf);
    return int32_t(a | (nan & KeyTraits<K>::kAbs));
  }
}

/// The non-zero test: the magnitude is not 0 (NaN bits are non-zero).
template <KeyKind K, typename T>
inline bool isNonZeroBits(T value) {
  if constexpr (K == KeyKind::S8)
    return value != 0;
  else
    return absBits<K>(value) != 0;
}

/// Bit j set when element j of the group is kept: the N largest keys, the
/// lower index winning ties.  An element is kept when fewer than N others
/// beat it; i < j beats j iff key[i] >= key[j], i > j beats j iff
/// key[i] > key[j].
template <int N, int M>
inline unsigned keptMask(const int32_t *key) {
  if constexpr (M == 2) {
    unsigned first = key[0] >= key[1];
    return first | ((first ^ 1u) << 1);
  } else {
    static_assert(N == 2 && M == 4, "2:4 or 1:2");
    unsigned g01 = key[0] >= key[1], g02 = key[0] >= key[2],
             g03 = key[0] >= key[3], g12 = key[1] >= key[2],
             g13 = key[1] >= key[3], g23 = key[2] >= key[3];
    // Number of elements beating each one (a permutation of 0..3).
    unsigned b0 = 3 - g01 - g02 - g03;
    unsigned b1 = g01 + 2 - g12 - g13;
    unsigned b2 = g02 + g12 + 1 - g23;
    unsigned b3 = g03 + g13 + g23;
    return unsigned(b0 < 2) | unsigned(b1 < 2) << 1 | unsigned(b2 < 2) << 2 |
           unsigned(b3 < 2) << 3;
  }
}

/// The nibble for a group whose non-zeros are `mask`: the non-zero positions
/// plus the lowest unused ones, increasing; 0 when the group has more than N
/// non-zeros.
constexpr uint8_t kNibble24[16] = {0x4, 0x4, 0x4, 0x4, 0x8, 0x8, 0x9, 0,
                                   0xC, 0xC, 0xD, 0,   0xE, 0,   0,   0};
constexpr uint8_t kNibble12[4] = {0x4, 0x4, 0xE, 0};

constexpr int kPopCount[16] = {0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4};

template <typename T, KeyKind K, int N, int M, bool Contig>
struct FastKernels {
  /// Group g of a row (columns g*M..g*M+M-1; those >= k read as zeros).
  static void load(const T *src, int64_t cs, int64_t g, int64_t k, bool full,
                   T *v) {
    for (int j = 0; j < M; ++j) {
      int64_t c = g * M + j;
      v[j] = (full || c < k) ? src[c * cs] : T{};
    }
  }

  static unsigned nonZeroMask(const T *v) {
    unsigned mask = 0;
    for (int j = 0; j < M; ++j)
      mask |= unsigned(isNonZeroBits<K>(v[j])) << j;
    return mask;
  }

  static void prune(View2D<const T> in, View2D<T> out) {
    const int64_t k = in.cols;
    if (in.rows <= 0 || k <= 0)
      return;
    const int64_t ics = Contig ? 1 : in.colStride;
    const int64_t ocs = Contig ? 1 : out.colStride;
    const int64_t fullGroups = k / M, groups = (k + M - 1) / M;
    for (int64_t r = 0; r < in.rows; ++r) {
      const T *src = in.data + r * in.rowStride;
      T *dst = out.data + r * out.rowStride;
      auto group = [&](int64_t g, bool full) {
        T v[M];
        int32_t key[M];
        load(src, ics, g, k, full, v);
        for (int j = 0; j < M; ++j)
          key[j] = magnitudeKey<K>(v[j]);
        unsigned kept = keptMask<N, M>(key);
        for (int j = 0; j < M; ++j) {
          int64_t c = g * M + j;
          if (full || c < k)
            dst[c * ocs] = (kept >> j) & 1 ? v[j] : T{};
        }
      };
      int64_t g = 0;
      for (; g < fullGroups; ++g)
        group(g, true);
      for (; g < groups; ++g)
        group(g, false);
    }
  }

  static std::optional<Violation> check(View2D<const T> in) {
    const int64_t k = in.cols;
    if (in.rows <= 0 || k <= 0)
      return std::nullopt;
    const int64_t ics = Contig ? 1 : in.colStride;
    const int64_t groups = (k + M - 1) / M;
    for (int64_t r = 0; r < in.rows; ++r) {
      const T *src = in.data + r * in.rowStride;
      for (int64_t g = 0; g < groups; ++g) {
        T v[M];
        load(src, ics, g, k, (g + 1) * M <= k, v);
        unsigned mask = nonZeroMask(v);
        if (kPopCount[mask] > N)
          return Violation{r, g, kPopCount[mask]};
      }
    }
    return std::nullopt;
  }

  /// One pass; returns the first violation (the caller zero-fills).
  static std::optional<Violation> compress(View2D<const T> in, View2D<T> values,
                                           View2D<uint16_t> meta) {
    const int64_t k = in.cols;
    if (in.rows <= 0 || k <= 0)
      return std::nullopt;
    const int64_t ics = Contig ? 1 : in.colStride;
    const int64_t vcs = Contig ? 1 : values.colStride;
    const int64_t fullGroups = k / M, groups = groupsPerRow(k, NMPattern{N, M});
    for (int64_t r = 0; r < in.rows; ++r) {
      const T *src = in.data + r * in.rowStride;
      T *vdst = values.data + r * values.rowStride;
      uint16_t word = 0;
      for (int64_t g = 0; g < groups; ++g) {
        // Full groups are read in place, the others through a padded copy.
        T pad[M];
        const T *grp = pad;
        int64_t step = 1;
        if (g < fullGroups) {
          grp = src + g * M * ics;
          step = ics;
        } else {
          load(src, ics, g, k, false, pad);
        }
        unsigned mask = 0;
        for (int j = 0; j < M; ++j)
          mask |= unsigned(isNonZeroBits<K>(grp[j * step])) << j;
        unsigned nib = M == 4 ? kNibble24[mask] : kNibble12[mask];
        if (nib == 0)
          return Violation{r, g, kPopCount[mask]};
        if constexpr (M == 4) {
          vdst[(2 * g) * vcs] = grp[(nib & 3) * step];
          vdst[(2 * g + 1) * vcs] = grp[(nib >> 2) * step];
        } else {
          vdst[g * vcs] = grp[(nib >> 3) * step];
        }
        word |= uint16_t(nib << (4 * (g % 4)));
        if (g % 4 == 3) {
          meta.at(r, g / 4) = word;
          word = 0;
        }
      }
    }
    return std::nullopt;
  }
};

template <typename T, KeyKind K, typename F>
bool dispatchPattern(NMPattern p, bool contig, F &&f) {
  if (p == kPattern24) {
    if (contig)
      f(FastKernels<T, K, 2, 4, true>());
    else
      f(FastKernels<T, K, 2, 4, false>());
    return true;
  }
  if (p == kPattern12) {
    if (contig)
      f(FastKernels<T, K, 1, 2, true>());
    else
      f(FastKernels<T, K, 1, 2, false>());
    return true;
  }
  return false;
}

/// Calls f(FastKernels<...>()) and returns true when `mag` is a built-in
/// magnitude and `p` is supported; returns false (generic path) otherwise.
template <typename T, typename F>
bool withFastKernels(MagnitudeFn<T> mag, NMPattern p, bool contig, F &&f) {
  if constexpr (std::is_same_v<T, float>) {
    if (mag == &magnitudeF32)
      return dispatchPattern<T, KeyKind::F32>(p, contig, f);
  } else if constexpr (std::is_same_v<T, uint16_t>) {
    if (mag == &magnitudeF16)
      return dispatchPattern<T, KeyKind::F16>(p, contig, f);
    if (mag == &magnitudeBF16)
      return dispatchPattern<T, KeyKind::BF16>(p, contig, f);
  } else if constexpr (std::is_same_v<T, int8_t>) {
    if (mag == &magnitudeS8)
      return dispatchPattern<T, KeyKind::S8>(p, contig, f);
  }
  return false;
}

Status notNM(NMPattern p, const Violation &v) {
  Status s;
  s.code = ErrorCode::NotNM;
  s.row = v.row;
  s.group = v.group;
  s.count = v.count;
  s.message = "operand is not " + patternName(p) + ": row " +
              std::to_string(v.row) + ", group " + std::to_string(v.group) +
              " has " + std::to_string(v.count) + " non-zeros";
  return s;
}

} // namespace

Status validateMeta(View2D<const uint16_t> meta, NMPattern p) {
  int idx[2];
  for (int64_t r = 0; r < meta.rows; ++r)
    for (int64_t w = 0; w < meta.cols; ++w) {
      uint16_t word = meta.at(r, w);
      for (int j = 0; j < 4; ++j) {
        unsigned nib = (word >> (4 * j)) & 0xF;
        if (!decodeNibble(nib, p, idx))
          return illegalNibble(p, r, 4 * w + j, nib);
      }
    }
  return Status();
}

//===----------------------------------------------------------------------===//
// Operations on views
//===----------------------------------------------------------------------===//

template <typename T>
bool prune(InView<T> in, View2D<T> out, NMPattern p, MagnitudeFn<T> mag) {
  if (!p.isSupported() || in.rows != out.rows || in.cols != out.cols ||
      in.rows < 0 || in.cols < 0)
    return false;
  if (withFastKernels<T>(mag, p, in.colStride == 1 && out.colStride == 1,
                         [&](auto kernels) { kernels.prune(in, out); }))
    return true;
  const int64_t k = in.cols;
  const int64_t groups = (k + p.m - 1) / p.m;
  for (int64_t r = 0; r < in.rows; ++r) {
    for (int64_t g = 0; g < groups; ++g) {
      float mags[4];
      T vals[4];
      for (int j = 0; j < p.m; ++j) {
        int64_t c = g * p.m + j;
        if (c < k) {
          vals[j] = in.at(r, c);
          mags[j] = mag(vals[j]);
        } else {
          vals[j] = T{};
          mags[j] = 0.0f;
        }
      }
      int idx[2];
      selectTopN(mags, p.m, p.n, idx);
      for (int j = 0; j < p.m; ++j) {
        int64_t c = g * p.m + j;
        if (c >= k)
          break;
        bool kept = idx[0] == j || (p.n == 2 && idx[1] == j);
        out.at(r, c) = kept ? vals[j] : T{};
      }
    }
  }
  return true;
}

template <typename T>
std::optional<Violation> checkPattern(InView<T> in, NMPattern p,
                                      MagnitudeFn<T> mag) {
  if (p.m <= 0)
    return std::nullopt;
  std::optional<Violation> fast;
  if (withFastKernels<T>(mag, p, in.colStride == 1,
                         [&](auto kernels) { fast = kernels.check(in); }))
    return fast;
  const int64_t k = in.cols;
  const int64_t groups = (k + p.m - 1) / p.m;
  for (int64_t r = 0; r < in.rows; ++r)
    for (int64_t g = 0; g < groups; ++g) {
      int64_t count = 0;
      for (int j = 0; j < p.m; ++j) {
        int64_t c = g * p.m + j;
        if (c < k && isNonZero(mag(in.at(r, c))))
          ++count;
      }
      if (count > p.n)
        return Violation{r, g, count};
    }
  return std::nullopt;
}

template <typename T>
Status compress(InView<T> in, View2D<T> values, View2D<uint16_t> meta,
                NMPattern p, MagnitudeFn<T> mag) {
  auto fail = [&](Status s) {
    zeroFill(values);
    zeroFill(meta);
    return s;
  };
  if (!p.isSupported())
    return fail(unsupported(p));
  Status s;
  if (in.rows < 0 || in.cols < 0 || (!in.data && in.rows && in.cols)) {
    s.code = ErrorCode::ShapeMismatch;
    s.message = "invalid input view";
    return fail(s);
  }
  const int64_t k = in.cols;
  if (!checkShape("values", values, in.rows, valuesPerRow(k, p), s) ||
      !checkShape("metadata", meta, in.rows, metaWordsPerRow(k, p), s))
    return fail(s);
  // Fast path: one pass that stops at the first violation.
  std::optional<Violation> violation;
  if (withFastKernels<T>(mag, p, in.colStride == 1 && values.colStride == 1,
                         [&](auto kernels) {
                           violation = kernels.compress(in, values, meta);
                         }))
    return violation ? fail(notNM(p, *violation)) : s;
  if (auto v = checkPattern<T>(in, p, mag))
    return fail(notNM(p, *v));
  const int64_t groups = groupsPerRow(k, p);
  for (int64_t r = 0; r < in.rows; ++r) {
    uint16_t word = 0;
    for (int64_t g = 0; g < groups; ++g) {
      bool taken[4] = {false, false, false, false};
      int count = 0;
      for (int j = 0; j < p.m; ++j) {
        int64_t c = g * p.m + j;
        if (c < k && isNonZero(mag(in.at(r, c)))) {
          taken[j] = true;
          ++count;
        }
      }
      for (int j = 0; j < p.m && count < p.n; ++j)
        if (!taken[j]) {
          taken[j] = true;
          ++count;
        }
      int idx[2];
      int c = 0;
      for (int j = 0; j < p.m; ++j)
        if (taken[j]) {
          idx[c] = j;
          int64_t col = g * p.m + j;
          values.at(r, g * p.n + c) = col < k ? in.at(r, col) : T{};
          ++c;
        }
      unsigned nib = unsigned(encodeNibble(idx, p));
      word |= uint16_t(nib << (4 * (g % 4)));
      if (g % 4 == 3) {
        meta.at(r, g / 4) = word;
        word = 0;
      }
    }
  }
  return Status();
}

template <typename T>
Status decompress(InView<T> values, View2D<const uint16_t> meta, View2D<T> out,
                  NMPattern p) {
  auto fail = [&](Status s) {
    zeroFill(out);
    return s;
  };
  if (!p.isSupported())
    return fail(unsupported(p));
  Status s;
  if (out.rows < 0 || out.cols < 0 || (!out.data && out.rows && out.cols)) {
    s.code = ErrorCode::ShapeMismatch;
    s.message = "invalid output view";
    return fail(s);
  }
  const int64_t k = out.cols;
  if (!checkShape("values", values, out.rows, valuesPerRow(k, p), s) ||
      !checkShape("metadata", meta, out.rows, metaWordsPerRow(k, p), s))
    return fail(s);
  s = validateMeta(meta, p);
  if (!s.ok())
    return fail(s);
  zeroFill(out);
  const int64_t groups = groupsPerRow(k, p);
  for (int64_t r = 0; r < out.rows; ++r)
    for (int64_t g = 0; g < groups; ++g) {
      unsigned nib = (meta.at(r, g / 4) >> (4 * (g % 4))) & 0xF;
      int idx[2] = {0, 0}; // validateMeta() has checked every nibble.
      decodeNibble(nib, p, idx);
      for (int c = 0; c < p.n; ++c) {
        int64_t col = g * p.m + idx[c];
        if (col < k)
          out.at(r, col) = values.at(r, g * p.n + c);
      }
    }
  return Status();
}

Status decodeIndices(View2D<const uint16_t> meta, View2D<int32_t> indices,
                     NMPattern p) {
  auto fail = [&](Status s) {
    zeroFill(indices);
    return s;
  };
  if (!p.isSupported())
    return fail(unsupported(p));
  Status s;
  if (meta.rows < 0 || meta.cols < 0 ||
      (!meta.data && meta.rows && meta.cols)) {
    s.code = ErrorCode::ShapeMismatch;
    s.message = "invalid metadata view";
    return fail(s);
  }
  if (!checkShape("indices", indices, meta.rows, meta.cols * 4 * p.n, s))
    return fail(s);
  s = validateMeta(meta, p);
  if (!s.ok())
    return fail(s);
  const int64_t groups = meta.cols * 4;
  for (int64_t r = 0; r < meta.rows; ++r)
    for (int64_t g = 0; g < groups; ++g) {
      unsigned nib = (meta.at(r, g / 4) >> (4 * (g % 4))) & 0xF;
      int idx[2] = {0, 0}; // validateMeta() has checked every nibble.
      decodeNibble(nib, p, idx);
      for (int c = 0; c < p.n; ++c)
        indices.at(r, g * p.n + c) = int32_t(g * p.m + idx[c]);
    }
  return Status();
}

// Explicit instantiations for the three storage types.
template bool prune<float>(InView<float>, View2D<float>, NMPattern,
                           MagnitudeFn<float>);
template bool prune<uint16_t>(InView<uint16_t>, View2D<uint16_t>, NMPattern,
                              MagnitudeFn<uint16_t>);
template bool prune<int8_t>(InView<int8_t>, View2D<int8_t>, NMPattern,
                            MagnitudeFn<int8_t>);
template std::optional<Violation> checkPattern<float>(InView<float>, NMPattern,
                                                      MagnitudeFn<float>);
template std::optional<Violation>
    checkPattern<uint16_t>(InView<uint16_t>, NMPattern, MagnitudeFn<uint16_t>);
template std::optional<Violation>
    checkPattern<int8_t>(InView<int8_t>, NMPattern, MagnitudeFn<int8_t>);
template Status compress<float>(InView<float>, View2D<float>, View2D<uint16_t>,
                                NMPattern, MagnitudeFn<float>);
template Status compress<uint16_t>(InView<uint16_t>, View2D<uint16_t>,
                                   View2D<uint16_t>, NMPattern,
                                   MagnitudeFn<uint16_t>);
template Status compress<int8_t>(InView<int8_t>, View2D<int8_t>,
                                 View2D<uint16_t>, NMPattern,
                                 MagnitudeFn<int8_t>);
template Status decompress<float>(InView<float>, View2D<const uint16_t>,
                                  View2D<float>, NMPattern);
template Status decompress<uint16_t>(InView<uint16_t>, View2D<const uint16_t>,
                                     View2D<uint16_t>, NMPattern);
template Status decompress<int8_t>(InView<int8_t>, View2D<const uint16_t>,
                                   View2D<int8_t>, NMPattern);

//===----------------------------------------------------------------------===//
// Convenience over row-major float buffers
//===----------------------------------------------------------------------===//

std::optional<View2D<const float>> viewOf(const std::vector<float> &dense,
                                          int64_t dim0, int64_t dim1,
                                          int reductionDim) {
  // The product is checked: shapes come from programs and files (2^32 x
  // 2^32 would wrap to 0 and match an empty buffer).
  std::optional<int64_t> count = checkedMul(dim0, dim1);
  if (!count || int64_t(dense.size()) != *count ||
      (reductionDim != 0 && reductionDim != 1))
    return std::nullopt;
  if (reductionDim == 1)
    return View2D<const float>(dense.data(), dim0, dim1, dim1, 1);
  return View2D<const float>(dense.data(), dim1, dim0, 1, dim1);
}

std::vector<float> prune(const std::vector<float> &dense, int64_t dim0,
                         int64_t dim1, int reductionDim, NMPattern p) {
  auto in = viewOf(dense, dim0, dim1, reductionDim);
  if (!in || !p.isSupported())
    return {};
  std::vector<float> out(dense.size(), 0.0f);
  View2D<float> o(out.data(), in->rows, in->cols, in->rowStride, in->colStride);
  prune<float>(*in, o, p, magnitudeF32);
  return out;
}

Status compress(const std::vector<float> &dense, int64_t dim0, int64_t dim1,
                int reductionDim, NMPattern p, Compressed &out) {
  out = Compressed();
  out.pattern = p;
  auto in = viewOf(dense, dim0, dim1, reductionDim);
  if (!in) {
    Status s;
    s.code = ErrorCode::ShapeMismatch;
    s.message = "dense buffer does not match its shape or reduction dim";
    return s;
  }
  if (!p.isSupported())
    return unsupported(p);
  out.rows = in->rows;
  out.k = in->cols;
  int64_t vpr = valuesPerRow(out.k, p), mpr = metaWordsPerRow(out.k, p);
  out.values.assign(size_t(out.rows * vpr), 0.0f);
  out.meta.assign(size_t(out.rows * mpr), 0);
  return compress<float>(
      *in, View2D<float>::rowMajor(out.values.data(), out.rows, vpr),
      View2D<uint16_t>::rowMajor(out.meta.data(), out.rows, mpr), p,
      magnitudeF32);
}

Status decompress(const Compressed &c, int reductionDim,
                  std::vector<float> &dense) {
  // Everything is checked before the dense buffer is sized: rows and k come
  // from programs and files, and their product may overflow.
  dense.clear();
  Status s;
  if (reductionDim != 0 && reductionDim != 1) {
    s.code = ErrorCode::ShapeMismatch;
    s.message = "reduction dim must be 0 or 1";
    return s;
  }
  if (!c.pattern.isSupported())
    return unsupported(c.pattern);
  std::optional<int64_t> count = checkedMul(c.rows, c.k);
  int64_t vpr = count ? valuesPerRow(c.k, c.pattern) : 0;
  int64_t mpr = count ? metaWordsPerRow(c.k, c.pattern) : 0;
  std::optional<int64_t> valueCount = checkedMul(c.rows, vpr);
  std::optional<int64_t> metaCount = checkedMul(c.rows, mpr);
  if (!count || !valueCount || !metaCount ||
      int64_t(c.values.size()) != *valueCount ||
      int64_t(c.meta.size()) != *metaCount) {
    s.code = ErrorCode::ShapeMismatch;
    s.message = "compressed buffers do not match rows x k";
    return s;
  }
  dense.assign(size_t(*count), 0.0f);
  View2D<float> out = reductionDim == 1
                          ? View2D<float>(dense.data(), c.rows, c.k, c.k, 1)
                          : View2D<float>(dense.data(), c.rows, c.k, 1, c.rows);
  return decompress<float>(
      View2D<const float>::rowMajor(c.values.data(), c.rows, vpr),
      View2D<const uint16_t>::rowMajor(c.meta.data(), c.rows, mpr), out,
      c.pattern);
}

} // namespace stc::format
