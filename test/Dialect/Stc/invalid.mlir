// Every verifier diagnostic of the stc dialect, one case per rule.
// RUN: stc-opt %s -split-input-file -verify-diagnostics

func.func @unsupported_pattern(%w: tensor<8x16xf32>) -> tensor<8x16xf32> {
  // expected-error @+1 {{unsupported N:M pattern 4:8 (supported: 2:4, 1:2)}}
  %p = stc.prune %w by #stc.nm<4:8> along 1 : tensor<8x16xf32>
  return %p : tensor<8x16xf32>
}

// -----

func.func @one_two_needs_f32(%w: tensor<8x16xf16>) -> tensor<8x16xf16> {
  // expected-error @+1 {{'stc.prune' op pattern 1:2 requires f32 elements, got 'f16'}}
  %p = stc.prune %w by #stc.nm<1:2> along 1 : tensor<8x16xf16>
  return %p : tensor<8x16xf16>
}

// -----

func.func @tile_needs_two_four(%w: tensor<8x16xf32>) -> tensor<8x16xf32> {
  // expected-error @+1 {{'stc.prune' op method tile requires the 2:4 pattern, got 1:2}}
  %p = stc.prune %w by #stc.nm<1:2> along 1 method tile : tensor<8x16xf32>
  return %p : tensor<8x16xf32>
}

// -----

func.func @unknown_prune_method(%w: tensor<8x16xf32>) -> tensor<8x16xf32> {
  // expected-error @+1 {{expected prune method strip or tile, got 'random'}}
  %p = stc.prune %w by #stc.nm<2:4> along 1 method random : tensor<8x16xf32>
  return %p : tensor<8x16xf32>
}

// -----

func.func @prune_rank(%w: tensor<2x8x16xf32>) -> tensor<2x8x16xf32> {
  // expected-error @+1 {{'stc.prune' op expects a rank-2 tensor, got rank 3}}
  %p = stc.prune %w by #stc.nm<2:4> along 1 : tensor<2x8x16xf32>
  return %p : tensor<2x8x16xf32>
}

// -----

func.func @reduction_dim_out_of_range(%w: tensor<8x16xf32>) -> i1 {
  // expected-error @+1 {{'stc.check' op reduction_dim must be 0 or 1, got 2}}
  %ok = stc.check %w by #stc.nm<2:4> along 2 : tensor<8x16xf32>
  return %ok : i1
}

// -----

func.func @compress_values_per_row(%w: tensor<8x20xf32>) -> (tensor<8x10xf32>, tensor<8x1xi16>) {
  // expected-error @+1 {{'stc.compress' op values have 10 columns but metadata has 1 words per row (expected 8 values)}}
  %v, %m = stc.compress %w by #stc.nm<2:4> along 1 : tensor<8x20xf32> -> tensor<8x10xf32>, tensor<8x1xi16>
  return %v, %m : tensor<8x10xf32>, tensor<8x1xi16>
}

// -----

func.func @compress_padded_reduction(%w: tensor<8x20xf32>) -> (tensor<8x8xf32>, tensor<8x1xi16>) {
  // expected-error @+1 {{'stc.compress' op reduction size 20 needs 16 values per row under 2:4, got 8}}
  %v, %m = stc.compress %w by #stc.nm<2:4> along 1 : tensor<8x20xf32> -> tensor<8x8xf32>, tensor<8x1xi16>
  return %v, %m : tensor<8x8xf32>, tensor<8x1xi16>
}

// -----

func.func @compress_rows(%w: tensor<8x16xf32>) -> (tensor<16x8xf32>, tensor<16x1xi16>) {
  // expected-error @+1 {{'stc.compress' op compressed operand has 16 rows, expected 8}}
  %v, %m = stc.compress %w by #stc.nm<2:4> along 1 : tensor<8x16xf32> -> tensor<16x8xf32>, tensor<16x1xi16>
  return %v, %m : tensor<16x8xf32>, tensor<16x1xi16>
}

// -----

