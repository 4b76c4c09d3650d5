// stc-sparsify-contractions and the pruning options: under sparsity=force
// the stc.prune it adds uses prune-method and carries permute_channels when
// permute-channels is set; an explicit stc.prune keeps its own method and
// request whatever the options say.
// RUN: stc-opt %s --pass-pipeline='builtin.module(stc-sparsify-contractions{sparsity=force})' 2>/dev/null | FileCheck %s --check-prefix=STRIP
// RUN: stc-opt %s --pass-pipeline='builtin.module(stc-sparsify-contractions{sparsity=force prune-method=tile permute-channels=true})' 2>/dev/null | FileCheck %s --check-prefix=TILE

// STRIP-LABEL: func.func @force
// STRIP: stc.prune %{{.*}} by #stc.nm<2:4> along 0 : tensor<32x16xf32>
// TILE-LABEL: func.func @force
// TILE: stc.prune %{{.*}} by #stc.nm<2:4> along 0 method tile permute_channels : tensor<32x16xf32>
func.func @force(%x: tensor<8x32xf32>, %w: tensor<32x16xf32>) -> tensor<8x16xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %y = linalg.matmul ins(%x, %w : tensor<8x32xf32>, tensor<32x16xf32>) outs(%z : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// The explicit prune (through a transpose, torch's nn.Linear layout) is
// re-created on the stored weight with its own attributes (the original,
// now dead, stays until the canonicalizer).
// STRIP-LABEL: func.func @explicit
// STRIP: linalg.fill
// STRIP: %[[P:.*]] = stc.prune %{{.*}} by #stc.nm<2:4> along 1 permute_channels : tensor<16x32xf32>
// STRIP: stc.compress %[[P]] by #stc.nm<2:4> along 1
// TILE-LABEL: func.func @explicit
// TILE: linalg.fill
// TILE: %[[P:.*]] = stc.prune %{{.*}} by #stc.nm<2:4> along 1 permute_channels : tensor<16x32xf32>
// TILE: stc.compress %[[P]] by #stc.nm<2:4> along 1
func.func @explicit(%x: tensor<8x32xf32>, %w: tensor<16x32xf32>) -> tensor<8x16xf32> {
  %p = stc.prune %w by #stc.nm<2:4> along 1 permute_channels : tensor<16x32xf32>
  %te = tensor.empty() : tensor<32x16xf32>
  %wt = linalg.transpose ins(%p : tensor<16x32xf32>) outs(%te : tensor<32x16xf32>) permutation = [1, 0]
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %y = linalg.matmul ins(%x, %wt : tensor<8x32xf32>, tensor<32x16xf32>) outs(%z : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// STRIP-LABEL: func.func @explicit_tile
// STRIP: stc.prune %{{.*}} by #stc.nm<2:4> along 0 method tile : tensor<32x16xf32>
// TILE-LABEL: func.func @explicit_tile
// TILE: stc.prune %{{.*}} by #stc.nm<2:4> along 0 method tile : tensor<32x16xf32>
func.func @explicit_tile(%x: tensor<8x32xf32>, %w: tensor<32x16xf32>) -> tensor<8x16xf32> {
  %p = stc.prune %w by #stc.nm<2:4> along 0 method tile : tensor<32x16xf32>
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %y = linalg.matmul ins(%x, %p : tensor<8x32xf32>, tensor<32x16xf32>) outs(%z : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}
