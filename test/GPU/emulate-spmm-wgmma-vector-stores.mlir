// The sm_90a kernel's staged epilogue (--gpu-vector-stores, kernel_config
// vector_stores; passes/GPU/HopperEpilogue.cpp): after a barrier of the
// consumer warps, each warp writes its results (after bias, scale,
// residual and activation) into its region of the ring, 32 columns at a
// time, and copies them to the result as 16-byte vectors along its
// contiguous dimension; a vector that would leave the result or is not
// 16-byte aligned in global memory goes element by element. On the CPU
// through the emulator against the CPU path (--check) and, for
// convolutions, against float64 NumPy with the output poisoned with NaN
// first: both orientations of the result (R x P for a sparse lhs, P x R
// for a sparse rhs), rows and columns that end inside a vector (R = 70,
// P = 136 and 70) and rows whose pitch is not a multiple of 16 bytes
// (every vector of them element by element), f32, f16, bf16, i32 and i8
// results (4, 8, 8, 4 and 16 elements a vector), bias + ReLU, residuals
// (read as vectors beside the staged scaled products, or element by
// element where unaligned) with a GELU, a bias or alpha/beta, 64- to 256-row blocks (two 64-row tiles a warp), 16- and
// 32-column blocks, a dense contraction, a batch, and convolutions tiled
// per image (ragged pixel tiles) and flat.
// Mutations that fail it (tried when it was written): the transposed
// staging laid out as the other orientation; the ragged vector's
// whole-vector test on its first element; the residual's vector read one
// vector off.
// REQUIRES: numpy
// RUN: stc-run %s --device=emulate --target=sm_90a --entry=lhs_f32_ragged --random-inputs --seed=1 --check --gpu-vector-stores 2>&1 | FileCheck %s
// RUN: stc-run %s --device=emulate --target=sm_90a --entry=lhs_f32_ragged --random-inputs --seed=2 --check --gpu-vector-stores --gpu-block-rows=256 --gpu-block-cols=128 2>&1 | FileCheck %s
// RUN: stc-run %s --device=emulate --target=sm_90a --entry=lhs_bf16_odd_pitch --random-inputs --seed=3 --check --gpu-vector-stores --gpu-block-rows=128 2>&1 | FileCheck %s
// RUN: stc-run %s --device=emulate --target=sm_90a --entry=rhs_f16_bias_relu --random-inputs --seed=4 --check --gpu-vector-stores --gpu-block-rows=64 2>&1 | FileCheck %s
// RUN: stc-run %s --device=emulate --target=sm_90a --entry=rhs_f16_bias_relu --random-inputs --seed=5 --check --gpu-vector-stores --gpu-block-rows=256 --gpu-block-cols=64 2>&1 | FileCheck %s
// RUN: stc-run %s --device=emulate --target=sm_90a --entry=rhs_f16_residual_gelu --random-inputs --seed=6 --check --gpu-vector-stores --gpu-block-rows=128 --gpu-block-cols=256 2>&1 | FileCheck %s
// RUN: stc-run %s --device=emulate --target=sm_90a --entry=rhs_f16_residual_gelu --random-inputs --seed=7 --check --gpu-vector-stores --gpu-block-rows=64 --gpu-meta-tma 2>&1 | FileCheck %s
// i8: an i8 result (16 a vector) and the exact i32 one.
// RUN: stc-run %S/emulate-spmm-wgmma-i8.mlir --device=emulate --target=sm_90a --entry=rhs_requant --random-inputs --seed=8 --check --gpu-vector-stores 2>&1 | FileCheck %s
// RUN: stc-run %S/emulate-spmm-wgmma-i8.mlir --device=emulate --target=sm_90a --entry=lhs_acc32 --random-inputs --seed=9 --check --gpu-vector-stores --gpu-block-rows=256 2>&1 | FileCheck %s
// RUN: stc-run %S/emulate-spmm-wgmma-i8.mlir --device=emulate --target=sm_90a --entry=lhs_quarter_step_residual --random-inputs --seed=16 --check --gpu-vector-stores 2>&1 | FileCheck %s
// A residual with a row bias in an R x P result whose rows are 140 bytes
// (the residual read element by element where a vector is not aligned).
// RUN: stc-run %s --device=emulate --target=sm_90a --entry=lhs_bf16_residual_bias --random-inputs --seed=17 --check --gpu-vector-stores --gpu-block-rows=128 2>&1 | FileCheck %s
// Decode-size blocks of 16 and 32 columns: one staging chunk of 16
// columns, or of 32 (24 tokens: the second chunk past P).
// RUN: stc-run %S/emulate-spmm-wgmma-narrow.mlir --device=emulate --target=sm_90a --entry=rhs_f16_decode --random-inputs --seed=10 --check --gpu-vector-stores --gpu-block-cols=16 --gpu-block-rows=128 2>&1 | FileCheck %s
// RUN: stc-run %S/emulate-spmm-wgmma-narrow.mlir --device=emulate --target=sm_90a --entry=rhs_bf16_tokens24 --random-inputs --seed=15 --check --gpu-vector-stores --gpu-block-cols=32 2>&1 | FileCheck %s
// RUN: stc-run %S/emulate-spmm-wgmma-narrow.mlir --device=emulate --target=sm_90a --entry=rhs_i8_decode --random-inputs --seed=11 --check --gpu-vector-stores --gpu-block-cols=16 2>&1 | FileCheck %s
// A dense contraction and a batch on the dense wgmma kernel, against
// float64 NumPy.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/dense_gemm.py --cases=wgmma stc-run %t emulate --target=sm_90a --gpu-vector-stores | FileCheck %s --check-prefix=DENSE
// Convolutions: 3x3 with padding and stride 2 on ragged 8x8 pixel tiles
// (a tile's pixels outside the image are not stored), bias and ReLU; a
// residual; and a pointwise one tiled flat.
// RUN: %python %S/Inputs/conv_check.py --stc-run stc-run --work %t --shape 2,9,11,128,1,72 --filter 3,3 --stride 2,2 --pad 1,1,1,0 --relu --seed 12 -- --device=emulate --target=sm_90a --gpu-vector-stores --gpu-block-rows=128 | FileCheck %s --check-prefix=CONV
// RUN: %python %S/Inputs/conv_check.py --stc-run stc-run --work %t --shape 1,9,10,64,1,24 --filter 3,3 --pad 1,1,1,1 --residual --relu --seed 13 -- --device=emulate --target=sm_90a --gpu-vector-stores | FileCheck %s --check-prefix=CONV
// RUN: %python %S/Inputs/conv_check.py --stc-run stc-run --work %t --shape 2,7,7,64,1,40 --filter 1,1 --residual --seed 14 -- --device=emulate --target=sm_90a --gpu-vector-stores | FileCheck %s --check-prefix=CONV
// The kernel: the option in its configuration, the consumers' named
// barrier, a warp sync before and after each chunk's vectors, and the
// 16-byte stores.
// RUN: stc-opt %s --stc-pipeline="target=sm_90a stop-after-stc=true" | stc-opt --stc-configure-gpu-kernels="target=sm_90a vector-stores=true block-rows=128 block-cols=64" --stc-lower-spmm-to-gpu | FileCheck %s --check-prefix=KERNEL
// CHECK: stc-run: device: emulate (sm_90a kernels on the CPU)
// CHECK: stc-run: check: result #0 relative error {{.*}}: PASS
// DENSE-COUNT-12: tensor_cores=True kernel={{wgmma|mma.sync}} {{.*}} ok
// CONV: relerr {{.*}} OK
// KERNEL-LABEL: gpu.func @stc_spmm_0(
// KERNEL-SAME: config = <arch = sm_90a, family = wgmma, block_rows = 128, block_cols = 64, {{.*}}vector_stores = true>
// KERNEL: nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}
// KERNEL: nvvm.bar.warp.sync
// KERNEL: llvm.store {{.*}} : vector<4xi32>, !llvm.ptr
// KERNEL: nvvm.bar.warp.sync

