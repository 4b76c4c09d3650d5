// A quantized linalg convolution (i8 x i8 into a non-zero i32 init) under
// --sparsity=force: the filter, a function argument, is pruned 2:4 along
// the input channels at run time and the convolution becomes an i32
// stc.conv (no epilogue: the exact accumulator), the init added after it,
// exactly, on the CPU, against
// the float64 NumPy reference of test/lib/e2e_cases.py (family
// int8_conv_force_C_F). C = 16 and 12 (padded to the pattern, ragged).
// REQUIRES: numpy
// RUN: %e2e --mlir %s --case int8_conv_force_16_8
// RUN: %e2e --mlir %s --case int8_conv_force_12_20
// RUN: stc-compile %s --sparsity=force --emit=stc -o - | FileCheck %s

// CHECK-LABEL: func.func @conv_force_16_8
// CHECK: stc.conv {{.*}} : tensor<8x72xi8>, tensor<8x9xi16>, tensor<2x7x6x16xi8> -> tensor<2x5x4x8xi32>
// CHECK: linalg.add
func.func @conv_force_16_8(%x: tensor<2x7x6x16xi8>, %w: tensor<3x3x16x8xi8>,
                           %init: tensor<2x5x4x8xi32>) -> tensor<2x5x4x8xi32> {
  %y = linalg.conv_2d_nhwc_hwcf ins(%x, %w : tensor<2x7x6x16xi8>, tensor<3x3x16x8xi8>)
      outs(%init : tensor<2x5x4x8xi32>) -> tensor<2x5x4x8xi32>
  return %y : tensor<2x5x4x8xi32>
}

// CHECK-LABEL: func.func @conv_force_12_20
// CHECK: stc.conv {{.*}} -> tensor<2x5x4x20xi32>
// CHECK: linalg.add
func.func @conv_force_12_20(%x: tensor<2x7x6x12xi8>, %w: tensor<3x3x12x20xi8>,
                            %init: tensor<2x5x4x20xi32>) -> tensor<2x5x4x20xi32> {
  %y = linalg.conv_2d_nhwc_hwcf ins(%x, %w : tensor<2x7x6x12xi8>, tensor<3x3x12x20xi8>)
      outs(%init : tensor<2x5x4x20xi32>) -> tensor<2x5x4x20xi32>
  return %y : tensor<2x5x4x20xi32>
}
