// The staged kernel for tf32 (f32 operands, 1:2, mma.sp m16n8k16: cp.async
// chunks of 4 f32, ldmatrix .b16 giving one f32 per register, rounded with
// cvt.rna.tf32.f32) and the staged kernel with a direct fallback for a
// dynamic leading dimension, run on the CPU through the emulator (stc-run
// --device=emulate) against the CPU reference (--check). The emulator
// rejects a cp.async from an address that is not 16-byte aligned, so the
// runs with an odd leading dimension pass only if the host launches the
// direct fallback; with an aligned one the host launches the staged kernel
// (the scf.if: stc-gpu-host-launch-fallback.mlir; STC_EMU_TRACE shows which
// kernel ran).
// REQUIRES: numpy
// Static tf32 with a p-major dense operand: ragged M, N and K (K = 36: the
// last of 3 K steps half empty), bias and ReLU; K = 100 over 7 steps (the
// ring of stages wraps around) with dense_transposed; other tiles and
// pipeline depths.
// RUN: stc-run %s --device=emulate --entry=tf32_rhs_bias_relu --random-inputs --seed=1 --check 2>&1 | FileCheck %s
// RUN: stc-run %s --device=emulate --entry=tf32_lhs_transposed_long_k --random-inputs --seed=2 --check 2>&1 | FileCheck %s
// RUN: stc-run %s --device=emulate --entry=tf32_lhs_transposed_long_k --random-inputs --seed=3 --check --gpu-block-rows=128 --gpu-block-cols=128 --gpu-stages=4 2>&1 | FileCheck %s
// RUN: stc-run %s --device=emulate --entry=tf32_rhs_bias_relu --random-inputs --seed=4 --check --gpu-block-rows=128 --gpu-block-cols=64 --gpu-stages=2 2>&1 | FileCheck %s
// Dynamic leading dimension, f16 with a k-major dense operand (80 x N):
// N = 72 (144-byte rows: staged) and N = 45 (90-byte rows: the fallback).
// RUN: %python -c "import numpy as np; np.save('%t.b72.npy', np.random.default_rng(5).standard_normal((80, 72)).astype(np.float16))"
// RUN: %python -c "import numpy as np; np.save('%t.b45.npy', np.random.default_rng(6).standard_normal((80, 45)).astype(np.float16))"
// The emulator's launch trace shows which kernel the host chose: the
// staged one for a leading dimension of 72 (a multiple of 8), the direct
// fallback for 45.
// RUN: env STC_EMU_TRACE=1 stc-run %s --device=emulate --entry=f16_dynamic_ld --input=%t.b72.npy --random-inputs --seed=5 --check 2>&1 | FileCheck %s --check-prefixes=CHECK,ALIGNED
// RUN: env STC_EMU_TRACE=1 stc-run %s --device=emulate --entry=f16_dynamic_ld --input=%t.b45.npy --random-inputs --seed=6 --check 2>&1 | FileCheck %s --check-prefixes=CHECK,UNALIGNED
// RUN: stc-run %s --device=emulate --entry=f16_dynamic_ld --input=%t.b45.npy --random-inputs --seed=7 --check --gpu-kernel=staged --gpu-block-rows=128 --gpu-block-cols=128 2>&1 | FileCheck %s
// Dynamic leading dimension, tf32 with a p-major dense operand (B^T, N x K;
// everything dynamic): K = 36 (staged) and K = 30 (the fallback; the
// values' rows, Kp / 2 = 16 f32, are aligned either way).
// RUN: %python -c "import numpy as np; r = np.random.default_rng(8); np.save('%t.a36.npy', r.standard_normal((70, 36)).astype(np.float32)); np.save('%t.bt36.npy', r.standard_normal((45, 36)).astype(np.float32))"
// RUN: %python -c "import numpy as np; r = np.random.default_rng(9); np.save('%t.a30.npy', r.standard_normal((70, 30)).astype(np.float32)); np.save('%t.bt30.npy', r.standard_normal((45, 30)).astype(np.float32))"
// RUN: stc-run %s --device=emulate --entry=tf32_dynamic_ld --input=%t.a36.npy --input=%t.bt36.npy --check 2>&1 | FileCheck %s --check-prefix=TF32
// RUN: stc-run %s --device=emulate --entry=tf32_dynamic_ld --input=%t.a30.npy --input=%t.bt30.npy --check 2>&1 | FileCheck %s --check-prefix=TF32
// Which kernels each program gets.
// RUN: stc-opt %s --stc-pipeline="target=sm_80 stop-after-stc=true" | stc-opt --stc-configure-gpu-kernels --stc-lower-spmm-to-gpu | FileCheck %s --check-prefix=VARIANTS
// CHECK: stc-run: device: emulate (sm_80 kernels on the CPU)
// ALIGNED-NOT: stc_spmm_2_direct
// ALIGNED: stc-emu: launch stc_spmm_2: {{.*}} blocks of 128 threads
// ALIGNED-NOT: stc_spmm_2_direct
// UNALIGNED: stc-emu: launch stc_spmm_2_direct: {{.*}} blocks of 128 threads
// CHECK: stc-run: check: result #0 relative error {{.*}}: PASS
// TF32: stc-run: check: result #0 relative error {{.*}} (tolerance 1e-03): PASS
// VARIANTS: gpu.func @stc_spmm_0(
// VARIANTS-SAME: family = staged, block_rows = 64, block_cols = 64, stages = 3>{{.*}}input_type = f32
// VARIANTS-NOT: fallback_kernel
// VARIANTS: gpu.func @stc_spmm_1(
// VARIANTS-SAME: family = staged, block_rows = 64, block_cols = 64, stages = 3>{{.*}}input_type = f32
// VARIANTS-NOT: fallback_kernel
// VARIANTS: gpu.func @stc_spmm_2(
// VARIANTS-SAME: family = staged{{.*}}direct_fallback = true>{{.*}}input_type = f16{{.*}}fallback_kernel = "stc_spmm_2_direct", staged_align = 8
// VARIANTS: gpu.func @stc_spmm_2_direct(
// VARIANTS: gpu.func @stc_spmm_3(
// VARIANTS-SAME: family = staged{{.*}}direct_fallback = true>{{.*}}input_type = f32{{.*}}fallback_kernel = "stc_spmm_3_direct", staged_align = 4
// VARIANTS: gpu.func @stc_spmm_3_direct(