// A (200 x 144) . B (144 x 136) in f32: R x P, rows of 136 x 4 bytes;
// R = 3 x 64 + 8, and the last 64 columns hold 8 real ones.
func.func @lhs_f32_ragged(%a: tensor<200x144xf16>, %b: tensor<144x136xf16>) -> tensor<200x136xf32> {
  %p = stc.prune %a by #stc.nm<2:4> along 1 : tensor<200x144xf16>
  %v, %m = stc.compress %p by #stc.nm<2:4> along 1 : tensor<200x144xf16> -> tensor<200x72xf16>, tensor<200x9xi16>
  %y = stc.spmm %v, %m, %b {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>}
      : tensor<200x72xf16>, tensor<200x9xi16>, tensor<144x136xf16> -> tensor<200x136xf32>
  return %y : tensor<200x136xf32>
}

// A (130 x 320) . B^T (B given 70 x 320) in bf16: rows of 70 x 2 = 140
// bytes, so only every eighth row starts 16-byte aligned.
func.func @lhs_bf16_odd_pitch(%a: tensor<130x320xbf16>, %bt: tensor<70x320xbf16>) -> tensor<130x70xbf16> {
  %p = stc.prune %a by #stc.nm<2:4> along 1 : tensor<130x320xbf16>
  %v, %m = stc.compress %p by #stc.nm<2:4> along 1 : tensor<130x320xbf16> -> tensor<130x160xbf16>, tensor<130x20xi16>
  %y = stc.spmm %v, %m, %bt {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>, dense_transposed = true}
      : tensor<130x160xbf16>, tensor<130x20xi16>, tensor<70x320xbf16> -> tensor<130x70xbf16>
  return %y : tensor<130x70xbf16>
}

