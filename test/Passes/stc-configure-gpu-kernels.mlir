// stc-configure-gpu-kernels attaches the kernel each stc.spmm / stc.conv will
// get, as #stc_gpu.kernel_config: on sm_80-sm_90 the staged mma.sp kernel
// where the dense operand's rows are 16-byte aligned (with a direct fallback
// where that depends on a dynamic size), else the direct one, in the block
// tile of chooseMmaSpBlockTile; on sm_90a the wgmma kernel with
// chooseHopperTiling's tile, ring and cluster where it applies. The knobs
// override the heuristics; an op that already has a configuration keeps it.
// (tuning-builtin=false: the heuristics themselves, whatever the committed
// tuning database says.)
// RUN: stc-opt %s --stc-configure-gpu-kernels | FileCheck %s --check-prefix=SM80
// RUN: stc-opt %s --stc-configure-gpu-kernels="target=sm_90a tuning-builtin=false" 2>&1 | FileCheck %s --check-prefix=SM90A
// RUN: stc-opt %s --stc-configure-gpu-kernels="target=sm_90a kernel=direct block-rows=128 ordered-metadata=false" | FileCheck %s --check-prefix=KNOBS
// RUN: stc-opt %s --stc-configure-gpu-kernels="target=sm_90a block-rows=256 wgmma-stages=3 cluster-rows=2 group-rows=8 tma-multicast=true wgmma-a=smem" 2>&1 | FileCheck %s --check-prefix=HOPPER-KNOBS

// The remarks come first (stderr, during the pass).
// SM90A: remark: stc-configure-gpu-kernels: sm_90a: mma.sp kernel, since the wgmma kernel needs static rows of values and of the dense operand that are multiples of 8 elements (16 bytes, for TMA); got 8 values per row and a dense leading dimension of 12
// HOPPER-KNOBS: remark: stc-configure-gpu-kernels: sm_90a: no TMA multicast, which needs a GEMM kernel with a cluster of 2 (cluster-rows=2) and, for a k-major dense operand, at least 128 columns; got cluster 2, 64 columns, a convolution

// SM80-LABEL: func.func @square
// SM80: stc.spmm {{.*}}stc_gpu.kernel_config = #stc_gpu.kernel_config<arch = sm_80, family = staged, block_rows = 64, block_cols = 128, stages = 3, warp_cols = 64>
// SM90A-LABEL: func.func @square
// K = 256 is four K steps: a ring of 4 slots (no more than its fills).
// SM90A: stc.spmm {{.*}}stc_gpu.kernel_config = #stc_gpu.kernel_config<arch = sm_90a, family = wgmma, block_rows = 128, block_cols = 128, stages = 4>
// KNOBS-LABEL: func.func @square
// KNOBS: stc_gpu.kernel_config = #stc_gpu.kernel_config<arch = sm_90a, family = direct, block_rows = 128, block_cols = 128, ordered_metadata = false>
// 256 rows narrow the heuristic's columns to 128; the cluster of 2 allows
// multicast and a grouped order of whole clusters.
// HOPPER-KNOBS-LABEL: func.func @square
// HOPPER-KNOBS: stc_gpu.kernel_config = #stc_gpu.kernel_config<arch = sm_90a, family = wgmma, block_rows = 256, block_cols = 128, stages = 3, cluster_rows = 2, group_rows = 8, multicast_b = true>
func.func @square(%v: tensor<1024x128xf16>, %m: tensor<1024x16xi16>, %d: tensor<256x2048xf16>) -> tensor<1024x2048xf32> {
  %y = stc.spmm %v, %m, %d {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>}
      : tensor<1024x128xf16>, tensor<1024x16xi16>, tensor<256x2048xf16> -> tensor<1024x2048xf32>
  return %y : tensor<1024x2048xf32>
}

// A leading dimension of 12 f16 is not 16-byte aligned: direct everywhere,
// with a remark on sm_90a (TMA needs the same alignment: above).
// SM80-LABEL: func.func @unaligned
// SM80: stc_gpu.kernel_config = #stc_gpu.kernel_config<arch = sm_80, family = direct, block_rows = 64, block_cols = 64>
// SM90A-LABEL: func.func @unaligned
// SM90A: stc_gpu.kernel_config = #stc_gpu.kernel_config<arch = sm_90a, family = direct, block_rows = 64, block_cols = 64>
func.func @unaligned(%v: tensor<16x8xf16>, %m: tensor<16x1xi16>, %d: tensor<16x12xf16>) -> tensor<16x12xf32> {
  %y = stc.spmm %v, %m, %d {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>}
      : tensor<16x8xf16>, tensor<16x1xi16>, tensor<16x12xf16> -> tensor<16x12xf32>
  return %y : tensor<16x12xf32>
}

// A dynamic leading dimension: the staged kernel and its direct fallback;
// i8 accumulates in s32.
// SM80-LABEL: func.func @dynamic_i8
// SM80: stc_gpu.kernel_config = #stc_gpu.kernel_config<arch = sm_80, family = staged, block_rows = 64, block_cols = 64, stages = 3, accumulator = s32, direct_fallback = true>
func.func @dynamic_i8(%v: tensor<24x?xi8>, %m: tensor<24x?xi16>, %x: tensor<20x64xi8>) -> tensor<20x24xi32> {
  %y = stc.spmm %v, %m, %x {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>}
      : tensor<24x?xi8>, tensor<24x?xi16>, tensor<20x64xi8> -> tensor<20x24xi32>
  return %y : tensor<20x24xi32>
}

