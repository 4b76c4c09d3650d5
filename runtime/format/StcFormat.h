//===- StcFormat.h - canonical N:M sparse format ----------------*- C++ -*-===//
//
// The canonical N:M structured-sparse format of docs/DESIGN.md §3, free of
// any MLIR/LLVM dependency so that both the compiler (constant folding) and
// the run-time library (stc_runtime) use the same code: magnitude pruning,
// pattern checking, compression to (values, metadata), decompression, and the
// CPU kernel-ready layout (absolute reduction indices).  Element storage
// types: float (f32), uint16_t (f16/bf16 bits) and int8_t (signed i8,
// quantized weights; magnitude |x|, so -128 has magnitude 128).
//
// A matrix is viewed as `rows x K`, K being the reduction dimension along
// which the pattern runs.  With Kp = K rounded up to a multiple of 4*M
// (16 for 2:4, 8 for 1:2):
//   * values:   rows x Kp*N/M, row-major; for each group of M consecutive
//               columns, the N kept elements in increasing column order;
//   * metadata: rows x Kp/(4*M) uint16, row-major; one 4-bit nibble per
//               group, group j of a word at bits [4j+3:4j].
// 2:4 nibble = idx0 | idx1 << 2 (idx0 < idx1): 0x4 0x8 0xC 0x9 0xD 0xE.
// 1:2 nibble: 0x4 keeps element 0 of the pair, 0xE keeps element 1.
// Padded columns (K..Kp-1) are zeros.
//
//===----------------------------------------------------------------------===//

#ifndef STC_RUNTIME_FORMAT_STCFORMAT_H
#define STC_RUNTIME_FORMAT_STCFORMAT_H

#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace stc::format {

//===----------------------------------------------------------------------===//
// Patterns and sizes
//===----------------------------------------------------------------------===//

/// An N:M pattern: at most `n` non-zeros in every group of `m` consecutive
/// elements along the reduction dimension.
struct NMPattern {
  int n = 2;
  int m = 4;

  /// True for the supported patterns, 2:4 and 1:2.
  bool isSupported() const { return (n == 2 && m == 4) || (n == 1 && m == 2); }
  /// Number of groups whose nibbles share one uint16 metadata word.
  static constexpr int groupsPerMetaWord = 4;

  bool operator==(const NMPattern &o) const { return n == o.n && m == o.m; }
  bool operator!=(const NMPattern &o) const { return !(*this == o); }
};

/// The 2:4 pattern (16-bit element types).
inline constexpr NMPattern kPattern24{2, 4};
/// The 1:2 pattern (32-bit element types on tensor-core targets).
inline constexpr NMPattern kPattern12{1, 2};

/// Kp: `k` rounded up to a multiple of 4*m.  `p` must be supported.
int64_t paddedReduction(int64_t k, NMPattern p);
/// Stored values per row: Kp*n/m.
int64_t valuesPerRow(int64_t k, NMPattern p);
/// uint16 metadata words per row: Kp/(4*m).
int64_t metaWordsPerRow(int64_t k, NMPattern p);
/// Groups per row: Kp/m.
int64_t groupsPerRow(int64_t k, NMPattern p);

//===----------------------------------------------------------------------===//
// Metadata nibbles
//===----------------------------------------------------------------------===//

/// True if `nibble` (low 4 bits) is legal for `p`.
bool isLegalNibble(unsigned nibble, NMPattern p);
/// Encodes the `p.n` kept in-group indices `idx` (strictly increasing, each
/// < p.m) as a nibble.  Returns -1 if they are not legal.
int encodeNibble(const int *idx, NMPattern p);
/// Decodes `nibble` into `p.n` strictly increasing in-group indices.  Returns
/// false (leaving `idx` unspecified) if the nibble is illegal.
bool decodeNibble(unsigned nibble, NMPattern p, int *idx);

//===----------------------------------------------------------------------===//
// Element kinds and exact bit conversions
//===----------------------------------------------------------------------===//

/// Element types.  F32 is stored as `float`, F16 and BF16 as their raw bits
/// in `uint16_t`, I8 (signed two's complement) as `int8_t`.
enum class ElementKind { F32, F16, BF16, I8 };

