// Constant folding of stc.prune / stc.compress / stc.decompress / stc.check:
// every expected value and metadata word below is computed by hand from the
// canonical format (docs/DESIGN.md §3), so a wrong folder changes the output.
// Every stc op on a constant folds away, except where a CHECK names it
// (stc.compress of a constant that is not 2:4, decompress of bad metadata).
// RUN: stc-opt %s -canonicalize | FileCheck %s --implicit-check-not=stc.

// Row 0, group 0 |1, -5, 3, 2| keeps -5 and 3; group 1 is a four-way tie and
// keeps the two lowest indices. Row 1 keeps 0 and 3 of a tie |4, 0, 0, 4|
// and 1 and 2 of |-1, 2, -2, 1|.
// CHECK-LABEL: func.func @prune_f32_dim1
// CHECK: %[[C:.*]] = arith.constant dense<{{\[}}[0.000000e+00, -5.000000e+00, 3.000000e+00, 0.000000e+00, 5.000000e-01, 5.000000e-01, 0.000000e+00, 0.000000e+00], [4.000000e+00, 0.000000e+00, 0.000000e+00, 4.000000e+00, 0.000000e+00, 2.000000e+00, -2.000000e+00, 0.000000e+00]]> : tensor<2x8xf32>
// CHECK: return %[[C]]
func.func @prune_f32_dim1() -> tensor<2x8xf32> {
  %w = arith.constant dense<[[1.0, -5.0, 3.0, 2.0, 0.5, 0.5, 0.5, 0.5],
                             [4.0, 0.0, 0.0, 4.0, -1.0, 2.0, -2.0, 1.0]]> : tensor<2x8xf32>
  %p = stc.prune %w by #stc.nm<2:4> along 1 : tensor<2x8xf32>
  return %p : tensor<2x8xf32>
}

// Along dimension 0 the groups are columns: |1, 2, 3, 4| keeps rows 2 and 3,
// |4, -3, 2, 1| keeps rows 0 and 1.
// CHECK-LABEL: func.func @prune_f32_dim0
// CHECK: %[[C:.*]] = arith.constant dense<{{\[}}[0.000000e+00, 4.000000e+00], [0.000000e+00, -3.000000e+00], [3.000000e+00, 0.000000e+00], [4.000000e+00, 0.000000e+00]]> : tensor<4x2xf32>
// CHECK: return %[[C]]
func.func @prune_f32_dim0() -> tensor<4x2xf32> {
  %w = arith.constant dense<[[1.0, 4.0], [2.0, -3.0], [3.0, 2.0], [4.0, 1.0]]> : tensor<4x2xf32>
  %p = stc.prune %w by #stc.nm<2:4> along 0 : tensor<4x2xf32>
  return %p : tensor<4x2xf32>
}

// A splat constant: every group is a tie and keeps its first two elements.
// CHECK-LABEL: func.func @prune_splat
// CHECK: %[[C:.*]] = arith.constant dense<{{\[}}[1.000000e+00, 1.000000e+00, 0.000000e+00, 0.000000e+00], [1.000000e+00, 1.000000e+00, 0.000000e+00, 0.000000e+00]]> : tensor<2x4xf32>
// CHECK: return %[[C]]
func.func @prune_splat() -> tensor<2x4xf32> {
  %w = arith.constant dense<1.0> : tensor<2x4xf32>
  %p = stc.prune %w by #stc.nm<2:4> along 1 : tensor<2x4xf32>
  return %p : tensor<2x4xf32>
}

