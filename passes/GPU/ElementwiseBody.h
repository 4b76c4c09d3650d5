//===- ElementwiseBody.h - a linalg.generic's body inside a kernel -*- C++
//-*-//
//
// What the kernels of stc-lower-elementwise-to-gpu share, one thread per
// element (LowerElementwiseToGpu.cpp) or a group of threads per row
// (RowKernel.h): reading an operand of a linalg.generic at the loop
// indices a thread holds (through a transpose, a broadcast, a
// convolution's window or a zero pad), cloning the op's body there, and
// the combining op of a reduction.
//
//===----------------------------------------------------------------------===//
#ifndef STC_PASSES_GPU_ELEMENTWISEBODY_H
#define STC_PASSES_GPU_ELEMENTWISEBODY_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"

#include <string>

namespace mlir::stc::gpu_kernel {

/// The tensor.pad producing `v` when a kernel can read through it: a
/// constant padding value and static padding, on dimensions of static size
/// in its source. The kernel then reads the source, at the index minus the
/// low padding, and the padding value outside it (no padded copy).
tensor::PadOp foldablePad(Value v);

/// The constant a linalg.fill writes into `init`, if `init` is one.
arith::ConstantOp filledConstant(Value init);

/// The op of `op`'s body that combines the result with one new value, if
/// the body is `combine(acc, f(inputs))` for an associative and commutative
/// `combine` with an identity (identityOf) and reads the result nowhere
/// else: its rows can be reduced by many threads.
Operation *reductionCombiner(linalg::GenericOp op);

/// The identity of `combine` (reductionCombiner) for values of `type`.
Value identityOf(ImplicitLocOpBuilder &b, Operation *combine, Type type);

/// `combine` (reductionCombiner) applied to `x` and `y`.
Value combineWith(ImplicitLocOpBuilder &b, Operation *combine, Value x,
                  Value y);

/// Expands the math functions of `kernel` into arith (no libdevice to
/// link, the same code on the emulator). Fails, saying why, when one has
/// no such expansion; the caller erases the kernel (eraseKernel).
LogicalResult expandKernelMath(gpu::GPUFuncOp kernel, std::string &why);

/// Erases a kernel that cannot be built, with its shared memory (globals
/// named after it).
void eraseKernel(gpu::GPUModuleOp kernels, gpu::GPUFuncOp kernel);

/// A new elementwise kernel @`name` at the end of `kernels`: a pointer per
/// input, the result's pointer, an i32 per loop; marked a kernel and
/// `stc_gpu.elementwise`.
gpu::GPUFuncOp createElementwiseKernel(gpu::GPUModuleOp kernels, Location loc,
                                       StringRef name, unsigned numInputs,
                                       unsigned numLoops);

/// Emits, inside a kernel, what linalg.generic ops compute at the loop
/// indices `ivs` (i64 values, one per loop, set by the kernel as it goes;
/// `sizes` are the loops' sizes). Index arithmetic is in i64, not `index`:
/// a loop's index-typed block argument would not survive
/// convert-gpu-to-nvvm (which converts the branches but not the arith ops
/// that feed them).
class BodyEmitter {
public:
  BodyEmitter(ImplicitLocOpBuilder &b, int64_t numLoops)
      : b(b), ivs(numLoops) {}

  ImplicitLocOpBuilder &b;
  SmallVector<Value> ivs, sizes;

  Value index(int64_t v);
  /// Sets `sizes`: each loop's static size as a constant (every op has
  /// its own kernel: dividing by a constant is a shift or a multiply-high,
  /// not a 64-bit division), a dynamic one from the kernel's i32 parameter
  /// `firstSizeParam` + the loop.
  void setSizes(ArrayRef<int64_t> staticRanges, gpu::GPUFuncOp kernel,
                unsigned firstSizeParam);
  /// The product of the sizes of `dims`.
  Value product(ArrayRef<unsigned> dims);
  /// Sets the indices of `dims` from the row-major `flat`, the last fastest.
  void split(Value flat, ArrayRef<unsigned> dims);
  /// The element of `in` (an operand of `op`) at `ivs`, from `base`, the
  /// kernel's pointer to that tensor (to a folded pad's source: the
  /// padding value outside it).
  Value load(linalg::GenericOp op, OpOperand *in, Value base);
  /// `op`'s body at `ivs`: `valueOf` gives each tensor operand's value
  /// (the result's running value for the init, where the body reads it);
  /// scalar inputs and constants the body captures are copied in.
  Value emitBody(linalg::GenericOp op,
                 function_ref<Value(OpOperand *)> valueOf);

private:
  Value evaluate(AffineExpr e);
  Value offsetOf(linalg::GenericOp op, OpOperand *in, tensor::PadOp pad,
                 Value &inside);
};

} // namespace mlir::stc::gpu_kernel

#endif // STC_PASSES_GPU_ELEMENTWISEBODY_H
