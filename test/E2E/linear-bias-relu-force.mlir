// X . W + b followed by ReLU under --sparsity=force: the bias add (a rank-1
// tensor broadcast over rows) and the ReLU (arith.maximumf with 0) are
// fused into the stc.spmm epilogue (checked on the IR with --emit=stc) and
// the numbers match the NumPy reference with the rhs pruned 2:4 along K.
// Dynamic shapes: ragged sizes and one larger layer (256 x 512 x 384).
// REQUIRES: numpy
// RUN: stc-compile %s --sparsity=force --emit=stc -o - | FileCheck %s
// RUN: %e2e --mlir %s --case sp_rhs_bias_relu_f32_force_32_64_16
// RUN: %e2e --mlir %s --case sp_rhs_bias_relu_f32_force_1_3_17
// RUN: %e2e --mlir %s --case sp_rhs_bias_relu_f32_force_33_130_100
// RUN: %e2e --mlir %s --case sp_rhs_bias_relu_f32_force_256_512_384 --seed 11

// CHECK-LABEL: func.func @main
// CHECK: stc.spmm {{.*}} bias({{.*}}) {activation = #stc.activation<relu>
// CHECK-NOT: linalg.generic
// CHECK-NOT: linalg.matmul
// CHECK: return
func.func @main(%x: tensor<?x?xf32>, %w: tensor<?x?xf32>, %b: tensor<?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %n = tensor.dim %w, %c1 : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<?x?xf32>, tensor<?x?xf32>)
                      outs(%z : tensor<?x?xf32>) -> tensor<?x?xf32>
  %biased = linalg.generic
      {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                        affine_map<(d0, d1) -> (d1)>,
                        affine_map<(d0, d1) -> (d0, d1)>],
       iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<?x?xf32>, tensor<?xf32>) outs(%e : tensor<?x?xf32>) {
  ^bb0(%a: f32, %bb: f32, %o: f32):
    %s = arith.addf %a, %bb : f32
    linalg.yield %s : f32
  } -> tensor<?x?xf32>
  %relu = linalg.generic
      {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                        affine_map<(d0, d1) -> (d0, d1)>],
       iterator_types = ["parallel", "parallel"]}
      ins(%biased : tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %a, %zero : f32
    linalg.yield %r : f32
  } -> tensor<?x?xf32>
  return %relu : tensor<?x?xf32>
}
