//===- Safetensors.cpp - safetensors reading and writing ------------------===//
//
// Part of the STC project: a compiler for 2:4 structured-sparse tensor
// programs.
//
//===----------------------------------------------------------------------===//
//
// Implementation of Safetensors.h.  The header is parsed in two steps: a
// strict, generic JSON parser (Json.cpp) builds a small tree; then the tree
// is checked against the safetensors schema (here).  Keeping the two apart
// gives syntax errors a byte position and schema errors a tensor name.
//
//===----------------------------------------------------------------------===//

#include "runtime/safetensors/Safetensors.h"
#include "runtime/format/StcAtomicFile.h"
#include "runtime/safetensors/Json.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <utility>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace stc::safetensors;

//===----------------------------------------------------------------------===//
// Dtypes
//===----------------------------------------------------------------------===//

namespace {

struct DtypeInfo {
  Dtype dtype;
  const char *name;
  int bits;
  bool floating;
};

constexpr DtypeInfo kDtypes[] = {
    {Dtype::BOOL, "BOOL", 8, false},      {Dtype::U8, "U8", 8, false},
    {Dtype::I8, "I8", 8, false},          {Dtype::F8_E5M2, "F8_E5M2", 8, true},
    {Dtype::F8_E4M3, "F8_E4M3", 8, true}, {Dtype::F8_E8M0, "F8_E8M0", 8, true},
    {Dtype::I16, "I16", 16, false},       {Dtype::U16, "U16", 16, false},
    {Dtype::F16, "F16", 16, true},        {Dtype::BF16, "BF16", 16, true},
    {Dtype::I32, "I32", 32, false},       {Dtype::U32, "U32", 32, false},
    {Dtype::F32, "F32", 32, true},        {Dtype::C64, "C64", 64, false},
    {Dtype::F64, "F64", 64, true},        {Dtype::I64, "I64", 64, false},
    {Dtype::U64, "U64", 64, false},       {Dtype::F4, "F4", 4, true},
    {Dtype::F6_E2M3, "F6_E2M3", 6, true}, {Dtype::F6_E3M2, "F6_E3M2", 6, true},
};

const DtypeInfo &infoOf(Dtype dtype) {
  for (const DtypeInfo &info : kDtypes)
    if (info.dtype == dtype)
      return info;
  return kDtypes[0]; // Unreachable for a valid enumerator.
}

/// numElements * bits / 8 without overflow; -1 if it overflows int64 or the
/// bits do not fill whole bytes.
int64_t byteSize(const std::vector<int64_t> &shape, Dtype dtype) {
  unsigned __int128 bits = static_cast<unsigned>(dtypeBits(dtype));
  const unsigned __int128 limit =
      static_cast<unsigned __int128>(std::numeric_limits<int64_t>::max()) * 8;
  bool zero = false;
  for (int64_t d : shape) {
    if (d < 0)
      return -1;
    if (d == 0)
      zero = true;
  }
  if (zero)
    return 0;
  for (int64_t d : shape) {
    bits *= static_cast<unsigned __int128>(d);
    if (bits > limit)
      return -1;
  }
  if (bits % 8 != 0)
    return -1;
  return static_cast<int64_t>(bits / 8);
}

} // namespace

const char *stc::safetensors::dtypeName(Dtype dtype) {
  return infoOf(dtype).name;
}

std::optional<Dtype> stc::safetensors::parseDtype(const std::string &name) {
  for (const DtypeInfo &info : kDtypes)
    if (name == info.name)
      return info.dtype;
  return std::nullopt;
}

int stc::safetensors::dtypeBits(Dtype dtype) { return infoOf(dtype).bits; }

bool stc::safetensors::isFloatingDtype(Dtype dtype) {
  return infoOf(dtype).floating;
}

int64_t Tensor::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0)
      return -1;
    if (d == 0)
      return 0;
  }
  for (int64_t d : shape) {
    if (n > std::numeric_limits<int64_t>::max() / d)
      return -1;
    n *= d;
  }
  return n;
}

int64_t Tensor::numBytes() const { return byteSize(shape, dtype); }

const Tensor *File::find(const std::string &name) const {
  for (const Tensor &t : tensors)
    if (t.name == name)
      return &t;
  return nullptr;
}

Tensor *File::find(const std::string &name) {
  for (Tensor &t : tensors)
    if (t.name == name)
      return &t;
  return nullptr;
}

//===----------------------------------------------------------------------===//
// JSON values and messages
//===----------------------------------------------------------------------===//

