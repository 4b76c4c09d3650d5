// The generated mma.sp kernels, run on the CPU through the emulator
// (stc-run --device=emulate: each thread of each block is a CPU thread, and
// each warp-wide mma.sp is computed by the CPU model of the instruction,
// written from the PTX ISA's fragment tables), against the CPU dense
// reference of the same program (--check) on random data. This runs the
// kernels' own index arithmetic, bounds checks (every shape below is ragged
// in some dimension), fragment packing, metadata words (with run-time
// pruned, hence non-uniform, metadata) and epilogue on machines with no
// GPU; it cannot show timing or hardware behaviour the model does not have.
// REQUIRES: numpy
// RUN: stc-run %s --device=emulate --entry=lhs_f16_f32 --random-inputs --seed=1 --check 2>&1 | FileCheck %s
// RUN: stc-run %s --device=emulate --entry=rhs_bf16_bias_gelu --random-inputs --seed=2 --check 2>&1 | FileCheck %s
// RUN: stc-run %s --device=emulate --entry=lhs_transposed_alpha_beta_relu --random-inputs --seed=3 --check 2>&1 | FileCheck %s
// RUN: %python -c "import numpy as np; np.save('%t.xt.npy', np.random.default_rng(4).standard_normal((48, 45)).astype(np.float16))"
// RUN: stc-run %s --device=emulate --entry=rhs_transposed_dynamic_gelu_erf --input=%t.xt.npy --random-inputs --seed=4 --check 2>&1 | FileCheck %s
// RUN: stc-run %s --device=emulate --entry=tiny --random-inputs --seed=5 --check 2>&1 | FileCheck %s
// RUN: stc-run %s --device=emulate --entry=linear_force --sparsity=force --random-inputs --seed=6 --check 2>&1 | FileCheck %s
// RUN: stc-run %s --device=emulate --entry=lhs_kmajor_staged --random-inputs --seed=7 --check 2>&1 | FileCheck %s
// RUN: stc-run %s --device=emulate --entry=rhs_pmajor_staged_long_k --random-inputs --seed=8 --check 2>&1 | FileCheck %s
// f32 operands are computed as tf32 with the 1:2 pattern (mma.sp
// m16n8k16; here a k-major dense operand: the direct kernel; the staged
// one: emulate-spmm-staged-tf32-dynamic.mlir); tolerance 1e-3 (docs/DESIGN.md
// §7).
// RUN: stc-run %s --device=emulate --entry=tf32_lhs_relu --random-inputs --seed=13 --check 2>&1 | FileCheck %s --check-prefix=TF32
// TF32: stc-run: check: result #0 relative error {{.*}} (tolerance 1e-03): PASS
// Other block tiles and pipeline depths (several chunks per thread and per
// stage, 2 and 4 stages; the 32 x 32 warps of the old default in a 128 x
// 128 block: 16 warps), and the direct kernel with a big tile.
// RUN: stc-run %s --device=emulate --entry=lhs_kmajor_staged --random-inputs --seed=9 --check --gpu-block-rows=128 --gpu-block-cols=128 --gpu-warp-rows=32 --gpu-warp-cols=32 2>&1 | FileCheck %s
// RUN: stc-run %s --device=emulate --entry=rhs_pmajor_staged_long_k --random-inputs --seed=10 --check --gpu-block-rows=128 --gpu-block-cols=64 --gpu-stages=2 2>&1 | FileCheck %s
// RUN: stc-run %s --device=emulate --entry=lhs_transposed_alpha_beta_relu --random-inputs --seed=11 --check --gpu-block-rows=64 --gpu-block-cols=128 --gpu-stages=4 2>&1 | FileCheck %s
// RUN: stc-run %s --device=emulate --entry=lhs_kmajor_staged --random-inputs --seed=12 --check --gpu-kernel=direct --gpu-block-rows=128 --gpu-block-cols=128 2>&1 | FileCheck %s
// Larger warp tiles (--gpu-warp-rows/cols: 64 rows span two 32-row blocks
// of the kernel-ready metadata, tiles 2 and 3 reading the second block's
// word; 64 columns take eight B tiles): 64 x 64 in 128 x 128 blocks (4
// warps, a k-major D through ldmatrix.trans), 64 x 32 with 2 stages, 32 x
// 64 with 4, ragged edges in both; the direct kernel and tf32 (1:2) with
// 64 x 64; and the staged kernel with its direct fallback (odd rows of a
// dynamic leading dimension) on the same 64 x 64 warps, whose launch they
// share.
// RUN: stc-run %s --device=emulate --entry=lhs_kmajor_staged --random-inputs --seed=31 --check --gpu-block-rows=128 --gpu-block-cols=128 --gpu-warp-rows=64 --gpu-warp-cols=64 2>&1 | FileCheck %s
// RUN: stc-run %s --device=emulate --entry=lhs_f16_f32 --random-inputs --seed=32 --check --gpu-warp-rows=64 --gpu-warp-cols=64 2>&1 | FileCheck %s
// RUN: stc-run %s --device=emulate --entry=rhs_pmajor_staged_long_k --random-inputs --seed=33 --check --gpu-block-rows=128 --gpu-block-cols=64 --gpu-stages=2 --gpu-warp-rows=64 --gpu-warp-cols=32 2>&1 | FileCheck %s
// RUN: stc-run %s --device=emulate --entry=lhs_transposed_alpha_beta_relu --random-inputs --seed=34 --check --gpu-stages=4 --gpu-warp-rows=32 --gpu-warp-cols=64 2>&1 | FileCheck %s
// RUN: stc-run %s --device=emulate --entry=lhs_kmajor_staged --random-inputs --seed=35 --check --gpu-kernel=direct --gpu-block-rows=128 --gpu-warp-rows=64 --gpu-warp-cols=64 2>&1 | FileCheck %s
// 256-row blocks (8 warps of 64 x 64 by default; 3 stages fill the 48 KiB
// of static shared memory): a k-major and a p-major D, ragged rows.
// RUN: stc-run %s --device=emulate --entry=lhs_f16_f32 --random-inputs --seed=41 --check --gpu-block-rows=256 --gpu-block-cols=128 2>&1 | FileCheck %s
// RUN: stc-run %s --device=emulate --entry=rhs_pmajor_staged_long_k --random-inputs --seed=42 --check --gpu-block-rows=256 --gpu-block-cols=64 --gpu-stages=4 2>&1 | FileCheck %s
// Two K steps a stage (--gpu-stage-k-steps=2, 64 of K for f16/bf16): an
// odd number of K steps (a zero-filled last one), the k-major and p-major
// D, 2 to 4 stages, the metadata ring two steps a stage; 256 x 128 blocks
// with 4 stages of 2 (128 KiB: dynamic shared memory).
// RUN: stc-run %s --device=emulate --entry=lhs_f16_f32 --random-inputs --seed=43 --check --gpu-stage-k-steps=2 2>&1 | FileCheck %s
// RUN: stc-run %s --device=emulate --entry=lhs_kmajor_staged --random-inputs --seed=44 --check --gpu-stage-k-steps=2 --gpu-stages=2 --gpu-block-rows=128 --gpu-block-cols=128 2>&1 | FileCheck %s
// RUN: stc-run %s --device=emulate --entry=rhs_pmajor_staged_long_k --random-inputs --seed=45 --check --gpu-stage-k-steps=2 --gpu-stages=4 2>&1 | FileCheck %s
// RUN: stc-run %s --device=emulate --entry=lhs_transposed_alpha_beta_relu --random-inputs --seed=46 --check --gpu-stage-k-steps=2 --gpu-block-rows=256 --gpu-block-cols=128 --gpu-stages=4 2>&1 | FileCheck %s
// RUN: stc-run %s --device=emulate --entry=tf32_lhs_relu --random-inputs --seed=36 --check --gpu-warp-rows=64 --gpu-warp-cols=64 2>&1 | FileCheck %s --check-prefix=TF32
// RUN: stc-run %s --device=emulate --entry=rhs_transposed_dynamic_gelu_erf --input=%t.xt.npy --random-inputs --seed=37 --check --gpu-warp-rows=64 --gpu-warp-cols=64 2>&1 | FileCheck %s
// The grouped block order (--gpu-group-rows) in both kernels: 3 row tiles
// by 2 column tiles, groups of 2 row tiles (the last 1 high) and of 3;
// a block that computed another's tile, or none, fails the check.
// RUN: stc-run %s --device=emulate --entry=lhs_f16_f32 --random-inputs --seed=38 --check --gpu-group-rows=2 2>&1 | FileCheck %s
// RUN: stc-run %s --device=emulate --entry=lhs_f16_f32 --random-inputs --seed=39 --check --gpu-group-rows=3 --gpu-warp-rows=64 --gpu-warp-cols=64 2>&1 | FileCheck %s
// RUN: stc-run %s --device=emulate --entry=lhs_kmajor_staged --random-inputs --seed=40 --check --gpu-kernel=direct --gpu-group-rows=2 2>&1 | FileCheck %s
// f16 accumulation (mma.sp .f16.f16.f16.f16, D rounded to f16 by the model
// after every instruction) in both kernels, with the epilogue in f32.
// RUN: stc-run %s --device=emulate --entry=lhs_kmajor_staged --random-inputs --seed=14 --check --gpu-accumulate=f16 2>&1 | FileCheck %s
// RUN: stc-run %s --device=emulate --entry=lhs_transposed_alpha_beta_relu --random-inputs --seed=15 --check --gpu-accumulate=f16 --gpu-kernel=direct 2>&1 | FileCheck %s
// RUN: stc-run %s --device=emulate --entry=linear_force --sparsity=force --random-inputs --seed=16 --check --gpu-accumulate=f16 2>&1 | FileCheck %s
// Which kernel each program gets (kernel=auto: staged where the dense
// operand's rows are 16-byte aligned; with a dynamic leading dimension the
// staged kernel and a direct fallback, which the host launches for the odd
// 45-element rows of rhs_transposed_dynamic_gelu_erf above), so that both
// are covered above. tf32 with a k-major dense operand stays direct.
// RUN: stc-opt %s --stc-pipeline="target=sm_80 stop-after-stc=true" | stc-opt --stc-configure-gpu-kernels --stc-lower-spmm-to-gpu | FileCheck %s --check-prefix=VARIANTS
// CHECK: stc-run: device: emulate (sm_80 kernels on the CPU)
// CHECK: stc-run: check: result #0 relative error {{.*}}: PASS
// VARIANTS: kernel = "stc_spmm_0"{{.*}}family = direct
// VARIANTS: kernel = "stc_spmm_1"{{.*}}family = direct
// VARIANTS: kernel = "stc_spmm_2"{{.*}}family = staged
// VARIANTS: kernel = "stc_spmm_3"{{.*}}family = staged{{.*}}fallback_kernel = "stc_spmm_3_direct", staged_align = 8
// VARIANTS: gpu.func @stc_spmm_3_direct(
// VARIANTS: kernel = "stc_spmm_4"{{.*}}family = staged
// VARIANTS: kernel = "stc_spmm_5"{{.*}}family = staged
// VARIANTS: kernel = "stc_spmm_6"{{.*}}family = staged
// VARIANTS: kernel = "stc_spmm_7"{{.*}}family = direct{{.*}}input_type = f32

