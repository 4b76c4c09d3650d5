// stc-lower-elementwise-to-gpu: each linalg.generic of parallel and
// reduction loops on tensors becomes a kernel of gpu.module @stc_kernels (one
// thread per result element, 256 per block: the flat index split into the
// parallel loop indices, each input loaded at its own row-major offset, the
// body cloned, in a loop over the reduction carrying the result; math
// functions as arith polynomials) and a call of a private host function on
// buffers (inputs, then the result) and the loop sizes, marked
// stc_gpu.launches. A transposed input reads at (iv1 * d0 + iv0), a
// broadcast one at its own dimensions only; a constant the body captures is
// cloned; a body that reads the result's old value gets it as one more input.
// i1 results stay, with a remark.
// RUN: stc-opt %s --stc-lower-elementwise-to-gpu --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s

func.func @bias_transpose(%x: tensor<4x?xf32>, %b: tensor<4xf32>) -> tensor<?x4xf32> {
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c1 : tensor<4x?xf32>
  %e = tensor.empty(%n) : tensor<?x4xf32>
  %two = arith.constant 2.0 : f32
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> ()>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%x, %b, %two : tensor<4x?xf32>, tensor<4xf32>, f32) outs(%e : tensor<?x4xf32>) {
  ^bb0(%a: f32, %c: f32, %t: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    %m = arith.mulf %s, %t : f32
    %x1 = math.exp %m : f32
    linalg.yield %x1 : f32
  } -> tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}

func.func @accumulate(%x: tensor<8xi32>, %acc: tensor<8xi32>) -> tensor<8xi32> {
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%x : tensor<8xi32>) outs(%acc : tensor<8xi32>) {
  ^bb0(%a: i32, %o: i32):
    %s = arith.addi %a, %o : i32
    linalg.yield %s : i32
  } -> tensor<8xi32>
  return %r : tensor<8xi32>
}

func.func @row_sum(%x: tensor<8x16xf32>, %init: tensor<8xf32>) -> tensor<8xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<8x16xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}

func.func @bools(%x: tensor<8xf32>, %e: tensor<8xi1>) -> tensor<8xi1> {
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%x : tensor<8xf32>) outs(%e : tensor<8xi1>) {
  ^bb0(%a: f32, %o: i1):
    %z = arith.constant 0.0 : f32
    %s = arith.cmpf ogt, %a, %z : f32
    linalg.yield %s : i1
  } -> tensor<8xi1>
  return %r : tensor<8xi1>
}

// CHECK: remark: stc: elementwise linalg.generic runs on the GPU as @stc_ew_0
// CHECK: remark: stc: elementwise linalg.generic runs on the GPU as @stc_ew_1
// CHECK: remark: stc: reduction linalg.generic runs on the GPU as @stc_ew_2
// CHECK: remark: stc: linalg.generic stays on the host: its result has elements of type i1

// CHECK: module attributes {gpu.container_module}
// CHECK-LABEL: func.func @bias_transpose(
// CHECK-SAME: %[[X:.*]]: tensor<4x?xf32>, %[[B:.*]]: tensor<4xf32>)
// The result's size (from its init), then the loop sizes: the dynamic one
// from x, then 4.
// CHECK: %[[INIT:.*]] = tensor.empty
// CHECK: %[[RN:.*]] = tensor.dim %[[INIT]], %{{.*}} : tensor<?x4xf32>
// CHECK: %[[N:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<4x?xf32>
// CHECK: %[[XB:.*]] = bufferization.to_buffer %[[X]] read_only : tensor<4x?xf32> to memref<4x?xf32>
// CHECK: %[[BB:.*]] = bufferization.to_buffer %[[B]] read_only : tensor<4xf32> to memref<4xf32>
// CHECK: %[[OUT:.*]] = memref.alloc(%[[RN]]) : memref<?x4xf32>
// CHECK: call @stc_ew_0_host(%[[XB]], %[[BB]], %[[OUT]], %[[N]], %c4) : (memref<4x?xf32>, memref<4xf32>, memref<?x4xf32>, index, index) -> ()
// CHECK: %[[R:.*]] = bufferization.to_tensor %[[OUT]] restrict writable
// CHECK: return %[[R]]

// The old value of the result is read: a third buffer.
// CHECK-LABEL: func.func @accumulate(
// CHECK: call @stc_ew_1_host(%{{.*}}, %{{.*}}, %{{.*}}, %c8) : (memref<8xi32>, memref<8xi32>, memref<8xi32>, index) -> ()

// CHECK-LABEL: func.func @row_sum(
// CHECK: call @stc_ew_2_host(%{{.*}}, %{{.*}}, %{{.*}}, %c8, %c16) : (memref<8x16xf32>, memref<8xf32>, memref<8xf32>, index, index) -> ()
// CHECK-LABEL: func.func @bools(
// CHECK: linalg.generic