namespace {

/// The number text `text` as a non-negative integer that fits int64.
bool parseNonNegative(const std::string &text, int64_t &value) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
    return false;
  uint64_t v = 0;
  for (char c : text) {
    uint64_t digit = static_cast<uint64_t>(c - '0');
    if (v >
        (static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) - digit) /
            10)
      return false;
    v = v * 10 + digit;
  }
  value = static_cast<int64_t>(v);
  return true;
}

/// Reads a JSON array of non-negative integers.
bool readIntArray(const JsonValue &v, std::vector<int64_t> &out) {
  if (v.kind != JsonValue::Kind::Array)
    return false;
  out.clear();
  for (const JsonValue &e : v.elements) {
    int64_t x;
    if (e.kind != JsonValue::Kind::Number || !parseNonNegative(e.text, x))
      return false;
    out.push_back(x);
  }
  return true;
}

std::string quoted(const std::string &name) {
  std::string s;
  appendJsonString(s, name);
  return s;
}

std::string shapeString(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

} // namespace

//===----------------------------------------------------------------------===//
// Reading
//===----------------------------------------------------------------------===//

namespace {

/// A tensor entry of the header before the data is attached.
struct Entry {
  Tensor tensor;
  int64_t begin = 0;
  int64_t end = 0;
};

/// Checks the header tree against the schema; fills `entries` and
/// `metadata`.  `error` gets the message without the file name.
bool readHeader(const JsonValue &root, std::vector<Entry> &entries,
                std::map<std::string, std::string> &metadata,
                std::string &error) {
  if (root.kind != JsonValue::Kind::Object) {
    error = "the header is not a JSON object";
    return false;
  }
  for (const auto &[key, value] : root.members) {
    if (key == "__metadata__") {
      if (value.kind != JsonValue::Kind::Object) {
        error = "\"__metadata__\" must be an object of strings";
        return false;
      }
      for (const auto &[mkey, mvalue] : value.members) {
        if (mvalue.kind != JsonValue::Kind::String) {
          error = "\"__metadata__\" entry " + quoted(mkey) + " is not a string";
          return false;
        }
        metadata[mkey] = mvalue.text;
      }
      continue;
    }
    std::string what = "tensor " + quoted(key);
    if (value.kind != JsonValue::Kind::Object) {
      error = what + ": expected an object with \"dtype\", \"shape\" and "
                     "\"data_offsets\"";
      return false;
    }
    Entry entry;
    entry.tensor.name = key;
    bool haveDtype = false, haveShape = false, haveOffsets = false;
    for (const auto &[field, fvalue] : value.members) {
      if (field == "dtype") {
        if (fvalue.kind != JsonValue::Kind::String) {
          error = what + ": \"dtype\" is not a string";
          return false;
        }
        std::optional<Dtype> dtype = parseDtype(fvalue.text);
        if (!dtype) {
          error = what + ": unknown dtype " + quoted(fvalue.text);
          return false;
        }
        entry.tensor.dtype = *dtype;
        haveDtype = true;
      } else if (field == "shape") {
        if (!readIntArray(fvalue, entry.tensor.shape)) {
          error = what + ": \"shape\" must be an array of non-negative "
                         "integers";
          return false;
        }
        haveShape = true;
      } else if (field == "data_offsets") {
        std::vector<int64_t> offsets;
        if (!readIntArray(fvalue, offsets) || offsets.size() != 2) {
          error = what + ": \"data_offsets\" must be two non-negative "
                         "integers [begin, end]";
          return false;
        }
        entry.begin = offsets[0];
        entry.end = offsets[1];
        haveOffsets = true;
      } else {
        error = what + ": unknown key " + quoted(field);
        return false;
      }
    }
    const char *missing = !haveDtype     ? "dtype"
                          : !haveShape   ? "shape"
                          : !haveOffsets ? "data_offsets"
                                         : nullptr;
    if (missing) {
      error = what + ": missing \"" + missing + "\"";
      return false;
    }
    if (entry.end < entry.begin) {
      error = what + ": \"data_offsets\" [" + std::to_string(entry.begin) +
              ", " + std::to_string(entry.end) + "] end before begin";
      return false;
    }
    int64_t bytes = entry.tensor.numBytes();
    if (bytes < 0) {
      error = what + ": shape " + shapeString(entry.tensor.shape) + " of " +
              dtypeName(entry.tensor.dtype) +
              " does not have a whole, representable number of bytes";
      return false;
    }
    if (bytes != entry.end - entry.begin) {
      error = what + ": shape " + shapeString(entry.tensor.shape) + " of " +
              dtypeName(entry.tensor.dtype) + " needs " +
              std::to_string(bytes) + " bytes but \"data_offsets\" [" +
              std::to_string(entry.begin) + ", " + std::to_string(entry.end) +
              "] span " + std::to_string(entry.end - entry.begin);
      return false;
    }
    entries.push_back(std::move(entry));
  }
  return true;
}

} // namespace

