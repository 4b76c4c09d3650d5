//===- StcGpuAttrs.cpp - stc_gpu attributes -----------------*- C++ -*-===//
//
// The verifiers of #stc_gpu.kernel_config and #stc_gpu.kernel_info, and
// what the kernel info derives: grid, instruction shape, tensor maps in
// parameter order, and the `kernel_info` JSON dictionary.
//
//===----------------------------------------------------------------------===//
#include "dialects/StcGpu/StcGpuAttrs.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::stc_gpu;

std::string mlir::stc_gpu::listGpuArchs() {
  std::string list;
  for (uint32_t i = 0; i <= getMaxEnumValForGpuArch(); ++i) {
    if (i)
      list += i == getMaxEnumValForGpuArch() ? " or " : ", ";
    list += stringifyGpuArch(static_cast<GpuArch>(i)).str();
  }
  return list;
}

//===----------------------------------------------------------------------===//
// KernelConfigAttr
//===----------------------------------------------------------------------===//
// Every diagnostic below has a case in
// test/Dialect/StcGpu/kernel-config-invalid.mlir.

LogicalResult KernelConfigAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, GpuArch arch,
    KernelFamily family, int64_t blockRows, int64_t blockCols, int64_t stages,
    int64_t clusterRows, int64_t groupRows, bool multicastB,
    WgmmaASource aSource, Accumulator accumulator, bool /*orderedMetadata*/,
    bool directFallback, int64_t pixelTileH, int64_t pixelTileW,
    int64_t warpRows, int64_t warpCols, int64_t stageKSteps, bool metaTma,
    bool vectorStores) {
  const bool wgmma = family == KernelFamily::wgmma;
  StringRef familyName = stringifyKernelFamily(family);
  if (wgmma && !hasWgmma(arch))
    return emitError() << "family wgmma needs arch sm_90a "
                          "(wgmma.mma_async.sp), got "
                       << stringifyGpuArch(arch);
  const bool staged = family == KernelFamily::staged;
  auto validTile = [&](int64_t v, bool rows) {
    return v == 64 || v == 128 || (v == 256 && (wgmma || (rows && staged))) ||
           (!rows && wgmma && (v == 16 || v == 32));
  };
  if (!validTile(blockRows, true) || !validTile(blockCols, false))
    return emitError() << "block tiles are 64 or 128 rows by 64 or 128 "
                          "columns (256 rows for family staged; for family "
                          "wgmma 256 either way, and 16 or 32 columns), got "
                       << blockRows << " x " << blockCols << " for family "
                       << familyName;
  if (blockRows == 256 && blockCols == 256)
    return emitError() << "a 256 x 256 tile needs 256 accumulators per "
                          "thread; 256-row tiles take at most 128 columns";
  if (blockRows == 256 && aSource != WgmmaASource::smem)
    return emitError() << "256-row tiles take A from shared memory "
                          "(a_source = smem)";
  int64_t minStages = wgmma ? 2 : family == KernelFamily::staged ? 2 : 0;
  int64_t maxStages = wgmma ? 12 : family == KernelFamily::staged ? 4 : 0;
  if (stages < minStages || stages > maxStages)
    return emitError() << "family " << familyName << " takes "
                       << (maxStages
                               ? "stages from " + std::to_string(minStages) +
                                     " to " + std::to_string(maxStages)
                               : std::string("no stages (0)"))
                       << ", got " << stages;
  if (clusterRows < 1 || clusterRows > (wgmma ? 2 : 1))
    return emitError() << "cluster_rows must be "
                       << (wgmma ? "1 or 2"
                                 : "1 for family " + familyName.str())
                       << ", got " << clusterRows;
  if (groupRows < 0 || groupRows > 64 || groupRows % clusterRows != 0)
    return emitError() << "group_rows must be 0 to 64 and a multiple of "
                          "cluster_rows ("
                       << clusterRows << "), got " << groupRows;
  if (multicastB && (!wgmma || clusterRows != 2))
    return emitError() << "multicast_b needs family wgmma with cluster_rows = "
                          "2, got "
                       << familyName << " with cluster_rows = " << clusterRows;
  if (aSource != WgmmaASource::smem && !wgmma)
    return emitError() << "a_source = registers needs family wgmma, got "
                       << familyName;
  if (accumulator == Accumulator::f16 && wgmma)
    return emitError() << "family wgmma accumulates in f32 or s32, got f16";
  if (directFallback && family != KernelFamily::staged)
    return emitError() << "direct_fallback belongs to family staged, got "
                       << familyName;
  if ((pixelTileH > 0) != (pixelTileW > 0) || pixelTileH < 0 ||
      pixelTileW < 0 ||
      (pixelTileH > 0 && (!wgmma || pixelTileH * pixelTileW != blockCols)))
    return emitError() << "pixel_tile_h x pixel_tile_w (" << pixelTileH << " x "
                       << pixelTileW
                       << ") must be 0 x 0, or for family wgmma cover "
                          "block_cols ("
                       << blockCols << ") output pixels";
  if (wgmma && (warpRows != 32 || warpCols != 32))
    return emitError() << "family wgmma has its own warpgroup tiles: "
                          "warp_rows x warp_cols stay 32 x 32, got "
                       << warpRows << " x " << warpCols;
  auto validWarp = [](int64_t v) { return v == 32 || v == 64; };
  // (wgmma keeps the 32 x 32 default, whatever its tile.)
  if (!validWarp(warpRows) || !validWarp(warpCols) ||
      (!wgmma && (blockRows % warpRows != 0 || blockCols % warpCols != 0)))
    return emitError() << "warp_rows x warp_cols must be 32 or 64 each and "
                          "divide the block tile ("
                       << blockRows << " x " << blockCols << "), got "
                       << warpRows << " x " << warpCols;
  // mma.sp blocks: at most 16 warps (the registers of more would not fit
  // on an SM), and the staged kernel's stages of A (32 bytes a row) and B
  // (64 bytes a column) in its 48 KiB of static shared memory.
  int64_t warps = (blockRows / warpRows) * (blockCols / warpCols);
  if (!wgmma && warps > 16)
    return emitError() << "a " << blockRows << " x " << blockCols
                       << " block of " << warpRows << " x " << warpCols
                       << " warps has " << warps
                       << " warps; mma.sp blocks take at most 16";
  if (stageKSteps < 1 || stageKSteps > (staged || wgmma ? 2 : 1))
    return emitError() << "stage_k_steps must be "
                       << (staged || wgmma ? "1 or 2"
                                           : "1 for family " + familyName.str())
                       << ", got " << stageKSteps;
  int64_t sharedLimit = sharedBytesOptIn(arch);
  int64_t stagedBytes =
      stages * stageKSteps * (blockRows * 32 + blockCols * 64);
  if (staged && stagedBytes > sharedLimit)
    return emitError() << stages << " stages of " << stageKSteps
                       << " K steps of a " << blockRows << " x " << blockCols
                       << " tile take " << stagedBytes
                       << " bytes of shared memory; " << stringifyGpuArch(arch)
                       << " allows " << sharedLimit << " a block";
  if (metaTma && !wgmma)
    return emitError() << "meta_tma needs family wgmma, got " << familyName;
  if (vectorStores && !wgmma && !staged)
    return emitError() << "vector_stores needs family wgmma or staged, got "
                       << familyName;
  return success();
}

