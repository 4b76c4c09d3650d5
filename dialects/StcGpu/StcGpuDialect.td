//===- StcGpuDialect.td - stc_gpu dialect definition -----*- tablegen -*-===//
//
// The stc_gpu dialect: what STC's GPU code generation adds below the
// tensor-level stc dialect. Base classes for its ops and attributes.
//
//===----------------------------------------------------------------------===//
#ifndef STC_DIALECTS_STCGPU_STCGPUDIALECT_TD
#define STC_DIALECTS_STCGPU_STCGPUDIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def StcGpu_Dialect : Dialect {
  let name = "stc_gpu";
  let cppNamespace = "::mlir::stc_gpu";
  let summary = "GPU code generation of STC: kernel configurations and "
                "sparse tensor core instructions";
  let description = [{
    The `stc_gpu` dialect holds what the GPU lowering of the tensor-level
    `stc` ops needs and upstream MLIR lacks:

    - `#stc_gpu.kernel_config`, the typed choice of kernel for one
      `stc.spmm` or `stc.conv` (kernel family, block tile, pipeline depth,
      cluster, block order, multicast, operand sources, accumulator). The
      pass `stc-configure-gpu-kernels` attaches it to each op as the
      discardable attribute `stc_gpu.kernel_config` (its heuristics are the
      default; a program or a tuner may set it instead), and
      `stc-lower-spmm-to-gpu` builds exactly the kernel it describes.
    - `#stc_gpu.kernel_info`, the launch contract of a generated kernel
      (its configuration, parameters, problem, metadata layout, tensor
      maps), attached to the `gpu.func` as `stc_gpu.kernel_info`, read by
      `stc-gpu-host-launch` and the emulator and exported as JSON by
      `stc-compile --kernel-info`.
    - `stc_gpu.launches`, on the private host function that stands for a
      kernel launch until `stc-gpu-host-launch` gives it its body: the
      kernel's symbol.
    - Register-level instruction ops that upstream's NVVM dialect does not
      have, such as `stc_gpu.wgmma_sp` (`wgmma.mma_async.sp`).
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    /// On the private host function stc-lower-spmm-to-gpu declares for each
    /// kernel: the kernel it launches (@stc_kernels::@name), which
    /// stc-gpu-host-launch reads to define its body.
    static constexpr ::llvm::StringLiteral kLaunchesAttrName =
        "stc_gpu.launches";
    /// A unit attribute on the one-thread-per-element kernels of
    /// stc-lower-elementwise-to-gpu (no kernel_info: stc-gpu-host-launch
    /// launches ceil(elements / 256) blocks of 256 threads).
    static constexpr ::llvm::StringLiteral kElementwiseAttrName =
        "stc_gpu.elementwise";
    /// A unit attribute beside kElementwiseAttrName on a reduction kernel
    /// that computes each result element with a whole block (its threads
    /// stride over the row, then combine in shared memory):
    /// stc-gpu-host-launch launches one block per element.
    static constexpr ::llvm::StringLiteral kBlockPerElementAttrName =
        "stc_gpu.block_per_element";
    /// An i64 attribute beside kElementwiseAttrName on a kernel that
    /// computes whole rows of its result with a team of threads each (row
    /// reductions and their consumer, passes/GPU/RowKernel.h): how many
    /// rows a block computes. stc-gpu-host-launch launches
    /// ceil(rows / that) blocks, a row being the result's last dimension.
    static constexpr ::llvm::StringLiteral kRowsPerBlockAttrName =
        "stc_gpu.rows_per_block";
    /// An i64 attribute beside kElementwiseAttrName on a kernel whose
    /// threads each compute that many adjacent elements of the result
    /// (vector loads and stores along the innermost dimension):
    /// stc-gpu-host-launch launches ceil(elements / (256 * that)) blocks.
    static constexpr ::llvm::StringLiteral kElementsPerThreadAttrName =
        "stc_gpu.elements_per_thread";
  }];
}

class StcGpu_Op<string mnemonic, list<Trait> traits = []>
    : Op<StcGpu_Dialect, mnemonic, traits>;

class StcGpu_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<StcGpu_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

#endif // STC_DIALECTS_STCGPU_STCGPUDIALECT_TD
