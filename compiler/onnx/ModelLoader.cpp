//===- ModelLoader.cpp - read and validate an ONNX model ----*- C++ -*-===//
//
// See ModelLoader.h. libonnx reports checker failures as C++ exceptions, so
// this file (alone in the library in needing them) is compiled with
// exceptions enabled.
//
//===----------------------------------------------------------------------===//
#include "compiler/onnx/ModelLoader.h"

#include "onnx/checker.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/stubs/logging.h>

#include <climits>
#include <exception>

using namespace mlir::stc::onnx_import;

/// One line out of a (possibly multi-line) message: runs of whitespace
/// become one space.
static std::string oneLine(llvm::StringRef text) {
  std::string out;
  bool space = false;
  for (char c : text.trim()) {
    if (llvm::isSpace(c)) {
      space = true;
      continue;
    }
    if (space && !out.empty())
      out += ' ';
    space = false;
    out += c;
  }
  return out;
}

namespace {
/// Silences libprotobuf's own logging (it would print to stderr beside our
/// one error line) while it is in scope.
struct ProtobufLogSilencer {
  google::protobuf::LogHandler *previous;
  ProtobufLogSilencer() : previous(google::protobuf::SetLogHandler(nullptr)) {}
  ~ProtobufLogSilencer() { google::protobuf::SetLogHandler(previous); }
};
} // namespace

/// The ai.onnx opset of `model`, or 0 when it imports none.
static int64_t defaultDomainOpset(const onnx::ModelProto &model) {
  for (const onnx::OperatorSetIdProto &opset : model.opset_import())
    if (opset.domain().empty() || opset.domain() == "ai.onnx")
      return opset.version();
  return 0;
}

static bool parseModel(llvm::StringRef bytes, onnx::ModelProto &model,
                       std::string &error) {
  if (bytes.empty()) {
    error = "empty file, not an ONNX model";
    return false;
  }
  if (bytes.size() > static_cast<size_t>(INT_MAX)) {
    error = "the model is over 2 GB: store its weights as external data "
            "(onnx.save_model(..., save_as_external_data=True))";
    return false;
  }
  google::protobuf::io::CodedInputStream stream(
      reinterpret_cast<const uint8_t *>(bytes.data()),
      static_cast<int>(bytes.size()));
  // Nested graphs (If/Loop bodies) are the deepest legitimate nesting.
  stream.SetRecursionLimit(64);
  if (!model.ParseFromCodedStream(&stream) || !stream.ConsumedEntireMessage()) {
    error = "not a valid ONNX model (the protobuf does not parse: a "
            "truncated or corrupt file?)";
    return false;
  }
  return true;
}

std::unique_ptr<LoadedModel>
mlir::stc::onnx_import::loadModel(llvm::StringRef path, llvm::StringRef bytes,
                                  std::string &error) {
  ProtobufLogSilencer silencer;
  auto loaded = std::make_unique<LoadedModel>();
  loaded->model = std::make_unique<onnx::ModelProto>();
  onnx::ModelProto &model = *loaded->model;
  if (!parseModel(bytes, model, error))
    return nullptr;
  if (!model.has_graph() || !model.has_ir_version()) {
    error = "not an ONNX model (no " +
            std::string(model.has_graph() ? "ir_version" : "graph") + ")";
    return nullptr;
  }
  if (model.ir_version() < 7 || model.ir_version() > onnx::IR_VERSION) {
    error = "IR version " + std::to_string(model.ir_version()) +
            " is not supported (7 to " + std::to_string(onnx::IR_VERSION) + ")";
    return nullptr;
  }
  loaded->opset = defaultDomainOpset(model);
  if (loaded->opset < kMinOpset || loaded->opset > kMaxOpset) {
    error = (loaded->opset == 0
                 ? std::string("the model imports no ai.onnx opset")
                 : "opset " + std::to_string(loaded->opset) +
                       " of the default domain (ai.onnx) is not supported") +
            " (" + std::to_string(kMinOpset) + " to " +
            std::to_string(kMaxOpset) + ")";
    return nullptr;
  }
  llvm::SmallString<256> directory(path == "-" ? "" : path);
  llvm::sys::path::remove_filename(directory);
  loaded->directory = std::string(directory);

  // The checker's own entry point, with the model's directory set so that
  // it finds external data files (check_model(ModelProto) has none).
  onnx::checker::CheckerContext context;
  context.set_ir_version(static_cast<int>(model.ir_version()));
  std::unordered_map<std::string, int> opsets;
  for (const onnx::OperatorSetIdProto &opset : model.opset_import())
    opsets[opset.domain()] = static_cast<int>(opset.version());
  context.set_opset_imports(opsets);
  context.set_model_dir(loaded->directory.empty() ? "." : loaded->directory);
  try {
    onnx::checker::LexicalScopeContext scope;
    onnx::checker::check_graph(model.graph(), context, scope);
    onnx::checker::check_model_local_functions(model, context, scope);
  } catch (const std::exception &e) {
    error = "the ONNX checker rejects the model: " + oneLine(e.what());
    return nullptr;
  }
  return loaded;
}
