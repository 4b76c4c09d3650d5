// stc-lower-spmm-to-cpu: the structure of the CPU microkernel (packing,
// metadata decode at run time or at compile time, the blocked loop nest with
// mr x nv vector.fma per stored value, the element-wise epilogue), the
// reference lowering, and the tiling option checks.
// RUN: stc-opt %s --pass-pipeline='builtin.module(stc-lower-spmm-to-cpu)' | FileCheck %s
// RUN: stc-opt %s --pass-pipeline='builtin.module(stc-lower-spmm-to-cpu{mr=2 nv=3})' | FileCheck %s --check-prefix=TILE
// RUN: stc-opt %s --pass-pipeline='builtin.module(stc-lower-spmm-to-cpu{reference=true})' | FileCheck %s --check-prefix=REF
// RUN: not stc-opt %s --pass-pipeline='builtin.module(stc-lower-spmm-to-cpu{mr=8 nv=8})' 2>&1 | FileCheck %s --check-prefix=ERR-MRNV
// RUN: not stc-opt %s --pass-pipeline='builtin.module(stc-lower-spmm-to-cpu{kc=24})' 2>&1 | FileCheck %s --check-prefix=ERR-KC
// RUN: not stc-opt %s --pass-pipeline='builtin.module(stc-lower-spmm-to-cpu{mr=4 mc=2})' 2>&1 | FileCheck %s --check-prefix=ERR-KC

// ERR-MRNV: error: stc-lower-spmm-to-cpu: mr * nv must be in [1, 32] (vector registers), got mr=8 nv=8
// ERR-KC: error: stc-lower-spmm-to-cpu: kc must be a positive multiple of 16 and mc >= mr, got

// CHECK-DAG: #[[$MAPT:.*]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-DAG: #[[$COL:.*]] = affine_map<(d0, d1) -> (d1)>

