// stc-sparsify-contractions on quantized contractions: linalg.matmul of i8
// operands into i32 (signed extension, linalg's default) becomes stc.spmm
// with an i32 result. A zero-filled init gives the product itself; any
// other init is added to it afterwards (an i32 stc.spmm has no epilogue, so
// the sum stays exact). Unsigned operands (cast_unsigned, or extui in a
// generic) stay dense with a remark: stc.spmm reads i8 as signed.
// Numerics: test/E2E/spmm-i8.mlir (int8_matmul_force).
// RUN: stc-opt %s -split-input-file --stc-sparsify-contractions=sparsity=force -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @zero_init
// CHECK: %[[P:.*]] = stc.prune %{{.*}} by #stc.nm<2:4> along 0 : tensor<64x32xi8>
// CHECK: %[[V:.*]], %[[M:.*]] = stc.compress %[[P]] by #stc.nm<2:4> along 0 : tensor<64x32xi8> -> tensor<32x32xi8>, tensor<32x4xi16>
// CHECK: %[[Y:.*]] = stc.spmm %[[V]], %[[M]], %{{.*}} {{{.*}}sparse = #stc.operand<rhs>} : tensor<32x32xi8>, tensor<32x4xi16>, tensor<16x64xi8> -> tensor<16x32xi32>
// CHECK-NOT: linalg.add
// CHECK: return %[[Y]]
func.func @zero_init(%x: tensor<16x64xi8>, %w: tensor<64x32xi8>) -> tensor<16x32xi32> {
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<16x32xi32>
  %c = linalg.fill ins(%zero : i32) outs(%e : tensor<16x32xi32>) -> tensor<16x32xi32>
  // expected-remark @+1 {{stc: rhs operand is 2:4 sparse (sparsity=force), rewritten to stc.spmm}}
  %y = linalg.matmul ins(%x, %w : tensor<16x64xi8>, tensor<64x32xi8>)
      outs(%c : tensor<16x32xi32>) -> tensor<16x32xi32>
  return %y : tensor<16x32xi32>
}

// -----

// CHECK-LABEL: func.func @nonzero_init
// CHECK-SAME: %[[INIT:[a-z0-9]+]]: tensor<16x32xi32>
// CHECK: %[[Y:.*]] = stc.spmm {{.*}} -> tensor<16x32xi32>
// CHECK-NOT: acc(
// CHECK: %[[S:.*]] = linalg.add ins(%[[Y]], %[[INIT]] : tensor<16x32xi32>, tensor<16x32xi32>)
// CHECK: return %[[S]]
func.func @nonzero_init(%x: tensor<16x64xi8>, %w: tensor<64x32xi8>, %c: tensor<16x32xi32>) -> tensor<16x32xi32> {
  // expected-remark @+1 {{rewritten to stc.spmm}}
  %y = linalg.matmul ins(%x, %w : tensor<16x64xi8>, tensor<64x32xi8>)
      outs(%c : tensor<16x32xi32>) -> tensor<16x32xi32>
  return %y : tensor<16x32xi32>
}

// -----

// CHECK-LABEL: func.func @unsigned_named
// CHECK: linalg.matmul
// CHECK-NOT: stc.spmm
func.func @unsigned_named(%x: tensor<16x64xi8>, %w: tensor<64x32xi8>, %c: tensor<16x32xi32>) -> tensor<16x32xi32> {
  // expected-remark @+1 {{stc: unsigned i8 operands stay dense (stc.spmm reads i8 as signed)}}
  %y = linalg.matmul {cast = #linalg.type_fn<cast_unsigned>}
      ins(%x, %w : tensor<16x64xi8>, tensor<64x32xi8>)
      outs(%c : tensor<16x32xi32>) -> tensor<16x32xi32>
  return %y : tensor<16x32xi32>
}

// -----

#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
// CHECK-LABEL: func.func @unsigned_generic
// CHECK: linalg.generic
// CHECK-NOT: stc.spmm
func.func @unsigned_generic(%x: tensor<16x64xi8>, %w: tensor<64x32xi8>, %c: tensor<16x32xi32>) -> tensor<16x32xi32> {
  // expected-remark @+1 {{stc: unsigned i8 operands stay dense (stc.spmm reads i8 as signed)}}
  %y = linalg.generic {indexing_maps = [#a, #b, #c],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<16x64xi8>, tensor<64x32xi8>) outs(%c : tensor<16x32xi32>) {
  ^bb0(%p: i8, %q: i8, %acc: i32):
    %p32 = arith.extui %p : i8 to i32
    %q32 = arith.extui %q : i8 to i32
    %prod = arith.muli %p32, %q32 : i32
    %sum = arith.addi %acc, %prod : i32
    linalg.yield %sum : i32
  } -> tensor<16x32xi32>
  return %y : tensor<16x32xi32>
}
