//===- HostTensor.cpp - tensors known while importing -------*- C++ -*-===//
//
// See HostTensor.h.
//
//===----------------------------------------------------------------------===//
#include "compiler/onnx/HostTensor.h"

#include "runtime/format/StcLimits.h"

#include "onnx/onnx_pb.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cstring>

using namespace mlir;
using namespace mlir::stc::onnx_import;

std::string mlir::stc::onnx_import::dtypeName(int32_t dtype) {
  if (onnx::TensorProto_DataType_IsValid(dtype))
    return onnx::TensorProto_DataType_Name(
        static_cast<onnx::TensorProto_DataType>(dtype));
  return "data type " + std::to_string(dtype);
}

unsigned mlir::stc::onnx_import::dtypeWidth(int32_t dtype) {
  switch (static_cast<DType>(dtype)) {
  case DType::F32:
  case DType::I32:
    return 4;
  case DType::F16:
  case DType::BF16:
    return 2;
  case DType::I8:
  case DType::U8:
  case DType::Bool:
    return 1;
  case DType::I64:
  case DType::F64:
    return 8;
  default:
    return 0;
  }
}

Type mlir::stc::onnx_import::mlirElementType(MLIRContext *context,
                                             int32_t dtype) {
  Builder b(context);
  switch (static_cast<DType>(dtype)) {
  case DType::F32:
    return b.getF32Type();
  case DType::F16:
    return b.getF16Type();
  case DType::BF16:
    return b.getBF16Type();
  case DType::I8:
    return b.getI8Type();
  case DType::I32:
    return b.getI32Type();
  case DType::I64:
    return b.getI64Type();
  default:
    return nullptr;
  }
}

DType mlir::stc::onnx_import::dtypeOf(Type type) {
  if (type.isF32())
    return DType::F32;
  if (type.isF16())
    return DType::F16;
  if (type.isBF16())
    return DType::BF16;
  if (type.isInteger(8))
    return DType::I8;
  if (type.isInteger(32))
    return DType::I32;
  if (type.isInteger(64))
    return DType::I64;
  return DType::Undefined;
}

bool mlir::stc::onnx_import::isFloatDType(DType dtype) {
  return dtype == DType::F32 || dtype == DType::F16 || dtype == DType::BF16 ||
         dtype == DType::F64;
}

//===----------------------------------------------------------------------===//
// Element access
//===----------------------------------------------------------------------===//

