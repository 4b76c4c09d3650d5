//===- Npy.h - NumPy .npy reading and writing -------------------*- C++ -*-===//
//
// Part of the STC project: a compiler for 2:4 structured-sparse tensor
// programs.
//
//===----------------------------------------------------------------------===//
//
// Reading and writing NumPy `.npy` files (format versions 1.0, 2.0 and 3.0),
// the interchange format of `stc-run` (`--input=FILE.npy`,
// `--output=FILE.npy`), plus the f16/bf16 <-> f32 conversions that the tools
// need to feed and read back half-precision tensors.
//
// The library is plain C++17 with no MLIR/LLVM dependency. Every fallible
// function returns `bool` (or a value) and fills a one-line error message that
// names the file, e.g.
//   `x.npy: truncated data: expected 48 bytes, found 20`.
//
// Supported element types (the canonical dtype string is the NumPy type code
// without its byte-order character):
//   f2 f4 f8  i1 i2 i4 i8  u1 u2 u4 u8  b1
// Reading accepts the byte-order characters '<', '|', '=' (native, which is
// little-endian on every supported host) and '>' (big-endian: the data is
// byte-swapped on read). `fortran_order: True` files are accepted and
// transposed to C order on read. `Array::data` is therefore always
// little-endian, C (row-major) order. Writing always produces a little-endian,
// C-order file, version 1.0 when the header fits (2.0 otherwise), exactly as
// `numpy.save` does. Anything else (complex, structured, object, string or
// datetime dtypes) is rejected with an "unsupported dtype" message.
//
// Writing never leaves a partial file behind: the data goes to a temporary
// file in the destination's directory, which is renamed over the destination
// only when everything was written; on failure the temporary file is removed
// and an existing destination file is left untouched.
//
//===----------------------------------------------------------------------===//

#ifndef STC_RUNTIME_NPY_NPY_H
#define STC_RUNTIME_NPY_NPY_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace stc {
namespace npy {

/// An n-dimensional array as stored in a `.npy` file.
struct Array {
  /// Canonical dtype, e.g. "f4", "f2", "i8", "b1" (see `isSupportedDtype`).
  std::string dtype;
  /// Dimensions; empty for a 0-d (scalar) array. Every entry is >= 0.
  std::vector<int64_t> shape;
  /// Raw element bytes, little-endian, C (row-major) order;
  /// `data.size() == numElements() * elementSize()` for a valid array.
  std::vector<uint8_t> data;

  /// The size in bytes of one element (0 if `dtype` is unsupported).
  size_t elementSize() const;
  /// The product of `shape` (1 for a 0-d array, 0 if any dimension is 0).
  int64_t numElements() const;
};

/// Returns the element size in bytes of the canonical dtype \p dtype, or 0 if
/// it is not supported.
size_t dtypeSize(const std::string &dtype);

/// Returns true if \p dtype is a supported canonical dtype.
bool isSupportedDtype(const std::string &dtype);

/// Maps a NumPy `descr` string (e.g. "<f4", "|b1", "=i8", ">f2") to the
/// canonical dtype ("f4"). Sets \p bigEndian to true when the data is stored
/// big-endian. Returns false (and sets \p error, without a file name) when the
/// descr is not supported.
bool parseDescr(const std::string &descr, std::string &canonical,
                bool &bigEndian, std::string &error);

/// Returns the `descr` string that `writeNpy` stores for the canonical dtype
/// \p dtype ("<f4", "|b1", ...), or an empty string if unsupported.
std::string descrFor(const std::string &dtype);

/// Returns a zero-filled array of the given dtype and shape (the dtype is not
/// checked; an unsupported dtype gives an empty `data`).
Array makeArray(const std::string &dtype, const std::vector<int64_t> &shape);

/// Formats a shape the way NumPy prints it: "()", "(3,)", "(2, 3)".
std::string shapeToString(const std::vector<int64_t> &shape);

/// Reads the `.npy` file \p path into \p out. On failure returns false and
/// sets \p error to a one-line message naming the file; \p out is then
/// unspecified.
bool readNpy(const std::string &path, Array &out, std::string &error);

/// Parses an in-memory `.npy` image of \p size bytes. \p name is used in
/// error messages in place of a file name.
bool parseNpy(const uint8_t *bytes, size_t size, const std::string &name,
              Array &out, std::string &error);

/// Serializes \p a into an in-memory `.npy` image (version 1.0, or 2.0 when
/// the header does not fit in 65535 bytes). Returns false if \p a is invalid
/// (unsupported dtype, negative dimension, data size not matching the shape).
bool encodeNpy(const Array &a, std::vector<uint8_t> &bytes, std::string &error);

/// Writes \p a to \p path atomically (temporary file + rename). On failure
/// returns false, sets \p error to a one-line message naming the file, and
/// leaves no partial file behind.
bool writeNpy(const std::string &path, const Array &a, std::string &error);

/// Converts an IEEE binary16 bit pattern to float (exact).
float halfToFloat(uint16_t h);
/// Converts a float to the nearest IEEE binary16 bit pattern (round to
/// nearest, ties to even; overflow gives infinity; NaN stays NaN).
uint16_t floatToHalf(float f);
/// Converts a bfloat16 bit pattern (the top 16 bits of a float) to float.
float bfloat16ToFloat(uint16_t b);
/// Converts a float to bfloat16 (round to nearest, ties to even; NaN stays a
/// quiet NaN with the same sign).
uint16_t floatToBFloat16(float f);
/// Rounds \p f to the nearest bfloat16 value and returns it as float.
float roundToBFloat16(float f);

/// Converts every element of \p a to float32 (booleans become 0/1, integers
/// are rounded to the nearest float). Returns false if \p a is invalid.
bool convertToFloat32(const Array &a, std::vector<float> &out,
                      std::string &error);

/// Builds an array of dtype \p dtype and shape \p shape from \p count floats.
/// Floating-point targets are rounded to nearest even; integer targets are
/// rounded to nearest and saturated (NaN becomes 0); "b1" stores x != 0.
/// Returns false on an unsupported dtype or if \p count does not match the
/// shape.
bool fromFloat32(const float *values, size_t count, const std::string &dtype,
                 const std::vector<int64_t> &shape, Array &out,
                 std::string &error);

/// Convenience overload of `fromFloat32` for a vector.
bool fromFloat32(const std::vector<float> &values, const std::string &dtype,
                 const std::vector<int64_t> &shape, Array &out,
                 std::string &error);

} // namespace npy
} // namespace stc

#endif // STC_RUNTIME_NPY_NPY_H
