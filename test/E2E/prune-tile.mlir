// Transposable 2:4 tile pruning end to end: in every 4x4 tile (4 rows of
// the non-reduction dimension x 4 along K) two elements per row and two per
// column are kept, the choice of largest magnitude (the first of the 90
// masks on ties), against the brute force of stc_ref.prune_tile. A weight
// that is a function argument is pruned at run time (--sparsity=force
// --prune-method=tile: @arg_* in f32, f16, bf16, and @bt_f32 in nn.Linear's
// N x K layout, pruned along its dimension 1), a constant weight at compile
// time (@const_f32, 38 x 22: both dimensions ragged; no stc.prune is left,
// checked with --emit=stc), and an explicit `stc.prune ... method tile`
// needs no option (@explicit_*). Plain strip pruning must give another
// answer (the runner checks that the case can tell them apart).
// REQUIRES: numpy
// RUN: stc-compile %s --sparsity=force --prune-method=tile --emit=stc -o - 2>/dev/null | FileCheck %s
// RUN: %e2e --mlir %s --case tile_arg_f32_16_64_32
// RUN: %e2e --mlir %s --case tile_arg_f32_5_30_18 --seed 3
// RUN: %e2e --mlir %s --case tile_arg_f16_9_40_13
// RUN: %e2e --mlir %s --case tile_arg_bf16_8_32_24 --seed 1
// RUN: %e2e --mlir %s --case tile_bt_f32_7_36_10
// RUN: %e2e --mlir %s --case tile_explicit_f32_12_48_20
// RUN: %e2e --mlir %s --case tile_explicit_bt_bf16_4_20_9
// RUN: %e2e --mlir %s --case tile_const_f32_1
// RUN: %e2e --mlir %s --case tile_const_f32_33

// The constant weight is tile-pruned and compressed at compile time; the
// arguments are pruned at run time with the tile method.
// CHECK-LABEL: func.func @arg_f32
// CHECK: stc.prune %{{.*}} by #stc.nm<2:4> along 0 method tile : tensor<?x?xf32>
// CHECK-LABEL: func.func @bt_f32
// CHECK: stc.prune %{{.*}} by #stc.nm<2:4> along 1 method tile : tensor<?x?xf32>
// CHECK-LABEL: func.func @const_f32
// CHECK-NOT: stc.prune
// CHECK-NOT: stc.compress
// CHECK: stc.spmm
// CHECK: return


