// tma-multicast: the two blocks of a cluster (cluster-rows=2) compute
// neighbouring row tiles of the same columns, so they share B's tile. Each
// loads half of it (rank r: columns [64 r, 64 r + 64) of a 128-column
// K-major tile, 8 KiB into the slot) into both blocks' shared memory
// (multicast mask 0b11, completing on each block's `full`), so the tensor
// map's box is half as wide. Each block's `empty` counts the releases of
// both blocks' consumers (2 x 256): a consumer arrives on its own barrier
// and, through mapa, on the partner's. The barriers of both blocks exist
// before either starts and neither leaves early: a cluster barrier after
// the initialisation and one at the end.
// RUN: stc-opt %s --stc-configure-gpu-kernels="target=sm_90a block-rows=128 block-cols=128 cluster-rows=2 tma-multicast=true" --stc-lower-spmm-to-gpu --canonicalize | FileCheck %s
// RUN: stc-opt %s --stc-configure-gpu-kernels="target=sm_90a block-rows=128 block-cols=128 cluster-rows=2" --stc-lower-spmm-to-gpu --canonicalize | FileCheck %s --check-prefix=PLAIN

// CHECK-LABEL: gpu.func @stc_spmm_0(
// CHECK-SAME: config = <arch = sm_90a, family = wgmma, block_rows = 128, block_cols = 128, {{.*}}cluster_rows = 2, multicast_b = true>
// CHECK-SAME: tensor_maps = [#stc_gpu.tensor_map<"values_map" over "values", type 6, box[32, 128], swizzle 64>, #stc_gpu.tensor_map<"dense_map" over "dense", type 6, box[64, 64], swizzle 128>]>
// K = 256: four K steps, a ring of four slots, four `empty` barriers.
// CHECK-COUNT-4: nvvm.mbarrier.init %{{.*}}, %c512_i32
// CHECK: nvvm.fence.mbarrier.init
// CHECK: gpu.barrier
// CHECK-NEXT: nvvm.cluster.arrive
// CHECK-NEXT: nvvm.cluster.wait
// CHECK-NEXT: %[[RANK:.*]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
// The producer: its own A, its half of B into both blocks.
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %[[FULL:.*]], box[
// CHECK-NOT: multicast_mask
// CHECK: %[[HALFCOL:.*]] = arith.muli %[[RANK]], %c64_i32 : i32
// CHECK: %[[COL:.*]] = arith.addi %{{.*}}, %[[HALFCOL]] : i32
// CHECK: %[[HALF:.*]] = arith.muli %[[RANK]], %c8192_i32 : i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %[[FULL]], box[%{{.*}}, %[[COL]]] multicast_mask = %c3_i16
// The consumers release the slot in both blocks.
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: nvvm.mbarrier.arrive %[[EMPTY:.*]] : !llvm.ptr<3>
// CHECK: %[[PEER:.*]] = arith.xori %[[RANK]], %c1_i32 : i32
// CHECK: %[[REMOTE:.*]] = nvvm.mapa %[[EMPTY]], %[[PEER]] : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK-NEXT: nvvm.mbarrier.arrive %[[REMOTE]] {scope = #nvvm.mem_scope<cluster>} : !llvm.ptr<7>
// CHECK: nvvm.cluster.arrive
// CHECK-NEXT: nvvm.cluster.wait
// CHECK-NEXT: gpu.return

// PLAIN: tensor_maps = [#stc_gpu.tensor_map<"values_map" over "values", type 6, box[32, 128], swizzle 64>, #stc_gpu.tensor_map<"dense_map" over "dense", type 6, box[64, 128], swizzle 128>]
// PLAIN-COUNT-4: nvvm.mbarrier.init %{{.*}}, %c256_i32
// PLAIN-NOT: nvvm.cluster.arrive
// PLAIN-NOT: multicast_mask
// PLAIN-NOT: nvvm.mapa
func.func @p_major(%v: tensor<256x128xf16>, %m: tensor<256x16xi16>, %dt: tensor<128x256xf16>) -> tensor<256x128xf32> {
  %y = stc.spmm %v, %m, %dt {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>, dense_transposed = true}
      : tensor<256x128xf16>, tensor<256x16xi16>, tensor<128x256xf16> -> tensor<256x128xf32>
  return %y : tensor<256x128xf32>
}
