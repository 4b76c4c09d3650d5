// stc-fuse-epilogue on what the ONNX importer writes: the erf GELU (in f32,
// between an extf and a truncf for half types) after a stc.spmm becomes
// activation gelu_erf; float(i32 accumulator) * scale[c] after an i8
// stc.spmm becomes its scale operand and float result (then a bias add
// fuses as usual); tensor.dim users of a dynamic-batch stc.spmm / stc.conv
// (and of the NCHW transpose) read the batch from the op's input instead,
// so they do not block the fusion. Near misses stay unfused.
// RUN: stc-opt %s --pass-pipeline='builtin.module(func.func(stc-fuse-epilogue))' | FileCheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch4 = affine_map<(d0, d1, d2, d3) -> (d1)>

// CHECK-LABEL: func.func @gelu_erf
// CHECK: %[[Y:.*]] = stc.spmm {{.*}} {activation = #stc.activation<gelu_erf>, pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>}
// CHECK-NOT: linalg.generic
// CHECK: return %[[Y]]
func.func @gelu_erf(%v: tensor<16x16xf32>, %m: tensor<16x2xi16>, %x: tensor<8x32xf32>) -> tensor<8x16xf32> {
  %y = stc.spmm %v, %m, %x {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>} : tensor<16x16xf32>, tensor<16x2xi16>, tensor<8x32xf32> -> tensor<8x16xf32>
  %e = tensor.empty() : tensor<8x16xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %c = arith.constant 0.707106769 : f32
    %one = arith.constant 1.0 : f32
    %half = arith.constant 0.5 : f32
    %s = arith.mulf %a, %c : f32
    %erf = math.erf %s : f32
    %p = arith.addf %erf, %one : f32
    %h = arith.mulf %a, %half : f32
    %g = arith.mulf %h, %p : f32
    linalg.yield %g : f32
  } -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// Operands commuted, f16 through f32.
// CHECK-LABEL: func.func @gelu_erf_f16
// CHECK: stc.spmm {{.*}} {activation = #stc.activation<gelu_erf>
// CHECK-NOT: linalg.generic
func.func @gelu_erf_f16(%v: tensor<16x16xf16>, %m: tensor<16x2xi16>, %x: tensor<8x32xf16>) -> tensor<8x16xf16> {
  %y = stc.spmm %v, %m, %x {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>} : tensor<16x16xf16>, tensor<16x2xi16>, tensor<8x32xf16> -> tensor<8x16xf16>
  %e = tensor.empty() : tensor<8x16xf16>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<8x16xf16>) outs(%e : tensor<8x16xf16>) {
  ^bb0(%a: f16, %o: f16):
    %c = arith.constant 0.707106769 : f32
    %one = arith.constant 1.0 : f32
    %half = arith.constant 0.5 : f32
    %w = arith.extf %a : f16 to f32
    %s = arith.mulf %c, %w : f32
    %erf = math.erf %s : f32
    %p = arith.addf %one, %erf : f32
    %h = arith.mulf %half, %w : f32
    %g = arith.mulf %p, %h : f32
    %n = arith.truncf %g : f32 to f16
    linalg.yield %n : f16
  } -> tensor<8x16xf16>
  return %r : tensor<8x16xf16>
}

// Not the GELU (0.6 where 1/sqrt(2) belongs): left alone.
// CHECK-LABEL: func.func @not_gelu
// CHECK: stc.spmm
// CHECK-NOT: activation
// CHECK: linalg.generic
func.func @not_gelu(%v: tensor<16x16xf32>, %m: tensor<16x2xi16>, %x: tensor<8x32xf32>) -> tensor<8x16xf32> {
  %y = stc.spmm %v, %m, %x {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>} : tensor<16x16xf32>, tensor<16x2xi16>, tensor<8x32xf32> -> tensor<8x16xf32>
  %e = tensor.empty() : tensor<8x16xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %c = arith.constant 0.6 : f32
    %one = arith.constant 1.0 : f32
    %half = arith.constant 0.5 : f32
    %s = arith.mulf %a, %c : f32
    %erf = math.erf %s : f32
    %p = arith.addf %erf, %one : f32
    %h = arith.mulf %a, %half : f32
    %g = arith.mulf %h, %p : f32
    linalg.yield %g : f32
  } -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// An i8 product's i32 accumulator times a per-column f32 scale: the scale
// operand, an f32 result; the bias add that follows fuses next.
// CHECK-LABEL: func.func @i8_scale_then_bias
// CHECK-SAME: %[[S:[^:]*]]: tensor<16xf32>, %[[B:[^:]*]]: tensor<16xf32>)
// CHECK: %[[Y:.*]] = stc.spmm {{.*}} bias(%[[B]] : tensor<16xf32>) scale(%[[S]] : tensor<16xf32>) {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>} : tensor<16x16xi8>, tensor<16x2xi16>, tensor<8x32xi8> -> tensor<8x16xf32>
// CHECK-NOT: linalg.generic
// CHECK: return %[[Y]]
func.func @i8_scale_then_bias(%v: tensor<16x16xi8>, %m: tensor<16x2xi16>, %x: tensor<8x32xi8>, %s: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<8x16xf32> {
  %y = stc.spmm %v, %m, %x {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>} : tensor<16x16xi8>, tensor<16x2xi16>, tensor<8x32xi8> -> tensor<8x16xi32>
  %e = tensor.empty() : tensor<8x16xf32>
  %f = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y, %s : tensor<8x16xi32>, tensor<16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: i32, %c: f32, %o: f32):
    %w = arith.sitofp %a : i32 to f32
    %p = arith.mulf %w, %c : f32
    linalg.yield %p : f32
  } -> tensor<8x16xf32>
  %r = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%f, %b : tensor<8x16xf32>, tensor<16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %p = arith.addf %a, %c : f32
    linalg.yield %p : f32
  } -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// A scale indexed by rows does not match a sparse rhs (one per column).
