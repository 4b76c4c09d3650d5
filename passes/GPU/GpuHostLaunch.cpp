//===- GpuHostLaunch.cpp - host code that launches stc kernels -*- C++ -*-===//
//
// Defines the bodies of the private host functions stc-lower-spmm-to-gpu
// declared (attribute `stc_gpu.launches`), after bufferization: their
// arguments are the host buffers of the kernel's inputs and, last, of the
// result. The body allocates device buffers, copies the inputs in, launches
// the kernel with the configuration of its `stc_gpu.kernel_info`, copies the
// result back and frees the device buffers. An empty result launches
// nothing (a grid of zero blocks is a launch error). A staged kernel with a
// `fallback_kernel` (a dynamic leading dimension) is launched only when the
// rows it copies with cp.async are 16-byte aligned: the dense operand's
// leading dimension and the values' row length multiples of `staged_align`
// elements (the device buffers are this pass's own gpu.allocs, so their
// base addresses are aligned); otherwise the direct fallback runs.
//
// Operands that are constants of the program at every call site (the
// compressed weights, their metadata, a bias: memref.get_global of a
// constant global) are not copied per call: stc_gpu_resident uploads each
// once into a slot, a zero-initialized global of the program, and returns
// it from there on; the program's destructor (llvm.mlir.global_dtors)
// releases them (stc_gpu_release_resident), so a loaded program's weights
// stay on the device until it is unloaded. Other device buffers come from
// the runtime's caching pool (mgpuMemAlloc), so from the second call on a
// call allocates nothing and copies only its activations.
//
// Intermediates stay on the device: a buffer the program allocates (a
// kernel's result) that nothing but kernels reads -- its only uses are
// launch-function calls, reshapes (expand_shape, collapse_shape) that only
// kernels read, its deallocation and the pointer bookkeeping of the
// ownership-based deallocation -- becomes a device buffer (gpu.alloc,
// gpu.dealloc), and the launch functions take it as it is: no copy out of
// the kernel that writes it, no copy into the ones that read it. What the
// host reads (the program's results) is copied back as before. A program
// argument that several kernels read is uploaded once per call, at entry,
// and freed before each return.
//
// Synchronous gpu ops: gpu-async-region, in the finalize pipeline, turns them
// into one ordered stream.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"
#include "passes/RuntimeCalls.h"

#include "dialects/StcGpu/StcGpuAttrs.h"
#include "dialects/StcGpu/StcGpuDialect.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::stc {
#define GEN_PASS_DEF_STCGPUHOSTLAUNCH
#include "passes/Passes.h.inc"
} // namespace mlir::stc

using namespace mlir;
using namespace mlir::stc;
using stc_gpu::KernelInfoAttr;

namespace {

class GpuHostLaunch
    : public mlir::stc::impl::StcGpuHostLaunchBase<GpuHostLaunch> {
public:
  using StcGpuHostLaunchBase::StcGpuHostLaunchBase;
  void runOnOperation() override;

private:
  LogicalResult define(func::FuncOp host);
  /// The body for an `stc_gpu.elementwise` kernel (stc-lower-elementwise-
  /// to-gpu): one thread per element of the result, 256 per block.
  LogicalResult defineElementwise(func::FuncOp host, gpu::GPUFuncOp kernel);
  /// Device addresses of the host buffers `inputs` (resident uploads for
  /// constants, else copies into pool blocks recorded in `deviceBuffers`).
  /// The kernel's pointer to `host`'s result buffer `out`: `out` itself when
  /// it is a device buffer at every call, else a new device buffer (also in
  /// `deviceOut` and `deviceBuffers`) that finishHost copies back.
  Value deviceResult(ImplicitLocOpBuilder &b, func::FuncOp host, Value out,
                     Value &deviceOut, SmallVectorImpl<Value> &deviceBuffers);
  SmallVector<Value> deviceInputs(ImplicitLocOpBuilder &b, func::FuncOp host,
                                  ValueRange inputs,
                                  SmallVectorImpl<Value> &deviceBuffers);
  /// Which arguments of `host` are the same constant global at every call.
  SmallVector<bool> constantArguments(func::FuncOp host);
  /// Which arguments of `host` are device buffers at every call.
  SmallVector<bool> deviceArguments(func::FuncOp host);
  /// For each argument of `host`, whether `holds` is true of its operands
  /// at all the calls of `host` (false for every argument when `host` has a
  /// use that is not such a call).
  SmallVector<bool>
  argumentsAtEveryCall(func::FuncOp host,
                       function_ref<bool(ArrayRef<Value>)> holds);
  /// Turns the buffers only kernels use into device buffers.
  void placeDeviceBuffers();
  /// Uploads once per call each buffer argument of the program that more
  /// than one kernel reads.
  void placeDeviceInputs();
  /// device-entry: the public functions' buffer arguments are device
  /// memory (an error where the host reads one), and their results are
  /// made device buffers.
  LogicalResult placeDeviceEntries();
  /// Whether `op` calls a launch function (marked stc_gpu.launches).
  bool isLaunchCall(Operation *op) {
    auto call = dyn_cast<func::CallOp>(op);
    auto callee =
        call ? getOperation().lookupSymbol<func::FuncOp>(call.getCallee())
             : func::FuncOp();
    return callee && callee->hasAttr(stc_gpu::StcGpuDialect::kLaunchesAttrName);
  }
  bool isDeviceEntry(func::FuncOp f) {
    return deviceEntry && f.isPublic() && !f.isDeclaration();
  }

  /// Values known to be device buffers besides gpu.alloc results: the
  /// arguments of device entries.
  llvm::DenseSet<Value> deviceValues;
  /// The device address of constant `hostBuffer`, uploaded once into a new
  /// slot (stc_gpu_resident).
  Value residentCopy(ImplicitLocOpBuilder &b, Value hostBuffer);
  /// The function that releases every slot at unload, as a destructor.
  void defineResidentRelease();

  /// The slots residentCopy made, in order.
  SmallVector<LLVM::GlobalOp> residentSlots;
  /// Builds the TMA descriptors of kernel_info `tensor_maps` (in the order
  /// of their parameters) from the operands' device buffers, whose
  /// pointers are the first entries of `kernelArgs`, and appends them.
  /// `metaRowBlocks` x `metaVectors` (index) are the kernel-ready
  /// metadata's row blocks (all groups) and 128-bit vectors per thread and
  /// row block: a map over `meta` sees those words as 4-D.
  LogicalResult appendTensorMaps(ImplicitLocOpBuilder &b, KernelInfoAttr info,
                                 func::FuncOp host,
                                 SmallVectorImpl<Value> &kernelArgs,
                                 Value metaRowBlocks, Value metaVectors);
};

/// A reshape of a buffer (memref.expand_shape, memref.collapse_shape): the
/// same memory, contiguous as its source, which a kernel takes in the
/// source's place. A transformer's attention reads its projections through
/// them (1024x768 -> 8x128x12x64 for the heads); before they counted as
/// host reads, every projection went to host memory and back between its
/// kernels (bert_layer at batch 32 spent about 20 ms per call in pageable
/// copies, against 0.5 ms of kernels, on an H200, 2026-11-27).
static bool isReshape(Operation *op) {
  return isa_and_nonnull<memref::ExpandShapeOp, memref::CollapseShapeOp>(op);
}

/// The buffer that `v`, through any chain of reshapes, is a view of.
static Value reshapedBuffer(Value v) {
  while (isReshape(v.getDefiningOp()))
    v = v.getDefiningOp()->getOperand(0);
  return v;
}

/// A device buffer of `buffer`'s type and sizes.
static Value allocDeviceLike(ImplicitLocOpBuilder &b, Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d))
      sizes.push_back(memref::DimOp::create(b, buffer, d));
  return gpu::AllocOp::create(b, type, /*asyncToken=*/Type(), ValueRange{},
                              sizes, ValueRange{})
      .getMemref();
}

