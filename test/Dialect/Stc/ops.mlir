// Round trip of every stc op in custom and generic form.
// RUN: stc-opt %s | stc-opt | FileCheck %s
// RUN: stc-opt %s --mlir-print-op-generic | stc-opt | FileCheck %s

// CHECK-LABEL: func.func @prune_compress_check
func.func @prune_compress_check(%w: tensor<64x128xf32>, %h: tensor<32x?xf16>)
    -> (tensor<128x32xf32>, tensor<128x4xi16>, i1, tensor<32x?xf16>) {
  // CHECK: %[[P:.*]] = stc.prune %{{.*}} by #stc.nm<2:4> along 0 : tensor<64x128xf32>
  %p = stc.prune %w by #stc.nm<2:4> along 0 : tensor<64x128xf32>
  // CHECK: %[[V:.*]], %[[M:.*]] = stc.compress %[[P]] by #stc.nm<2:4> along 0 : tensor<64x128xf32> -> tensor<128x32xf32>, tensor<128x4xi16>
  %v, %m = stc.compress %p by #stc.nm<2:4> along 0
      : tensor<64x128xf32> -> tensor<128x32xf32>, tensor<128x4xi16>
  // CHECK: stc.check %{{.*}} by #stc.nm<1:2> along 1 : tensor<64x128xf32>
  %ok = stc.check %w by #stc.nm<1:2> along 1 : tensor<64x128xf32>
  // CHECK: stc.prune %{{.*}} by #stc.nm<2:4> along 1 : tensor<32x?xf16>
  %q = stc.prune %h by #stc.nm<2:4> along 1 : tensor<32x?xf16>
  return %v, %m, %ok, %q : tensor<128x32xf32>, tensor<128x4xi16>, i1, tensor<32x?xf16>
}

// The pruning method and the channel permutation request: strip is the
// default and is not printed; the attribute-dictionary form parses too.
// CHECK-LABEL: func.func @prune_methods
func.func @prune_methods(%w: tensor<64x128xf32>, %h: tensor<16x32xbf16>)
    -> (tensor<64x128xf32>, tensor<64x128xf32>, tensor<16x32xbf16>, tensor<64x128xf32>) {
  // CHECK: stc.prune %{{.*}} by #stc.nm<2:4> along 0 method tile : tensor<64x128xf32>
  %t = stc.prune %w by #stc.nm<2:4> along 0 method tile : tensor<64x128xf32>
  // CHECK: stc.prune %{{.*}} by #stc.nm<2:4> along 1 permute_channels : tensor<64x128xf32>
  %s = stc.prune %w by #stc.nm<2:4> along 1 method strip permute_channels : tensor<64x128xf32>
  // CHECK: stc.prune %{{.*}} by #stc.nm<2:4> along 1 method tile permute_channels : tensor<16x32xbf16>
  %b = stc.prune %h by #stc.nm<2:4> along 1 {method = #stc.prune_method<tile>, permute_channels} : tensor<16x32xbf16>
  // CHECK: stc.prune %{{.*}} by #stc.nm<1:2> along 0 : tensor<64x128xf32>
  %o = stc.prune %w by #stc.nm<1:2> along 0 {method = #stc.prune_method<strip>} : tensor<64x128xf32>
  return %t, %s, %b, %o : tensor<64x128xf32>, tensor<64x128xf32>, tensor<16x32xbf16>, tensor<64x128xf32>
}

// CHECK-LABEL: func.func @decompress
func.func @decompress(%v: tensor<128x32xf16>, %m: tensor<128x4xi16>) -> tensor<64x128xf16> {
  // CHECK: stc.decompress %{{.*}}, %{{.*}} by #stc.nm<2:4> along 0 : tensor<128x32xf16>, tensor<128x4xi16> -> tensor<64x128xf16>
  %d = stc.decompress %v, %m by #stc.nm<2:4> along 0
      : tensor<128x32xf16>, tensor<128x4xi16> -> tensor<64x128xf16>
  return %d : tensor<64x128xf16>
}

