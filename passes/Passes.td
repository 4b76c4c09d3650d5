//===- Passes.td - stc passes ----------------------------*- tablegen -*-===//
//
// Every stc pass. Each is implemented in passes/<Name>.cpp and tested in
// test/Passes/<pass-argument>.mlir.
//
//===----------------------------------------------------------------------===//
#ifndef STC_PASSES_PASSES_TD
#define STC_PASSES_PASSES_TD

include "mlir/Pass/PassBase.td"

def StcSparsifyContractions : Pass<"stc-sparsify-contractions", "ModuleOp"> {
  let summary = "Rewrite matmul-like linalg ops with a sparse operand to stc.spmm";
  let description = [{
    Recognises contractions (`linalg.matmul` in all its transposed forms,
    `linalg.batch_matmul`, and a `linalg.generic` with a matmul body, e.g. the
    one torch-mlir emits for `nn.Linear`) and, when one operand is sparse,
    rewrites them to `stc.compress` + `stc.spmm`. An operand is sparse when
    it is produced by `stc.prune` along its reduction dimension, when its type
    carries the upstream `#sparse_tensor.encoding` with `structured[2, 4]`
    along the reduction dimension (the encoding is stripped), or when the
    `sparsity` option says so:

    - `explicit` (default): only the two cases above;
    - `enable`: also constant weights that already satisfy 2:4;
    - `force`: prune every eligible weight by magnitude (the constant operand
      when exactly one is constant, otherwise the right-hand operand);
    - `auto`: like `force`, but on a GPU `target` a contraction stays dense
      when its tuning-database entry or the cost model (docs/TUNING.md)
      says the dense kernel is faster; a remark gives both times. On the
      CPU every eligible weight is pruned (the dense path is scalar loops).

    Transposes in front of the sparse operand (`linalg.transpose` or a
    transposing `linalg.generic`) are looked through, so the weight is
    compressed in its stored orientation. Each rewrite emits a remark.
    With dynamic reduction sizes it also emits a call to the runtime's
    `stc_rt_check_reduction`, which reports operands that disagree on K.

    The `stc.prune` ops that `force` adds use `prune-method` (`strip` or
    `tile`) and carry `permute_channels` when `permute-channels` is set (see
    `stc-permute-channels`); an explicit `stc.prune` keeps its own.

    Contractions STC has no kernel for keep their encodings, with a remark
    saying why, for upstream's sparsifier (`stc-bufferize`): other formats
    (CSR, COO, BSR, ...), a `structured[2, 4]` level along a non-reduction
    dimension, a sparse result, element types other than f32/f16/bf16/i8,
    batched or higher-rank contractions. An encoded value that is not the
    conversion of a dense one is compressed from its dense view
    (`sparse_tensor.convert` to the plain type); an encoded function
    argument that only STC reads loses its encoding.
  }];
  let options = [
    Option<"sparsity", "sparsity", "std::string", "\"explicit\"",
           "Which operands are sparse: explicit, enable, force or auto">,
    Option<"pattern", "pattern", "std::string", "\"2:4\"",
           "N:M pattern for pruned operands (2:4, or 1:2 for f32)">,
    Option<"pruneMethod", "prune-method", "std::string", "\"strip\"",
           "How sparsity=force prunes: strip or tile (2:4 only)">,
    Option<"permuteChannels", "permute-channels", "bool", "false",
           "Mark the weights sparsity=force prunes with permute_channels">,
    Option<"target", "target", "std::string", "\"cpu\"",
           "sparsity=auto: the target whose kernels are compared (cpu or a "
           "GPU architecture)">,
    Option<"tuningDb", "tuning-db", "std::string", "\"\"",
           "sparsity=auto: a tuning database used with the committed one">,
    Option<"tuningBuiltin", "tuning-builtin", "bool", "true",
           "sparsity=auto: use the committed tuning database">,
    Option<"tuningDevice", "tuning-device", "std::string", "\"\"",
           "sparsity=auto: the tuning database's device">,
  ];
  let dependentDialects = [
    "::mlir::stc::StcDialect", "::mlir::arith::ArithDialect",
    "::mlir::tensor::TensorDialect", "::mlir::scf::SCFDialect",
    "::mlir::linalg::LinalgDialect", "::mlir::func::FuncDialect",
    "::mlir::memref::MemRefDialect"
  ];
}

