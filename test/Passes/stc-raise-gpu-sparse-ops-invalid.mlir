// Diagnostics of stc-raise-gpu-sparse-ops: sparse ops of the gpu family STC
// has no kernel for, and uses of the 2:4 ones it cannot run.
// RUN: stc-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(stc-raise-gpu-sparse-ops)'

func.func @csr(%pos: memref<?xindex>, %crd: memref<?xindex>, %val: memref<?xf64>, %n: index) {
  // expected-error @+1 {{'gpu.create_csr' is not supported: STC runs the gpu sparse ops on 2:4 matrices only (gpu.create_2to4_spmat, gpu.create_dn_tensor, gpu.spmm_buffer_size, gpu.spmm, gpu.destroy_sp_mat, gpu.destroy_dn_tensor)}}
  %sp = gpu.create_csr %n, %n, %n, %pos, %crd, %val : memref<?xindex>, memref<?xindex>, memref<?xf64>
  return
}

// -----

func.func @spmv(%a: memref<16x32xf16>, %x: memref<32xf16>, %y: memref<16xf16>) {
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %sp = gpu.create_2to4_spmat {PRUNE_AND_CHECK} %c16, %c32, %a : memref<16x32xf16>
  %dx = gpu.create_dn_tensor %x, %c32 : index into memref<32xf16>
  %dy = gpu.create_dn_tensor %y, %c16 : index into memref<16xf16>
  // expected-error @+1 {{'gpu.spmv' is not supported: STC runs the gpu sparse ops on 2:4 matrices only}}
  gpu.spmv %sp, %dx, %dy, %x : memref<32xf16> into f16
  return
}

// -----

func.func @conjugate(%a: memref<16x32xf16>, %b: memref<32x16xf16>, %c: memref<16x16xf16>) {
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %sp = gpu.create_2to4_spmat {PRUNE_AND_CHECK} %c16, %c32, %a : memref<16x32xf16>
  %db = gpu.create_dn_tensor %b, %c32, %c16 : index, index into memref<32x16xf16>
  %dc = gpu.create_dn_tensor %c, %c16, %c16 : index, index into memref<16x16xf16>
  // expected-error @+1 {{stc: gpu.spmm with CONJUGATE_TRANSPOSE is not supported (real matrices: NON_TRANSPOSE or TRANSPOSE)}}
  gpu.spmm %sp, %db{CONJUGATE_TRANSPOSE}, %dc, %c : memref<16x16xf16> into f16
  return
}

// -----

func.func @f64(%a: memref<16x32xf64>, %b: memref<32x16xf64>, %c: memref<16x16xf64>) {
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %sp = gpu.create_2to4_spmat {PRUNE_AND_CHECK} %c16, %c32, %a : memref<16x32xf64>
  %db = gpu.create_dn_tensor %b, %c32, %c16 : index, index into memref<32x16xf64>
  %dc = gpu.create_dn_tensor %c, %c16, %c16 : index, index into memref<16x16xf64>
  // expected-error @+1 {{stc: gpu.spmm: STC's 2:4 kernels take f16, bf16 or f32 matrices A and B (with an f16, bf16 or f32 C) or i8 ones (with an i32 C), got 'f64', 'f64' and 'f64'}}
  gpu.spmm %sp, %db, %dc, %c : memref<16x16xf64> into f64
  return
}

// -----

func.func @shapes(%a: memref<16x32xf16>, %b: memref<16x16xf16>, %c: memref<16x16xf16>) {
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %sp = gpu.create_2to4_spmat {PRUNE_AND_CHECK} %c16, %c32, %a : memref<16x32xf16>
  %db = gpu.create_dn_tensor %b, %c16, %c16 : index, index into memref<16x16xf16>
  %dc = gpu.create_dn_tensor %c, %c16, %c16 : index, index into memref<16x16xf16>
  // expected-error @+1 {{stc: gpu.spmm: op(A) is 16 x 32, op(B) 16 x 16 and C 16 x 16}}
  gpu.spmm %sp, %db, %dc, %c : memref<16x16xf16> into f16
  return
}

// -----

