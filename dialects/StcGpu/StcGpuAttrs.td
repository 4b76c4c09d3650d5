//===- StcGpuAttrs.td - stc_gpu attributes ---------------*- tablegen -*-===//
//
// #stc_gpu.kernel_config: the kernel chosen for one sparse product (set by
// stc-configure-gpu-kernels, consumed by stc-lower-spmm-to-gpu).
// #stc_gpu.kernel_info: the launch contract of one generated kernel, with
// its parts #stc_gpu.conv_geometry and #stc_gpu.tensor_map.
//
//===----------------------------------------------------------------------===//
#ifndef STC_DIALECTS_STCGPU_STCGPUATTRS_TD
#define STC_DIALECTS_STCGPU_STCGPUATTRS_TD

include "dialects/StcGpu/StcGpuDialect.td"
include "dialects/StcGpu/StcGpuEnums.td"

def StcGpu_KernelConfigAttr : StcGpu_Attr<"KernelConfig", "kernel_config"> {
  let summary = "The GPU kernel chosen for one stc.spmm or stc.conv";
  let description = [{
    Everything `stc-lower-spmm-to-gpu` needs to decide about the kernel of
    one sparse product, as the pattern of IREE's lowering configurations:
    `stc-configure-gpu-kernels` attaches it to every `stc.spmm`/`stc.conv`
    that has none (its heuristics are the default choice; the tools' `--gpu-*`
    options override them), and a program or an autotuner may set it
    itself. The lowering builds exactly this kernel or fails with an error
    that says why the op cannot have it.

    - `arch`: the target architecture.
    - `family`: `direct` (mma.sp, fragments loaded from global memory),
      `staged` (mma.sp, a cp.async pipeline through shared memory, ldmatrix)
      or `wgmma` (sm_90a only: TMA producer warpgroup, mbarrier ring,
      wgmma.mma_async.sp consumers).
    - `block_rows` x `block_cols`: the block tile of the canonical product
      Out[R, P] = S[R, K] . D[K, P]: 64 or 128 each for mma.sp, 64, 128 or
      256 for wgmma (256 rows take at most 128 columns), whose columns may
      also be 16 or 32 (decode-size products: a 2:4 GEMM whose dense
      operand has K contiguous, no multicast).
    - `stages`: cp.async stages (staged: 2 to 4) or ring slots (wgmma: 2
      to 12; the heuristic takes at most 6); 0 for direct.
    - `cluster_rows` (wgmma: 1 or 2), `group_rows` (every family: grouped
      block order, row tiles per group, 0 for launch order, a multiple of
      the cluster), `multicast_b` (wgmma with a cluster of 2: TMA multicast of B),
      `a_source` (wgmma: `smem` descriptors or `registers`).
    - `accumulator`: `f32`, `f16` (mma.sp with f16 operands) or `s32` (i8).
    - `ordered_metadata`: mma.sp::ordered_metadata (PTX 8.5) or plain mma.sp.
    - `direct_fallback` (staged): also generate the direct kernel, which the
      host launches when a dynamic leading dimension leaves rows that are
      not 16-byte aligned.
    - `pixel_tile_h` x `pixel_tile_w` (wgmma convolutions): the output
      pixels of one image a block computes (their product is `block_cols`).
      0 x 0 on a pointwise convolution (1x1, stride 1, no padding): its
      pixels are tiled flat, `block_cols` consecutive pixels of N x OH x OW
      a block, as a GEMM's columns.
    - `warp_rows` x `warp_cols` (staged, direct): one warp's tile of
      mma.sp instructions, 32 or 64 each, dividing the block tile; a larger
      warp tile reads fewer ldmatrix bytes per mma.sp and needs fewer warps
      (and more registers). Family wgmma has its own warpgroup tiles and
      keeps the default, 32 x 32.
    - `stage_k_steps` (staged, wgmma): K steps a pipeline stage holds, 1
      or 2 (staged: 32 or 64 of K for f16/bf16, half the barriers and
      cp.async waits per K with 2; wgmma, a 2:4 operand with an even number
      of 64-K steps: a ring slot of two steps, whose four wgmmas per 64-row
      tile share one wgmma.wait_group). The stages live in static shared memory up to 48 KiB,
      in dynamic shared memory beyond, up to the arch's opt-in limit
      (sm_80 163 KiB, sm_86/sm_89 99 KiB, sm_90 227 KiB).
    - `meta_tma` (wgmma, a 2:4 operand): the kernel-ready metadata comes
      through the TMA ring with A and B (the producer copies each 128-bit
      vector of a thread's words into shared memory, on the same `full`
      mbarrier as its first K step) instead of each consumer thread loading
      it from global memory.
    - `vector_stores` (wgmma, staged): the epilogue stages each warp's
      results in shared memory (the ring or the pipeline's stages, once
      every warp is done with them) and writes them to the result as
      16-byte vectors along its contiguous dimension, instead of one
      element per thread and accumulator. A staged kernel's direct
      fallback keeps the element stores.

    ```mlir
    %0 = stc.spmm %v, %m, %d {pattern = #stc.nm<2:4>,
        sparse = #stc.operand<lhs>,
        stc_gpu.kernel_config = #stc_gpu.kernel_config<arch = sm_90a,
            family = wgmma, block_rows = 128, block_cols = 256, stages = 4,
            cluster_rows = 2>}
        : tensor<256x64xf16>, tensor<256x8xi16>, tensor<128x512xf16>
        -> tensor<256x512xf32>
    ```
  }];
  let parameters = (ins
    EnumParameter<StcGpu_GpuArch>:$arch,
    EnumParameter<StcGpu_KernelFamily>:$family,
    "int64_t":$block_rows,
    "int64_t":$block_cols,
    DefaultValuedParameter<"int64_t", "0">:$stages,
    DefaultValuedParameter<"int64_t", "1">:$cluster_rows,
    DefaultValuedParameter<"int64_t", "0">:$group_rows,
    DefaultValuedParameter<"bool", "false">:$multicast_b,
    DefaultValuedParameter<"::mlir::stc_gpu::WgmmaASource",
                           "::mlir::stc_gpu::WgmmaASource::smem">:$a_source,
    DefaultValuedParameter<"::mlir::stc_gpu::Accumulator",
                           "::mlir::stc_gpu::Accumulator::f32">:$accumulator,
    DefaultValuedParameter<"bool", "true">:$ordered_metadata,
    DefaultValuedParameter<"bool", "false">:$direct_fallback,
    DefaultValuedParameter<"int64_t", "0">:$pixel_tile_h,
    DefaultValuedParameter<"int64_t", "0">:$pixel_tile_w,
    DefaultValuedParameter<"int64_t", "32">:$warp_rows,
    DefaultValuedParameter<"int64_t", "32">:$warp_cols,
    DefaultValuedParameter<"int64_t", "1">:$stage_k_steps,
    DefaultValuedParameter<"bool", "false">:$meta_tma,
    DefaultValuedParameter<"bool", "false">:$vector_stores
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The discardable attribute on stc.spmm / stc.conv that holds it.
    static constexpr ::llvm::StringLiteral kAttrName =
        "stc_gpu.kernel_config";
    bool isWgmma() const {
      return getFamily() == ::mlir::stc_gpu::KernelFamily::wgmma;
    }
    bool isStaged() const {
      return getFamily() == ::mlir::stc_gpu::KernelFamily::staged;
    }
  }];
}

