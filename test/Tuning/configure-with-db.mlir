// stc-configure-gpu-kernels with a tuning database (docs/TUNING.md,
// "Using it"): a measured configuration for an op's key wins (even one that
// is not the heuristic's: 128x128 with 3 slots); an op with an epilogue
// takes the entry measured without one, a convolution without one the
// same layer's at another batch; an op without an entry gets the
// cost model's choice among its candidates (the database's samples make
// 128x128 wgmma tiles three times as efficient as 128x256 ones, so the
// heuristic's 128x256 loses); a dense contraction looks up dense
// candidates only; a knob keeps the database out. Inputs/h200-db.json is
// made by hand, and used alone (tuning-builtin=false: the committed
// database, measured on an H200 too, stays out).
// RUN: stc-opt %s --stc-configure-gpu-kernels="target=sm_90a tuning-builtin=false tuning-db=%S/Inputs/h200-db.json" 2>&1 | FileCheck %s
// RUN: stc-opt %s --stc-configure-gpu-kernels="target=sm_90a tuning-builtin=false tuning-db=%S/Inputs/h200-db.json block-rows=64" 2>&1 | FileCheck %s --check-prefix=KNOB
// RUN: stc-opt %s --stc-configure-gpu-kernels="target=sm_90a tuning-builtin=false tuning-db=%S/Inputs/h200-dense-db.json" 2>&1 | FileCheck %s --check-prefix=DENSE
// Without a database: the heuristics, no remark.
// RUN: stc-opt %s --stc-configure-gpu-kernels="target=sm_90a tuning-builtin=false" 2>&1 | FileCheck %s --check-prefix=NONE

// CHECK: remark: stc-configure-gpu-kernels: tuning database: exact hit for matmul 4096x4096x4096 f16->f16 none on sm_90a on NVIDIA H200: #stc_gpu.kernel_config<arch = sm_90a, family = wgmma, block_rows = 128, block_cols = 128, stages = 3> measured 180.0 us; predicted best sparse {{[0-9.]+}} us (sparse wgmma 128x128 s6), best dense {{[0-9.]+}} us (dense wgmma
// CHECK: remark: stc-configure-gpu-kernels: tuning database: exact hit for matmul 4096x4096x4096 f16->f16 bias on sm_90a on NVIDIA H200 (measured without the epilogue): #stc_gpu.kernel_config<arch = sm_90a, family = wgmma, block_rows = 128, block_cols = 128, stages = 3> measured 180.0 us
// CHECK: remark: stc-configure-gpu-kernels: cost model (NVIDIA H200): #stc_gpu.kernel_config<arch = sm_90a, family = wgmma, block_rows = 128, block_cols = 128, stages = 6> predicted {{[0-9.]+}} us (2 samples of sparse wgmma 128x128 s6); the heuristic's {{[0-9.]+}} us
// CHECK: remark: stc-configure-gpu-kernels: tuning database: the entry for matmul 4096x4096x4096 f16->f16 none on sm_90a on NVIDIA H200 has no measurement of the wgmma kernel; its best, #stc_gpu.kernel_config<arch = sm_90a, family = staged, block_rows = 128, block_cols = 128, stages = 3, ordered_metadata = false, warp_rows = 64, warp_cols = 64>, measured 420.0 us, the heuristic's #stc_gpu.kernel_config<arch = sm_90a, family = wgmma, block_rows = 128, block_cols = 256, stages = 4, cluster_rows = 2> is predicted {{[0-9.]+}} us (prior)
// CHECK: remark: stc-configure-gpu-kernels: tuning database: exact hit for conv 2x8x8x64 * 64x3x3 s1,1 p1,1,1,1 d1,1 g1 f16->f16 none on sm_90a on NVIDIA H200: #stc_gpu.kernel_config<arch = sm_90a, family = wgmma, block_rows = 64, block_cols = 128, stages = 6, pixel_tile_h = 8, pixel_tile_w = 16> measured 7.5 us; predicted best sparse {{[0-9.]+}} us (sparse wgmma {{[0-9x]+}} s{{[0-9]}}){{$}}
// CHECK: remark: stc-configure-gpu-kernels: tuning database: hit for conv 8x8x8x64 * 64x3x3 s1,1 p1,1,1,1 d1,1 g1 f16->f16 none on sm_90a on NVIDIA H200 (measured at batch 2): #stc_gpu.kernel_config<arch = sm_90a, family = wgmma, block_rows = 64, block_cols = 128, stages = 6, pixel_tile_h = 8, pixel_tile_w = 16> measured 7.5 us
// CHECK: remark: stc-configure-gpu-kernels: tuning database: hit for conv 8x8x8x64 * 64x3x3 s1,1 p1,1,1,1 d1,1 g1 f16->f16 bias on sm_90a on NVIDIA H200 (measured without the epilogue) (measured at batch 2): #stc_gpu.kernel_config<arch = sm_90a, family = wgmma, block_rows = 64, block_cols = 128, stages = 6, pixel_tile_h = 8, pixel_tile_w = 16> measured 7.5 us

