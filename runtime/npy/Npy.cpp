//===- Npy.cpp - NumPy .npy reading and writing ---------------------------===//
//
// Part of the STC project: a compiler for 2:4 structured-sparse tensor
// programs.
//
//===----------------------------------------------------------------------===//
//
// Implementation of the `.npy` reader/writer and the half-precision
// conversions declared in Npy.h. The format is documented in NumPy's
// `numpy/lib/format.py`: a 6-byte magic string "\x93NUMPY", a major and minor
// version byte, a little-endian header length (2 bytes for version 1.0, 4
// bytes for 2.0 and 3.0), and a Python dict literal with the keys 'descr',
// 'fortran_order' and 'shape', padded with spaces and terminated by '\n'.
//
//===----------------------------------------------------------------------===//

#include "runtime/npy/Npy.h"
#include "runtime/format/StcAtomicFile.h"
#include "runtime/format/StcFormat.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include <sys/stat.h>

using namespace stc::npy;

namespace {

const char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;

/// Returns true on a little-endian host.
bool hostIsLittleEndian() {
  const uint16_t probe = 1;
  uint8_t first;
  std::memcpy(&first, &probe, 1);
  return first == 1;
}

/// Multiplies the non-negative \p a by \p b, returning false on overflow of
/// int64_t.
bool checkedMul(int64_t a, int64_t b, int64_t &result) {
  if (a != 0 && b > std::numeric_limits<int64_t>::max() / a)
    return false;
  result = a * b;
  return true;
}

/// A tiny recursive-descent parser for the Python dict literal of an .npy
/// header. Only the subset numpy writes is accepted: string keys, string /
/// bool / tuple-of-int values.
class HeaderParser {
public:
  explicit HeaderParser(const std::string &text) : text(text) {}

  /// Parses the whole header; on failure returns false and sets \p error
  /// (without the file name).
  bool parse(std::string &descr, bool &fortranOrder,
             std::vector<int64_t> &shape, std::string &error) {
    bool haveDescr = false, haveFortran = false, haveShape = false;
    skipSpace();
    if (!consume('{'))
      return fail(error, "expected '{'");
    while (true) {
      skipSpace();
      if (consume('}'))
        break;
      std::string key;
      if (!parseString(key))
        return fail(error, "expected a quoted key");
      skipSpace();
      if (!consume(':'))
        return fail(error, "expected ':' after key '" + key + "'");
      skipSpace();
      if (key == "descr") {
        if (peek() == '[')
          return fail(error, "unsupported dtype: structured dtypes are not "
                             "supported");
        if (!parseString(descr))
          return fail(error, "'descr' must be a quoted string");
        haveDescr = true;
      } else if (key == "fortran_order") {
        if (!parseBool(fortranOrder))
          return fail(error, "'fortran_order' must be True or False");
        haveFortran = true;
      } else if (key == "shape") {
        if (!parseShape(shape))
          return fail(error, "'shape' must be a tuple of non-negative "
                             "integers");
        haveShape = true;
      } else {
        return fail(error, "unexpected key '" + key + "'");
      }
      skipSpace();
      if (consume(','))
        continue;
      skipSpace();
      if (consume('}'))
        break;
      return fail(error, "expected ',' or '}'");
    }
    skipSpace();
    if (pos != text.size())
      return fail(error, "trailing characters after the dict");
    if (!haveDescr)
      return fail(error, "missing key 'descr'");
    if (!haveFortran)
      return fail(error, "missing key 'fortran_order'");
    if (!haveShape)
      return fail(error, "missing key 'shape'");
    return true;
  }

private:
  bool fail(std::string &error, const std::string &msg) {
    error = "bad header: " + msg + " at offset " + std::to_string(pos);
    return false;
  }
  char peek() const { return pos < text.size() ? text[pos] : '\0'; }
  bool consume(char c) {
    if (peek() != c)
      return false;
    ++pos;
    return true;
  }
  void skipSpace() {
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t' ||
                                 text[pos] == '\n' || text[pos] == '\r'))
      ++pos;
  }
  bool parseString(std::string &out) {
    char quote = peek();
    if (quote != '\'' && quote != '"')
      return false;
    ++pos;
    out.clear();
    while (pos < text.size() && text[pos] != quote) {
      if (text[pos] == '\\' && pos + 1 < text.size())
        ++pos;
      out += text[pos++];
    }
    return consume(quote);
  }
  bool parseWord(const char *word) {
    size_t n = std::strlen(word);
    if (text.compare(pos, n, word) != 0)
      return false;
    pos += n;
    return true;
  }
  bool parseBool(bool &out) {
    if (parseWord("True")) {
      out = true;
      return true;
    }
    if (parseWord("False")) {
      out = false;
      return true;
    }
    return false;
  }
  bool parseInt(int64_t &out) {
    size_t start = pos;
    int64_t value = 0;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      int digit = text[pos] - '0';
      if (value > (std::numeric_limits<int64_t>::max() - digit) / 10)
        return false;
      value = value * 10 + digit;
      ++pos;
    }
    if (pos == start)
      return false;
    // Python 2 wrote long integers with an 'L' suffix.
    if (peek() == 'L' || peek() == 'l')
      ++pos;
    out = value;
    return true;
  }
  bool parseShape(std::vector<int64_t> &shape) {
    shape.clear();
    if (!consume('('))
      return false;
    skipSpace();
    if (consume(')'))
      return true;
    while (true) {
      skipSpace();
      int64_t dim;
      if (!parseInt(dim))
        return false;
      shape.push_back(dim);
      skipSpace();
      if (consume(')'))
        // "(3)" is not a tuple in Python, but accept it leniently.
        return true;
      if (!consume(','))
        return false;
      skipSpace();
      if (consume(')'))
        return true;
    }
  }

  const std::string &text;
  size_t pos = 0;
};

