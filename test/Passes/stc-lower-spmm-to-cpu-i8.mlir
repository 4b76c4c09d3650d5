// stc-lower-spmm-to-cpu on i8 operands: both operands are packed as i32
// (sign-extended), the microkernel multiplies and adds vector<16xi32>
// exactly (no float rounding for any K), an i32 result is the accumulator
// copied out, and any other result goes through the f32 scaling epilogue:
// alpha * scale, then requantization (clamp to [-128, 127], round to
// nearest even by adding and removing 1.5 * 2^23, NaN to 0, fptosi).
// Numerics: test/E2E/spmm-i8.mlir.
// RUN: stc-opt %s --pass-pipeline='builtin.module(stc-lower-spmm-to-cpu)' | FileCheck %s
// RUN: stc-opt %s --pass-pipeline='builtin.module(stc-lower-spmm-to-cpu{reference=true})' | FileCheck %s --check-prefix=REF

// CHECK-LABEL: func.func @quantized
// CHECK: arith.extsi %{{.*}} : i8 to i32
// CHECK: %[[P:.*]] = arith.muli %{{.*}}, %{{.*}} : vector<16xi32>
// CHECK: arith.addi %[[P]], %{{.*}} : vector<16xi32>
// CHECK-NOT: vector.fma
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<32x8xi32>) outs(%{{.*}} : tensor<8x32xi32>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: i32, %{{.*}}: i32):
// CHECK-NEXT: linalg.yield %[[IN]] : i32
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<32x8xi32>, tensor<32xf32>) outs(%{{.*}} : tensor<8x32xi8>)
// CHECK-NEXT: ^bb0(%[[ACC:.*]]: i32, %[[S:.*]]: f32, %{{.*}}: i8):
// CHECK-NEXT: %[[X:.*]] = arith.sitofp %[[ACC]] : i32 to f32
// CHECK-NEXT: %[[ALPHA:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT: %[[F:.*]] = arith.mulf %[[ALPHA]], %[[S]] : f32
// CHECK-NEXT: %[[Y:.*]] = arith.mulf %[[X]], %[[F]] : f32
// CHECK-NEXT: %[[NAN:.*]] = arith.cmpf uno, %[[Y]], %[[Y]] : f32
// CHECK-DAG: %[[HI:.*]] = arith.constant 1.270000e+02 : f32
// CHECK-DAG: %[[LO:.*]] = arith.constant -1.280000e+02 : f32
// CHECK: %[[C1:.*]] = arith.maximumf %[[Y]], %[[LO]] : f32
// CHECK-NEXT: %[[C2:.*]] = arith.minimumf %[[C1]], %[[HI]] : f32
// CHECK-NEXT: %[[MAGIC:.*]] = arith.constant 0x4B400000 : f32
// CHECK-NEXT: %[[R1:.*]] = arith.addf %[[C2]], %[[MAGIC]] : f32
// CHECK-NEXT: %[[R2:.*]] = arith.subf %[[R1]], %[[MAGIC]] : f32
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[R3:.*]] = arith.select %[[NAN]], %[[ZERO]], %[[R2]] : f32
// CHECK-NEXT: %[[Q:.*]] = arith.fptosi %[[R3]] : f32 to i8
// CHECK-NEXT: linalg.yield %[[Q]] : i8

// REF-LABEL: func.func @quantized
// REF: linalg.generic
// REF: ^bb0(%[[A:.*]]: i8, %[[B:.*]]: i8, %[[C:.*]]: i32):
// REF-DAG: %[[A32:.*]] = arith.extsi %[[A]] : i8 to i32
// REF-DAG: %[[B32:.*]] = arith.extsi %[[B]] : i8 to i32
// REF-NEXT: %[[AB:.*]] = arith.muli %[[A32]], %[[B32]] : i32
// REF-NEXT: arith.addi %[[C]], %[[AB]] : i32
func.func @quantized(%v: tensor<32x16xi8>, %m: tensor<32x2xi16>, %x: tensor<8x32xi8>, %s: tensor<32xf32>) -> (tensor<8x32xi32>, tensor<8x32xi8>) {
  %y = stc.spmm %v, %m, %x {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>}
      : tensor<32x16xi8>, tensor<32x2xi16>, tensor<8x32xi8> -> tensor<8x32xi32>
  %q = stc.spmm %v, %m, %x scale(%s : tensor<32xf32>)
      {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>, alpha = 0.5}
      : tensor<32x16xi8>, tensor<32x2xi16>, tensor<8x32xi8> -> tensor<8x32xi8>
  return %y, %q : tensor<8x32xi32>, tensor<8x32xi8>
}
