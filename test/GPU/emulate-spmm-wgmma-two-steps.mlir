// The sm_90a kernel with two K steps a ring slot (--gpu-stage-k-steps=2,
// kernel_config stage_k_steps = 2): the producer fills a slot with two
// consecutive K steps' regions on one `full` mbarrier, and the consumers
// issue both steps' wgmmas (four per 64-row tile, two metadata words) as
// one group before one wgmma.wait_group and one release. On the CPU
// through the emulator against the CPU path (--check). Even numbers of K
// steps (16, 10, 12 of 64; 8 of 128 for i8; 18 for the convolution), rows
// past the operand, 64- to 256-row blocks, rings of 2 to 6 slots, the
// metadata from global memory and through the TMA ring, a cluster pair
// with multicast of B, A from registers, i8, a convolution; ops with an odd
// number of steps keep one step a slot, with a remark.
// Mutations that fail it (tried when it was written): the second step's
// words taken from the first step's place in the vector; the second
// step's B read from the first step's region; the producer's second step
// at the first step's K.
// REQUIRES: numpy
// RUN: stc-run %s --device=emulate --target=sm_90a --entry=lhs_f16 --random-inputs --seed=1 --check --gpu-stage-k-steps=2 2>&1 | FileCheck %s
// RUN: stc-run %s --device=emulate --target=sm_90a --entry=lhs_f16 --random-inputs --seed=2 --check --gpu-stage-k-steps=2 --gpu-block-rows=128 --gpu-block-cols=128 --gpu-wgmma-stages=2 2>&1 | FileCheck %s
// RUN: stc-run %s --device=emulate --target=sm_90a --entry=lhs_f16 --random-inputs --seed=3 --check --gpu-stage-k-steps=2 --gpu-meta-tma --gpu-block-rows=256 --gpu-wgmma-stages=3 2>&1 | FileCheck %s
// RUN: stc-run %s --device=emulate --target=sm_90a --entry=lhs_f16 --random-inputs --seed=4 --check --gpu-stage-k-steps=2 --gpu-meta-tma --gpu-block-rows=64 --gpu-block-cols=128 --gpu-cluster-rows=2 --gpu-tma-multicast --gpu-wgmma-stages=5 2>&1 | FileCheck %s
// RUN: stc-run %s --device=emulate --target=sm_90a --entry=lhs_bf16_nk --random-inputs --seed=5 --check --gpu-stage-k-steps=2 --gpu-wgmma-a=registers --gpu-block-rows=128 2>&1 | FileCheck %s
// RUN: stc-run %s --device=emulate --target=sm_90a --entry=lhs_bf16_nk --random-inputs --seed=6 --check --gpu-stage-k-steps=2 --gpu-meta-tma --gpu-block-rows=128 --gpu-wgmma-stages=6 2>&1 | FileCheck %s
// RUN: stc-run %s --device=emulate --target=sm_90a --entry=rhs_f16_bias_relu --random-inputs --seed=7 --check --gpu-stage-k-steps=2 --gpu-block-rows=256 --gpu-block-cols=64 2>&1 | FileCheck %s
// RUN: stc-run %S/emulate-spmm-wgmma-i8.mlir --device=emulate --target=sm_90a --entry=lhs_acc32 --random-inputs --seed=8 --check --gpu-stage-k-steps=2 2>&1 | FileCheck %s
// RUN: stc-run %s --device=emulate --target=sm_90a --entry=lhs_i8 --random-inputs --seed=9 --check --gpu-stage-k-steps=2 --gpu-meta-tma --gpu-block-rows=128 2>&1 | FileCheck %s
// RUN: rm -rf %t.conv && mkdir -p %t.conv
// RUN: %python %S/Inputs/conv_check.py --stc-run stc-run --work %t.conv --shape 2,9,11,128,1,72 --filter 3,3 --stride 2,2 --pad 1,1,1,0 --relu --seed 10 -- --device=emulate --target=sm_90a --gpu-stage-k-steps=2 --gpu-block-rows=128 | FileCheck %s --check-prefix=CONV
// The configuration, and the op of an odd number of steps: the i8
// program's K = 320 is three 128-K steps. The rings have no more slots
// than fills (K = 640: five pairs of steps; i8 K = 1024: four).
// RUN: stc-opt %s --stc-pipeline="target=sm_90a stop-after-stc=true" | stc-opt --stc-configure-gpu-kernels="target=sm_90a stage-k-steps=2 block-rows=128 block-cols=64" 2>&1 | FileCheck %s --check-prefix=CONFIG
// CHECK: stc-run: device: emulate (sm_90a kernels on the CPU)
// CHECK: stc-run: check: result #0 relative error {{.*}}: PASS
// CONV: conv 2,9,11,128,1,72 3,3 f16 relerr {{.*}} OK
// CONFIG: remark: stc-configure-gpu-kernels: sm_90a: one K step a ring slot, since two (stage-k-steps=2) need a 2:4 operand and an even number of 128-K steps; got K = 320
// CONFIG: block_rows = 128, block_cols = 64, stages = 6, stage_k_steps = 2>
// CONFIG: block_rows = 128, block_cols = 64, stages = 5, stage_k_steps = 2>
// CONFIG: block_rows = 128, block_cols = 64, stages = 6, stage_k_steps = 2>
// CONFIG: block_rows = 128, block_cols = 64, stages = 4, accumulator = s32, stage_k_steps = 2>
// CONFIG: block_rows = 128, block_cols = 64, stages = 3, accumulator = s32>

