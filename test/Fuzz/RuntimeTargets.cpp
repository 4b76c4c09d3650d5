//===- RuntimeTargets.cpp - fuzz target of the runtime entry points -*- C++
//-*-===//
//
// The C entry points that generated code calls (runtime/stc_runtime.h) on
// descriptors and data made from arbitrary bytes (FuzzTargets.h). The bytes
// choose the entry point, element type, pattern (supported or not),
// reduction dimension (valid or not), pruning method, shape (up to 64 x 64),
// strides (row-major or transposed), an offset, output shapes that are
// right or one off, descriptors that are invalid (negative sizes, null data
// with elements); the rest is the data, metadata included (illegal nibbles).
// Every descriptor describes memory that exists, as generated code's do:
// what the runtime must survive is wrong values, not lies about memory.
//
// Invariants where the arguments are valid: prune gives the pattern (check
// says so), compress of the pruned tensor succeeds, and decompress gives
// the pruned tensor back bit for bit (but for the sign of a zero).
//
//===----------------------------------------------------------------------===//
#include "test/Fuzz/FuzzTargets.h"

#include "runtime/stc_runtime.h"

#include <cstring>
#include <vector>

namespace {

[[noreturn]] void violated() { __builtin_trap(); }

/// Reads the fuzz input byte by byte (zeros once it runs out).
class Bytes {
public:
  Bytes(const uint8_t *data, size_t size) : data(data), size(size) {}
  uint8_t next() { return pos < size ? data[pos++] : 0; }
  /// Fills `out` from the remaining bytes, cyclically (zeros if none).
  void fill(std::vector<uint8_t> &out) {
    size_t rest = size - pos;
    for (size_t i = 0; i < out.size(); ++i)
      out[i] = rest ? data[pos + i % rest] : 0;
  }

private:
  const uint8_t *data;
  size_t size;
  size_t pos = 0;
};

/// A 2-D buffer and its descriptor (row-major, or column-major when
/// `transposed`), `offset` elements into its storage.
struct Buffer {
  std::vector<uint8_t> storage;
  StcMemRef2D desc{};

