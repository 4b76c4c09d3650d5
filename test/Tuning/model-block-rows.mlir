// The cost model's choice (stc-configure-gpu-kernels with the committed
// H200 database, no exact entry for this key) never takes a block taller
// than the problem: R = 64 filters of a 56 x 56 pointwise convolution at
// batch 256 keep 64-row blocks, although the model predicts the 256 x 128
// class faster (its efficiency was learned on compute-bound GEMMs and the
// roofline here is the DRAM time, which does not see the three 64-row
// tiles of zero fill). On an H200 that 256 x 128 choice ran 2.1x slower
// than the mma.sp kernel (docs/HOPPER.md). Its one K step also gives it a
// ring of 2 slots.
// RUN: stc-compile %s --target=sm_90a --emit=ptx -o %t.ptx --remarks 2>&1 | FileCheck %s
// CHECK: remark: stc-configure-gpu-kernels: cost model (NVIDIA H200): #stc_gpu.kernel_config<arch = sm_90a, family = wgmma, block_rows = 64, block_cols = {{[0-9]+}}, stages = 2>
// CHECK-SAME: predicted best sparse {{.*}} (sparse wgmma 256x128

func.func @main(%x: tensor<256x56x56x64xf16>, %w: tensor<64x64xf16>, %b: tensor<64xf32>) -> tensor<256x56x56x64xf16> {
  %p = stc.prune %w by #stc.nm<2:4> along 1 : tensor<64x64xf16>
  %v, %m = stc.compress %p by #stc.nm<2:4> along 1 : tensor<64x64xf16> -> tensor<64x32xf16>, tensor<64x4xi16>
  %y = stc.conv %v, %m, %x bias(%b : tensor<64xf32>)
      {pattern = #stc.nm<2:4>, filter_size = array<i64: 1, 1>, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pad_low = array<i64: 0, 0>, pad_high = array<i64: 0, 0>, groups = 1}
      : tensor<64x32xf16>, tensor<64x4xi16>, tensor<256x56x56x64xf16> -> tensor<256x56x56x64xf16>
  return %y : tensor<256x56x56x64xf16>
}
