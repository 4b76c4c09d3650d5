//===- StcGpuDialect.cpp - stc_gpu dialect ------------------*- C++ -*-===//
//
// Dialect registration and the verifier of its discardable attributes
// (`stc_gpu.kernel_config` on stc.spmm / stc.conv, `stc_gpu.kernel_info`
// on a generated kernel, `stc_gpu.launches` on its host function).
//
//===----------------------------------------------------------------------===//
#include "dialects/StcGpu/StcGpuDialect.h"
#include "dialects/StcGpu/StcGpuAttrs.h"
#include "dialects/StcGpu/StcGpuOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::stc_gpu;

#include "dialects/StcGpu/StcGpuDialect.cpp.inc"
#include "dialects/StcGpu/StcGpuEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/StcGpu/StcGpuAttrs.cpp.inc"

void StcGpuDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/StcGpu/StcGpuAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "dialects/StcGpu/StcGpuOps.cpp.inc"
      >();
}

// Every diagnostic below has a case in
// test/Dialect/StcGpu/kernel-config-invalid.mlir.
LogicalResult StcGpuDialect::verifyOperationAttribute(Operation *op,
                                                      NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  // The ops are named rather than linked against: the stc dialect sits
  // above this one.
  StringRef opName = op->getName().getStringRef();
  if (name == KernelConfigAttr::kAttrName) {
    if (!isa<KernelConfigAttr>(attr.getValue()))
      return op->emitError() << name << " must be a #stc_gpu.kernel_config";
    // A linalg op: a dense contraction for the tensor-core kernel (which
    // ones qualify, stc-lower-spmm-to-gpu checks).
    if (opName != "stc.spmm" && opName != "stc.conv" &&
        !opName.starts_with("linalg."))
      return op->emitError() << name
                             << " configures stc.spmm, stc.conv and dense "
                                "linalg contractions, not "
                             << opName;
    return success();
  }
  if (name == KernelInfoAttr::kAttrName) {
    // On the gpu.func, and on what it becomes (llvm.func in NVVM, the
    // emulator's func.func).
    if (!isa<KernelInfoAttr>(attr.getValue()))
      return op->emitError() << name << " must be a #stc_gpu.kernel_info";
    return success();
  }
  if (name == kLaunchesAttrName) {
    if (!isa<SymbolRefAttr>(attr.getValue()))
      return op->emitError() << name << " must name the kernel it launches";
    if (opName != "func.func")
      return op->emitError()
             << name << " marks a host function, not " << opName;
    return success();
  }
  if (name == kElementwiseAttrName || name == kBlockPerElementAttrName) {
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitError() << name << " is a unit attribute";
    return success();
  }
  if (name == kRowsPerBlockAttrName || name == kElementsPerThreadAttrName) {
    auto count = dyn_cast<IntegerAttr>(attr.getValue());
    if (!count || count.getInt() < 1)
      return op->emitError() << name << " must be a positive integer";
    return success();
  }
  return op->emitError() << "unknown stc_gpu attribute " << name
                         << " (expected " << KernelConfigAttr::kAttrName << ", "
                         << KernelInfoAttr::kAttrName << ", "
                         << kLaunchesAttrName << ", " << kElementwiseAttrName
                         << ", " << kBlockPerElementAttrName << ", "
                         << kRowsPerBlockAttrName << " or "
                         << kElementsPerThreadAttrName << ")";
}
