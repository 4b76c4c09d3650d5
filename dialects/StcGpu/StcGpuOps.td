//===- StcGpuOps.td - stc_gpu operations -----------------*- tablegen -*-===//
//
// Register-level GPU instructions that upstream's NVVM dialect lacks and
// STC's kernels use. Unlike the tensor-level stc ops, these are single
// instructions on registers and shared-memory descriptors.
//
//===----------------------------------------------------------------------===//
#ifndef STC_DIALECTS_STCGPU_STCGPUOPS_TD
#define STC_DIALECTS_STCGPU_STCGPUOPS_TD

include "dialects/StcGpu/StcGpuDialect.td"
include "mlir/IR/CommonTypeConstraints.td"

//===----------------------------------------------------------------------===//
// stc_gpu.wgmma_sp
//===----------------------------------------------------------------------===//

// Accumulator registers of wgmma.mma_async.sp: f32 (f32 accumulation), i32
// (s32 accumulation, or two f16 packed in a b32 register) or vector<2xf16>
// (f16 accumulation).
def StcGpu_WgmmaAccType : AnyTypeOf<[F32, I32, VectorOfLengthAndType<[2], [F16]>]>;

def StcGpu_WgmmaSpOp : StcGpu_Op<"wgmma_sp", [AttrSizedOperandSegments]> {
  let summary = "Sparse warpgroup MMA (PTX wgmma.mma_async.sp, sm_90a)";
  let description = [{
    One `wgmma.mma_async.sp` instruction at the NVVM level of abstraction:
    the 128 threads of a warpgroup compute `D = A * B + D` (or `D = A * B`
    when `scale_d` is false) for a 64 x `n` tile, where A (64 x K) is 2:4
    structured sparse (1:2 for tf32) and given packed (64 x K/2) with its
    metadata, and B (K x `n`) is in shared memory. K is implied by the input
    type: 32 for f16/bf16, 16 for tf32 and 64 for the 8-bit types
    (`f8E4M3FN`/`f8E5M2` = PTX e4m3/e5m2, `si8`/`ui8` = s8/u8).

    Operands, per thread:
    - `acc`: the accumulator registers; `new_acc` are the same registers
      after the instruction (same count and types). `d_type` f32: `n/2` f32;
      f16: `n/4` registers of two packed f16 (`i32` or `vector<2xf16>`);
      i32 (s32, 8-bit integer inputs only): `n/2` i32.
    - A: either `a_desc`, a 64-bit shared-memory matrix descriptor, or
      `a_regs`, four i32 registers holding this thread's fragment of packed A.
    - `b_desc`: the 64-bit shared-memory matrix descriptor of B.
    - `meta`: the 32-bit sparsity metadata register; `sel` (the PTX
      sparsity selector, an immediate) says which threads of each quad
      supply it: 0 or 1 for 16- and 32-bit inputs, 0 for 8-bit inputs.
    - `scale_d` (optional i1, default true): false ignores the accumulator
      (`D = A * B`).

    Attributes: `scale_a`/`scale_b` (1 or -1, negate A/B; floating point
    inputs only), `trans_a` (descriptor A only) and `trans_b` (f16/bf16
    only) transpose A/B in shared memory, `satfinite` (i32 accumulation)
    saturates instead of wrapping. `n` is a multiple of 8 from 8 to 256
    (8, 16, 24 or a multiple of 16 for 8-bit integer inputs). The
    instruction needs sm_90a and PTX ISA 8.2 (8.4 for mixed s8/u8).

    The op is asynchronous like the instruction: bracket it with
    `nvvm.wgmma.fence.aligned` and `nvvm.wgmma.commit.group.sync.aligned` /
    `nvvm.wgmma.wait.group.sync.aligned` before reading `new_acc`.
    `stc-lower-wgmma-sp-to-nvvm` lowers it to inline PTX.

    ```mlir
    // m64n8k32, f16 inputs, f32 accumulation, A and B in shared memory.
    %d:4 = stc_gpu.wgmma_sp f16 * f16 -> f32, n = 8, a_desc(%da) b_desc(%db)
        meta(%e) sel(0) acc(%c0, %c1, %c2, %c3) : f32
    // m64n16k32, A from registers, f16 accumulation, B transposed;
    // D = A * B + D where %keep is true, D = A * B where it is false.
    %h:4 = stc_gpu.wgmma_sp f16 * f16 -> f16, n = 16,
        a_regs(%a0, %a1, %a2, %a3) b_desc(%db) meta(%e) sel(1)
        scale_d(%keep) trans_b acc(%h0, %h1, %h2, %h3) : vector<2xf16>
    ```
  }];
  let arguments = (ins
    Variadic<StcGpu_WgmmaAccType>:$acc,
    Optional<I64>:$a_desc,
    Variadic<I32>:$a_regs,
    I64:$b_desc,
    I32:$meta,
    Optional<I1>:$scale_d,
    TypeAttr:$a_type,
    TypeAttr:$b_type,
    TypeAttr:$d_type,
    I64Attr:$n,
    DefaultValuedAttr<I32Attr, "0">:$sel,
    DefaultValuedAttr<I32Attr, "1">:$scale_a,
    DefaultValuedAttr<I32Attr, "1">:$scale_b,
    UnitAttr:$trans_a,
    UnitAttr:$trans_b,
    UnitAttr:$satfinite
  );
  let results = (outs Variadic<StcGpu_WgmmaAccType>:$new_acc);
  let assemblyFormat = [{
    $a_type `*` $b_type `->` $d_type `,` `n` `=` $n `,`
    (`a_desc` `(` $a_desc^ `)`)?
    (`a_regs` `(` $a_regs^ `)`)?
    `b_desc` `(` $b_desc `)` `meta` `(` $meta `)` `sel` `(` $sel `)`
    (`scale_d` `(` $scale_d^ `)`)?
    (`scale_a` `(` $scale_a^ `)`)?
    (`scale_b` `(` $scale_b^ `)`)?
    (`trans_a` $trans_a^)?
    (`trans_b` $trans_b^)?
    (`satfinite` $satfinite^)?
    `acc` `(` $acc `)` attr-dict `:`
    custom<WgmmaAccTypes>(ref($acc), type($acc), type($new_acc))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// K of the m64nNk<K> shape: 32 (f16/bf16), 16 (tf32) or 64 (8-bit).
    int64_t getK();
    /// The PTX name of an element type (f16, bf16, tf32, e4m3, e5m2, s8,
    /// u8, f32, s32), or "" for a type wgmma.mma_async.sp does not take.
    static ::llvm::StringRef getPtxTypeName(::mlir::Type type);
  }];
}

#endif // STC_DIALECTS_STCGPU_STCGPUOPS_TD
