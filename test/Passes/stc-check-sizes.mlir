// stc-check-sizes refuses, at the op, static shapes whose element count or
// byte size overflows 64 bits or exceeds 2^47 bytes, and constants of more
// than 2 GiB once expanded; shapes and constants within the bounds (and
// dynamic shapes, checked at run time) pass unchanged; so do dimension
// indices inside the rank (constants outside it are refused).
// RUN: stc-opt %s -split-input-file -verify-diagnostics --stc-check-sizes | FileCheck %s

// CHECK-LABEL: func.func @within_bounds
// CHECK: arith.constant dense<1.000000e+00> : tensor<16384x32768xf32>
func.func @within_bounds(%a: tensor<?x?xf32>, %b: tensor<65536x65536xf32>) -> tensor<16384x32768xf32> {
  // 2 GiB exactly: the largest constant allowed.
  %c = arith.constant dense<1.0> : tensor<16384x32768xf32>
  return %c : tensor<16384x32768xf32>
}

// -----

// expected-error @+1 {{stc-check-sizes: 'tensor<2147483648x2147483648xf32>' is too large: its size in bytes overflows 64 bits}}
func.func @bytes_overflow(%a: tensor<2147483648x2147483648xf32>) {
  return
}

// -----

func.func @count_overflow() {
  // expected-error @+1 {{stc-check-sizes: 'tensor<4294967296x4294967296x4294967296xi8>' is too large: its element count overflows 64 bits}}
  %e = tensor.empty() : tensor<4294967296x4294967296x4294967296xi8>
  return
}

// -----

// One error per type, at the first op that mentions it.
// expected-error @+1 {{stc-check-sizes: 'tensor<1048576x1048576x64xf32>' is too large: it is 281474976710656 bytes (262144.0 GiB), more than the 2^47 bytes a 64-bit process can address}}
func.func @beyond_address_space(%a: tensor<1048576x1048576x64xf32>) -> tensor<1048576x1048576x64xf32> {
  return %a : tensor<1048576x1048576x64xf32>
}

// -----

func.func @splat_too_large() -> tensor<65536x65536xf32> {
  // expected-error @+1 {{stc-check-sizes: 'tensor<65536x65536xf32>' is too large: it holds 17179869184 bytes (16.0 GiB) once expanded, more than the 2 GiB a constant may hold}}
  %c = arith.constant dense<2.0> : tensor<65536x65536xf32>
  return %c : tensor<65536x65536xf32>
}

// -----

// expected-error @+1 {{stc-check-sizes: 'memref<4294967296x4294967296xf32>' is too large: its element count overflows 64 bits}}
memref.global "private" @g : memref<4294967296x4294967296xf32>

// -----

// A constant dimension index outside the rank (undefined at run time;
// upstream's memref.dim folders crash on it, found by the mutation fuzzer);
// indices inside it pass.
func.func @dim_out_of_range(%t: tensor<?x?xf32>, %m: memref<?xf32>) -> (index, index, index) {
  %c1 = arith.constant 1 : index
  %cm1 = arith.constant -1 : index
  %c1b = arith.constant 1 : index
  %ok = tensor.dim %t, %c1 : tensor<?x?xf32>
  // expected-error @+1 {{stc-check-sizes: dimension index -1 is out of range for the rank-2 'tensor<?x?xf32>'}}
  %bad = tensor.dim %t, %cm1 : tensor<?x?xf32>
  // expected-error @+1 {{stc-check-sizes: dimension index 1 is out of range for the rank-1 'memref<?xf32>'}}
  %badm = memref.dim %m, %c1b : memref<?xf32>
  return %ok, %bad, %badm : index, index, index
}
