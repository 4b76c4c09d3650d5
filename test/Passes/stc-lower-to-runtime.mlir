// stc-lower-to-runtime: run-time stc.prune / compress / decompress / check
// become calls to the C-interface stc_runtime entry points on memref
// descriptors (read-only input buffers cast to a fully dynamic strided
// layout, freshly allocated outputs turned back into tensors), with the op's
// source location passed as a string; a constant stc.compress operand that
// is not 2:4 is a compile-time error naming the first bad group.
// RUN: stc-opt %s -split-input-file -verify-diagnostics --stc-lower-to-runtime | FileCheck %s

// CHECK-DAG: func.func private @stc_rt_prune_f32(memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, i64, i64, i64, i64) attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func private @stc_rt_compress_f16(memref<?x?xf16, strided<[?, ?], offset: ?>>, memref<?x?xf16, strided<[?, ?], offset: ?>>, memref<?x?xi16, strided<[?, ?], offset: ?>>, i64, i64, i64, memref<?xi8>) attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func private @stc_rt_decompress_bf16(memref<?x?xbf16, strided<[?, ?], offset: ?>>, memref<?x?xi16, strided<[?, ?], offset: ?>>, memref<?x?xbf16, strided<[?, ?], offset: ?>>, i64, i64, i64, memref<?xi8>) attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func private @stc_rt_check_f32(memref<?x?xf32, strided<[?, ?], offset: ?>>, i64, i64, i64) -> i8 attributes {llvm.emit_c_interface}
// "model.py:42:7" in ASCII; one global serves every op with that location.
// CHECK-DAG: memref.global "private" constant @[[$LOC:.*]] : memref<13xi8> = dense<[109, 111, 100, 101, 108, 46, 112, 121, 58, 52, 50, 58, 55]>
// CHECK-NOT: memref.global "private" constant @{{.*}} : memref<13xi8>

// CHECK-LABEL: func.func @prune_f32
// CHECK-SAME: (%[[W:.*]]: tensor<8x16xf32>)
// CHECK: %[[IN:.*]] = bufferization.to_buffer %[[W]] read_only : tensor<8x16xf32> to memref<8x16xf32, strided<[?, ?], offset: ?>>
// CHECK: %[[INC:.*]] = memref.cast %[[IN]] : memref<8x16xf32, strided<[?, ?], offset: ?>> to memref<?x?xf32, strided<[?, ?], offset: ?>>
// CHECK: %[[OUT:.*]] = memref.alloc() : memref<8x16xf32>
// CHECK: %[[OUTC:.*]] = memref.cast %[[OUT]] : memref<8x16xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
// CHECK-DAG: %[[DIM:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[N:.*]] = arith.constant 2 : i64
// CHECK-DAG: %[[M:.*]] = arith.constant 4 : i64
// CHECK-DAG: %[[STRIP:.*]] = arith.constant 0 : i64
// CHECK: call @stc_rt_prune_f32(%[[INC]], %[[OUTC]], %[[DIM]], %[[N]], %[[M]], %[[STRIP]])
// CHECK: %[[T:.*]] = bufferization.to_tensor %[[OUT]] restrict writable : memref<8x16xf32> to tensor<8x16xf32>
// CHECK: return %[[T]]
func.func @prune_f32(%w: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %p = stc.prune %w by #stc.nm<2:4> along 1 : tensor<8x16xf32>
  return %p : tensor<8x16xf32>
}

// The pruning method travels as the last argument (1 = tile).
// CHECK-LABEL: func.func @prune_tile_bf16
// CHECK-DAG: %[[DIM:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[TILE:.*]] = arith.constant 1 : i64
// CHECK: call @stc_rt_prune_bf16(%{{.*}}, %{{.*}}, %[[DIM]], %{{.*}}, %{{.*}}, %[[TILE]])
func.func @prune_tile_bf16(%w: tensor<16x8xbf16>) -> tensor<16x8xbf16> {
  %p = stc.prune %w by #stc.nm<2:4> along 0 method tile : tensor<16x8xbf16>
  return %p : tensor<16x8xbf16>
}

// Along dimension 0 of a 32 x 8 f16 weight: 8 compressed rows of 16 values
// and 2 metadata words.
// CHECK-LABEL: func.func @compress_f16
// CHECK-SAME: (%[[W:.*]]: tensor<32x8xf16>)
// CHECK: %[[IN:.*]] = bufferization.to_buffer %[[W]] read_only : tensor<32x8xf16> to memref<32x8xf16, strided<[?, ?], offset: ?>>
// CHECK: %[[INC:.*]] = memref.cast %[[IN]] : {{.*}} to memref<?x?xf16, strided<[?, ?], offset: ?>>
// CHECK: %[[V:.*]] = memref.alloc() : memref<8x16xf16>
// CHECK: %[[M:.*]] = memref.alloc() : memref<8x2xi16>
// CHECK: %[[G:.*]] = memref.get_global @[[$LOC]] : memref<13xi8>
// CHECK: %[[WHERE:.*]] = memref.cast %[[G]] : memref<13xi8> to memref<?xi8>
// CHECK: %[[VC:.*]] = memref.cast %[[V]] : memref<8x16xf16> to memref<?x?xf16, strided<[?, ?], offset: ?>>
// CHECK: %[[MC:.*]] = memref.cast %[[M]] : memref<8x2xi16> to memref<?x?xi16, strided<[?, ?], offset: ?>>
// CHECK: %[[DIM:.*]] = arith.constant 0 : i64
// CHECK: call @stc_rt_compress_f16(%[[INC]], %[[VC]], %[[MC]], %[[DIM]], %{{.*}}, %{{.*}}, %[[WHERE]])
// CHECK-DAG: %[[TV:.*]] = bufferization.to_tensor %[[V]] restrict writable : memref<8x16xf16> to tensor<8x16xf16>
// CHECK-DAG: %[[TM:.*]] = bufferization.to_tensor %[[M]] restrict writable : memref<8x2xi16> to tensor<8x2xi16>
// CHECK: return %[[TV]], %[[TM]]
func.func @compress_f16(%w: tensor<32x8xf16>) -> (tensor<8x16xf16>, tensor<8x2xi16>) {
  %v, %m = stc.compress %w by #stc.nm<2:4> along 0 : tensor<32x8xf16> -> tensor<8x16xf16>, tensor<8x2xi16> loc("model.py":42:7)
  return %v, %m : tensor<8x16xf16>, tensor<8x2xi16>
}