// f16 and bf16 constants are pruned on their exact values.
// CHECK-LABEL: func.func @prune_f16_bf16
// CHECK-DAG: %[[H:.*]] = arith.constant dense<{{\[}}[0.000000e+00, -2.500000e+00, 0.000000e+00, 3.000000e+00]]> : tensor<1x4xf16>
// CHECK-DAG: %[[B:.*]] = arith.constant dense<{{\[}}[1.250000e+00, 0.000000e+00, -7.500000e-01, 0.000000e+00]]> : tensor<1x4xbf16>
// CHECK: return %[[H]], %[[B]]
func.func @prune_f16_bf16() -> (tensor<1x4xf16>, tensor<1x4xbf16>) {
  %h = arith.constant dense<[[1.5, -2.5, 0.25, 3.0]]> : tensor<1x4xf16>
  %ph = stc.prune %h by #stc.nm<2:4> along 1 : tensor<1x4xf16>
  %b = arith.constant dense<[[1.25, 0.5, -0.75, 0.125]]> : tensor<1x4xbf16>
  %pb = stc.prune %b by #stc.nm<2:4> along 1 : tensor<1x4xbf16>
  return %ph, %pb : tensor<1x4xf16>, tensor<1x4xbf16>
}

// A reduction size of 6 behaves as if padded with zeros: the last group is
// |-7, 0, (0), (0)| and keeps -7 and the 0 at index 1.
// CHECK-LABEL: func.func @prune_padded
// CHECK: %[[C:.*]] = arith.constant dense<{{\[}}[0.000000e+00, 0.000000e+00, 3.000000e+00, 4.000000e+00, -7.000000e+00, 0.000000e+00]]> : tensor<1x6xf32>
// CHECK: return %[[C]]
func.func @prune_padded() -> tensor<1x6xf32> {
  %w = arith.constant dense<[[1.0, 2.0, 3.0, 4.0, -7.0, 0.0]]> : tensor<1x6xf32>
  %p = stc.prune %w by #stc.nm<2:4> along 1 : tensor<1x6xf32>
  return %p : tensor<1x6xf32>
}

// 1:2 keeps the larger of each pair, the lower index on a tie.
// CHECK-LABEL: func.func @prune_one_two
// CHECK: %[[C:.*]] = arith.constant dense<{{\[}}[0.000000e+00, -3.000000e+00, 2.000000e+00, 0.000000e+00]]> : tensor<1x4xf32>
// CHECK: return %[[C]]
func.func @prune_one_two() -> tensor<1x4xf32> {
  %w = arith.constant dense<[[1.0, -3.0, 2.0, 2.0]]> : tensor<1x4xf32>
  %p = stc.prune %w by #stc.nm<1:2> along 1 : tensor<1x4xf32>
  return %p : tensor<1x4xf32>
}

// A dense_resource<> blob (4 alignment bytes, then little-endian f32
// 1.0, -5.0, 3.0, 2.0) folds like a dense<> constant.
// CHECK-LABEL: func.func @prune_resource
// CHECK: %[[C:.*]] = arith.constant dense<{{\[}}[0.000000e+00, -5.000000e+00, 3.000000e+00, 0.000000e+00]]> : tensor<1x4xf32>
// CHECK: return %[[C]]
func.func @prune_resource() -> tensor<1x4xf32> {
  %w = arith.constant dense_resource<blob_w> : tensor<1x4xf32>
  %p = stc.prune %w by #stc.nm<2:4> along 1 : tensor<1x4xf32>
  return %p : tensor<1x4xf32>
}

// Tile pruning keeps two per row and two per column of each 4x4 tile.
// Strip pruning would keep 4 and 9 in row 2, a third element in column 0.
// Row by row at most 15 + 11 + 13 + 7 = 46 can be kept; keeping row 2's 4
// drops column 0 from row 0 (best 7 + 1, -7) or row 1 (best 5 + 2, -4), so at
// most 42, while the block-diagonal mask keeps 8 7 | 6 5 | 9 1 | 3 4 = 43.
// CHECK-LABEL: func.func @prune_tile_dim1
// CHECK: %[[C:.*]] = arith.constant dense<{{\[}}[8.000000e+00, 7.000000e+00, 0.000000e+00, 0.000000e+00], [6.000000e+00, -5.000000e+00, 0.000000e+00, 0.000000e+00], [0.000000e+00, 0.000000e+00, 9.000000e+00, 1.000000e+00], [0.000000e+00, 0.000000e+00, 3.000000e+00, -4.000000e+00]]> : tensor<4x4xf32>
// CHECK: return %[[C]]
func.func @prune_tile_dim1() -> tensor<4x4xf32> {
  %w = arith.constant dense<[[8.0, 7.0, 1.0, 0.5],
                             [6.0, -5.0, 2.0, 0.25],
                             [4.0, 3.0, 9.0, 1.0],
                             [1.0, 2.0, 3.0, -4.0]]> : tensor<4x4xf32>
  %p = stc.prune %w by #stc.nm<2:4> along 1 method tile : tensor<4x4xf32>
  return %p : tensor<4x4xf32>
}