// X . W with W (K x N) pruned 1:2 along K at run time: D[k][p] = X[p][k],
// p-major with 36-element (144-byte) rows.
func.func @tf32_rhs_bias_relu(%x: tensor<70x36xf32>, %w: tensor<36x45xf32>, %bias: tensor<45xf32>) -> tensor<70x45xf32> {
  %p = stc.prune %w by #stc.nm<1:2> along 0 : tensor<36x45xf32>
  %v, %m = stc.compress %p by #stc.nm<1:2> along 0 : tensor<36x45xf32> -> tensor<45x20xf32>, tensor<45x5xi16>
  %y = stc.spmm %v, %m, %x bias(%bias : tensor<45xf32>)
      {pattern = #stc.nm<1:2>, sparse = #stc.operand<rhs>, activation = #stc.activation<relu>}
      : tensor<45x20xf32>, tensor<45x5xi16>, tensor<70x36xf32> -> tensor<70x45xf32>
  return %y : tensor<70x45xf32>
}

// A sparse lhs with the dense operand given N x K (dense_transposed, p-major).
func.func @tf32_lhs_transposed_long_k(%a: tensor<70x100xf32>, %bt: tensor<45x100xf32>) -> tensor<70x45xf32> {
  %p = stc.prune %a by #stc.nm<1:2> along 1 : tensor<70x100xf32>
  %v, %m = stc.compress %p by #stc.nm<1:2> along 1 : tensor<70x100xf32> -> tensor<70x52xf32>, tensor<70x13xi16>
  %y = stc.spmm %v, %m, %bt {pattern = #stc.nm<1:2>, sparse = #stc.operand<lhs>, dense_transposed = true}
      : tensor<70x52xf32>, tensor<70x13xi16>, tensor<45x100xf32> -> tensor<70x45xf32>
  return %y : tensor<70x45xf32>
}

// A sparse lhs (100 x 80, pruned 2:4 at run time) times a dense 80 x N
// operand with N dynamic: D's leading dimension is N.
func.func @f16_dynamic_ld(%b: tensor<80x?xf16>, %a: tensor<100x80xf16>) -> tensor<100x?xf32> {
  %p = stc.prune %a by #stc.nm<2:4> along 1 : tensor<100x80xf16>
  %v, %m = stc.compress %p by #stc.nm<2:4> along 1 : tensor<100x80xf16> -> tensor<100x40xf16>, tensor<100x5xi16>
  %y = stc.spmm %v, %m, %b {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>}
      : tensor<100x40xf16>, tensor<100x5xi16>, tensor<80x?xf16> -> tensor<100x?xf32>
  return %y : tensor<100x?xf32>
}

// tf32, every size dynamic: D = B^T (N x K, p-major), leading dimension K.
func.func @tf32_dynamic_ld(%a: tensor<?x?xf32>, %bt: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %p = stc.prune %a by #stc.nm<1:2> along 1 : tensor<?x?xf32>
  %v, %m = stc.compress %p by #stc.nm<1:2> along 1 : tensor<?x?xf32> -> tensor<?x?xf32>, tensor<?x?xi16>
  %y = stc.spmm %v, %m, %bt {pattern = #stc.nm<1:2>, sparse = #stc.operand<lhs>, dense_transposed = true}
      : tensor<?x?xf32>, tensor<?x?xi16>, tensor<?x?xf32> -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}