//===----------------------------------------------------------------------===//
// KernelInfoAttr
//===----------------------------------------------------------------------===//

LogicalResult KernelInfoAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, StringRef kernel,
    KernelConfigAttr config, int64_t threads, int64_t sharedBytes,
    int64_t staticSharedBytes, ArrayAttr params, int64_t numPointers,
    int64_t rows, int64_t cols, int64_t depth, bool sparseLhs,
    bool denseTransposed, Type inputType, Type outputType, int64_t groups,
    MetaLayout metaLayout, StringRef metaKernel, int64_t metaRowsPerBlock,
    int64_t metaKPerWord, int64_t metaThreads, StringRef fallbackKernel,
    int64_t stagedAlign, ConvGeometryAttr conv, ArrayAttr tensorMaps) {
  if (kernel.empty())
    return emitError() << "kernel_info needs a kernel name";
  if (!llvm::all_of(params, [](Attribute a) { return isa<StringAttr>(a); }))
    return emitError() << "params must be strings, got " << params;
  if (numPointers < 1 || numPointers > static_cast<int64_t>(params.size()))
    return emitError() << "num_pointers (" << numPointers
                       << ") must count 1 to all of the " << params.size()
                       << " params";
  if (threads < 1 || sharedBytes < 0 || staticSharedBytes < 0 || groups < 1)
    return emitError() << "threads and groups must be positive and shared "
                          "memory sizes non-negative";
  if ((metaLayout == MetaLayout::canonical) == metaKernel.empty())
    return emitError() << "a meta_layout = canonical kernel names its "
                          "meta_kernel (the conversion to the kernel-ready "
                          "layout), and only it";
  bool noMeta = metaLayout == MetaLayout::none;
  if (noMeta ? (metaRowsPerBlock || metaKPerWord || metaThreads)
             : (metaRowsPerBlock < 1 || metaKPerWord < 1 || metaThreads < 1))
    return emitError() << "the metadata geometry must be positive, or 0 for "
                          "a kernel without metadata (meta_layout = none)";
  if (noMeta && llvm::any_of(params, [](Attribute a) {
        auto name = dyn_cast<StringAttr>(a);
        return name && name.getValue() == "meta";
      }))
    return emitError() << "a kernel without metadata (meta_layout = none) "
                          "has no meta parameter";
  if (fallbackKernel.empty() != (stagedAlign == 0) || stagedAlign < 0)
    return emitError() << "fallback_kernel and staged_align (elements, >= 1) "
                          "come together";
  auto hasParam = [&](StringRef name) {
    return llvm::any_of(params, [&](Attribute a) {
      return cast<StringAttr>(a).getValue() == name;
    });
  };
  if (tensorMaps)
    for (Attribute a : tensorMaps) {
      auto map = dyn_cast<TensorMapAttr>(a);
      if (!map)
        return emitError() << "tensor_maps must be #stc_gpu.tensor_map, got "
                           << a;
      if (!hasParam(map.getParam()) || !hasParam(map.getOperand()))
        return emitError() << "tensor map " << map
                           << " names a parameter the kernel does not have";
    }
  return success();
}