def StcGpu_ConvGeometryAttr : StcGpu_Attr<"ConvGeometry", "conv_geometry"> {
  let summary = "The convolution behind an implicit-GEMM kernel";
  let description = [{
    Filter `kh` x `kw`, strides, dilations, padding (top, left, bottom,
    right), input channels per group `c` (padded to `cp`), `groups`, and
    the NHWC sizes `n`, `h`, `w` of the input and `oh`, `ow` of the output
    (-1 where dynamic).
  }];
  let parameters = (ins "int64_t":$kh, "int64_t":$kw, "int64_t":$stride_h,
                        "int64_t":$stride_w, "int64_t":$dilation_h,
                        "int64_t":$dilation_w, "int64_t":$pad_top,
                        "int64_t":$pad_left, "int64_t":$pad_bottom,
                        "int64_t":$pad_right, "int64_t":$c, "int64_t":$cp,
                        "int64_t":$groups, "int64_t":$n, "int64_t":$h,
                        "int64_t":$w, "int64_t":$oh, "int64_t":$ow);
  let assemblyFormat = "`<` struct(params) `>`";
}

def StcGpu_TensorMapAttr : StcGpu_Attr<"TensorMap", "tensor_map"> {
  let summary = "A TMA descriptor the host builds for a kernel parameter";
  let description = [{
    Kernel parameter `param` is a tensor map (CUtensorMap, built by the
    runtime's cuTensorMapEncodeTiled) over operand buffer `operand`, of that
    buffer's rank (2, 3 (a batch of matrices, built as 4-D with an outer
    dimension of 1) or 4), dimensions innermost first: `box` elements per
    dimension, `element_strides` the traversal strides (empty: all 1),
    `swizzle` bytes (0, 32, 64 or 128) and `data_type` a
    CUtensorMapDataType. A map over `meta` (the kernel-ready metadata, a
    flat array of 32-bit words; `data_type` 2, UINT32) sees it as 4-D,
    innermost first: `box[0]` words, the rest of a 128-bit vector of every
    thread (4 x `meta_threads` words), the vectors of a row block, the row
    blocks.
  }];
  let parameters = (ins StringRefParameter<"kernel parameter">:$param,
                        StringRefParameter<"operand buffer">:$operand,
                        "int64_t":$data_type,
                        ArrayRefParameter<"int64_t">:$box,
                        "int64_t":$swizzle,
                        OptionalArrayRefParameter<"int64_t">:$element_strides);
  let assemblyFormat = [{
    `<` $param `over` $operand `,` `type` $data_type `,` `box` `[` $box `]`
    `,` `swizzle` $swizzle (`,` `strides` `[` $element_strides^ `]`)? `>`
  }];
}

