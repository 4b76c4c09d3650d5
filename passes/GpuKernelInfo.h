//===- GpuKernelInfo.h - what a generated GPU kernel expects --*- C++ -*-===//
//
// stc-lower-spmm-to-gpu describes each kernel it generates in a
// DictionaryAttr on the gpu.func (`stc.kernel_info`): the host lowering
// (stc-gpu-host-launch) launches it from that description, and tools export
// it (stc-compile --kernel-info) so that benchmarks and autotuners can
// launch the PTX themselves. Keys (all stable within a minor version):
//
//   kernel            entry name
//   block             [threads, 1, 1]
//   tile              [block rows, block cols] of the canonical problem
//   grid              [ceil(P / cols), ceil(R / rows), 1], -1 when dynamic
//   shared_bytes      dynamic shared memory
//   params            parameter names in order; the first num_pointers are
//                     64-bit device pointers, the rest i32
//   param_types       "ptr" or "i32" for each
//   R, P, K           canonical problem Out[R, P] = S[R, K] . D[K, P]
//                     (-1 when dynamic)
//   sparse            "lhs" or "rhs"; dense_transposed (bool)
//   input_type, output_type, mma, ordered_metadata
//   accumulator       "f32" or "f16" (the mma.sp's C/D type)
//   variant           "direct" (fragments from global memory) or "staged"
//                     (cp.async pipeline through shared memory, ldmatrix)
//   fallback_kernel   only on a staged kernel whose dense operand has a
//                     dynamic leading dimension (or, for i8, dynamic value
//                     rows): a direct kernel with the same params, block,
//                     tile and grid and no shared memory, to launch instead
//                     when the rows are not 16-byte aligned, as cuBLAS
//                     does. It has no kernel_info of its own.
//   staged_align      with fallback_kernel: the staged kernel needs the
//                     dense operand's leading dimension (its dimension 1
//                     as given) and the values' row length (value_cols) to
//                     be multiples of this many elements (16 bytes: 8
//                     f16/bf16, 4 f32, 16 i8); device buffers themselves
//                     must be 16-byte aligned (cudaMalloc's are)
//   stages            shared-memory stages of the staged kernel (0: direct)
//   static_shared_bytes  shared memory the kernel declares itself
//   groups            independent GEMMs whose row tiles the grid's y
//                     stacks (a grouped convolution; 1 otherwise): grid y
//                     is groups * ceil(R / rows)
//   meta_layout       "kernel_ready": the meta parameter is given in the
//                     kernel-ready layout (docs/GPU-LAYOUT.md; groups one
//                     after the other), as stc-lower-spmm-to-gpu compiled
//                     constant metadata; "canonical": the host passes
//                     canonical metadata, which kernel `meta_kernel`
//                     (params meta, words, R, meta_cols, row_blocks,
//                     vectors, total; 256 threads, one per word) converts
//                     on the device first
//   conv              only for stc.conv's implicit GEMM: its geometry (KH,
//                     KW, stride_h/w, dilation_h/w, pad_top/left/bottom/
//                     right, C and Cp per group, groups, N, H, W, OH, OW;
//                     -1 when dynamic). Its kernels take the i32 parameters
//                     N, H, W, OH, OW after meta_cols.
//
//===----------------------------------------------------------------------===//
#ifndef STC_PASSES_GPUKERNELINFO_H
#define STC_PASSES_GPUKERNELINFO_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

#include <string>
#include <vector>

