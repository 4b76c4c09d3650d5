//===- ImplicitGemm.cpp - addressing of the dense operand ------*- C++ -*-===//
//
// See ImplicitGemm.h.
//
//===----------------------------------------------------------------------===//
#include "passes/GPU/ImplicitGemm.h"

using namespace mlir;
using namespace mlir::stc;
using namespace mlir::stc::gpu_kernel;

PixelOrigin mlir::stc::gpu_kernel::pixelOrigin(KernelIR &ir, const Problem &pb,
                                               const KernelArgs &args,
                                               Value p) {
  ImplicitLocOpBuilder &b = ir.b;
  PixelOrigin origin;
  origin.ok = ir.lt(p, args.cols);
  if (!pb.conv)
    return origin;
  const ConvGeometry &cg = *pb.conv;
  Value image = ir.mul(args.outH, args.outW);
  Value n = arith::DivUIOp::create(b, p, image);
  Value rest = arith::RemUIOp::create(b, p, image);
  Value oh = arith::DivUIOp::create(b, rest, args.outW);
  Value ow = arith::RemUIOp::create(b, rest, args.outW);
  origin.pixelBase = ir.mul(n, ir.mul(args.inH, args.inW));
  origin.ih0 =
      arith::SubIOp::create(b, ir.mul(oh, ir.i32(cg.strideH)), ir.i32(cg.padH));
  origin.iw0 =
      arith::SubIOp::create(b, ir.mul(ow, ir.i32(cg.strideW)), ir.i32(cg.padW));
  return origin;
}

std::pair<Value, Value> mlir::stc::gpu_kernel::denseElement(
    KernelIR &ir, const Problem &pb, const KernelArgs &args, Value denseLd,
    const PixelOrigin &origin, Value p, Value k) {
  ImplicitLocOpBuilder &b = ir.b;
  Value ok = ir.both(origin.ok, ir.lt(k, args.depth));
  if (!pb.conv) {
    Value index =
        pb.denseKMajor
            ? ir.add(ir.mul(ir.wide(k), ir.wide(denseLd)), ir.wide(p))
            : ir.add(ir.mul(ir.wide(p), ir.wide(denseLd)), ir.wide(k));
    return {ok, index};
  }
  // k = (kh * KW + kw) * Cp + c; the tap (ih, iw) must be inside the image
  // and c a real channel.
  const ConvGeometry &cg = *pb.conv;
  Value tap = arith::DivUIOp::create(b, k, ir.i32(cg.cp));
  Value c = arith::RemUIOp::create(b, k, ir.i32(cg.cp));
  Value ih =
      ir.add(origin.ih0, ir.mul(arith::DivUIOp::create(b, tap, ir.i32(cg.kw)),
                                ir.i32(cg.dilationH)));
  Value iw =
      ir.add(origin.iw0, ir.mul(arith::RemUIOp::create(b, tap, ir.i32(cg.kw)),
                                ir.i32(cg.dilationW)));
  auto inside = [&](Value v, Value size) {
    // One unsigned compare: negative coordinates wrap to large values.
    return arith::CmpIOp::create(b, arith::CmpIPredicate::ult, v, size);
  };
  ok = ir.both(ok, ir.both(ir.both(inside(ih, args.inH), inside(iw, args.inW)),
                           ir.lt(c, ir.i32(cg.c))));
  Value pixel = ir.add(ir.add(origin.pixelBase, ir.mul(ih, args.inW)), iw);
  Value index =
      ir.add(ir.mul(ir.wide(pixel), ir.wide(ir.i32(cg.ic))), ir.wide(c));
  return {ok, index};
}