// All 90 masks tie on a splat: the first in increasing order of the mask
// word (bit 4*r + c) wins, 0x33CC: rows 0 and 1 keep columns 2 and 3, rows
// 2 and 3 columns 0 and 1. The method may also be given as an attribute.
// CHECK-LABEL: func.func @prune_tile_tie
// CHECK: %[[C:.*]] = arith.constant dense<{{\[}}[0.000000e+00, 0.000000e+00, 1.000000e+00, 1.000000e+00], [0.000000e+00, 0.000000e+00, 1.000000e+00, 1.000000e+00], [1.000000e+00, 1.000000e+00, 0.000000e+00, 0.000000e+00], [1.000000e+00, 1.000000e+00, 0.000000e+00, 0.000000e+00]]> : tensor<4x4xf32>
// CHECK: return %[[C]]
func.func @prune_tile_tie() -> tensor<4x4xf32> {
  %w = arith.constant dense<1.0> : tensor<4x4xf32>
  %p = stc.prune %w by #stc.nm<2:4> along 1 {method = #stc.prune_method<tile>} : tensor<4x4xf32>
  return %p : tensor<4x4xf32>
}

// Along dimension 0 of a 6 x 3 f16 weight: the tiles are 4 reduction rows x
// 4 columns, the columns (3) and the reduction (6) padded with zeros. Seen
// as rows x K (the transpose), rows |1 4 7 2|5 1|, |2 5 8 1|4 2|,
// |3 6 9 3|6 7| and a zero row. Tile 0: the zero row takes two columns, so
// two columns hold one real element and two hold two; the best sum is 31,
// reached by several masks of which 0x936C comes first: 7+2 | 5+8 | 3+6,
// the zero row on columns 0 and 3.
// Tile 1 (K 4, 5 and two padding columns): 5 | 2 | 6+7 = 20, first mask
// 0xC369 (row 0 keeps column 4 and padding, row 1 column 5 and padding).
// CHECK-LABEL: func.func @prune_tile_ragged_dim0
// CHECK: %[[C:.*]] = arith.constant dense<{{\[}}[0.000000e+00, 0.000000e+00, 3.000000e+00], [0.000000e+00, 5.000000e+00, -6.000000e+00], [-7.000000e+00, 8.000000e+00, 0.000000e+00], [2.000000e+00, 0.000000e+00, 0.000000e+00], [5.000000e+00, 0.000000e+00, 6.000000e+00], [0.000000e+00, 2.000000e+00, 7.000000e+00]]> : tensor<6x3xf16>
// CHECK: return %[[C]]
func.func @prune_tile_ragged_dim0() -> tensor<6x3xf16> {
  %w = arith.constant dense<[[1.0, -2.0, 3.0], [4.0, 5.0, -6.0],
                             [-7.0, 8.0, 9.0], [2.0, 1.0, -3.0],
                             [5.0, -4.0, 6.0], [-1.0, 2.0, 7.0]]> : tensor<6x3xf16>
  %p = stc.prune %w by #stc.nm<2:4> along 0 method tile : tensor<6x3xf16>
  return %p : tensor<6x3xf16>
}