// CHECK-LABEL: func.func @i8_scale_wrong_dim
// CHECK: stc.spmm {{.*}} -> tensor<16x16xi32>
// CHECK: linalg.generic
func.func @i8_scale_wrong_dim(%v: tensor<16x16xi8>, %m: tensor<16x2xi16>, %x: tensor<16x32xi8>, %s: tensor<16xf32>) -> tensor<16x16xf32> {
  %y = stc.spmm %v, %m, %x {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>} : tensor<16x16xi8>, tensor<16x2xi16>, tensor<16x32xi8> -> tensor<16x16xi32>
  %e = tensor.empty() : tensor<16x16xf32>
  %f = linalg.generic {indexing_maps = [#id, affine_map<(d0, d1) -> (d0)>, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y, %s : tensor<16x16xi32>, tensor<16xf32>) outs(%e : tensor<16x16xf32>) {
  ^bb0(%a: i32, %c: f32, %o: f32):
    %w = arith.sitofp %a : i32 to f32
    %p = arith.mulf %w, %c : f32
    linalg.yield %p : f32
  } -> tensor<16x16xf32>
  return %f : tensor<16x16xf32>
}

// Dynamic batch: the bias add's tensor.empty reads the batch from the
// spmm; it is rewritten to read it from the dense operand, and the bias
// fuses.
// CHECK-LABEL: func.func @dynamic_batch
// CHECK-SAME: %[[X:[^:]*]]: tensor<?x32xf32>
// CHECK: %[[D:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x32xf32>
// CHECK: %[[Y:.*]] = stc.spmm {{.*}} bias(
// CHECK-NOT: linalg.generic
// CHECK: return %[[Y]]
func.func @dynamic_batch(%v: tensor<16x16xf32>, %m: tensor<16x2xi16>, %x: tensor<?x32xf32>, %b: tensor<16xf32>) -> tensor<?x16xf32> {
  %c0 = arith.constant 0 : index
  %y = stc.spmm %v, %m, %x {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>} : tensor<16x16xf32>, tensor<16x2xi16>, tensor<?x32xf32> -> tensor<?x16xf32>
  %n = tensor.dim %y, %c0 : tensor<?x16xf32>
  %e = tensor.empty(%n) : tensor<?x16xf32>
  %r = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y, %b : tensor<?x16xf32>, tensor<16xf32>) outs(%e : tensor<?x16xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<?x16xf32>
  return %r : tensor<?x16xf32>
}

// Dynamic batch through stc.conv and its NCHW transpose (what
// stc-sparsify-convolutions writes for an NCHW convolution).
// CHECK-LABEL: func.func @dynamic_batch_conv
// CHECK-SAME: %[[X:[^:]*]]: tensor<?x8x8x16xf32>
// CHECK: tensor.dim %[[X]]
// CHECK: %[[C:.*]] = stc.conv {{.*}} bias(
// CHECK: %[[T:.*]] = linalg.transpose ins(%[[C]]
// CHECK-NOT: linalg.generic
// CHECK: return %[[T]]
func.func @dynamic_batch_conv(%v: tensor<16x72xf32>, %m: tensor<16x9xi16>, %x: tensor<?x8x8x16xf32>, %b: tensor<16xf32>) -> tensor<?x16x8x8xf32> {
  %c0 = arith.constant 0 : index
  %y = stc.conv %v, %m, %x {pattern = #stc.nm<2:4>, filter_size = array<i64: 3, 3>, pad_low = array<i64: 1, 1>, pad_high = array<i64: 1, 1>} : tensor<16x72xf32>, tensor<16x9xi16>, tensor<?x8x8x16xf32> -> tensor<?x8x8x16xf32>
  %n = tensor.dim %y, %c0 : tensor<?x8x8x16xf32>
  %e = tensor.empty(%n) : tensor<?x16x8x8xf32>
  %t = linalg.transpose ins(%y : tensor<?x8x8x16xf32>) outs(%e : tensor<?x16x8x8xf32>) permutation = [0, 3, 1, 2]
  %n2 = tensor.dim %t, %c0 : tensor<?x16x8x8xf32>
  %e2 = tensor.empty(%n2) : tensor<?x16x8x8xf32>
  %r = linalg.generic {indexing_maps = [#id4, #ch4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%t, %b : tensor<?x16x8x8xf32>, tensor<16xf32>) outs(%e2 : tensor<?x16x8x8xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<?x16x8x8xf32>
  return %r : tensor<?x16x8x8xf32>
}
