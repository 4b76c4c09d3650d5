//===- OnnxTargets.cpp - fuzz target of the ONNX importer -------*- C++ -*-===//
//
// The ONNX front end (compiler/onnx) on arbitrary bytes (FuzzTargets.h), as
// importOnnxModel runs it: loadModel (protobuf parse, versions, the ONNX
// checker), then GraphImporter. Called through those two rather than
// importOnnxModel so that the error comes back as a string (importOnnxModel
// prints it): a refusal must say why, and what is accepted must verify.
// Remarks (weights found 2:4 sparse) are swallowed. The pipeline does not
// run (pipeline-cpu's job).
//
// External data: the importer reads files named by the model (relative
// locations, no `..`, no absolute paths: HostTensor.cpp), from the model's
// directory, and the ONNX checker stats them there. The harness gives the
// model the path <dir>/fuzz.onnx, where <dir> is a private directory made
// once per process (mkdtemp) holding only what onnx_bad.py's external-data
// models expect: weights.bin (12 floats 0..11) and an empty directory adir.
// So the importer's external-data code runs, and can read nothing else.
//
//===----------------------------------------------------------------------===//
#include "test/Fuzz/FuzzTargets.h"

#include "compiler/onnx/Importer.h"
#include "compiler/onnx/ModelLoader.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

using namespace mlir;
namespace onnx_import = mlir::stc::onnx_import;

namespace {

[[noreturn]] void violated() { __builtin_trap(); }

const DialectRegistry &registry() {
  static const DialectRegistry *instance = [] {
    auto *r = new DialectRegistry();
    r->insert<arith::ArithDialect, func::FuncDialect, linalg::LinalgDialect,
              math::MathDialect, tensor::TensorDialect>();
    return r;
  }();
  return *instance;
}

std::string &modelDir() {
  static std::string dir;
  return dir;
}

void removeModelDir() {
  const std::string &dir = modelDir();
  (void)std::remove((dir + "/weights.bin").c_str());
  (void)rmdir((dir + "/adir").c_str());
  (void)rmdir(dir.c_str());
}

/// "<dir>/fuzz.onnx" in the private directory, made on first use.
const std::string &modelPath() {
  static const std::string path = [] {
    const char *tmp = std::getenv("TMPDIR");
    std::string pattern =
        std::string(tmp && *tmp ? tmp : "/tmp") + "/stc-fuzz-onnx.XXXXXX";
    if (!mkdtemp(pattern.data())) {
      std::perror("stc-fuzz onnx: mkdtemp");
      std::exit(2);
    }
    modelDir() = pattern;
    std::atexit(removeModelDir);
    // onnx_bad.py's weights.bin: np.arange(12, dtype=np.float32).
    std::FILE *f = std::fopen((pattern + "/weights.bin").c_str(), "wb");
    for (int i = 0; f && i < 12; ++i) {
      float v = static_cast<float>(i);
      std::fwrite(&v, sizeof v, 1, f);
    }
    if (!f || std::fclose(f) != 0 ||
        mkdir((pattern + "/adir").c_str(), 0700) != 0) {
      std::perror("stc-fuzz onnx: writing the model directory");
      std::exit(2);
    }
    return pattern + "/fuzz.onnx";
  }();
  return path;
}

} // namespace

int ::stc::fuzz::onnxTarget(const uint8_t *data, size_t size) {
  const std::string &path = modelPath();
  llvm::StringRef bytes(reinterpret_cast<const char *>(data), size);
  std::string error;
  std::unique_ptr<onnx_import::LoadedModel> model =
      onnx_import::loadModel(path, bytes, error);
  if (!model) {
    if (error.empty())
      violated(); // every refusal says why
    return 0;
  }
  MLIRContext context(registry(), MLIRContext::Threading::DISABLED);
  context.loadAllAvailableDialects();
  bool errorReported = false;
  context.getDiagEngine().registerHandler([&](Diagnostic &d) {
    if (d.getSeverity() == DiagnosticSeverity::Error)
      errorReported = true;
    return success();
  });
  onnx_import::GraphImporter importer(context, *model, path);
  OwningOpRef<ModuleOp> module = importer.run("main");
  if (!module) {
    if (importer.error().empty())
      violated();
    return 0;
  }
  if (errorReported)
    violated(); // the importer reports errors as its message, not here
  if (failed(verify(*module)))
    violated(); // an accepted model gives a valid module
  return 0;
}
