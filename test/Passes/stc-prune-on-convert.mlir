// stc-prune-on-convert: sparse_tensor.convert into a structured[2, 4]
// encoding prunes its source, at compile time for constants (any element
// type, NaN largest, the lower index winning ties) and at run time
// otherwise, unless the source is known to be 2:4.
// RUN: stc-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(stc-prune-on-convert)' | FileCheck %s

#NV_24 = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j floordiv 4 : dense, j mod 4 : structured[2, 4]) }>

// Group [1, -7, 7, 2]: -7 and 7 tie in magnitude, both kept; [3, 3, -3, 3]:
// all tie, the first two kept; [nan, 1, 5, 0]: NaN is the largest;
// [0, 0, 4, 0] is already 2:4.
// CHECK-LABEL: func.func @constant_f32
// CHECK: arith.constant dense<{{\[}}[0.000000e+00, -7.000000e+00, 7.000000e+00, 0.000000e+00, 3.000000e+00, 3.000000e+00, 0.000000e+00, 0.000000e+00], [0x7FC00000, 0.000000e+00, 5.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 4.000000e+00, 0.000000e+00]]> : tensor<2x8xf32>
// CHECK: sparse_tensor.convert
func.func @constant_f32() -> tensor<2x8xf32, #NV_24> {
  %d = arith.constant dense<[[1.0, -7.0, 7.0, 2.0, 3.0, 3.0, -3.0, 3.0],
                             [0x7FC00000, 1.0, 5.0, 0.0, 0.0, 0.0, 4.0, 0.0]]> : tensor<2x8xf32>
  // expected-remark @+1 {{stc: sparse_tensor.convert into structured[2, 4] pruned this constant at compile time: 3 groups of 4 along dimension 1 had more than 2 non-zeros (the 2 of largest magnitude are kept)}}
  %s = sparse_tensor.convert %d : tensor<2x8xf32> to tensor<2x8xf32, #NV_24>
  return %s : tensor<2x8xf32, #NV_24>
}

// -----

#NV_24 = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j floordiv 4 : dense, j mod 4 : structured[2, 4]) }>

// f64 (no stc.prune for it) and a ragged last group of 2 (kept whole).
// CHECK-LABEL: func.func @constant_f64_ragged
// CHECK: arith.constant dense<{{\[}}[0.000000e+00, 0.000000e+00, 3.000000e+00, 4.000000e+00, 1.000000e+00, 2.000000e+00]]> : tensor<1x6xf64>
func.func @constant_f64_ragged() -> tensor<1x6xf64, #NV_24> {
  %d = arith.constant dense<[[1.0, 2.0, 3.0, 4.0, 1.0, 2.0]]> : tensor<1x6xf64>
  // expected-remark @+1 {{stc: sparse_tensor.convert into structured[2, 4] pruned this constant at compile time: 1 group of 4 along dimension 1 had more than 2 non-zeros}}
  %s = sparse_tensor.convert %d : tensor<1x6xf64> to tensor<1x6xf64, #NV_24>
  return %s : tensor<1x6xf64, #NV_24>
}

// -----

#CSC24 = #sparse_tensor.encoding<{ map = (i, j) -> (j : dense, i floordiv 4 : dense, i mod 4 : structured[2, 4]) }>

// The structured level may run along dimension 0; i8 compares |x|, so
// |-128| = 128 beats 127.
// CHECK-LABEL: func.func @constant_i8_dim0
// CHECK: arith.constant dense<{{\[}}[-128], [127], [0], [0]]> : tensor<4x1xi8>
func.func @constant_i8_dim0() -> tensor<4x1xi8, #CSC24> {
  %d = arith.constant dense<[[-128], [127], [5], [-126]]> : tensor<4x1xi8>
  // expected-remark @+1 {{pruned this constant at compile time: 1 group of 4 along dimension 0}}
  %s = sparse_tensor.convert %d : tensor<4x1xi8> to tensor<4x1xi8, #CSC24>
  return %s : tensor<4x1xi8, #CSC24>
}

// -----

#NV_24 = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j floordiv 4 : dense, j mod 4 : structured[2, 4]) }>