// Row 0 groups keep (0,1) (0,2) (0,3) (1,2): nibbles 0x4 0x8 0xC 0x9, word
// 0x9C84 = -25468. Row 1 keeps (1,3) (2,3), then an all-zero group stores
// (0,1) and a group with one non-zero at 3 stores (0,3): nibbles 0xD 0xE 0x4
// 0xC, word 0xC4ED = -15123.
// CHECK-LABEL: func.func @compress_dim1
// CHECK-DAG: %[[V:.*]] = arith.constant dense<{{\[}}[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00, 7.000000e+00, 8.000000e+00], [1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 9.000000e+00]]> : tensor<2x8xf32>
// CHECK-DAG: %[[M:.*]] = arith.constant dense<{{\[}}[-25468], [-15123]]> : tensor<2x1xi16>
// CHECK: return %[[V]], %[[M]]
func.func @compress_dim1() -> (tensor<2x8xf32>, tensor<2x1xi16>) {
  %w = arith.constant dense<[[1.0, 2.0, 0.0, 0.0, 3.0, 0.0, 4.0, 0.0, 5.0, 0.0, 0.0, 6.0, 0.0, 7.0, 8.0, 0.0],
                             [0.0, 1.0, 0.0, 2.0, 0.0, 0.0, 3.0, 4.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 9.0]]> : tensor<2x16xf32>
  %v, %m = stc.compress %w by #stc.nm<2:4> along 1
      : tensor<2x16xf32> -> tensor<2x8xf32>, tensor<2x1xi16>
  return %v, %m : tensor<2x8xf32>, tensor<2x1xi16>
}

// The same data transposed and compressed along dimension 0: compressed row
// r is column r of the input.
// CHECK-LABEL: func.func @compress_dim0
// CHECK-DAG: %[[V:.*]] = arith.constant dense<{{\[}}[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00, 7.000000e+00, 8.000000e+00], [1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 9.000000e+00]]> : tensor<2x8xf32>
// CHECK-DAG: %[[M:.*]] = arith.constant dense<{{\[}}[-25468], [-15123]]> : tensor<2x1xi16>
// CHECK: return %[[V]], %[[M]]
func.func @compress_dim0() -> (tensor<2x8xf32>, tensor<2x1xi16>) {
  %w = arith.constant dense<[[1.0, 0.0], [2.0, 1.0], [0.0, 0.0], [0.0, 2.0],
                             [3.0, 0.0], [0.0, 0.0], [4.0, 3.0], [0.0, 4.0],
                             [5.0, 0.0], [0.0, 0.0], [0.0, 0.0], [6.0, 0.0],
                             [0.0, 0.0], [7.0, 0.0], [8.0, 0.0], [0.0, 9.0]]> : tensor<16x2xf32>
  %v, %m = stc.compress %w by #stc.nm<2:4> along 0
      : tensor<16x2xf32> -> tensor<2x8xf32>, tensor<2x1xi16>
  return %v, %m : tensor<2x8xf32>, tensor<2x1xi16>
}

// Prune then compress of a constant both fold; f16 values keep their type.
// |0.5, -1.5, 2.0, 0.25| keeps (1,2) -> 0x9; the 12 padded columns give
// three 0x4 groups: word 0x4449 = 17481.
// CHECK-LABEL: func.func @prune_compress_f16_padded
// CHECK-DAG: %[[V:.*]] = arith.constant dense<{{\[}}[-1.500000e+00, 2.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00]]> : tensor<1x8xf16>
// CHECK-DAG: %[[M:.*]] = arith.constant dense<17481> : tensor<1x1xi16>
// CHECK: return %[[V]], %[[M]]
func.func @prune_compress_f16_padded() -> (tensor<1x8xf16>, tensor<1x1xi16>) {
  %w = arith.constant dense<[[0.5, -1.5, 2.0, 0.25]]> : tensor<1x4xf16>
  %p = stc.prune %w by #stc.nm<2:4> along 1 : tensor<1x4xf16>
  %v, %m = stc.compress %p by #stc.nm<2:4> along 1
      : tensor<1x4xf16> -> tensor<1x8xf16>, tensor<1x1xi16>
  return %v, %m : tensor<1x8xf16>, tensor<1x1xi16>
}