def StcSparsifyConvolutions : Pass<"stc-sparsify-convolutions", "ModuleOp"> {
  let summary = "Rewrite 2-D linalg convolutions with a sparse filter to stc.conv";
  let description = [{
    Rewrites `linalg.conv_2d_nhwc_fhwc`, `linalg.conv_2d_nchw_fchw`,
    `linalg.conv_2d_nhwc_hwcf` and the grouped `linalg.conv_2d_ngchw_fgchw`,
    `linalg.conv_2d_ngchw_gfchw` and `linalg.conv_2d_nhwgc_gfhwc` (f32, f16
    or bf16, any strides and dilations, dynamic batch and image sizes) to
    `stc.compress` + `stc.conv` when the filter is sparse:

    - explicitly, by the upstream `structured[2, 4]` encoding on the filter's
      input-channel dimension (the encoding is stripped), or by an
      `stc.prune` of the flattened filter: `stc.prune` is rank-2, so the
      program prunes the `(G*F) x (KH*KW*C)` matrix whose rows are output
      channels and whose columns run over (kh, kw, c) `along 1` and
      `tensor.expand_shape`s it to `F x KH x KW x C` (`G x F x KH x KW x C`
      when grouped), optionally transposed to the convolution's filter
      layout. With C a multiple of the pattern's M that prunes along the
      input channels of every (output channel, filter row, filter column);
      otherwise its groups straddle filter positions and the convolution is
      left dense with a remark, as it is for an `stc.prune` along any other
      dimension;
    - or by the `sparsity` option: `enable` takes a constant filter that
      already satisfies the pattern along the input channels (C counted as
      zero-padded to a multiple of M); `force` prunes every filter, constant
      or not, by magnitude along the input channels.

    The pattern runs along the input channels of each (output channel,
    filter row, filter column), as TensorRT and Apex ASP prune. The filter
    is brought to the `(G*F) x (KH*KW*Cp)` matrix `stc.conv` takes
    (transposed to FHWC, input channels zero-padded to Cp, a multiple of the
    pattern's M, flattened); for a constant filter this happens on the data,
    so that `stc.prune` and `stc.compress` fold. NCHW-style inputs and
    results are transposed (grouped ones also collapsed / expanded) at the
    boundary, never inside the kernel. A `tensor.pad` of zeros on the
    spatial dimensions only, in front of the input, is folded into
    `pad_low`/`pad_high` (it stays if it has other users). An `outs` that is
    not a zero fill or zero constant becomes `acc` with `beta = 1`.

    Every rewrite emits a remark. Depthwise, quantized, 1-D and 3-D
    convolutions, one input channel per group, other element types and
    dynamic channel or filter sizes are left dense with a remark saying why,
    when the filter would otherwise have been sparse; when that filter
    carries the encoding, or its encoding runs along another dimension, it
    is an error instead, since the encoding cannot be honoured.
  }];
  let options = [
    Option<"sparsity", "sparsity", "std::string", "\"explicit\"",
           "Which filters are sparse: explicit, enable, force or auto (on "
           "a GPU target: sparse where the sparse kernel is measured or "
           "predicted faster than the dense one; on the CPU as force)">,
    Option<"pattern", "pattern", "std::string", "\"2:4\"",
           "N:M pattern for pruned filters (2:4, or 1:2 for f32)">,
    Option<"gpuDenseForm", "gpu-dense-form", "bool", "false",
           "Bring the 2-D convolutions that stay dense and that the GPU's "
           "dense tensor-core kernel can compute (f16/bf16, input channels "
           "per group a multiple of 8) to its NHWC form: "
           "linalg.conv_2d_nhwc_fhwc (linalg.conv_2d_nhwgc_gfhwc when "
           "grouped) with the filter transposed to [G x] F x KH x KW x C "
           "(on the data for a constant) and the activations transposed at "
           "the boundary. Set by the pipelines of GPU targets.">,
    Option<"target", "target", "std::string", "\"cpu\"",
           "sparsity=auto: the target whose kernels are compared (cpu or a "
           "GPU architecture)">,
    Option<"tuningDb", "tuning-db", "std::string", "\"\"",
           "sparsity=auto: a tuning database used with the committed one">,
    Option<"tuningBuiltin", "tuning-builtin", "bool", "true",
           "sparsity=auto: use the committed tuning database">,
    Option<"tuningDevice", "tuning-device", "std::string", "\"\"",
           "sparsity=auto: the tuning database's device">,
  ];
  let dependentDialects = [
    "::mlir::stc::StcDialect", "::mlir::arith::ArithDialect",
    "::mlir::tensor::TensorDialect", "::mlir::linalg::LinalgDialect"
  ];
}

def StcPermuteChannels : Pass<"stc-permute-channels", "func::FuncOp"> {
  let summary = "Permute reduction channels so that 2:4 pruning keeps more";
  let description = [{
    Channel permutation (Pool & Yu, "Channel Permutations for N:M Sparsity",
    NeurIPS 2021). Strip pruning keeps the largest two of every four
    consecutive reduction channels; which channels share a group is an
    accident of the weight's layout. For every `stc.prune` that carries
    `permute_channels` and prunes a constant weight `W` that is the sparse
    operand of a contraction (an `stc.spmm` through `stc.compress`, or a
    matmul-like linalg op not yet sparsified), this pass:

    1. searches, on `|W|`, a permutation `perm` of the reduction channels K
       under which strip pruning keeps more magnitude (never worse than the
       identity). The search is local (swaps within pairs and triples of
       groups, with random restarts): its result depends only on `seed` and
       `max-rounds` (rounds of work, not seconds, so that the same program
       gives the same permutation on any machine);
    2. replaces `W` by its K-permuted copy, still under the `stc.prune`
       (which the canonicalizer then folds, choosing the mask in permuted
       order);
    3. folds the same permutation into the *producer* of the contraction's
       other (dense) operand, so that both operands are permuted
       consistently and, before pruning, the program computes exactly what
       it computed before: it follows the dense operand back through ops
       that act on each channel alone (element-wise `linalg` ops whose
       operand and result maps are identities, e.g. ReLU or GELU, with
       broadcast constants such as a bias add) to a contraction
       (`stc.spmm`, `linalg.matmul` in any transposed form, a matmul-like
       `linalg.generic`) whose output channels come from a constant weight,
       and permutes that weight's output channels, its bias and every
       per-channel constant on the way. No op is added: at run time the
       program only sees permuted constants.

    When the producer cannot absorb the permutation (the activations are a
    function argument, a value on the way has another use that needs the
    original order, a weight or bias is not a constant, an op mixes
    channels, the producer's weight is tile-pruned) the contraction is left
    unpermuted with a remark saying why. Every applied permutation emits a
    remark with the fraction of the magnitude that strip pruning keeps
    without and with it, and the fraction of the pruned magnitude it
    recovers. Only `strip` pruning is permuted (the search optimises it).
    The `permute_channels` attribute is removed once handled.

    Run it after `stc-sparsify-contractions` (which creates the prunes under
    `sparsity=force`) and before the canonicalizer folds them.
  }];
  let options = [
    Option<"seed", "seed", "uint64_t", "0",
           "Seed of the permutation search (same seed, same result)">,
    Option<"maxRounds", "max-rounds", "int", "100",
           "Improvement rounds of the search per weight">,
    Option<"printPermutation", "print-permutation", "bool", "false",
           "Also print each permutation in a remark (for tests)">,
    Option<"testSkipPrune", "test-skip-prune", "bool", "false",
           "Testing only: apply the permutations to a contraction that is "
           "not yet sparsified but drop its stc.prune, so that the program "
           "stays dense and must compute what it computed before">,
  ];
  let dependentDialects = [
    "::mlir::stc::StcDialect", "::mlir::arith::ArithDialect"
  ];
}

def StcFuseEpilogue : Pass<"stc-fuse-epilogue", "func::FuncOp"> {
  let summary = "Fold element-wise consumers of stc.spmm and stc.conv into their epilogue";
  let description = [{
    Folds the element-wise tail that follows a contraction or a convolution
    into the fused epilogue of `stc.spmm` / `stc.conv`:

    - a broadcast bias add (`linalg.generic` with `arith.addf` of a rank-1
      tensor indexed by the sparse operand's rows for `stc.spmm`, by the
      output channel for `stc.conv`; or `linalg.add` of a
      `linalg.broadcast`) becomes the `bias` operand;
    - for `stc.conv`, a residual add (`linalg.generic` with `arith.addf`, or
      `linalg.add`, of a tensor of the result's type) becomes `acc` with
      `beta = 1`, when the conv has no `acc` yet;
    - ReLU (`arith.maximumf` with zero, or `cmpf ugt/ogt` + `select`)
      becomes `activation = relu`;
    - for `stc.spmm`, a whole tail in one `linalg.generic`: act(x + bias +
      residual) computed in f32 (each term optional, x and the others
      possibly widened by `arith.extf`, the sums in any order; act ReLU,
      the tanh or the erf GELU, or none), optionally rounded to f16/bf16,
      becomes `bias`, `acc` with `beta = 1`, `activation` and the result
      type of the `stc.spmm` at once.

    Only single-use results are folded, and only in epilogue order: bias
    and residual in either order, then the activation (conv -> bias ->
    residual add -> ReLU, the ResNet bottleneck tail, becomes one
    `stc.conv`). For an NCHW convolution, whose `stc.conv` result is
    transposed back to NCHW by a `linalg.transpose`, the same tail after the
    transpose is folded: the bias is then indexed by dimension 1 and the
    residual is transposed to NHWC for `acc`.
    Note that the fused ReLU is `maximumf`: a NaN stays NaN where the
    `select` form would give 0; and the fused bias and residual are added in
    f32 before the conversion to the result type.
  }];
  let dependentDialects = ["::mlir::stc::StcDialect"];
}

def StcSinkTransposes : Pass<"stc-sink-transposes", "func::FuncOp"> {
  let summary = "Move transposes behind the element-wise ops that read them";
  let description = [{
    An element-wise `linalg.generic` (parallel loops, its result written in
    loop order, its init not read, projected-permutation maps) that reads a
    `linalg.transpose` nothing else reads, through the identity, computes in
    the transpose's input layout instead: its other operands' maps are
    composed with the permutation, its result is written in the input's
    layout and transposed after it. Repeated, a transpose travels down a
    chain of element-wise ops; two transposes that meet fold into one, or
    into nothing when the second undoes the first.

    This keeps activations in NHWC between convolutions: STC's convolutions
    compute in NHWC and transpose NCHW programs at their boundary, so a
    bias, ReLU or residual add between two convolutions that
    `stc-fuse-epilogue` could not fold (a dense convolution, another tail)
    sat between a transpose to NCHW and one back to NHWC, two full passes
    over the activation each.
  }];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect", "::mlir::tensor::TensorDialect"
  ];
}

def StcWidenAccumulation
    : Pass<"stc-widen-accumulation", "func::FuncOp"> {
  let summary = "Accumulate dense f16/bf16 reductions in f32";
  let description = [{
    A dense contraction, convolution or other reduction on `f16` or `bf16`
    tensors (a linalg op the sparsifiers left dense) accumulates, as
    linalg's named ops define it, in the element type: every partial sum is
    rounded to 11 (8) significant bits, so the error grows with the
    reduction length. The sparse kernels, cuBLAS, cuDNN and PyTorch
    accumulate half products in f32. This pass makes the dense ones do the
    same: on the CPU path all of them, on GPU paths those that the
    tensor-core kernels (which accumulate in f32) did not take. The op is
    generalized, its init extended to f32, its body computed in f32 (half
    inputs extended on entry), and the result rounded once with
    `arith.truncf`.

    Only bodies of float arithmetic (arith float ops, `arith.select`,
    `arith.cmpf`, constants, `math` ops) that round (an add, multiply,
    divide or math function: a max or min reduction is exact in any type)
    are widened; any other op keeps its reduction as it is. Parallel-only
    ops (element-wise) are untouched: they round once per element
    already.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def StcLowerConvToCpu : Pass<"stc-lower-conv-to-cpu", "func::FuncOp"> {
  let summary = "Lower stc.conv to tiles of im2col and stc.spmm for the CPU";
  let description = [{
    Lowers `stc.conv` for the CPU as an implicit GEMM: a loop over tiles of
    `pixels` output pixels (flattened N*OH*OW) whose body gathers that
    tile's im2col rows (`pixels x KH*KW*Cp`, zeros for padding and padded
    channels) and multiplies them with the compressed filter by `stc.spmm`
    (sparse rhs, so `stc-lower-spmm-to-cpu` then generates the vectorized
    microkernel), with the epilogue (alpha, beta * the tile of acc, bias,
    activation) fused in that `stc.spmm`. The full im2col matrix is never
    materialized. Each group is its own GEMM: up to 8 groups are unrolled,
    with the group's rows of constant values/metadata as constants of their
    own (so that `stc-lower-spmm-to-cpu` still decodes them at compile
    time); more groups are a loop. A 1x1, stride-1, unpadded convolution
    whose channels are a multiple of the pattern's `M` reads the input rows
    directly instead of gathering them.

    With `reference=true` it emits the dense reference instead
    (`stc.decompress` + a direct convolution as `linalg.generic`), used by
    `stc-run --check`.
  }];
  let options = [
    Option<"pixels", "pixels", "int64_t", "256",
           "Output pixels per im2col tile">,
    Option<"reference", "reference", "bool", "false",
           "Emit the dense reference lowering instead">,
  ];
  let dependentDialects = [
    "::mlir::stc::StcDialect", "::mlir::arith::ArithDialect",
    "::mlir::tensor::TensorDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::scf::SCFDialect"
  ];
}

def StcLowerSpmmToCpu : Pass<"stc-lower-spmm-to-cpu", "ModuleOp"> {
  let summary = "Lower stc.spmm to a vectorized CPU microkernel";
  let description = [{
    Lowers `stc.spmm` to a cache-blocked loop nest on tensors whose inner
    kernel holds an `mr x (nv*16)` block of f32 accumulators in vector
    registers and, for each stored value, broadcasts it and multiplies a
    contiguous row of the dense operand selected by the value's decoded
    column index (`vector.fma`). The dense operand is packed once (converted
    to f32, transposed where needed, zero-padded to the tile), metadata is
    decoded to absolute column indices (at compile time for constants), and
    the epilogue (alpha, beta, bias, activation, output type) runs as one
    element-wise `linalg.generic`.

    With dynamic shapes it also emits a call to `stc_rt_check_reduction`,
    which reports (through the runtime's error API, with the op's location)
    a dense operand whose reduction size does not fit the compressed one;
    copies are clamped so that such a mismatch never reads or writes out of
    bounds. It is a module pass because it declares that function.

    With `reference=true` it emits the dense reference instead
    (`stc.decompress` + a plain contraction), used by `stc-run --check`.
  }];
  let options = [
    Option<"rowsPerTile", "mr", "int64_t", "8",
           "Sparse rows per register tile">,
    Option<"vectorsPerTile", "nv", "int64_t", "2",
           "16-wide f32 vectors per register tile row">,
    Option<"reductionBlock", "kc", "int64_t", "256",
           "Dense reduction columns per cache block">,
    Option<"rowBlock", "mc", "int64_t", "128",
           "Sparse rows per cache block">,
    Option<"colBlock", "nc", "int64_t", "256",
           "Dense columns per cache block (rounded up to whole panels)">,
    Option<"reference", "reference", "bool", "false",
           "Emit the dense reference lowering instead of the kernel">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect", "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect", "::mlir::vector::VectorDialect",
    "::mlir::stc::StcDialect", "::mlir::func::FuncDialect",
    "::mlir::memref::MemRefDialect"
  ];
}

def StcLowerToRuntime : Pass<"stc-lower-to-runtime", "ModuleOp"> {
  let summary = "Lower run-time stc.prune/compress/decompress/check to runtime calls";
  let description = [{
    What the canonicalizer could not fold at compile time (operands that are
    function arguments) becomes calls into `stc_runtime`
    (`runtime/stc_runtime.h`), passing memref descriptors through
    `bufferization.to_buffer`/`to_tensor` and the op's source location for
    error messages. A constant operand of `stc.compress` that violates the
    pattern is a compile-time error here.
  }];
  let dependentDialects = [
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::func::FuncDialect", "::mlir::memref::MemRefDialect",
    "::mlir::arith::ArithDialect"
  ];
}

def StcConfigureGpuKernels : Pass<"stc-configure-gpu-kernels", "ModuleOp"> {
  let summary = "Choose the GPU kernel of every stc.spmm and stc.conv";
  let description = [{
    Attaches to every `stc.spmm` and `stc.conv` that has none a
    `stc_gpu.kernel_config = #stc_gpu.kernel_config<...>` for `target`: the
    kernel `stc-lower-spmm-to-gpu` will build for it (docs/DESIGN.md, "GPU
    code generation"). An op that already has one keeps it: a program or a
    tuner may choose itself. Dense contractions the tensor-core kernel can
    compute (passes/GPU/DenseGemm.h: f16/bf16 matrix products, batched or
    not, rows 16-byte aligned at compile time) get a `staged`
    configuration too, with a remark for those it cannot.

    The default choice (passes/GPU/ConfigureGpuKernels.cpp):
    - on sm_90a, the warp-specialised wgmma kernel where it applies (f16/bf16
      with f32 accumulation, or i8 with a K-contiguous dense operand, and
      16-byte aligned static rows; convolutions with one group of a multiple
      of 64 channels and strides up to 8), with chooseHopperTiling's tile,
      ring depth and cluster (passes/GPU/HopperTiling.h); elsewhere, and for
      the other ops (with a remark saying why), the mma.sp kernels;
    - mma.sp: the staged kernel (cp.async pipeline, ldmatrix) where the
      dense operand's rows are 16-byte aligned (with a direct fallback
      kernel where that depends on a dynamic size), else the direct one;
      the block tile of chooseMmaSpBlockTile; for the staged kernel the
      warp tile of chooseMmaSpWarpTile (4 warps a block; 32 x 32 for the
      direct kernel).

    The knobs of passes/GPU/KernelOptions.def override it (as options of
    this pass: `kernel`, `block-rows`, `block-cols`, `stages`,
    `warp-rows`, `warp-cols`, `wgmma-stages`, `cluster-rows`,
    `group-rows`, `tma-multicast`,
    `wgmma-a`, `accumulate`, `ordered-metadata`; the tools spell them
    `--gpu-NAME`).

    Where no knob is set, the tuning databases (the committed
    `tuning/stc-tuning-db.json` and `tuning-db`; docs/TUNING.md) choose
    among the op's candidate configurations: a measured configuration for
    the op's key (remark `tuning database: exact hit`), else, when the
    target's device has measurements, the cost model's best prediction
    (the heuristic's choice unless another is predicted 3 % faster; remark
    `cost model`), each remark with the predicted times of the best sparse
    and dense kernels. Errors: a database that cannot be read or is
    malformed, a measured configuration that does not parse. A database
    without data for the target is ignored with a remark. Errors: values outside their range (as the tools check
    them), `kernel=wgmma` or `kernel=staged` for an op that kernel cannot
    compute, a grouped order that splits the heuristic's cluster, an sm_90a
    ring that does not fit in shared memory. Remarks: f16 accumulation
    asked for a non-f16 op, an sm_90a op left on mma.sp, multicast that
    cannot apply.
  }];
  let options = [
    Option<"target", "target", "std::string", "\"sm_80\"",
           "GPU the kernels are for: sm_80, sm_86, sm_89, sm_90 (mma.sp "
           "kernels) or sm_90a (wgmma.mma_async.sp kernels where they apply)">,
    Option<"tuningDb", "tuning-db", "std::string", "\"\"",
           "A tuning database (docs/TUNING.md) used with the committed one">,
    Option<"tuningBuiltin", "tuning-builtin", "bool", "true",
           "Use the committed tuning database (built into the tools); false: "
           "only tuning-db's, or the heuristics">,
    Option<"tuningDevice", "tuning-device", "std::string", "\"\"",
           "The device of the tuning database whose measurements apply "
           "(default: the one with the most entries for the target)">,
  ];
  let statistics = [
    Statistic<"numConfigured", "num-configured",
              "Number of ops given a kernel configuration">,
  ];
  let dependentDialects = ["::mlir::stc_gpu::StcGpuDialect"];
}

def StcLowerSpmmToGpu : Pass<"stc-lower-spmm-to-gpu", "ModuleOp"> {
  let summary = "Lower stc.spmm and stc.conv to the GPU kernels their "
                "configuration names, and their launch";
  let description = [{
    Generates, for every `stc.spmm` and `stc.conv`, the kernel its
    `stc_gpu.kernel_config` describes (attached by
    `stc-configure-gpu-kernels`; an op without one is an error) in
    `gpu.module @stc_kernels`, for the canonical problem
    `Out[R, P] = S[R, K] . D[K, P]` (passes/GPU/KernelProblem.h), and for
    every configured dense contraction the `staged` kernel with a dense S
    (`@stc_gemm_N`: `nvvm.mma.sync` m16n8k16, no metadata;
    passes/GPU/DenseGemm.h):

    - `direct` and `staged` (passes/GPU/MmaSpKernel*.cpp): warps of 32 or
      64 by 32 or 64 tiles of `nvvm.mma.sp.sync` (m16n8k32 f16/bf16, m16n8k16 tf32,
      m16n8k64 s8), the values read in the canonical format (already the
      A-fragment layout) and the metadata in the kernel-ready layout of
      docs/GPU-LAYOUT.md; `staged` copies A and D through a cp.async
      pipeline of XOR-swizzled shared memory and reads fragments with
      ldmatrix, `direct` loads them from global memory. Both bounds-check
      every load, so any M, N, K is correct.
    - `wgmma` (sm_90a, passes/GPU/HopperKernel.cpp): a TMA producer
      warpgroup, an mbarrier ring and one consumer warpgroup per 64 rows
      issuing `stc_gpu.wgmma_sp` (docs/HOPPER.md).

    Constant metadata is converted to the kernel-ready layout at compile
    time; run-time metadata by a generated kernel, `<kernel>_meta`, that
    the host launches first. `stc.conv` is an implicit GEMM whose D is the
    im2col matrix of the NHWC input, gathered by the loads themselves. Every
    kernel applies the fused epilogue (alpha, scale, beta * acc, bias,
    ReLU/GELU, output type) to its accumulators before the store.

    Each kernel carries its `stc_gpu.kernel_info` (the launch contract). The
    op itself becomes a call, on buffers, to a private host function that
    `stc-gpu-host-launch` defines after bufferization.

    Errors: no configuration; a configuration the op cannot have (f32
    operands with 2:4, the staged kernel for unaligned rows, wgmma for an
    op it cannot compute, f16 accumulation of non-f16 operands, a ring that
    does not fit in shared memory, ...); configurations for different
    architectures in one module.
  }];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect", "::mlir::NVVM::NVVMDialect",
    "::mlir::stc_gpu::StcGpuDialect",
    "::mlir::LLVM::LLVMDialect", "::mlir::scf::SCFDialect",
    "::mlir::arith::ArithDialect", "::mlir::memref::MemRefDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::tensor::TensorDialect", "::mlir::func::FuncDialect"
  ];
}

def StcCheckSizes : Pass<"stc-check-sizes", "ModuleOp"> {
  let summary = "Refuse static shapes and constants too large to compile or run";
  let description = [{
    The compile-time half of the limits of `docs/RELIABILITY.md`, first in
    the pipeline, before any folder expands a constant: a static shape
    (tensor, memref, vector) of any operand, result, block argument or
    function signature whose element count or byte size overflows 64 bits,
    or whose byte size exceeds 2^47 (the address space of a 64-bit
    process), is an error at the op; so is a constant (`dense`,
    `dense_resource`) of more than 2 GiB once expanded (a splat of a large
    shape is a few bytes of text), which would otherwise exhaust the
    compiler's memory when folded or emitted. The bounds are fixed numbers,
    not the compiling machine's memory, so that whether a program compiles
    does not depend on the machine; allocations are checked against the
    running machine's memory at run time (`stc-check-allocations`). A
    `tensor.dim`/`memref.dim` whose constant index is outside the rank
    (undefined at run time; upstream's folders crash on it) is an error
    too.
  }];
}

def StcCheckAllocations : Pass<"stc-check-allocations", "ModuleOp"> {
  let summary = "Check dynamic and large allocations at run time";
  let description = [{
    After bufferization: every `memref.alloc` at the top level of a
    function whose size has a dynamic dimension, or is at least 1 MiB, is
    preceded by `stc_rt_check_alloc(bytes, overflowed, where)` (the byte
    size, computed with `arith.mului_extended` so that an overflow of 64
    bits is seen, must fit the machine's physical memory) and followed by
    `stc_rt_check_allocated(address, bytes, where)` (the allocation must
    have succeeded). Both record an error with the op's source location;
    `stc-return-on-error` then returns before the buffer is used.
  }];
  let dependentDialects = [
    "::mlir::func::FuncDialect", "::mlir::memref::MemRefDialect",
    "::mlir::arith::ArithDialect"
  ];
}

def StcReturnOnError : Pass<"stc-return-on-error", "ModuleOp"> {
  let summary = "Return from generated code as soon as the runtime records an error";
  let description = [{
    After bufferization and before the deallocation pipeline: after every
    call that can record a run-time error (a C-interface entry point of runtime/RuntimeEntryPoints.def, a
    function defined in the module, a GPU launch function marked
    `stc_gpu.launches`) the function tests `stc_rt_failed()` and, when it
    is set, branches to an exit block that returns placeholder results
    (fresh buffers, zero elements along dynamic dimensions; zeros for
    scalars). Nothing after the failing op runs, no kernel is launched
    with its outputs, and the deallocation pipeline frees on the early
    return what the normal return would have freed. A call inside a region
    is tested after the outermost op that holds it.
  }];
  let dependentDialects = [
    "::mlir::func::FuncDialect", "::mlir::cf::ControlFlowDialect",
    "::mlir::arith::ArithDialect", "::mlir::memref::MemRefDialect",
    "::mlir::ub::UBDialect"
  ];
}

def StcLowerElementwiseToGpu : Pass<"stc-lower-elementwise-to-gpu", "ModuleOp"> {
  let summary = "Run the elementwise linalg ops of a GPU program on the GPU";
  let description = [{
    On tensors, after `stc-lower-spmm-to-gpu`: generalizes the all-parallel
    named linalg ops and `linalg.reduce`, fuses producer-consumer
    elementwise chains (upstream's elementwise fusion), and turns each
    `linalg.generic` of parallel and reduction loops with one result (its
    dimensions the parallel loops, in order), projected-permutation inputs
    (transposes, broadcasts) or constant scalars, and an arith/math body
    into a kernel `@stc_ew_N` of `gpu.module @stc_kernels` (one thread per
    result element, looping over the reduction; math functions as
    polynomial approximations; an accumulator a `linalg.fill` of a constant
    made starts from the constant) and a call of a private host function on
    buffers and loop sizes that `stc-gpu-host-launch` defines. Ops that do
    not qualify stay on the host, each with a remark saying why.
  }];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect", "::mlir::LLVM::LLVMDialect",
    "::mlir::scf::SCFDialect", "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect", "::mlir::memref::MemRefDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::tensor::TensorDialect", "::mlir::linalg::LinalgDialect"
  ];
}

def StcGpuHostLaunch : Pass<"stc-gpu-host-launch", "ModuleOp"> {
  let summary = "Define the host functions that launch stc GPU kernels";
  let description = [{
    After bufferization, gives each private function that
    `stc-lower-spmm-to-gpu` declared (attribute `stc_gpu.launches`) its
    body: device buffers (`gpu.alloc`), copies of the inputs, the
    `gpu.launch_func` configured from the kernel's `stc_gpu.kernel_info` (or,
    for an `stc_gpu.elementwise` kernel, one 256-thread block per 256
    elements), the copy of the result back, and `gpu.dealloc`. Operands that
    are constant globals at every call are uploaded once
    (`stc_gpu_resident`) and released by the program's destructor. A
    buffer of the program that only kernels use (an intermediate) becomes
    a device buffer that the kernels share without copies, and a program
    argument that several kernels read is uploaded once per call. Nothing
    is launched for an empty result.

    With `device-entry`, the public functions' buffer arguments and results
    are device memory: no copy at the program boundary (a result the host
    computed is copied to the device before the return). An argument the
    host reads is an error.
  }];
  let options = [
    Option<"deviceEntry", "device-entry", "bool", /*default=*/"false",
           "Public functions take and return device buffers">
  ];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect", "::mlir::LLVM::LLVMDialect",
    "::mlir::scf::SCFDialect", "::mlir::arith::ArithDialect",
    "::mlir::memref::MemRefDialect"
  ];
}

def StcEmulateGpuKernels : Pass<"stc-emulate-gpu-kernels", "ModuleOp"> {
  let summary = "Run stc's GPU kernels on the CPU through the emulator";
  let description = [{
    For machines with no GPU: after `stc-gpu-host-launch`, turns each
    kernel of `gpu.module @stc_kernels` into a CPU function that runs one
    thread of it (`gpu.thread_id`/`gpu.block_id` become arguments, each
    `nvvm.mma.sp.sync` a call of `stc_emu_mma_sp`, the warp
    rendezvous at which the CPU model of mma.sp computes the warp's result),
    each `gpu.launch_func` a call of `stc_emu_launch`, and device memory
    host memory (runtime/emulator/stc_gpu_emulator.h). `stc-run
    --device=emulate` uses it to check the generated kernels against the
    CPU reference without a GPU. Ops stc's kernels do not use are an error.

    The sm_90a kernels' ops too: `stc_gpu.wgmma_sp` (A from registers or a
    shared-memory descriptor; the warpgroup's rendezvous and the CPU model
    of the instruction), 2-D TMA tile loads (`stc_emu_tma_load_2d`: zero
    fill, swizzle, transaction bytes on the mbarrier), mbarrier init,
    arrive, expect-tx and parity waits (a deadlock of a whole block is
    reported), dynamic shared memory (sized by kernel_info `shared_bytes`),
    cluster launches (checked, the blocks of a cluster run together, each
    with its own shared memory; `mapa`, cluster barriers and multicast TMA
    reach the partner's), the host's `stc_gpu_tensor_map_2d`/`_4d` (renamed
    to the emulator's), and the no-ops: fences, setmaxnreg, empty register
    fences. Every runtime function it calls is named through
    runtime/RuntimeEntryPoints.def; the emulator's MMA kinds are the enums of
    stc_gpu_emulator.h.
  }];
  let dependentDialects = [
    "::mlir::func::FuncDialect", "::mlir::LLVM::LLVMDialect",
    "::mlir::arith::ArithDialect", "::mlir::memref::MemRefDialect"
  ];
}

def StcLowerWgmmaSpToNvvm : Pass<"stc-lower-wgmma-sp-to-nvvm"> {
  let summary = "Lower stc_gpu.wgmma_sp to inline PTX wgmma.mma_async.sp";
  let description = [{
    Rewrites every `stc_gpu.wgmma_sp` (wherever it is nested: `gpu.func`,
    `llvm.func`, `func.func`) into one side-effecting `llvm.inline_asm` that
    holds the exact `wgmma.mma_async.sp.sync.aligned.m64n<N>k<K>...`
    instruction (sm_90a, PTX ISA 8.2):

    - outputs `$0 .. $(R-1)` are the R accumulator registers (`=f` for f32,
      `=r` for i32 and packed f16x2), tied to the old accumulators
      (inputs `"0" .. "R-1"`), so the accumulators are read-write in one
      register set, as wgmma requires;
    - then A (`l`, a descriptor, or four `r` registers), B's descriptor
      (`l`) and the metadata (`r`); a run-time `scale_d` is an `i1` predicate
      operand (`b`), a constant or absent one is the immediate 0/1;
    - `sel`, `scale_a`/`scale_b` and `trans_a`/`trans_b` are immediates in
      the text, present exactly for the variants whose PTX syntax has them.

    `vector<2xf16>` accumulators are bitcast to i32 around the asm.
    `nvvm.inline_ptx` is not used: in MLIR 22 its read-write operands are not
    tied to results (scalars get no result, structs give constraints LLVM
    rejects), and accumulators must be read and written in place.
  }];
  let statistics = [
    Statistic<"numLowered", "num-lowered",
              "Number of stc_gpu.wgmma_sp ops lowered to inline PTX">,
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

//===----------------------------------------------------------------------===//
// Upstream MLIR's 2:4 idioms (docs/INTEROP.md)
//===----------------------------------------------------------------------===//

def StcRaiseGpuSparseOps : Pass<"stc-raise-gpu-sparse-ops", "ModuleOp"> {
  let summary = "Run upstream's gpu 2:4 sparse ops on STC's kernels";
  let description = [{
    Rewrites each `gpu.spmm` on a matrix from `gpu.create_2to4_spmat` (with
    its `gpu.create_dn_tensor` operands) into tensor code that the rest of
    the pipeline lowers to STC's own kernels:

    ```mlir
    %a = bufferization.to_tensor %A restrict writable : memref<16x32xf16> to tensor<16x32xf16>
    %p = stc.prune %a by #stc.nm<2:4> along 1 : tensor<16x32xf16>   // PRUNE_ONLY, PRUNE_AND_CHECK
    bufferization.materialize_in_destination %p in restrict writable %A : (tensor<16x32xf16>, memref<16x32xf16>) -> ()
    %v, %m = stc.compress %p by #stc.nm<2:4> along 1 : ...
    %r = stc.spmm %v, %m, %b acc(%c) {beta = 1.0, sparse = #stc.operand<lhs>, ...}
    bufferization.materialize_in_destination %r in restrict writable %C : ...
    ```

    C accumulates (alpha = beta = 1, as upstream's runtime wrappers call
    cuSPARSELt); the 2:4 groups run along the reduction dimension of op(A);
    `NONE` means A is 2:4 already (checked at run time). `gpu.alloc`,
    `gpu.memcpy`, `gpu.memset`, `gpu.dealloc` and `gpu.wait` become host
    memref ops and the async tokens disappear: STC's launch copies the
    buffers to the device itself. `gpu.spmm_buffer_size` answers 1 (STC
    needs no workspace); the calls of `mgpuCreateSparseLtEnv` /
    `mgpuDestroySparseLtEnv` are removed. The other sparse ops of the family
    (CSR, COO, SpMV, SDDMM, SpGEMM, ...), and modules that also launch their
    own GPU kernels, are errors.
  }];
  let statistics = [
    Statistic<"numSpmmRaised", "num-spmm-raised",
              "Number of gpu.spmm ops rewritten to stc.spmm">,
  ];
  let dependentDialects = [
    "::mlir::stc::StcDialect", "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::linalg::LinalgDialect", "::mlir::memref::MemRefDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def StcInlineEncodedCalls : Pass<"stc-inline-encoded-calls", "ModuleOp"> {
  let summary = "Inline calls that pass tensors with a structured[2, 4] encoding";
  let description = [{
    A call whose operands or results carry a `#sparse_tensor.encoding` with
    a `structured[2, 4]` level is replaced by the callee's body (which must
    be a single-block `func.func` of the module), so that the conversion of
    a value and the contractions using it meet in one function and the
    value is compressed once, where it is used. Private callees left
    without callers are erased. Calls to a function without a body or with
    more than one block, and to a recursive one (that reaches itself through
    direct calls), are errors. Each inlined call emits a remark.
  }];
  let statistics = [
    Statistic<"numCallsInlined", "num-calls-inlined",
              "Number of calls inlined">,
  ];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

def StcPruneOnConvert : Pass<"stc-prune-on-convert", "ModuleOp"> {
  let summary = "Make sparse_tensor.convert into structured[2, 4] prune";
  let description = [{
    `sparse_tensor.convert` of a tensor into an encoding with a
    `structured[2, 4]` level keeps, in STC, the 2 elements of largest
    magnitude of every 4 along that level's dimension (NaN largest, the
    lower index winning ties, as `stc.prune` `strip`) and sets the others
    to zero, as upstream's cuSPARSELt path prunes a matrix it is given:

    - a constant source is replaced by its pruned value at compile time
      (any element type), with a remark counting the groups that changed;
      an already 2:4 constant is left alone;
    - a run-time source is pruned at run time, by `stc.prune` for rank-2
      f32/f16/bf16/i8 tensors and by a `tensor.generate` with the same rule
      otherwise, with a remark;
    - a source known to be 2:4 along that dimension (an `stc.prune` or
      `stc.decompress` along it, a conversion from such an encoding) is not
      pruned again.
  }];
  let statistics = [
    Statistic<"numConstantsPruned", "num-constants-pruned",
              "Number of constants pruned at compile time">,
    Statistic<"numRuntimePrunes", "num-runtime-prunes",
              "Number of conversions pruned at run time">,
  ];
  let dependentDialects = [
    "::mlir::stc::StcDialect", "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect", "::mlir::tensor::TensorDialect"
  ];
}

def StcDensifyEntryPoints : Pass<"stc-densify-entry-points", "ModuleOp"> {
  let summary = "Give public functions with sparse encodings a dense ABI";
  let description = [{
    After the sparsifiers, a public function whose signature still names
    sparse encodings takes the dense arrays instead: an encoded argument is
    converted into its encoding at entry (pruned first when the encoding has
    a `structured[2, 4]` level, the identity on 2:4 data), an encoded result
    is converted to dense before it is returned. This is the ABI stc-run,
    the C API and AOT objects see. Calls inside the module keep the sparse
    form through a private copy (`@<name>_sparse_abi`). A conversion into an
    encoding that is converted straight back becomes its source when the
    round trip keeps the data.

    The function owns what these conversions create, and frees it
    (`bufferization.dealloc_tensor`, which upstream's sparsifier honours on
    the path where such tensors remain): the pruned copy of an argument
    once it is converted, the sparse form of an argument before every
    return, and a returned sparse tensor made by a conversion once its
    dense copy exists. Before, every call leaked them (LeakSanitizer on the
    Interop tests).
  }];
  let statistics = [
    Statistic<"numArgumentsDensified", "num-arguments-densified",
              "Number of encoded arguments given a dense ABI">,
    Statistic<"numResultsDensified", "num-results-densified",
              "Number of encoded results given a dense ABI">,
  ];
  let dependentDialects = [
    "::mlir::stc::StcDialect", "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect", "::mlir::tensor::TensorDialect",
    "::mlir::bufferization::BufferizationDialect"
  ];
}

def StcBufferize : Pass<"stc-bufferize", "ModuleOp"> {
  let summary = "Bufferize: STC's way, or upstream's sparsifier where sparse tensors remain";
  let description = [{
    A module without sparse tensors gets one-shot bufferization (function
    boundaries included, identity layouts) and ownership-based deallocation;
    its explicit deallocations (`bufferization.dealloc_tensor`,
    `memref.dealloc`) are dropped first, since that pass frees every buffer
    itself and refuses them. A module that still holds sparse tensors STC
    does not specialize (CSR, COO, BSR, 2:4 on f64, `sparse_tensor.new`,
    `print`, general conversions) goes through upstream's
    `sparsification-and-bufferization` mini-pipeline as `mlir-opt
    --sparsifier` runs it (runtime library on, after generalizing named ops
    and fusing element-wise ones), then `sparse-storage-specifier-to-llvm`
    and `expand-realloc`; buffers are then freed where the program frees
    them, as under upstream's sparsifier. That path emits a remark.
  }];
  let statistics = [
    Statistic<"numUpstreamModules", "num-upstream-modules",
              "Modules bufferized by upstream's sparsifier">,
    Statistic<"numDeallocationsDropped", "num-deallocations-dropped",
              "Explicit deallocations dropped before ownership-based "
              "deallocation">,
  ];
  let dependentDialects = [
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::memref::MemRefDialect"
  ];
}

#endif // STC_PASSES_PASSES_TD