// A constant that is 2:4 already is left alone, without a remark.
// CHECK-LABEL: func.func @constant_already_2to4
// CHECK: %[[C:.*]] = arith.constant dense<{{\[}}[1.000000e+00, 0.000000e+00, 2.000000e+00, 0.000000e+00]]>
// CHECK: sparse_tensor.convert %[[C]]
func.func @constant_already_2to4() -> tensor<1x4xf32, #NV_24> {
  %d = arith.constant dense<[[1.0, 0.0, 2.0, 0.0]]> : tensor<1x4xf32>
  %s = sparse_tensor.convert %d : tensor<1x4xf32> to tensor<1x4xf32, #NV_24>
  return %s : tensor<1x4xf32, #NV_24>
}

// -----

#NV_24 = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j floordiv 4 : dense, j mod 4 : structured[2, 4]) }>

// Run-time values: stc.prune where the runtime has an entry point (rank 2,
// f32/f16/bf16/i8) ...
// CHECK-LABEL: func.func @runtime_f16
// CHECK-SAME: (%[[A:.*]]: tensor<?x8xf16>)
// CHECK: %[[P:.*]] = stc.prune %[[A]] by #stc.nm<2:4> along 1 : tensor<?x8xf16>
// CHECK: sparse_tensor.convert %[[P]]
func.func @runtime_f16(%a: tensor<?x8xf16>) -> tensor<?x8xf16, #NV_24> {
  // expected-remark @+1 {{stc: sparse_tensor.convert into structured[2, 4] prunes its input at run time (the 2 of largest magnitude in every 4 along dimension 1)}}
  %s = sparse_tensor.convert %a : tensor<?x8xf16> to tensor<?x8xf16, #NV_24>
  return %s : tensor<?x8xf16, #NV_24>
}

// -----

#NV_24 = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j floordiv 4 : dense, j mod 4 : structured[2, 4]) }>

// ... and generated code with the same rule otherwise (f64 here).
// CHECK-LABEL: func.func @runtime_f64
// CHECK: %[[P:.*]] = tensor.generate
// CHECK: math.absf
// CHECK: arith.cmpf uno
// CHECK: tensor.yield
// CHECK: sparse_tensor.convert %[[P]]
func.func @runtime_f64(%a: tensor<4x8xf64>) -> tensor<4x8xf64, #NV_24> {
  // expected-remark @+1 {{prunes its input at run time}}
  %s = sparse_tensor.convert %a : tensor<4x8xf64> to tensor<4x8xf64, #NV_24>
  return %s : tensor<4x8xf64, #NV_24>
}

// -----

#NV_24 = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j floordiv 4 : dense, j mod 4 : structured[2, 4]) }>
#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>

// Known 2:4 sources are not pruned again; another format is pruned through
// its dense form.
// CHECK-LABEL: func.func @known_and_other_formats
// CHECK: %[[P:.*]] = stc.prune %{{.*}} along 1
// CHECK-NEXT: sparse_tensor.convert %[[P]]
// CHECK-NOT: stc.prune
// CHECK: %[[D:.*]] = sparse_tensor.convert %{{.*}} : tensor<4x8xf32, #sparse{{[0-9]*}}> to tensor<4x8xf32>
// CHECK-NEXT: %[[Q:.*]] = stc.prune %[[D]]
// CHECK-NEXT: sparse_tensor.convert %[[Q]]
func.func @known_and_other_formats(%a: tensor<4x8xf32>, %c: tensor<4x8xf32, #CSR>) -> (tensor<4x8xf32, #NV_24>, tensor<4x8xf32, #NV_24>) {
  %p = stc.prune %a by #stc.nm<2:4> along 1 : tensor<4x8xf32>
  %s = sparse_tensor.convert %p : tensor<4x8xf32> to tensor<4x8xf32, #NV_24>
  // expected-remark @+1 {{prunes its input at run time}}
  %t = sparse_tensor.convert %c : tensor<4x8xf32, #CSR> to tensor<4x8xf32, #NV_24>
  return %s, %t : tensor<4x8xf32, #NV_24>, tensor<4x8xf32, #NV_24>
}