// A sparse lhs (M x K, pruned along K at run time), f32 output.
func.func @lhs_f16_f32(%a: tensor<130x96xf16>, %b: tensor<96x70xf16>) -> tensor<130x70xf32> {
  %p = stc.prune %a by #stc.nm<2:4> along 1 : tensor<130x96xf16>
  %v, %m = stc.compress %p by #stc.nm<2:4> along 1 : tensor<130x96xf16> -> tensor<130x48xf16>, tensor<130x6xi16>
  %y = stc.spmm %v, %m, %b {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>}
      : tensor<130x48xf16>, tensor<130x6xi16>, tensor<96x70xf16> -> tensor<130x70xf32>
  return %y : tensor<130x70xf32>
}

// X . W with W (K x N) sparse along K; K = 50 is not a multiple of 32 (nor
// of 16: the compressed rows are padded), bias and tanh GELU, bf16 out.
func.func @rhs_bf16_bias_gelu(%x: tensor<37x50xbf16>, %w: tensor<50x29xbf16>, %bias: tensor<29xbf16>) -> tensor<37x29xbf16> {
  %p = stc.prune %w by #stc.nm<2:4> along 0 : tensor<50x29xbf16>
  %v, %m = stc.compress %p by #stc.nm<2:4> along 0 : tensor<50x29xbf16> -> tensor<29x32xbf16>, tensor<29x4xi16>
  %y = stc.spmm %v, %m, %x bias(%bias : tensor<29xbf16>)
      {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>, activation = #stc.activation<gelu_tanh>}
      : tensor<29x32xbf16>, tensor<29x4xi16>, tensor<37x50xbf16> -> tensor<37x29xbf16>
  return %y : tensor<37x29xbf16>
}

// Dense operand given N x K (transposed), alpha, beta with an f16
// accumulator input, ReLU, f16 out.
func.func @lhs_transposed_alpha_beta_relu(%a: tensor<65x64xf16>, %bt: tensor<72x64xf16>, %acc: tensor<65x72xf16>) -> tensor<65x72xf16> {
  %p = stc.prune %a by #stc.nm<2:4> along 1 : tensor<65x64xf16>
  %v, %m = stc.compress %p by #stc.nm<2:4> along 1 : tensor<65x64xf16> -> tensor<65x32xf16>, tensor<65x4xi16>
  %y = stc.spmm %v, %m, %bt acc(%acc : tensor<65x72xf16>)
      {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>, dense_transposed = true,
       alpha = 0.5 : f64, beta = 2.0 : f64, activation = #stc.activation<relu>}
      : tensor<65x32xf16>, tensor<65x4xi16>, tensor<72x64xf16> -> tensor<65x72xf16>
  return %y : tensor<65x72xf16>
}

// A sparse rhs with the dense operand K x M (transposed), dynamic sizes,
// an f32 bias and the erf GELU.
func.func @rhs_transposed_dynamic_gelu_erf(%xt: tensor<?x?xf16>, %w: tensor<48x33xf16>, %bias: tensor<33xf32>) -> tensor<?x33xf32> {
  %p = stc.prune %w by #stc.nm<2:4> along 0 : tensor<48x33xf16>
  %v, %m = stc.compress %p by #stc.nm<2:4> along 0 : tensor<48x33xf16> -> tensor<33x24xf16>, tensor<33x3xi16>
  %y = stc.spmm %v, %m, %xt bias(%bias : tensor<33xf32>)
      {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>, dense_transposed = true,
       activation = #stc.activation<gelu_erf>}
      : tensor<33x24xf16>, tensor<33x3xi16>, tensor<?x?xf16> -> tensor<?x33xf32>
  return %y : tensor<?x33xf32>
}

// One row, one 16-column group.
func.func @tiny(%a: tensor<1x16xf16>, %b: tensor<16x8xf16>) -> tensor<1x8xf32> {
  %p = stc.prune %a by #stc.nm<2:4> along 1 : tensor<1x16xf16>
  %v, %m = stc.compress %p by #stc.nm<2:4> along 1 : tensor<1x16xf16> -> tensor<1x8xf16>, tensor<1x1xi16>
  %y = stc.spmm %v, %m, %b {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>}
      : tensor<1x8xf16>, tensor<1x1xi16>, tensor<16x8xf16> -> tensor<1x8xf32>
  return %y : tensor<1x8xf32>
}

// The whole path from linalg: --sparsity=force prunes the weight of X . W.
func.func @linear_force(%x: tensor<66x128xf16>, %w: tensor<128x80xf16>) -> tensor<66x80xf16> {
  %e = tensor.empty() : tensor<66x80xf16>
  %z = arith.constant 0.0 : f16
  %f = linalg.fill ins(%z : f16) outs(%e : tensor<66x80xf16>) -> tensor<66x80xf16>
  %y = linalg.matmul ins(%x, %w : tensor<66x128xf16>, tensor<128x80xf16>) outs(%f : tensor<66x80xf16>) -> tensor<66x80xf16>
  return %y : tensor<66x80xf16>
}

// The staged kernel with a k-major D (K x N, read with ldmatrix.trans):
// ragged rows (100), K = 80 (the last of 3 stages half empty), N = 56
// (the last 8-column tile of the second block column out of range).
func.func @lhs_kmajor_staged(%a: tensor<100x80xf16>, %b: tensor<80x56xf16>) -> tensor<100x56xf32> {
  %p = stc.prune %a by #stc.nm<2:4> along 1 : tensor<100x80xf16>
  %v, %m = stc.compress %p by #stc.nm<2:4> along 1 : tensor<100x80xf16> -> tensor<100x40xf16>, tensor<100x5xi16>
  %y = stc.spmm %v, %m, %b {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>}
      : tensor<100x40xf16>, tensor<100x5xi16>, tensor<80x56xf16> -> tensor<100x56xf32>
  return %y : tensor<100x56xf32>
}

// The staged kernel with a p-major D (X, M x K) over many K steps (the
// pipeline's steady state, the ring of stages wrapping around), bf16.
func.func @rhs_pmajor_staged_long_k(%x: tensor<20x264xbf16>, %w: tensor<264x70xbf16>) -> tensor<20x70xbf16> {
  %p = stc.prune %w by #stc.nm<2:4> along 0 : tensor<264x70xbf16>
  %v, %m = stc.compress %p by #stc.nm<2:4> along 0 : tensor<264x70xbf16> -> tensor<70x136xbf16>, tensor<70x17xi16>
  %y = stc.spmm %v, %m, %x {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>}
      : tensor<70x136xbf16>, tensor<70x17xi16>, tensor<20x264xbf16> -> tensor<20x70xbf16>
  return %y : tensor<20x70xbf16>
}

// tf32: a sparse lhs pruned 1:2 (K = 36: ragged for the 16-wide steps and
// the 8-column metadata words), ReLU.
func.func @tf32_lhs_relu(%a: tensor<70x36xf32>, %b: tensor<36x45xf32>) -> tensor<70x45xf32> {
  %p = stc.prune %a by #stc.nm<1:2> along 1 : tensor<70x36xf32>
  %v, %m = stc.compress %p by #stc.nm<1:2> along 1 : tensor<70x36xf32> -> tensor<70x20xf32>, tensor<70x5xi16>
  %y = stc.spmm %v, %m, %b {pattern = #stc.nm<1:2>, sparse = #stc.operand<lhs>, activation = #stc.activation<relu>}
      : tensor<70x20xf32>, tensor<70x5xi16>, tensor<36x45xf32> -> tensor<70x45xf32>
  return %y : tensor<70x45xf32>
}