namespace mlir::stc {

/// On each generated gpu.func.
constexpr llvm::StringLiteral kKernelInfoAttrName = "stc.kernel_info";
/// On the private host function that launches a kernel: the kernel's
/// symbol (@stc_kernels::@name).
constexpr llvm::StringLiteral kGpuSpmmHostAttrName = "stc.gpu_spmm_host";

struct GpuKernelInfo {
  std::string kernel;
  int64_t blockThreads = 0;
  int64_t blockRows = 0, blockCols = 0;
  std::vector<std::string> paramNames;
  unsigned numPointerParams = 0;
  int64_t rows = -1, cols = -1, depth = -1;
  bool sparseLhs = true;
  bool denseTransposed = false;
  Type inputType, outputType;
  std::string mma;
  std::string accumulator = "f32";
  bool orderedMetadata = true;
  std::string variant;
  int64_t stages = 0;
  int64_t staticSharedBytes = 0;
  int64_t groups = 1;
  std::string metaLayout = "canonical";
  std::string metaKernel;
  /// The direct fallback of a staged kernel (empty: none) and the element
  /// multiple its rows need.
  std::string fallbackKernel;
  int64_t stagedAlign = 0;
  /// Convolution geometry, in order (empty: not a convolution).
  std::vector<std::pair<std::string, int64_t>> conv;
  /// Dynamic shared memory the kernel is launched with (bytes).
  int64_t sharedBytes = 0;
  /// Thread-block cluster along grid y (the rows): 1 or 2.
  int64_t clusterRows = 1;
  /// Kernel-ready metadata geometry: rows per block of words, dense K per
  /// word and threads per block (mma.sp: 32 rows, 32 (16 tf32) K, 32
  /// lanes; wgmma: 64, 64, 128).
  int64_t metaRowsPerBlock = 32, metaKPerWord = 32, metaThreads = 32;
  /// A TMA descriptor the host builds for a pointer parameter `param`
  /// (listed after the sizes) over operand buffer `operand`, of its rank (2
  /// or 4), dimensions innermost first: `box` elements per dimension,
  /// `elementStrides` (empty: all 1) the traversal strides, `swizzle`
  /// bytes (0, 32, 64, 128), `dataType` a CUtensorMapDataType.
  struct TensorMap {
    std::string param, operand;
    int64_t dataType;
    std::vector<int64_t> box;
    int64_t swizzle;
    std::vector<int64_t> elementStrides = {};
  };
  std::vector<TensorMap> tensorMaps;
  /// Convolution on sm_90a: each block computes a TH x TW tile of output
  /// pixels of one image ({0, 0}: blocks take consecutive pixels).
  int64_t pixelTileH = 0, pixelTileW = 0;

  /// Blocks along grid x: tiles of P, or for a convolution on sm_90a
  /// N x ceil(OH / TH) x ceil(OW / TW); -1 when a size is dynamic.
  int64_t gridX() const {
    auto ceilDiv = [](int64_t a, int64_t d) {
      return a < 0 ? int64_t(-1) : (a + d - 1) / d;
    };
    if (pixelTileH <= 0)
      return ceilDiv(cols, blockCols);
    auto convSize = [&](StringRef key) {
      for (const auto &[k, v] : conv)
        if (k == key)
          return v;
      return int64_t(-1);
    };
    int64_t n = convSize("N"), oh = convSize("OH"), ow = convSize("OW");
    if (n < 0 || oh < 0 || ow < 0)
      return -1;
    return n * ceilDiv(oh, pixelTileH) * ceilDiv(ow, pixelTileW);
  }

