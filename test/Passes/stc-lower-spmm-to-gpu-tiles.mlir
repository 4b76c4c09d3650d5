// The block tile heuristic (chooseMmaSpBlockTile): the largest of 128 x 128,
// 128 x 64 (more rows than columns) or 64 x 128 that still gives at least
// 256 blocks, else 64 x 64; block-rows/block-cols override it. The warp
// tile (chooseMmaSpWarpTile) is half the block's each way, at least 32:
// 4 warps (128 threads) for every tile; the staged kernel's shared memory
// grows with the tile (stages x (32 bytes per row + 64 per column)).
// RUN: stc-opt %s --stc-configure-gpu-kernels --stc-lower-spmm-to-gpu | FileCheck %s
// RUN: stc-opt %s --stc-configure-gpu-kernels="block-rows=64 block-cols=128 stages=4" --stc-lower-spmm-to-gpu | FileCheck %s --check-prefix=FORCED

// 4096 x 4096: 1024 blocks of 128 x 128.
// CHECK: kernel = "stc_spmm_0", config = <arch = sm_80, family = staged, block_rows = 128, block_cols = 128, stages = 3, warp_rows = 64, warp_cols = 64>, threads = 128, shared_bytes = 0, static_shared_bytes = 36864
// FORCED: kernel = "stc_spmm_0", config = <arch = sm_80, family = staged, block_rows = 64, block_cols = 128, stages = 4, warp_cols = 64>, threads = 128, shared_bytes = 0, static_shared_bytes = 40960
func.func @square(%v: tensor<4096x2048xf16>, %m: tensor<4096x256xi16>, %d: tensor<4096x4096xf16>) -> tensor<4096x4096xf16> {
  %y = stc.spmm %v, %m, %d {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>}
      : tensor<4096x2048xf16>, tensor<4096x256xi16>, tensor<4096x4096xf16> -> tensor<4096x4096xf16>
  return %y : tensor<4096x4096xf16>
}

// R = 4096 rows, P = 512: 128 blocks of 128 x 128, 256 of 128 x 64.
// CHECK: kernel = "stc_spmm_1", config = <{{.*}}block_rows = 128, block_cols = 64, stages = 3, warp_rows = 64>, threads = 128,
func.func @tall(%v: tensor<4096x512xf16>, %m: tensor<4096x64xi16>, %d: tensor<1024x512xf16>) -> tensor<4096x512xf16> {
  %y = stc.spmm %v, %m, %d {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>}
      : tensor<4096x512xf16>, tensor<4096x64xi16>, tensor<1024x512xf16> -> tensor<4096x512xf16>
  return %y : tensor<4096x512xf16>
}

// nn.Linear with 16 tokens: R = 4096 output features, P = 16 tokens.
// CHECK: kernel = "stc_spmm_2", config = <{{.*}}block_rows = 64, block_cols = 64, stages = 3>, threads = 128,
func.func @decode(%v: tensor<4096x2048xf16>, %m: tensor<4096x256xi16>, %x: tensor<16x4096xf16>) -> tensor<16x4096xf16> {
  %y = stc.spmm %v, %m, %x {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>}
      : tensor<4096x2048xf16>, tensor<4096x256xi16>, tensor<16x4096xf16> -> tensor<16x4096xf16>
  return %y : tensor<16x4096xf16>
}
