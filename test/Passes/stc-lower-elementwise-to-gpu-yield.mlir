// stc-lower-elementwise-to-gpu on bodies that yield a value defined outside
// them: a constant (what elementwise fusion leaves when it folds a filled
// value, e.g. extf of a linalg.fill) is cloned into the kernel, which
// stores it (this crashed before: the yield's operand had no copy); any
// other outside value keeps the op on the host with a remark.
// RUN: stc-opt %s --stc-lower-elementwise-to-gpu --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s

func.func @yields_constant(%x: tensor<8xf16>) -> tensor<8xf32> {
  %c = arith.constant 3.5 : f32
  %e = tensor.empty() : tensor<8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%x : tensor<8xf16>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f16, %o: f32):
    linalg.yield %c : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}

func.func @fill_extended() -> tensor<2x3xf32> {
  %z = arith.constant 1.5 : f16
  %e16 = tensor.empty() : tensor<2x3xf16>
  %f = linalg.fill ins(%z : f16) outs(%e16 : tensor<2x3xf16>) -> tensor<2x3xf16>
  %e = tensor.empty() : tensor<2x3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%f : tensor<2x3xf16>) outs(%e : tensor<2x3xf32>) {
  ^bb0(%a: f16, %o: f32):
    %w = arith.extf %a : f16 to f32
    linalg.yield %w : f32
  } -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

func.func @yields_argument(%x: tensor<8xf32>, %s: f32) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// CHECK: remark: stc: elementwise linalg.generic runs on the GPU as @stc_ew_0
// CHECK: remark: stc: elementwise linalg.generic runs on the GPU as @stc_ew_1
// CHECK: remark: stc: linalg.generic stays on the host: its body uses a value computed outside it
// CHECK: gpu.func @stc_ew_0(
// CHECK: %[[C:.*]] = arith.constant 3.500000e+00 : f32
// CHECK: llvm.store %[[C]]
// CHECK: gpu.func @stc_ew_1(
// CHECK: arith.constant 1.500000e+00 : f32
// CHECK: llvm.store
