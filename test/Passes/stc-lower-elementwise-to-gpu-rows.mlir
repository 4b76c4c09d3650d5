// stc-lower-elementwise-to-gpu's row groups (passes/GPU/RowKernel.h): the
// shape of the kernel, and the groups it does not form.
// RUN: stc-opt %s --stc-lower-elementwise-to-gpu --split-input-file --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s

// A softmax over rows of 128: one kernel, a warp per row (8 rows per block
// of 256), each of the two reductions combined across the warp in five
// butterfly shuffles, no barrier; the host launches ceil(rows / 8) blocks.
// CHECK-LABEL: func.func @softmax
// CHECK: call @[[K:stc_ew_[0-9]+]]_host
// CHECK-NOT: call @stc_ew_
// CHECK: gpu.func @[[K]](
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>, stc_gpu.elementwise, stc_gpu.rows_per_block = 8 : i64
// CHECK-COUNT-10: gpu.shuffle  xor
// CHECK-NOT: gpu.shuffle
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
func.func @softmax(%x: tensor<4x128xf32>) -> tensor<4x128xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %rows = tensor.empty() : tensor<4xf32>
  %full = tensor.empty() : tensor<4x128xf32>
  %maxInit = linalg.fill ins(%ninf : f32) outs(%rows : tensor<4xf32>) -> tensor<4xf32>
  %max = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x128xf32>) outs(%maxInit : tensor<4xf32>) {
  ^bb0(%a: f32, %m: f32):
    %r = arith.maximumf %a, %m : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %sumInit = linalg.fill ins(%zero : f32) outs(%rows : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]} ins(%x, %max : tensor<4x128xf32>, tensor<4xf32>) outs(%sumInit : tensor<4xf32>) {
  ^bb0(%a: f32, %m: f32, %s: f32):
    %d = arith.subf %a, %m : f32
    %e = math.exp %d : f32
    %r = arith.addf %e, %s : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %p = linalg.generic {indexing_maps = [#id, #row, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %max, %sum : tensor<4x128xf32>, tensor<4xf32>, tensor<4xf32>) outs(%full : tensor<4x128xf32>) {
  ^bb0(%a: f32, %m: f32, %s: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %e = math.exp %d : f32
    %q = arith.divf %e, %s : f32
    linalg.yield %q : f32
  } -> tensor<4x128xf32>
  return %p : tensor<4x128xf32>
}

// -----

// Rows of 4096: a team of 256 threads per row, one row per block; the
// team's 8 warps combine through a word each of shared memory, between
// two barriers.
// CHECK-LABEL: func.func @long_rows
// CHECK: call @[[K:stc_ew_[0-9]+]]_host
// CHECK-NOT: call @stc_ew_
// CHECK: llvm.mlir.global internal @[[K]]_rows() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<8 x i32>
// CHECK: gpu.func @[[K]](
// CHECK-SAME: stc_gpu.rows_per_block = 1 : i64
// CHECK-COUNT-5: gpu.shuffle  xor
// CHECK-COUNT-2: gpu.barrier
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
func.func @long_rows(%x: tensor<3x4096xf32>) -> tensor<3x4096xf32> {
  %zero = arith.constant 0.0 : f32
  %rows = tensor.empty() : tensor<3xf32>
  %full = tensor.empty() : tensor<3x4096xf32>
  %sInit = linalg.fill ins(%zero : f32) outs(%rows : tensor<3xf32>) -> tensor<3xf32>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<3x4096xf32>) outs(%sInit : tensor<3xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<3xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %s : tensor<3x4096xf32>, tensor<3xf32>) outs(%full : tensor<3x4096xf32>) {
  ^bb0(%a: f32, %t: f32, %o: f32):
    %q = arith.divf %a, %t : f32
    linalg.yield %q : f32
  } -> tensor<3x4096xf32>
  return %y : tensor<3x4096xf32>
}

// -----

// No group: a row length known only at run time (the team's size is
// chosen from it), and an f64 row sum (the shuffles move 32-bit words).
// Each op is a kernel of its own.
// CHECK-LABEL: func.func @no_group
// CHECK-COUNT-4: call @stc_ew_{{[0-9]+}}_host
// CHECK-NOT: rows_per_block
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
func.func @no_group(%x: tensor<4x?xf32>, %w: tensor<4x64xf64>) -> (tensor<4x?xf32>, tensor<4x64xf64>) {
  %zero = arith.constant 0.0 : f32
  %zero64 = arith.constant 0.0 : f64
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c1 : tensor<4x?xf32>
  %rows = tensor.empty() : tensor<4xf32>
  %full = tensor.empty(%n) : tensor<4x?xf32>
  %sInit = linalg.fill ins(%zero : f32) outs(%rows : tensor<4xf32>) -> tensor<4xf32>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x?xf32>) outs(%sInit : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %s : tensor<4x?xf32>, tensor<4xf32>) outs(%full : tensor<4x?xf32>) {
  ^bb0(%a: f32, %t: f32, %o: f32):
    %q = arith.divf %a, %t : f32
    linalg.yield %q : f32
  } -> tensor<4x?xf32>
  %rows64 = tensor.empty() : tensor<4xf64>
  %full64 = tensor.empty() : tensor<4x64xf64>
  %tInit = linalg.fill ins(%zero64 : f64) outs(%rows64 : tensor<4xf64>) -> tensor<4xf64>
  %t = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%w : tensor<4x64xf64>) outs(%tInit : tensor<4xf64>) {
  ^bb0(%a: f64, %acc: f64):
    %r = arith.addf %a, %acc : f64
    linalg.yield %r : f64
  } -> tensor<4xf64>
  %z = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%w, %t : tensor<4x64xf64>, tensor<4xf64>) outs(%full64 : tensor<4x64xf64>) {
  ^bb0(%a: f64, %u: f64, %o: f64):
    %q = arith.divf %a, %u : f64
    linalg.yield %q : f64
  } -> tensor<4x64xf64>
  return %y, %z : tensor<4x?xf32>, tensor<4x64xf64>
}
