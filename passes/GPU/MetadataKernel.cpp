//===- MetadataKernel.cpp - the metadata a kernel reads -------*- C++ -*-===//
//
// See MetadataKernel.h.
//
//===----------------------------------------------------------------------===//
#include "passes/GPU/MetadataKernel.h"

#include "runtime/format/StcGpuLayout.h"
#include "runtime/format/StcHopperLayout.h"
#include "runtime/format/StcLimits.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::stc;
using namespace mlir::stc::gpu_kernel;

namespace {

/// Threads per block of the metadata conversion kernel.
constexpr int64_t kMetaKernelThreads = 256;

/// Emits `name`(meta, words, R, meta_cols, row_blocks, vectors, total): one
/// thread per kernel-ready word, the inverse reading of the layout's index
/// formula (docs/GPU-LAYOUT.md; mmaSpMetaWordSources in StcGpuLayout.cpp).
/// Lane (g, t) of row block rb, word s holds
/// - m16n8k32.b16 and m16n8k16.tf32: canonical rows 16 (t / 2) + g and + 8
///   of the block (bits 15:0 and 31:16), canonical column 2 s + t % 2;
/// - m16n8k64.i8 (`int8`): row 16 (s % 2) + g + 8 (t % 2) in both halves,
///   canonical columns 4 (s / 2) + 2 (t / 2) and + 1.
/// - wgmma m64nNk32.b16 (`MetaKernelLayout::hopper`, StcHopperLayout.h):
///   64-row tiles, 128 threads; thread T = 32 w + 4 g + q of tile rt, word
///   s holds canonical rows 16 w + g and + 8 (bits 15:0 and 31:16),
///   canonical column 4 s + q.
/// - wgmma m64nNk64.s8 (`MetaKernelLayout::hopperInt8`): the same tiles
///   and word order; word s holds canonical row 16 w + g + 8 (q % 2) in
///   both halves, canonical columns 4 s + 2 (q / 2) and + 1.
/// Groups follow each other (R rows each, row_blocks * vectors * 128 words
/// each, 512 for Hopper); rows and columns past the operand give the
/// padding half 0x4444.
enum class MetaKernelLayout { b16, int8, hopper, hopperInt8 };
void emitMetadataKernel(gpu::GPUModuleOp kernels, StringRef name, Location loc,
                        MetaKernelLayout layout) {
  const bool int8 = layout == MetaKernelLayout::int8;
  const bool hopper = layout == MetaKernelLayout::hopper ||
                      layout == MetaKernelLayout::hopperInt8;
  const int64_t threadsPerBlock = hopper ? 128 : 32;
  MLIRContext *ctx = kernels.getContext();
  ImplicitLocOpBuilder b(loc, ctx);
  b.setInsertionPointToEnd(kernels.getBody());
  Type i32 = b.getI32Type(), i64 = b.getI64Type();
  auto ptr = LLVM::LLVMPointerType::get(ctx);
  auto func = gpu::GPUFuncOp::create(
      b, name, FunctionType::get(ctx, {ptr, ptr, i32, i32, i32, i32, i32}, {}));
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  func.setKnownBlockSizeAttr(
      b.getDenseI32ArrayAttr({static_cast<int32_t>(kMetaKernelThreads), 1, 1}));
  Block &entry = func.getBody().front();
  b.setInsertionPointToStart(&entry);
  auto c = [&](int64_t v) { return arith::ConstantIntOp::create(b, v, 32); };
  auto global = [&](Value p) {
    return LLVM::AddrSpaceCastOp::create(b, LLVM::LLVMPointerType::get(ctx, 1),
                                         p);
  };
  Value meta = global(entry.getArgument(0));
  Value words = global(entry.getArgument(1));
  Value rows = entry.getArgument(2), metaCols = entry.getArgument(3),
        rowBlocks = entry.getArgument(4), vectors = entry.getArgument(5),
        total = entry.getArgument(6);
  auto toI32 = [&](Value index) {
    return arith::IndexCastOp::create(b, i32, index);
  };
  Value w = arith::AddIOp::create(
      b,
      arith::MulIOp::create(b,
                            toI32(gpu::BlockIdOp::create(b, gpu::Dimension::x)),
                            c(kMetaKernelThreads)),
      toI32(gpu::ThreadIdOp::create(b, gpu::Dimension::x)));
  auto inRange = scf::IfOp::create(
      b, arith::CmpIOp::create(b, arith::CmpIPredicate::ult, w, total),
      /*withElseRegion=*/false);
  b.setInsertionPointToStart(inRange.thenBlock());
  auto div = [&](Value x, Value y) { return arith::DivUIOp::create(b, x, y); };
  auto rem = [&](Value x, Value y) { return arith::RemUIOp::create(b, x, y); };
  auto add = [&](Value x, Value y) { return arith::AddIOp::create(b, x, y); };
  auto mul = [&](Value x, Value y) { return arith::MulIOp::create(b, x, y); };
  Value perGroup = mul(mul(rowBlocks, vectors), c(4 * threadsPerBlock));
  Value group = div(w, perGroup);
  Value inGroup = rem(w, perGroup);
  // inGroup = ((rb * V + s / 4) * threads + thread) * 4 + s % 4.
  Value thread = rem(div(inGroup, c(4)), c(threadsPerBlock));
  Value lane = rem(thread, c(32));
  Value vector = div(inGroup, c(4 * threadsPerBlock));
  Value rowBlock = div(vector, vectors);
  Value s = add(mul(rem(vector, vectors), c(4)), rem(inGroup, c(4)));
  Value g = div(lane, c(4)), t = rem(lane, c(4));
  Value blockRow = mul(rowBlock, c(hopper ? 64 : 32));
  // (row, column) of the low and the high half.
  Value row0, col0, row1, col1;
  if (layout == MetaKernelLayout::hopper) {
    row0 = add(add(blockRow, mul(div(thread, c(32)), c(16))), g);
    row1 = add(row0, c(8));
    col0 = col1 = add(mul(s, c(4)), t);
  } else if (layout == MetaKernelLayout::hopperInt8) {
    row0 = row1 = add(add(add(blockRow, mul(div(thread, c(32)), c(16))), g),
                      mul(rem(t, c(2)), c(8)));
    col0 = add(mul(s, c(4)), mul(div(t, c(2)), c(2)));
    col1 = add(col0, c(1));
  } else if (int8) {
    row0 = row1 = add(add(add(blockRow, mul(rem(s, c(2)), c(16))), g),
                      mul(rem(t, c(2)), c(8)));
    col0 = add(mul(div(s, c(2)), c(4)), mul(div(t, c(2)), c(2)));
    col1 = add(col0, c(1));
  } else {
    row0 = add(add(blockRow, mul(div(t, c(2)), c(16))), g);
    row1 = add(row0, c(8));
    col0 = col1 = add(mul(s, c(2)), rem(t, c(2)));
  }
  Value firstRow = mul(group, rows);
  auto half = [&](Value r, Value col) {
    Value ok = arith::AndIOp::create(
        b, arith::CmpIOp::create(b, arith::CmpIPredicate::ult, r, rows),
        arith::CmpIOp::create(b, arith::CmpIPredicate::ult, col, metaCols));
    Value index = arith::AddIOp::create(
        b,
        arith::MulIOp::create(b,
                              arith::ExtUIOp::create(b, i64, add(firstRow, r)),
                              arith::ExtUIOp::create(b, i64, metaCols)),
        arith::ExtUIOp::create(b, i64, col));
    Value safe = arith::SelectOp::create(
        b, ok, index, arith::ConstantIntOp::create(b, 0, 64));
    Value at = LLVM::GEPOp::create(b, meta.getType(), b.getI16Type(), meta,
                                   ValueRange{safe});
    Value v = LLVM::LoadOp::create(b, b.getI16Type(), at);
    v = arith::SelectOp::create(b, ok, v,
                                arith::ConstantIntOp::create(b, 0x4444, 16));
    return arith::ExtUIOp::create(b, i32, v).getResult();
  };
  Value word = arith::OrIOp::create(
      b, half(row0, col0), arith::ShLIOp::create(b, half(row1, col1), c(16)));
  Value at = LLVM::GEPOp::create(b, words.getType(), i32, words,
                                 ValueRange{arith::ExtUIOp::create(b, i64, w)});
  LLVM::StoreOp::create(b, word, at);
  b.setInsertionPointToEnd(&entry);
  gpu::ReturnOp::create(b);
}

} // namespace