// X (90 x 192) . W (192 x 70, pruned along K): the kernel computes the
// transpose, P x R with R = 70 a row (140 bytes).
func.func @rhs_f16_bias_relu(%x: tensor<90x192xf16>, %w: tensor<192x70xf16>, %bias: tensor<70xf32>) -> tensor<90x70xf16> {
  %p = stc.prune %w by #stc.nm<2:4> along 0 : tensor<192x70xf16>
  %v, %m = stc.compress %p by #stc.nm<2:4> along 0 : tensor<192x70xf16> -> tensor<70x96xf16>, tensor<70x12xi16>
  %y = stc.spmm %v, %m, %x bias(%bias : tensor<70xf32>)
      {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>, activation = #stc.activation<relu>}
      : tensor<70x96xf16>, tensor<70x12xi16>, tensor<90x192xf16> -> tensor<90x70xf16>
  return %y : tensor<90x70xf16>
}

// X (300 x 256) . W (256 x 96) + C, GELU: P x R with R = 96 (aligned
// rows), P = 300 past one 256-column block.
func.func @rhs_f16_residual_gelu(%x: tensor<300x256xf16>, %w: tensor<256x96xf16>, %c: tensor<300x96xf16>) -> tensor<300x96xf16> {
  %p = stc.prune %w by #stc.nm<2:4> along 0 : tensor<256x96xf16>
  %v, %m = stc.compress %p by #stc.nm<2:4> along 0 : tensor<256x96xf16> -> tensor<96x128xf16>, tensor<96x16xi16>
  %y = stc.spmm %v, %m, %x acc(%c : tensor<300x96xf16>)
      {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>, beta = 1.0, activation = #stc.activation<gelu_tanh>}
      : tensor<96x128xf16>, tensor<96x16xi16>, tensor<300x256xf16> -> tensor<300x96xf16>
  return %y : tensor<300x96xf16>
}

// A (130 x 320) . B^T (70 x 320) + C, with a bias per row of A, in bf16:
// rows of 140 bytes, so most vectors of the result and of C are not
// 16-byte aligned.
func.func @lhs_bf16_residual_bias(%a: tensor<130x320xbf16>, %bt: tensor<70x320xbf16>, %c: tensor<130x70xbf16>, %bias: tensor<130xf32>) -> tensor<130x70xbf16> {
  %p = stc.prune %a by #stc.nm<2:4> along 1 : tensor<130x320xbf16>
  %v, %m = stc.compress %p by #stc.nm<2:4> along 1 : tensor<130x320xbf16> -> tensor<130x160xbf16>, tensor<130x20xi16>
  %y = stc.spmm %v, %m, %bt bias(%bias : tensor<130xf32>) acc(%c : tensor<130x70xbf16>)
      {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>, dense_transposed = true, beta = 1.0}
      : tensor<130x160xbf16>, tensor<130x20xi16>, tensor<70x320xbf16> -> tensor<130x70xbf16>
  return %y : tensor<130x70xbf16>
}
