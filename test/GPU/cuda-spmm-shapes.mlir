// End to end on a CUDA GPU (lit feature `cuda`: `stc-run --list-devices`
// found an sm_80 or later device): stc-run --device=cuda %gpu_target compiles the
// kernels for that GPU, runs them on seeded random data and --check
// compares with the dense reference compiled for the CPU (tolerance 1e-2
// for f16/bf16 inputs, docs/DESIGN.md §7; NaN never passes). A grid of
// shapes M x N x K (square, large, ragged in every dimension, a single row,
// odd sizes past a tile), f16 and bf16, the sparse operand on either side
// (stc.prune on the weight W of X . W, or on the lhs A of A . B), f32
// results.
// REQUIRES: cuda
// RUN: stc-run %s --device=cuda %gpu_target --entry=rhs_f16_64x64x64 --random-inputs --seed=1 --check 2>&1 | FileCheck %s --implicit-check-not=FAIL
// RUN: stc-run %s --device=cuda %gpu_target --entry=lhs_f16_64x64x64 --random-inputs --seed=2 --check 2>&1 | FileCheck %s --implicit-check-not=FAIL
// RUN: stc-run %s --device=cuda %gpu_target --entry=rhs_f16_128x256x512 --random-inputs --seed=3 --check 2>&1 | FileCheck %s --implicit-check-not=FAIL
// RUN: stc-run %s --device=cuda %gpu_target --entry=lhs_f16_128x256x512 --random-inputs --seed=4 --check 2>&1 | FileCheck %s --implicit-check-not=FAIL
// RUN: stc-run %s --device=cuda %gpu_target --entry=rhs_f16_100x72x200 --random-inputs --seed=5 --check 2>&1 | FileCheck %s --implicit-check-not=FAIL
// RUN: stc-run %s --device=cuda %gpu_target --entry=lhs_f16_100x72x200 --random-inputs --seed=6 --check 2>&1 | FileCheck %s --implicit-check-not=FAIL
// RUN: stc-run %s --device=cuda %gpu_target --entry=rhs_f16_1x8x16 --random-inputs --seed=7 --check 2>&1 | FileCheck %s --implicit-check-not=FAIL
// RUN: stc-run %s --device=cuda %gpu_target --entry=lhs_f16_1x8x16 --random-inputs --seed=8 --check 2>&1 | FileCheck %s --implicit-check-not=FAIL
// RUN: stc-run %s --device=cuda %gpu_target --entry=rhs_f16_257x129x48 --random-inputs --seed=9 --check 2>&1 | FileCheck %s --implicit-check-not=FAIL
// RUN: stc-run %s --device=cuda %gpu_target --entry=lhs_f16_257x129x48 --random-inputs --seed=10 --check 2>&1 | FileCheck %s --implicit-check-not=FAIL
// RUN: stc-run %s --device=cuda %gpu_target --entry=rhs_bf16_64x64x64 --random-inputs --seed=11 --check 2>&1 | FileCheck %s --implicit-check-not=FAIL
// RUN: stc-run %s --device=cuda %gpu_target --entry=lhs_bf16_64x64x64 --random-inputs --seed=12 --check 2>&1 | FileCheck %s --implicit-check-not=FAIL
// RUN: stc-run %s --device=cuda %gpu_target --entry=rhs_bf16_128x256x512 --random-inputs --seed=13 --check 2>&1 | FileCheck %s --implicit-check-not=FAIL
// RUN: stc-run %s --device=cuda %gpu_target --entry=lhs_bf16_128x256x512 --random-inputs --seed=14 --check 2>&1 | FileCheck %s --implicit-check-not=FAIL
// RUN: stc-run %s --device=cuda %gpu_target --entry=rhs_bf16_100x72x200 --random-inputs --seed=15 --check 2>&1 | FileCheck %s --implicit-check-not=FAIL
// RUN: stc-run %s --device=cuda %gpu_target --entry=lhs_bf16_100x72x200 --random-inputs --seed=16 --check 2>&1 | FileCheck %s --implicit-check-not=FAIL
// RUN: stc-run %s --device=cuda %gpu_target --entry=rhs_bf16_1x8x16 --random-inputs --seed=17 --check 2>&1 | FileCheck %s --implicit-check-not=FAIL
// RUN: stc-run %s --device=cuda %gpu_target --entry=lhs_bf16_1x8x16 --random-inputs --seed=18 --check 2>&1 | FileCheck %s --implicit-check-not=FAIL
// RUN: stc-run %s --device=cuda %gpu_target --entry=rhs_bf16_257x129x48 --random-inputs --seed=19 --check 2>&1 | FileCheck %s --implicit-check-not=FAIL
// RUN: stc-run %s --device=cuda %gpu_target --entry=lhs_bf16_257x129x48 --random-inputs --seed=20 --check 2>&1 | FileCheck %s --implicit-check-not=FAIL
// CHECK: stc-run: device: cuda ({{.*}}, sm_{{[0-9]+}}
// CHECK: stc-run: check: result #0 relative error {{.*}} (tolerance 1e-02): PASS