// X (8 x 32, f32) . W with W sparse (16 compressed rows), bias and ReLU.
// The metadata is an argument, so it is decoded at run time; the kernel
// computes the transposed product (16 x 8) and the epilogue transposes it
// back, adds the per-column bias and applies max(x, 0).
// CHECK-LABEL: func.func @rhs_f32_runtime_meta
// CHECK-SAME: (%[[V:[^:]*]]: tensor<16x16xf32>, %[[M:[^:]*]]: tensor<16x2xi16>, %[[X:[^:]*]]: tensor<8x32xf32>, %[[B:[^:]*]]: tensor<16xf32>)
// CHECK-NOT: stc.spmm
// Metadata decode: word g / 4 of the row, field (g % 4) * 4 + (j % 2) * 2.
// CHECK: %[[IDX:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<16x16xi32>)
// CHECK: tensor.extract %[[M]]
// CHECK: arith.extui %{{.*}} : i16 to i32
// CHECK: arith.shrui
// CHECK: arith.andi
// CHECK: linalg.yield
// The dense M x K operand is packed transposed to K x M.
// CHECK: linalg.generic {indexing_maps = [#[[$MAPT]], #{{.*}}], {{.*}} ins(%[[X]] : tensor<8x32xf32>) outs(%{{.*}} : tensor<32x8xf32>)
// Loop nest: reduction block, row block, column panel, register tile, values.
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.for
// CHECK-COUNT-16: vector.transfer_read {{.*}} : tensor<{{[0-9?x]+}}xf32>, vector<16xf32>
// CHECK: scf.for {{.*}} -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>) {
// CHECK: %[[K:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK: %[[S:.*]] = vector.broadcast %{{.*}} : f32 to vector<16xf32>
// CHECK: %[[D:.*]] = vector.transfer_read %{{.*}}[%{{.*}}, %[[K]], %{{.*}}], %{{.*}} {in_bounds = [true]} : tensor<{{[0-9?x]+}}x32xf32>, vector<16xf32>
// CHECK: vector.fma %[[S]], %[[D]], %{{.*}} : vector<16xf32>
// CHECK-COUNT-15: vector.fma {{.*}} : vector<16xf32>
// CHECK-NOT: vector.fma
// CHECK: scf.yield {{.*}} : vector<16xf32>, vector<16xf32>
// CHECK-COUNT-16: vector.transfer_write
// CHECK: %[[P:.*]] = tensor.extract_slice %{{.*}}[0, 0] [16, 8] [1, 1] : tensor<{{[0-9?x]+}}xf32> to tensor<16x8xf32>
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[$MAPT]], #[[$COL]], #{{.*}}], iterator_types = ["parallel", "parallel"]} ins(%[[P]], %[[B]] : tensor<16x8xf32>, tensor<16xf32>) outs(%{{.*}} : tensor<8x16xf32>)
// CHECK: %[[SUM:.*]] = arith.addf
// CHECK: arith.maximumf %[[SUM]], %{{.*}} : f32
// CHECK: return %[[R]]
// TILE-LABEL: func.func @rhs_f32_runtime_meta
// TILE: scf.for {{.*}} -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>) {
// TILE-COUNT-6: vector.fma
// TILE-NOT: vector.fma
// TILE: return
// REF-LABEL: func.func @rhs_f32_runtime_meta
// REF-SAME: (%[[V:[^:]*]]: tensor<16x16xf32>, %[[M:[^:]*]]: tensor<16x2xi16>, %[[X:[^:]*]]: tensor<8x32xf32>, %[[B:[^:]*]]: tensor<16xf32>)
// REF: %[[W:.*]] = stc.decompress %[[V]], %[[M]] by #stc.nm<2:4> along 0 : tensor<16x16xf32>, tensor<16x2xi16> -> tensor<32x16xf32>
// REF: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]{{.*}} ins(%[[X]], %[[W]] : tensor<8x32xf32>, tensor<32x16xf32>)
// REF-NOT: vector.fma
// REF: arith.maximumf
// REF: return
func.func @rhs_f32_runtime_meta(%v: tensor<16x16xf32>, %m: tensor<16x2xi16>, %x: tensor<8x32xf32>, %b: tensor<16xf32>) -> tensor<8x16xf32> {
  %y = stc.spmm %v, %m, %x bias(%b : tensor<16xf32>)
      {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>, activation = #stc.activation<relu>}
      : tensor<16x16xf32>, tensor<16x2xi16>, tensor<8x32xf32> -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// A sparse f16 lhs with constant metadata: nibbles 0x4 0x8 0xC 0x9 (word
// -25468) decode at compile time to columns 0,1 4,6 8,11 13,14; the f16
// operands are widened to f32 and the f32 result is truncated to f16.
// CHECK-LABEL: func.func @lhs_f16_constant_meta
// CHECK-SAME: (%[[V:[^:]*]]: tensor<1x8xf16>, %[[D:[^:]*]]: tensor<16x4xf16>)
// CHECK-NOT: arith.shrui
// CHECK: %[[IDX:.*]] = arith.constant dense<{{\[}}[0, 1, 4, 6, 8, 11, 13, 14]]> : tensor<1x8xi32>
// CHECK-NOT: arith.shrui
// CHECK: linalg.generic {{.*}} ins(%[[V]] : tensor<1x8xf16>)
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: linalg.generic {{.*}} ins(%[[IDX]] : tensor<1x8xi32>)
// CHECK: linalg.generic {{.*}} ins(%[[D]] : tensor<16x4xf16>) outs(%{{.*}} : tensor<16x4xf32>)
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: scf.for
// CHECK-COUNT-16: vector.fma {{.*}} : vector<16xf32>
// CHECK-NOT: vector.fma
// CHECK: %[[P:.*]] = tensor.extract_slice %{{.*}}[0, 0] [1, 4] [1, 1] : tensor<{{[0-9?x]+}}xf32> to tensor<1x4xf32>
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[P]] : tensor<1x4xf32>) outs(%{{.*}} : tensor<1x4xf16>)
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: return %[[R]]
// TILE-LABEL: func.func @lhs_f16_constant_meta
// TILE-COUNT-6: vector.fma
// TILE-NOT: vector.fma
// TILE: return
// REF-LABEL: func.func @lhs_f16_constant_meta
// REF-SAME: (%[[V:[^:]*]]: tensor<1x8xf16>, %[[D:[^:]*]]: tensor<16x4xf16>)
// REF: %[[M:.*]] = arith.constant dense<-25468> : tensor<1x1xi16>
// REF: %[[A:.*]] = stc.decompress %[[V]], %[[M]] by #stc.nm<2:4> along 1 : tensor<1x8xf16>, tensor<1x1xi16> -> tensor<1x16xf16>
// REF: linalg.generic {{.*}} ins(%[[A]], %[[D]] : tensor<1x16xf16>, tensor<16x4xf16>) outs(%{{.*}} : tensor<1x4xf32>)
// REF: arith.truncf %{{.*}} : f32 to f16
func.func @lhs_f16_constant_meta(%v: tensor<1x8xf16>, %d: tensor<16x4xf16>) -> tensor<1x4xf16> {
  %m = arith.constant dense<[[-25468]]> : tensor<1x1xi16>
  %y = stc.spmm %v, %m, %d {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>}
      : tensor<1x8xf16>, tensor<1x1xi16>, tensor<16x4xf16> -> tensor<1x4xf16>
  return %y : tensor<1x4xf16>
}