  Buffer(int64_t rows, int64_t cols, size_t width, bool transposed,
         int64_t offset) {
    storage.assign(size_t(rows * cols + offset) * width + 1, 0);
    desc.allocated = desc.aligned = storage.data();
    desc.offset = offset;
    desc.sizes[0] = rows;
    desc.sizes[1] = cols;
    desc.strides[0] = transposed ? 1 : cols;
    desc.strides[1] = transposed ? rows : 1;
  }
  /// The logical elements, row by row, as raw bytes.
  std::vector<uint8_t> elements(size_t width) const {
    std::vector<uint8_t> out;
    const uint8_t *base = storage.data() + desc.offset * width;
    for (int64_t r = 0; r < desc.sizes[0]; ++r)
      for (int64_t c = 0; c < desc.sizes[1]; ++c) {
        const uint8_t *p =
            base + (r * desc.strides[0] + c * desc.strides[1]) * width;
        out.insert(out.end(), p, p + width);
      }
    return out;
  }
};

StcMemRef1D whereOf(const char *text) {
  StcMemRef1D w{};
  w.allocated = w.aligned = const_cast<char *>(text);
  w.sizes[0] = int64_t(std::strlen(text));
  w.strides[0] = 1;
  return w;
}

using PruneFn = void (*)(StcMemRef2D *, StcMemRef2D *, int64_t, int64_t,
                         int64_t, int64_t);
using CompressFn = void (*)(StcMemRef2D *, StcMemRef2D *, StcMemRef2D *,
                            int64_t, int64_t, int64_t, StcMemRef1D *);
using DecompressFn = void (*)(StcMemRef2D *, StcMemRef2D *, StcMemRef2D *,
                              int64_t, int64_t, int64_t, StcMemRef1D *);
using CheckFn = int8_t (*)(StcMemRef2D *, int64_t, int64_t, int64_t);

struct ElementType {
  size_t width;
  PruneFn prune;
  CompressFn compress;
  DecompressFn decompress;
  CheckFn check;
};

const ElementType kTypes[] = {
    {4, _mlir_ciface_stc_rt_prune_f32, _mlir_ciface_stc_rt_compress_f32,
     _mlir_ciface_stc_rt_decompress_f32, _mlir_ciface_stc_rt_check_f32},
    {2, _mlir_ciface_stc_rt_prune_f16, _mlir_ciface_stc_rt_compress_f16,
     _mlir_ciface_stc_rt_decompress_f16, _mlir_ciface_stc_rt_check_f16},
    {2, _mlir_ciface_stc_rt_prune_bf16, _mlir_ciface_stc_rt_compress_bf16,
     _mlir_ciface_stc_rt_decompress_bf16, _mlir_ciface_stc_rt_check_bf16},
    {1, _mlir_ciface_stc_rt_prune_i8, _mlir_ciface_stc_rt_compress_i8,
     _mlir_ciface_stc_rt_decompress_i8, _mlir_ciface_stc_rt_check_i8},
};

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// Whether `a` and `b` hold the same elements of `width` bytes, a negative
/// zero equal to a positive one for the float types (`isInt`: i8). The 2:4
/// format stores the non-zeros and their positions: a kept -0.0 is a zero,
/// and decompress writes zeros as +0.0 (found by this target: a tile prune
/// that keeps -0.0).
bool sameElements(const std::vector<uint8_t> &a, const std::vector<uint8_t> &b,
                  size_t width, bool isInt) {
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); i += width) {
    if (std::memcmp(&a[i], &b[i], width) == 0)
      continue;
    if (isInt)
      return false;
    // Little-endian: the sign is the top bit of the last byte.
    auto isZero = [&](const uint8_t *p) {
      for (size_t j = 0; j + 1 < width; ++j)
        if (p[j])
          return false;
      return (p[width - 1] & 0x7f) == 0;
    };
    if (!isZero(&a[i]) || !isZero(&b[i]))
      return false;
  }
  return true;
}

} // namespace