/// The canonical words of constant metadata `constant` (rows x metaCols).
static std::vector<uint16_t> canonicalWords(DenseIntElementsAttr constant) {
  std::vector<uint16_t> canonical;
  canonical.reserve(constant.getNumElements());
  for (const APInt &v : constant.getValues<APInt>())
    canonical.push_back(static_cast<uint16_t>(v.getZExtValue()));
  return canonical;
}

/// A compiled-in constant of kernel-ready words, before `op`.
static Value wordsConstant(Operation *op, ArrayRef<int32_t> words) {
  OpBuilder b(op);
  auto type = RankedTensorType::get({static_cast<int64_t>(words.size())},
                                    b.getI32Type());
  return arith::ConstantOp::create(b, op->getLoc(), type,
                                   DenseElementsAttr::get(type, words))
      .getResult();
}

FailureOr<KernelMetadata> mlir::stc::gpu_kernel::prepareKernelMetadata(
    Operation *op, gpu::GPUModuleOp kernels, StringRef kernelName, Value meta,
    const Problem &pb, bool wgmma) {
  using namespace ::stc::format;
  KernelMetadata result;
  const WgmmaSpType wgmmaType = pb.int8 ? WgmmaSpType::I8 : WgmmaSpType::B16;
  if (wgmma) {
    result.rowsPerBlock = kWgmmaRows;
    result.kPerWord = getWgmmaSpTypeInfo(wgmmaType).blockK;
    result.threads = kWgmmaThreads;
  } else {
    result.rowsPerBlock = 32;
    result.kPerWord = pb.tf32 ? 16 : 32;
    result.threads = 32;
  }
  int64_t rows = pb.rows, k = pb.depth;
  int64_t groups = pb.conv ? pb.conv->groups : 1;
  DenseIntElementsAttr constant;
  if (!ShapedType::isDynamic(rows) && !ShapedType::isDynamic(k) &&
      matchPattern(meta, m_Constant(&constant))) {
    // Constant weights: the layout is computed here, once, and compiled in.
    int64_t metaCols = cast<RankedTensorType>(meta.getType()).getDimSize(1);
    // A splat of a huge shape is not expanded (docs/RELIABILITY.md, limits).
    if (uint64_t(constant.getNumElements()) > kMaxConstantBytes / 2)
      return op->emitError("stc-lower-spmm-to-gpu: constant metadata of ")
             << constant.getNumElements()
             << " elements is larger than the 2 GiB a constant may hold";
    std::vector<uint16_t> canonical = canonicalWords(constant);
    std::vector<int32_t> all;
    for (int64_t grp = 0; grp < groups; ++grp) {
      auto view = View2D<const uint16_t>::rowMajor(
          canonical.data() + grp * rows * metaCols, rows, metaCols);
      std::vector<uint32_t> words;
      Status status = wgmma ? toWgmmaSpMeta(wgmmaType, view, k, words)
                            : toMmaSpMeta(mmaShapeOf(pb), view, k, words);
      if (!status.ok())
        return op->emitError("stc-lower-spmm-to-gpu: constant metadata: ")
               << status.message;
      all.insert(all.end(), words.begin(), words.end());
    }
    result.operand = wordsConstant(op, all);
    result.layout = stc_gpu::MetaLayout::kernel_ready;
    return result;
  }
  // Run-time weights: canonical metadata, converted on the device.
  result.operand = meta;
  result.layout = stc_gpu::MetaLayout::canonical;
  result.conversionKernel = (kernelName + "_meta").str();
  MetaKernelLayout layout =
      wgmma
          ? (pb.int8 ? MetaKernelLayout::hopperInt8 : MetaKernelLayout::hopper)
          : (pb.int8 ? MetaKernelLayout::int8 : MetaKernelLayout::b16);
  emitMetadataKernel(kernels, result.conversionKernel, op->getLoc(), layout);
  return result;
}
