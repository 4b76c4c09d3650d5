//===- TmaModel.cpp - CPU model of TMA copies and mbarriers -----*- C++ -*-===//
//
// Tensor-map checks follow the CUDA driver API's documentation of
// cuTensorMapEncodeTiled; the box copy and swizzle the PTX ISA's
// "Tensor copy" and "Tensor-map swizzling modes" sections; the mbarrier the
// PTX ISA's "mbarrier" section (phases, arrival and tx-counts).
//
//===----------------------------------------------------------------------===//

#include "runtime/emulator/TmaModel.h"

#include <algorithm>
#include <cstring>
#include <sstream>

namespace stc::emu {

//===----------------------------------------------------------------------===//
// Tensor maps and TMA loads
//===----------------------------------------------------------------------===//

int tensorMapElementBytes(int32_t dataType) {
  switch (dataType) {
  case 0: // UINT8
    return 1;
  case 1: // UINT16
  case 6: // FLOAT16
  case 9: // BFLOAT16
    return 2;
  case 2:  // UINT32
  case 3:  // INT32
  case 7:  // FLOAT32
  case 10: // FLOAT32_FTZ
  case 11: // TFLOAT32
  case 12: // TFLOAT32_FTZ
    return 4;
  case 4: // UINT64
  case 5: // INT64
  case 8: // FLOAT64
    return 8;
  default:
    return 0;
  }
}

std::string makeTensorMap(const void *base, int32_t dataType, int32_t rank,
                          const int64_t *dims, const int64_t *strides,
                          const int32_t *box, const int32_t *elementStrides,
                          int32_t swizzleBytes, TensorMap &map) {
  std::ostringstream os;
  const int elem = tensorMapElementBytes(dataType);
  const auto address = reinterpret_cast<uintptr_t>(base);
  constexpr int64_t kMaxDim = int64_t(1) << 32;
  // "a x b x c" of the first `rank` values.
  auto join = [&](const auto *values) {
    std::ostringstream list;
    for (int32_t d = 0; d < rank; ++d)
      list << (d ? " x " : "") << int64_t(values[d]);
    return list.str();
  };
  auto strideName = [&](int32_t d) {
    return rank == 2 ? std::string("outer stride")
                     : "stride of dimension " + std::to_string(d);
  };
  if (rank < 1 || rank > kTensorMapMaxRank) {
    os << "rank " << rank << " (expected 1 .. " << kTensorMapMaxRank << ")";
    return os.str();
  }
  if (elem == 0) {
    os << "unknown data type " << dataType << " (CUtensorMapDataType 0 .. 12)";
    return os.str();
  }
  if (!base || address % 16 != 0) {
    os << "global address 0x" << std::hex << address << std::dec
       << " is not 16-byte aligned";
    return os.str();
  }
  for (int32_t d = 0; d < rank; ++d)
    if (dims[d] < 1 || dims[d] > kMaxDim) {
      os << "tensor of " << join(dims)
         << " elements (each dimension 1 .. 2^32)";
      return os.str();
    }
  // The byte stride of each dimension; dimension 0 is contiguous.
  int64_t byteStrides[kTensorMapMaxRank] = {elem};
  for (int32_t d = 1; d < rank; ++d) {
    const int64_t stride = strides[d - 1];
    int64_t inside;
    if (__builtin_mul_overflow(dims[d - 1], byteStrides[d - 1], &inside))
      inside = INT64_MAX;
    if (stride % 16 != 0 || stride <= 0) {
      os << strideName(d) << " of " << stride
         << " bytes is not a positive multiple of 16";
    } else if (d == 1 && stride < inside) {
      os << strideName(d) << " of " << stride << " bytes is less than a row of "
         << dims[0] << " elements of " << elem << " bytes";
    } else if (stride < inside) {
      os << strideName(d) << " of " << stride << " bytes is less than the "
         << inside << " bytes that dimension " << d - 1 << " spans";
    } else if (stride >= (int64_t(1) << 40)) {
      os << strideName(d) << " of " << stride << " bytes is not below 2^40";
    }
    if (!os.str().empty())
      return os.str();
    byteStrides[d] = stride;
  }
  for (int32_t d = 0; d < rank; ++d)
    if (box[d] < 1 || box[d] > 256) {
      os << "box of " << join(box) << " elements (each dimension 1 .. 256)";
      return os.str();
    }
  const int32_t ones[kTensorMapMaxRank] = {1, 1, 1, 1};
  const int32_t *steps = elementStrides ? elementStrides : ones;
  for (int32_t d = 0; d < rank; ++d)
    if (steps[d] < 1 || steps[d] > 8) {
      os << "element strides of " << join(steps) << " (each 1 .. 8)";
      return os.str();
    }
  const int64_t innerBytes = int64_t(box[0]) * elem;
  if (innerBytes % 16 != 0) {
    os << "box inner dimension of " << innerBytes
       << " bytes is not a multiple of 16";
  } else if (swizzleBytes != 0 && swizzleBytes != 32 && swizzleBytes != 64 &&
             swizzleBytes != 128) {
    os << "swizzle of " << swizzleBytes << " bytes (expected 0, 32, 64 or 128)";
  } else if (swizzleBytes != 0 && innerBytes > swizzleBytes) {
    os << "box inner dimension of " << innerBytes << " bytes exceeds the "
       << swizzleBytes << "-byte swizzle";
  }
  if (!os.str().empty())
    return os.str();
  map = TensorMap();
  map.base = static_cast<const uint8_t *>(base);
  map.dataType = dataType;
  map.elemBytes = elem;
  map.rank = rank;
  map.swizzleBytes = swizzleBytes;
  for (int32_t d = 0; d < rank; ++d) {
    map.dims[d] = dims[d];
    map.strides[d] = byteStrides[d];
    map.box[d] = box[d];
    map.elementStrides[d] = steps[d];
  }
  return "";
}

std::string makeTensorMap2d(const void *base, int32_t dataType, int64_t inner,
                            int64_t outer, int64_t outerStrideBytes,
                            int32_t boxInner, int32_t boxOuter,
                            int32_t swizzleBytes, TensorMap &map) {
  const int64_t dims[2] = {inner, outer};
  const int32_t box[2] = {boxInner, boxOuter};
  return makeTensorMap(base, dataType, 2, dims, &outerStrideBytes, box,
                       /*elementStrides=*/nullptr, swizzleBytes, map);
}

uint64_t tmaSwizzleAddress(uint64_t address, int32_t swizzleBytes) {
  if (swizzleBytes == 0)
    return address;
  const uint64_t mask = uint64_t(swizzleBytes / 16 - 1);
  return address ^ (((address >> 7) & mask) << 4);
}

int64_t tmaBoxBytes(const TensorMap &map) {
  int64_t bytes = map.elemBytes;
  for (int32_t d = 0; d < map.rank; ++d)
    bytes *= map.loaded(d);
  return bytes;
}

int64_t tmaDestinationAlignment(const TensorMap &map) {
  return map.swizzleBytes ? 8 * int64_t(map.swizzleBytes) : 128;
}

std::string tmaLoadError(const TensorMap &map, uint64_t dst) {
  std::ostringstream os;
  const int64_t align = tmaDestinationAlignment(map);
  const int64_t rowBytes = map.loaded(0) * map.elemBytes;
  if (dst % uint64_t(align) != 0) {
    // The low 18 bits of the host address are the shared address.
    os << "destination at shared address 0x" << std::hex << (dst & 0x3FFFF)
       << std::dec << " is not " << align << "-byte aligned";
    if (map.swizzleBytes)
      os << " (8 rows of the " << map.swizzleBytes << "-byte swizzle)";
  } else if (map.swizzleBytes != 0 && rowBytes != map.swizzleBytes) {
    os << "box rows of " << rowBytes << " bytes with the " << map.swizzleBytes
       << "-byte swizzle are not emulated (only rows of exactly the "
          "swizzle width)";
  }
  return os.str();
}

void tmaLoad(const TensorMap &map, void *dst, const int32_t *coords) {
  const int64_t e = map.elemBytes;
  const int64_t n0 = map.loaded(0);
  const int64_t rowBytes = n0 * e;
  const int64_t x = coords[0];
  // The in-bounds elements [lo, hi) of every row of the box.
  const int64_t lo = std::clamp<int64_t>(-x, 0, n0);
  const int64_t hi = std::clamp<int64_t>(map.dims[0] - x, lo, n0);
  int64_t rows = 1;
  for (int32_t d = 1; d < map.rank; ++d)
    rows *= map.loaded(d);
  uint8_t row[256 * 8];
  auto *out = static_cast<uint8_t *>(dst);
  for (int64_t r = 0; r < rows; ++r) {
    // Row r is (j1, j2, ...), j1 fastest: tensor coordinates
    // coords[d] + elementStrides[d] * jd.
    bool inside = hi > lo;
    int64_t offset = (x + lo) * e;
    int64_t rest = r;
    for (int32_t d = 1; d < map.rank; ++d) {
      const int64_t n = map.loaded(d);
      const int64_t c = int64_t(coords[d]) + map.elementStrides[d] * (rest % n);
      rest /= n;
      if (c < 0 || c >= map.dims[d])
        inside = false;
      else
        offset += c * map.strides[d];
    }
    std::memset(row, 0, size_t(rowBytes));
    if (inside)
      std::memcpy(row + lo * e, map.base + offset, size_t((hi - lo) * e));
    // 16-byte chunks go where the swizzle of their address says.
    for (int64_t c = 0; c < rowBytes; c += 16) {
      const auto address = reinterpret_cast<uintptr_t>(out + r * rowBytes + c);
      std::memcpy(reinterpret_cast<uint8_t *>(static_cast<uintptr_t>(
                      tmaSwizzleAddress(address, map.swizzleBytes))),
                  row + c, 16);
    }
  }
}

//===----------------------------------------------------------------------===//
// mbarrier objects
//===----------------------------------------------------------------------===//

MbarrierState decodeMbarrier(uint64_t word) {
  MbarrierState s;
  s.pending = uint32_t(word & 0xFFFFF);
  s.expected = uint32_t((word >> 20) & 0xFFFFF);
  // Sign-extend the 20-bit transaction count.
  s.tx = int32_t(uint32_t((word >> 40) & 0xFFFFF) << 12) >> 12;
  s.phase = uint32_t(word >> 60);
  return s;
}

uint64_t encodeMbarrier(const MbarrierState &s) {
  return uint64_t(s.pending & 0xFFFFF) | uint64_t(s.expected & 0xFFFFF) << 20 |
         uint64_t(uint32_t(s.tx) & 0xFFFFF) << 40 |
         uint64_t(s.phase & 0xF) << 60;
}

std::string describeMbarrier(const MbarrierState &s) {
  std::ostringstream os;
  os << "pending arrivals " << s.pending << " of " << s.expected << ", " << s.tx
     << " transaction bytes, phase " << s.phase << " (mod 16)";
  return os.str();
}

std::string mbarrierInit(MbarrierState &s, int64_t count) {
  if (count < 1 || count > kMbarrierMaxCount)
    return "mbarrier.init with count " + std::to_string(count) +
           " (expected 1 .. 2^20 - 1)";
  s = MbarrierState();
  s.pending = s.expected = uint32_t(count);
  return "";
}

namespace {

/// Completes the current phase if nothing is pending.
void completeIfDone(MbarrierState &s, bool &completed) {
  completed = s.pending == 0 && s.tx == 0;
  if (!completed)
    return;
  s.phase = (s.phase + 1) & 0xF;
  s.pending = s.expected;
}

std::string uninitialised(const char *what) {
  return std::string(what) +
         " on an mbarrier that is not initialised (count 0: no "
         "mbarrier.init, or the memory was overwritten)";
}

} // namespace

std::string mbarrierArrive(MbarrierState &s, int64_t count, bool &completed) {
  completed = false;
  if (!s.initialised())
    return uninitialised("mbarrier.arrive");
  if (count < 1 || count > int64_t(s.pending))
    return "mbarrier.arrive of " + std::to_string(count) + " arrivals with " +
           describeMbarrier(s) + " (more arrivals than the phase expects)";
  s.pending -= uint32_t(count);
  completeIfDone(s, completed);
  return "";
}

std::string mbarrierExpectTx(MbarrierState &s, int64_t bytes) {
  if (!s.initialised())
    return uninitialised("mbarrier.expect_tx");
  if (bytes < 0 || int64_t(s.tx) + bytes > kMbarrierMaxTx)
    return "mbarrier.expect_tx of " + std::to_string(bytes) + " bytes with " +
           describeMbarrier(s) + " (the emulator's tx-count range is " +
           "-(2^19 - 1) .. 2^19 - 1)";
  s.tx += int32_t(bytes);
  return "";
}

std::string mbarrierCompleteTx(MbarrierState &s, int64_t bytes,
                               bool &completed) {
  completed = false;
  if (!s.initialised())
    return uninitialised("complete-tx");
  if (bytes < 0 || (s.pending == 0 && bytes > int64_t(s.tx)) ||
      int64_t(s.tx) - bytes < -kMbarrierMaxTx)
    return "complete-tx of " + std::to_string(bytes) + " bytes with " +
           describeMbarrier(s) +
           " (more bytes than expected: a missing or short expect-tx before "
           "the copy)";
  s.tx -= int32_t(bytes);
  // Transactions alone complete a phase only once every arrival is in.
  completeIfDone(s, completed);
  return "";
}

} // namespace stc::emu