  DictionaryAttr toAttr(MLIRContext *ctx) const {
    Builder b(ctx);
    auto dyn = [](int64_t v) { return v < 0 ? int64_t(-1) : v; };
    auto ceilDiv = [&](int64_t a, int64_t d) {
      return a < 0 ? int64_t(-1) : (a + d - 1) / d;
    };
    SmallVector<Attribute> names, types;
    for (size_t i = 0; i < paramNames.size(); ++i) {
      names.push_back(b.getStringAttr(paramNames[i]));
      bool isMap = llvm::any_of(tensorMaps, [&](const TensorMap &m) {
        return m.param == paramNames[i];
      });
      types.push_back(
          b.getStringAttr(i < numPointerParams || isMap ? "ptr" : "i32"));
    }
    auto typeName = [&](Type t) {
      std::string s;
      llvm::raw_string_ostream os(s);
      t.print(os);
      return b.getStringAttr(s);
    };
    SmallVector<NamedAttribute> attrs = {
        b.getNamedAttr("kernel", b.getStringAttr(kernel)),
        b.getNamedAttr("block", b.getI64ArrayAttr({blockThreads, 1, 1})),
        b.getNamedAttr("tile", b.getI64ArrayAttr({blockRows, blockCols})),
        b.getNamedAttr(
            "grid",
            b.getI64ArrayAttr(
                {gridX(),
                 rows < 0
                     ? int64_t(-1)
                     : clusterRows * ceilDiv(groups * ceilDiv(rows, blockRows),
                                             clusterRows),
                 1})),
        b.getNamedAttr("cluster", b.getI64ArrayAttr({1, clusterRows, 1})),
        b.getNamedAttr("shared_bytes", b.getI64IntegerAttr(sharedBytes)),
        b.getNamedAttr("params", b.getArrayAttr(names)),
        b.getNamedAttr("param_types", b.getArrayAttr(types)),
        b.getNamedAttr("num_pointers", b.getI64IntegerAttr(numPointerParams)),
        b.getNamedAttr("R", b.getI64IntegerAttr(dyn(rows))),
        b.getNamedAttr("P", b.getI64IntegerAttr(dyn(cols))),
        b.getNamedAttr("K", b.getI64IntegerAttr(dyn(depth))),
        b.getNamedAttr("sparse", b.getStringAttr(sparseLhs ? "lhs" : "rhs")),
        b.getNamedAttr("dense_transposed", b.getBoolAttr(denseTransposed)),
        b.getNamedAttr("input_type", typeName(inputType)),
        b.getNamedAttr("output_type", typeName(outputType)),
        b.getNamedAttr("mma", b.getStringAttr(mma)),
        b.getNamedAttr("accumulator", b.getStringAttr(accumulator)),
        b.getNamedAttr("ordered_metadata", b.getBoolAttr(orderedMetadata)),
        b.getNamedAttr("variant", b.getStringAttr(variant)),
        b.getNamedAttr("stages", b.getI64IntegerAttr(stages)),
        b.getNamedAttr("static_shared_bytes",
                       b.getI64IntegerAttr(staticSharedBytes)),
        b.getNamedAttr("groups", b.getI64IntegerAttr(groups)),
        b.getNamedAttr("meta_layout", b.getStringAttr(metaLayout)),
        b.getNamedAttr("meta_rows_per_block",
                       b.getI64IntegerAttr(metaRowsPerBlock)),
        b.getNamedAttr("meta_k_per_word", b.getI64IntegerAttr(metaKPerWord)),
        b.getNamedAttr("meta_threads", b.getI64IntegerAttr(metaThreads)),
    };
    if (!tensorMaps.empty()) {
      SmallVector<Attribute> maps;
      for (const TensorMap &m : tensorMaps) {
        SmallVector<NamedAttribute> fields = {
            b.getNamedAttr("param", b.getStringAttr(m.param)),
            b.getNamedAttr("operand", b.getStringAttr(m.operand)),
            b.getNamedAttr("data_type", b.getI64IntegerAttr(m.dataType)),
            b.getNamedAttr("box", b.getI64ArrayAttr(m.box)),
            b.getNamedAttr("swizzle", b.getI64IntegerAttr(m.swizzle)),
        };
        if (!m.elementStrides.empty())
          fields.push_back(b.getNamedAttr("element_strides",
                                          b.getI64ArrayAttr(m.elementStrides)));
        maps.push_back(b.getDictionaryAttr(fields));
      }
      attrs.push_back(b.getNamedAttr("tensor_maps", b.getArrayAttr(maps)));
    }
    if (pixelTileH > 0)
      attrs.push_back(b.getNamedAttr(
          "pixel_tile", b.getI64ArrayAttr({pixelTileH, pixelTileW})));
    if (!metaKernel.empty())
      attrs.push_back(
          b.getNamedAttr("meta_kernel", b.getStringAttr(metaKernel)));
    if (!fallbackKernel.empty()) {
      attrs.push_back(
          b.getNamedAttr("fallback_kernel", b.getStringAttr(fallbackKernel)));
      attrs.push_back(
          b.getNamedAttr("staged_align", b.getI64IntegerAttr(stagedAlign)));
    }
    if (!conv.empty()) {
      SmallVector<NamedAttribute> geometry;
      for (const auto &[key, value] : conv)
        geometry.push_back(
            b.getNamedAttr(key, b.getI64IntegerAttr(dyn(value))));
      attrs.push_back(b.getNamedAttr("conv", b.getDictionaryAttr(geometry)));
    }
    return b.getDictionaryAttr(attrs);
  }
};

} // namespace mlir::stc

#endif // STC_PASSES_GPUKERNELINFO_H