/// IEEE binary16 bits -> float (exact).
float f16ToFloat(uint16_t bits);
/// float -> IEEE binary16 bits, round to nearest even; overflow gives +-inf,
/// NaN stays a (quiet) NaN.
uint16_t floatToF16(float value);
/// bfloat16 bits -> float (exact: the bits become the upper half).
float bf16ToFloat(uint16_t bits);
/// float -> bfloat16 bits (upper 16 bits), round to nearest even; NaN stays
/// a (quiet) NaN.
uint16_t floatToBF16(float value);

/// Magnitude functions used for pruning and for the non-zero test (an element
/// is non-zero iff its magnitude is not 0, so -0.0 is zero and NaN is
/// non-zero).  NaN magnitudes compare larger than every other magnitude,
/// +inf included.
float magnitudeF32(float value);
float magnitudeF16(uint16_t bits);
float magnitudeBF16(uint16_t bits);
/// |value| as a float (exact; -128 gives 128).  The results of prune /
/// checkPattern / compress / decompress on int8_t with it equal those of the
/// float path with magnitudeF32 on the same values converted to float (what
/// the compiler's constant folding computes), tie rule included.
float magnitudeS8(int8_t value);

/// A magnitude function over storage type T.  With the four functions above
/// (compared by address) and a supported pattern, prune / checkPattern /
/// compress take branch-free fast paths that give bit-identical results; any
/// other function takes the generic path (function-pointer calls).
template <typename T>
using MagnitudeFn = float (*)(T);

//===----------------------------------------------------------------------===//
// Strided 2-D views
//===----------------------------------------------------------------------===//

/// A strided 2-D view.  `rows` is the non-reduction dimension and `cols` the
/// reduction dimension (K); strides are in elements.  A K x N row-major matrix
/// whose pattern runs along dimension 0 is viewed with rows = N, cols = K,
/// rowStride = 1, colStride = N.
template <typename T>
struct View2D {
  T *data = nullptr;
  int64_t rows = 0;
  int64_t cols = 0;
  int64_t rowStride = 0;
  int64_t colStride = 0;

  View2D() = default;
  View2D(T *data, int64_t rows, int64_t cols, int64_t rowStride,
         int64_t colStride)
      : data(data), rows(rows), cols(cols), rowStride(rowStride),
        colStride(colStride) {}
  /// A view of a contiguous row-major rows x cols buffer.
  static View2D rowMajor(T *data, int64_t rows, int64_t cols) {
    return View2D(data, rows, cols, cols, 1);
  }
  /// View<U> converts to View<const U>.
  template <typename U,
            typename = std::enable_if_t<std::is_same_v<const U, T> &&
                                        !std::is_same_v<U, T>>>
  View2D(const View2D<U> &o)
      : data(o.data), rows(o.rows), cols(o.cols), rowStride(o.rowStride),
        colStride(o.colStride) {}

  T &at(int64_t r, int64_t c) const {
    return data[r * rowStride + c * colStride];
  }
};

namespace detail {
template <typename T>
struct NonDeduced {
  using type = T;
};
} // namespace detail

/// Input view parameter whose element type is not deduced (so a View2D<T>
/// argument converts to View2D<const T>).
template <typename T>
using InView = View2D<const typename detail::NonDeduced<T>::type>;

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

enum class ErrorCode {
  None,
  /// The N:M pattern is not 2:4 or 1:2.
  UnsupportedPattern,
  /// An operand's shape does not match the others (see `message`).
  ShapeMismatch,
  /// compress: group `group` of row `row` has `count` > n non-zeros.
  NotNM,
  /// decompress/decodeIndices: group `group` of row `row` has the illegal
  /// metadata nibble `nibble`.
  IllegalNibble,
};

/// Result of compress/decompress/decodeIndices.  Never thrown.
struct Status {
  ErrorCode code = ErrorCode::None;
  int64_t row = -1;
  int64_t group = -1;
  int64_t count = 0;
  unsigned nibble = 0;
  /// Human-readable description (empty when ok).
  std::string message;

  bool ok() const { return code == ErrorCode::None; }
};

/// The first group (in row-major order of (row, group)) with more than n
/// non-zeros.
struct Violation {
  int64_t row = 0;
  int64_t group = 0;
  int64_t count = 0;
};

//===----------------------------------------------------------------------===//
// Operations on strided views (T = float, uint16_t or int8_t)
//===----------------------------------------------------------------------===//

