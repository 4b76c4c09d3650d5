//===- OnnxImport.cpp - ONNX models to linalg on tensors ----*- C++ -*-===//
//
// See OnnxImport.h: loading and checking (ModelLoader), then the graph
// conversion (GraphImporter).
//
//===----------------------------------------------------------------------===//
#include "compiler/onnx/OnnxImport.h"
#include "compiler/onnx/Importer.h"
#include "compiler/onnx/ModelLoader.h"

#include "compiler/lib/ToolSupport.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::stc::onnx_import;

bool mlir::stc::onnx_import::looksLikeOnnxModel(llvm::StringRef path,
                                                llvm::StringRef contents) {
  if (path.ends_with(".onnx"))
    return true;
  // Field 1 (ir_version), varint: the tag byte 0x08, which serializers
  // write first and no MLIR text starts with.
  return !contents.empty() && contents[0] == '\x08';
}

static void printError(llvm::StringRef tool, llvm::StringRef path,
                       const llvm::Twine &message) {
  llvm::errs() << tool << ": error: " << path << ": " << message << "\n";
}

OwningOpRef<ModuleOp> mlir::stc::onnx_import::importOnnxModel(
    llvm::StringRef tool, llvm::StringRef path, llvm::StringRef bytes,
    MLIRContext &context, const ImportOptions &options) {
  std::string error;
  std::unique_ptr<LoadedModel> model = loadModel(path, bytes, error);
  if (!model) {
    printError(tool, path, error);
    return nullptr;
  }
  context.loadDialect<arith::ArithDialect, func::FuncDialect,
                      linalg::LinalgDialect, math::MathDialect,
                      tensor::TensorDialect>();
  GraphImporter importer(context, *model, path);
  OwningOpRef<ModuleOp> module = importer.run(options.entry);
  if (!module)
    printError(tool, path, importer.error());
  return module;
}

OwningOpRef<ModuleOp> mlir::stc::onnx_import::importOnnxFile(
    llvm::StringRef tool, llvm::StringRef path, MLIRContext &context,
    const ImportOptions &options) {
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> file = openInputFile(path, &error);
  if (!file) {
    llvm::errs() << tool << ": error: " << error << "\n";
    return nullptr;
  }
  return importOnnxModel(tool, path, file->getBuffer(), context, options);
}

void mlir::stc::onnx_import::registerOnnxInput() {
  InputImporter importer;
  importer.claims = [](llvm::StringRef path, llvm::StringRef contents) {
    return looksLikeOnnxModel(path, contents);
  };
  importer.import = [](llvm::StringRef tool, llvm::StringRef path,
                       llvm::StringRef contents, MLIRContext &context) {
    return importOnnxModel(tool, path, contents, context);
  };
  registerInputImporter(std::move(importer));
}
