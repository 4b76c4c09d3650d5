// stc-lower-elementwise-to-gpu's fusion control: an elementwise producer
// with several consumers is recomputed in each when that reads fewer bytes
// than writing its result once and reading it in each consumer. Softmax's
// exp(x - max) (f16 x, f32 result, two consumers: 2 x 2 bytes against
// 3 x 4) is recomputed in the row sum and the division, which then read
// only x and the row values: the three make one row kernel (RowKernel.h),
// and no kernel writes the exponentials. A sum of two f32 tensors with two
// consumers (2 x 8 bytes against 3 x 4) stays its own kernel.
// RUN: stc-opt %s --stc-lower-elementwise-to-gpu --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s

// CHECK-LABEL: func.func @softmax
// CHECK: call @stc_ew_{{[0-9]+}}_host
// CHECK-NOT: call @stc_ew_
// CHECK: return
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
func.func @softmax(%x: tensor<4x128xf16>) -> tensor<4x128xf16> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %rows = tensor.empty() : tensor<4xf32>
  %full = tensor.empty() : tensor<4x128xf32>
  %full16 = tensor.empty() : tensor<4x128xf16>
  %maxInit = linalg.fill ins(%ninf : f32) outs(%rows : tensor<4xf32>) -> tensor<4xf32>
  %max = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x128xf16>) outs(%maxInit : tensor<4xf32>) {
  ^bb0(%a: f16, %m: f32):
    %a32 = arith.extf %a : f16 to f32
    %r = arith.maximumf %a32, %m : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %e = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %max : tensor<4x128xf16>, tensor<4xf32>) outs(%full : tensor<4x128xf32>) {
  ^bb0(%a: f16, %m: f32, %o: f32):
    %a32 = arith.extf %a : f16 to f32
    %d = arith.subf %a32, %m : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<4x128xf32>
  %sumInit = linalg.fill ins(%zero : f32) outs(%rows : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%e : tensor<4x128xf32>) outs(%sumInit : tensor<4xf32>) {
  ^bb0(%a: f32, %s: f32):
    %r = arith.addf %a, %s : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %p = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%e, %sum : tensor<4x128xf32>, tensor<4xf32>) outs(%full16 : tensor<4x128xf16>) {
  ^bb0(%a: f32, %s: f32, %o: f16):
    %r = arith.divf %a, %s : f32
    %r16 = arith.truncf %r : f32 to f16
    linalg.yield %r16 : f16
  } -> tensor<4x128xf16>
  return %p : tensor<4x128xf16>
}

// The sum is computed once and read by both consumers: three kernels.
// CHECK-LABEL: func.func @wide_inputs
// CHECK-COUNT-3: call @stc_ew_{{[0-9]+}}_host
// CHECK-NOT: call @stc_ew_
// CHECK: return
func.func @wide_inputs(%a: tensor<4x128xf32>, %b: tensor<4x128xf32>) -> (tensor<4x128xf32>, tensor<4x128xf32>) {
  %full = tensor.empty() : tensor<4x128xf32>
  %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%a, %b : tensor<4x128xf32>, tensor<4x128xf32>) outs(%full : tensor<4x128xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %r = arith.addf %x, %y : f32
    linalg.yield %r : f32
  } -> tensor<4x128xf32>
  %u = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%s : tensor<4x128xf32>) outs(%full : tensor<4x128xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = math.exp %x : f32
    linalg.yield %r : f32
  } -> tensor<4x128xf32>
  %v = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%s : tensor<4x128xf32>) outs(%full : tensor<4x128xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = math.tanh %x : f32
    linalg.yield %r : f32
  } -> tensor<4x128xf32>
  return %u, %v : tensor<4x128xf32>, tensor<4x128xf32>
}
