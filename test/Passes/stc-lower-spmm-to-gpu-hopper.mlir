// target=sm_90a: stc.spmm with f16/bf16 operands becomes the Hopper kernel
// (passes/GPU/HopperKernel.cpp): a producer warp feeding a ring of
// shared-memory slots with TMA copies, mbarriers, consumer warpgroups
// running stc_gpu.wgmma_sp, and the sm_80 epilogue; the metadata in the Hopper
// kernel-ready layout. Other targets keep the mma.sp kernels.
// RUN: stc-opt %s --stc-configure-gpu-kernels="target=sm_90a tuning-builtin=false" --stc-lower-spmm-to-gpu --canonicalize | FileCheck %s
// RUN: stc-opt %s --stc-configure-gpu-kernels="target=sm_90a block-rows=128 block-cols=256 wgmma-stages=3 cluster-rows=2" --stc-lower-spmm-to-gpu | FileCheck %s --check-prefix=OPTIONS
// RUN: stc-opt %s --stc-configure-gpu-kernels="target=sm_90a wgmma-a=registers" --stc-lower-spmm-to-gpu --canonicalize | FileCheck %s --check-prefix=REGS
// RUN: stc-opt %s --stc-configure-gpu-kernels="target=sm_90 tuning-builtin=false" --stc-lower-spmm-to-gpu | FileCheck %s --check-prefix=SM90
// RUN: stc-opt %s --stc-configure-gpu-kernels="target=sm_90a kernel=staged" --stc-lower-spmm-to-gpu | FileCheck %s --check-prefix=SM90
// The kernel_info JSON derives the grid (x = ceil(P / BN), y = ceil(R / BM)
// rounded up to whole clusters) and the instruction shape m64nBNk32.
// RUN: rm -rf %t && mkdir %t
// RUN: stc-compile %s --target=sm_90a --emit=ptx -o %t/k.ptx --kernel-info=%t/k.json
// RUN: FileCheck %s --check-prefix=JSON < %t/k.json
// RUN: stc-compile %s --target=sm_90a --emit=ptx -o %t/o.ptx --kernel-info=%t/o.json --gpu-block-rows=128 --gpu-block-cols=256 --gpu-wgmma-stages=3 --gpu-cluster-rows=2
// RUN: FileCheck %s --check-prefix=JSON-OPTIONS < %t/o.json
// JSON:      "cluster": [
// JSON-NEXT:   1,
// JSON-NEXT:   1,
// JSON-NEXT:   1
// JSON:      "grid": [
// JSON-NEXT:   3,
// JSON-NEXT:   4,
// JSON-NEXT:   1
// JSON:      "kernel": "stc_spmm_0",
// JSON:      "mma": "m64n64k32",
// JSON:      "ordered_metadata": false,
// JSON:      "variant": "wgmma"
// JSON-OPTIONS: "kernel": "stc_spmm_1",
// JSON-OPTIONS: "cluster": [
// JSON-OPTIONS-NEXT: 1,
// JSON-OPTIONS-NEXT: 2,
// JSON-OPTIONS-NEXT: 1
// JSON-OPTIONS: "grid": [
// JSON-OPTIONS-NEXT: 8,
// JSON-OPTIONS-NEXT: 8,
// JSON-OPTIONS-NEXT: 1
// JSON-OPTIONS: "kernel": "stc_spmm_2",
// JSON-OPTIONS: "mma": "m64n256k32",
// JSON-OPTIONS: "shared_bytes": 123952,
// JSON-OPTIONS: "stages": 3,

// Constant weights: the Hopper kernel-ready words (512 per 64-row tile and
// vector of 4 K steps) are computed at compile time.
// CHECK-LABEL: func.func @constant_weight(
// CHECK: arith.constant dense<{{.*}}> : tensor<512xi32>

// The ring lives in dynamic shared memory, aligned by the kernel itself.
// CHECK-DAG: llvm.mlir.global external @stc_spmm_0_smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
// CHECK-DAG: llvm.mlir.global external @stc_spmm_2_smem()

