//===- StcGpuOps.cpp - stc_gpu operations -------------------*- C++ -*-===//
//
// The verifier and custom assembly of stc_gpu.wgmma_sp.
//
//===----------------------------------------------------------------------===//
#include "dialects/StcGpu/StcGpuOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::stc_gpu;

//===----------------------------------------------------------------------===//
// WgmmaSpOp
//===----------------------------------------------------------------------===//
// Every diagnostic of this section has a case in
// test/Dialect/StcGpu/wgmma-sp-invalid.mlir.

/// The accumulators have one type: the custom form prints it once
/// (`acc(%c0, %c1) : f32`) and gives the results the same types.
static ParseResult parseWgmmaAccTypes(
    OpAsmParser &parser, ArrayRef<OpAsmParser::UnresolvedOperand> acc,
    SmallVectorImpl<Type> &accTypes, SmallVectorImpl<Type> &newAccTypes) {
  Type type;
  if (parser.parseType(type))
    return failure();
  accTypes.assign(acc.size(), type);
  newAccTypes.assign(acc.size(), type);
  return success();
}

static void printWgmmaAccTypes(OpAsmPrinter &printer, WgmmaSpOp op,
                               OperandRange acc, TypeRange accTypes,
                               TypeRange newAccTypes) {
  if (!accTypes.empty())
    printer << accTypes.front();
  else if (!newAccTypes.empty())
    printer << newAccTypes.front();
  else
    printer << op.getDType();
}

StringRef WgmmaSpOp::getPtxTypeName(Type type) {
  if (type.isF16())
    return "f16";
  if (type.isBF16())
    return "bf16";
  if (type.isTF32())
    return "tf32";
  if (type.isF32())
    return "f32";
  if (isa<Float8E4M3FNType>(type))
    return "e4m3";
  if (isa<Float8E5M2Type>(type))
    return "e5m2";
  if (type.isSignedInteger(8))
    return "s8";
  if (type.isUnsignedInteger(8))
    return "u8";
  if (type.isSignlessInteger(32))
    return "s32";
  return "";
}

/// The input element types of wgmma.mma_async.sp, by family.
static bool isWgmmaSpInput(Type t) {
  return t.isF16() || t.isBF16() || t.isTF32() ||
         isa<Float8E4M3FNType, Float8E5M2Type>(t) || t.isSignedInteger(8) ||
         t.isUnsignedInteger(8);
}
static bool isWgmmaFp8(Type t) {
  return isa<Float8E4M3FNType, Float8E5M2Type>(t);
}
static bool isWgmmaInt8(Type t) {
  return t.isSignedInteger(8) || t.isUnsignedInteger(8);
}

int64_t WgmmaSpOp::getK() {
  Type a = getAType();
  if (a.isTF32())
    return 16;
  if (isWgmmaFp8(a) || isWgmmaInt8(a))
    return 64;
  return 32;
}