func.func @compress_meta_rows(%w: tensor<8x16xf32>) -> (tensor<8x8xf32>, tensor<4x1xi16>) {
  // expected-error @+1 {{'stc.compress' op values have 8 rows but metadata has 4}}
  %v, %m = stc.compress %w by #stc.nm<2:4> along 1 : tensor<8x16xf32> -> tensor<8x8xf32>, tensor<4x1xi16>
  return %v, %m : tensor<8x8xf32>, tensor<4x1xi16>
}

// -----

func.func @compress_element_type(%w: tensor<8x16xf32>) -> (tensor<8x8xf16>, tensor<8x1xi16>) {
  // expected-error @+1 {{'stc.compress' op values element type 'f16' differs from the input's 'f32'}}
  %v, %m = stc.compress %w by #stc.nm<2:4> along 1 : tensor<8x16xf32> -> tensor<8x8xf16>, tensor<8x1xi16>
  return %v, %m : tensor<8x8xf16>, tensor<8x1xi16>
}

// -----

func.func @compress_meta_type(%w: tensor<8x16xf32>) -> (tensor<8x8xf32>, tensor<8x1xi32>) {
  // expected-error @+1 {{'stc.compress' op result #1 must be ranked tensor of 16-bit signless integer values}}
  %v, %m = stc.compress %w by #stc.nm<2:4> along 1 : tensor<8x16xf32> -> tensor<8x8xf32>, tensor<8x1xi32>
  return %v, %m : tensor<8x8xf32>, tensor<8x1xi32>
}

// -----

func.func @compress_rank(%v: tensor<8x8xf32>, %m: tensor<8xi16>) -> tensor<8x16xf32> {
  // expected-error @+1 {{'stc.decompress' op expects rank-2 values and metadata}}
  %d = stc.decompress %v, %m by #stc.nm<2:4> along 1 : tensor<8x8xf32>, tensor<8xi16> -> tensor<8x16xf32>
  return %d : tensor<8x16xf32>
}

// -----

func.func @decompress_element_type(%v: tensor<8x8xf32>, %m: tensor<8x1xi16>) -> tensor<8x16xbf16> {
  // expected-error @+1 {{'stc.decompress' op result element type 'bf16' differs from the values' 'f32'}}
  %d = stc.decompress %v, %m by #stc.nm<2:4> along 1 : tensor<8x8xf32>, tensor<8x1xi16> -> tensor<8x16xbf16>
  return %d : tensor<8x16xbf16>
}

// -----

func.func @decompress_bad_element(%v: tensor<8x8xi32>, %m: tensor<8x1xi16>) -> tensor<8x16xf32> {
  // expected-error @+1 {{'stc.decompress' op operand #0 must be ranked tensor of 32-bit float or 16-bit float or bfloat16 type or 8-bit signless integer values}}
  %d = stc.decompress %v, %m by #stc.nm<2:4> along 1 : tensor<8x8xi32>, tensor<8x1xi16> -> tensor<8x16xf32>
  return %d : tensor<8x16xf32>
}

// -----

func.func @spmm_dense_rank(%v: tensor<8x8xf32>, %m: tensor<8x1xi16>, %x: tensor<2x4x16xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'stc.spmm' op expects a rank-2 dense operand, got rank 3}}
  %y = stc.spmm %v, %m, %x {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>}
      : tensor<8x8xf32>, tensor<8x1xi16>, tensor<2x4x16xf32> -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @spmm_result_rank(%v: tensor<8x8xf32>, %m: tensor<8x1xi16>, %x: tensor<4x16xf32>) -> tensor<32xf32> {
  // expected-error @+1 {{'stc.spmm' op expects a rank-2 result, got rank 1}}
  %y = stc.spmm %v, %m, %x {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>}
      : tensor<8x8xf32>, tensor<8x1xi16>, tensor<4x16xf32> -> tensor<32xf32>
  return %y : tensor<32xf32>
}

// -----

