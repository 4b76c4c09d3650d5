// bf16 x bf16 under --sparsity=force, accumulating in f32, with an f32
// result (@main) and a bf16 result (@bf16_out; bf16 travels as f32 .npy
// files holding bf16 values). Weights are drawn without magnitude ties in a
// group of 4. Tolerance 1e-2 (docs/DESIGN.md §7). Dynamic shapes.
// REQUIRES: numpy
// RUN: %e2e --mlir %s --case sp_rhs_bf16tof32_force_32_64_48
// RUN: %e2e --mlir %s --case sp_rhs_bf16tof32_force_17_3_33
// RUN: %e2e --mlir %s --case sp_rhs_bf16tof32_force_100_130_1
// RUN: %e2e --mlir %s --case sp_rhs_bf16_force_32_64_48 -- --entry=bf16_out
// RUN: %e2e --mlir %s --case sp_rhs_bf16_force_1_33_130 -- --entry=bf16_out
func.func @main(%x: tensor<?x?xbf16>, %w: tensor<?x?xbf16>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %x, %c0 : tensor<?x?xbf16>
  %n = tensor.dim %w, %c1 : tensor<?x?xbf16>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = linalg.matmul ins(%x, %w : tensor<?x?xbf16>, tensor<?x?xbf16>)
                     outs(%z : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

func.func @bf16_out(%x: tensor<?x?xbf16>, %w: tensor<?x?xbf16>) -> tensor<?x?xbf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %x, %c0 : tensor<?x?xbf16>
  %n = tensor.dim %w, %c1 : tensor<?x?xbf16>
  %zero = arith.constant 0.0 : bf16
  %e = tensor.empty(%m, %n) : tensor<?x?xbf16>
  %z = linalg.fill ins(%zero : bf16) outs(%e : tensor<?x?xbf16>) -> tensor<?x?xbf16>
  %r = linalg.matmul ins(%x, %w : tensor<?x?xbf16>, tensor<?x?xbf16>)
                     outs(%z : tensor<?x?xbf16>) -> tensor<?x?xbf16>
  return %r : tensor<?x?xbf16>
}