LogicalResult WgmmaSpOp::verify() {
  Type aType = getAType(), bType = getBType(), dType = getDType();
  for (auto [name, t] : {std::pair<StringRef, Type>{"a_type", aType},
                         std::pair<StringRef, Type>{"b_type", bType}})
    if (!isWgmmaSpInput(t))
      return emitOpError() << name
                           << " must be f16, bf16, tf32, f8E4M3FN, f8E5M2, "
                              "si8 or ui8, got "
                           << t;
  // A and B: the same 16- or 32-bit type, or two 8-bit types of one family
  // (e4m3/e5m2 and s8/u8 may be mixed).
  bool eightBit = isWgmmaFp8(aType) || isWgmmaInt8(aType);
  bool sameFamily = eightBit ? (isWgmmaFp8(aType) && isWgmmaFp8(bType)) ||
                                   (isWgmmaInt8(aType) && isWgmmaInt8(bType))
                             : aType == bType;
  if (!sameFamily)
    return emitOpError("a_type ")
           << aType << " and b_type " << bType
           << " do not form a sparse wgmma (f16, bf16 and tf32 need equal "
              "types; e4m3/e5m2 and s8/u8 mix only within their family)";
  // Accumulator type per input type.
  StringRef expected;
  bool legal;
  if (aType.isF16() || isWgmmaFp8(aType)) {
    legal = dType.isF32() || dType.isF16();
    expected = "f32 or f16";
  } else if (isWgmmaInt8(aType)) {
    legal = dType.isSignlessInteger(32);
    expected = "i32";
  } else {
    legal = dType.isF32();
    expected = "f32";
  }
  if (!legal)
    return emitOpError("d_type ") << dType << " is not legal for " << aType
                                  << " inputs (expected " << expected << ")";

  // Shape m64nNk<K>.
  int64_t n = getN();
  if (n < 8 || n > 256 || n % 8 != 0)
    return emitOpError("n must be a multiple of 8 from 8 to 256, got ") << n;
  if (isWgmmaInt8(aType) && n > 32 && n % 16 != 0)
    return emitOpError("n = ")
           << n
           << " is not a shape of 8-bit integer inputs (8, 16, 24, 32 or a "
              "multiple of 16 up to 256)";

  // Operand A: a descriptor or four registers.
  if (getADesc() && !getARegs().empty())
    return emitOpError(
        "expects A either as a descriptor (a_desc) or as registers "
        "(a_regs), not both");
  if (!getADesc() && getARegs().empty())
    return emitOpError(
        "expects A as a descriptor (a_desc) or as registers (a_regs)");
  if (!getADesc() && getARegs().size() != 4)
    return emitOpError("expects 4 A registers (a_regs), got ")
           << getARegs().size();

  // Accumulators: count and type per d_type.
  int64_t count = dType.isF16() ? n / 4 : n / 2;
  if (static_cast<int64_t>(getAcc().size()) != count)
    return emitOpError("expects ")
           << count << " accumulator registers for n = " << n << " and d_type "
           << dType << ", got " << getAcc().size();
  for (Type t : getAcc().getTypes()) {
    bool ok = dType.isF32() ? t.isF32()
              : dType.isF16()
                  ? t.isSignlessInteger(32) || t == VectorType::get({2}, dType)
                  : t.isSignlessInteger(32);
    if (!ok)
      return emitOpError("accumulator registers must be ")
             << (dType.isF32()   ? "f32"
                 : dType.isF16() ? "i32 or vector<2xf16>"
                                 : "i32")
             << " for d_type " << dType << ", got " << t;
    if (t != getAcc().front().getType())
      return emitOpError("accumulator registers must all have one type, got ")
             << getAcc().front().getType() << " and " << t;
  }
  if (getNewAcc().getTypes() != getAcc().getTypes())
    return emitOpError("results must have the accumulators' types (")
           << getAcc().size() << " x " << getAcc().front().getType() << ")";

  // Immediates.
  int32_t sel = getSel();
  int32_t maxSel = eightBit ? 0 : 1;
  if (sel < 0 || sel > maxSel)
    return emitOpError("sel must be ") << (eightBit ? "0" : "0 or 1") << " for "
                                       << aType << " inputs, got " << sel;
  for (auto [name, scale] :
       {std::pair<StringRef, int32_t>{"scale_a", getScaleA()},
        std::pair<StringRef, int32_t>{"scale_b", getScaleB()}}) {
    if (scale != 1 && scale != -1)
      return emitOpError() << name << " must be 1 or -1, got " << scale;
    if (scale != 1 && isWgmmaInt8(aType))
      return emitOpError() << name << " (negation) needs floating point "
                           << "inputs, got " << aType;
  }
  bool transposable = aType.isF16() || aType.isBF16();
  if ((getTransA() || getTransB()) && !transposable)
    return emitOpError("trans_a/trans_b need f16 or bf16 inputs, got ")
           << aType;
  if (getTransA() && !getADesc())
    return emitOpError("trans_a needs A from a descriptor (a_desc)");
  if (getSatfinite() && !isWgmmaInt8(aType))
    return emitOpError("satfinite needs 8-bit integer inputs, got ") << aType;
  return success();
}

#define GET_OP_CLASSES
#include "dialects/StcGpu/StcGpuOps.cpp.inc"