func.func @rhs_f16_64x64x64(%x: tensor<64x64xf16>, %w: tensor<64x64xf16>) -> tensor<64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %wp = stc.prune %w by #stc.nm<2:4> along 0 : tensor<64x64xf16>
  %r = linalg.matmul ins(%x, %wp : tensor<64x64xf16>, tensor<64x64xf16>)
                     outs(%z : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

func.func @lhs_f16_64x64x64(%a: tensor<64x64xf16>, %b: tensor<64x64xf16>) -> tensor<64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %ap = stc.prune %a by #stc.nm<2:4> along 1 : tensor<64x64xf16>
  %r = linalg.matmul ins(%ap, %b : tensor<64x64xf16>, tensor<64x64xf16>)
                     outs(%z : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

func.func @rhs_f16_128x256x512(%x: tensor<128x512xf16>, %w: tensor<512x256xf16>) -> tensor<128x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x256xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<128x256xf32>) -> tensor<128x256xf32>
  %wp = stc.prune %w by #stc.nm<2:4> along 0 : tensor<512x256xf16>
  %r = linalg.matmul ins(%x, %wp : tensor<128x512xf16>, tensor<512x256xf16>)
                     outs(%z : tensor<128x256xf32>) -> tensor<128x256xf32>
  return %r : tensor<128x256xf32>
}

func.func @lhs_f16_128x256x512(%a: tensor<128x512xf16>, %b: tensor<512x256xf16>) -> tensor<128x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x256xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<128x256xf32>) -> tensor<128x256xf32>
  %ap = stc.prune %a by #stc.nm<2:4> along 1 : tensor<128x512xf16>
  %r = linalg.matmul ins(%ap, %b : tensor<128x512xf16>, tensor<512x256xf16>)
                     outs(%z : tensor<128x256xf32>) -> tensor<128x256xf32>
  return %r : tensor<128x256xf32>
}

func.func @rhs_f16_100x72x200(%x: tensor<100x200xf16>, %w: tensor<200x72xf16>) -> tensor<100x72xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<100x72xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<100x72xf32>) -> tensor<100x72xf32>
  %wp = stc.prune %w by #stc.nm<2:4> along 0 : tensor<200x72xf16>
  %r = linalg.matmul ins(%x, %wp : tensor<100x200xf16>, tensor<200x72xf16>)
                     outs(%z : tensor<100x72xf32>) -> tensor<100x72xf32>
  return %r : tensor<100x72xf32>
}

func.func @lhs_f16_100x72x200(%a: tensor<100x200xf16>, %b: tensor<200x72xf16>) -> tensor<100x72xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<100x72xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<100x72xf32>) -> tensor<100x72xf32>
  %ap = stc.prune %a by #stc.nm<2:4> along 1 : tensor<100x200xf16>
  %r = linalg.matmul ins(%ap, %b : tensor<100x200xf16>, tensor<200x72xf16>)
                     outs(%z : tensor<100x72xf32>) -> tensor<100x72xf32>
  return %r : tensor<100x72xf32>
}