/// Reorders \p data (elements of \p elemSize bytes laid out in Fortran order
/// for \p shape) into C order.
std::vector<uint8_t> fortranToC(const std::vector<uint8_t> &data,
                                const std::vector<int64_t> &shape,
                                size_t elemSize, int64_t numElements) {
  std::vector<uint8_t> result(data.size());
  size_t rank = shape.size();
  if (rank <= 1 || numElements == 0) {
    result = data;
    return result;
  }
  // Fortran strides (in elements).
  std::vector<int64_t> fstride(rank);
  int64_t stride = 1;
  for (size_t d = 0; d < rank; ++d) {
    fstride[d] = stride;
    stride *= shape[d];
  }
  std::vector<int64_t> index(rank, 0);
  int64_t src = 0;
  for (int64_t dst = 0; dst < numElements; ++dst) {
    std::memcpy(&result[dst * elemSize], &data[src * elemSize], elemSize);
    // Advance the C-order odometer (last dimension fastest).
    for (size_t d = rank; d-- > 0;) {
      ++index[d];
      src += fstride[d];
      if (index[d] < shape[d])
        break;
      src -= fstride[d] * shape[d];
      index[d] = 0;
    }
  }
  return result;
}

/// Validates dtype/shape/data consistency of \p a; on failure sets \p error
/// (without a file name).
bool validateArray(const Array &a, std::string &error) {
  size_t elemSize = dtypeSize(a.dtype);
  if (elemSize == 0) {
    error = "unsupported dtype '" + a.dtype + "'";
    return false;
  }
  int64_t count = 1;
  for (int64_t dim : a.shape) {
    if (dim < 0) {
      error = "negative dimension in shape " + shapeToString(a.shape);
      return false;
    }
    if (!checkedMul(count, dim, count)) {
      error = "shape " + shapeToString(a.shape) + " is too large";
      return false;
    }
  }
  uint64_t expected = static_cast<uint64_t>(count) * elemSize;
  if (count != 0 && expected / elemSize != static_cast<uint64_t>(count)) {
    error = "shape " + shapeToString(a.shape) + " is too large";
    return false;
  }
  if (a.data.size() != expected) {
    error = "shape/size mismatch: shape " + shapeToString(a.shape) +
            " of dtype " + a.dtype + " needs " + std::to_string(expected) +
            " bytes, but the array holds " + std::to_string(a.data.size());
    return false;
  }
  return true;
}

std::string errnoMessage(int err) { return std::strerror(err); }

template <typename T>
float loadAs(const uint8_t *p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return static_cast<float>(v);
}

template <typename T>
void storeInt(float f, uint8_t *p) {
  T v;
  if (std::isnan(f)) {
    v = 0;
  } else {
    double r = std::nearbyint(static_cast<double>(f));
    double lo = static_cast<double>(std::numeric_limits<T>::min());
    double hi = static_cast<double>(std::numeric_limits<T>::max());
    if (r <= lo)
      v = std::numeric_limits<T>::min();
    else if (r >= hi)
      v = std::numeric_limits<T>::max();
    else
      v = static_cast<T>(r);
  }
  std::memcpy(p, &v, sizeof(T));
}

} // namespace