func.func @spmm_element_types(%v: tensor<8x8xf32>, %m: tensor<8x1xi16>, %x: tensor<4x16xf16>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'stc.spmm' op dense operand element type 'f16' differs from the sparse operand's 'f32'}}
  %y = stc.spmm %v, %m, %x {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>}
      : tensor<8x8xf32>, tensor<8x1xi16>, tensor<4x16xf16> -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @spmm_result_shape(%v: tensor<8x8xf32>, %m: tensor<8x1xi16>, %x: tensor<4x16xf32>) -> tensor<5x8xf32> {
  // expected-error @+1 {{'stc.spmm' op dense operand shape (4x16) does not match result shape (5x8)}}
  %y = stc.spmm %v, %m, %x {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>}
      : tensor<8x8xf32>, tensor<8x1xi16>, tensor<4x16xf32> -> tensor<5x8xf32>
  return %y : tensor<5x8xf32>
}

// -----

func.func @spmm_reduction(%v: tensor<8x8xf32>, %m: tensor<8x1xi16>, %x: tensor<4x32xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'stc.spmm' op reduction size 32 needs 16 values per row under 2:4, got 8}}
  %y = stc.spmm %v, %m, %x {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>}
      : tensor<8x8xf32>, tensor<8x1xi16>, tensor<4x32xf32> -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @spmm_sparse_rows(%v: tensor<8x8xf32>, %m: tensor<8x1xi16>, %x: tensor<16x4xf32>) -> tensor<6x4xf32> {
  // expected-error @+1 {{'stc.spmm' op compressed operand has 8 rows, expected 6}}
  %y = stc.spmm %v, %m, %x {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>}
      : tensor<8x8xf32>, tensor<8x1xi16>, tensor<16x4xf32> -> tensor<6x4xf32>
  return %y : tensor<6x4xf32>
}

// -----

func.func @spmm_bias_rank(%v: tensor<8x8xf32>, %m: tensor<8x1xi16>, %x: tensor<4x16xf32>, %b: tensor<1x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'stc.spmm' op bias must be rank 1, got rank 2}}
  %y = stc.spmm %v, %m, %x bias(%b : tensor<1x8xf32>) {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>}
      : tensor<8x8xf32>, tensor<8x1xi16>, tensor<4x16xf32> -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @spmm_bias_size(%v: tensor<8x8xf32>, %m: tensor<8x1xi16>, %x: tensor<4x16xf32>, %b: tensor<4xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'stc.spmm' op bias has 4 elements, expected 8 (one per column of the result)}}
  %y = stc.spmm %v, %m, %x bias(%b : tensor<4xf32>) {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>}
      : tensor<8x8xf32>, tensor<8x1xi16>, tensor<4x16xf32> -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @spmm_scale_rank(%v: tensor<8x8xi8>, %m: tensor<8x1xi16>, %x: tensor<4x16xi8>, %s: tensor<1x8xf32>) -> tensor<4x8xi8> {
  // expected-error @+1 {{'stc.spmm' op scale must be rank 1, got rank 2}}
  %y = stc.spmm %v, %m, %x scale(%s : tensor<1x8xf32>) {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>}
      : tensor<8x8xi8>, tensor<8x1xi16>, tensor<4x16xi8> -> tensor<4x8xi8>
  return %y : tensor<4x8xi8>
}

// -----

func.func @spmm_scale_size(%v: tensor<8x8xi8>, %m: tensor<8x1xi16>, %x: tensor<16x4xi8>, %s: tensor<4xf32>) -> tensor<8x4xf16> {
  // expected-error @+1 {{'stc.spmm' op scale has 4 elements, expected 8 (one per row of the result)}}
  %y = stc.spmm %v, %m, %x scale(%s : tensor<4xf32>) {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>}
      : tensor<8x8xi8>, tensor<8x1xi16>, tensor<16x4xi8> -> tensor<8x4xf16>
  return %y : tensor<8x4xf16>
}

// -----