// Padding inside a group: K = 6, group 1 is |-7, 0, (0), (0)| -> (0,1).
// Nibbles 0xE 0x4 0x4 0x4: word 0x444E = 17486.
// CHECK-LABEL: func.func @compress_bf16_padded
// CHECK-DAG: %[[V:.*]] = arith.constant dense<{{\[}}[3.000000e+00, 4.000000e+00, -7.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00]]> : tensor<1x8xbf16>
// CHECK-DAG: %[[M:.*]] = arith.constant dense<17486> : tensor<1x1xi16>
// CHECK: return %[[V]], %[[M]]
func.func @compress_bf16_padded() -> (tensor<1x8xbf16>, tensor<1x1xi16>) {
  %w = arith.constant dense<[[0.0, 0.0, 3.0, 4.0, -7.0, 0.0]]> : tensor<1x6xbf16>
  %v, %m = stc.compress %w by #stc.nm<2:4> along 1
      : tensor<1x6xbf16> -> tensor<1x8xbf16>, tensor<1x1xi16>
  return %v, %m : tensor<1x8xbf16>, tensor<1x1xi16>
}

// 1:2 on f32: one i16 word covers 8 columns (4 pairs). |0, -3| keeps 1
// (0xE), |2, 0| keeps 0 (0x4), the padded pairs store 0x4: word 0x444E.
// CHECK-LABEL: func.func @compress_one_two
// CHECK-DAG: %[[V:.*]] = arith.constant dense<{{\[}}[-3.000000e+00, 2.000000e+00, 0.000000e+00, 0.000000e+00]]> : tensor<1x4xf32>
// CHECK-DAG: %[[M:.*]] = arith.constant dense<17486> : tensor<1x1xi16>
// CHECK: return %[[V]], %[[M]]
func.func @compress_one_two() -> (tensor<1x4xf32>, tensor<1x1xi16>) {
  %w = arith.constant dense<[[0.0, -3.0, 2.0, 0.0]]> : tensor<1x4xf32>
  %v, %m = stc.compress %w by #stc.nm<1:2> along 1
      : tensor<1x4xf32> -> tensor<1x4xf32>, tensor<1x1xi16>
  return %v, %m : tensor<1x4xf32>, tensor<1x1xi16>
}

// Group 0 of row 0 has three non-zeros: the folder declines and the op
// stays (stc-lower-to-runtime reports it).
// CHECK-LABEL: func.func @compress_not_two_four
// CHECK: %[[W:.*]] = arith.constant dense<{{\[}}[1.000000e+00, 2.000000e+00, 3.000000e+00, 0.000000e+00]]> : tensor<1x4xf32>
// CHECK: %[[V:.*]], %[[M:.*]] = stc.compress %[[W]] by #stc.nm<2:4> along 1 : tensor<1x4xf32> -> tensor<1x8xf32>, tensor<1x1xi16>
// CHECK: return %[[V]], %[[M]]
func.func @compress_not_two_four() -> (tensor<1x8xf32>, tensor<1x1xi16>) {
  %w = arith.constant dense<[[1.0, 2.0, 3.0, 0.0]]> : tensor<1x4xf32>
  %v, %m = stc.compress %w by #stc.nm<2:4> along 1
      : tensor<1x4xf32> -> tensor<1x8xf32>, tensor<1x1xi16>
  return %v, %m : tensor<1x8xf32>, tensor<1x1xi16>
}

// Decompress scatters the values back: the inverse of @compress_dim1 row 0.
// CHECK-LABEL: func.func @decompress_dim1
// CHECK: %[[C:.*]] = arith.constant dense<{{\[}}[1.000000e+00, 2.000000e+00, 0.000000e+00, 0.000000e+00, 3.000000e+00, 0.000000e+00, 4.000000e+00, 0.000000e+00, 5.000000e+00, 0.000000e+00, 0.000000e+00, 6.000000e+00, 0.000000e+00, 7.000000e+00, 8.000000e+00, 0.000000e+00]]> : tensor<1x16xf32>
// CHECK: return %[[C]]
func.func @decompress_dim1() -> tensor<1x16xf32> {
  %v = arith.constant dense<[[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]]> : tensor<1x8xf32>
  %m = arith.constant dense<[[-25468]]> : tensor<1x1xi16>
  %d = stc.decompress %v, %m by #stc.nm<2:4> along 1
      : tensor<1x8xf32>, tensor<1x1xi16> -> tensor<1x16xf32>
  return %d : tensor<1x16xf32>
}

