// What stc-lower-spmm-to-gpu cannot do with a configured dense contraction
// is an error at the op.
// RUN: stc-opt %s -split-input-file -verify-diagnostics --stc-lower-spmm-to-gpu

func.func @f32_configured(%a: tensor<16x16xf32>, %b: tensor<16x16xf32>, %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
  // expected-error @+1 {{stc-lower-spmm-to-gpu: linalg.matmul has a stc_gpu.kernel_config but the dense tensor-core kernel cannot compute it: the tensor-core kernel takes f16 or bf16 operands and an f32, f16 or bf16 result, got f32 x f32 -> f32}}
  %r = linalg.matmul {stc_gpu.kernel_config = #stc_gpu.kernel_config<arch = sm_80, family = staged, block_rows = 64, block_cols = 64, stages = 3>}
      ins(%a, %b : tensor<16x16xf32>, tensor<16x16xf32>) outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}

// -----

func.func @not_a_contraction(%a: tensor<16x16xf16>, %c: tensor<16x16xf16>) -> tensor<16x16xf16> {
  // expected-error @+1 {{stc-lower-spmm-to-gpu: linalg.add has a stc_gpu.kernel_config but the dense tensor-core kernel cannot compute it: it is not a contraction}}
  %r = linalg.add {stc_gpu.kernel_config = #stc_gpu.kernel_config<arch = sm_80, family = staged, block_rows = 64, block_cols = 64, stages = 3>}
      ins(%a, %a : tensor<16x16xf16>, tensor<16x16xf16>) outs(%c : tensor<16x16xf16>) -> tensor<16x16xf16>
  return %r : tensor<16x16xf16>
}

// -----

func.func @direct(%a: tensor<16x16xf16>, %b: tensor<16x16xf16>, %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
  // expected-error @+1 {{stc-lower-spmm-to-gpu: a dense contraction runs on the staged kernel without a direct fallback (or on sm_90a the wgmma kernel), got family direct}}
  %r = linalg.matmul {stc_gpu.kernel_config = #stc_gpu.kernel_config<arch = sm_80, family = direct, block_rows = 64, block_cols = 64>}
      ins(%a, %b : tensor<16x16xf16>, tensor<16x16xf16>) outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}

// -----

// The sparse kernel's 4 stages of 2 K steps of 128 x 128 fit sm_86's 99 KiB
// (96 KiB); the dense one's, with twice the bytes of A, do not.
func.func @too_much_shared_memory(%a: tensor<16x16xf16>, %b: tensor<16x16xf16>, %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
  // expected-error @+1 {{stc-lower-spmm-to-gpu: the dense kernel's 4 stages of a 128 x 128 tile take 131072 bytes of shared memory; sm_86 allows 101376 a block}}
  %r = linalg.matmul {stc_gpu.kernel_config = #stc_gpu.kernel_config<arch = sm_86, family = staged, block_rows = 128, block_cols = 128, stages = 4, stage_k_steps = 2, warp_rows = 64, warp_cols = 64>}
      ins(%a, %b : tensor<16x16xf16>, tensor<16x16xf16>) outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}

// -----

// The wgmma kernel with a dense A reads A from shared memory and, for a
// batch, pairs no blocks in clusters (grid y stacks the matrices' row
// tiles); like the 2:4 one it accumulates in f32.
func.func @wgmma_batch(%a: tensor<2x16x16xf16>, %b: tensor<2x16x16xf16>, %c: tensor<2x16x16xf32>) -> tensor<2x16x16xf32> {
  // expected-error @+1 {{stc-lower-spmm-to-gpu: the dense wgmma kernel takes A from shared memory and, for a batch, no cluster or grouped order; got a batch with cluster_rows = 2, group_rows = 0}}
  %r = linalg.batch_matmul {stc_gpu.kernel_config = #stc_gpu.kernel_config<arch = sm_90a, family = wgmma, block_rows = 64, block_cols = 64, stages = 4, cluster_rows = 2>}
      ins(%a, %b : tensor<2x16x16xf16>, tensor<2x16x16xf16>) outs(%c : tensor<2x16x16xf32>) -> tensor<2x16x16xf32>
  return %r : tensor<2x16x16xf32>
}

// -----

func.func @wgmma_registers(%a: tensor<16x16xf16>, %b: tensor<16x16xf16>, %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
  // expected-error @+1 {{stc-lower-spmm-to-gpu: the dense wgmma kernel takes A from shared memory and, for a batch, no cluster or grouped order; got a_source = registers}}
  %r = linalg.matmul {stc_gpu.kernel_config = #stc_gpu.kernel_config<arch = sm_90a, family = wgmma, block_rows = 64, block_cols = 64, stages = 4, a_source = registers>}
      ins(%a, %b : tensor<16x16xf16>, tensor<16x16xf16>) outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}

// -----

func.func @wgmma_meta_tma(%a: tensor<16x16xf16>, %b: tensor<16x16xf16>, %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
  // expected-error @+1 {{stc-lower-spmm-to-gpu: meta_tma needs a 2:4 operand; a dense contraction has no metadata}}
  %r = linalg.matmul {stc_gpu.kernel_config = #stc_gpu.kernel_config<arch = sm_90a, family = wgmma, block_rows = 64, block_cols = 64, stages = 4, meta_tma = true>}
      ins(%a, %b : tensor<16x16xf16>, tensor<16x16xf16>) outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}

// -----

func.func @wgmma_narrow(%a: tensor<16x256xf16>, %b: tensor<256x16xf16>, %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
  // expected-error @+1 {{stc-lower-spmm-to-gpu: block_cols = 16 needs a 2:4 GEMM whose dense operand has K contiguous, without multicast; got a dense contraction}}
  %r = linalg.matmul {stc_gpu.kernel_config = #stc_gpu.kernel_config<arch = sm_90a, family = wgmma, block_rows = 64, block_cols = 16, stages = 4>}
      ins(%a, %b : tensor<16x256xf16>, tensor<256x16xf16>) outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}

// -----

func.func @wgmma_two_steps(%a: tensor<16x256xf16>, %b: tensor<256x16xf16>, %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
  // expected-error @+1 {{stc-lower-spmm-to-gpu: stage_k_steps = 2 on the wgmma kernel needs a 2:4 operand and a static K of an even number of 64-K steps; got a dense contraction}}
  %r = linalg.matmul {stc_gpu.kernel_config = #stc_gpu.kernel_config<arch = sm_90a, family = wgmma, block_rows = 64, block_cols = 64, stages = 4, stage_k_steps = 2>}
      ins(%a, %b : tensor<16x256xf16>, tensor<256x16xf16>) outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}

// -----

// A 128 x 256 tile's 6 stages of dense A and B (80 KiB a stage) do not fit
// a block's shared memory.
func.func @wgmma_ring_too_deep(%a: tensor<16x16xf16>, %b: tensor<16x16xf16>, %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
  // expected-error @+1 {{stc-lower-spmm-to-gpu: the sm_90a kernel's ring of 6 stages of 128 x 256 needs 296032 bytes of shared memory, more than the 232448 a block may have}}
  %r = linalg.matmul {stc_gpu.kernel_config = #stc_gpu.kernel_config<arch = sm_90a, family = wgmma, block_rows = 128, block_cols = 256, stages = 6>}
      ins(%a, %b : tensor<16x16xf16>, tensor<16x16xf16>) outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}

// -----

func.func @wgmma_multicast_narrow(%a: tensor<16x16xf16>, %b: tensor<16x16xf16>, %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
  // expected-error @+1 {{stc-lower-spmm-to-gpu: multicast_b needs a GEMM whose tile has at least 128 columns when its dense operand is k-major; got 64 columns}}
  %r = linalg.matmul {stc_gpu.kernel_config = #stc_gpu.kernel_config<arch = sm_90a, family = wgmma, block_rows = 64, block_cols = 64, stages = 4, cluster_rows = 2, multicast_b = true>}
      ins(%a, %b : tensor<16x16xf16>, tensor<16x16xf16>) outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}

// -----

// f16 accumulators exist on the mma.sync kernel only: a wgmma
// configuration cannot even say them.
func.func @wgmma_f16_accumulators(%a: tensor<16x16xf16>, %b: tensor<16x16xf16>, %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
  // expected-error @+1 {{family wgmma accumulates in f32 or s32, got f16}}
  %r = linalg.matmul {stc_gpu.kernel_config = #stc_gpu.kernel_config<arch = sm_90a, family = wgmma, block_rows = 64, block_cols = 64, stages = 4, accumulator = f16>}
      ins(%a, %b : tensor<16x16xf16>, tensor<16x16xf16>) outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}