func.func @spmm_scale_type(%v: tensor<8x8xi8>, %m: tensor<8x1xi16>, %x: tensor<4x16xi8>, %s: tensor<8xf16>) -> tensor<4x8xi8> {
  // expected-error @+1 {{'stc.spmm' op operand #3 must be ranked tensor of 32-bit float values, but got 'tensor<8xf16>'}}
  %y = stc.spmm %v, %m, %x scale(%s : tensor<8xf16>) {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>}
      : tensor<8x8xi8>, tensor<8x1xi16>, tensor<4x16xi8> -> tensor<4x8xi8>
  return %y : tensor<4x8xi8>
}

// -----

func.func @spmm_integer_result_float_operands(%v: tensor<8x8xf16>, %m: tensor<8x1xi16>, %x: tensor<4x16xf16>) -> tensor<4x8xi8> {
  // expected-error @+1 {{'stc.spmm' op an integer result needs i8 operands, got 'f16' operands and an 'i8' result}}
  %y = stc.spmm %v, %m, %x {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>}
      : tensor<8x8xf16>, tensor<8x1xi16>, tensor<4x16xf16> -> tensor<4x8xi8>
  return %y : tensor<4x8xi8>
}

// -----

func.func @spmm_i32_result_epilogue(%v: tensor<8x8xi8>, %m: tensor<8x1xi16>, %x: tensor<4x16xi8>) -> tensor<4x8xi32> {
  // expected-error @+1 {{'stc.spmm' op an i32 result is the exact integer accumulator: alpha, acc, bias, scale and activation need an i8 or float result (the scaling epilogue)}}
  %y = stc.spmm %v, %m, %x {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>, alpha = 0.5}
      : tensor<8x8xi8>, tensor<8x1xi16>, tensor<4x16xi8> -> tensor<4x8xi32>
  return %y : tensor<4x8xi32>
}

// -----

func.func @spmm_i8_mixed(%v: tensor<8x8xi8>, %m: tensor<8x1xi16>, %x: tensor<4x16xf16>) -> tensor<4x8xf16> {
  // expected-error @+1 {{'stc.spmm' op dense operand element type 'f16' differs from the sparse operand's 'i8'}}
  %y = stc.spmm %v, %m, %x {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>}
      : tensor<8x8xi8>, tensor<8x1xi16>, tensor<4x16xf16> -> tensor<4x8xf16>
  return %y : tensor<4x8xf16>
}

// -----

func.func @prune_i8_1to2(%w: tensor<8x8xi8>) -> tensor<8x8xi8> {
  // expected-error @+1 {{'stc.prune' op pattern 1:2 requires f32 elements, got 'i8'}}
  %p = stc.prune %w by #stc.nm<1:2> along 0 : tensor<8x8xi8>
  return %p : tensor<8x8xi8>
}

// -----

func.func @spmm_acc_shape(%v: tensor<8x8xf32>, %m: tensor<8x1xi16>, %x: tensor<4x16xf32>, %c: tensor<8x4xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'stc.spmm' op acc must have the result's shape}}
  %y = stc.spmm %v, %m, %x acc(%c : tensor<8x4xf32>) {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>, beta = 1.0 : f64}
      : tensor<8x8xf32>, tensor<8x1xi16>, tensor<4x16xf32> -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @spmm_beta_without_acc(%v: tensor<8x8xf32>, %m: tensor<8x1xi16>, %x: tensor<4x16xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'stc.spmm' op beta is 1.000000e+00 but no acc operand is given}}
  %y = stc.spmm %v, %m, %x {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>, beta = 1.0 : f64}
      : tensor<8x8xf32>, tensor<8x1xi16>, tensor<4x16xf32> -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

// -----

