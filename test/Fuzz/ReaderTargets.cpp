//===- ReaderTargets.cpp - fuzz targets of the weights readers --*- C++ -*-===//
//
// The .npy and safetensors readers on arbitrary bytes (FuzzTargets.h). A
// header that promises more than the file holds, overflowing shapes,
// malformed JSON and dtypes must all be refused with an error; what is
// accepted must be self-consistent and survive a write and a read back.
//
//===----------------------------------------------------------------------===//
#include "test/Fuzz/FuzzTargets.h"

#include "runtime/format/StcLimits.h"
#include "runtime/npy/Npy.h"
#include "runtime/safetensors/Safetensors.h"

#include <string>
#include <vector>

namespace {

/// A failed invariant: a finding, not an error the readers may report.
[[noreturn]] void violated() { __builtin_trap(); }

} // namespace

int stc::fuzz::npyTarget(const uint8_t *data, size_t size) {
  npy::Array array;
  std::string error;
  if (!npy::parseNpy(data, size, "fuzz.npy", array, error)) {
    if (error.empty())
      violated(); // every refusal says why
    return 0;
  }
  std::optional<int64_t> bytes = format::checkedByteSize(
      array.shape, static_cast<int64_t>(array.elementSize()));
  if (!bytes || array.elementSize() == 0 ||
      static_cast<uint64_t>(*bytes) != array.data.size())
    violated();
  std::vector<uint8_t> encoded;
  if (!npy::encodeNpy(array, encoded, error))
    violated();
  npy::Array back;
  if (!npy::parseNpy(encoded.data(), encoded.size(), "back.npy", back, error) ||
      back.dtype != array.dtype || back.shape != array.shape ||
      back.data != array.data)
    violated();
  return 0;
}

int stc::fuzz::safetensorsTarget(const uint8_t *data, size_t size) {
  safetensors::File file;
  std::string error;
  if (!safetensors::parseSafetensors(data, size, "fuzz.safetensors", file,
                                     error)) {
    if (error.empty())
      violated();
    return 0;
  }
  for (const safetensors::Tensor &t : file.tensors)
    if (t.numBytes() < 0 ||
        static_cast<uint64_t>(t.numBytes()) != t.data.size())
      violated();
  std::vector<uint8_t> encoded;
  if (!safetensors::encodeSafetensors(file, encoded, error))
    return 0; // e.g. a name the writer refuses; the reader accepted it
  safetensors::File back;
  if (!safetensors::parseSafetensors(encoded.data(), encoded.size(),
                                     "back.safetensors", back, error) ||
      back.tensors.size() != file.tensors.size() ||
      back.metadata != file.metadata)
    violated();
  for (const safetensors::Tensor &t : file.tensors) {
    const safetensors::Tensor *u = back.find(t.name);
    if (!u || u->dtype != t.dtype || u->shape != t.shape || u->data != t.data)
      violated();
  }
  return 0;
}
