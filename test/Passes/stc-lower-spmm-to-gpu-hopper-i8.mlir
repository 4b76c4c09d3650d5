// The sm_90a kernel for i8 operands: a K step is 128 dense K (one 128-byte
// row of B per column, 64 bytes of stored A per row: the f16 kernel's bytes),
// so the TMA boxes are 64 x BM stored values and 128 x BN of the K-major
// dense operand, both copied as bytes (CUtensorMapDataType UINT8 = 0). Each
// step issues two wgmma.mma_async.sp m64nNk64 s8 x s8 -> s32 with sp-sel 0
// and their own metadata words (words 2 (s % 2) and 2 (s % 2) + 1 of the
// thread's vector of four), on i32 accumulators fenced with "+r"; then
// commit and wait for 0 groups before the slot is released. The epilogue
// converts the s32 accumulator to f32 and requantizes (the sm_80 path's).
// The metadata conversion kernel writes the s8 word layout (checked end to
// end by test/GPU/emulate-spmm-wgmma-i8.mlir).
// RUN: stc-opt %s --stc-configure-gpu-kernels=target=sm_90a --stc-lower-spmm-to-gpu --canonicalize | FileCheck %s

// CHECK-LABEL: gpu.func @stc_spmm_0_meta(
// CHECK-LABEL: gpu.func @stc_spmm_0(
// CHECK-SAME: config = <arch = sm_90a, family = wgmma, block_rows = 64, block_cols = 64, {{.*}}accumulator = s32>
// CHECK-SAME: input_type = i8
// CHECK-SAME: meta_layout = canonical, meta_kernel = "stc_spmm_0_meta", meta_rows_per_block = 64, meta_k_per_word = 64, meta_threads = 128
// CHECK-SAME: tensor_maps = [#stc_gpu.tensor_map<"values_map" over "values", type 0, box[64, 64], swizzle 64>, #stc_gpu.tensor_map<"dense_map" over "dense", type 0, box[128, 64], swizzle 128>]>
// The producer: 4 KiB of values and 8 KiB of B per K step.
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c12288_i32
// CHECK-COUNT-2: nvvm.cp.async.bulk.tensor.shared.cluster.global
// The consumers: the step's two words, chosen by s % 2 from the vector.
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: %[[W0:.*]] = arith.select %{{.*}}, %[[V0:arg[0-9]+]], %[[V2:arg[0-9]+]] : i32
// CHECK: %[[W1:.*]] = arith.select %{{.*}}, %[[V1:arg[0-9]+]], %[[V3:arg[0-9]+]] : i32
// CHECK-COUNT-32: llvm.inline_asm has_side_effects asm_dialect = att "", "=r,0" %{{.*}} : (i32) -> i32
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: stc_gpu.wgmma_sp si8 * si8 -> i32, n = 64, a_desc(%{{.*}}) b_desc(%{{.*}}) meta(%[[W0]]) sel(0) acc(
// CHECK: stc_gpu.wgmma_sp si8 * si8 -> i32, n = 64, a_desc(%{{.*}}) b_desc(%{{.*}}) meta(%[[W1]]) sel(0) acc(
// CHECK-NOT: stc_gpu.wgmma_sp
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: nvvm.mbarrier.arrive
// CHECK: scf.yield
// CHECK-COUNT-32: llvm.inline_asm has_side_effects asm_dialect = att "", "=r,0"
// CHECK: arith.sitofp %{{.*}} : i32 to f32
// CHECK: arith.fptosi %{{.*}} : f32 to i8
// CHECK: gpu.return
func.func @lhs_transposed(%v: tensor<128x160xi8>, %m: tensor<128x20xi16>, %dt: tensor<64x320xi8>, %s: tensor<128xf32>) -> tensor<128x64xi8> {
  %y = stc.spmm %v, %m, %dt scale(%s : tensor<128xf32>)
      {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>, dense_transposed = true, alpha = 0.01}
      : tensor<128x160xi8>, tensor<128x20xi16>, tensor<64x320xi8> -> tensor<128x64xi8>
  return %y : tensor<128x64xi8>
}