func.func @conv_input_rank(%v: tensor<8x8xf16>, %m: tensor<8x1xi16>, %x: tensor<4x4x16xf16>) -> tensor<1x4x4x8xf16> {
  // expected-error @+1 {{'stc.conv' op expects a rank-4 NHWC input, got rank 3}}
  %y = stc.conv %v, %m, %x {pattern = #stc.nm<2:4>, filter_size = array<i64: 1, 1>}
      : tensor<8x8xf16>, tensor<8x1xi16>, tensor<4x4x16xf16> -> tensor<1x4x4x8xf16>
  return %y : tensor<1x4x4x8xf16>
}

// -----

func.func @conv_result_rank(%v: tensor<8x8xf16>, %m: tensor<8x1xi16>, %x: tensor<1x4x4x16xf16>) -> tensor<16x8xf16> {
  // expected-error @+1 {{'stc.conv' op expects a rank-4 NHWC result, got rank 2}}
  %y = stc.conv %v, %m, %x {pattern = #stc.nm<2:4>, filter_size = array<i64: 1, 1>}
      : tensor<8x8xf16>, tensor<8x1xi16>, tensor<1x4x4x16xf16> -> tensor<16x8xf16>
  return %y : tensor<16x8xf16>
}

// -----

func.func @conv_integer_result_float_operands(%v: tensor<8x8xf16>, %m: tensor<8x1xi16>, %x: tensor<1x4x4x16xf16>) -> tensor<1x4x4x8xi32> {
  // expected-error @+1 {{'stc.conv' op an integer result needs i8 operands, got 'f16' operands and an 'i32' result}}
  %y = stc.conv %v, %m, %x {pattern = #stc.nm<2:4>, filter_size = array<i64: 1, 1>}
      : tensor<8x8xf16>, tensor<8x1xi16>, tensor<1x4x4x16xf16> -> tensor<1x4x4x8xi32>
  return %y : tensor<1x4x4x8xi32>
}

// -----

func.func @conv_i32_result_epilogue(%v: tensor<8x8xi8>, %m: tensor<8x1xi16>, %x: tensor<1x4x4x16xi8>, %b: tensor<8xf32>) -> tensor<1x4x4x8xi32> {
  // expected-error @+1 {{'stc.conv' op an i32 result is the exact integer accumulator: alpha, acc, bias, scale and activation need an i8 or float result (the scaling epilogue)}}
  %y = stc.conv %v, %m, %x bias(%b : tensor<8xf32>) {pattern = #stc.nm<2:4>, filter_size = array<i64: 1, 1>}
      : tensor<8x8xi8>, tensor<8x1xi16>, tensor<1x4x4x16xi8> -> tensor<1x4x4x8xi32>
  return %y : tensor<1x4x4x8xi32>
}

// -----

func.func @conv_scale_size(%v: tensor<8x8xi8>, %m: tensor<8x1xi16>, %x: tensor<1x4x4x16xi8>, %s: tensor<4xf32>) -> tensor<1x4x4x8xf32> {
  // expected-error @+1 {{'stc.conv' op scale has 4 elements, expected 8 (one per output channel)}}
  %y = stc.conv %v, %m, %x scale(%s : tensor<4xf32>) {pattern = #stc.nm<2:4>, filter_size = array<i64: 1, 1>}
      : tensor<8x8xi8>, tensor<8x1xi16>, tensor<1x4x4x16xi8> -> tensor<1x4x4x8xf32>
  return %y : tensor<1x4x4x8xf32>
}

// -----

func.func @conv_scale_rank(%v: tensor<8x8xi8>, %m: tensor<8x1xi16>, %x: tensor<1x4x4x16xi8>, %s: tensor<1x8xf32>) -> tensor<1x4x4x8xf32> {
  // expected-error @+1 {{'stc.conv' op scale must be rank 1, got rank 2}}
  %y = stc.conv %v, %m, %x scale(%s : tensor<1x8xf32>) {pattern = #stc.nm<2:4>, filter_size = array<i64: 1, 1>}
      : tensor<8x8xi8>, tensor<8x1xi16>, tensor<1x4x4x16xi8> -> tensor<1x4x4x8xf32>
  return %y : tensor<1x4x4x8xf32>
}

// -----

func.func @conv_element_type(%v: tensor<8x8xf16>, %m: tensor<8x1xi16>, %x: tensor<1x4x4x16xbf16>) -> tensor<1x4x4x8xf16> {
  // expected-error @+1 {{'stc.conv' op input element type 'bf16' differs from the filter's 'f16'}}
  %y = stc.conv %v, %m, %x {pattern = #stc.nm<2:4>, filter_size = array<i64: 1, 1>}
      : tensor<8x8xf16>, tensor<8x1xi16>, tensor<1x4x4x16xbf16> -> tensor<1x4x4x8xf16>
  return %y : tensor<1x4x4x8xf16>
}

// -----

func.func @conv_filter_size_entries(%v: tensor<8x8xf16>, %m: tensor<8x1xi16>, %x: tensor<1x4x4x16xf16>) -> tensor<1x4x4x8xf16> {
  // expected-error @+1 {{'stc.conv' op filter_size must have 2 entries (H, W), got 3}}
  %y = stc.conv %v, %m, %x {pattern = #stc.nm<2:4>, filter_size = array<i64: 1, 1, 1>}
      : tensor<8x8xf16>, tensor<8x1xi16>, tensor<1x4x4x16xf16> -> tensor<1x4x4x8xf16>
  return %y : tensor<1x4x4x8xf16>
}

// -----

func.func @conv_stride_zero(%v: tensor<8x8xf16>, %m: tensor<8x1xi16>, %x: tensor<1x4x4x16xf16>) -> tensor<1x4x4x8xf16> {
  // expected-error @+1 {{'stc.conv' op strides must be at least 1, got [0, 1]}}
  %y = stc.conv %v, %m, %x {pattern = #stc.nm<2:4>, filter_size = array<i64: 1, 1>, strides = array<i64: 0, 1>}
      : tensor<8x8xf16>, tensor<8x1xi16>, tensor<1x4x4x16xf16> -> tensor<1x4x4x8xf16>
  return %y : tensor<1x4x4x8xf16>
}

// -----

func.func @conv_negative_padding(%v: tensor<8x8xf16>, %m: tensor<8x1xi16>, %x: tensor<1x4x4x16xf16>) -> tensor<1x4x4x8xf16> {
  // expected-error @+1 {{'stc.conv' op pad_low must be at least 0, got [-1, 0]}}
  %y = stc.conv %v, %m, %x {pattern = #stc.nm<2:4>, filter_size = array<i64: 1, 1>, pad_low = array<i64: -1, 0>}
      : tensor<8x8xf16>, tensor<8x1xi16>, tensor<1x4x4x16xf16> -> tensor<1x4x4x8xf16>
  return %y : tensor<1x4x4x8xf16>
}

// -----

func.func @conv_groups_zero(%v: tensor<8x8xf16>, %m: tensor<8x1xi16>, %x: tensor<1x4x4x16xf16>) -> tensor<1x4x4x8xf16> {
  // expected-error @+1 {{'stc.conv' op groups must be at least 1, got 0}}
  %y = stc.conv %v, %m, %x {pattern = #stc.nm<2:4>, filter_size = array<i64: 1, 1>, groups = 0}
      : tensor<8x8xf16>, tensor<8x1xi16>, tensor<1x4x4x16xf16> -> tensor<1x4x4x8xf16>
  return %y : tensor<1x4x4x8xf16>
}

// -----

func.func @conv_input_groups(%v: tensor<8x8xf16>, %m: tensor<8x1xi16>, %x: tensor<1x4x4x15xf16>) -> tensor<1x4x4x8xf16> {
  // expected-error @+1 {{'stc.conv' op input channels (15) are not a multiple of groups (2)}}
  %y = stc.conv %v, %m, %x {pattern = #stc.nm<2:4>, filter_size = array<i64: 1, 1>, groups = 2}
      : tensor<8x8xf16>, tensor<8x1xi16>, tensor<1x4x4x15xf16> -> tensor<1x4x4x8xf16>
  return %y : tensor<1x4x4x8xf16>
}

// -----

func.func @conv_output_groups(%v: tensor<9x8xf16>, %m: tensor<9x1xi16>, %x: tensor<1x4x4x16xf16>) -> tensor<1x4x4x9xf16> {
  // expected-error @+1 {{'stc.conv' op output channels (9) are not a multiple of groups (2)}}
  %y = stc.conv %v, %m, %x {pattern = #stc.nm<2:4>, filter_size = array<i64: 1, 1>, groups = 2}
      : tensor<9x8xf16>, tensor<9x1xi16>, tensor<1x4x4x16xf16> -> tensor<1x4x4x9xf16>
  return %y : tensor<1x4x4x9xf16>
}

// -----

func.func @conv_batch(%v: tensor<8x8xf16>, %m: tensor<8x1xi16>, %x: tensor<2x4x4x16xf16>) -> tensor<1x4x4x8xf16> {
  // expected-error @+1 {{'stc.conv' op result batch 1 differs from the input's 2}}
  %y = stc.conv %v, %m, %x {pattern = #stc.nm<2:4>, filter_size = array<i64: 1, 1>}
      : tensor<8x8xf16>, tensor<8x1xi16>, tensor<2x4x4x16xf16> -> tensor<1x4x4x8xf16>
  return %y : tensor<1x4x4x8xf16>
}

// -----

func.func @conv_filter_too_big(%v: tensor<8x200xf16>, %m: tensor<8x25xi16>, %x: tensor<1x4x4x16xf16>) -> tensor<1x1x1x8xf16> {
  // expected-error @+1 {{'stc.conv' op the dilated filter (5) does not fit the padded input height (4)}}
  %y = stc.conv %v, %m, %x {pattern = #stc.nm<2:4>, filter_size = array<i64: 5, 5>}
      : tensor<8x200xf16>, tensor<8x25xi16>, tensor<1x4x4x16xf16> -> tensor<1x1x1x8xf16>
  return %y : tensor<1x1x1x8xf16>
}

// -----

func.func @conv_output_width(%v: tensor<8x72xf16>, %m: tensor<8x9xi16>, %x: tensor<1x8x8x16xf16>) -> tensor<1x6x8x8xf16> {
  // expected-error @+1 {{'stc.conv' op result width 8 differs from the convolution's 6}}
  %y = stc.conv %v, %m, %x {pattern = #stc.nm<2:4>, filter_size = array<i64: 3, 3>}
      : tensor<8x72xf16>, tensor<8x9xi16>, tensor<1x8x8x16xf16> -> tensor<1x6x8x8xf16>
  return %y : tensor<1x6x8x8xf16>
}

// -----

func.func @conv_filter_columns(%v: tensor<8x64xf16>, %m: tensor<8x8xi16>, %x: tensor<1x8x8x16xf16>) -> tensor<1x6x6x8xf16> {
  // expected-error @+1 {{'stc.conv' op reduction size 144 needs 72 values per row under 2:4, got 64}}
  %y = stc.conv %v, %m, %x {pattern = #stc.nm<2:4>, filter_size = array<i64: 3, 3>}
      : tensor<8x64xf16>, tensor<8x8xi16>, tensor<1x8x8x16xf16> -> tensor<1x6x6x8xf16>
  return %y : tensor<1x6x6x8xf16>
}

// -----

func.func @conv_filter_rows(%v: tensor<4x8xf16>, %m: tensor<4x1xi16>, %x: tensor<1x4x4x16xf16>) -> tensor<1x4x4x8xf16> {
  // expected-error @+1 {{'stc.conv' op compressed operand has 4 rows, expected 8}}
  %y = stc.conv %v, %m, %x {pattern = #stc.nm<2:4>, filter_size = array<i64: 1, 1>}
      : tensor<4x8xf16>, tensor<4x1xi16>, tensor<1x4x4x16xf16> -> tensor<1x4x4x8xf16>
  return %y : tensor<1x4x4x8xf16>
}

// -----

func.func @conv_bias(%v: tensor<8x8xf16>, %m: tensor<8x1xi16>, %x: tensor<1x4x4x16xf16>, %b: tensor<4xf32>) -> tensor<1x4x4x8xf16> {
  // expected-error @+1 {{'stc.conv' op bias has 4 elements, expected 8 (one per output channel)}}
  %y = stc.conv %v, %m, %x bias(%b : tensor<4xf32>) {pattern = #stc.nm<2:4>, filter_size = array<i64: 1, 1>}
      : tensor<8x8xf16>, tensor<8x1xi16>, tensor<1x4x4x16xf16> -> tensor<1x4x4x8xf16>
  return %y : tensor<1x4x4x8xf16>
}

// -----

func.func @conv_bias_rank(%v: tensor<8x8xf16>, %m: tensor<8x1xi16>, %x: tensor<1x4x4x16xf16>, %b: tensor<1x8xf32>) -> tensor<1x4x4x8xf16> {
  // expected-error @+1 {{'stc.conv' op bias must be rank 1, got rank 2}}
  %y = stc.conv %v, %m, %x bias(%b : tensor<1x8xf32>) {pattern = #stc.nm<2:4>, filter_size = array<i64: 1, 1>}
      : tensor<8x8xf16>, tensor<8x1xi16>, tensor<1x4x4x16xf16> -> tensor<1x4x4x8xf16>
  return %y : tensor<1x4x4x8xf16>
}

// -----

func.func @conv_acc_shape(%v: tensor<8x8xf16>, %m: tensor<8x1xi16>, %x: tensor<1x4x4x16xf16>, %a: tensor<1x4x8x4xf32>) -> tensor<1x4x4x8xf16> {
  // expected-error @+1 {{'stc.conv' op acc must have the result's shape}}
  %y = stc.conv %v, %m, %x acc(%a : tensor<1x4x8x4xf32>) {pattern = #stc.nm<2:4>, filter_size = array<i64: 1, 1>, beta = 1.0 : f64}
      : tensor<8x8xf16>, tensor<8x1xi16>, tensor<1x4x4x16xf16> -> tensor<1x4x4x8xf16>
  return %y : tensor<1x4x4x8xf16>
}

// -----

func.func @conv_beta_without_acc(%v: tensor<8x8xf16>, %m: tensor<8x1xi16>, %x: tensor<1x4x4x16xf16>) -> tensor<1x4x4x8xf16> {
  // expected-error @+1 {{'stc.conv' op beta is 1.000000e+00 but no acc operand is given}}
  %y = stc.conv %v, %m, %x {pattern = #stc.nm<2:4>, filter_size = array<i64: 1, 1>, beta = 1.0 : f64}
      : tensor<8x8xf16>, tensor<8x1xi16>, tensor<1x4x4x16xf16> -> tensor<1x4x4x8xf16>
  return %y : tensor<1x4x4x8xf16>
}

// -----

func.func @conv_one_two_f16(%v: tensor<8x8xf16>, %m: tensor<8x2xi16>, %x: tensor<1x4x4x16xf16>) -> tensor<1x4x4x8xf16> {
  // expected-error @+1 {{'stc.conv' op pattern 1:2 requires f32 elements, got 'f16'}}
  %y = stc.conv %v, %m, %x {pattern = #stc.nm<1:2>, filter_size = array<i64: 1, 1>}
      : tensor<8x8xf16>, tensor<8x2xi16>, tensor<1x4x4x16xf16> -> tensor<1x4x4x8xf16>
  return %y : tensor<1x4x4x8xf16>
}

// -----

func.func @conv_dynamic_channels(%v: tensor<8x8xf16>, %m: tensor<8x1xi16>, %x: tensor<1x4x4x?xf16>) -> tensor<1x4x4x8xf16> {
  // expected-error @+1 {{'stc.conv' op expects static channel counts, got input 'tensor<1x4x4x?xf16>' and result 'tensor<1x4x4x8xf16>'}}
  %y = stc.conv %v, %m, %x {pattern = #stc.nm<2:4>, filter_size = array<i64: 1, 1>}
      : tensor<8x8xf16>, tensor<8x1xi16>, tensor<1x4x4x?xf16> -> tensor<1x4x4x8xf16>
  return %y : tensor<1x4x4x8xf16>
}