//===----------------------------------------------------------------------===//
// Array and dtype helpers
//===----------------------------------------------------------------------===//

size_t Array::elementSize() const { return dtypeSize(dtype); }

int64_t Array::numElements() const {
  int64_t count = 1;
  for (int64_t dim : shape)
    count *= dim;
  return count;
}

size_t stc::npy::dtypeSize(const std::string &dtype) {
  if (dtype.size() != 2)
    return 0;
  char kind = dtype[0], width = dtype[1];
  switch (kind) {
  case 'f':
    return width == '2' ? 2 : width == '4' ? 4 : width == '8' ? 8 : 0;
  case 'i':
  case 'u':
    return width == '1'   ? 1
           : width == '2' ? 2
           : width == '4' ? 4
           : width == '8' ? 8
                          : 0;
  case 'b':
    return width == '1' ? 1 : 0;
  default:
    return 0;
  }
}

bool stc::npy::isSupportedDtype(const std::string &dtype) {
  return dtypeSize(dtype) != 0;
}

bool stc::npy::parseDescr(const std::string &descr, std::string &canonical,
                          bool &bigEndian, std::string &error) {
  bigEndian = false;
  std::string code = descr;
  char order = '\0';
  if (!code.empty() &&
      (code[0] == '<' || code[0] == '>' || code[0] == '=' || code[0] == '|')) {
    order = code[0];
    code = code.substr(1);
  }
  // NumPy's one-character aliases for the byte and bool types.
  if (code == "?")
    code = "b1";
  else if (code == "b")
    code = "i1";
  else if (code == "B")
    code = "u1";
  size_t size = dtypeSize(code);
  if (size == 0) {
    error = "unsupported dtype '" + descr +
            "' (supported: f2 f4 f8 i1 i2 i4 i8 u1 u2 u4 u8 b1)";
    return false;
  }
  if (size > 1) {
    if (order == '>')
      bigEndian = true;
    else if (order == '=')
      bigEndian = !hostIsLittleEndian();
    else if (order == '|' || order == '\0') {
      error = "unsupported dtype '" + descr +
              "': multi-byte type without a byte order";
      return false;
    }
  }
  canonical = code;
  return true;
}

std::string stc::npy::descrFor(const std::string &dtype) {
  size_t size = dtypeSize(dtype);
  if (size == 0)
    return "";
  return (size == 1 ? "|" : "<") + dtype;
}

Array stc::npy::makeArray(const std::string &dtype,
                          const std::vector<int64_t> &shape) {
  Array a;
  a.dtype = dtype;
  a.shape = shape;
  int64_t count = a.numElements();
  if (count > 0)
    a.data.assign(static_cast<size_t>(count) * a.elementSize(), 0);
  return a;
}

std::string stc::npy::shapeToString(const std::vector<int64_t> &shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      s += ", ";
    s += std::to_string(shape[i]);
  }
  if (shape.size() == 1)
    s += ",";
  return s + ")";
}

//===----------------------------------------------------------------------===//
// Reading
//===----------------------------------------------------------------------===//