// CHECK-LABEL: func.func @decompress_bf16
// CHECK-SAME: (%[[V:.*]]: tensor<8x8xbf16>, %[[M:.*]]: tensor<8x1xi16>)
// CHECK: %[[OUT:.*]] = memref.alloc() : memref<8x16xbf16>
// CHECK: %[[G:.*]] = memref.get_global @[[$LOC]] : memref<13xi8>
// CHECK: %[[WHERE:.*]] = memref.cast %[[G]]
// CHECK: %[[VB:.*]] = bufferization.to_buffer %[[V]] read_only : tensor<8x8xbf16> to memref<8x8xbf16, strided<[?, ?], offset: ?>>
// CHECK: %[[VC:.*]] = memref.cast %[[VB]]
// CHECK: %[[MB:.*]] = bufferization.to_buffer %[[M]] read_only : tensor<8x1xi16> to memref<8x1xi16, strided<[?, ?], offset: ?>>
// CHECK: %[[MC:.*]] = memref.cast %[[MB]]
// CHECK: %[[OUTC:.*]] = memref.cast %[[OUT]] : memref<8x16xbf16> to memref<?x?xbf16, strided<[?, ?], offset: ?>>
// CHECK: %[[DIM:.*]] = arith.constant 1 : i64
// CHECK: call @stc_rt_decompress_bf16(%[[VC]], %[[MC]], %[[OUTC]], %[[DIM]], %{{.*}}, %{{.*}}, %[[WHERE]])
// CHECK: %[[T:.*]] = bufferization.to_tensor %[[OUT]] restrict writable : memref<8x16xbf16> to tensor<8x16xbf16>
// CHECK: return %[[T]]
func.func @decompress_bf16(%v: tensor<8x8xbf16>, %m: tensor<8x1xi16>) -> tensor<8x16xbf16> {
  %d = stc.decompress %v, %m by #stc.nm<2:4> along 1 : tensor<8x8xbf16>, tensor<8x1xi16> -> tensor<8x16xbf16> loc("model.py":42:7)
  return %d : tensor<8x16xbf16>
}

// The i8 result of the runtime check is compared with 0 to give the i1.
// CHECK-LABEL: func.func @check_f32
// CHECK-SAME: (%[[W:.*]]: tensor<4x8xf32>)
// CHECK: %[[IN:.*]] = bufferization.to_buffer %[[W]] read_only
// CHECK: %[[INC:.*]] = memref.cast %[[IN]]
// CHECK-DAG: %[[DIM:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[N:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[M:.*]] = arith.constant 2 : i64
// CHECK: %[[R:.*]] = call @stc_rt_check_f32(%[[INC]], %[[DIM]], %[[N]], %[[M]]) : (memref<?x?xf32, strided<[?, ?], offset: ?>>, i64, i64, i64) -> i8
// CHECK: %[[Z:.*]] = arith.constant 0 : i8
// CHECK: %[[OK:.*]] = arith.cmpi ne, %[[R]], %[[Z]] : i8
// CHECK: return %[[OK]]
func.func @check_f32(%w: tensor<4x8xf32>) -> i1 {
  %ok = stc.check %w by #stc.nm<1:2> along 1 : tensor<4x8xf32>
  return %ok : i1
}

// -----

// Row 1, group 1 (columns 4..7) has three non-zeros.
func.func @constant_not_two_four_dim1() -> (tensor<2x8xf32>, tensor<2x1xi16>) {
  %w = arith.constant dense<[[1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                             [1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 0.0]]> : tensor<2x8xf32>
  // expected-error @+1 {{stc.compress: constant operand is not 2:4 along dimension 1: row 1, group 1 has 3 non-zeros}}
  %v, %m = stc.compress %w by #stc.nm<2:4> along 1 : tensor<2x8xf32> -> tensor<2x8xf32>, tensor<2x1xi16>
  return %v, %m : tensor<2x8xf32>, tensor<2x1xi16>
}

// -----

// Along dimension 0 the compressed rows are columns: column 1, rows 4..7
// (group 1) has four non-zeros.
func.func @constant_not_two_four_dim0() -> (tensor<2x8xf32>, tensor<2x1xi16>) {
  %w = arith.constant dense<[[1.0, 0.0], [1.0, 0.0], [0.0, 0.0], [0.0, 0.0],
                             [0.0, 2.0], [0.0, 2.0], [0.0, 2.0], [0.0, 2.0]]> : tensor<8x2xf32>
  // expected-error @+1 {{stc.compress: constant operand is not 2:4 along dimension 0: row 1, group 1 has 4 non-zeros}}
  %v, %m = stc.compress %w by #stc.nm<2:4> along 0 : tensor<8x2xf32> -> tensor<2x8xf32>, tensor<2x1xi16>
  return %v, %m : tensor<2x8xf32>, tensor<2x1xi16>
}
