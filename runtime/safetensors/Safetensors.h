//===- Safetensors.h - safetensors reading and writing ----------*- C++ -*-===//
//
// Part of the STC project: a compiler for 2:4 structured-sparse tensor
// programs.
//
//===----------------------------------------------------------------------===//
//
// Reading and writing the safetensors format
// (https://github.com/huggingface/safetensors), the weights format of the
// Hugging Face ecosystem, for `stc-prune`.  A file is
//
//   * 8 bytes: N, a little-endian unsigned 64-bit integer;
//   * N bytes: a UTF-8 JSON object, starting with '{' and possibly padded
//     with trailing spaces, that maps each tensor name to
//     {"dtype": "F32", "shape": [2, 3], "data_offsets": [begin, end]}, plus
//     an optional "__metadata__" object of string -> string;
//   * the byte buffer: every tensor's elements, little-endian, row-major,
//     at [begin, end) relative to the start of the buffer.
//
// The reader accepts exactly what the format allows and rejects everything
// else with a one-line message that names the file: a header length beyond
// the file (or above the reference implementation's 100 MB limit), invalid
// UTF-8 or JSON, duplicate keys, unknown dtypes or keys, negative or
// fractional numbers, a byte span that does not match shape x dtype size,
// and offsets that do not tile the buffer exactly (overlaps, gaps, or bytes
// after the last tensor).  The JSON parser is this library's own (a strict
// RFC 8259 parser with a nesting limit), so the library needs nothing beyond
// the C++17 standard library, like the rest of runtime/.
//
// The writer produces a deterministic header: compact JSON, "__metadata__"
// first, then the tensor names in byte-wise sorted order, padded with spaces
// so that the buffer starts at a multiple of 8 bytes (as the reference
// writer does).  The data of the tensors is stored in the order of
// `File::tensors`; `sortForAlignment` reorders them so that each one starts
// at a multiple of its element size.  Files are written atomically
// (temporary file in the destination's directory, then rename): a failed
// write leaves no partial file behind and an existing file untouched.
//
// Data is kept as raw bytes (little-endian, which is the host order on every
// supported machine); numeric conversions are the caller's business (see
// runtime/format/StcFormat.h for f16/bf16).  No exceptions escape.
//
//===----------------------------------------------------------------------===//

#ifndef STC_RUNTIME_SAFETENSORS_SAFETENSORS_H
#define STC_RUNTIME_SAFETENSORS_SAFETENSORS_H

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace stc::safetensors {

/// Element types of the format.  The sub-byte types (F4, F6_*) are packed:
/// their byte size is the element count times the bit width over 8, which
/// must be a whole number.
enum class Dtype {
  BOOL,
  U8,
  I8,
  F8_E5M2,
  F8_E4M3,
  F8_E8M0,
  I16,
  U16,
  F16,
  BF16,
  I32,
  U32,
  F32,
  C64,
  F64,
  I64,
  U64,
  F4,
  F6_E2M3,
  F6_E3M2,
};

/// The name the header uses ("F32", "BF16", ...).
const char *dtypeName(Dtype dtype);
/// Parses a header dtype name (case-sensitive, as the format is).
std::optional<Dtype> parseDtype(const std::string &name);
/// Size of one element in bits (1 byte for BOOL).
int dtypeBits(Dtype dtype);
/// True for the floating-point types (F4 ... F64, not C64).
bool isFloatingDtype(Dtype dtype);

/// The largest header the reader accepts, the reference implementation's
/// limit.
inline constexpr uint64_t kMaxHeaderSize = 100000000;

/// One named tensor.
struct Tensor {
  std::string name;
  Dtype dtype = Dtype::F32;
  /// Dimensions, outermost first; empty for a scalar.
  std::vector<int64_t> shape;
  /// numBytes() raw bytes, little-endian, row-major.
  std::vector<uint8_t> data;

  /// Product of `shape` (1 for a scalar); -1 on int64 overflow.
  int64_t numElements() const;
  /// The byte size shape x dtype requires; -1 on overflow or for a sub-byte
  /// type whose bits do not fill whole bytes.
  int64_t numBytes() const;
};

/// The contents of a safetensors file.
struct File {
  /// The tensors; after reading, in the order of their data in the file.
  std::vector<Tensor> tensors;
  /// The "__metadata__" entries (absent and empty are the same).
  std::map<std::string, std::string> metadata;

  /// The tensor called `name`, or null.
  const Tensor *find(const std::string &name) const;
  Tensor *find(const std::string &name);
};

/// Parses the in-memory image `bytes` of `size` bytes.  `name` stands for the
/// file in error messages.  On failure returns false and sets `error` to one
/// line ("NAME: ..."); `out` is then unspecified.
bool parseSafetensors(const uint8_t *bytes, size_t size,
                      const std::string &name, File &out, std::string &error);

/// Reads the file `path`.  Same contract as parseSafetensors.
bool readSafetensors(const std::string &path, File &out, std::string &error);

/// Serializes `file` (see the file comment for the layout).  Fails (with a
/// message naming the tensor) on a duplicate, non-UTF-8 or reserved
/// ("__metadata__") name, a negative dimension, data whose size does not
/// match shape x dtype, or non-UTF-8 metadata.
bool encodeSafetensors(const File &file, std::vector<uint8_t> &bytes,
                       std::string &error);

/// Encodes `file` and writes it to `path` atomically.  On failure returns
/// false, sets `error` to one line naming the file, and leaves no partial
/// file behind.
bool writeSafetensors(const std::string &path, const File &file,
                      std::string &error);

/// Reorders `tensors` stably by decreasing element size, so that once
/// written every tensor's data starts at a multiple of its element size (the
/// buffer itself starts 8-byte aligned).
void sortForAlignment(std::vector<Tensor> &tensors);

} // namespace stc::safetensors

#endif // STC_RUNTIME_SAFETENSORS_SAFETENSORS_H
