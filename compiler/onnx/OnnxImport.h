//===- OnnxImport.h - ONNX models to linalg on tensors ------*- C++ -*-===//
//
// The public entry points of the ONNX front end (library StcOnnxImport): an
// ONNX model file becomes a module with one function whose arguments and
// results are the graph's inputs and outputs, written in upstream
// linalg/tensor/arith/math on tensors in the forms the stc pipeline
// recognizes. See docs/ONNX.md for what is accepted.
//
// Errors are one line, "<tool>: error: <model>: <what>", naming the node
// ("node #3 'fc1' (Gemm)") where one is at fault; import stops at the
// first. Remarks (weights found 2:4 sparse) go to the context's diagnostic
// handlers, at the location of the ops of their node.
//
//===----------------------------------------------------------------------===//
#ifndef STC_COMPILER_ONNX_ONNXIMPORT_H
#define STC_COMPILER_ONNX_ONNXIMPORT_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace mlir::stc::onnx_import {

struct ImportOptions {
  /// Name of the function the graph becomes.
  std::string entry = "main";
};

/// Whether `path` is to be read as an ONNX model: its name ends in `.onnx`,
/// or `contents` (its first bytes, when known) start as a serialized
/// ModelProto does (field 1, ir_version), which no MLIR text does.
bool looksLikeOnnxModel(llvm::StringRef path, llvm::StringRef contents = {});

/// Imports the ONNX model in `bytes` (read from `path`, whose directory
/// holds any external data files). Prints "<tool>: error: ..." and returns
/// null on failure.
OwningOpRef<ModuleOp> importOnnxModel(llvm::StringRef tool,
                                      llvm::StringRef path,
                                      llvm::StringRef bytes,
                                      MLIRContext &context,
                                      const ImportOptions &options = {});

/// Reads and imports the ONNX model file `path`.
OwningOpRef<ModuleOp> importOnnxFile(llvm::StringRef tool, llvm::StringRef path,
                                     MLIRContext &context,
                                     const ImportOptions &options = {});

/// Lets stc-compile/stc-run (compiler/lib/ToolSupport.h) read `.onnx`
/// files where they read `.mlir`.
void registerOnnxInput();

} // namespace mlir::stc::onnx_import

#endif // STC_COMPILER_ONNX_ONNXIMPORT_H