int64_t KernelInfoAttr::getParamIndex(StringRef name) const {
  for (auto [i, p] : llvm::enumerate(getParams()))
    if (cast<StringAttr>(p).getValue() == name)
      return static_cast<int64_t>(i);
  return -1;
}

SmallVector<TensorMapAttr> KernelInfoAttr::getTensorMapList() const {
  SmallVector<TensorMapAttr> maps;
  if (getTensorMaps())
    for (Attribute a : getTensorMaps())
      maps.push_back(cast<TensorMapAttr>(a));
  llvm::stable_sort(maps, [&](TensorMapAttr x, TensorMapAttr y) {
    return getParamIndex(x.getParam()) < getParamIndex(y.getParam());
  });
  return maps;
}

std::string KernelInfoAttr::getMmaShape() const {
  KernelConfigAttr config = getConfig();
  Type input = getInputType();
  bool int8 = input.isInteger(8);
  // A dense wgmma (no metadata) has half the K of a sparse one.
  bool dense = getMetaLayout() == MetaLayout::none;
  if (config.isWgmma())
    return "m64n" + std::to_string(config.getBlockCols()) + "k" +
           std::to_string((int8 ? 64 : 32) / (dense ? 2 : 1));
  if (getMetaLayout() == MetaLayout::none)
    return "m16n8k16"; // the dense mma.sync, two a K step of 32
  return input.isF32() ? "m16n8k16" : int8 ? "m16n8k64" : "m16n8k32";
}