// A (200 x 1024, pruned at run time) . B (1024 x 136): 16 K steps.
func.func @lhs_f16(%a: tensor<200x1024xf16>, %b: tensor<1024x136xf16>) -> tensor<200x136xf32> {
  %p = stc.prune %a by #stc.nm<2:4> along 1 : tensor<200x1024xf16>
  %v, %m = stc.compress %p by #stc.nm<2:4> along 1 : tensor<200x1024xf16> -> tensor<200x512xf16>, tensor<200x64xi16>
  %y = stc.spmm %v, %m, %b {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>}
      : tensor<200x512xf16>, tensor<200x64xi16>, tensor<1024x136xf16> -> tensor<200x136xf32>
  return %y : tensor<200x136xf32>
}

// A (130 x 640) . B^T with B given N x K (72 x 640): 10 K steps.
func.func @lhs_bf16_nk(%a: tensor<130x640xbf16>, %bt: tensor<72x640xbf16>) -> tensor<130x72xbf16> {
  %p = stc.prune %a by #stc.nm<2:4> along 1 : tensor<130x640xbf16>
  %v, %m = stc.compress %p by #stc.nm<2:4> along 1 : tensor<130x640xbf16> -> tensor<130x320xbf16>, tensor<130x40xi16>
  %y = stc.spmm %v, %m, %bt {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>, dense_transposed = true}
      : tensor<130x320xbf16>, tensor<130x40xi16>, tensor<72x640xbf16> -> tensor<130x72xbf16>
  return %y : tensor<130x72xbf16>
}

// X (90 x 768) . W (768 x 70, pruned along K): 12 K steps, bias and ReLU.
func.func @rhs_f16_bias_relu(%x: tensor<90x768xf16>, %w: tensor<768x70xf16>, %bias: tensor<70xf32>) -> tensor<90x70xf16> {
  %p = stc.prune %w by #stc.nm<2:4> along 0 : tensor<768x70xf16>
  %v, %m = stc.compress %p by #stc.nm<2:4> along 0 : tensor<768x70xf16> -> tensor<70x384xf16>, tensor<70x48xi16>
  %y = stc.spmm %v, %m, %x bias(%bias : tensor<70xf32>)
      {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>, activation = #stc.activation<relu>}
      : tensor<70x384xf16>, tensor<70x48xi16>, tensor<90x768xf16> -> tensor<90x70xf16>
  return %y : tensor<90x70xf16>
}

// i8: A (130 x 1024) . B^T (40 x 1024): 8 K steps of 128, i32 result.
func.func @lhs_i8(%a: tensor<130x1024xi8>, %bt: tensor<40x1024xi8>) -> tensor<130x40xi32> {
  %p = stc.prune %a by #stc.nm<2:4> along 1 : tensor<130x1024xi8>
  %v, %m = stc.compress %p by #stc.nm<2:4> along 1 : tensor<130x1024xi8> -> tensor<130x512xi8>, tensor<130x64xi16>
  %y = stc.spmm %v, %m, %bt {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>, dense_transposed = true}
      : tensor<130x512xi8>, tensor<130x64xi16>, tensor<40x1024xi8> -> tensor<130x40xi32>
  return %y : tensor<130x40xi32>
}

// i8 with K = 320: three 128-K steps, one step a slot.
func.func @lhs_i8_odd(%a: tensor<64x320xi8>, %bt: tensor<16x320xi8>) -> tensor<64x16xi32> {
  %p = stc.prune %a by #stc.nm<2:4> along 1 : tensor<64x320xi8>
  %v, %m = stc.compress %p by #stc.nm<2:4> along 1 : tensor<64x320xi8> -> tensor<64x160xi8>, tensor<64x20xi16>
  %y = stc.spmm %v, %m, %bt {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>, dense_transposed = true}
      : tensor<64x160xi8>, tensor<64x20xi16>, tensor<16x320xi8> -> tensor<64x16xi32>
  return %y : tensor<64x16xi32>
}
