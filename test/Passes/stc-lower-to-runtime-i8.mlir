// stc-lower-to-runtime on i8 (signed, quantized) tensors: run-time
// stc.prune / compress / decompress / check call the _i8 entry points, with
// i8 memref operands (metadata stays i16, the check result i8); a constant
// i8 stc.compress operand that is not 2:4 is a compile-time error, -128
// counting as a non-zero like any other value.
// RUN: stc-opt %s -split-input-file -verify-diagnostics --stc-lower-to-runtime | FileCheck %s --implicit-check-not=stc.

// CHECK-DAG: func.func private @stc_rt_prune_i8(memref<?x?xi8, strided<[?, ?], offset: ?>>, memref<?x?xi8, strided<[?, ?], offset: ?>>, i64, i64, i64, i64) attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func private @stc_rt_compress_i8(memref<?x?xi8, strided<[?, ?], offset: ?>>, memref<?x?xi8, strided<[?, ?], offset: ?>>, memref<?x?xi16, strided<[?, ?], offset: ?>>, i64, i64, i64, memref<?xi8>) attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func private @stc_rt_decompress_i8(memref<?x?xi8, strided<[?, ?], offset: ?>>, memref<?x?xi16, strided<[?, ?], offset: ?>>, memref<?x?xi8, strided<[?, ?], offset: ?>>, i64, i64, i64, memref<?xi8>) attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func private @stc_rt_check_i8(memref<?x?xi8, strided<[?, ?], offset: ?>>, i64, i64, i64) -> i8 attributes {llvm.emit_c_interface}
// "quant.py:9:3" in ASCII.
// CHECK-DAG: memref.global "private" constant @[[$LOC:.*]] : memref<12xi8> = dense<[113, 117, 97, 110, 116, 46, 112, 121, 58, 57, 58, 51]>

// CHECK-LABEL: func.func @prune_i8
// CHECK-SAME: (%[[W:.*]]: tensor<8x16xi8>)
// CHECK: %[[IN:.*]] = bufferization.to_buffer %[[W]] read_only : tensor<8x16xi8> to memref<8x16xi8, strided<[?, ?], offset: ?>>
// CHECK: %[[INC:.*]] = memref.cast %[[IN]] : memref<8x16xi8, strided<[?, ?], offset: ?>> to memref<?x?xi8, strided<[?, ?], offset: ?>>
// CHECK: %[[OUT:.*]] = memref.alloc() : memref<8x16xi8>
// CHECK: %[[OUTC:.*]] = memref.cast %[[OUT]] : memref<8x16xi8> to memref<?x?xi8, strided<[?, ?], offset: ?>>
// CHECK-DAG: %[[DIM:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[N:.*]] = arith.constant 2 : i64
// CHECK-DAG: %[[M:.*]] = arith.constant 4 : i64
// CHECK-DAG: %[[STRIP:.*]] = arith.constant 0 : i64
// CHECK: call @stc_rt_prune_i8(%[[INC]], %[[OUTC]], %[[DIM]], %[[N]], %[[M]], %[[STRIP]])
// CHECK: %[[T:.*]] = bufferization.to_tensor %[[OUT]] restrict writable : memref<8x16xi8> to tensor<8x16xi8>
// CHECK: return %[[T]]
func.func @prune_i8(%w: tensor<8x16xi8>) -> tensor<8x16xi8> {
  %p = stc.prune %w by #stc.nm<2:4> along 1 : tensor<8x16xi8>
  return %p : tensor<8x16xi8>
}

// Tile pruning along dimension 0: method 1 as the last argument.
// CHECK-LABEL: func.func @prune_tile_i8
// CHECK-DAG: %[[DIM:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[TILE:.*]] = arith.constant 1 : i64
// CHECK: call @stc_rt_prune_i8(%{{.*}}, %{{.*}}, %[[DIM]], %{{.*}}, %{{.*}}, %[[TILE]])
func.func @prune_tile_i8(%w: tensor<16x8xi8>) -> tensor<16x8xi8> {
  %p = stc.prune %w by #stc.nm<2:4> along 0 method tile : tensor<16x8xi8>
  return %p : tensor<16x8xi8>
}