// Along dimension 0 into an unpadded K = 6 (f16): compressed row 0 is
// column 0. Word 0x444E: group 0 -> rows 2, 3; group 1 -> rows 4, 5.
// CHECK-LABEL: func.func @decompress_dim0_padded
// CHECK: %[[C:.*]] = arith.constant dense<{{\[}}[0.000000e+00], [0.000000e+00], [3.000000e+00], [4.000000e+00], [-7.000000e+00], [5.000000e-01]]> : tensor<6x1xf16>
// CHECK: return %[[C]]
func.func @decompress_dim0_padded() -> tensor<6x1xf16> {
  %v = arith.constant dense<[[3.0, 4.0, -7.0, 0.5, 0.0, 0.0, 0.0, 0.0]]> : tensor<1x8xf16>
  %m = arith.constant dense<17486> : tensor<1x1xi16>
  %d = stc.decompress %v, %m by #stc.nm<2:4> along 0
      : tensor<1x8xf16>, tensor<1x1xi16> -> tensor<6x1xf16>
  return %d : tensor<6x1xf16>
}

// Nibble 0x0 names index 0 twice: not legal metadata, so no fold.
// CHECK-LABEL: func.func @decompress_illegal_nibble
// CHECK-DAG: %[[V:.*]] = arith.constant dense<1.000000e+00> : tensor<1x8xf32>
// CHECK-DAG: %[[M:.*]] = arith.constant dense<0> : tensor<1x1xi16>
// CHECK: %[[D:.*]] = stc.decompress %[[V]], %[[M]] by #stc.nm<2:4> along 1 : tensor<1x8xf32>, tensor<1x1xi16> -> tensor<1x16xf32>
// CHECK: return %[[D]]
func.func @decompress_illegal_nibble() -> tensor<1x16xf32> {
  %v = arith.constant dense<1.0> : tensor<1x8xf32>
  %m = arith.constant dense<0> : tensor<1x1xi16>
  %d = stc.decompress %v, %m by #stc.nm<2:4> along 1
      : tensor<1x8xf32>, tensor<1x1xi16> -> tensor<1x16xf32>
  return %d : tensor<1x16xf32>
}

// check folds to true when every group has at most two non-zeros and to
// false otherwise, along either dimension.
// CHECK-LABEL: func.func @check
// CHECK-DAG: %[[T:.*]] = arith.constant true
// CHECK-DAG: %[[F:.*]] = arith.constant false
// CHECK: return %[[T]], %[[F]], %[[T]], %[[F]], %[[F]]
func.func @check() -> (i1, i1, i1, i1, i1) {
  %ok = arith.constant dense<[[1.0, 0.0, 0.0, -2.0, 0.0, 0.0, 0.0, 0.0]]> : tensor<1x8xf32>
  %a = stc.check %ok by #stc.nm<2:4> along 1 : tensor<1x8xf32>
  %bad = arith.constant dense<[[1.0, 0.0, 0.0, -2.0, 0.0, 3.0, 4.0, 5.0]]> : tensor<1x8xf32>
  %b = stc.check %bad by #stc.nm<2:4> along 1 : tensor<1x8xf32>
  %col = arith.constant dense<[[1.0, 1.0], [0.0, 1.0], [0.0, 1.0], [2.0, 0.0]]> : tensor<4x2xf16>
  %c = stc.check %col by #stc.nm<2:4> along 1 : tensor<4x2xf16>
  %d = stc.check %col by #stc.nm<2:4> along 0 : tensor<4x2xf16>
  %pair = arith.constant dense<[[1.0, 1.0]]> : tensor<1x2xf32>
  %e = stc.check %pair by #stc.nm<1:2> along 1 : tensor<1x2xf32>
  return %a, %b, %c, %d, %e : i1, i1, i1, i1, i1
}

