// Quantized stc.spmm on the CPU: i8 operands, one of them pruned 2:4 and
// compressed at run time (stc.prune / stc.compress on a function argument),
// the exact i32 product, and the scaling epilogue requantized to i8 or
// rounded to f16, against the float64 NumPy reference of
// test/lib/e2e_cases.py (family int8_*: INT8_SPMM mirrors each function's
// attributes). The ragged shapes pad K and the register tiles; the i32
// cases are compared exactly.
// REQUIRES: numpy
// RUN: %e2e --mlir %s --case int8_acc32_20_72_48
// RUN: %e2e --mlir %s --case int8_acc32_1_130_17
// RUN: %e2e --mlir %s --case int8_lhs_acc32_33_100_9
// RUN: %e2e --mlir %s --case int8_requant_17_64_40
// RUN: %e2e --mlir %s --case int8_requant_lhs_24_96_20
// RUN: %e2e --mlir %s --case int8_dequant_f16_9_48_33
// A quantized linalg.matmul (i8 x i8 into a non-zero i32 init) under
// --sparsity=force: stc.spmm to i32, then the init added exactly.
// RUN: %e2e --mlir %s --case int8_matmul_force_13_80_35

func.func @acc32(%x: tensor<?x?xi8>, %w: tensor<?x?xi8>) -> tensor<?x?xi32> {
  %p = stc.prune %w by #stc.nm<2:4> along 0 : tensor<?x?xi8>
  %v, %m = stc.compress %p by #stc.nm<2:4> along 0
      : tensor<?x?xi8> -> tensor<?x?xi8>, tensor<?x?xi16>
  %y = stc.spmm %v, %m, %x {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>}
      : tensor<?x?xi8>, tensor<?x?xi16>, tensor<?x?xi8> -> tensor<?x?xi32>
  return %y : tensor<?x?xi32>
}

func.func @lhs_acc32(%a: tensor<?x?xi8>, %b: tensor<?x?xi8>) -> tensor<?x?xi32> {
  %p = stc.prune %a by #stc.nm<2:4> along 1 : tensor<?x?xi8>
  %v, %m = stc.compress %p by #stc.nm<2:4> along 1
      : tensor<?x?xi8> -> tensor<?x?xi8>, tensor<?x?xi16>
  %y = stc.spmm %v, %m, %b {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>}
      : tensor<?x?xi8>, tensor<?x?xi16>, tensor<?x?xi8> -> tensor<?x?xi32>
  return %y : tensor<?x?xi32>
}

func.func @requant(%x: tensor<?x?xi8>, %w: tensor<?x?xi8>, %s: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?x?xi8> {
  %p = stc.prune %w by #stc.nm<2:4> along 0 : tensor<?x?xi8>
  %v, %m = stc.compress %p by #stc.nm<2:4> along 0
      : tensor<?x?xi8> -> tensor<?x?xi8>, tensor<?x?xi16>
  %y = stc.spmm %v, %m, %x bias(%b : tensor<?xf32>) scale(%s : tensor<?xf32>)
      {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>, alpha = 0.002,
       activation = #stc.activation<relu>}
      : tensor<?x?xi8>, tensor<?x?xi16>, tensor<?x?xi8> -> tensor<?x?xi8>
  return %y : tensor<?x?xi8>
}

func.func @requant_lhs(%a: tensor<?x?xi8>, %b: tensor<?x?xi8>, %s: tensor<?xf32>) -> tensor<?x?xi8> {
  %p = stc.prune %a by #stc.nm<2:4> along 1 : tensor<?x?xi8>
  %v, %m = stc.compress %p by #stc.nm<2:4> along 1
      : tensor<?x?xi8> -> tensor<?x?xi8>, tensor<?x?xi16>
  %y = stc.spmm %v, %m, %b scale(%s : tensor<?xf32>)
      {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>, alpha = 0.003}
      : tensor<?x?xi8>, tensor<?x?xi16>, tensor<?x?xi8> -> tensor<?x?xi8>
  return %y : tensor<?x?xi8>
}

func.func @dequant_f16(%x: tensor<?x?xi8>, %w: tensor<?x?xi8>, %s: tensor<?xf32>) -> tensor<?x?xf16> {
  %p = stc.prune %w by #stc.nm<2:4> along 0 : tensor<?x?xi8>
  %v, %m = stc.compress %p by #stc.nm<2:4> along 0
      : tensor<?x?xi8> -> tensor<?x?xi8>, tensor<?x?xi16>
  %y = stc.spmm %v, %m, %x scale(%s : tensor<?xf32>)
      {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>, alpha = 0.01}
      : tensor<?x?xi8>, tensor<?x?xi16>, tensor<?x?xi8> -> tensor<?x?xf16>
  return %y : tensor<?x?xf16>
}

func.func @matmul_force(%x: tensor<?x?xi8>, %w: tensor<?x?xi8>, %c: tensor<?x?xi32>) -> tensor<?x?xi32> {
  %y = linalg.matmul ins(%x, %w : tensor<?x?xi8>, tensor<?x?xi8>)
      outs(%c : tensor<?x?xi32>) -> tensor<?x?xi32>
  return %y : tensor<?x?xi32>
}