bool stc::npy::parseNpy(const uint8_t *bytes, size_t size,
                        const std::string &name, Array &out,
                        std::string &error) {
  auto fail = [&](const std::string &msg) {
    error = name + ": " + msg;
    return false;
  };
  if (size < kMagicLen + 2 || std::memcmp(bytes, kMagic, kMagicLen) != 0)
    return fail("not a NumPy .npy file (missing the \\x93NUMPY magic "
                "string)");
  uint8_t major = bytes[kMagicLen], minor = bytes[kMagicLen + 1];
  if (major < 1 || major > 3 || minor != 0)
    return fail("unsupported .npy format version " + std::to_string(major) +
                "." + std::to_string(minor) + " (supported: 1.0, 2.0, 3.0)");
  size_t lenBytes = major == 1 ? 2 : 4;
  size_t prefix = kMagicLen + 2 + lenBytes;
  if (size < prefix)
    return fail("truncated header: file ends inside the header length");
  uint64_t headerLen = 0;
  for (size_t i = 0; i < lenBytes; ++i)
    headerLen |= static_cast<uint64_t>(bytes[kMagicLen + 2 + i]) << (8 * i);
  if (headerLen > size - prefix)
    return fail("truncated header: header length " + std::to_string(headerLen) +
                " exceeds the file size " + std::to_string(size));
  std::string header(reinterpret_cast<const char *>(bytes + prefix),
                     static_cast<size_t>(headerLen));

  std::string descr, headerError;
  bool fortranOrder = false;
  std::vector<int64_t> shape;
  HeaderParser parser(header);
  if (!parser.parse(descr, fortranOrder, shape, headerError))
    return fail(headerError);

  std::string dtype;
  bool bigEndian = false;
  std::string descrError;
  if (!parseDescr(descr, dtype, bigEndian, descrError))
    return fail(descrError);

  size_t elemSize = dtypeSize(dtype);
  int64_t count = 1;
  for (int64_t dim : shape)
    if (!checkedMul(count, dim, count) ||
        static_cast<uint64_t>(count) >
            std::numeric_limits<uint64_t>::max() / elemSize)
      return fail("bad header: shape " + shapeToString(shape) +
                  " is too large");
  uint64_t expected = static_cast<uint64_t>(count) * elemSize;
  uint64_t available = size - prefix - headerLen;
  if (available < expected)
    return fail("truncated data: shape " + shapeToString(shape) + " of dtype " +
                dtype + " needs " + std::to_string(expected) +
                " bytes, found " + std::to_string(available));
  if (available > expected)
    return fail("shape/size mismatch: shape " + shapeToString(shape) +
                " of dtype " + dtype + " needs " + std::to_string(expected) +
                " bytes, but the file has " + std::to_string(available) +
                " data bytes");

  out.dtype = dtype;
  out.shape = shape;
  const uint8_t *payload = bytes + prefix + headerLen;
  out.data.assign(payload, payload + expected);
  if (bigEndian && elemSize > 1)
    for (size_t off = 0; off < out.data.size(); off += elemSize)
      std::reverse(out.data.begin() + off, out.data.begin() + off + elemSize);
  if (fortranOrder)
    out.data = fortranToC(out.data, shape, elemSize, count);
  return true;
}

bool stc::npy::readNpy(const std::string &path, Array &out,
                       std::string &error) {
  FILE *file = std::fopen(path.c_str(), "rb");
  if (!file) {
    error = path + ": cannot open for reading: " + errnoMessage(errno);
    return false;
  }
  std::vector<uint8_t> bytes;
  uint8_t buffer[1 << 16];
  size_t got;
  while ((got = std::fread(buffer, 1, sizeof(buffer), file)) > 0)
    bytes.insert(bytes.end(), buffer, buffer + got);
  bool readError = std::ferror(file) != 0;
  int err = errno;
  std::fclose(file);
  if (readError) {
    error = path + ": read error: " + errnoMessage(err);
    return false;
  }
  return parseNpy(bytes.data(), bytes.size(), path, out, error);
}

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

bool stc::npy::encodeNpy(const Array &a, std::vector<uint8_t> &bytes,
                         std::string &error) {
  if (!validateArray(a, error))
    return false;
  std::string dict =
      "{'descr': '" + descrFor(a.dtype) +
      "', 'fortran_order': False, 'shape': " + shapeToString(a.shape) + ", }";
  // Pad with spaces so that the data starts at a multiple of 64 bytes, and
  // end with '\n' (as numpy.save does).
  auto paddedLen = [&](size_t prefix) {
    size_t total = prefix + dict.size() + 1;
    return dict.size() + 1 + (64 - total % 64) % 64;
  };
  size_t headerLen = paddedLen(kMagicLen + 2 + 2);
  uint8_t major = 1;
  if (headerLen > 65535) {
    major = 2;
    headerLen = paddedLen(kMagicLen + 2 + 4);
  }
  std::string header = dict;
  header.append(headerLen - dict.size() - 1, ' ');
  header += '\n';

  bytes.clear();
  bytes.reserve(kMagicLen + 6 + header.size() + a.data.size());
  bytes.insert(bytes.end(), kMagic, kMagic + kMagicLen);
  bytes.push_back(major);
  bytes.push_back(0);
  size_t lenBytes = major == 1 ? 2 : 4;
  for (size_t i = 0; i < lenBytes; ++i)
    bytes.push_back(static_cast<uint8_t>((headerLen >> (8 * i)) & 0xff));
  bytes.insert(bytes.end(), header.begin(), header.end());
  bytes.insert(bytes.end(), a.data.begin(), a.data.end());
  return true;
}

bool stc::npy::writeNpy(const std::string &path, const Array &a,
                        std::string &error) {
  std::vector<uint8_t> bytes;
  std::string encodeError;
  if (!encodeNpy(a, bytes, encodeError)) {
    error = path + ": cannot write: " + encodeError;
    return false;
  }

  return stc::format::writeFileAtomically(path, bytes, error);
}

//===----------------------------------------------------------------------===//
// Half-precision conversions
//===----------------------------------------------------------------------===//