// CHECK-LABEL: func.func @measured
// CHECK: stc.spmm {{.*}}stc_gpu.kernel_config = #stc_gpu.kernel_config<arch = sm_90a, family = wgmma, block_rows = 128, block_cols = 128, stages = 3>}
// NONE-LABEL: func.func @measured
// NONE: stc.spmm {{.*}}stc_gpu.kernel_config = #stc_gpu.kernel_config<arch = sm_90a, family = wgmma, block_rows = 128, block_cols = 256, stages = 5, cluster_rows = 2>}
// KNOB-NOT: remark
// KNOB-LABEL: func.func @measured
// KNOB: stc.spmm {{.*}}block_rows = 64,
func.func @measured(%v: tensor<4096x2048xf16>, %m: tensor<4096x256xi16>, %d: tensor<4096x4096xf16>) -> tensor<4096x4096xf16> {
  %y = stc.spmm %v, %m, %d {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>}
      : tensor<4096x2048xf16>, tensor<4096x256xi16>, tensor<4096x4096xf16> -> tensor<4096x4096xf16>
  return %y : tensor<4096x4096xf16>
}

// CHECK-LABEL: func.func @with_bias
// CHECK: stc.spmm {{.*}}block_rows = 128, block_cols = 128, stages = 3>}
func.func @with_bias(%v: tensor<4096x2048xf16>, %m: tensor<4096x256xi16>, %d: tensor<4096x4096xf16>, %b: tensor<4096xf16>) -> tensor<4096x4096xf16> {
  %y = stc.spmm %v, %m, %d bias(%b : tensor<4096xf16>) {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>}
      : tensor<4096x2048xf16>, tensor<4096x256xi16>, tensor<4096x4096xf16> -> tensor<4096x4096xf16>
  return %y : tensor<4096x4096xf16>
}

// CHECK-LABEL: func.func @predicted
// CHECK: stc.spmm {{.*}}block_rows = 128, block_cols = 128, stages = 6>}
// NONE-LABEL: func.func @predicted
// NONE: stc.spmm {{.*}}block_rows = 128, block_cols = 256, stages = 5, cluster_rows = 2>}
func.func @predicted(%v: tensor<12288x6144xf16>, %m: tensor<12288x768xi16>, %d: tensor<12288x12288xf16>) -> tensor<12288x12288xf16> {
  %y = stc.spmm %v, %m, %d {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>}
      : tensor<12288x6144xf16>, tensor<12288x768xi16>, tensor<12288x12288xf16> -> tensor<12288x12288xf16>
  return %y : tensor<12288x12288xf16>
}

// The dense entry measured the mma.sync kernel only (it predates the dense
// wgmma kernel), which the prior predicts well over the margin faster: the
// heuristic's wgmma kernel, said in the remark. An entry that measured the
// wgmma kernel too keeps its best (Inputs/h200-dense-db.json, DENSE).
// CHECK-LABEL: func.func @dense
// CHECK: linalg.matmul {{.*}}stc_gpu.kernel_config = #stc_gpu.kernel_config<arch = sm_90a, family = wgmma, block_rows = 128, block_cols = 256, stages = 4, cluster_rows = 2>
// DENSE: remark: stc-configure-gpu-kernels: tuning database: exact hit for matmul 4096x4096x4096 f16->f16 none on sm_90a on NVIDIA H200: #stc_gpu.kernel_config<arch = sm_90a, family = staged, block_rows = 128, block_cols = 128, stages = 3, ordered_metadata = false, warp_rows = 64, warp_cols = 64> measured 420.0 us
// DENSE-LABEL: func.func @dense
// DENSE: linalg.matmul {{.*}}family = staged, block_rows = 128, block_cols = 128, stages = 3
func.func @dense(%a: tensor<4096x4096xf16>, %b: tensor<4096x4096xf16>) -> tensor<4096x4096xf16> {
  %zero = arith.constant 0.0 : f16
  %init = tensor.empty() : tensor<4096x4096xf16>
  %c0 = linalg.fill ins(%zero : f16) outs(%init : tensor<4096x4096xf16>) -> tensor<4096x4096xf16>
  %y = linalg.matmul ins(%a, %b : tensor<4096x4096xf16>, tensor<4096x4096xf16>) outs(%c0 : tensor<4096x4096xf16>) -> tensor<4096x4096xf16>
  return %y : tensor<4096x4096xf16>
}