// Along dimension 0 of a 32 x 8 i8 weight: 8 compressed rows of 16 i8
// values and 2 i16 metadata words.
// CHECK-LABEL: func.func @compress_i8
// CHECK-SAME: (%[[W:.*]]: tensor<32x8xi8>)
// CHECK: %[[IN:.*]] = bufferization.to_buffer %[[W]] read_only : tensor<32x8xi8> to memref<32x8xi8, strided<[?, ?], offset: ?>>
// CHECK: %[[INC:.*]] = memref.cast %[[IN]] : {{.*}} to memref<?x?xi8, strided<[?, ?], offset: ?>>
// CHECK: %[[V:.*]] = memref.alloc() : memref<8x16xi8>
// CHECK: %[[M:.*]] = memref.alloc() : memref<8x2xi16>
// CHECK: %[[G:.*]] = memref.get_global @[[$LOC]] : memref<12xi8>
// CHECK: %[[WHERE:.*]] = memref.cast %[[G]] : memref<12xi8> to memref<?xi8>
// CHECK: %[[VC:.*]] = memref.cast %[[V]] : memref<8x16xi8> to memref<?x?xi8, strided<[?, ?], offset: ?>>
// CHECK: %[[MC:.*]] = memref.cast %[[M]] : memref<8x2xi16> to memref<?x?xi16, strided<[?, ?], offset: ?>>
// CHECK: %[[DIM:.*]] = arith.constant 0 : i64
// CHECK: call @stc_rt_compress_i8(%[[INC]], %[[VC]], %[[MC]], %[[DIM]], %{{.*}}, %{{.*}}, %[[WHERE]])
// CHECK-DAG: %[[TV:.*]] = bufferization.to_tensor %[[V]] restrict writable : memref<8x16xi8> to tensor<8x16xi8>
// CHECK-DAG: %[[TM:.*]] = bufferization.to_tensor %[[M]] restrict writable : memref<8x2xi16> to tensor<8x2xi16>
// CHECK: return %[[TV]], %[[TM]]
func.func @compress_i8(%w: tensor<32x8xi8>) -> (tensor<8x16xi8>, tensor<8x2xi16>) {
  %v, %m = stc.compress %w by #stc.nm<2:4> along 0 : tensor<32x8xi8> -> tensor<8x16xi8>, tensor<8x2xi16> loc("quant.py":9:3)
  return %v, %m : tensor<8x16xi8>, tensor<8x2xi16>
}

// CHECK-LABEL: func.func @decompress_i8
// CHECK-SAME: (%[[V:.*]]: tensor<8x8xi8>, %[[M:.*]]: tensor<8x1xi16>)
// CHECK: %[[OUT:.*]] = memref.alloc() : memref<8x16xi8>
// CHECK: %[[G:.*]] = memref.get_global @[[$LOC]] : memref<12xi8>
// CHECK: %[[WHERE:.*]] = memref.cast %[[G]]
// CHECK: %[[VB:.*]] = bufferization.to_buffer %[[V]] read_only : tensor<8x8xi8> to memref<8x8xi8, strided<[?, ?], offset: ?>>
// CHECK: %[[VC:.*]] = memref.cast %[[VB]]
// CHECK: %[[MB:.*]] = bufferization.to_buffer %[[M]] read_only : tensor<8x1xi16> to memref<8x1xi16, strided<[?, ?], offset: ?>>
// CHECK: %[[MC:.*]] = memref.cast %[[MB]]
// CHECK: %[[OUTC:.*]] = memref.cast %[[OUT]] : memref<8x16xi8> to memref<?x?xi8, strided<[?, ?], offset: ?>>
// CHECK: %[[DIM:.*]] = arith.constant 1 : i64
// CHECK: call @stc_rt_decompress_i8(%[[VC]], %[[MC]], %[[OUTC]], %[[DIM]], %{{.*}}, %{{.*}}, %[[WHERE]])
// CHECK: %[[T:.*]] = bufferization.to_tensor %[[OUT]] restrict writable : memref<8x16xi8> to tensor<8x16xi8>
// CHECK: return %[[T]]
func.func @decompress_i8(%v: tensor<8x8xi8>, %m: tensor<8x1xi16>) -> tensor<8x16xi8> {
  %d = stc.decompress %v, %m by #stc.nm<2:4> along 1 : tensor<8x8xi8>, tensor<8x1xi16> -> tensor<8x16xi8> loc("quant.py":9:3)
  return %d : tensor<8x16xi8>
}

// CHECK-LABEL: func.func @check_i8
// CHECK-SAME: (%[[W:.*]]: tensor<4x8xi8>)
// CHECK: %[[IN:.*]] = bufferization.to_buffer %[[W]] read_only
// CHECK: %[[INC:.*]] = memref.cast %[[IN]]
// CHECK-DAG: %[[DIM:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[N:.*]] = arith.constant 2 : i64
// CHECK-DAG: %[[M:.*]] = arith.constant 4 : i64
// CHECK: %[[R:.*]] = call @stc_rt_check_i8(%[[INC]], %[[DIM]], %[[N]], %[[M]]) : (memref<?x?xi8, strided<[?, ?], offset: ?>>, i64, i64, i64) -> i8
// CHECK: %[[Z:.*]] = arith.constant 0 : i8
// CHECK: %[[OK:.*]] = arith.cmpi ne, %[[R]], %[[Z]] : i8
// CHECK: return %[[OK]]
func.func @check_i8(%w: tensor<4x8xi8>) -> i1 {
  %ok = stc.check %w by #stc.nm<2:4> along 1 : tensor<4x8xi8>
  return %ok : i1
}

// -----

// Row 1, group 1 (columns 4..7) has three non-zeros, -128 among them.
func.func @constant_i8_not_two_four() -> (tensor<2x8xi8>, tensor<2x1xi16>) {
  %w = arith.constant dense<[[-128, 0, 0, 127, 0, 0, 0, 0],
                             [1, 1, 0, 0, 1, -128, 0, -1]]> : tensor<2x8xi8>
  // expected-error @+1 {{stc.compress: constant operand is not 2:4 along dimension 1: row 1, group 1 has 3 non-zeros}}
  %v, %m = stc.compress %w by #stc.nm<2:4> along 1 : tensor<2x8xi8> -> tensor<2x8xi8>, tensor<2x1xi16>
  return %v, %m : tensor<2x8xi8>, tensor<2x1xi16>
}