bool stc::safetensors::parseSafetensors(const uint8_t *bytes, size_t size,
                                        const std::string &name, File &out,
                                        std::string &error) {
  out = File();
  auto fail = [&](const std::string &what) {
    error = name + ": " + what;
    return false;
  };
  if (size < 8)
    return fail("not a safetensors file: " + std::to_string(size) +
                " bytes, shorter than the 8-byte header length");
  uint64_t headerLen = 0;
  for (int i = 7; i >= 0; --i)
    headerLen = (headerLen << 8) | bytes[i];
  if (headerLen > kMaxHeaderSize)
    return fail("header length " + std::to_string(headerLen) +
                " exceeds the limit of " + std::to_string(kMaxHeaderSize) +
                " bytes");
  if (headerLen > size - 8)
    return fail("truncated: header length " + std::to_string(headerLen) +
                " exceeds the " + std::to_string(size - 8) +
                " bytes after the length field");
  const uint8_t *header = bytes + 8;
  if (headerLen == 0 || header[0] != '{')
    return fail("invalid header: it does not start with '{'");
  size_t bad = findInvalidUtf8(header, headerLen);
  if (bad != std::string::npos)
    return fail("invalid header: not valid UTF-8 at header byte " +
                std::to_string(bad));

  JsonValue root;
  std::string detail;
  if (!parseJsonDocument(header, headerLen, root, detail))
    return fail("invalid header JSON: " + detail);

  std::vector<Entry> entries;
  if (!readHeader(root, entries, out.metadata, detail))
    return fail(detail);

  // The tensors must tile the buffer: sorted by offsets, each begins where
  // the previous one ended, and the last one ends at the end of the file.
  std::stable_sort(
      entries.begin(), entries.end(), [](const Entry &a, const Entry &b) {
        return std::make_pair(a.begin, a.end) < std::make_pair(b.begin, b.end);
      });
  const uint64_t bufferSize = size - 8 - headerLen;
  int64_t cursor = 0;
  const Entry *previous = nullptr;
  for (const Entry &e : entries) {
    std::string range =
        "[" + std::to_string(e.begin) + ", " + std::to_string(e.end) + "]";
    if (e.begin < cursor)
      return fail("tensor " + quoted(e.tensor.name) + " " + range +
                  " overlaps tensor " + quoted(previous->tensor.name) + " [" +
                  std::to_string(previous->begin) + ", " +
                  std::to_string(previous->end) + "]");
    if (e.begin > cursor)
      return fail("tensor " + quoted(e.tensor.name) + " " + range +
                  " leaves a gap of " + std::to_string(e.begin - cursor) +
                  " bytes before it in the data buffer");
    if (static_cast<uint64_t>(e.end) > bufferSize)
      return fail("truncated: tensor " + quoted(e.tensor.name) + " " + range +
                  " ends beyond the " + std::to_string(bufferSize) +
                  "-byte data buffer");
    cursor = e.end;
    previous = &e;
  }
  if (static_cast<uint64_t>(cursor) != bufferSize)
    return fail("the tensors cover " + std::to_string(cursor) +
                " bytes of the " + std::to_string(bufferSize) +
                "-byte data buffer (data after the last tensor)");

  const uint8_t *buffer = header + headerLen;
  out.tensors.reserve(entries.size());
  for (Entry &e : entries) {
    e.tensor.data.assign(buffer + e.begin, buffer + e.end);
    out.tensors.push_back(std::move(e.tensor));
  }
  return true;
}

bool stc::safetensors::readSafetensors(const std::string &path, File &out,
                                       std::string &error) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    error = path + ": cannot open for reading: " + std::strerror(errno);
    return false;
  }
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    error = path + ": cannot read: " + std::strerror(err);
    return false;
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    error = path + ": cannot read: not a regular file";
    return false;
  }
  std::vector<uint8_t> bytes;
  // Allocation failure on a huge file is the one exception the standard
  // library may throw here; turn it into an error like any other.
  try {
    bytes.resize(static_cast<size_t>(st.st_size));
  } catch (const std::bad_alloc &) {
    ::close(fd);
    error = path + ": cannot read: out of memory for " +
            std::to_string(st.st_size) + " bytes";
    return false;
  }
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t got = ::read(fd, bytes.data() + done, bytes.size() - done);
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0) {
      int err = errno;
      ::close(fd);
      error = path + ": read error: " + std::strerror(err);
      return false;
    }
    if (got == 0)
      break; // The file shrank while being read.
    done += static_cast<size_t>(got);
  }
  ::close(fd);
  bytes.resize(done);
  try {
    return parseSafetensors(bytes.data(), bytes.size(), path, out, error);
  } catch (const std::bad_alloc &) {
    error = path + ": cannot read: out of memory";
    return false;
  }
}

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

