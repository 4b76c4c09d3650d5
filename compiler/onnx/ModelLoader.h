//===- ModelLoader.h - read and validate an ONNX model ------*- C++ -*-===//
//
// Parses the serialized ModelProto (with Debian's libonnx protobuf
// classes), checks the versions the importer supports, and runs the ONNX
// checker, before any conversion starts.
//
//===----------------------------------------------------------------------===//
#ifndef STC_COMPILER_ONNX_MODELLOADER_H
#define STC_COMPILER_ONNX_MODELLOADER_H

#include "onnx/onnx_pb.h"

#include "llvm/ADT/StringRef.h"

#include <memory>
#include <string>

namespace mlir::stc::onnx_import {

/// The operator set versions of the default domain (ai.onnx) the importer
/// converts.
constexpr int64_t kMinOpset = 13;
constexpr int64_t kMaxOpset = 17;

struct LoadedModel {
  std::unique_ptr<onnx::ModelProto> model;
  /// The directory external data locations are relative to.
  std::string directory;
  /// The opset version of the default domain.
  int64_t opset = 0;
};

/// Parses `bytes` (the contents of `path`), checks that its IR version and
/// ai.onnx opset are supported, and runs onnx::checker on it. On failure
/// returns null with `error` set to one line.
std::unique_ptr<LoadedModel>
loadModel(llvm::StringRef path, llvm::StringRef bytes, std::string &error);

} // namespace mlir::stc::onnx_import

#endif // STC_COMPILER_ONNX_MODELLOADER_H
