//===- KernelHostCall.cpp - where kernels go, how the host calls them -----===//
//
// passes/GPU/KernelHostCall.h says what and why.
//
//===----------------------------------------------------------------------===//
#include "passes/GPU/KernelHostCall.h"

#include "dialects/StcGpu/StcGpuDialect.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

using namespace mlir;

gpu::GPUModuleOp
mlir::stc::gpu_kernel::getOrCreateKernelModule(ModuleOp module) {
  if (auto existing = module.lookupSymbol<gpu::GPUModuleOp>("stc_kernels"))
    return existing;
  module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                  UnitAttr::get(module.getContext()));
  OpBuilder mb(module.getBodyRegion());
  mb.setInsertionPointToEnd(module.getBody());
  return gpu::GPUModuleOp::create(mb, module.getLoc(), "stc_kernels");
}

void mlir::stc::gpu_kernel::replaceWithHostCall(
    Operation *op, gpu::GPUModuleOp kernels, StringRef kernel,
    ValueRange tensors, ValueRange resultSizes, ValueRange trailing) {
  MLIRContext *ctx = op->getContext();
  ImplicitLocOpBuilder b(op->getLoc(), op);
  auto bufferType = [](Type t) {
    auto tensor = cast<RankedTensorType>(t);
    return MemRefType::get(tensor.getShape(), tensor.getElementType());
  };
  SmallVector<Value> args;
  for (Value t : tensors)
    args.push_back(bufferization::ToBufferOp::create(b, bufferType(t.getType()),
                                                     t, /*readOnly=*/true));
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  Value out = memref::AllocOp::create(b, bufferType(resultType), resultSizes);
  args.push_back(out);
  args.append(trailing.begin(), trailing.end());

  auto module = op->getParentOfType<ModuleOp>();
  OpBuilder mb(module.getBodyRegion());
  mb.setInsertionPointToEnd(module.getBody());
  auto host = func::FuncOp::create(
      mb, op->getLoc(), (kernel + "_host").str(),
      FunctionType::get(ctx, ValueRange(args).getTypes(), {}));
  host.setPrivate();
  host->setAttr(stc_gpu::StcGpuDialect::kLaunchesAttrName,
                SymbolRefAttr::get(kernels.getNameAttr(),
                                   {FlatSymbolRefAttr::get(ctx, kernel)}));
  func::CallOp::create(b, host, args);
  Value result = bufferization::ToTensorOp::create(
      b, resultType, out, /*restrict=*/true, /*writable=*/true);
  op->getResult(0).replaceAllUsesWith(result);
  op->erase();
}
