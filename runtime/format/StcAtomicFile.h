//===- StcAtomicFile.h - write a whole file or nothing ----------*- C++ -*-===//
//
// The tools' promise is "outputs are written only when everything
// succeeded": every output file (.npy, .safetensors) is written to a
// uniquely named temporary file beside it and renamed into place, so a
// reader never sees a partial file and a failure leaves no file behind.
//
//===----------------------------------------------------------------------===//

#ifndef STC_RUNTIME_FORMAT_STCATOMICFILE_H
#define STC_RUNTIME_FORMAT_STCATOMICFILE_H

#include <cstdint>
#include <string>
#include <vector>

namespace stc::format {

/// Writes `bytes` to `path` atomically (temporary file in the same
/// directory, then rename).  On failure removes the temporary file, leaves
/// `path` as it was, and sets `error` to "<path>: <what>: <strerror>".
bool writeFileAtomically(const std::string &path,
                         const std::vector<uint8_t> &bytes, std::string &error);

} // namespace stc::format

#endif // STC_RUNTIME_FORMAT_STCATOMICFILE_H
