// stc-lower-conv-to-cpu: stc.conv becomes, per tile of output pixels and per
// group, an im2col gather (linalg.generic + tensor.extract from the
// zero-padded input, channels padded to Cp) and an stc.spmm (sparse rhs)
// with the group's filter rows, bias slice, acc tile and epilogue, inserted
// into the (N*OH*OW) x (G*F) result. Checked: spatial and channel padding,
// ragged last tile, groups unrolled (argument and constant filters) and
// looped, the pointwise fast path with acc, dynamic N/H/W, the reference
// lowering, and the option check.
// RUN: stc-opt %s --pass-pipeline='builtin.module(func.func(stc-lower-conv-to-cpu{pixels=8}))' | FileCheck %s --implicit-check-not=stc.conv
// RUN: stc-opt %s --pass-pipeline='builtin.module(func.func(stc-lower-conv-to-cpu{reference=true}))' | FileCheck %s --check-prefix=REF --implicit-check-not=stc.conv
// RUN: stc-opt %s --pass-pipeline='builtin.module(func.func(stc-lower-conv-to-cpu{pixels=8}),stc-lower-spmm-to-cpu)' | FileCheck %s --check-prefix=CHAIN
// RUN: not stc-opt %s --pass-pipeline='builtin.module(func.func(stc-lower-conv-to-cpu{pixels=0}))' 2>&1 | FileCheck %s --check-prefix=ERR

// ERR: error: stc-lower-conv-to-cpu: pixels must be at least 1, got 0

// CHAIN-NOT: stc.spmm
// CHAIN-NOT: stc.conv

// REF-DAG: #[[$IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1 + d5, d2 + d6, d3, d7)>
// REF-DAG: #[[$FILTER:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d3, d4, d5, d6, d7)>
// REF-DAG: #[[$OUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>
// REF-DAG: #[[$CHAN:.*]] = affine_map<(d0, d1, d2, d3) -> (d3)>
// REF-DAG: #[[$IN2:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1 * 2 + d5, d2 * 2 + d6, d3, d7)>

