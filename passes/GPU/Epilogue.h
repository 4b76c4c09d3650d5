//===- Epilogue.h - the fused epilogue of every kernel ---------*- C++ -*-===//
//
// What happens to an accumulator before it is stored, the same in every
// kernel and in the CPU path's order: (alpha * scale) * product + beta *
// acc + bias, the activation (ReLU, GELU), the conversion to the output
// type; an i32 output is the exact accumulator.
//
//===----------------------------------------------------------------------===//
#ifndef STC_PASSES_GPU_EPILOGUE_H
#define STC_PASSES_GPU_EPILOGUE_H

#include "passes/GPU/KernelIR.h"
#include "passes/GPU/KernelProblem.h"
#include "passes/GPU/KernelPrologue.h"

namespace mlir::stc::gpu_kernel {

/// 2^x, approximately (ex2.approx.f32), for the GELU epilogues.
constexpr llvm::StringLiteral kEx2Intrinsic = "llvm.nvvm.ex2.approx";

/// `activation` of the f32 `x`.
Value emitActivation(KernelIR &ir, Activation activation, Value x);

/// Where results go: Out (R x P for a sparse lhs, its transpose with
/// leading dimension `outLd` for a sparse rhs), and the epilogue's operands.
struct OutputStore {
  Value out, bias, accIn, scale;
  Value rows, cols, outLd;
};
inline OutputStore outputStoreOf(const KernelPrologue &k) {
  return {k.args.out,  k.args.bias, k.args.accIn, k.args.scale,
          k.args.rows, k.args.cols, k.outLd};
}

/// The element index (i64) of Out[r][p] (canonical coordinates) in Out,
/// and in the epilogue's acc, which has Out's shape.
Value outputIndex(KernelIR &ir, const Problem &pb, const OutputStore &o,
                  Value r, Value p);

/// The epilogue's operands of row r (its scale and bias as f32; null where
/// the problem has none), loaded once for all of the row's accumulators;
/// element 0's where `inBounds` is false.
struct EpilogueRow {
  Value scale, bias;
};
EpilogueRow loadEpilogueRow(KernelIR &ir, const Problem &pb,
                            const OutputStore &o, Value r, Value inBounds);

/// The epilogue in two halves, in the CPU path's order: the scaled
/// product (alpha * scale) * v as f32 (`row` holds the scale), and the
/// rest, scaled + beta * acc + bias (acc and bias as f32, null where the
/// problem has none), the activation and the conversion to pb.outputType.
/// Not for an i32 result (the exact accumulator).
Value epilogueScaled(KernelIR &ir, const Problem &pb, Value v,
                     const EpilogueRow &row);
Value epilogueTail(KernelIR &ir, const Problem &pb, Value scaled, Value acc,
                   Value bias);

/// The epilogue of accumulator `v` (f32, f16 or, for i8, i32) of
/// Out[r][p] at element `index`: the value to store, of pb.outputType.
/// Where `inBounds` is given and false, its loads (scale, bias, acc) read
/// element 0 instead, and the value is garbage for the caller not to store.
/// With `row` (row r's operands), it loads only acc.
Value epilogueValue(KernelIR &ir, const Problem &pb, const OutputStore &o,
                    Value v, Value r, Value index, Value inBounds = Value(),
                    const EpilogueRow *row = nullptr);

/// Out[r][p] (canonical coordinates; nothing past R or P, nor where
/// `alsoInBounds` is false) = the epilogue of accumulator `v` (f32, f16
/// or, for i8, i32).
void storeResult(KernelIR &ir, const Problem &pb, const OutputStore &o, Value v,
                 Value r, Value p, Value alsoInBounds = Value());

} // namespace mlir::stc::gpu_kernel

#endif // STC_PASSES_GPU_EPILOGUE_H