// A configuration already there is kept (whatever the knobs say).
// SM80-LABEL: func.func @preconfigured
// SM80: stc_gpu.kernel_config = #stc_gpu.kernel_config<arch = sm_80, family = direct, block_rows = 128, block_cols = 64>
// SM90A-LABEL: func.func @preconfigured
// SM90A: stc_gpu.kernel_config = #stc_gpu.kernel_config<arch = sm_80, family = direct, block_rows = 128, block_cols = 64>
func.func @preconfigured(%v: tensor<256x64xf16>, %m: tensor<256x8xi16>, %d: tensor<128x256xf16>) -> tensor<256x256xf32> {
  %y = stc.spmm %v, %m, %d {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>,
      stc_gpu.kernel_config = #stc_gpu.kernel_config<arch = sm_80, family = direct, block_rows = 128, block_cols = 64>}
      : tensor<256x64xf16>, tensor<256x8xi16>, tensor<128x256xf16> -> tensor<256x256xf32>
  return %y : tensor<256x256xf32>
}

// ResNet-50's l4 1x1 at batch 256 (7 x 7 maps) is one matrix product: its
// 12544 pixels are tiled flat, as a GEMM's columns (no pixel tile), in
// 128 x 256 blocks. Tiled per image (pixel-tiles=image), a 16 x 16 tile
// would hold 49 real pixels of 256: 8 x 8 tiles of 64 columns waste the
// least. A 3x3 convolution cannot be tiled flat (a remark; @conv below).
// RUN: stc-opt %s --stc-configure-gpu-kernels="target=sm_90a tuning-builtin=false pixel-tiles=image" 2>&1 | FileCheck %s --check-prefix=IMAGE
// RUN: stc-opt %s --stc-configure-gpu-kernels="target=sm_90a tuning-builtin=false pixel-tiles=flat" 2>&1 | FileCheck %s --check-prefix=FLAT
// SM90A-LABEL: func.func @conv_small_maps
// SM90A: stc_gpu.kernel_config = #stc_gpu.kernel_config<arch = sm_90a, family = wgmma, block_rows = 128, block_cols = 256, stages = 5, cluster_rows = 2>}
// IMAGE-LABEL: func.func @conv_small_maps
// IMAGE: stc_gpu.kernel_config = #stc_gpu.kernel_config<arch = sm_90a, family = wgmma, block_rows = 128, block_cols = 64, stages = 6, cluster_rows = 2, pixel_tile_h = 8, pixel_tile_w = 8>
// FLAT: remark: stc-configure-gpu-kernels: sm_90a: pixel tiles per image, since flat ones (pixel-tiles=flat) need a 1x1, stride-1, unpadded convolution of one group
// FLAT-LABEL: func.func @conv_small_maps
// FLAT: block_cols = 256, stages = 5, cluster_rows = 2>}
// FLAT-LABEL: func.func @conv(
// FLAT: pixel_tile_h = 8, pixel_tile_w = 8>
func.func @conv_small_maps(%v: tensor<2048x256xf16>, %m: tensor<2048x32xi16>, %x: tensor<256x7x7x512xf16>) -> tensor<256x7x7x2048xf16> {
  %y = stc.conv %v, %m, %x {pattern = #stc.nm<2:4>, filter_size = array<i64: 1, 1>}
      : tensor<2048x256xf16>, tensor<2048x32xi16>, tensor<256x7x7x512xf16> -> tensor<256x7x7x2048xf16>
  return %y : tensor<256x7x7x2048xf16>
}

// A convolution on sm_90a: 64-column tiles are 8 x 8 output pixels. Multicast
// does not apply to convolutions (a remark above; the kernel loads its own
// B).
// SM90A-LABEL: func.func @conv
// SM90A: stc.conv {{.*}}stc_gpu.kernel_config = #stc_gpu.kernel_config<arch = sm_90a, family = wgmma, block_rows = 64, block_cols = 64, stages = 6, pixel_tile_h = 8, pixel_tile_w = 8>
// HOPPER-KNOBS-LABEL: func.func @conv
// HOPPER-KNOBS: stc_gpu.kernel_config = #stc_gpu.kernel_config<arch = sm_90a, family = wgmma, block_rows = 256, block_cols = 64, stages = 3, cluster_rows = 2, group_rows = 8, pixel_tile_h = 8, pixel_tile_w = 8>
func.func @conv(%v: tensor<64x288xf16>, %m: tensor<64x36xi16>, %x: tensor<2x28x28x64xf16>) -> tensor<2x14x14x64xf16> {
  %y = stc.conv %v, %m, %x
      {pattern = #stc.nm<2:4>, filter_size = array<i64: 3, 3>, strides = array<i64: 2, 2>,
       pad_low = array<i64: 1, 1>, pad_high = array<i64: 1, 1>}
      : tensor<64x288xf16>, tensor<64x36xi16>, tensor<2x28x28x64xf16> -> tensor<2x14x14x64xf16>
  return %y : tensor<2x14x14x64xf16>
}