/// Magnitude pruning: in every group of p.m columns keep the p.n elements of
/// largest `mag`; on equal magnitude the lower column wins; NaN counts as the
/// largest magnitude.  Pruned elements become +0 (all-zero bits), kept ones
/// are copied bit-exactly.  Columns of the padded tail group beyond `cols`
/// count as zeros.  `out` must have in's shape (or the call does nothing and
/// returns false); it may be the very same view as `in`.
template <typename T>
bool prune(InView<T> in, View2D<T> out, NMPattern p, MagnitudeFn<T> mag);

/// Returns the first group with more than p.n non-zeros, or none.
template <typename T>
std::optional<Violation> checkPattern(InView<T> in, NMPattern p,
                                      MagnitudeFn<T> mag);

/// Compresses `in` (rows x K) into `values` (rows x valuesPerRow(K)) and
/// `meta` (rows x metaWordsPerRow(K)).  Groups with fewer than p.n non-zeros
/// store the non-zero positions plus the lowest unused positions, in
/// increasing order.  Values are copied bit-exactly; padded positions store
/// +0.  On error (unsupported pattern, shape mismatch, NotNM) the outputs
/// are zero-filled (as far as their shapes allow) and the status says why.
template <typename T>
Status compress(InView<T> in, View2D<T> values, View2D<uint16_t> meta,
                NMPattern p, MagnitudeFn<T> mag);

/// Exact inverse of compress: scatters `values` to their columns of `out`
/// (rows x K) and writes zeros elsewhere; kept positions in the padding
/// (columns >= K) are dropped.  An illegal nibble is an error (outputs
/// zero-filled).
template <typename T>
Status decompress(InView<T> values, View2D<const uint16_t> meta, View2D<T> out,
                  NMPattern p);

/// Checks every nibble of `meta` (rows x words) against `p`: ok, or the
/// first illegal nibble in row-major order of (row, group) as an
/// IllegalNibble status.
Status validateMeta(View2D<const uint16_t> meta, NMPattern p);

/// CPU kernel-ready layout, derived from the canonical metadata: for each
/// stored value (rows x W*4*n, W = meta.cols) its absolute column index in
/// 0..Kp-1 (Kp = W*4*m), so that value (r, v) belongs at dense column
/// indices(r, v).  An illegal nibble is an error (indices zero-filled).
Status decodeIndices(View2D<const uint16_t> meta, View2D<int32_t> indices,
                     NMPattern p);

//===----------------------------------------------------------------------===//
// Convenience over row-major float buffers (compile-time folding)
//===----------------------------------------------------------------------===//

/// A compressed matrix in canonical layout.
struct Compressed {
  NMPattern pattern;
  int64_t rows = 0;
  /// Unpadded reduction size K.
  int64_t k = 0;
  /// rows x valuesPerRow(k), row-major.
  std::vector<float> values;
  /// rows x metaWordsPerRow(k), row-major.
  std::vector<uint16_t> meta;
};

/// Row-major dense `dim0 x dim1` buffer `dense` viewed with the pattern along
/// `reductionDim` (0 or 1).  Returns an empty optional on bad arguments.
std::optional<View2D<const float>> viewOf(const std::vector<float> &dense,
                                          int64_t dim0, int64_t dim1,
                                          int reductionDim);

/// Pruned copy of the row-major dim0 x dim1 buffer (same layout), with the
/// pattern along `reductionDim`.  Returns an empty vector on bad arguments.
std::vector<float> prune(const std::vector<float> &dense, int64_t dim0,
                         int64_t dim1, int reductionDim, NMPattern p);

/// Compresses the row-major dim0 x dim1 buffer with the pattern along
/// `reductionDim` (rows = the other dimension).
Status compress(const std::vector<float> &dense, int64_t dim0, int64_t dim1,
                int reductionDim, NMPattern p, Compressed &out);

/// Decompresses into a row-major dim0 x dim1 buffer (the pattern along
/// `reductionDim`; dim0 x dim1 must be rows x k or k x rows accordingly).
Status decompress(const Compressed &c, int reductionDim,
                  std::vector<float> &dense);

} // namespace stc::format

#endif // STC_RUNTIME_FORMAT_STCFORMAT_H