// The conversions are the format library's (one implementation for the
// whole project); these names keep the .npy API self-contained.
float stc::npy::halfToFloat(uint16_t h) { return stc::format::f16ToFloat(h); }

uint16_t stc::npy::floatToHalf(float f) { return stc::format::floatToF16(f); }

float stc::npy::bfloat16ToFloat(uint16_t b) {
  return stc::format::bf16ToFloat(b);
}

uint16_t stc::npy::floatToBFloat16(float f) {
  return stc::format::floatToBF16(f);
}

float stc::npy::roundToBFloat16(float f) {
  return bfloat16ToFloat(floatToBFloat16(f));
}

//===----------------------------------------------------------------------===//
// Float32 conversions
//===----------------------------------------------------------------------===//

bool stc::npy::convertToFloat32(const Array &a, std::vector<float> &out,
                                std::string &error) {
  if (!validateArray(a, error))
    return false;
  int64_t count = a.numElements();
  out.resize(static_cast<size_t>(count));
  const uint8_t *p = a.data.data();
  size_t es = a.elementSize();
  const std::string &t = a.dtype;
  for (int64_t i = 0; i < count; ++i, p += es) {
    float v;
    if (t == "f4") {
      std::memcpy(&v, p, 4);
    } else if (t == "f2") {
      uint16_t h;
      std::memcpy(&h, p, 2);
      v = halfToFloat(h);
    } else if (t == "f8") {
      v = loadAs<double>(p);
    } else if (t == "i1") {
      v = loadAs<int8_t>(p);
    } else if (t == "i2") {
      v = loadAs<int16_t>(p);
    } else if (t == "i4") {
      v = loadAs<int32_t>(p);
    } else if (t == "i8") {
      v = loadAs<int64_t>(p);
    } else if (t == "u1") {
      v = loadAs<uint8_t>(p);
    } else if (t == "u2") {
      v = loadAs<uint16_t>(p);
    } else if (t == "u4") {
      v = loadAs<uint32_t>(p);
    } else if (t == "u8") {
      v = loadAs<uint64_t>(p);
    } else { // b1
      v = *p ? 1.0f : 0.0f;
    }
    out[static_cast<size_t>(i)] = v;
  }
  return true;
}

bool stc::npy::fromFloat32(const float *values, size_t count,
                           const std::string &dtype,
                           const std::vector<int64_t> &shape, Array &out,
                           std::string &error) {
  if (!isSupportedDtype(dtype)) {
    error = "unsupported dtype '" + dtype + "'";
    return false;
  }
  for (int64_t dim : shape)
    if (dim < 0) {
      error = "negative dimension in shape " + shapeToString(shape);
      return false;
    }
  Array result = makeArray(dtype, shape);
  if (static_cast<uint64_t>(result.numElements()) != count) {
    error = "shape/size mismatch: shape " + shapeToString(shape) + " has " +
            std::to_string(result.numElements()) + " elements, got " +
            std::to_string(count) + " values";
    return false;
  }
  size_t es = result.elementSize();
  uint8_t *p = result.data.data();
  for (size_t i = 0; i < count; ++i, p += es) {
    float f = values[i];
    if (dtype == "f4") {
      std::memcpy(p, &f, 4);
    } else if (dtype == "f2") {
      uint16_t h = floatToHalf(f);
      std::memcpy(p, &h, 2);
    } else if (dtype == "f8") {
      double d = f;
      std::memcpy(p, &d, 8);
    } else if (dtype == "i1") {
      storeInt<int8_t>(f, p);
    } else if (dtype == "i2") {
      storeInt<int16_t>(f, p);
    } else if (dtype == "i4") {
      storeInt<int32_t>(f, p);
    } else if (dtype == "i8") {
      storeInt<int64_t>(f, p);
    } else if (dtype == "u1") {
      storeInt<uint8_t>(f, p);
    } else if (dtype == "u2") {
      storeInt<uint16_t>(f, p);
    } else if (dtype == "u4") {
      storeInt<uint32_t>(f, p);
    } else if (dtype == "u8") {
      storeInt<uint64_t>(f, p);
    } else { // b1
      *p = f != 0.0f ? 1 : 0;
    }
  }
  out = std::move(result);
  return true;
}

bool stc::npy::fromFloat32(const std::vector<float> &values,
                           const std::string &dtype,
                           const std::vector<int64_t> &shape, Array &out,
                           std::string &error) {
  return fromFloat32(values.data(), values.size(), dtype, shape, out, error);
}