def StcGpu_KernelInfoAttr : StcGpu_Attr<"KernelInfo", "kernel_info"> {
  let summary = "The launch contract of a generated kernel";
  let description = [{
    What the host needs to launch a kernel `stc-lower-spmm-to-gpu`
    generated, on its `gpu.func` as `stc_gpu.kernel_info`:

    - `config`: the kernel configuration it implements;
    - `threads` per block, dynamic `shared_bytes` it is launched with and
      the `static_shared_bytes` it declares itself;
    - `params`: parameter names in order; the first `num_pointers` are
      64-bit device pointers of operand buffers (values, meta, dense, then
      bias, acc, scale where present, out last), then i32 sizes (R, P, K,
      value_cols, meta_cols, and for a convolution N, H, W, OH, OW), then
      the tensor maps;
    - the canonical problem Out[`rows`, `cols`] = S[`rows`, `depth`] .
      D[`depth`, `cols`] (-1 where dynamic), which operand is sparse
      (`sparse_lhs`), whether the dense one is given transposed, the
      element types, and `groups` (a grouped convolution stacks each
      group's row tiles along grid y);
    - the metadata: its `meta_layout` (`none`: the dense tensor-core kernel
      of a contraction that stays dense, whose S operand is a dense matrix
      and which has no meta parameter; `kernel_ready`: compiled in;
      `canonical`: converted on the device by kernel `meta_kernel`) and the
      kernel-ready geometry (rows per block of words, dense K per word,
      threads per block);
    - `fallback_kernel`: the direct kernel to launch instead when a dynamic
      leading dimension or value row is not a multiple of `staged_align`
      elements;
    - `conv`: the convolution geometry of an implicit GEMM;
    - `tensor_maps`: the TMA descriptors the host builds.

    `toDictionary()` gives the `kernel_info` JSON of `stc-compile
    --kernel-info` (docs/DESIGN.md lists its keys).
  }];
  let parameters = (ins
    StringRefParameter<"kernel symbol">:$kernel,
    "::mlir::stc_gpu::KernelConfigAttr":$config,
    "int64_t":$threads,
    "int64_t":$shared_bytes,
    "int64_t":$static_shared_bytes,
    "::mlir::ArrayAttr":$params,
    "int64_t":$num_pointers,
    "int64_t":$rows,
    "int64_t":$cols,
    "int64_t":$depth,
    "bool":$sparse_lhs,
    "bool":$dense_transposed,
    "::mlir::Type":$input_type,
    "::mlir::Type":$output_type,
    DefaultValuedParameter<"int64_t", "1">:$groups,
    EnumParameter<StcGpu_MetaLayout>:$meta_layout,
    StringRefParameter<"metadata conversion kernel", "\"\"">:$meta_kernel,
    "int64_t":$meta_rows_per_block,
    "int64_t":$meta_k_per_word,
    "int64_t":$meta_threads,
    StringRefParameter<"direct fallback kernel", "\"\"">:$fallback_kernel,
    DefaultValuedParameter<"int64_t", "0">:$staged_align,
    OptionalParameter<"::mlir::stc_gpu::ConvGeometryAttr">:$conv,
    OptionalParameter<"::mlir::ArrayAttr">:$tensor_maps
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The discardable attribute on a generated gpu.func that holds it.
    static constexpr ::llvm::StringLiteral kAttrName = "stc_gpu.kernel_info";
    /// The instruction shape, e.g. "m16n8k32" or "m64n256k32".
    std::string getMmaShape() const;
    /// Blocks along grid x and y (-1 where a size is dynamic).
    int64_t getGridX() const;
    int64_t getGridY() const;
    /// The tensor maps, in parameter order.
    ::llvm::SmallVector<::mlir::stc_gpu::TensorMapAttr> getTensorMapList() const;
    /// Index of parameter `name` in `params`, or -1.
    int64_t getParamIndex(::llvm::StringRef name) const;
    /// The stable `kernel_info` JSON keys, as a dictionary.
    ::mlir::DictionaryAttr toDictionary() const;
  }];
}

#endif // STC_DIALECTS_STCGPU_STCGPUATTRS_TD
