// `stc-run --check` builds the dense reference of the whole module: a
// dynamic-shape function next to the static entry has a reference too (the
// reference lowering handles dynamic shapes), and the entry's check passes.
// RUN: stc-run %s --entry=main --sparsity=force --random-inputs --check 2>&1 | FileCheck %s
// CHECK: stc-run: check: result #0 relative error {{.*}}: PASS

func.func @main(%x: tensor<4x8xf32>, %w: tensor<8x6xf32>) -> tensor<4x6xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x6xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x6xf32>) -> tensor<4x6xf32>
  %r = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x6xf32>)
                     outs(%z : tensor<4x6xf32>) -> tensor<4x6xf32>
  return %r : tensor<4x6xf32>
}

func.func @other(%x: tensor<?x?xf32>, %w: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = linalg.matmul ins(%x, %w : tensor<?x?xf32>, tensor<?x?xf32>)
                     outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