// Run-time operands do not fold.
// CHECK-LABEL: func.func @no_fold_arguments
// CHECK-SAME: (%[[W:.*]]: tensor<4x8xf32>)
// CHECK: %[[P:.*]] = stc.prune %[[W]] by #stc.nm<2:4> along 1 : tensor<4x8xf32>
// CHECK: %[[OK:.*]] = stc.check %[[W]] by #stc.nm<2:4> along 1 : tensor<4x8xf32>
// CHECK: return %[[P]], %[[OK]]
func.func @no_fold_arguments(%w: tensor<4x8xf32>) -> (tensor<4x8xf32>, i1) {
  %p = stc.prune %w by #stc.nm<2:4> along 1 : tensor<4x8xf32>
  %ok = stc.check %w by #stc.nm<2:4> along 1 : tensor<4x8xf32>
  return %p, %ok : tensor<4x8xf32>, i1
}

{-#
  dialect_resources: {
    builtin: {
      blob_w: "0x040000000000803F0000A0C00000404000000040"
    }
  }
#-}

// i8 (read as signed): group 0 |-128, 127, 5, -127| keeps -128 (magnitude
// 128) and the first of the 127 tie; group 1 |1, -3, 0, 3| keeps 1 and 3
// (nibble 0xD). K = 8 pads to 16: groups 2 and 3 are zeros with nibble 0x4,
// so the word is 0x44D4 = 17620.
// CHECK-LABEL: func.func @prune_compress_i8
// CHECK-DAG: %[[P:.*]] = arith.constant dense<{{\[}}[-128, 127, 0, 0, 0, -3, 0, 3]]> : tensor<1x8xi8>
// CHECK-DAG: %[[V:.*]] = arith.constant dense<{{\[}}[-128, 127, -3, 3, 0, 0, 0, 0]]> : tensor<1x8xi8>
// CHECK-DAG: %[[M:.*]] = arith.constant dense<17620> : tensor<1x1xi16>
// CHECK: return %[[P]], %[[V]], %[[M]]
func.func @prune_compress_i8() -> (tensor<1x8xi8>, tensor<1x8xi8>, tensor<1x1xi16>) {
  %w = arith.constant dense<[[-128, 127, 5, -127, 1, -3, 0, 3]]> : tensor<1x8xi8>
  %p = stc.prune %w by #stc.nm<2:4> along 1 : tensor<1x8xi8>
  %v, %m = stc.compress %p by #stc.nm<2:4> along 1
      : tensor<1x8xi8> -> tensor<1x8xi8>, tensor<1x1xi16>
  return %p, %v, %m : tensor<1x8xi8>, tensor<1x8xi8>, tensor<1x1xi16>
}

// A constant i8 with 3 non-zeros in a group is not 2:4: stc.check folds to
// false, decompress of compressed i8 constants folds back exactly.
// CHECK-LABEL: func.func @check_decompress_i8
// CHECK-DAG: %[[F:.*]] = arith.constant false
// CHECK-DAG: %[[D:.*]] = arith.constant dense<{{\[}}[0, -7, 0, 100, -128, 0, 0, 1]]> : tensor<1x8xi8>
// CHECK: return %[[F]], %[[D]]
func.func @check_decompress_i8() -> (i1, tensor<1x8xi8>) {
  %w = arith.constant dense<[[1, -7, 0, 100, 0, 0, 0, 0]]> : tensor<1x8xi8>
  %ok = stc.check %w by #stc.nm<2:4> along 1 : tensor<1x8xi8>
  %v = arith.constant dense<[[-7, 100, -128, 1, 0, 0, 0, 0]]> : tensor<1x8xi8>
  // Group 0 keeps 1 and 3 (0xD), group 1 keeps 0 and 3 (0xC).
  %m = arith.constant dense<17613> : tensor<1x1xi16>
  %d = stc.decompress %v, %m by #stc.nm<2:4> along 1
      : tensor<1x8xi8>, tensor<1x1xi16> -> tensor<1x8xi8>
  return %ok, %d : i1, tensor<1x8xi8>
}