// 3x3, pad 1, C = 3 padded to Cp = 4 (K = 36), P = 25 in tiles of 8: the
// input is padded once (H, W by 1, channels by 1), the loop's last tile
// has 1 pixel (dynamic tile size), and with one group the filter is passed
// whole.
// CHECK-LABEL: func.func @conv3x3_c3
// CHECK-SAME: (%[[V:[^:]*]]: tensor<8x24xf32>, %[[M:[^:]*]]: tensor<8x3xi16>, %[[X:[^:]*]]: tensor<1x5x5x3xf32>, %[[B:[^:]*]]: tensor<8xf32>)
// CHECK: %[[XE:.*]] = tensor.expand_shape %[[X]] {{\[\[}}0], [1], [2], [3, 4]] output_shape [1, 5, 5, 1, 3]
// CHECK: %[[XP:.*]] = tensor.pad %[[XE]] low[0, 1, 1, 0, 0] high[0, 1, 1, 0, 1]
// CHECK: } : tensor<1x5x5x1x3xf32> to tensor<1x7x7x1x4xf32>
// CHECK: %[[INIT:.*]] = tensor.empty() : tensor<25x8xf32>
// CHECK: %[[LOOP:.*]] = scf.for %[[P0:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[OUT:.*]] = %[[INIT]]) -> (tensor<25x8xf32>)
// CHECK: %[[REST:.*]] = arith.subi %{{.*}}, %[[P0]]
// CHECK: %[[TILE:.*]] = arith.minsi %{{.*}}, %[[REST]]
// CHECK: %[[GE:.*]] = tensor.empty(%[[TILE]]) : tensor<?x3x3x4xf32>
// CHECK: %[[G:.*]] = linalg.generic {{.*}} outs(%[[GE]] : tensor<?x3x3x4xf32>)
// CHECK: tensor.extract %[[XP]][%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : tensor<1x7x7x1x4xf32>
// CHECK: %[[A:.*]] = tensor.collapse_shape %[[G]] {{\[\[}}0], [1, 2, 3]] : tensor<?x3x3x4xf32> into tensor<?x36xf32>
// CHECK: %[[Y:.*]] = stc.spmm %[[V]], %[[M]], %[[A]] bias(%[[B]] : tensor<8xf32>) {activation = #stc.activation<relu>, pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>} : tensor<8x24xf32>, tensor<8x3xi16>, tensor<?x36xf32> -> tensor<?x8xf32>
// CHECK: %[[INS:.*]] = tensor.insert_slice %[[Y]] into %[[OUT]][%[[P0]], 0] [%[[TILE]], 8] [1, 1]
// CHECK: scf.yield %[[INS]]
// CHECK: %[[R:.*]] = tensor.expand_shape %[[LOOP]] {{\[\[}}0, 1, 2], [3]] output_shape [1, 5, 5, 8] : tensor<25x8xf32> into tensor<1x5x5x8xf32>
// CHECK: return %[[R]]
func.func @conv3x3_c3(%v: tensor<8x24xf32>, %m: tensor<8x3xi16>, %x: tensor<1x5x5x3xf32>, %b: tensor<8xf32>) -> tensor<1x5x5x8xf32> {
  %y = stc.conv %v, %m, %x bias(%b : tensor<8xf32>)
      {pattern = #stc.nm<2:4>, filter_size = array<i64: 3, 3>,
       pad_low = array<i64: 1, 1>, pad_high = array<i64: 1, 1>,
       activation = #stc.activation<relu>}
      : tensor<8x24xf32>, tensor<8x3xi16>, tensor<1x5x5x3xf32> -> tensor<1x5x5x8xf32>
  return %y : tensor<1x5x5x8xf32>
}

// REF-LABEL: func.func @conv3x3_c3
// REF: stc.decompress %{{.*}}, %{{.*}} by #stc.nm<2:4> along 1 : tensor<8x24xf32>, tensor<8x3xi16> -> tensor<8x36xf32>
// REF: tensor.expand_shape %{{.*}} {{\[\[}}0, 1], [2, 3, 4]] output_shape [1, 8, 3, 3, 4] : tensor<8x36xf32> into tensor<1x8x3x3x4xf32>
// REF: tensor.pad %{{.*}} low[0, 1, 1, 0, 0] high[0, 1, 1, 0, 1]
// REF: linalg.fill
// REF: %[[C:.*]] = linalg.generic {indexing_maps = [#[[$IN]], #[[$FILTER]], #[[$OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%{{.*}}, %{{.*}} : tensor<1x7x7x1x4xf32>, tensor<1x8x3x3x4xf32>) outs(%{{.*}} : tensor<1x5x5x1x8xf32>)
// REF: %[[F:.*]] = tensor.collapse_shape %[[C]] {{\[\[}}0], [1], [2], [3, 4]] : tensor<1x5x5x1x8xf32> into tensor<1x5x5x8xf32>
// REF: linalg.generic {indexing_maps = [#{{.*}}, #[[$CHAN]], #{{.*}}], {{.*}} ins(%[[F]], %{{.*}} : tensor<1x5x5x8xf32>, tensor<8xf32>)
// REF: arith.addf
// REF: arith.maximumf
// REF-LABEL: func.func @groups2

// Groups 2 (F = 8, C = 8), stride 2, P = 8 = one static tile: each group
// gathers its own channels (group index 0 and 1 of the padded input) and
// multiplies rows [8g, 8g + 8) of values/meta with its bias slice; results
// go to columns [8g, 8g + 8).
// CHECK-LABEL: func.func @groups2
// CHECK-SAME: (%[[V:[^:]*]]: tensor<16x40xf16>, %[[M:[^:]*]]: tensor<16x5xi16>, %[[X:[^:]*]]: tensor<2x4x4x16xf16>, %[[B:[^:]*]]: tensor<16xf32>)
// CHECK: %[[XP:.*]] = tensor.pad %{{.*}} low[0, 1, 1, 0, 0] high[0, 0, 0, 0, 0]
// CHECK: } : tensor<2x4x4x2x8xf16> to tensor<2x5x5x2x8xf16>
// CHECK-DAG: %[[V0:.*]] = tensor.extract_slice %[[V]][0, 0] [8, 40] [1, 1] : tensor<16x40xf16> to tensor<8x40xf16>
// CHECK-DAG: %[[M0:.*]] = tensor.extract_slice %[[M]][0, 0] [8, 5] [1, 1] : tensor<16x5xi16> to tensor<8x5xi16>
// CHECK-DAG: %[[B0:.*]] = tensor.extract_slice %[[B]][0] [8] [1] : tensor<16xf32> to tensor<8xf32>
// CHECK-DAG: %[[V1:.*]] = tensor.extract_slice %[[V]][8, 0] [8, 40] [1, 1] : tensor<16x40xf16> to tensor<8x40xf16>
// CHECK-DAG: %[[M1:.*]] = tensor.extract_slice %[[M]][8, 0] [8, 5] [1, 1] : tensor<16x5xi16> to tensor<8x5xi16>
// CHECK-DAG: %[[B1:.*]] = tensor.extract_slice %[[B]][8] [8] [1] : tensor<16xf32> to tensor<8xf32>
// CHECK-NOT: scf.for
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<8x3x3x8xf16>)
// CHECK: tensor.extract %[[XP]][%{{.*}}, %{{.*}}, %{{.*}}, %[[G0:[^,]*]], %{{.*}}] : tensor<2x5x5x2x8xf16>
// CHECK: %[[A0:.*]] = tensor.collapse_shape {{.*}} into tensor<8x72xf16>
// CHECK: %[[Y0:.*]] = stc.spmm %[[V0]], %[[M0]], %[[A0]] bias(%[[B0]] : tensor<8xf32>) {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>} : tensor<8x40xf16>, tensor<8x5xi16>, tensor<8x72xf16> -> tensor<8x8xf16>
// CHECK: %[[O0:.*]] = tensor.insert_slice %[[Y0]] into %{{.*}}[0, 0] [8, 8] [1, 1] : tensor<8x8xf16> into tensor<8x16xf16>
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<8x3x3x8xf16>)
// CHECK: tensor.extract %[[XP]][%{{.*}}, %{{.*}}, %{{.*}}, %[[G1:[^,]*]], %{{.*}}] : tensor<2x5x5x2x8xf16>
// CHECK: %[[A1:.*]] = tensor.collapse_shape {{.*}} into tensor<8x72xf16>
// CHECK: %[[Y1:.*]] = stc.spmm %[[V1]], %[[M1]], %[[A1]] bias(%[[B1]] : tensor<8xf32>)
// CHECK: %[[O1:.*]] = tensor.insert_slice %[[Y1]] into %[[O0]][0, 8] [8, 8] [1, 1] : tensor<8x8xf16> into tensor<8x16xf16>
// CHECK: tensor.expand_shape %[[O1]] {{\[\[}}0, 1, 2], [3]] output_shape [2, 2, 2, 16]
func.func @groups2(%v: tensor<16x40xf16>, %m: tensor<16x5xi16>, %x: tensor<2x4x4x16xf16>, %b: tensor<16xf32>) -> tensor<2x2x2x16xf16> {
  %y = stc.conv %v, %m, %x bias(%b : tensor<16xf32>)
      {pattern = #stc.nm<2:4>, filter_size = array<i64: 3, 3>,
       strides = array<i64: 2, 2>, pad_low = array<i64: 1, 1>,
       pad_high = array<i64: 0, 0>, groups = 2 : i64}
      : tensor<16x40xf16>, tensor<16x5xi16>, tensor<2x4x4x16xf16> -> tensor<2x2x2x16xf16>
  return %y : tensor<2x2x2x16xf16>
}