func.func @arg_f32(%x: tensor<?x?xf32>, %w: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %n = tensor.dim %w, %c1 : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = linalg.matmul ins(%x, %w : tensor<?x?xf32>, tensor<?x?xf32>)
                     outs(%z : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

func.func @arg_f16(%x: tensor<?x?xf16>, %w: tensor<?x?xf16>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %x, %c0 : tensor<?x?xf16>
  %n = tensor.dim %w, %c1 : tensor<?x?xf16>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = linalg.matmul ins(%x, %w : tensor<?x?xf16>, tensor<?x?xf16>)
                     outs(%z : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

func.func @arg_bf16(%x: tensor<?x?xbf16>, %w: tensor<?x?xbf16>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %x, %c0 : tensor<?x?xbf16>
  %n = tensor.dim %w, %c1 : tensor<?x?xbf16>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = linalg.matmul ins(%x, %w : tensor<?x?xbf16>, tensor<?x?xbf16>)
                     outs(%z : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

func.func @bt_f32(%x: tensor<?x?xf32>, %w: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %n = tensor.dim %w, %c0 : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = linalg.matmul
      indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                       affine_map<(m, n, k) -> (n, k)>,
                       affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %w : tensor<?x?xf32>, tensor<?x?xf32>)
                     outs(%z : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

func.func @const_f32(%x: tensor<?x38xf32>) -> tensor<?x22xf32> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x38xf32>
  %tile_rhs = arith.constant dense<[[2.0, -1.625, 0.25, -1.375, 1.25, 1.5, -0.125, 1.375, 1.625, 0.875, -2.0, 0.375, 1.375, 1.75, 1.125, -2.0, 1.625, -1.5, 0.25, 1.875, 1.375, -0.875],
      [-1.125, -1.25, 1.0, 0.75, 1.875, -1.0, -1.25, -1.75, -0.125, 0.375, -0.25, -1.875, 0.625, -0.375, -1.375, -1.875, 2.0, 0.625, 1.125, -0.75, 1.5, -2.0],
      [-0.5, 1.875, -1.375, 0.375, 1.125, 0.5, 0.75, 0.375, -0.875, 1.0, -1.25, -0.625, -1.875, -0.125, 0.75, -0.5, -0.5, 0.25, 0.75, -1.125, -1.125, -1.25],
      [-1.875, 0.125, 2.0, -0.875, 1.375, 1.125, 2.0, -0.5, 1.25, -1.375, 0.375, 1.5, 0.375, -1.625, -1.0, -0.625, -0.875, 0.75, -1.5, 0.5, 0.125, -1.125],
      [-0.375, 0.5, -0.875, 0.25, 0.375, 0.5, -0.875, 1.875, 1.0, -1.25, 1.5, 1.125, 1.875, 0.5, 0.875, -0.5, 1.125, -0.375, 1.0, -0.25, 0.375, 1.125],
      [-2.0, -0.125, 0.125, 0.75, 0.75, -0.875, 1.75, 0.375, -1.5, 1.75, 0.875, -0.875, -0.375, 0.625, 0.25, 1.625, -1.75, -0.5, -0.375, -0.875, -0.75, 1.75],
      [-1.25, -1.75, -1.75, -0.625, -1.625, -1.875, -2.0, -1.75, 0.5, -0.375, 0.5, -0.625, -0.25, 0.75, -0.75, 1.5, -0.125, -1.125, 0.5, -2.0, 1.375, -1.375],
      [1.75, -1.875, -1.875, 1.625, 0.625, 1.75, 0.75, 2.0, 0.25, -1.375, 0.25, -1.5, -0.75, -1.125, 1.75, -0.75, -1.875, -0.875, -1.625, 1.0, -1.75, 1.625],
      [-0.5, -1.625, 0.25, -0.125, 1.625, -1.375, -1.25, 0.375, 0.5, -1.5, 0.125, 0.625, -1.875, -1.125, 0.25, -1.5, -1.375, -1.375, -0.875, -1.875, 1.25, 0.25],
      [-1.375, -1.375, -1.375, -0.5, -0.125, -1.75, -1.75, -1.25, 1.75, -0.125, -1.5, -0.25, -2.0, 0.375, -1.5, -0.25, -1.75, -0.625, -0.125, 1.375, -0.875, -0.375],
      [2.0, -0.25, -1.125, -0.375, -1.25, 2.0, -0.5, -0.5, -1.5, -0.875, 1.25, -0.875, -1.125, 0.625, 0.875, 1.75, 1.875, 0.125, -0.375, -0.125, -0.75, 0.875],
      [1.5, 1.125, 1.0, -1.75, -2.0, -1.25, -1.0, -1.625, 0.125, 1.0, -0.375, 1.125, -1.375, 2.0, 1.625, 1.625, -1.5, -1.0, 0.75, -1.25, 1.0, 0.125],
      [0.75, 1.625, -0.375, -0.625, 1.875, 1.5, -0.625, 1.375, -0.375, 0.125, -0.375, -1.5, -1.125, -0.625, -1.875, 1.25, -0.875, -0.375, -0.875, 0.875, -1.375, -1.125],
      [0.125, -0.5, 0.875, 2.0, -0.125, 1.75, -0.125, -0.875, -0.125, -1.0, -0.125, -1.0, -0.875, 2.0, -1.5, 0.625, 1.25, -0.25, 1.875, 1.75, -0.875, -1.875],
      [-0.875, 0.25, -1.0, 1.25, -0.75, 0.125, 1.875, -1.75, 0.875, -0.875, 0.75, -0.75, -2.0, -1.0, -1.625, 0.875, 0.25, -1.625, -1.0, 1.125, 0.25, 0.75],
      [1.0, -0.875, -0.125, -1.0, 0.375, -1.125, -1.5, 0.75, 1.625, 1.75, 2.0, 1.375, 1.5, -1.875, -1.0, -0.125, 0.125, -1.25, -1.125, 0.375, 0.75, 1.625],
      [-1.625, -1.125, -1.625, -0.375, -0.125, 1.75, -1.25, 1.625, 1.625, 0.75, -0.25, -0.75, 2.0, -1.375, -2.0, 1.375, 0.625, 0.125, 1.0, -0.375, 1.25, 0.875],
      [0.125, -1.625, -1.75, 1.0, -0.75, 0.25, 0.875, -1.5, 1.125, 0.875, 1.625, -0.625, 0.25, -0.625, 0.125, 1.625, 1.75, -1.5, 0.25, 1.125, 1.75, 1.375],
      [0.875, -1.0, 1.125, 1.375, -1.375, -0.875, -1.625, -1.375, 0.875, -0.125, -1.25, 1.125, -1.75, -1.75, 1.0, -1.125, 0.875, -1.125, -0.375, 1.375, -0.5, 2.0],
      [-1.5, -0.625, 2.0, -1.625, 1.75, -1.375, 0.25, -0.375, 0.5, 1.25, 1.0, -0.25, 0.375, -0.125, -1.875, -0.5, -2.0, 0.25, -0.75, 1.5, -0.125, 1.875],
      [-1.25, 1.5, -0.125, 0.5, 2.0, 1.625, 0.875, 0.5, -1.875, -1.5, 1.375, -1.75, 1.0, -1.25, 0.5, 1.75, 1.5, 1.375, -0.125, -0.625, 1.625, 0.125],
      [0.625, 1.0, -1.75, -1.875, -0.125, 0.5, -0.125, 1.75, 0.25, 0.5, -0.625, -0.875, 1.375, 0.5, -0.75, -2.0, 1.25, 1.75, 1.5, -2.0, -0.875, -0.75],
      [-1.125, 0.375, -1.25, -0.125, -1.5, -0.125, -0.75, -1.875, -0.5, 1.75, 0.75, 1.875, -0.625, -0.875, 1.75, -0.625, 0.25, 0.25, -1.875, -0.25, 1.0, -1.375],
      [0.75, 1.375, 0.75, 0.25, -1.0, 1.75, -1.75, 0.875, -1.25, -0.875, 0.5, -0.75, -2.0, -0.375, 0.375, -1.25, -0.125, 1.875, -0.875, -1.75, 0.625, 1.25],
      [-1.25, 1.25, 1.5, 0.125, 1.75, -1.375, -1.0, -0.25, -1.125, 0.25, -0.125, 0.75, 1.875, 0.125, -0.75, 0.25, 1.875, -1.625, 1.875, 0.875, -0.875, -0.375],
      [-1.375, 0.375, 0.25, 1.375, -1.5, 1.875, 0.375, 1.125, -0.75, 0.875, -1.875, -1.375, 1.5, 0.875, 0.375, -1.625, -0.875, 0.375, -1.125, 0.75, -1.375, -0.125],
      [1.0, -0.625, 0.75, 1.75, -0.875, -0.5, -1.375, -0.875, 0.25, 2.0, -0.5, -2.0, 0.375, 1.375, 0.875, 0.375, -2.0, 1.0, -1.625, -1.25, 0.25, 1.25],
      [-2.0, -0.75, 1.875, 1.0, 2.0, -0.125, -1.75, -2.0, 0.625, 1.375, 0.625, -1.625, 1.375, 0.25, -1.25, 1.75, -1.25, 1.125, -0.375, 1.875, -1.25, -1.5],
      [1.375, 1.75, -0.875, -0.75, -1.875, 1.625, -0.125, -0.625, -0.125, -0.875, 0.125, -0.25, -0.125, -1.5, -0.125, 0.375, -1.875, -1.125, -0.5, -0.25, 1.625, -1.75],
      [0.375, -1.25, -0.625, -1.625, -1.75, 0.75, 0.5, 1.125, -1.625, -0.25, -0.375, -0.875, 0.375, 0.125, 1.125, 1.875, -2.0, 1.375, -1.5, -0.875, 0.875, 1.25],
      [0.875, -0.625, -1.125, 0.25, 1.25, 0.375, -0.25, -0.125, -0.875, 1.625, 1.625, 0.625, 0.875, 1.75, 1.5, 1.5, -1.0, 1.625, 1.875, -0.125, 1.375, -1.625],
      [0.5, 0.75, -0.375, 0.625, 1.625, 1.25, 1.5, -0.25, -0.5, -1.5, -0.25, -1.375, 1.0, 0.375, 1.25, -1.25, -0.125, 0.5, -1.125, 1.625, 0.75, 2.0],
      [-1.5, -2.0, 0.75, 1.625, 1.375, -1.0, -0.75, 0.5, -0.25, -1.625, 1.0, 0.25, 0.25, 1.625, -1.75, -2.0, 0.625, 0.875, -1.75, -1.25, 0.75, 0.75],
      [1.125, 0.875, -0.125, 1.875, -0.125, -0.5, 1.0, 1.75, -1.125, 0.875, -0.375, 0.5, -1.75, 0.375, -1.125, -0.125, 0.5, -0.125, -0.75, 1.75, -1.125, 1.875],
      [1.0, 1.25, 0.25, 0.875, 0.625, -0.375, -0.875, 2.0, 1.0, -1.75, -0.5, 1.125, -1.0, -0.125, 2.0, 1.375, -1.25, -1.125, 1.375, -1.0, 1.375, 0.625],
      [0.75, 1.5, -0.5, 0.375, 1.875, -1.875, 0.5, -1.5, -0.375, -0.125, 0.125, 1.875, -0.125, -1.5, 0.125, -1.5, -1.625, -1.75, -2.0, -0.625, 0.25, -1.5],
      [-1.125, -0.75, -0.125, -1.5, -0.75, -1.25, -1.625, -0.875, 0.625, -1.875, -1.25, 0.25, -1.625, 1.0, -0.375, 2.0, 0.125, 1.875, 1.75, 0.125, -0.375, 0.25],
      [0.375, 1.375, -1.75, -1.125, 0.5, 0.125, -0.5, -0.5, -0.375, -1.75, -1.875, -1.125, 0.5, 0.625, -0.125, 1.125, -0.75, -0.125, 0.375, 0.625, 0.125, 2.0]]> : tensor<38x22xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%m) : tensor<?x22xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x22xf32>) -> tensor<?x22xf32>
  %r = linalg.matmul ins(%x, %tile_rhs : tensor<?x38xf32>, tensor<38x22xf32>)
                     outs(%z : tensor<?x22xf32>) -> tensor<?x22xf32>
  return %r : tensor<?x22xf32>
}

func.func @explicit_f32(%x: tensor<?x?xf32>, %w: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %n = tensor.dim %w, %c1 : tensor<?x?xf32>
  %p = stc.prune %w by #stc.nm<2:4> along 0 method tile : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = linalg.matmul ins(%x, %p : tensor<?x?xf32>, tensor<?x?xf32>)
                     outs(%z : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

func.func @explicit_bt_bf16(%x: tensor<?x?xbf16>, %w: tensor<?x?xbf16>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %x, %c0 : tensor<?x?xbf16>
  %n = tensor.dim %w, %c0 : tensor<?x?xbf16>
  %p = stc.prune %w by #stc.nm<2:4> along 1 method tile : tensor<?x?xbf16>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = linalg.matmul
      indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                       affine_map<(m, n, k) -> (n, k)>,
                       affine_map<(m, n, k) -> (m, n)>]
      ins(%x, %p : tensor<?x?xbf16>, tensor<?x?xbf16>)
                     outs(%z : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