// Run-time metadata: converted on the device by stc_spmm_0_meta into the
// Hopper layout (64-row tiles, 128 threads, 512 words per vector block).
// CHECK-LABEL: gpu.func @stc_spmm_0_meta(
// CHECK: arith.constant 512 : i32
// CHECK-LABEL: gpu.func @stc_spmm_0(
// CHECK-SAME: %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %[[VMAP:.*]]: !llvm.ptr, %[[DMAP:.*]]: !llvm.ptr)
// 200 x 136 with 64 x 64 tiles: one consumer warpgroup and the producer
// warpgroup (256 threads); K = 144 is three K steps, so 3 stages (no more
// than the ring's fills) of 4 KiB of values and 8 KiB of B, 3 x 12 KiB +
// 48 bytes of barriers + 1 KiB of alignment slack.
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>
// CHECK-SAME: stc_gpu.kernel_info = #stc_gpu.kernel_info<kernel = "stc_spmm_0", config = <arch = sm_90a, family = wgmma, block_rows = 64, block_cols = 64, stages = 3>, threads = 256, shared_bytes = 37936, static_shared_bytes = 0, params = ["values", "meta", "dense", "out", "R", "P", "K", "value_cols", "meta_cols", "values_map", "dense_map"], num_pointers = 4,
// CHECK-SAME: meta_layout = canonical, meta_kernel = "stc_spmm_0_meta", meta_rows_per_block = 64, meta_k_per_word = 64, meta_threads = 128,
// A k-major D (K x N, P contiguous) is copied as 64 x 64 boxes.
// CHECK-SAME: tensor_maps = [#stc_gpu.tensor_map<"values_map" over "values", type 6, box[32, 64], swizzle 64>, #stc_gpu.tensor_map<"dense_map" over "dense", type 6, box[64, 64], swizzle 128>]>
// CHECK: llvm.mlir.addressof @stc_spmm_0_smem : !llvm.ptr<3>
// Thread 0 initialises a full and an empty barrier per slot.
// CHECK: scf.if
// CHECK-COUNT-3: nvvm.mbarrier.init %{{.*}}, %c1_i32
// CHECK: nvvm.fence.mbarrier.init
// CHECK: gpu.barrier
// One consumer warpgroup: no register moves (setmaxnreg).
// CHECK-NOT: nvvm.setmaxregister
// The producer: wait for the slot to be empty, announce 12 KiB, copy the
// values (box at (32 s, block row)) and B.
// CHECK: scf.for
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.mbarrier.arrive.expect_tx %[[FULL:.*]], %c12288_i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[VMAP]], %[[FULL]], box[
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[DMAP]], %[[FULL]], box[
// The consumers: metadata from global memory, 128 bits at a time.
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xi32>
// Per K step: wait for the slot, pin the accumulators (empty volatile asm),
// two wgmmas with A and B from shared-memory descriptors, commit, wait for
// them (a sparse wgmma reads its metadata register while it runs: no group
// may stay in flight while the next step's word is formed) and release the
// step's own slot.
// The next metadata vector is loaded at the start of the step, before the
// wait, and its words are taken over only at the end (selects after the
// slot's release): the load has a whole step to arrive.
// CHECK: scf.for
// CHECK: %[[AHEAD:.*]] = llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xi32>
// CHECK: %[[NEXT0:.*]] = llvm.extractelement %[[AHEAD]]
// CHECK-NOT: arith.select %{{.*}}, %{{.*}}, %c1145324612_i32
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK-NOT: !llvm.ptr<3> -> i32
// CHECK-COUNT-32: llvm.inline_asm has_side_effects asm_dialect = att "", "=f,0"
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: stc_gpu.wgmma_sp f16 * f16 -> f32, n = 64, a_desc(%{{.*}}) b_desc({{.*}}) meta(%[[META:.*]]) sel(0) trans_b acc(
// CHECK: stc_gpu.wgmma_sp f16 * f16 -> f32, n = 64, a_desc(%{{.*}}) b_desc({{.*}}) meta(%[[META]]) sel(1) trans_b acc(
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: %[[EMPTY:.*]] = llvm.getelementptr
// CHECK-NEXT: nvvm.mbarrier.arrive %[[EMPTY]]
// CHECK-NOT: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK: arith.select %{{.*}}, %[[NEXT0]], %{{.*}} : i32
// After the loop: the accumulators pinned again, then the epilogue (32
// accumulators per thread, each stored where in bounds).
// CHECK: scf.yield
// CHECK-COUNT-32: llvm.inline_asm has_side_effects asm_dialect = att "", "=f,0"
// CHECK-COUNT-32: llvm.store
// CHECK: gpu.return

// Constant weights: no conversion kernel.
// CHECK-NOT: gpu.func @stc_spmm_1_meta
// CHECK-LABEL: gpu.func @stc_spmm_1(
// CHECK-SAME: meta_layout = kernel_ready
// A p-major D (N x K, K contiguous): one box of 64 k x BN rows, B K-major
// (no trans_b); bf16 output from the epilogue.
// CHECK-SAME: tensor_maps = [#stc_gpu.tensor_map<"values_map" over "values", type 9, box[32, 64], swizzle 64>, #stc_gpu.tensor_map<"dense_map" over "dense", type 9, box[64, 64], swizzle 128>]
// CHECK: stc_gpu.wgmma_sp bf16 * bf16 -> f32, n = 64,
// CHECK-NOT: trans_b
// CHECK-SAME: acc(
// CHECK: arith.truncf %{{.*}} : f32 to bf16

// The heuristic takes 128 x 128 for 1024 x 2048 (128 tiles for 132 SMs:
// one wave), two consumer warpgroups, with 64 accumulators each no
// register moves; options override it (cluster-rows=2 keeps grid y a
// multiple of 2), and 128 x 256 (128 accumulators) takes registers from
// the producer, compiled for 168 at entry so that ptxas honours it.
// CHECK-LABEL: gpu.func @stc_spmm_2(
// CHECK-SAME: known_block_size = array<i32: 384, 1, 1>
// CHECK-SAME: block_rows = 128, block_cols = 128,
// CHECK-NOT: nvvm.setmaxregister
// CHECK: gpu.return
// OPTIONS-LABEL: gpu.func @stc_spmm_2(
// OPTIONS-SAME: nvvm.maxnreg = 168 : i32
// OPTIONS-SAME: config = <arch = sm_90a, family = wgmma, block_rows = 128, block_cols = 256, stages = 3, cluster_rows = 2>, threads = 384, shared_bytes = 123952,
// OPTIONS: nvvm.setmaxregister decrease 40
// OPTIONS: nvvm.setmaxregister increase 232

// wgmma-a=registers: A fragments by ld.shared, each step waits for its
// wgmmas before releasing its own slot.
// REGS-LABEL: gpu.func @stc_spmm_0(
// REGS: scf.for
// REGS: nvvm.mbarrier.try_wait.parity
// REGS-COUNT-8: llvm.load %{{.*}} : !llvm.ptr<3> -> i32
// REGS: stc_gpu.wgmma_sp f16 * f16 -> f32, n = 64, a_regs({{.*}}) b_desc({{.*}}) meta(%{{.*}}) sel(0) trans_b acc(
// REGS: stc_gpu.wgmma_sp f16 * f16 -> f32, n = 64, a_regs({{.*}}) b_desc({{.*}}) meta(%{{.*}}) sel(1) trans_b acc(
// REGS: nvvm.wgmma.commit.group.sync.aligned
// REGS-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// REGS: nvvm.mbarrier.arrive

// SM90-NOT: wgmma
// SM90: family = staged
// SM90-NOT: wgmma

func.func @run_time_weight(%v: tensor<200x72xf16>, %m: tensor<200x9xi16>, %b: tensor<144x136xf16>) -> tensor<200x136xf32> {
  %y = stc.spmm %v, %m, %b {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>}
      : tensor<200x72xf16>, tensor<200x9xi16>, tensor<144x136xf16> -> tensor<200x136xf32>
  return %y : tensor<200x136xf32>
}

func.func @constant_weight(%bt: tensor<40x64xbf16>) -> tensor<48x40xbf16> {
  %v = arith.constant dense<1.5> : tensor<48x32xbf16>
  // 0x4E4E: nibbles 0xE (elements 2, 3) and 0x4 (elements 0, 1).
  %m = arith.constant dense<0x4E4E> : tensor<48x4xi16>
  %y = stc.spmm %v, %m, %bt {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>, dense_transposed = true}
      : tensor<48x32xbf16>, tensor<48x4xi16>, tensor<40x64xbf16> -> tensor<48x40xbf16>
  return %y : tensor<48x40xbf16>
}

func.func @large(%v: tensor<1024x128xf16>, %m: tensor<1024x16xi16>, %b: tensor<256x2048xf16>) -> tensor<1024x2048xf32> {
  %y = stc.spmm %v, %m, %b {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>}
      : tensor<1024x128xf16>, tensor<1024x16xi16>, tensor<256x2048xf16> -> tensor<1024x2048xf32>
  return %y : tensor<1024x2048xf32>
}
