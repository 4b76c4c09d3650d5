//===- InitAll.h - register every stc dialect and pass ------*- C++ -*-===//
//
// What every stc tool (and an embedder) registers: our dialect, the
// upstream dialects our inputs and lowerings use, our passes and pipeline.
//
//===----------------------------------------------------------------------===//
#ifndef STC_COMPILER_INITALL_H
#define STC_COMPILER_INITALL_H

#include "dialects/Stc/StcDialect.h"
#include "passes/Passes.h"
#include "passes/Pipelines.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Transforms/FuncBufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/SparseTensor/IR/SparseTensor.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"

namespace mlir::stc {

/// Registers the stc dialect, the upstream dialects that inputs and our
/// lowerings contain, and the external models bufferization and translation
/// to LLVM IR need.
inline void registerAllStcDialects(DialectRegistry &registry) {
  // clang-format off
  registry.insert<StcDialect,
                  affine::AffineDialect,
                  arith::ArithDialect,
                  bufferization::BufferizationDialect,
                  cf::ControlFlowDialect,
                  func::FuncDialect,
                  linalg::LinalgDialect,
                  LLVM::LLVMDialect,
                  math::MathDialect,
                  memref::MemRefDialect,
                  scf::SCFDialect,
                  sparse_tensor::SparseTensorDialect,
                  tensor::TensorDialect,
                  vector::VectorDialect>();
  // clang-format on
  arith::registerBufferizableOpInterfaceExternalModels(registry);
  bufferization::func_ext::registerBufferizableOpInterfaceExternalModels(
      registry);
  linalg::registerBufferizableOpInterfaceExternalModels(registry);
  scf::registerBufferizableOpInterfaceExternalModels(registry);
  tensor::registerBufferizableOpInterfaceExternalModels(registry);
  vector::registerBufferizableOpInterfaceExternalModels(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
}

/// Registers every stc pass and pipeline, plus the upstream passes our
/// tests run on their own.
inline void registerAllStcPasses() {
  registerStcPasses();
  registerStcPipelines();
  registerCanonicalizerPass();
  registerCSEPass();
}

} // namespace mlir::stc

#endif // STC_COMPILER_INITALL_H