func.func @declared_size(%a: memref<16x32xf16>, %b: memref<32x16xf16>, %c: memref<16x16xf16>) {
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  // expected-error @+1 {{stc: the 2:4 matrix is declared 32 x 16 but its buffer is 'memref<16x32xf16>'}}
  %sp = gpu.create_2to4_spmat {PRUNE_AND_CHECK} %c32, %c16, %a : memref<16x32xf16>
  %db = gpu.create_dn_tensor %b, %c32, %c16 : index, index into memref<32x16xf16>
  %dc = gpu.create_dn_tensor %c, %c16, %c16 : index, index into memref<16x16xf16>
  gpu.spmm %sp, %db, %dc, %c : memref<16x16xf16> into f16
  return
}

// -----

func.func @layout(%a: memref<16x32xf16, strided<[64, 1]>>, %b: memref<32x16xf16>, %c: memref<16x16xf16>) {
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  // expected-error @+1 {{stc: the 2:4 matrix must be a 1-D or 2-D memref with the identity layout in the default memory space, got 'memref<16x32xf16, strided<[64, 1]>>'}}
  %sp = gpu.create_2to4_spmat {PRUNE_AND_CHECK} %c16, %c32, %a : memref<16x32xf16, strided<[64, 1]>>
  %db = gpu.create_dn_tensor %b, %c32, %c16 : index, index into memref<32x16xf16>
  %dc = gpu.create_dn_tensor %c, %c16, %c16 : index, index into memref<16x16xf16>
  gpu.spmm %sp, %db, %dc, %c : memref<16x16xf16> into f16
  return
}

// -----

func.func @vector_operand(%a: memref<16x32xf16>, %b: memref<32xf16>, %c: memref<16x16xf16>) {
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %sp = gpu.create_2to4_spmat {PRUNE_AND_CHECK} %c16, %c32, %a : memref<16x32xf16>
  %db = gpu.create_dn_tensor %b, %c32 : index into memref<32xf16>
  %dc = gpu.create_dn_tensor %c, %c16, %c16 : index, index into memref<16x16xf16>
  // expected-error @+1 {{stc: gpu.spmm needs its dense operands from gpu.create_dn_tensor with two sizes (matrices)}}
  gpu.spmm %sp, %db, %dc, %c : memref<16x16xf16> into f16
  return
}

// -----

func.func @handle_argument(%sp: !gpu.sparse.spmat_handle, %b: memref<32x16xf16>, %c: memref<16x16xf16>) {
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %db = gpu.create_dn_tensor %b, %c32, %c16 : index, index into memref<32x16xf16>
  %dc = gpu.create_dn_tensor %c, %c16, %c16 : index, index into memref<16x16xf16>
  // expected-error @+1 {{stc: gpu.spmm needs its sparse matrix from gpu.create_2to4_spmat (STC runs 2:4 matrices only)}}
  gpu.spmm %sp, %db, %dc, %c : memref<16x16xf16> into f16
  return
}

// -----

func.func @token_escapes(%a: memref<16x32xf16>) -> !gpu.async.token {
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  // expected-error @+1 {{stc: the '!gpu.async.token' of 'gpu.create_2to4_spmat' is used by 'func.return'; STC runs the gpu sparse ops synchronously and needs their tokens and handles used by gpu ops only}}
  %sp, %t = gpu.create_2to4_spmat async [] {PRUNE_AND_CHECK} %c16, %c32, %a : memref<16x32xf16>
  return %t : !gpu.async.token
}

// -----

func.func @device_memory(%n: index) {
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  // expected-error @+1 {{stc: gpu.alloc in memory space 1 : i64 cannot become a host buffer (STC's launch copies host buffers to the device)}}
  %a = gpu.alloc () : memref<16x32xf16, 1>
  %sp = gpu.create_2to4_spmat {PRUNE_AND_CHECK} %c16, %c32, %a : memref<16x32xf16, 1>
  return
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k() kernel {
      gpu.return
    }
  }
  func.func @with_kernel(%a: memref<16x32xf16>) {
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    // expected-error @+1 {{stc: 'gpu.create_2to4_spmat' runs on STC's kernels, whose launch manages device memory itself; this module also launches its own GPU kernels, which STC cannot combine with them}}
    %sp = gpu.create_2to4_spmat {PRUNE_AND_CHECK} %c16, %c32, %a : memref<16x32xf16>
    // expected-note @+1 {{GPU kernel launched here}}
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    return
  }
}
