// The ABI of entry points whose signatures name sparse encodings: stc-run
// (and the C API's _mlir_ciface_ functions) pass dense arrays. A CSR
// argument is converted inside; a 2:4 argument STC compresses is checked
// (a 2:4 one that upstream's sparsifier takes, f64 here, is pruned at
// entry, the identity on 2:4 data); a 2:4 result comes back as its dense,
// pruned values. Inputs and the expected outputs come from NumPy.
//
// RUN: rm -rf %t && mkdir %t
// RUN: %python %S/Inputs/interop_ref.py npy-inputs %t
// RUN: stc-run %s --entry=csr_times --input=%t/a.npy --input=%t/b.npy --output=%t/csr.npy 2>/dev/null
// RUN: stc-run %s --entry=prune_result --input=%t/w.npy --output=%t/pruned.npy 2>/dev/null
// RUN: stc-run %s --entry=f64_24_times --input=%t/a24.npy --input=%t/b.npy --output=%t/f64.npy 2>/dev/null
// RUN: %python %S/Inputs/interop_ref.py npy-check %t | FileCheck %s --check-prefix=NPY
// NPY: csr.npy: ok
// NPY: pruned.npy: ok
// NPY: f64.npy: ok
//
// An argument STC compresses must hold 2:4 data: one error line, no output.
// RUN: not stc-run %s --entry=f32_24_times --input=%t/w.npy --input=%t/b32.npy --output=%t/bad.npy 2>&1 | FileCheck %s --check-prefix=NOT24
// RUN: not test -e %t/bad.npy
// NOT24: entry-dense-abi.mlir:[[# @LINE + 21]]:8: error: stc.compress: operand is not 2:4 along dimension 1

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
#NV_24 = #sparse_tensor.encoding<{
  map = (i, j) -> (i : dense, j floordiv 4 : dense, j mod 4 : structured[2, 4])
}>

func.func @csr_times(%a: tensor<6x8xf64, #CSR>, %b: tensor<8x3xf64>) -> tensor<6x3xf64> {
  %z = arith.constant dense<0.0> : tensor<6x3xf64>
  %r = linalg.matmul ins(%a, %b : tensor<6x8xf64, #CSR>, tensor<8x3xf64>)
                     outs(%z : tensor<6x3xf64>) -> tensor<6x3xf64>
  return %r : tensor<6x3xf64>
}

func.func @prune_result(%w: tensor<6x8xf32>) -> tensor<6x8xf32, #NV_24> {
  %s = sparse_tensor.convert %w : tensor<6x8xf32> to tensor<6x8xf32, #NV_24>
  return %s : tensor<6x8xf32, #NV_24>
}

func.func @f32_24_times(%a: tensor<6x8xf32, #NV_24>, %b: tensor<8x3xf32>) -> tensor<6x3xf32> {
  %z = arith.constant dense<0.0> : tensor<6x3xf32>
  %r = linalg.matmul ins(%a, %b : tensor<6x8xf32, #NV_24>, tensor<8x3xf32>)
                     outs(%z : tensor<6x3xf32>) -> tensor<6x3xf32>
  return %r : tensor<6x3xf32>
}

func.func @f64_24_times(%a: tensor<6x8xf64, #NV_24>, %b: tensor<8x3xf64>) -> tensor<6x3xf64> {
  %z = arith.constant dense<0.0> : tensor<6x3xf64>
  %r = linalg.matmul ins(%a, %b : tensor<6x8xf64, #NV_24>, tensor<8x3xf64>)
                     outs(%z : tensor<6x3xf64>) -> tensor<6x3xf64>
  return %r : tensor<6x3xf64>
}