// CHECK-LABEL: func.func @spmm_forms
func.func @spmm_forms(%v: tensor<128x32xf32>, %m: tensor<128x4xi16>,
                      %x: tensor<16x64xf32>, %xt: tensor<64x16xf32>,
                      %b: tensor<128xf32>, %c: tensor<16x128xf32>)
    -> (tensor<16x128xf32>, tensor<16x128xf16>, tensor<128x16xf32>) {
  // CHECK: stc.spmm %{{.*}}, %{{.*}}, %{{.*}} bias(%{{.*}} : tensor<128xf32>) {activation = #stc.activation<relu>, pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>}
  %y = stc.spmm %v, %m, %x bias(%b : tensor<128xf32>)
      {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>,
       activation = #stc.activation<relu>}
      : tensor<128x32xf32>, tensor<128x4xi16>, tensor<16x64xf32> -> tensor<16x128xf32>
  // CHECK: stc.spmm %{{.*}}, %{{.*}}, %{{.*}} acc(%{{.*}} : tensor<16x128xf32>) {alpha = 2.000000e+00 : f64, beta = 5.000000e-01 : f64, dense_transposed = true, pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>} : {{.*}} -> tensor<16x128xf16>
  %z = stc.spmm %v, %m, %xt acc(%c : tensor<16x128xf32>)
      {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>, dense_transposed = true,
       alpha = 2.0 : f64, beta = 0.5 : f64}
      : tensor<128x32xf32>, tensor<128x4xi16>, tensor<64x16xf32> -> tensor<16x128xf16>
  // CHECK: stc.spmm {{.*}}activation = #stc.activation<gelu_tanh>, pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>}
  %w = stc.spmm %v, %m, %xt
      {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>,
       activation = #stc.activation<gelu_tanh>}
      : tensor<128x32xf32>, tensor<128x4xi16>, tensor<64x16xf32> -> tensor<128x16xf32>
  return %y, %z, %w : tensor<16x128xf32>, tensor<16x128xf16>, tensor<128x16xf32>
}

// Quantized: i8 operands, the exact i32 accumulator, and the scaling
// epilogue to i8 and to f16.
// CHECK-LABEL: func.func @spmm_int8_forms
func.func @spmm_int8_forms(%w: tensor<64x128xi8>, %x: tensor<16x64xi8>,
                           %s: tensor<128xf32>, %b: tensor<128xf32>,
                           %r: tensor<16x128xi8>)
    -> (tensor<16x128xi32>, tensor<16x128xi8>, tensor<16x128xf16>) {
  // CHECK: stc.prune %{{.*}} by #stc.nm<2:4> along 0 : tensor<64x128xi8>
  %p = stc.prune %w by #stc.nm<2:4> along 0 : tensor<64x128xi8>
  // CHECK: stc.compress {{.*}} : tensor<64x128xi8> -> tensor<128x32xi8>, tensor<128x4xi16>
  %v, %m = stc.compress %p by #stc.nm<2:4> along 0
      : tensor<64x128xi8> -> tensor<128x32xi8>, tensor<128x4xi16>
  // CHECK: stc.spmm {{.*}} -> tensor<16x128xi32>
  %y = stc.spmm %v, %m, %x {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>}
      : tensor<128x32xi8>, tensor<128x4xi16>, tensor<16x64xi8> -> tensor<16x128xi32>
  // CHECK: stc.spmm %{{.*}}, %{{.*}}, %{{.*}} bias(%{{.*}} : tensor<128xf32>) acc(%{{.*}} : tensor<16x128xi8>) scale(%{{.*}} : tensor<128xf32>) {activation = #stc.activation<relu>, alpha = 2.500000e-01 : f64, beta = 1.000000e+00 : f64, pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>} : {{.*}} -> tensor<16x128xi8>
  %q = stc.spmm %v, %m, %x bias(%b : tensor<128xf32>) acc(%r : tensor<16x128xi8>)
      scale(%s : tensor<128xf32>)
      {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>, alpha = 0.25 : f64,
       beta = 1.0 : f64, activation = #stc.activation<relu>}
      : tensor<128x32xi8>, tensor<128x4xi16>, tensor<16x64xi8> -> tensor<16x128xi8>
  // CHECK: stc.spmm %{{.*}}, %{{.*}}, %{{.*}} scale(%{{.*}} : tensor<128xf32>) {{.*}} -> tensor<16x128xf16>
  %f = stc.spmm %v, %m, %x scale(%s : tensor<128xf32>)
      {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>}
      : tensor<128x32xi8>, tensor<128x4xi16>, tensor<16x64xi8> -> tensor<16x128xf16>
  return %y, %q, %f : tensor<16x128xi32>, tensor<16x128xi8>, tensor<16x128xf16>
}

// Quantized convolutions: the exact i32 accumulator, and the scaling
// epilogue with per-output-channel scales to f32 and to i8.
// CHECK-LABEL: func.func @conv_int8_forms
func.func @conv_int8_forms(%v: tensor<32x144xi8>, %m: tensor<32x18xi16>,
                           %x: tensor<1x8x8x32xi8>, %s: tensor<32xf32>,
                           %b: tensor<32xf32>)
    -> (tensor<1x8x8x32xi32>, tensor<1x8x8x32xf32>, tensor<1x8x8x32xi8>) {
  // CHECK: stc.conv {{.*}} : tensor<32x144xi8>, tensor<32x18xi16>, tensor<1x8x8x32xi8> -> tensor<1x8x8x32xi32>
  %y = stc.conv %v, %m, %x
      {pattern = #stc.nm<2:4>, filter_size = array<i64: 3, 3>,
       pad_low = array<i64: 1, 1>, pad_high = array<i64: 1, 1>}
      : tensor<32x144xi8>, tensor<32x18xi16>, tensor<1x8x8x32xi8> -> tensor<1x8x8x32xi32>
  // CHECK: stc.conv %{{.*}}, %{{.*}}, %{{.*}} bias(%{{.*}} : tensor<32xf32>) scale(%{{.*}} : tensor<32xf32>) {{.*}} -> tensor<1x8x8x32xf32>
  %f = stc.conv %v, %m, %x bias(%b : tensor<32xf32>) scale(%s : tensor<32xf32>)
      {pattern = #stc.nm<2:4>, filter_size = array<i64: 3, 3>,
       pad_low = array<i64: 1, 1>, pad_high = array<i64: 1, 1>,
       activation = #stc.activation<relu>}
      : tensor<32x144xi8>, tensor<32x18xi16>, tensor<1x8x8x32xi8> -> tensor<1x8x8x32xf32>
  // CHECK: stc.conv %{{.*}}, %{{.*}}, %{{.*}} scale(%{{.*}} : tensor<32xf32>) {{.*}}alpha = 5.000000e-01 {{.*}} -> tensor<1x8x8x32xi8>
  %q = stc.conv %v, %m, %x scale(%s : tensor<32xf32>)
      {pattern = #stc.nm<2:4>, filter_size = array<i64: 3, 3>,
       pad_low = array<i64: 1, 1>, pad_high = array<i64: 1, 1>,
       alpha = 0.5 : f64}
      : tensor<32x144xi8>, tensor<32x18xi16>, tensor<1x8x8x32xi8> -> tensor<1x8x8x32xi8>
  return %y, %f, %q : tensor<1x8x8x32xi32>, tensor<1x8x8x32xf32>, tensor<1x8x8x32xi8>
}

// CHECK-LABEL: func.func @conv_forms
func.func @conv_forms(%v: tensor<64x288xf16>, %m: tensor<64x36xi16>,
                      %x: tensor<1x56x56x64xf16>, %b: tensor<64xf32>,
                      %gv: tensor<8x24xbf16>, %gm: tensor<8x3xi16>,
                      %gx: tensor<2x15x15x6xbf16>,
                      %dv: tensor<32x8xf16>, %dm: tensor<32x1xi16>,
                      %dx: tensor<?x?x?x16xf16>, %dacc: tensor<?x?x?x32xf32>,
                      %tv: tensor<8x4xf32>, %tm: tensor<8x1xi16>,
                      %tx: tensor<1x4x4x8xf32>)
    -> (tensor<1x56x56x64xf16>, tensor<2x6x7x8xf32>, tensor<?x?x?x32xf32>,
        tensor<1x4x4x8xf32>) {
  // CHECK: stc.conv %{{.*}}, %{{.*}}, %{{.*}} bias(%{{.*}} : tensor<64xf32>) {activation = #stc.activation<relu>, filter_size = array<i64: 3, 3>, pad_high = array<i64: 1, 1>, pad_low = array<i64: 1, 1>, pattern = #stc.nm<2:4>} : tensor<64x288xf16>, tensor<64x36xi16>, tensor<1x56x56x64xf16> -> tensor<1x56x56x64xf16>
  %y = stc.conv %v, %m, %x bias(%b : tensor<64xf32>)
      {pattern = #stc.nm<2:4>, filter_size = array<i64: 3, 3>,
       pad_low = array<i64: 1, 1>, pad_high = array<i64: 1, 1>,
       activation = #stc.activation<relu>}
      : tensor<64x288xf16>, tensor<64x36xi16>, tensor<1x56x56x64xf16> -> tensor<1x56x56x64xf16>
  // Two groups of C = 3 (padded to 4): K = 3 * 3 * 4 = 36, padded to 48.
  // OH = (15 + 1 + 0 - 2 * 2 - 1) / 2 + 1 = 6, OW = (15 + 1 + 1 - 5) / 2 + 1 = 7.
  // CHECK: stc.conv {{.*}} {dilations = array<i64: 2, 2>, filter_size = array<i64: 3, 3>, groups = 2 : i64, pad_high = array<i64: 0, 1>, pad_low = array<i64: 1, 1>, pattern = #stc.nm<2:4>, strides = array<i64: 2, 2>} : tensor<8x24xbf16>, tensor<8x3xi16>, tensor<2x15x15x6xbf16> -> tensor<2x6x7x8xf32>
  %g = stc.conv %gv, %gm, %gx
      {pattern = #stc.nm<2:4>, filter_size = array<i64: 3, 3>,
       strides = array<i64: 2, 2>, dilations = array<i64: 2, 2>,
       pad_low = array<i64: 1, 1>, pad_high = array<i64: 0, 1>, groups = 2}
      : tensor<8x24xbf16>, tensor<8x3xi16>, tensor<2x15x15x6xbf16> -> tensor<2x6x7x8xf32>
  // CHECK: stc.conv %{{.*}}, %{{.*}}, %{{.*}} acc(%{{.*}} : tensor<?x?x?x32xf32>) {beta = 1.000000e+00 : f64, filter_size = array<i64: 1, 1>, pattern = #stc.nm<2:4>} : tensor<32x8xf16>, tensor<32x1xi16>, tensor<?x?x?x16xf16> -> tensor<?x?x?x32xf32>
  %d = stc.conv %dv, %dm, %dx acc(%dacc : tensor<?x?x?x32xf32>)
      {pattern = #stc.nm<2:4>, filter_size = array<i64: 1, 1>, beta = 1.0 : f64}
      : tensor<32x8xf16>, tensor<32x1xi16>, tensor<?x?x?x16xf16> -> tensor<?x?x?x32xf32>
  // CHECK: stc.conv {{.*}}pattern = #stc.nm<1:2>{{.*}} : tensor<8x4xf32>, tensor<8x1xi16>, tensor<1x4x4x8xf32> -> tensor<1x4x4x8xf32>
  %t = stc.conv %tv, %tm, %tx {pattern = #stc.nm<1:2>, filter_size = array<i64: 1, 1>}
      : tensor<8x4xf32>, tensor<8x1xi16>, tensor<1x4x4x8xf32> -> tensor<1x4x4x8xf32>
  return %y, %g, %d, %t : tensor<1x56x56x64xf16>, tensor<2x6x7x8xf32>,
                          tensor<?x?x?x32xf32>, tensor<1x4x4x8xf32>
}