func.func @rhs_f16_1x8x16(%x: tensor<1x16xf16>, %w: tensor<16x8xf16>) -> tensor<1x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8xf32>) -> tensor<1x8xf32>
  %wp = stc.prune %w by #stc.nm<2:4> along 0 : tensor<16x8xf16>
  %r = linalg.matmul ins(%x, %wp : tensor<1x16xf16>, tensor<16x8xf16>)
                     outs(%z : tensor<1x8xf32>) -> tensor<1x8xf32>
  return %r : tensor<1x8xf32>
}

func.func @lhs_f16_1x8x16(%a: tensor<1x16xf16>, %b: tensor<16x8xf16>) -> tensor<1x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8xf32>) -> tensor<1x8xf32>
  %ap = stc.prune %a by #stc.nm<2:4> along 1 : tensor<1x16xf16>
  %r = linalg.matmul ins(%ap, %b : tensor<1x16xf16>, tensor<16x8xf16>)
                     outs(%z : tensor<1x8xf32>) -> tensor<1x8xf32>
  return %r : tensor<1x8xf32>
}

func.func @rhs_f16_257x129x48(%x: tensor<257x48xf16>, %w: tensor<48x129xf16>) -> tensor<257x129xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<257x129xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<257x129xf32>) -> tensor<257x129xf32>
  %wp = stc.prune %w by #stc.nm<2:4> along 0 : tensor<48x129xf16>
  %r = linalg.matmul ins(%x, %wp : tensor<257x48xf16>, tensor<48x129xf16>)
                     outs(%z : tensor<257x129xf32>) -> tensor<257x129xf32>
  return %r : tensor<257x129xf32>
}

func.func @lhs_f16_257x129x48(%a: tensor<257x48xf16>, %b: tensor<48x129xf16>) -> tensor<257x129xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<257x129xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<257x129xf32>) -> tensor<257x129xf32>
  %ap = stc.prune %a by #stc.nm<2:4> along 1 : tensor<257x48xf16>
  %r = linalg.matmul ins(%ap, %b : tensor<257x48xf16>, tensor<48x129xf16>)
                     outs(%z : tensor<257x129xf32>) -> tensor<257x129xf32>
  return %r : tensor<257x129xf32>
}

func.func @rhs_bf16_64x64x64(%x: tensor<64x64xbf16>, %w: tensor<64x64xbf16>) -> tensor<64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %wp = stc.prune %w by #stc.nm<2:4> along 0 : tensor<64x64xbf16>
  %r = linalg.matmul ins(%x, %wp : tensor<64x64xbf16>, tensor<64x64xbf16>)
                     outs(%z : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

func.func @lhs_bf16_64x64x64(%a: tensor<64x64xbf16>, %b: tensor<64x64xbf16>) -> tensor<64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %ap = stc.prune %a by #stc.nm<2:4> along 1 : tensor<64x64xbf16>
  %r = linalg.matmul ins(%ap, %b : tensor<64x64xbf16>, tensor<64x64xbf16>)
                     outs(%z : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

func.func @rhs_bf16_128x256x512(%x: tensor<128x512xbf16>, %w: tensor<512x256xbf16>) -> tensor<128x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x256xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<128x256xf32>) -> tensor<128x256xf32>
  %wp = stc.prune %w by #stc.nm<2:4> along 0 : tensor<512x256xbf16>
  %r = linalg.matmul ins(%x, %wp : tensor<128x512xbf16>, tensor<512x256xbf16>)
                     outs(%z : tensor<128x256xf32>) -> tensor<128x256xf32>
  return %r : tensor<128x256xf32>
}