int64_t HostTensor::numElements() const {
  // decodeTensor bounds every shape it accepts; a zero dimension is checked
  // first so that the product of the others cannot overflow.
  if (llvm::is_contained(shape, 0))
    return 0;
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

template <typename T>
static T load(const char *p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

static double halfToDouble(uint16_t bits, const llvm::fltSemantics &sem) {
  llvm::APFloat f(sem, llvm::APInt(16, bits));
  return f.convertToDouble();
}

double HostTensor::getDouble(int64_t i) const {
  const char *p = bytes.data() + i * dtypeWidth(static_cast<int32_t>(dtype));
  switch (dtype) {
  case DType::F32:
    return load<float>(p);
  case DType::F64:
    return load<double>(p);
  case DType::F16:
    return halfToDouble(load<uint16_t>(p), llvm::APFloat::IEEEhalf());
  case DType::BF16:
    return halfToDouble(load<uint16_t>(p), llvm::APFloat::BFloat());
  case DType::I8:
    return load<int8_t>(p);
  case DType::U8:
  case DType::Bool:
    return load<uint8_t>(p);
  case DType::I32:
    return load<int32_t>(p);
  case DType::I64:
    return static_cast<double>(load<int64_t>(p));
  default:
    return 0.0;
  }
}

int64_t HostTensor::getInt(int64_t i) const {
  const char *p = bytes.data() + i * dtypeWidth(static_cast<int32_t>(dtype));
  switch (dtype) {
  case DType::I64:
    return load<int64_t>(p);
  case DType::I32:
    return load<int32_t>(p);
  case DType::I8:
    return load<int8_t>(p);
  case DType::U8:
  case DType::Bool:
    return load<uint8_t>(p);
  default:
    return static_cast<int64_t>(getDouble(i));
  }
}

std::vector<double> HostTensor::toDoubles() const {
  std::vector<double> out(numElements());
  for (int64_t i = 0, e = out.size(); i < e; ++i)
    out[i] = getDouble(i);
  return out;
}

std::vector<int64_t> HostTensor::toInts() const {
  std::vector<int64_t> out(numElements());
  for (int64_t i = 0, e = out.size(); i < e; ++i)
    out[i] = getInt(i);
  return out;
}

static uint16_t doubleToHalf(double v, const llvm::fltSemantics &sem) {
  llvm::APFloat f(v);
  bool lost = false;
  f.convert(sem, llvm::APFloat::rmNearestTiesToEven, &lost);
  return static_cast<uint16_t>(f.bitcastToAPInt().getZExtValue());
}

HostTensor HostTensor::fromDoubles(DType dtype, ArrayRef<int64_t> shape,
                                   ArrayRef<double> values, std::string name) {
  unsigned width = dtypeWidth(static_cast<int32_t>(dtype));
  auto storage = std::make_shared<std::vector<char>>(values.size() * width);
  char *p = storage->data();
  for (double v : values) {
    switch (dtype) {
    case DType::F32: {
      float f = static_cast<float>(v);
      std::memcpy(p, &f, 4);
      break;
    }
    case DType::F64:
      std::memcpy(p, &v, 8);
      break;
    case DType::F16:
    case DType::BF16: {
      uint16_t bits =
          doubleToHalf(v, dtype == DType::F16 ? llvm::APFloat::IEEEhalf()
                                              : llvm::APFloat::BFloat());
      std::memcpy(p, &bits, 2);
      break;
    }
    default: {
      // Saturating (NaN gives 0): a double outside int64 has no defined
      // conversion.
      int64_t i = !(v == v)                     ? 0
                  : v >= 9223372036854775807.0  ? INT64_MAX
                  : v <= -9223372036854775808.0 ? INT64_MIN
                                                : static_cast<int64_t>(v);
      std::memcpy(p, &i, width); // little-endian: the low bytes
      break;
    }
    }
    p += width;
  }
  HostTensor t;
  t.dtype = dtype;
  t.shape.assign(shape.begin(), shape.end());
  t.bytes = ArrayRef<char>(storage->data(), storage->size());
  t.owner = storage;
  t.name = std::move(name);
  return t;
}

HostTensor HostTensor::fromInts(ArrayRef<int64_t> shape,
                                ArrayRef<int64_t> values, std::string name) {
  auto storage = std::make_shared<std::vector<char>>(values.size() * 8);
  if (!values.empty()) // (memcpy from a null pointer is undefined)
    std::memcpy(storage->data(), values.data(), storage->size());
  HostTensor t;
  t.dtype = DType::I64;
  t.shape.assign(shape.begin(), shape.end());
  t.bytes = ArrayRef<char>(storage->data(), storage->size());
  t.owner = storage;
  t.name = std::move(name);
  return t;
}

//===----------------------------------------------------------------------===//
// Decoding a TensorProto
//===----------------------------------------------------------------------===//

/// Reads the external data of `proto` (location relative to `modelDir`,
/// optional offset and length) into `out.bytes`.
static bool readExternal(const onnx::TensorProto &proto,
                         llvm::StringRef modelDir, size_t expected,
                         HostTensor &out, std::string &error) {
  std::string location;
  uint64_t offset = 0;
  std::optional<uint64_t> length;
  for (const onnx::StringStringEntryProto &entry : proto.external_data()) {
    if (entry.key() == "location") {
      location = entry.value();
    } else if (entry.key() == "offset" || entry.key() == "length") {
      uint64_t value = 0;
      if (llvm::StringRef(entry.value()).getAsInteger(10, value)) {
        error = "external data " + entry.key() + " '" + entry.value() +
                "' is not a number";
        return false;
      }
      if (entry.key() == "offset")
        offset = value;
      else
        length = value;
    }
  }
  if (location.empty()) {
    error = "external data has no location";
    return false;
  }
  // The data must sit beside the model: no absolute paths, no `..`.
  if (llvm::sys::path::is_absolute(location) ||
      llvm::is_contained(llvm::make_range(llvm::sys::path::begin(location),
                                          llvm::sys::path::end(location)),
                         "..")) {
    error = "external data location '" + location +
            "' must be a relative path inside the model's directory";
    return false;
  }
  llvm::SmallString<256> path(modelDir);
  llvm::sys::path::append(path, location);
  uint64_t fileSize = 0;
  if (std::error_code ec = llvm::sys::fs::file_size(path, fileSize)) {
    error = "cannot read external data file '" + std::string(path) +
            "': " + ec.message();
    return false;
  }
  uint64_t size = length.value_or(expected);
  if (size != expected) {
    error = "external data length " + std::to_string(size) + " does not " +
            "match its shape and type (" + std::to_string(expected) + " bytes)";
    return false;
  }
  if (offset > fileSize || fileSize - offset < size) {
    error = "external data file '" + std::string(path) + "' has " +
            std::to_string(fileSize) + " bytes, fewer than offset " +
            std::to_string(offset) + " + length " + std::to_string(size);
    return false;
  }
  if (size == 0) {
    out.bytes = {};
    return true;
  }
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFileSlice(path, size, offset);
  if (!buffer) {
    error = "cannot read external data file '" + std::string(path) +
            "': " + buffer.getError().message();
    return false;
  }
  std::shared_ptr<llvm::MemoryBuffer> owned = std::move(*buffer);
  out.bytes = ArrayRef<char>(owned->getBufferStart(), owned->getBufferSize());
  out.owner = owned;
  return true;
}

/// Packs the int32_data field (which carries 8- and 16-bit types, one
/// element per entry) into `width`-byte elements.
static std::shared_ptr<std::vector<char>>
packInt32Field(const onnx::TensorProto &proto, unsigned width) {
  auto storage =
      std::make_shared<std::vector<char>>(proto.int32_data_size() * width);
  char *p = storage->data();
  for (int32_t v : proto.int32_data()) {
    std::memcpy(p, &v, width); // little-endian: the low bytes
    p += width;
  }
  return storage;
}

bool mlir::stc::onnx_import::decodeTensor(const onnx::TensorProto &proto,
                                          llvm::StringRef modelDir,
                                          HostTensor &out, std::string &error) {
  int32_t dtype = proto.data_type();
  unsigned width = dtypeWidth(dtype);
  if (width == 0) {
    error = "element type " + dtypeName(dtype) + " is not supported";
    return false;
  }
  out.dtype = static_cast<DType>(dtype);
  out.name = proto.name();
  out.shape.assign(proto.dims().begin(), proto.dims().end());
  for (int64_t d : out.shape) {
    if (d < 0) {
      error = "has a negative dimension";
      return false;
    }
  }
  // Checked before numElements(), which would overflow.
  std::optional<int64_t> bytes = ::stc::format::checkedByteSize(
      std::vector<int64_t>(out.shape.begin(), out.shape.end()), width);
  if (!bytes || uint64_t(*bytes) > ::stc::format::kMaxStaticBytes) {
    error = "its shape describes more than 2^47 bytes";
    return false;
  }
  int64_t count = out.numElements();
  size_t expected = static_cast<size_t>(*bytes);
  if (proto.data_location() == onnx::TensorProto_DataLocation_EXTERNAL)
    return readExternal(proto, modelDir, expected, out, error);
  if (proto.has_raw_data()) {
    const std::string &raw = proto.raw_data();
    if (raw.size() != expected) {
      error = "raw_data has " + std::to_string(raw.size()) +
              " bytes, its shape and type need " + std::to_string(expected);
      return false;
    }
    out.bytes = ArrayRef<char>(raw.data(), raw.size());
    return true;
  }
  std::shared_ptr<std::vector<char>> storage;
  int64_t stored = 0;
  switch (out.dtype) {
  case DType::F32:
    stored = proto.float_data_size();
    storage = std::make_shared<std::vector<char>>(stored * 4);
    if (stored)
      std::memcpy(storage->data(), proto.float_data().data(), stored * 4);
    break;
  case DType::F64:
    stored = proto.double_data_size();
    storage = std::make_shared<std::vector<char>>(stored * 8);
    if (stored)
      std::memcpy(storage->data(), proto.double_data().data(), stored * 8);
    break;
  case DType::I64:
    stored = proto.int64_data_size();
    storage = std::make_shared<std::vector<char>>(stored * 8);
    if (stored)
      std::memcpy(storage->data(), proto.int64_data().data(), stored * 8);
    break;
  default:
    stored = proto.int32_data_size();
    storage = packInt32Field(proto, width);
    break;
  }
  if (stored != count) {
    error = "holds " + std::to_string(stored) + " values, its shape needs " +
            std::to_string(count);
    return false;
  }
  out.bytes = ArrayRef<char>(storage->data(), storage->size());
  out.owner = storage;
  return true;
}
