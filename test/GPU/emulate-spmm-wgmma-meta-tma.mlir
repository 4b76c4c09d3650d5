// The sm_90a kernel with its metadata through the TMA ring
// (--gpu-meta-tma, kernel_config meta_tma): the producer copies the
// 128-bit vectors of the consumers' kernel-ready metadata words (2 KiB per
// 64-row tile, four f16/bf16 K steps or two s8 ones) into a ring of
// ceil(stages / steps per vector) slots with the vector's first K step, and
// the consumers read theirs from shared memory. On the CPU through the
// emulator against the CPU path (--check). K long enough that the
// metadata ring wraps (17 K steps: five vectors in two slots at 5-6
// stages), one slot (2 and 3 stages), rows past the operand in a block's
// last 64-row tiles (TMA zero-fills their vectors; the kernel gives them
// legal words), 64- to 256-row blocks, a cluster pair with multicast of B,
// A from registers, a dynamic number of rows, run-time and compile-time
// metadata, f16, bf16 and i8, and convolutions.
// Mutations that fail it (tried when it was written): the consumers
// reading the next vector's slot; the producer's box one vector ahead;
// zero words for the tiles past R (the emulator's illegal metadata).
// REQUIRES: numpy
// RUN: env STC_EMU_TRACE=1 stc-run %s --device=emulate --target=sm_90a --entry=lhs_f16_long --random-inputs --seed=1 --check --gpu-meta-tma 2>&1 | FileCheck %s --check-prefixes=CHECK,TRACE
// RUN: stc-run %s --device=emulate --target=sm_90a --entry=lhs_f16_long --random-inputs --seed=2 --check --gpu-meta-tma --gpu-block-rows=128 --gpu-block-cols=128 --gpu-wgmma-stages=5 2>&1 | FileCheck %s
// RUN: stc-run %s --device=emulate --target=sm_90a --entry=lhs_f16_long --random-inputs --seed=3 --check --gpu-meta-tma --gpu-block-rows=256 --gpu-wgmma-stages=3 2>&1 | FileCheck %s
// RUN: stc-run %s --device=emulate --target=sm_90a --entry=lhs_f16_long --random-inputs --seed=4 --check --gpu-meta-tma --gpu-block-rows=64 --gpu-block-cols=128 --gpu-cluster-rows=2 --gpu-tma-multicast --gpu-wgmma-stages=6 2>&1 | FileCheck %s
// RUN: stc-run %s --device=emulate --target=sm_90a --entry=lhs_bf16_nk --random-inputs --seed=5 --check --gpu-meta-tma --gpu-block-rows=128 --gpu-wgmma-stages=2 2>&1 | FileCheck %s
// RUN: stc-run %s --device=emulate --target=sm_90a --entry=lhs_bf16_nk --random-inputs --seed=6 --check --gpu-meta-tma --gpu-wgmma-a=registers --gpu-block-rows=128 --gpu-wgmma-stages=6 2>&1 | FileCheck %s
// RUN: stc-run %s --device=emulate --target=sm_90a --entry=rhs_f16_bias_relu --random-inputs --seed=7 --check --gpu-meta-tma --gpu-block-rows=256 --gpu-block-cols=64 2>&1 | FileCheck %s
// RUN: %python -c "import numpy as np; np.save('%t.a.npy', np.random.default_rng(8).standard_normal((77, 640)).astype(np.float16))"
// RUN: stc-run %s --device=emulate --target=sm_90a --entry=lhs_f16_dynamic_rows --input=%t.a.npy --random-inputs --seed=8 --check --gpu-meta-tma --gpu-block-rows=128 2>&1 | FileCheck %s
// Compile-time metadata (a constant weight), and i8 (two words a K step,
// two steps a vector; K = 1088 is five vectors).
// RUN: stc-run %S/emulate-spmm-wgmma.mlir --device=emulate --target=sm_90a --entry=rhs_constant_weight --random-inputs --seed=9 --check --gpu-meta-tma 2>&1 | FileCheck %s
// RUN: stc-run %S/emulate-spmm-wgmma-i8.mlir --device=emulate --target=sm_90a --entry=rhs_long_k_f16 --random-inputs --seed=10 --check --gpu-meta-tma 2>&1 | FileCheck %s
// RUN: stc-run %S/emulate-spmm-wgmma-i8.mlir --device=emulate --target=sm_90a --entry=lhs_acc32 --random-inputs --seed=11 --check --gpu-meta-tma --gpu-block-rows=256 --gpu-wgmma-stages=3 2>&1 | FileCheck %s
// Convolutions (K = 9 taps x 128 channels: 18 K steps).
// RUN: rm -rf %t.conv && mkdir -p %t.conv
// RUN: %python %S/Inputs/conv_check.py --stc-run stc-run --work %t.conv --shape 2,9,11,128,1,72 --filter 3,3 --stride 2,2 --pad 1,1,1,0 --relu --seed 12 -- --device=emulate --target=sm_90a --gpu-meta-tma --gpu-block-rows=128 | FileCheck %s --check-prefix=CONV
// The kernel: the option in its configuration, a third tensor map (the
// words as 256 x 2 x vectors x row tiles, UINT32, unswizzled, a box per
// vector and block) and the metadata ring in its shared memory: at 128 x
// 64 with 6 stages, 6 x (8 + 8) KiB of slots, 2 slots of 4 KiB, 2 x 6
// mbarriers and 1 KiB of slack.
// RUN: stc-opt %s --stc-pipeline="target=sm_90a stop-after-stc=true" | stc-opt --stc-configure-gpu-kernels="target=sm_90a meta-tma=true block-rows=128 block-cols=64 wgmma-stages=6" --stc-lower-spmm-to-gpu | FileCheck %s --check-prefix=KERNEL
// The ring costs no stage: 128 x 256 tiles keep the 5 stages (200 KiB)
// that fit without it, with two 4 KiB metadata slots.
// RUN: stc-opt %s --stc-pipeline="target=sm_90a stop-after-stc=true" | stc-opt --stc-configure-gpu-kernels="target=sm_90a meta-tma=true block-rows=128 block-cols=256" 2>&1 | FileCheck %s --check-prefix=FIT
// CHECK: stc-run: device: emulate (sm_90a kernels on the CPU)
// TRACE: stc-emu: launch stc_spmm_0_meta:
// TRACE: stc-emu: launch stc_spmm_0:
// CHECK: stc-run: check: result #0 relative error {{.*}}: PASS
// CONV: conv 2,9,11,128,1,72 3,3 f16 relerr {{.*}} OK
// KERNEL: gpu.func @stc_spmm_0({{.*}}%arg9: !llvm.ptr, %arg10: !llvm.ptr, %arg11: !llvm.ptr) kernel
// KERNEL-SAME: config = <arch = sm_90a, family = wgmma, block_rows = 128, block_cols = 64, stages = 6, meta_tma = true>
// KERNEL-SAME: shared_bytes = 107616
// KERNEL-SAME: "values_map", "dense_map", "meta_map"]
// KERNEL-SAME: #stc_gpu.tensor_map<"meta_map" over "meta", type 2, box[256, 2, 1, 2], swizzle 0>
// KERNEL: nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}}box[{{.*}}] : !llvm.ptr<7>, !llvm.ptr
// FIT-COUNT-4: block_cols = 256, stages = 5, meta_tma = true

