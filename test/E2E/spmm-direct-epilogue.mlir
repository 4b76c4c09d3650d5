// stc.spmm written by hand (after stc.prune + stc.compress of a run-time
// weight) with every epilogue feature: bias + GELU in the tanh and the erf
// form, alpha/beta with an acc operand, all of them together with ReLU, and
// a sparse lhs with a per-row bias. The attributes of each function are
// mirrored in DIRECT_SPMM of test/lib/e2e_cases.py; the reference also has
// to differ from the other GELU form and from alpha = beta = 1.
// REQUIRES: numpy
// RUN: %e2e --mlir %s --case direct_gelu_tanh_f32_3_17_33
// RUN: %e2e --mlir %s --case direct_gelu_erf_f32_17_130_1
// RUN: %e2e --mlir %s --case direct_acc_f32_33_100_17
// RUN: %e2e --mlir %s --case direct_all_f32_1_33_130
// RUN: %e2e --mlir %s --case direct_all_f32_64_128_64
// RUN: %e2e --mlir %s --case direct_lhs_gelu_tanh_f32_33_65_17

func.func @gelu_tanh(%x: tensor<?x?xf32>, %w: tensor<?x?xf32>, %b: tensor<?xf32>) -> tensor<?x?xf32> {
  %p = stc.prune %w by #stc.nm<2:4> along 0 : tensor<?x?xf32>
  %v, %m = stc.compress %p by #stc.nm<2:4> along 0
      : tensor<?x?xf32> -> tensor<?x?xf32>, tensor<?x?xi16>
  %y = stc.spmm %v, %m, %x bias(%b : tensor<?xf32>)
      {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>,
       activation = #stc.activation<gelu_tanh>}
      : tensor<?x?xf32>, tensor<?x?xi16>, tensor<?x?xf32> -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

func.func @gelu_erf(%x: tensor<?x?xf32>, %w: tensor<?x?xf32>, %b: tensor<?xf32>) -> tensor<?x?xf32> {
  %p = stc.prune %w by #stc.nm<2:4> along 0 : tensor<?x?xf32>
  %v, %m = stc.compress %p by #stc.nm<2:4> along 0
      : tensor<?x?xf32> -> tensor<?x?xf32>, tensor<?x?xi16>
  %y = stc.spmm %v, %m, %x bias(%b : tensor<?xf32>)
      {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>,
       activation = #stc.activation<gelu_erf>}
      : tensor<?x?xf32>, tensor<?x?xi16>, tensor<?x?xf32> -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

func.func @acc(%x: tensor<?x?xf32>, %w: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %p = stc.prune %w by #stc.nm<2:4> along 0 : tensor<?x?xf32>
  %v, %m = stc.compress %p by #stc.nm<2:4> along 0
      : tensor<?x?xf32> -> tensor<?x?xf32>, tensor<?x?xi16>
  %y = stc.spmm %v, %m, %x acc(%c : tensor<?x?xf32>)
      {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>,
       alpha = 2.0 : f64, beta = 0.5 : f64}
      : tensor<?x?xf32>, tensor<?x?xi16>, tensor<?x?xf32> -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

func.func @all(%x: tensor<?x?xf32>, %w: tensor<?x?xf32>, %b: tensor<?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %p = stc.prune %w by #stc.nm<2:4> along 0 : tensor<?x?xf32>
  %v, %m = stc.compress %p by #stc.nm<2:4> along 0
      : tensor<?x?xf32> -> tensor<?x?xf32>, tensor<?x?xi16>
  %y = stc.spmm %v, %m, %x bias(%b : tensor<?xf32>) acc(%c : tensor<?x?xf32>)
      {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>,
       activation = #stc.activation<relu>, alpha = 0.5 : f64, beta = -1.5 : f64}
      : tensor<?x?xf32>, tensor<?x?xi16>, tensor<?x?xf32> -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

func.func @lhs_gelu_tanh(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %bias: tensor<?xf32>) -> tensor<?x?xf32> {
  %p = stc.prune %a by #stc.nm<2:4> along 1 : tensor<?x?xf32>
  %v, %m = stc.compress %p by #stc.nm<2:4> along 1
      : tensor<?x?xf32> -> tensor<?x?xf32>, tensor<?x?xi16>
  %y = stc.spmm %v, %m, %b bias(%bias : tensor<?xf32>)
      {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>,
       activation = #stc.activation<gelu_tanh>}
      : tensor<?x?xf32>, tensor<?x?xi16>, tensor<?x?xf32> -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}