/// The address of `buffer` as a kernel pointer argument.
static Value pointerTo(ImplicitLocOpBuilder &b, Value buffer) {
  Value address = arith::IndexCastOp::create(
      b, b.getI64Type(),
      memref::ExtractAlignedPointerAsIndexOp::create(b, buffer));
  return LLVM::IntToPtrOp::create(b, LLVM::LLVMPointerType::get(b.getContext()),
                                  address);
}

/// The end of a launch function: the result copied back unless the kernel
/// wrote it in place (`deviceOut` null), the device buffers freed, the
/// return, and the function made internal to its object (two AOT objects
/// each with a @stc_spmm_0_host must link together).
static void finishHost(ImplicitLocOpBuilder &b, func::FuncOp host, Value out,
                       Value deviceOut, ArrayRef<Value> deviceBuffers) {
  if (deviceOut)
    gpu::MemcpyOp::create(b, TypeRange{}, ValueRange{}, out, deviceOut);
  for (Value device : deviceBuffers)
    gpu::DeallocOp::create(b, TypeRange{}, ValueRange{}, device);
  b.setInsertionPointToEnd(&host.getBody().front());
  func::ReturnOp::create(b);
  host->removeAttr(stc_gpu::StcGpuDialect::kLaunchesAttrName);
  host->setAttr(
      "llvm.linkage",
      LLVM::LinkageAttr::get(host.getContext(), LLVM::Linkage::Internal));
}

