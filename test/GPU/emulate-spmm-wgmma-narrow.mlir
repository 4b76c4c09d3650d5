// The sm_90a kernel with 16 or 32 columns a block (--gpu-block-cols=16/32;
// decode-size products, where a 64-column B tile is mostly TMA's zero
// fill) and rings deeper than the heuristic's 6 slots (--gpu-wgmma-stages
// up to 12; a narrow step is 6-10 KiB), so that more of A is in flight:
// wgmma m64n16k32 / m64n32k32 (m64n16k64 / m64n32k64 for i8) on B tiles of
// 16 or 32 rows of 128 bytes. On the CPU through the emulator against the
// CPU path (--check): 16 and 24 tokens (two 16-column tiles, the second
// ragged), 64- to 256-row blocks, rings of 8 and 12 slots (wrapping), the
// metadata through the TMA ring, two K steps a slot, f16, bf16 and i8. A
// k-major dense operand (B stored MN-major in 64-column atoms) cannot take
// a narrow tile: an error.
// Mutation that fails it (tried when it was written): B's TMA box 32 rows
// high whatever the tile (it overruns a 16-row tile's region).
// REQUIRES: numpy
// RUN: stc-run %s --device=emulate --target=sm_90a --entry=rhs_f16_decode --random-inputs --seed=1 --check --gpu-block-cols=16 --gpu-block-rows=128 --gpu-wgmma-stages=12 2>&1 | FileCheck %s
// RUN: stc-run %s --device=emulate --target=sm_90a --entry=rhs_f16_decode --random-inputs --seed=2 --check --gpu-block-cols=32 --gpu-block-rows=64 --gpu-wgmma-stages=8 --gpu-meta-tma 2>&1 | FileCheck %s
// RUN: stc-run %s --device=emulate --target=sm_90a --entry=rhs_bf16_tokens24 --random-inputs --seed=3 --check --gpu-block-cols=16 --gpu-block-rows=256 --gpu-wgmma-stages=5 --gpu-stage-k-steps=2 2>&1 | FileCheck %s
// RUN: stc-run %s --device=emulate --target=sm_90a --entry=rhs_bf16_tokens24 --random-inputs --seed=4 --check --gpu-block-cols=32 --gpu-block-rows=128 --gpu-wgmma-stages=8 --gpu-meta-tma --gpu-stage-k-steps=2 2>&1 | FileCheck %s
// RUN: stc-run %s --device=emulate --target=sm_90a --entry=rhs_i8_decode --random-inputs --seed=5 --check --gpu-block-cols=16 --gpu-wgmma-stages=12 2>&1 | FileCheck %s
// RUN: stc-run %s --device=emulate --target=sm_90a --entry=rhs_i8_decode --random-inputs --seed=6 --check --gpu-block-cols=32 --gpu-block-rows=128 --gpu-meta-tma 2>&1 | FileCheck %s
// RUN: not stc-run %S/emulate-spmm-wgmma.mlir --device=emulate --target=sm_90a --entry=lhs_f16_kn --random-inputs --gpu-block-cols=16 2>&1 | FileCheck %s --check-prefix=KMAJOR
// CHECK: stc-run: device: emulate (sm_90a kernels on the CPU)
// CHECK: stc-run: check: result #0 relative error {{.*}}: PASS
// KMAJOR: error: {{.*}}block_cols = 16 needs a 2:4 GEMM whose dense operand has K contiguous, without multicast; got a k-major dense operand

// X (16 x 1024) . W (1024 x 200, pruned along K): 16 tokens, R = 200.
func.func @rhs_f16_decode(%x: tensor<16x1024xf16>, %w: tensor<1024x200xf16>) -> tensor<16x200xf32> {
  %p = stc.prune %w by #stc.nm<2:4> along 0 : tensor<1024x200xf16>
  %v, %m = stc.compress %p by #stc.nm<2:4> along 0 : tensor<1024x200xf16> -> tensor<200x512xf16>, tensor<200x64xi16>
  %y = stc.spmm %v, %m, %x {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>}
      : tensor<200x512xf16>, tensor<200x64xi16>, tensor<16x1024xf16> -> tensor<16x200xf32>
  return %y : tensor<16x200xf32>
}

// X (24 x 640) . W (640 x 136): 24 tokens (a 16-column tile and a ragged
// one), 10 K steps, bf16 result.
func.func @rhs_bf16_tokens24(%x: tensor<24x640xbf16>, %w: tensor<640x136xbf16>) -> tensor<24x136xbf16> {
  %p = stc.prune %w by #stc.nm<2:4> along 0 : tensor<640x136xbf16>
  %v, %m = stc.compress %p by #stc.nm<2:4> along 0 : tensor<640x136xbf16> -> tensor<136x320xbf16>, tensor<136x40xi16>
  %y = stc.spmm %v, %m, %x {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>}
      : tensor<136x320xbf16>, tensor<136x40xi16>, tensor<24x640xbf16> -> tensor<24x136xbf16>
  return %y : tensor<24x136xbf16>
}

// i8: X (16 x 1024) . W (1024 x 96): 8 K steps of 128, i32 result.
func.func @rhs_i8_decode(%x: tensor<16x1024xi8>, %w: tensor<1024x96xi8>) -> tensor<16x96xi32> {
  %p = stc.prune %w by #stc.nm<2:4> along 0 : tensor<1024x96xi8>
  %v, %m = stc.compress %p by #stc.nm<2:4> along 0 : tensor<1024x96xi8> -> tensor<96x512xi8>, tensor<96x64xi16>
  %y = stc.spmm %v, %m, %x {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>}
      : tensor<96x512xi8>, tensor<96x64xi16>, tensor<16x1024xi8> -> tensor<16x96xi32>
  return %y : tensor<16x96xi32>
}