// A (200 x 1088, pruned at run time) . B (1088 x 136): 17 K steps, five
// metadata vectors; M = 3 x 64 + 8.
func.func @lhs_f16_long(%a: tensor<200x1088xf16>, %b: tensor<1088x136xf16>) -> tensor<200x136xf32> {
  %p = stc.prune %a by #stc.nm<2:4> along 1 : tensor<200x1088xf16>
  %v, %m = stc.compress %p by #stc.nm<2:4> along 1 : tensor<200x1088xf16> -> tensor<200x544xf16>, tensor<200x68xi16>
  %y = stc.spmm %v, %m, %b {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>}
      : tensor<200x544xf16>, tensor<200x68xi16>, tensor<1088x136xf16> -> tensor<200x136xf32>
  return %y : tensor<200x136xf32>
}

// A (130 x 576) . B^T with B given N x K (72 x 576): nine K steps, three
// vectors; the last 128-row block's second tile (rows 192-255) is past R.
func.func @lhs_bf16_nk(%a: tensor<130x576xbf16>, %bt: tensor<72x576xbf16>) -> tensor<130x72xbf16> {
  %p = stc.prune %a by #stc.nm<2:4> along 1 : tensor<130x576xbf16>
  %v, %m = stc.compress %p by #stc.nm<2:4> along 1 : tensor<130x576xbf16> -> tensor<130x288xbf16>, tensor<130x36xi16>
  %y = stc.spmm %v, %m, %bt {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>, dense_transposed = true}
      : tensor<130x288xbf16>, tensor<130x36xi16>, tensor<72x576xbf16> -> tensor<130x72xbf16>
  return %y : tensor<130x72xbf16>
}

// X (90 x 704) . W (704 x 70, pruned along K): 11 K steps; 256-row blocks
// leave tiles 2 and 3 past R = 70.
func.func @rhs_f16_bias_relu(%x: tensor<90x704xf16>, %w: tensor<704x70xf16>, %bias: tensor<70xf32>) -> tensor<90x70xf16> {
  %p = stc.prune %w by #stc.nm<2:4> along 0 : tensor<704x70xf16>
  %v, %m = stc.compress %p by #stc.nm<2:4> along 0 : tensor<704x70xf16> -> tensor<70x352xf16>, tensor<70x44xi16>
  %y = stc.spmm %v, %m, %x bias(%bias : tensor<70xf32>)
      {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>, activation = #stc.activation<relu>}
      : tensor<70x352xf16>, tensor<70x44xi16>, tensor<90x704xf16> -> tensor<90x70xf16>
  return %y : tensor<90x70xf16>
}

// A dynamic number of rows (77 at run time): the map's row tiles come from
// the buffer.
func.func @lhs_f16_dynamic_rows(%a: tensor<?x640xf16>, %b: tensor<640x64xf16>) -> tensor<?x64xf32> {
  %p = stc.prune %a by #stc.nm<2:4> along 1 : tensor<?x640xf16>
  %v, %m = stc.compress %p by #stc.nm<2:4> along 1 : tensor<?x640xf16> -> tensor<?x320xf16>, tensor<?x40xi16>
  %y = stc.spmm %v, %m, %b {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>}
      : tensor<?x320xf16>, tensor<?x40xi16>, tensor<640x64xf16> -> tensor<?x64xf32>
  return %y : tensor<?x64xf32>
}