// Constant values and metadata (a folded constant weight): the kernel-ready
// tiles (Rp/mr x J x mr, f32 values and i32 columns) are built at compile
// time; padded rows 1..7 of the tile hold value 0 at column 0.
// CHECK-LABEL: func.func @constant_weight_tiles
// CHECK-NOT: arith.shrui
// CHECK-DAG: arith.constant dense<{{\[\[\[}}1.000000e+00, 0.000000e+00, {{.*}}]]]> : tensor<1x8x8xf32>
// CHECK-DAG: arith.constant dense<{{\[\[\[}}0, 0, 0, 0, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0, 0, 0], [4, 0, {{.*}}]]]> : tensor<1x8x8xi32>
// CHECK: vector.fma
// TILE-LABEL: func.func @constant_weight_tiles
// TILE: arith.constant {{.*}} : tensor<1x8x2xf32>
// REF-LABEL: func.func @constant_weight_tiles
// REF: stc.decompress
func.func @constant_weight_tiles(%d: tensor<16x4xf32>) -> tensor<1x4xf32> {
  %v = arith.constant dense<[[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]]> : tensor<1x8xf32>
  %m = arith.constant dense<[[-25468]]> : tensor<1x1xi16>
  %y = stc.spmm %v, %m, %d {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>}
      : tensor<1x8xf32>, tensor<1x1xi16>, tensor<16x4xf32> -> tensor<1x4xf32>
  return %y : tensor<1x4xf32>
}

// alpha, beta and acc in the epilogue: alpha * prod + beta * acc.
// CHECK-LABEL: func.func @alpha_beta_acc
// CHECK-SAME: %[[C:[^:]*]]: tensor<8x16xf32>)
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[C]] : tensor<16x8xf32>, tensor<8x16xf32>)
// CHECK: %[[ALPHA:.*]] = arith.constant 2.000000e+00 : f32
// CHECK: %[[SCALED:.*]] = arith.mulf %{{.*}}, %[[ALPHA]] : f32
// CHECK: %[[BETA:.*]] = arith.constant 5.000000e-01 : f32
// CHECK: %[[ACC:.*]] = arith.mulf %{{.*}}, %[[BETA]] : f32
// CHECK: arith.addf %[[SCALED]], %[[ACC]] : f32
func.func @alpha_beta_acc(%v: tensor<16x16xf32>, %m: tensor<16x2xi16>, %x: tensor<8x32xf32>, %c: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %y = stc.spmm %v, %m, %x acc(%c : tensor<8x16xf32>)
      {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>, alpha = 2.0 : f64, beta = 0.5 : f64}
      : tensor<16x16xf32>, tensor<16x2xi16>, tensor<8x32xf32> -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}