bool stc::safetensors::encodeSafetensors(const File &file,
                                         std::vector<uint8_t> &bytes,
                                         std::string &error) {
  std::map<std::string, std::pair<const Tensor *, int64_t>> byName;
  int64_t offset = 0;
  for (const Tensor &t : file.tensors) {
    std::string what = "tensor " + quoted(t.name);
    if (t.name == "__metadata__") {
      error = what + ": the name is reserved for the metadata";
      return false;
    }
    if (!isValidUtf8(t.name)) {
      error = what + ": the name is not valid UTF-8";
      return false;
    }
    for (int64_t d : t.shape) {
      if (d < 0) {
        error = what + ": negative dimension in shape " + shapeString(t.shape);
        return false;
      }
    }
    int64_t want = t.numBytes();
    if (want < 0 || static_cast<uint64_t>(want) != t.data.size()) {
      error = what + ": " + std::to_string(t.data.size()) +
              " bytes of data for shape " + shapeString(t.shape) + " of " +
              dtypeName(t.dtype) +
              (want < 0 ? std::string(", which has no whole byte size")
                        : ", which needs " + std::to_string(want));
      return false;
    }
    if (!byName.emplace(t.name, std::make_pair(&t, offset)).second) {
      error = what + ": duplicate name";
      return false;
    }
    offset += want;
  }
  for (const auto &[key, value] : file.metadata) {
    if (!isValidUtf8(key) || !isValidUtf8(value)) {
      error = "metadata entry " + quoted(key) + ": not valid UTF-8";
      return false;
    }
  }

  std::string header = "{";
  bool first = true;
  if (!file.metadata.empty()) {
    header += "\"__metadata__\":{";
    for (const auto &[key, value] : file.metadata) {
      if (!first)
        header += ',';
      first = false;
      appendJsonString(header, key);
      header += ':';
      appendJsonString(header, value);
    }
    header += '}';
    first = false;
  }
  for (const auto &[name, entry] : byName) {
    const Tensor &t = *entry.first;
    if (!first)
      header += ',';
    first = false;
    appendJsonString(header, name);
    header += ":{\"dtype\":\"";
    header += dtypeName(t.dtype);
    header += "\",\"shape\":[";
    for (size_t i = 0; i < t.shape.size(); ++i)
      header += (i ? "," : "") + std::to_string(t.shape[i]);
    header +=
        "],\"data_offsets\":[" + std::to_string(entry.second) + "," +
        std::to_string(entry.second + static_cast<int64_t>(t.data.size())) +
        "]}";
  }
  header += '}';
  // The buffer starts at 8 + header size: pad to a multiple of 8 so that
  // it is 8-byte aligned.
  header.append((8 - header.size() % 8) % 8, ' ');
  if (header.size() > kMaxHeaderSize) {
    error = "the header would take " + std::to_string(header.size()) +
            " bytes, above the format's limit of " +
            std::to_string(kMaxHeaderSize);
    return false;
  }

  bytes.clear();
  bytes.reserve(8 + header.size() + static_cast<size_t>(offset));
  uint64_t n = header.size();
  for (int i = 0; i < 8; ++i)
    bytes.push_back(static_cast<uint8_t>((n >> (8 * i)) & 0xff));
  bytes.insert(bytes.end(), header.begin(), header.end());
  for (const Tensor &t : file.tensors)
    bytes.insert(bytes.end(), t.data.begin(), t.data.end());
  return true;
}

bool stc::safetensors::writeSafetensors(const std::string &path,
                                        const File &file, std::string &error) {
  std::vector<uint8_t> bytes;
  std::string detail;
  try {
    if (!encodeSafetensors(file, bytes, detail)) {
      error = path + ": cannot write: " + detail;
      return false;
    }
  } catch (const std::bad_alloc &) {
    error = path + ": cannot write: out of memory";
    return false;
  }

  return stc::format::writeFileAtomically(path, bytes, error);
}

void stc::safetensors::sortForAlignment(std::vector<Tensor> &tensors) {
  std::stable_sort(tensors.begin(), tensors.end(),
                   [](const Tensor &a, const Tensor &b) {
                     return dtypeBits(a.dtype) > dtypeBits(b.dtype);
                   });
}
