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