LogicalResult GpuHostLaunch::define(func::FuncOp host) {
  auto kernelRef = host->getAttrOfType<SymbolRefAttr>(
      stc_gpu::StcGpuDialect::kLaunchesAttrName);
  auto kernel = dyn_cast_or_null<gpu::GPUFuncOp>(
      SymbolTable::lookupSymbolIn(getOperation(), kernelRef));
  if (!kernel)
    return host.emitError("stc-gpu-host-launch: kernel ")
           << kernelRef << " not found";
  if (kernel->hasAttr(stc_gpu::StcGpuDialect::kElementwiseAttrName))
    return defineElementwise(host, kernel);
  auto info = kernel->getAttrOfType<KernelInfoAttr>(KernelInfoAttr::kAttrName);
  if (!info)
    return host.emitError("stc-gpu-host-launch: kernel ")
           << kernelRef << " has no " << KernelInfoAttr::kAttrName;
  stc_gpu::KernelConfigAttr config = info.getConfig();
  int64_t numPointers = info.getNumPointers();
  int64_t threads = info.getThreads();
  int64_t blockRows = config.getBlockRows();
  int64_t blockCols = config.getBlockCols();
  bool sparseLhs = info.getSparseLhs();
  bool denseTransposed = info.getDenseTransposed();
  // A dense kernel (meta_layout none) has no meta buffer.
  bool hasMeta = info.getMetaLayout() != stc_gpu::MetaLayout::none;
  if (numPointers < (hasMeta ? 4 : 3) ||
      host.getNumArguments() != static_cast<unsigned>(numPointers))
    return host.emitError("stc-gpu-host-launch: ")
           << host.getName() << " does not match its kernel's parameters";

  MLIRContext *ctx = host.getContext();
  Block *body = host.addEntryBlock();
  host.setPrivate();
  ImplicitLocOpBuilder b(host.getLoc(), ctx);
  b.setInsertionPointToStart(body);
  auto index = [&](int64_t v) { return arith::ConstantIndexOp::create(b, v); };
  auto dim = [&](Value buffer, int64_t d) {
    return memref::DimOp::create(b, buffer, d).getResult();
  };

  // Problem sizes from the buffers: values R x valueCols, meta R x
  // metaCols, dense (K on its reduction dimension), out (P on its non-R
  // dimension). A convolution's dense operand is its N x H x W x IC input
  // and its out N x OH x OW x OC: R is one group's rows, P = N * OH * OW
  // and K = KH * KW * Cp (static).
  Value values = body->getArgument(0);
  Value meta = hasMeta ? body->getArgument(1) : Value();
  Value dense = body->getArgument(hasMeta ? 2 : 1);
  Value out = body->getArgument(numPointers - 1);
  bool conv = static_cast<bool>(info.getConv());
  int64_t groups = info.getGroups();
  // A batch of dense GEMMs (batch_matmul): rank-3 buffers, the batch first;
  // grid y stacks the batch elements' row tiles.
  int64_t lead = cast<MemRefType>(values.getType()).getRank() - 2;
  Value batch = lead ? dim(values, 0) : Value();
  Value rows = dim(values, lead);
  Value valueCols = dim(values, lead + 1);
  // Kernel-ready metadata (compiled-in constants) is a flat word array;
  // canonical metadata is rows x meta_cols and converted below.
  bool canonicalMeta = info.getMetaLayout() == stc_gpu::MetaLayout::canonical;
  Value metaCols = canonicalMeta ? dim(meta, 1) : Value(index(0));
  Value depth, cols;
  SmallVector<Value> convSizes;
  if (conv) {
    rows = arith::DivUIOp::create(b, rows, index(groups));
    depth = index(info.getDepth());
    convSizes = {dim(dense, 0), dim(dense, 1), dim(dense, 2), dim(out, 1),
                 dim(out, 2)};
    cols = arith::MulIOp::create(
        b, convSizes[0], arith::MulIOp::create(b, convSizes[3], convSizes[4]));
  } else {
    int64_t denseK = (sparseLhs != denseTransposed) ? 0 : 1;
    depth = dim(dense, lead + denseK);
    cols = dim(out, lead + (sparseLhs ? 1 : 0));
  }

  // Nothing to compute for an empty result.
  Value empty = arith::OrIOp::create(
      b, arith::CmpIOp::create(b, arith::CmpIPredicate::eq, rows, index(0)),
      arith::CmpIOp::create(b, arith::CmpIPredicate::eq, cols, index(0)));
  if (batch)
    empty = arith::OrIOp::create(
        b, empty,
        arith::CmpIOp::create(b, arith::CmpIPredicate::eq, batch, index(0)));
  auto nonEmpty = scf::IfOp::create(
      b, arith::XOrIOp::create(b, empty, arith::ConstantIntOp::create(b, 1, 1)),
      /*withElseRegion=*/false);
  b.setInsertionPointToStart(nonEmpty.thenBlock());

  SmallVector<Value> deviceBuffers;
  SmallVector<Value> kernelArgs = deviceInputs(
      b, host, body->getArguments().take_front(numPointers - 1), deviceBuffers);
  Value deviceOut;
  kernelArgs.push_back(deviceResult(b, host, out, deviceOut, deviceBuffers));
  auto ceilDiv = [&](Value a, int64_t d) {
    return arith::CeilDivUIOp::create(b, a, index(d)).getResult();
  };
  auto toI32 = [&](Value v) {
    return arith::IndexCastOp::create(b, b.getI32Type(), v).getResult();
  };
  // The kernel-ready layout's geometry: rows per block of words, dense K
  // per word (mma.sp: 32, 16 for tf32; wgmma: 64) and threads per block
  // (32 lanes, or the 128 threads of a warpgroup); four words per 128-bit
  // vector.
  Value metaRowBlocks, metaVectors;
  if (hasMeta) {
    metaRowBlocks = ceilDiv(rows, info.getMetaRowsPerBlock());
    metaVectors = ceilDiv(ceilDiv(depth, info.getMetaKPerWord()), 4);
  }
  if (canonicalMeta) {
    // Convert the canonical metadata to the kernel-ready layout on the
    // device (docs/GPU-LAYOUT.md): groups x ceil(R / 32) row blocks x
    // ceil(steps * words per step / 4) vectors x 128 words, one thread per
    // word.
    auto metaKernel =
        dyn_cast_or_null<gpu::GPUFuncOp>(SymbolTable::lookupSymbolIn(
            getOperation(),
            SymbolRefAttr::get(
                kernelRef.getRootReference(),
                {FlatSymbolRefAttr::get(ctx, info.getMetaKernel())})));
    if (!metaKernel)
      return host.emitError("stc-gpu-host-launch: kernel ")
             << kernelRef << " has no metadata conversion kernel "
             << info.getMetaKernel();
    int64_t metaThreads = info.getMetaThreads();
    Value rowBlocks = metaRowBlocks;
    Value vectors = metaVectors;
    Value total =
        arith::MulIOp::create(b, arith::MulIOp::create(b, rowBlocks, vectors),
                              index(4 * metaThreads * groups));
    // At least one vector: a zero-size allocation is an error on the device.
    Value words =
        gpu::AllocOp::create(
            b, MemRefType::get({ShapedType::kDynamic}, b.getI32Type()),
            /*asyncToken=*/Type(), ValueRange{},
            ValueRange{arith::MaxUIOp::create(b, total, index(128))},
            ValueRange{})
            .getMemref();
    Value wordsPtr = pointerTo(b, words);
    gpu::KernelDim3 metaGrid{
        arith::MaxUIOp::create(b, ceilDiv(total, 256), index(1)), index(1),
        index(1)};
    gpu::KernelDim3 metaBlock{index(256), index(1), index(1)};
    gpu::LaunchFuncOp::create(b, metaKernel, metaGrid, metaBlock,
                              /*dynamicSharedMemorySize=*/Value(),
                              ValueRange{kernelArgs[1], wordsPtr, toI32(rows),
                                         toI32(metaCols), toI32(rowBlocks),
                                         toI32(vectors), toI32(total)});
    kernelArgs[1] = wordsPtr;
    deviceBuffers.insert(deviceBuffers.begin(), words);
  }
  SmallVector<Value> sizes = {rows, cols, depth, valueCols, metaCols};
  sizes.append(convSizes);
  for (Value v : sizes)
    kernelArgs.push_back(toI32(v));
  if (failed(appendTensorMaps(
          b, info, host, kernelArgs,
          hasMeta ? arith::MulIOp::create(b, metaRowBlocks, index(groups))
                  : Value(),
          metaVectors)))
    return failure();

  Value colTiles = ceilDiv(cols, blockCols);
  if (config.getPixelTileH() > 0) {
    // A convolution on sm_90a: blocks of TH x TW output pixels of one
    // image, N x ceil(OH / TH) x ceil(OW / TW).
    colTiles = arith::MulIOp::create(
        b, convSizes[0],
        arith::MulIOp::create(b, ceilDiv(convSizes[3], config.getPixelTileH()),
                              ceilDiv(convSizes[4], config.getPixelTileW())));
  }
  Value rowTiles = ceilDiv(rows, blockRows);
  if (groups > 1)
    rowTiles = arith::MulIOp::create(b, rowTiles, index(groups));
  if (batch)
    rowTiles = arith::MulIOp::create(b, rowTiles, batch);
  // A cluster of c blocks along y: whole clusters (the blocks past the
  // rows find zeros through TMA and store nothing).
  int64_t clusterRows = config.getClusterRows();
  if (clusterRows > 1)
    rowTiles = arith::MulIOp::create(b, ceilDiv(rowTiles, clusterRows),
                                     index(clusterRows));
  gpu::KernelDim3 grid{colTiles, rowTiles, index(1)};
  gpu::KernelDim3 block{index(threads), index(1), index(1)};
  int64_t sharedBytes = info.getSharedBytes();
  Value dynamicShared = sharedBytes > 0
                            ? arith::ConstantIntOp::create(b, sharedBytes, 32)
                            : Value();
  std::optional<gpu::KernelDim3> clusterSize;
  if (clusterRows > 1)
    clusterSize = gpu::KernelDim3{index(1), index(clusterRows), index(1)};
  auto launch = [&](gpu::GPUFuncOp k) {
    gpu::LaunchFuncOp::create(b, k, grid, block, dynamicShared, kernelArgs,
                              /*asyncTokenType=*/Type(),
                              /*asyncDependencies=*/ValueRange{}, clusterSize);
  };
  if (!info.getFallbackKernel().empty()) {
    // Same parameters, block and tile, hence the same grid.
    auto fallback =
        dyn_cast_or_null<gpu::GPUFuncOp>(SymbolTable::lookupSymbolIn(
            getOperation(),
            SymbolRefAttr::get(
                kernelRef.getRootReference(),
                {FlatSymbolRefAttr::get(ctx, info.getFallbackKernel())})));
    int64_t align = info.getStagedAlign();
    if (!fallback)
      return host.emitError("stc-gpu-host-launch: kernel ")
             << kernelRef << " has no fallback kernel "
             << info.getFallbackKernel();
    auto multiple = [&](Value n) {
      return arith::CmpIOp::create(b, arith::CmpIPredicate::eq,
                                   arith::RemUIOp::create(b, n, index(align)),
                                   index(0));
    };
    Value ldAligned = multiple(dim(dense, 1));
    Value valueRowsAligned = multiple(valueCols);
    Value aligned = arith::AndIOp::create(b, ldAligned, valueRowsAligned);
    auto choice = scf::IfOp::create(b, aligned, /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(choice.thenBlock());
    launch(kernel);
    b.setInsertionPointToStart(choice.elseBlock());
    launch(fallback);
  } else {
    launch(kernel);
  }
  finishHost(b, host, out, deviceOut, deviceBuffers);
  return success();
}

LogicalResult
GpuHostLaunch::appendTensorMaps(ImplicitLocOpBuilder &b, KernelInfoAttr info,
                                func::FuncOp host,
                                SmallVectorImpl<Value> &kernelArgs,
                                Value metaRowBlocks, Value metaVectors) {
  SmallVector<stc_gpu::TensorMapAttr> maps = info.getTensorMapList();
  if (maps.empty())
    return success();
  MLIRContext *ctx = b.getContext();
  auto ptrType = LLVM::LLVMPointerType::get(ctx);
  Type i64 = b.getI64Type();
  ModuleOp module = getOperation();
  auto declare = [&](StringRef name, ArrayRef<Type> args) {
    if (module.lookupSymbol(name))
      return;
    OpBuilder mb(module.getBodyRegion());
    mb.setInsertionPointToStart(module.getBody());
    auto decl = func::FuncOp::create(mb, module.getLoc(), name,
                                     FunctionType::get(ctx, args, {ptrType}));
    decl.setPrivate();
  };
  Block *body = &host.getBody().front();
  // Maps in parameter order.
  for (stc_gpu::TensorMapAttr map : maps) {
    int64_t operand = info.getParamIndex(map.getOperand());
    int64_t param = info.getParamIndex(map.getParam());
    if (operand < 0 || operand >= info.getNumPointers() ||
        param != static_cast<int64_t>(kernelArgs.size()))
      return host.emitError("stc-gpu-host-launch: tensor map ")
             << map << " does not match the kernel's parameters";
    Value hostBuffer = body->getArgument(operand);
    auto type = cast<MemRefType>(hostBuffer.getType());
    int64_t rank = type.getRank();
    ArrayRef<int64_t> box = map.getBox();
    ArrayRef<int64_t> strides = map.getElementStrides();
    auto c32 = [&](int64_t v) {
      return arith::ConstantIntOp::create(b, v, 32).getResult();
    };
    auto c64 = [&](int64_t v) {
      return arith::ConstantIntOp::create(b, v, 64).getResult();
    };
    auto toI64 = [&](Value v) {
      return arith::IndexCastOp::create(b, i64, v).getResult();
    };
    // The map's sizes innermost first, the byte strides of its dimensions
    // 1.., its box and element strides.
    SmallVector<Value> sizes, byteStrides;
    SmallVector<int64_t, 4> boxes(box.begin(), box.end());
    SmallVector<int64_t, 4> steps;
    if (map.getOperand() == "meta") {
      // The kernel-ready metadata, 32-bit words: row blocks of vectors of
      // 4 x meta_threads words, a vector split in rows of box[0] words.
      int64_t vectorWords = 4 * info.getMetaThreads();
      if (!metaRowBlocks || box.size() != 4 || !strides.empty() ||
          map.getDataType() != 2 || box[0] <= 0 || vectorWords % box[0] != 0)
        return host.emitError("stc-gpu-host-launch: tensor map ")
               << map << " does not view the kernel-ready metadata";
      Value vectors = toI64(metaVectors);
      sizes = {c64(box[0]), c64(vectorWords / box[0]), vectors,
               toI64(metaRowBlocks)};
      byteStrides = {c64(4 * box[0]), c64(4 * vectorWords),
                     arith::MulIOp::create(b, vectors, c64(4 * vectorWords))};
      steps.assign(4, 1);
    } else if (box.size() == 2 && rank == 4 && strides.empty()) {
      // A 2-D map over a 4-D operand views it as a matrix: its last
      // dimension by the product of the others (a pointwise convolution's
      // NHWC input as the [N*H*W, C] matrix).
      int64_t elemBytes = type.getElementTypeBitWidth() / 8;
      Value inner = toI64(memref::DimOp::create(b, hostBuffer, 3));
      Value outer = toI64(memref::DimOp::create(b, hostBuffer, 0));
      for (int64_t d = 1; d < 3; ++d)
        outer = arith::MulIOp::create(
            b, outer, toI64(memref::DimOp::create(b, hostBuffer, d)));
      sizes = {inner, outer};
      byteStrides = {arith::MulIOp::create(b, inner, c64(elemBytes))};
      steps.assign(2, 1);
    } else {
      if (rank < 2 || rank > 4 || box.size() != static_cast<size_t>(rank) ||
          (!strides.empty() && strides.size() != static_cast<size_t>(rank)))
        return host.emitError("stc-gpu-host-launch: tensor map ")
               << map << " over a rank-" << rank << " operand";
      // The memref's last dimension first; the strides of a contiguous
      // buffer.
      int64_t elemBytes = type.getElementTypeBitWidth() / 8;
      Value stride = c64(elemBytes);
      for (int64_t d = rank - 1; d >= 0; --d) {
        sizes.push_back(toI64(memref::DimOp::create(b, hostBuffer, d)));
        if (d != rank - 1)
          byteStrides.push_back(stride);
        if (d > 0)
          stride = arith::MulIOp::create(b, stride, sizes.back());
      }
      steps.assign(rank, 1);
      if (!strides.empty())
        steps.assign(strides.begin(), strides.end());
      // A rank-3 operand (a batch of matrices) is a 4-D map whose outermost
      // dimension is 1 (its stride the whole buffer, box 1).
      if (rank == 3) {
        byteStrides.push_back(arith::MulIOp::create(b, stride, sizes.back()));
        sizes.push_back(c64(1));
        boxes.push_back(1);
        steps.push_back(1);
      }
    }
    SmallVector<Value> args = {kernelArgs[operand], c32(map.getDataType())};
    args.append(sizes);
    args.append(byteStrides);
    for (int64_t v : boxes)
      args.push_back(c32(v));
    if (sizes.size() != 2)
      for (int64_t v : steps)
        args.push_back(c32(v));
    args.push_back(c32(map.getSwizzle()));
    SmallVector<Type> argTypes;
    for (Value v : args)
      argTypes.push_back(v.getType());
    // The runtime's TMA descriptor builders (stc_runtime_cuda.h; the
    // emulator has its own): (base, CUtensorMapDataType, inner, outer, row
    // stride in bytes, box inner, box outer, swizzle bytes), or for NHWC
    // inputs (base, type, 4 sizes innermost first, strides in bytes of
    // dimensions 1..3, 4 box sizes, 4 element strides, swizzle bytes) ->
    // device pointer of the map.
    StringRef fn =
        runtimeSymbol(sizes.size() == 2 ? RuntimeEntryPoint::GpuTensorMap2d
                                        : RuntimeEntryPoint::GpuTensorMap4d);
    declare(fn, argTypes);
    auto call = func::CallOp::create(b, fn, TypeRange{ptrType}, args);
    kernelArgs.push_back(call.getResult(0));
  }
  return success();
}

SmallVector<Value>
GpuHostLaunch::deviceInputs(ImplicitLocOpBuilder &b, func::FuncOp host,
                            ValueRange inputs,
                            SmallVectorImpl<Value> &deviceBuffers) {
  SmallVector<bool> constant = constantArguments(host);
  SmallVector<bool> onDevice = deviceArguments(host);
  SmallVector<Value> pointers;
  for (Value hostBuffer : inputs) {
    unsigned i = cast<BlockArgument>(hostBuffer).getArgNumber();
    if (constant[i]) {
      pointers.push_back(residentCopy(b, hostBuffer));
      continue;
    }
    if (onDevice[i]) {
      pointers.push_back(pointerTo(b, hostBuffer));
      continue;
    }
    Value device = allocDeviceLike(b, hostBuffer);
    gpu::MemcpyOp::create(b, TypeRange{}, ValueRange{}, device, hostBuffer);
    deviceBuffers.push_back(device);
    pointers.push_back(pointerTo(b, device));
  }
  return pointers;
}

Value GpuHostLaunch::deviceResult(ImplicitLocOpBuilder &b, func::FuncOp host,
                                  Value out, Value &deviceOut,
                                  SmallVectorImpl<Value> &deviceBuffers) {
  if (deviceArguments(host)[cast<BlockArgument>(out).getArgNumber()])
    return pointerTo(b, out);
  deviceOut = allocDeviceLike(b, out);
  deviceBuffers.push_back(deviceOut);
  return pointerTo(b, deviceOut);
}

LogicalResult GpuHostLaunch::defineElementwise(func::FuncOp host,
                                               gpu::GPUFuncOp kernel) {
  // (input buffers..., result buffer, loop sizes...): the kernel takes a
  // pointer per buffer and an i32 per loop.
  unsigned numBuffers = llvm::count_if(
      host.getArgumentTypes(), [](Type t) { return isa<MemRefType>(t); });
  unsigned numSizes = host.getNumArguments() - numBuffers;
  bool shaped = numBuffers > 0 &&
                llvm::all_of(host.getArgumentTypes().take_front(numBuffers),
                             [](Type t) { return isa<MemRefType>(t); }) &&
                llvm::all_of(host.getArgumentTypes().drop_front(numBuffers),
                             [](Type t) { return t.isIndex(); });
  if (!shaped || kernel.getNumArguments() != numBuffers + numSizes)
    return host.emitError("stc-gpu-host-launch: ")
           << host.getName() << " does not match its elementwise kernel's "
           << "parameters";
  MLIRContext *ctx = host.getContext();
  Block *body = host.addEntryBlock();
  host.setPrivate();
  ImplicitLocOpBuilder b(host.getLoc(), ctx);
  b.setInsertionPointToStart(body);
  auto index = [&](int64_t v) { return arith::ConstantIndexOp::create(b, v); };
  // One thread per element of the result.
  Value out = body->getArgument(numBuffers - 1);
  auto outType = cast<MemRefType>(out.getType());
  Value total = index(1);
  for (int64_t d = 0; d < outType.getRank(); ++d)
    total = arith::MulIOp::create(b, total, memref::DimOp::create(b, out, d));
  auto nonEmpty = scf::IfOp::create(
      b, arith::CmpIOp::create(b, arith::CmpIPredicate::ne, total, index(0)),
      /*withElseRegion=*/false);
  b.setInsertionPointToStart(nonEmpty.thenBlock());
  SmallVector<Value> deviceBuffers;
  SmallVector<Value> args = deviceInputs(
      b, host, body->getArguments().take_front(numBuffers - 1), deviceBuffers);
  Value deviceOut;
  args.push_back(deviceResult(b, host, out, deviceOut, deviceBuffers));
  for (Value size : body->getArguments().drop_front(numBuffers))
    args.push_back(arith::IndexCastOp::create(b, b.getI32Type(), size));
  int64_t threads = 256;
  if (auto known = kernel.getKnownBlockSizeAttr())
    threads = known[0];
  // One thread per result element, a block per element for a reduction
  // kernel whose threads share each row, or a team of threads per row
  // (the result's last dimension) for a row kernel.
  bool blockPerElement =
      kernel->hasAttr(stc_gpu::StcGpuDialect::kBlockPerElementAttrName);
  Value blocks;
  if (auto rowsPerBlock = kernel->getAttrOfType<IntegerAttr>(
          stc_gpu::StcGpuDialect::kRowsPerBlockAttrName)) {
    Value rows = arith::DivUIOp::create(
        b, total, memref::DimOp::create(b, out, outType.getRank() - 1));
    blocks = arith::CeilDivUIOp::create(b, rows, index(rowsPerBlock.getInt()));
  } else if (auto perThread = kernel->getAttrOfType<IntegerAttr>(
                 stc_gpu::StcGpuDialect::kElementsPerThreadAttrName)) {
    blocks = arith::CeilDivUIOp::create(b, total,
                                        index(threads * perThread.getInt()));
  } else {
    blocks = blockPerElement
                 ? total
                 : arith::CeilDivUIOp::create(b, total, index(threads));
  }
  gpu::KernelDim3 grid{blocks, index(1), index(1)};
  gpu::KernelDim3 block{index(threads), index(1), index(1)};
  gpu::LaunchFuncOp::create(b, kernel, grid, block,
                            /*dynamicSharedMemorySize=*/Value(), args);
  finishHost(b, host, out, deviceOut, deviceBuffers);
  return success();
}

SmallVector<bool>
GpuHostLaunch::argumentsAtEveryCall(func::FuncOp host,
                                    function_ref<bool(ArrayRef<Value>)> holds) {
  SmallVector<bool> result(host.getNumArguments(), false);
  std::optional<SymbolTable::UseRange> uses =
      SymbolTable::getSymbolUses(host, getOperation());
  if (!uses || uses->empty())
    return result;
  SmallVector<func::CallOp> calls;
  for (const SymbolTable::SymbolUse &use : *uses) {
    auto call = dyn_cast<func::CallOp>(use.getUser());
    if (!call || call.getNumOperands() != host.getNumArguments())
      return result;
    calls.push_back(call);
  }
  for (unsigned i = 0; i < host.getNumArguments(); ++i) {
    SmallVector<Value> operands;
    for (func::CallOp call : calls)
      operands.push_back(call.getOperand(i));
    result[i] = holds(operands);
  }
  return result;
}

SmallVector<bool> GpuHostLaunch::deviceArguments(func::FuncOp host) {
  return argumentsAtEveryCall(host, [&](ArrayRef<Value> operands) {
    return llvm::all_of(operands, [&](Value v) {
      v = reshapedBuffer(v);
      return v.getDefiningOp<gpu::AllocOp>() || deviceValues.contains(v);
    });
  });
}

void GpuHostLaunch::placeDeviceBuffers() {
  ModuleOp module = getOperation();
  SmallVector<memref::AllocOp> allocs;
  for (auto f : module.getOps<func::FuncOp>())
    if (!f.isDeclaration() &&
        !f->hasAttr(stc_gpu::StcGpuDialect::kLaunchesAttrName))
      f.walk([&](memref::AllocOp alloc) { allocs.push_back(alloc); });
  llvm::DenseSet<Operation *> placed;
  for (memref::AllocOp root : allocs) {
    if (placed.contains(root))
      continue;
    // Every use: a launch function's operand, a deallocation, the pointer
    // bookkeeping of the ownership-based deallocation, and for a device
    // entry's result, the return with the deallocation's "clone unless
    // owned" around it (an scf.if that yields the buffer or a copy of it
    // into a new one): those copies become device buffers too.
    SmallVector<memref::AllocOp> group = {root};
    SmallVector<Operation *> deallocs;
    llvm::SetVector<Operation *> copies;
    llvm::DenseSet<Value> visited = {root.getResult()};
    bool launched = false;
    std::function<bool(Value)> kernelsOnly = [&](Value v) {
      // Another buffer of the group, made by a memref.alloc.
      auto join = [&](Value other) {
        if (!visited.insert(other).second)
          return true;
        auto alloc = other.getDefiningOp<memref::AllocOp>();
        if (!alloc)
          return false;
        group.push_back(alloc);
        return kernelsOnly(other);
      };
      for (OpOperand &use : v.getUses()) {
        Operation *user = use.getOwner();
        if (isa<func::CallOp>(user)) {
          if (!isLaunchCall(user))
            return false;
          launched = true;
        } else if (isa<memref::DeallocOp>(user)) {
          deallocs.push_back(user);
        } else if (isa<func::ReturnOp>(user) &&
                   isDeviceEntry(user->getParentOfType<func::FuncOp>())) {
          // A device entry's result: the caller takes the device buffer.
        } else if (auto meta =
                       dyn_cast<memref::ExtractStridedMetadataOp>(user)) {
          if (!kernelsOnly(meta.getBaseBuffer()))
            return false;
        } else if (isReshape(user)) {
          // The kernels that take the reshaped buffer take this one.
          if (!kernelsOnly(user->getResult(0)))
            return false;
        } else if (auto yield = dyn_cast<scf::YieldOp>(user)) {
          auto ifOp = dyn_cast<scf::IfOp>(yield->getParentOp());
          if (!ifOp || !deviceEntry)
            return false;
          unsigned index = use.getOperandNumber();
          Value result = ifOp.getResult(index);
          if (visited.insert(result).second && !kernelsOnly(result))
            return false;
          for (Region *region : {&ifOp.getThenRegion(), &ifOp.getElseRegion()})
            if (!region->empty() &&
                !join(region->front().getTerminator()->getOperand(index)))
              return false;
        } else if (auto copy = dyn_cast<memref::CopyOp>(user)) {
          if (!deviceEntry)
            return false;
          copies.insert(copy);
          if (!join(copy.getTarget()) || !join(copy.getSource()))
            return false;
        } else if (!isa<memref::ExtractAlignedPointerAsIndexOp>(user)) {
          return false;
        }
      }
      return true;
    };
    if (!kernelsOnly(root.getResult()) || !launched)
      continue;
    for (memref::AllocOp alloc : group) {
      placed.insert(alloc);
      OpBuilder b(alloc);
      auto device = gpu::AllocOp::create(
          b, alloc.getLoc(), alloc.getType(), /*asyncToken=*/Type(),
          ValueRange{}, alloc.getDynamicSizes(), alloc.getSymbolOperands());
      alloc.getResult().replaceAllUsesWith(device.getMemref());
      alloc.erase();
    }
    for (Operation *op : copies) {
      auto copy = cast<memref::CopyOp>(op);
      OpBuilder b(copy);
      gpu::MemcpyOp::create(b, copy.getLoc(), TypeRange{}, ValueRange{},
                            copy.getTarget(), copy.getSource());
      copy.erase();
    }
    for (Operation *dealloc : deallocs) {
      OpBuilder db(dealloc);
      gpu::DeallocOp::create(db, dealloc->getLoc(), TypeRange{}, ValueRange{},
                             dealloc->getOperand(0));
      dealloc->erase();
    }
  }
}

/// Whether `use` is the result buffer of a launch function's call: its last
/// buffer operand (the loop sizes of an elementwise kernel follow it).
static bool isResultOperand(OpOperand &use) {
  Operation *call = use.getOwner();
  for (OpOperand &operand : llvm::reverse(call->getOpOperands()))
    if (isa<MemRefType>(operand.get().getType()))
      return &operand == &use;
  return false;
}

void GpuHostLaunch::placeDeviceInputs() {
  ModuleOp module = getOperation();
  for (auto f : module.getOps<func::FuncOp>()) {
    if (f.isDeclaration() ||
        f->hasAttr(stc_gpu::StcGpuDialect::kLaunchesAttrName) ||
        isDeviceEntry(f))
      continue;
    Block &entry = f.getBody().front();
    for (BlockArgument arg : entry.getArguments()) {
      auto type = dyn_cast<MemRefType>(arg.getType());
      if (!type || !type.getLayout().isIdentity())
        continue;
      // Read by kernels, and on the host by the deallocation's pointer
      // bookkeeping at most.
      SmallVector<OpOperand *> launchUses;
      bool kernelsOnly = true;
      for (OpOperand &use : arg.getUses()) {
        if (isLaunchCall(use.getOwner()) && !isResultOperand(use))
          launchUses.push_back(&use);
        else if (!isa<memref::ExtractAlignedPointerAsIndexOp,
                      memref::ExtractStridedMetadataOp>(use.getOwner()))
          kernelsOnly = false; // a result, or read on the host
      }
      if (!kernelsOnly || launchUses.size() < 2)
        continue;
      ImplicitLocOpBuilder b(f.getLoc(), &entry, entry.begin());
      Value device = allocDeviceLike(b, arg);
      gpu::MemcpyOp::create(b, TypeRange{}, ValueRange{}, device, arg);
      for (OpOperand *use : launchUses)
        use->set(device);
      f.walk([&](func::ReturnOp ret) {
        OpBuilder rb(ret);
        gpu::DeallocOp::create(rb, ret.getLoc(), TypeRange{}, ValueRange{},
                               device);
      });
    }
  }
}

LogicalResult GpuHostLaunch::placeDeviceEntries() {
  if (!deviceEntry)
    return success();
  ModuleOp module = getOperation();
  for (auto f : module.getOps<func::FuncOp>()) {
    if (!isDeviceEntry(f))
      continue;
    // Arguments: kernels read (or write) them, also through reshapes; the
    // host may only look at their shape and address.
    for (BlockArgument arg : f.getBody().front().getArguments()) {
      if (!isa<MemRefType>(arg.getType()))
        continue;
      SmallVector<Value> views = {arg};
      while (!views.empty()) {
        Value view = views.pop_back_val();
        for (Operation *user : view.getUsers()) {
          if (isReshape(user)) {
            views.push_back(user->getResult(0));
            continue;
          }
          // (A returned argument is copied on the device:
          // returnDeviceBuffers.)
          if (!isLaunchCall(user) &&
              !isa<memref::DimOp, memref::ExtractAlignedPointerAsIndexOp,
                   memref::ExtractStridedMetadataOp, func::ReturnOp>(user))
            return user->emitError("stc-gpu-host-launch: argument #")
                   << arg.getArgNumber() << " of @" << f.getSymName()
                   << " is read on the host by " << user->getName()
                   << ", but with --gpu-device-entry it is device memory";
        }
      }
      deviceValues.insert(arg);
    }
  }
  return success();
}

/// Whether `v` is a device buffer: a gpu.alloc, an argument of a device
/// entry (`deviceValues`), a reshape of one, or an scf.if that yields one
/// from each branch.
static bool isDeviceValue(Value v, const llvm::DenseSet<Value> &deviceValues) {
  v = reshapedBuffer(v);
  if (v.getDefiningOp<gpu::AllocOp>() || deviceValues.contains(v))
    return true;
  auto ifOp = v.getDefiningOp<scf::IfOp>();
  if (!ifOp || ifOp.getElseRegion().empty())
    return false;
  unsigned index = cast<OpResult>(v).getResultNumber();
  for (Region *region : {&ifOp.getThenRegion(), &ifOp.getElseRegion()})
    if (!isDeviceValue(region->front().getTerminator()->getOperand(index),
                       deviceValues))
      return false;
  return true;
}

/// device-entry: each result of `f` that is not a device buffer yet (the
/// host computed it, or it is an argument) is copied to a new device buffer
/// before the return; a host buffer the function allocated is freed.
static void returnDeviceBuffers(func::FuncOp f,
                                const llvm::DenseSet<Value> &deviceValues) {
  f.walk([&](func::ReturnOp ret) {
    ImplicitLocOpBuilder b(ret.getLoc(), ret);
    for (OpOperand &operand : ret->getOpOperands()) {
      Value v = operand.get();
      auto type = dyn_cast<MemRefType>(v.getType());
      // (An argument, or a reshape of one, is the caller's: returned as a
      // copy.)
      if (!type || (isDeviceValue(v, deviceValues) &&
                    !isa<BlockArgument>(reshapedBuffer(v))))
        continue;
      Value device = allocDeviceLike(b, v);
      gpu::MemcpyOp::create(b, TypeRange{}, ValueRange{}, device, v);
      if (v.getDefiningOp<memref::AllocOp>())
        memref::DeallocOp::create(b, v);
      operand.set(device);
    }
  });
}

SmallVector<bool> GpuHostLaunch::constantArguments(func::FuncOp host) {
  ModuleOp module = getOperation();
  // The same constant global at every call.
  return argumentsAtEveryCall(host, [&](ArrayRef<Value> operands) {
    StringRef global;
    for (Value v : operands) {
      while (auto cast = v.getDefiningOp<memref::CastOp>())
        v = cast.getSource();
      auto get = v.getDefiningOp<memref::GetGlobalOp>();
      auto def = get ? module.lookupSymbol<memref::GlobalOp>(get.getName())
                     : memref::GlobalOp();
      if (!def || !def.getConstant() ||
          (!global.empty() && global != def.getSymName()))
        return false;
      global = def.getSymName();
    }
    return true;
  });
}

Value GpuHostLaunch::residentCopy(ImplicitLocOpBuilder &b, Value hostBuffer) {
  ModuleOp module = getOperation();
  MLIRContext *ctx = module.getContext();
  auto ptrType = LLVM::LLVMPointerType::get(ctx);
  Type i64 = b.getI64Type();
  OpBuilder mb(module.getBodyRegion());
  mb.setInsertionPointToStart(module.getBody());
  std::string name = "__stc_resident_" + std::to_string(residentSlots.size());
  while (module.lookupSymbol(name))
    name += "_";
  auto slot = LLVM::GlobalOp::create(mb, b.getLoc(), i64, /*isConstant=*/false,
                                     LLVM::Linkage::Internal, name,
                                     mb.getI64IntegerAttr(0));
  residentSlots.push_back(slot);

  StringRef fn = runtimeSymbol(RuntimeEntryPoint::GpuResident);
  if (!module.lookupSymbol(fn)) {
    auto decl = func::FuncOp::create(
        mb, module.getLoc(), fn,
        FunctionType::get(ctx, {ptrType, ptrType, i64}, {ptrType}));
    decl.setPrivate();
  }
  auto type = cast<MemRefType>(hostBuffer.getType());
  int64_t bytes = type.getNumElements() * type.getElementTypeBitWidth() / 8;
  Value address = arith::IndexCastOp::create(
      b, i64, memref::ExtractAlignedPointerAsIndexOp::create(b, hostBuffer));
  Value hostPtr = LLVM::IntToPtrOp::create(b, ptrType, address);
  Value slotPtr = LLVM::AddressOfOp::create(b, ptrType, slot.getSymName());
  return func::CallOp::create(
             b, fn, TypeRange{ptrType},
             ValueRange{slotPtr, hostPtr,
                        arith::ConstantIntOp::create(b, bytes, 64)})
      .getResult(0);
}

void GpuHostLaunch::defineResidentRelease() {
  if (residentSlots.empty())
    return;
  ModuleOp module = getOperation();
  MLIRContext *ctx = module.getContext();
  Location loc = module.getLoc();
  auto ptrType = LLVM::LLVMPointerType::get(ctx);
  auto voidType = LLVM::LLVMVoidType::get(ctx);
  OpBuilder mb(module.getBodyRegion());
  mb.setInsertionPointToEnd(module.getBody());
  StringRef releaseFn = runtimeSymbol(RuntimeEntryPoint::GpuReleaseResident);
  if (!module.lookupSymbol(releaseFn))
    LLVM::LLVMFuncOp::create(mb, loc, releaseFn,
                             LLVM::LLVMFunctionType::get(voidType, {ptrType}));
  std::string name = "__stc_release_resident";
  while (module.lookupSymbol(name))
    name += "_";
  auto release = LLVM::LLVMFuncOp::create(
      mb, loc, name, LLVM::LLVMFunctionType::get(voidType, {}),
      LLVM::Linkage::Internal);
  OpBuilder fb(ctx);
  fb.setInsertionPointToStart(release.addEntryBlock(fb));
  for (LLVM::GlobalOp slot : residentSlots) {
    Value slotPtr =
        LLVM::AddressOfOp::create(fb, loc, ptrType, slot.getSymName());
    LLVM::CallOp::create(fb, loc, TypeRange{}, releaseFn, ValueRange{slotPtr});
  }
  LLVM::ReturnOp::create(fb, loc, ValueRange{});
  LLVM::GlobalDtorsOp::create(
      mb, loc, mb.getArrayAttr({FlatSymbolRefAttr::get(ctx, name)}),
      mb.getI32ArrayAttr({0}), mb.getArrayAttr({LLVM::ZeroAttr::get(ctx)}));
}

void GpuHostLaunch::runOnOperation() {
  SmallVector<func::FuncOp> hosts;
  for (auto f : getOperation().getOps<func::FuncOp>())
    if (f->hasAttr(stc_gpu::StcGpuDialect::kLaunchesAttrName) &&
        f.isDeclaration())
      hosts.push_back(f);
  if (failed(placeDeviceEntries()))
    return signalPassFailure();
  placeDeviceBuffers();
  placeDeviceInputs();
  for (auto f : getOperation().getOps<func::FuncOp>())
    if (isDeviceEntry(f))
      returnDeviceBuffers(f, deviceValues);
  for (func::FuncOp host : hosts)
    if (failed(define(host)))
      return signalPassFailure();
  defineResidentRelease();
}

} // namespace
