// A program for aot-error-return.test: @forward compresses its weight
// argument (an error when it is not 2:4), multiplies, and then calls
// @observe, which the C host defines: whether @observe ran shows whether
// anything after the failing op ran.
func.func private @observe(f32)

func.func @forward(%x: tensor<4x8xf32>, %w: tensor<8x6xf32>) -> tensor<4x6xf32> {
  %v, %m = stc.compress %w by #stc.nm<2:4> along 0
      : tensor<8x6xf32> -> tensor<6x8xf32>, tensor<6x1xi16>
  %y = stc.spmm %v, %m, %x {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>}
      : tensor<6x8xf32>, tensor<6x1xi16>, tensor<4x8xf32> -> tensor<4x6xf32>
  %c0 = arith.constant 0 : index
  %e = tensor.extract %y[%c0, %c0] : tensor<4x6xf32>
  func.call @observe(%e) : (f32) -> ()
  return %y : tensor<4x6xf32>
}