// CHECK-LABEL: gpu.func @stc_ew_0(
// CHECK-SAME: %[[PX:.*]]: !llvm.ptr, %[[PB:.*]]: !llvm.ptr, %[[PO:.*]]: !llvm.ptr, %[[D0:.*]]: i32, %[[D1:.*]]: i32) kernel
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>
// CHECK-SAME: stc_gpu.elementwise
// CHECK-DAG: %[[TWO:.*]] = arith.constant 2.000000e+00 : f32
// CHECK-DAG: %[[C256:.*]] = arith.constant 256 : i64
// Index arithmetic in i64; a dynamic loop's size from its parameter, a
// static one's a constant (the index splits divide by constants).
// CHECK-DAG: %[[N1:.*]] = arith.constant 4 : i64
// CHECK: %[[N0:.*]] = arith.extui %[[D0]] : i32 to i64
// CHECK: %[[TIDX:.*]] = gpu.thread_id x
// CHECK: %[[TID:.*]] = arith.index_castui %[[TIDX]] : index to i64
// CHECK: %[[BIDX:.*]] = gpu.block_id x
// CHECK: %[[BID:.*]] = arith.index_castui %[[BIDX]] : index to i64
// CHECK: %[[BASE:.*]] = arith.muli %[[BID]], %[[C256]]
// CHECK: %[[GID:.*]] = arith.addi %[[BASE]], %[[TID]]
// CHECK: %[[TOTAL:.*]] = arith.muli %[[N0]], %[[N1]]
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[GID]], %[[TOTAL]]
// CHECK: scf.if %[[IN]] {
// CHECK: %[[IV1:.*]] = arith.remui %[[GID]], %[[N1]]
// CHECK: %[[Q:.*]] = arith.divui %[[GID]], %[[N1]]
// CHECK: %[[IV0:.*]] = arith.remui %[[Q]], %[[N0]]
// x is read transposed: x[iv1][iv0].
// CHECK: %[[XR:.*]] = arith.muli %[[IV1]], %[[N0]]
// CHECK: %[[XO:.*]] = arith.addi %[[XR]], %[[IV0]]
// CHECK: %[[XP:.*]] = llvm.getelementptr %[[PX]][%[[XO]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK: %[[XV:.*]] = llvm.load %[[XP]] : !llvm.ptr -> f32
// b is broadcast along the rows: b[iv1].
// CHECK: %[[BP:.*]] = llvm.getelementptr %[[PB]][%[[IV1]]]
// CHECK: %[[BV:.*]] = llvm.load %[[BP]] : !llvm.ptr -> f32
// CHECK: %[[S:.*]] = arith.addf %[[XV]], %[[BV]]
// CHECK: arith.mulf %[[S]], %[[TWO]]
// math.exp as a polynomial: no math.exp is left.
// CHECK-NOT: math.exp
// CHECK: %[[OP:.*]] = llvm.getelementptr %[[PO]][%[[GID]]]
// CHECK: llvm.store %{{.*}}, %[[OP]] : f32, !llvm.ptr
// CHECK: }
// CHECK: gpu.return

// CHECK-LABEL: gpu.func @stc_ew_1(
// CHECK-SAME: %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i32) kernel
// CHECK: arith.addi %{{.*}}, %{{.*}} : i32

// One thread per row; each walks its row, from the init's value.
// CHECK-LABEL: gpu.func @stc_ew_2(
// CHECK-SAME: %[[RX:.*]]: !llvm.ptr, %[[RI:.*]]: !llvm.ptr, %[[RO:.*]]: !llvm.ptr, %[[R0:.*]]: i32, %[[R1:.*]]: i32) kernel
// CHECK-DAG: %[[ROWS:.*]] = arith.constant 8 : i64
// CHECK-DAG: %[[COLS:.*]] = arith.constant 16 : i64
// CHECK: %[[RGID:.*]] = arith.addi
// CHECK: %[[RIN:.*]] = arith.cmpi ult, %[[RGID]], %[[ROWS]]
// CHECK: scf.if %[[RIN]] {
// CHECK: %[[ROW:.*]] = arith.remui %[[RGID]], %[[ROWS]]
// CHECK: %[[IP:.*]] = llvm.getelementptr %[[RI]][%[[ROW]]]
// CHECK: %[[START:.*]] = llvm.load %[[IP]] : !llvm.ptr -> f32
// CHECK: %[[SUM:.*]] = scf.for %[[K:.*]] = %{{.*}} to %[[COLS]] step %{{.*}} iter_args(%[[ACC:.*]] = %[[START]]) -> (f32) : i64 {
// CHECK: %[[KK:.*]] = arith.remui %[[K]], %[[COLS]]
// CHECK: %[[RB:.*]] = arith.muli %[[ROW]], %[[COLS]]
// CHECK: %[[XO2:.*]] = arith.addi %[[RB]], %[[KK]]
// CHECK: %[[VP:.*]] = llvm.getelementptr %[[RX]][%[[XO2]]]
// CHECK: %[[V:.*]] = llvm.load %[[VP]]
// CHECK: %[[NEXT:.*]] = arith.addf %[[V]], %[[ACC]] : f32
// CHECK: scf.yield %[[NEXT]]
// CHECK: llvm.store %[[SUM]]

// CHECK-LABEL: func.func private @stc_ew_0_host(memref<4x?xf32>, memref<4xf32>, memref<?x4xf32>, index, index)
// CHECK-SAME: stc_gpu.launches = @stc_kernels::@stc_ew_0