int stc::fuzz::runtimeTarget(const uint8_t *data, size_t size) {
  Bytes in(data, size);
  uint8_t op = in.next() % 8;
  const ElementType &type = kTypes[in.next() % 4];
  uint8_t patternByte = in.next();
  int64_t n = 2, m = 4;
  if (patternByte % 4 == 1) {
    n = 1;
    m = 2;
  } else if (patternByte % 4 >= 2) {
    n = int8_t(patternByte) >> 2; // anything, negative included
    m = int8_t(in.next());
  }
  uint8_t dimByte = in.next();
  int64_t reductionDim = dimByte < 200 ? dimByte % 2 : int8_t(dimByte);
  int64_t rows = in.next() % 65, cols = in.next() % 65;
  uint8_t methodByte = in.next();
  int64_t method = methodByte < 200 ? methodByte % 2 : int8_t(methodByte);
  uint8_t flags = in.next();
  bool transposed = flags & 1;
  int64_t offset = (flags >> 1) & 3;
  bool oneOff = flags & 8; // an output shape one element off
  StcMemRef1D where = whereOf("fuzz.mlir:1:1");
  size_t width = type.width;

  Buffer input(rows, cols, width, transposed, offset);
  in.fill(input.storage);
  // An invalid descriptor: a negative size, or null data with elements.
  bool invalid = false;
  if (flags & 16) {
    if (flags & 32) {
      input.desc.sizes[flags & 64 ? 0 : 1] = -1 - (flags >> 7);
      invalid = true;
    } else if (rows && cols) {
      input.desc.aligned = nullptr;
      invalid = true;
    }
  }
  // The reduction view of the input: rows x K.
  int64_t r = reductionDim == 0 ? cols : rows;
  int64_t k = reductionDim == 0 ? rows : cols;
  bool validPattern = (n == 2 && m == 4) || (n == 1 && m == 2);
  bool validArgs =
      validPattern && (reductionDim == 0 || reductionDim == 1) && !invalid;
  // Compressed sizes for a valid pattern (a guess otherwise).
  int64_t mm = validPattern ? m : 4, nn = validPattern ? n : 2;
  int64_t words = ceilDiv(k, 4 * mm);
  int64_t perRow = words * 4 * nn;
  int64_t delta = oneOff ? 1 : 0;

  // Whether the entry point takes the op's location (prune and check do
  // not: their errors have none).
  bool located = op >= 2 && op != 4;
  stc_rt_clear_error();
  switch (op) {
  case 0:
  case 1: {
    // prune, then (when valid) the invariants through compress/decompress.
    Buffer out(rows, cols, width, transposed, offset);
    type.prune(&input.desc, &out.desc, reductionDim, n, m, method);
    bool ok = !stc_rt_has_error();
    if (!validArgs || (method != 0 && method != 1) ||
        (method == 1 && !(n == 2 && m == 4))) {
      if (ok)
        violated(); // refused arguments must be an error
      break;
    }
    if (!ok)
      violated();
    if (!type.check(&out.desc, reductionDim, n, m))
      violated();
    Buffer values(r, perRow, width, false, 0), meta(r, words, 2, false, 0);
    type.compress(&out.desc, &values.desc, &meta.desc, reductionDim, n, m,
                  &where);
    if (stc_rt_has_error())
      violated();
    Buffer back(rows, cols, width, transposed, offset);
    type.decompress(&values.desc, &meta.desc, &back.desc, reductionDim, n, m,
                    &where);
    if (stc_rt_has_error() ||
        !sameElements(back.elements(width), out.elements(width), width,
                      &type == &kTypes[3]))
      violated();
    break;
  }
  case 2: {
    // compress of arbitrary data into right-sized or one-off outputs.
    Buffer values(r, perRow + delta, width, false, 0);
    Buffer meta(r, words - (oneOff && words ? 1 : 0), 2, false, 0);
    type.compress(&input.desc, &values.desc, &meta.desc, reductionDim, n, m,
                  &where);
    break;
  }
  case 3: {
    // decompress of arbitrary values and metadata (illegal nibbles too).
    Buffer values(r, perRow, width, false, 0), meta(r, words, 2, false, 0);
    in.fill(values.storage);
    in.fill(meta.storage);
    Buffer out(rows + (reductionDim == 0 ? delta : 0),
               cols + (reductionDim == 1 ? delta : 0), width, transposed,
               offset);
    type.decompress(&values.desc, &meta.desc, &out.desc, reductionDim, n, m,
                    &where);
    break;
  }
  case 4:
    type.check(&input.desc, reductionDim, n, m);
    break;
  case 5: {
    Buffer meta(rows, words, 2, false, 0);
    in.fill(meta.storage);
    Buffer indices(rows, perRow + delta, 4, false, 0);
    _mlir_ciface_stc_rt_decode_indices(&meta.desc, &indices.desc, n, m, &where);
    break;
  }
  case 6: {
    int64_t a = 0, b = 0, c = 0;
    for (int i = 0; i < 8; ++i) {
      a = (a << 8) | in.next();
      b = (b << 8) | in.next();
      c = (c << 8) | in.next();
    }
    _mlir_ciface_stc_rt_check_reduction(a, b, c, &where);
    break;
  }
  default: {
    int64_t bytes = 0;
    for (int i = 0; i < 8; ++i)
      bytes = (bytes << 8) | in.next();
    int8_t overflowed = in.next() & 1;
    int8_t fits = _mlir_ciface_stc_rt_check_alloc(bytes, overflowed, &where);
    if (overflowed && fits)
      violated();
    if (_mlir_ciface_stc_rt_check_allocated(0, bytes, &where))
      violated(); // a null buffer is always an error
    break;
  }
  }
  // Any error of an entry point that takes the location names it.
  if (located && stc_rt_has_error() &&
      std::strncmp(stc_rt_error_message(), "fuzz.mlir:1:1: error: ", 22) != 0)
    violated();
  stc_rt_clear_error();
  return 0;
}