// REF: stc.decompress {{.*}} -> tensor<16x72xf16>
// REF: tensor.expand_shape %{{.*}} {{\[\[}}0, 1], [2, 3, 4]] output_shape [2, 8, 3, 3, 8]
// REF: linalg.generic {indexing_maps = [#[[$IN2]], #[[$FILTER]], #[[$OUT]]]
// REF: arith.extf
// REF: arith.truncf %{{.*}} : f32 to f16
// REF-LABEL: func.func @groups2_const

// Constant filter with groups 2: each group's rows become constants of
// their own (4 x 8 values, 4 x 1 metadata), so that stc-lower-spmm-to-cpu
// can decode and tile them at compile time. 1x1: the pointwise path reads
// the input's rows, no padding, no gather.
// CHECK-LABEL: func.func @groups2_const
// CHECK-SAME: (%[[X:[^:]*]]: tensor<1x4x4x8xf32>)
// CHECK-DAG: %[[V0:.*]] = arith.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00, {{.*}} : tensor<4x8xf32>
// CHECK-DAG: %[[M0:.*]] = arith.constant dense<{{\[\[}}17476], [17480], [17484], [17481]]> : tensor<4x1xi16>
// CHECK-DAG: %[[V1:.*]] = arith.constant dense<{{\[\[}}3.300000e+01, 3.400000e+01, {{.*}} : tensor<4x8xf32>
// CHECK-DAG: %[[M1:.*]] = arith.constant dense<{{\[\[}}17485], [17486], [17476], [17480]]> : tensor<4x1xi16>
// CHECK-DAG: %[[XF:.*]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1, 2], [3]] : tensor<1x4x4x8xf32> into tensor<16x8xf32>
// CHECK-NOT: tensor.pad
// CHECK-NOT: linalg.generic
// CHECK: scf.for %[[P0:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}}) -> (tensor<16x8xf32>)
// CHECK: %[[A0:.*]] = tensor.extract_slice %[[XF]][%[[P0]], 0] [8, 4] [1, 1] : tensor<16x8xf32> to tensor<8x4xf32>
// CHECK: stc.spmm %[[V0]], %[[M0]], %[[A0]] {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>} : tensor<4x8xf32>, tensor<4x1xi16>, tensor<8x4xf32> -> tensor<8x4xf32>
// CHECK: %[[A1:.*]] = tensor.extract_slice %[[XF]][%[[P0]], 4] [8, 4] [1, 1] : tensor<16x8xf32> to tensor<8x4xf32>
// CHECK: stc.spmm %[[V1]], %[[M1]], %[[A1]]
// CHAIN-LABEL: func.func @groups2_const
// CHAIN: arith.constant dense<{{\[\[\[}}1.000000e+00, 9.000000e+00, 1.700000e+01, 2.500000e+01, 0.000000e+00{{.*}} : tensor<1x8x8xf32>
func.func @groups2_const(%x: tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32> {
  %v = arith.constant dense<[[1.0, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [9.0, 10.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [17.0, 18.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [25.0, 26.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [33.0, 34.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [41.0, 42.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [49.0, 50.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [57.0, 58.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]]> : tensor<8x8xf32>
  %m = arith.constant dense<[[17476], [17480], [17484], [17481], [17485], [17486], [17476], [17480]]> : tensor<8x1xi16>
  %y = stc.conv %v, %m, %x
      {pattern = #stc.nm<2:4>, filter_size = array<i64: 1, 1>, groups = 2 : i64}
      : tensor<8x8xf32>, tensor<8x1xi16>, tensor<1x4x4x8xf32> -> tensor<1x4x4x8xf32>
  return %y : tensor<1x4x4x8xf32>
}


// A residual (acc, beta = 1) is read as (N*OH*OW) x (G*F) and sliced per
// tile; 1x1 with C = 32 takes the pointwise path.
// CHECK-LABEL: func.func @pointwise_acc
// CHECK-SAME: (%[[V:[^:]*]]: tensor<32x16xf32>, %[[M:[^:]*]]: tensor<32x2xi16>, %[[X:[^:]*]]: tensor<1x4x4x32xf32>, %[[R:[^:]*]]: tensor<1x4x4x32xf32>)
// CHECK-DAG: %[[XF:.*]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1, 2], [3]] : tensor<1x4x4x32xf32> into tensor<16x32xf32>
// CHECK-DAG: %[[RF:.*]] = tensor.collapse_shape %[[R]] {{\[\[}}0, 1, 2], [3]] : tensor<1x4x4x32xf32> into tensor<16x32xf32>
// CHECK: scf.for %[[P0:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[OUT:.*]] = %{{.*}}) -> (tensor<16x32xf32>)
// CHECK-DAG: %[[A:.*]] = tensor.extract_slice %[[XF]][%[[P0]], 0] [8, 32] [1, 1]
// CHECK-DAG: %[[RT:.*]] = tensor.extract_slice %[[RF]][%[[P0]], 0] [8, 32] [1, 1]
// CHECK: %[[Y:.*]] = stc.spmm %[[V]], %[[M]], %[[A]] acc(%[[RT]] : tensor<8x32xf32>) {activation = #stc.activation<relu>, beta = 1.000000e+00 : f64, pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>} : tensor<32x16xf32>, tensor<32x2xi16>, tensor<8x32xf32> -> tensor<8x32xf32>
// CHECK: tensor.insert_slice %[[Y]] into %[[OUT]][%[[P0]], 0] [8, 32] [1, 1]
func.func @pointwise_acc(%v: tensor<32x16xf32>, %m: tensor<32x2xi16>, %x: tensor<1x4x4x32xf32>, %r: tensor<1x4x4x32xf32>) -> tensor<1x4x4x32xf32> {
  %y = stc.conv %v, %m, %x acc(%r : tensor<1x4x4x32xf32>)
      {pattern = #stc.nm<2:4>, filter_size = array<i64: 1, 1>, beta = 1.0 : f64,
       activation = #stc.activation<relu>}
      : tensor<32x16xf32>, tensor<32x2xi16>, tensor<1x4x4x32xf32> -> tensor<1x4x4x32xf32>
  return %y : tensor<1x4x4x32xf32>
}

// REF-LABEL: func.func @pointwise_acc
// REF: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x4x4x32xf32>, tensor<1x4x4x32xf32>)
// REF: arith.addf
// REF: arith.maximumf

// Dynamic N, H, W: OH = max(floor((H + 2 - 2 - 1) / 2) + 1, 0) (and OW) at
// run time; P = N * OH * OW bounds the tile loop; the result is reshaped
// through a shape tensor (an expand_shape with several dynamic sizes in one
// group crashes expand-strided-metadata).
// CHECK-LABEL: func.func @dynamic
// CHECK-SAME: %[[X:[^:]*]]: tensor<?x?x?x8xf32>)
// CHECK-DAG: %[[N:.*]] = tensor.dim %[[X]], %c0
// CHECK-DAG: %[[H:.*]] = tensor.dim %[[X]], %c1
// CHECK: %[[SPANH:.*]] = arith.addi %[[H]], %{{.*}}
// CHECK: %[[QH:.*]] = arith.floordivsi %[[SPANH]], %{{.*}}
// CHECK: %[[QH1:.*]] = arith.addi %[[QH]], %{{.*}}
// CHECK: %[[OH:.*]] = arith.maxsi %[[QH1]], %{{.*}}
// CHECK: arith.floordivsi
// CHECK: %[[OW:.*]] = arith.maxsi
// CHECK: %[[NOH:.*]] = arith.muli %[[N]], %[[OH]]
// CHECK: %[[P:.*]] = arith.muli %[[NOH]], %[[OW]]
// CHECK: tensor.pad {{.*}} low[0, 1, 1, 0, 0] high[0, 1, 1, 0, 0]
// CHECK: %[[LOOP:.*]] = scf.for %{{.*}} = %{{.*}} to %[[P]] step
// CHECK: stc.spmm {{.*}} : tensor<16x40xf32>, tensor<16x5xi16>, tensor<?x72xf32> -> tensor<?x16xf32>
// CHECK: %[[SHAPE:.*]] = tensor.from_elements %[[N]], %[[OH]], %[[OW]], %{{.*}} : tensor<4xindex>
// CHECK: tensor.reshape %[[LOOP]](%[[SHAPE]]) : (tensor<?x16xf32>, tensor<4xindex>) -> tensor<?x?x?x16xf32>
func.func @dynamic(%v: tensor<16x40xf32>, %m: tensor<16x5xi16>, %x: tensor<?x?x?x8xf32>) -> tensor<?x?x?x16xf32> {
  %y = stc.conv %v, %m, %x
      {pattern = #stc.nm<2:4>, filter_size = array<i64: 3, 3>,
       strides = array<i64: 2, 2>, pad_low = array<i64: 1, 1>,
       pad_high = array<i64: 1, 1>}
      : tensor<16x40xf32>, tensor<16x5xi16>, tensor<?x?x?x8xf32> -> tensor<?x?x?x16xf32>
  return %y : tensor<?x?x?x16xf32>
}

// REF-LABEL: func.func @dynamic
// REF: arith.floordivsi
// REF: linalg.generic {{.*}} outs(%{{.*}} : tensor<?x?x?x1x16xf32>)
// REF: tensor.empty(%{{.*}}, %{{.*}}, %{{.*}}) : tensor<?x?x?x16xf32>

// More than 8 groups: a loop over groups with run-time slices of the
// filter rows [4g, 4g + 4) and the gather reading group g.
// CHECK-LABEL: func.func @groups16
// CHECK-SAME: (%[[V:[^:]*]]: tensor<64x24xf32>, %[[M:[^:]*]]: tensor<64x3xi16>, %[[X:[^:]*]]: tensor<1x2x2x64xf32>)
// CHECK: %[[XP:.*]] = tensor.pad
// CHECK: } : tensor<1x2x2x16x4xf32> to tensor<1x4x4x16x4xf32>
// CHECK: scf.for %[[G:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[OUT:.*]] = %{{.*}}) -> (tensor<4x64xf32>)
// CHECK: %[[ROW:.*]] = arith.muli %[[G]], %{{.*}}
// CHECK: %[[VG:.*]] = tensor.extract_slice %[[V]][%[[ROW]], 0] [4, 24] [1, 1]
// CHECK: %[[MG:.*]] = tensor.extract_slice %[[M]][%{{.*}}, 0] [4, 3] [1, 1]
// CHECK: linalg.generic
// CHECK: tensor.extract %[[XP]][%{{.*}}, %{{.*}}, %{{.*}}, %[[G]], %{{.*}}] : tensor<1x4x4x16x4xf32>
// CHECK: %[[Y:.*]] = stc.spmm %[[VG]], %[[MG]], %{{.*}} : tensor<4x24xf32>, tensor<4x3xi16>, tensor<4x36xf32> -> tensor<4x4xf32>
// CHECK: tensor.insert_slice %[[Y]] into %[[OUT]][0, %{{.*}}] [4, 4] [1, 1]
func.func @groups16(%v: tensor<64x24xf32>, %m: tensor<64x3xi16>, %x: tensor<1x2x2x64xf32>) -> tensor<1x2x2x64xf32> {
  %y = stc.conv %v, %m, %x
      {pattern = #stc.nm<2:4>, filter_size = array<i64: 3, 3>,
       pad_low = array<i64: 1, 1>, pad_high = array<i64: 1, 1>, groups = 16 : i64}
      : tensor<64x24xf32>, tensor<64x3xi16>, tensor<1x2x2x64xf32> -> tensor<1x2x2x64xf32>
  return %y : tensor<1x2x2x64xf32>
}