static int64_t ceilDiv(int64_t a, int64_t d) {
  return a < 0 ? int64_t(-1) : (a + d - 1) / d;
}

int64_t KernelInfoAttr::getGridX() const {
  KernelConfigAttr config = getConfig();
  if (config.getPixelTileH() <= 0)
    return ceilDiv(getCols(), config.getBlockCols());
  ConvGeometryAttr conv = getConv();
  if (!conv || conv.getN() < 0 || conv.getOh() < 0 || conv.getOw() < 0)
    return -1;
  return conv.getN() * ceilDiv(conv.getOh(), config.getPixelTileH()) *
         ceilDiv(conv.getOw(), config.getPixelTileW());
}

int64_t KernelInfoAttr::getGridY() const {
  if (getRows() < 0)
    return -1;
  int64_t cluster = getConfig().getClusterRows();
  return cluster *
         ceilDiv(getGroups() * ceilDiv(getRows(), getConfig().getBlockRows()),
                 cluster);
}

DictionaryAttr KernelInfoAttr::toDictionary() const {
  Builder b(getContext());
  KernelConfigAttr config = getConfig();
  auto dyn = [](int64_t v) { return v < 0 ? int64_t(-1) : v; };
  SmallVector<TensorMapAttr> maps = getTensorMapList();
  SmallVector<Attribute> types;
  for (auto [i, p] : llvm::enumerate(getParams())) {
    // A named copy: lambdas may not capture a structured binding (C++17).
    StringRef name = cast<StringAttr>(p).getValue();
    bool isMap = llvm::any_of(
        maps, [&](TensorMapAttr m) { return m.getParam() == name; });
    types.push_back(b.getStringAttr(
        static_cast<int64_t>(i) < getNumPointers() || isMap ? "ptr" : "i32"));
  }
  auto typeName = [&](Type t) {
    std::string s;
    llvm::raw_string_ostream os(s);
    t.print(os);
    return b.getStringAttr(s);
  };
  bool wgmma = config.isWgmma();
  SmallVector<NamedAttribute> attrs = {
      b.getNamedAttr("kernel", b.getStringAttr(getKernel())),
      b.getNamedAttr("block", b.getI64ArrayAttr({getThreads(), 1, 1})),
      b.getNamedAttr("tile", b.getI64ArrayAttr({config.getBlockRows(),
                                                config.getBlockCols()})),
      b.getNamedAttr("grid", b.getI64ArrayAttr({getGridX(), getGridY(), 1})),
      b.getNamedAttr("cluster",
                     b.getI64ArrayAttr({1, config.getClusterRows(), 1})),
      b.getNamedAttr("shared_bytes", b.getI64IntegerAttr(getSharedBytes())),
      b.getNamedAttr("params", getParams()),
      b.getNamedAttr("param_types", b.getArrayAttr(types)),
      b.getNamedAttr("num_pointers", b.getI64IntegerAttr(getNumPointers())),
      b.getNamedAttr("R", b.getI64IntegerAttr(dyn(getRows()))),
      b.getNamedAttr("P", b.getI64IntegerAttr(dyn(getCols()))),
      b.getNamedAttr("K", b.getI64IntegerAttr(dyn(getDepth()))),
      b.getNamedAttr("sparse", b.getStringAttr(getSparseLhs() ? "lhs" : "rhs")),
      b.getNamedAttr("dense_transposed", b.getBoolAttr(getDenseTransposed())),
      b.getNamedAttr("input_type", typeName(getInputType())),
      b.getNamedAttr("output_type", typeName(getOutputType())),
      b.getNamedAttr("mma", b.getStringAttr(getMmaShape())),
      b.getNamedAttr("accumulator", b.getStringAttr(stringifyAccumulator(
                                        config.getAccumulator()))),
      b.getNamedAttr("ordered_metadata",
                     b.getBoolAttr(!wgmma && config.getOrderedMetadata() &&
                                   getMetaLayout() != MetaLayout::none)),
      b.getNamedAttr("variant", b.getStringAttr(
                                    stringifyKernelFamily(config.getFamily()))),
      b.getNamedAttr("stages", b.getI64IntegerAttr(config.getStages())),
      b.getNamedAttr("static_shared_bytes",
                     b.getI64IntegerAttr(getStaticSharedBytes())),
      b.getNamedAttr("groups", b.getI64IntegerAttr(getGroups())),
      b.getNamedAttr("meta_layout",
                     b.getStringAttr(stringifyMetaLayout(getMetaLayout()))),
      b.getNamedAttr("meta_rows_per_block",
                     b.getI64IntegerAttr(getMetaRowsPerBlock())),
      b.getNamedAttr("meta_k_per_word", b.getI64IntegerAttr(getMetaKPerWord())),
      b.getNamedAttr("meta_threads", b.getI64IntegerAttr(getMetaThreads())),
  };
  if (!maps.empty()) {
    SmallVector<Attribute> list;
    for (TensorMapAttr m : maps) {
      SmallVector<NamedAttribute> fields = {
          b.getNamedAttr("param", b.getStringAttr(m.getParam())),
          b.getNamedAttr("operand", b.getStringAttr(m.getOperand())),
          b.getNamedAttr("data_type", b.getI64IntegerAttr(m.getDataType())),
          b.getNamedAttr("box", b.getI64ArrayAttr(m.getBox())),
          b.getNamedAttr("swizzle", b.getI64IntegerAttr(m.getSwizzle())),
      };
      if (!m.getElementStrides().empty())
        fields.push_back(b.getNamedAttr(
            "element_strides", b.getI64ArrayAttr(m.getElementStrides())));
      list.push_back(b.getDictionaryAttr(fields));
    }
    attrs.push_back(b.getNamedAttr("tensor_maps", b.getArrayAttr(list)));
  }
  if (config.getPixelTileH() > 0)
    attrs.push_back(b.getNamedAttr(
        "pixel_tile",
        b.getI64ArrayAttr({config.getPixelTileH(), config.getPixelTileW()})));
  if (!getMetaKernel().empty())
    attrs.push_back(
        b.getNamedAttr("meta_kernel", b.getStringAttr(getMetaKernel())));
  if (!getFallbackKernel().empty()) {
    attrs.push_back(b.getNamedAttr("fallback_kernel",
                                   b.getStringAttr(getFallbackKernel())));
    attrs.push_back(
        b.getNamedAttr("staged_align", b.getI64IntegerAttr(getStagedAlign())));
  }
  if (ConvGeometryAttr conv = getConv()) {
    std::pair<StringRef, int64_t> keys[] = {{"KH", conv.getKh()},
                                            {"KW", conv.getKw()},
                                            {"stride_h", conv.getStrideH()},
                                            {"stride_w", conv.getStrideW()},
                                            {"dilation_h", conv.getDilationH()},
                                            {"dilation_w", conv.getDilationW()},
                                            {"pad_top", conv.getPadTop()},
                                            {"pad_left", conv.getPadLeft()},
                                            {"pad_bottom", conv.getPadBottom()},
                                            {"pad_right", conv.getPadRight()},
                                            {"C", conv.getC()},
                                            {"Cp", conv.getCp()},
                                            {"groups", conv.getGroups()},
                                            {"N", conv.getN()},
                                            {"H", conv.getH()},
                                            {"W", conv.getW()},
                                            {"OH", conv.getOh()},
                                            {"OW", conv.getOw()}};
    SmallVector<NamedAttribute> geometry;
    for (auto [key, value] : keys)
      geometry.push_back(b.getNamedAttr(key, b.getI64IntegerAttr(dyn(value))));
    attrs.push_back(b.getNamedAttr("conv", b.getDictionaryAttr(geometry)));
  }
  return b.getDictionaryAttr(attrs);
}