// A convolution's key holds its geometry: the measured 64x128 tile wins
// over the heuristic's 64x64; no dense alternative is predicted.
// CHECK-LABEL: func.func @conv
// CHECK: stc.conv {{.*}}stc_gpu.kernel_config = #stc_gpu.kernel_config<arch = sm_90a, family = wgmma, block_rows = 64, block_cols = 128, stages = 6, pixel_tile_h = 8, pixel_tile_w = 16>
// NONE-LABEL: func.func @conv
// NONE: stc.conv {{.*}}block_rows = 64, block_cols = 64, stages = 6, pixel_tile_h = 8, pixel_tile_w = 8>
func.func @conv(%v: tensor<64x288xf16>, %m: tensor<64x36xi16>, %x: tensor<2x8x8x64xf16>) -> tensor<2x8x8x64xf16> {
  %y = stc.conv %v, %m, %x {pattern = #stc.nm<2:4>, filter_size = array<i64: 3, 3>, pad_low = array<i64: 1, 1>, pad_high = array<i64: 1, 1>}
      : tensor<64x288xf16>, tensor<64x36xi16>, tensor<2x8x8x64xf16> -> tensor<2x8x8x64xf16>
  return %y : tensor<2x8x8x64xf16>
}

// The same layer at batch 8, which the database measured at batch 2 only:
// that measurement (the tiles are per output tile; the batch multiplies
// them), said in the remark.
// CHECK-LABEL: func.func @conv_batch8
// CHECK: stc.conv {{.*}}stc_gpu.kernel_config = #stc_gpu.kernel_config<arch = sm_90a, family = wgmma, block_rows = 64, block_cols = 128, stages = 6, pixel_tile_h = 8, pixel_tile_w = 16>
func.func @conv_batch8(%v: tensor<64x288xf16>, %m: tensor<64x36xi16>, %x: tensor<8x8x8x64xf16>) -> tensor<8x8x8x64xf16> {
  %y = stc.conv %v, %m, %x {pattern = #stc.nm<2:4>, filter_size = array<i64: 3, 3>, pad_low = array<i64: 1, 1>, pad_high = array<i64: 1, 1>}
      : tensor<64x288xf16>, tensor<64x36xi16>, tensor<8x8x8x64xf16> -> tensor<8x8x8x64xf16>
  return %y : tensor<8x8x8x64xf16>
}

// With a bias as well: the entry without the epilogue, at batch 2, and the
// remark says both.
// CHECK-LABEL: func.func @conv_batch8_bias
// CHECK: stc.conv {{.*}}stc_gpu.kernel_config = #stc_gpu.kernel_config<arch = sm_90a, family = wgmma, block_rows = 64, block_cols = 128, stages = 6, pixel_tile_h = 8, pixel_tile_w = 16>
func.func @conv_batch8_bias(%v: tensor<64x288xf16>, %m: tensor<64x36xi16>, %x: tensor<8x8x8x64xf16>, %b: tensor<64xf16>) -> tensor<8x8x8x64xf16> {
  %y = stc.conv %v, %m, %x bias(%b : tensor<64xf16>) {pattern = #stc.nm<2:4>, filter_size = array<i64: 3, 3>, pad_low = array<i64: 1, 1>, pad_high = array<i64: 1, 1>}
      : tensor<64x288xf16>, tensor<64x36xi16>, tensor<8x8x8x64xf16> -> tensor<8x8x8x64xf16>
  return %y : tensor<8x8x8x64xf16>
}
