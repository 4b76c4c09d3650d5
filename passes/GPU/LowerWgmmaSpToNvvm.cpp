//===- LowerWgmmaSpToNvvm.cpp - stc_gpu.wgmma_sp to inline PTX ----*- C++
//-*-===//
//
// Lowers stc_gpu.wgmma_sp to one llvm.inline_asm holding the exact PTX
// `wgmma.mma_async.sp.sync.aligned...` instruction (sm_90a). The accumulator
// registers are outputs tied to the old accumulators (read-write in one
// register set); A/B descriptors, A registers, the metadata and a run-time
// scale-d predicate are inputs; the selector, scales and transpose flags are
// immediates in the text. See StcLowerWgmmaSpToNvvm in passes/Passes.td for
// why this is not nvvm.inline_ptx.
//
//===----------------------------------------------------------------------===//
#include "dialects/StcGpu/StcGpuOps.h"
#include "passes/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/Support/raw_ostream.h"

#define DEBUG_TYPE "stc-lower-wgmma-sp-to-nvvm"

namespace mlir::stc {
#define GEN_PASS_DEF_STCLOWERWGMMASPTONVVM
#include "passes/Passes.h.inc"
} // namespace mlir::stc

using namespace mlir;
using namespace mlir::stc;

namespace {

/// The PTX text and the constraint string of one stc_gpu.wgmma_sp, with the
/// inline-asm operands in constraint order (outputs are not operands).
struct WgmmaSpAsm {
  std::string ptx;
  std::string constraints;
};

/// Builds the instruction for `op` with `numAcc` accumulator registers of
/// register class `accClass` ('f' or 'r'). Operand numbering: outputs
/// $0..$(numAcc-1), tied inputs $numAcc..$(2*numAcc-1), then A, B, meta and
/// the scale-d predicate when it is a run-time value (`scaleD` empty).
static WgmmaSpAsm buildWgmmaSpAsm(stc_gpu::WgmmaSpOp op, unsigned numAcc,
                                  char accClass, std::optional<bool> scaleD) {
  Type aType = op.getAType();
  bool is16Bit = aType.isF16() || aType.isBF16();
  bool isFloat = !aType.isSignedInteger(8) && !aType.isUnsignedInteger(8);
  bool aFromDesc = static_cast<bool>(op.getADesc());

  WgmmaSpAsm result;
  llvm::raw_string_ostream ptx(result.ptx);
  llvm::raw_string_ostream constraints(result.constraints);
  unsigned next = 0;
  auto operand = [&](const char *constraint) {
    constraints << "," << constraint;
    return "$" + std::to_string(next++);
  };

  ptx << "wgmma.mma_async.sp.sync.aligned.m64n" << op.getN() << "k"
      << op.getK();
  if (op.getSatfinite())
    ptx << ".satfinite";
  ptx << "." << stc_gpu::WgmmaSpOp::getPtxTypeName(op.getDType()) << "."
      << stc_gpu::WgmmaSpOp::getPtxTypeName(aType) << "."
      << stc_gpu::WgmmaSpOp::getPtxTypeName(op.getBType());

  // d: outputs, then the tied inputs (the accumulators' old values).
  ptx << " {";
  for (unsigned i = 0; i < numAcc; ++i) {
    ptx << (i ? ", " : "") << "$" << next++;
    constraints << (i ? ",=" : "=") << accClass;
  }
  ptx << "}";
  for (unsigned i = 0; i < numAcc; ++i) {
    constraints << "," << i;
    ++next;
  }
  // a-desc or {a0, a1, a2, a3}.
  if (aFromDesc) {
    ptx << ", " << operand("l");
  } else {
    ptx << ", {";
    for (unsigned i = 0; i < 4; ++i)
      ptx << (i ? ", " : "") << operand("r");
    ptx << "}";
  }
  // b-desc, sp-meta, sp-sel, scale-d.
  ptx << ", " << operand("l");
  ptx << ", " << operand("r");
  ptx << ", " << static_cast<int32_t>(op.getSel());
  if (scaleD)
    ptx << ", " << (*scaleD ? 1 : 0);
  else
    ptx << ", " << operand("b");
  // I32Attr accessors return uint32_t: print the scales signed.
  // imm-scale-a, imm-scale-b (floating point), imm-trans-a (descriptor A),
  // imm-trans-b (f16/bf16).
  if (isFloat)
    ptx << ", " << static_cast<int32_t>(op.getScaleA()) << ", "
        << static_cast<int32_t>(op.getScaleB());
  if (is16Bit) {
    if (aFromDesc)
      ptx << ", " << (op.getTransA() ? 1 : 0);
    ptx << ", " << (op.getTransB() ? 1 : 0);
  }
  ptx << ";";
  return result;
}

/// stc_gpu.wgmma_sp -> llvm.inline_asm (+ bitcasts of vector<2xf16> registers
/// and the extraction of the results from the asm's struct).
struct WgmmaSpLowering : OpConversionPattern<stc_gpu::WgmmaSpOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(stc_gpu::WgmmaSpOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type accType = op.getAcc().front().getType();
    bool packed = isa<VectorType>(accType);
    Type regType = packed ? rewriter.getI32Type() : accType;
    char accClass = regType.isF32() ? 'f' : 'r';

    // A constant (or absent) scale-d is an immediate.
    std::optional<bool> scaleD = true;
    if (Value pred = op.getScaleD()) {
      APInt value;
      if (matchPattern(pred, m_ConstantInt(&value)))
        scaleD = !value.isZero();
      else
        scaleD = std::nullopt;
    }

    unsigned numAcc = op.getAcc().size();
    WgmmaSpAsm text = buildWgmmaSpAsm(op, numAcc, accClass, scaleD);

    SmallVector<Value> operands;
    for (Value acc : adaptor.getAcc())
      operands.push_back(
          packed ? LLVM::BitcastOp::create(rewriter, loc, regType, acc) : acc);
    if (Value desc = adaptor.getADesc())
      operands.push_back(desc);
    llvm::append_range(operands, adaptor.getARegs());
    operands.push_back(adaptor.getBDesc());
    operands.push_back(adaptor.getMeta());
    if (!scaleD)
      operands.push_back(adaptor.getScaleD());

    Type asmResult = numAcc == 1 ? regType
                                 : LLVM::LLVMStructType::getLiteral(
                                       rewriter.getContext(),
                                       SmallVector<Type>(numAcc, regType));
    auto asmOp = LLVM::InlineAsmOp::create(
        rewriter, loc, asmResult, operands, text.ptx, text.constraints,
        /*has_side_effects=*/true, /*is_align_stack=*/false,
        LLVM::TailCallKind::None,
        LLVM::AsmDialectAttr::get(rewriter.getContext(),
                                  LLVM::AsmDialect::AD_ATT),
        /*operand_attrs=*/ArrayAttr());

    SmallVector<Value> results;
    for (unsigned i = 0; i < numAcc; ++i) {
      Value reg = numAcc == 1 ? asmOp.getResult(0)
                              : LLVM::ExtractValueOp::create(
                                    rewriter, loc, asmOp.getResult(0), i);
      results.push_back(
          packed ? LLVM::BitcastOp::create(rewriter, loc, accType, reg) : reg);
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

struct StcLowerWgmmaSpToNvvmPass final
    : mlir::stc::impl::StcLowerWgmmaSpToNvvmBase<StcLowerWgmmaSpToNvvmPass> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    unsigned count = 0;
    getOperation()->walk([&](stc_gpu::WgmmaSpOp) { ++count; });
    if (count == 0)
      return;

    ConversionTarget target(*context);
    target.addIllegalOp<stc_gpu::WgmmaSpOp>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    RewritePatternSet patterns(context);
    patterns.add<WgmmaSpLowering>(context);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns)))) {
      signalPassFailure();
      return;
    }
    numLowered += count;
  }
};

} // namespace