func.func @lhs_bf16_128x256x512(%a: tensor<128x512xbf16>, %b: tensor<512x256xbf16>) -> tensor<128x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x256xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<128x256xf32>) -> tensor<128x256xf32>
  %ap = stc.prune %a by #stc.nm<2:4> along 1 : tensor<128x512xbf16>
  %r = linalg.matmul ins(%ap, %b : tensor<128x512xbf16>, tensor<512x256xbf16>)
                     outs(%z : tensor<128x256xf32>) -> tensor<128x256xf32>
  return %r : tensor<128x256xf32>
}

func.func @rhs_bf16_100x72x200(%x: tensor<100x200xbf16>, %w: tensor<200x72xbf16>) -> tensor<100x72xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<100x72xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<100x72xf32>) -> tensor<100x72xf32>
  %wp = stc.prune %w by #stc.nm<2:4> along 0 : tensor<200x72xbf16>
  %r = linalg.matmul ins(%x, %wp : tensor<100x200xbf16>, tensor<200x72xbf16>)
                     outs(%z : tensor<100x72xf32>) -> tensor<100x72xf32>
  return %r : tensor<100x72xf32>
}

func.func @lhs_bf16_100x72x200(%a: tensor<100x200xbf16>, %b: tensor<200x72xbf16>) -> tensor<100x72xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<100x72xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<100x72xf32>) -> tensor<100x72xf32>
  %ap = stc.prune %a by #stc.nm<2:4> along 1 : tensor<100x200xbf16>
  %r = linalg.matmul ins(%ap, %b : tensor<100x200xbf16>, tensor<200x72xbf16>)
                     outs(%z : tensor<100x72xf32>) -> tensor<100x72xf32>
  return %r : tensor<100x72xf32>
}

func.func @rhs_bf16_1x8x16(%x: tensor<1x16xbf16>, %w: tensor<16x8xbf16>) -> tensor<1x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8xf32>) -> tensor<1x8xf32>
  %wp = stc.prune %w by #stc.nm<2:4> along 0 : tensor<16x8xbf16>
  %r = linalg.matmul ins(%x, %wp : tensor<1x16xbf16>, tensor<16x8xbf16>)
                     outs(%z : tensor<1x8xf32>) -> tensor<1x8xf32>
  return %r : tensor<1x8xf32>
}

func.func @lhs_bf16_1x8x16(%a: tensor<1x16xbf16>, %b: tensor<16x8xbf16>) -> tensor<1x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8xf32>) -> tensor<1x8xf32>
  %ap = stc.prune %a by #stc.nm<2:4> along 1 : tensor<1x16xbf16>
  %r = linalg.matmul ins(%ap, %b : tensor<1x16xbf16>, tensor<16x8xbf16>)
                     outs(%z : tensor<1x8xf32>) -> tensor<1x8xf32>
  return %r : tensor<1x8xf32>
}

func.func @rhs_bf16_257x129x48(%x: tensor<257x48xbf16>, %w: tensor<48x129xbf16>) -> tensor<257x129xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<257x129xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<257x129xf32>) -> tensor<257x129xf32>
  %wp = stc.prune %w by #stc.nm<2:4> along 0 : tensor<48x129xbf16>
  %r = linalg.matmul ins(%x, %wp : tensor<257x48xbf16>, tensor<48x129xbf16>)
                     outs(%z : tensor<257x129xf32>) -> tensor<257x129xf32>
  return %r : tensor<257x129xf32>
}

func.func @lhs_bf16_257x129x48(%a: tensor<257x48xbf16>, %b: tensor<48x129xbf16>) -> tensor<257x129xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<257x129xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<257x129xf32>) -> tensor<257x129xf32>
  %ap = stc.prune %a by #stc.nm<2:4> along 1 : tensor<257x48xbf16>
  %r = linalg.matmul ins(%ap, %b : tensor<257x48xbf16>, tensor<48x129xbf16>)
                     outs(%z : tensor<257x129xf32>) -> tensor<257x129xf32>
  return %r : tensor<257x129xf32>
}
