// stc-lower-spmm-to-gpu with a dynamic leading dimension of the dense
// operand (or, for i8, dynamic value rows): whether the rows are 16-byte
// aligned, which the staged kernel's cp.async copies need, is known only at
// run time. As cuBLAS does, the pass generates both kernels: the staged one
// under the usual name and a direct fallback, <name>_direct, with the same
// parameters, block and tile (no shared memory); kernel_info names the
// fallback (`fallback_kernel`) and the element multiple the staged kernel
// needs (`staged_align`), and stc-gpu-host-launch tests it before the launch
// (stc-gpu-host-launch-fallback.mlir). kernel=staged does the same;
// kernel=direct keeps the one direct kernel. Static sizes decide at
// compile time: no fallback.
// RUN: stc-opt %s -split-input-file --stc-configure-gpu-kernels --stc-lower-spmm-to-gpu | FileCheck %s
// RUN: stc-opt %s -split-input-file --stc-configure-gpu-kernels=kernel=staged --stc-lower-spmm-to-gpu | FileCheck %s
// RUN: stc-opt %s -split-input-file --stc-configure-gpu-kernels=kernel=direct --stc-lower-spmm-to-gpu | FileCheck %s --check-prefix=DIRECT

// f16, a sparse lhs with a K x ? dense operand (k-major, leading dimension
// N dynamic).
// CHECK-LABEL: func.func @f16_k_major
// CHECK: call @stc_spmm_0_host(
// CHECK: gpu.module @stc_kernels
// CHECK: llvm.mlir.global internal @stc_spmm_0_smem()
// CHECK-NOT: llvm.mlir.global
// CHECK: gpu.func @stc_spmm_0(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32) kernel attributes {known_block_size = array<i32: 128, 1, 1>
// CHECK-SAME: kernel = "stc_spmm_0", config = <arch = sm_80, family = staged, block_rows = 64, block_cols = 64, stages = 3, direct_fallback = true>
// CHECK-SAME: static_shared_bytes = 18432
// CHECK-SAME: fallback_kernel = "stc_spmm_0_direct", staged_align = 8>
// CHECK: nvvm.cp.async.shared.global
// CHECK: nvvm.ldmatrix {{.*}}layout = #nvvm.mma_layout<col>
// CHECK: gpu.return
// The fallback: same parameters and block, no stc_gpu.kernel_info of its own,
// fragments from global memory.
// CHECK: gpu.func @stc_spmm_0_direct(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32) kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
// CHECK-NOT: nvvm.cp.async
// CHECK-NOT: nvvm.ldmatrix
// CHECK: nvvm.mma.sp.sync
// CHECK: gpu.return
// CHECK: func.func private @stc_spmm_0_host({{.*}}) attributes {stc_gpu.launches = @stc_kernels::@stc_spmm_0}
// DIRECT-LABEL: func.func @f16_k_major
// DIRECT: gpu.func @stc_spmm_0(
// DIRECT-SAME: family = direct
// DIRECT-NOT: fallback_kernel
// DIRECT-NOT: stc_spmm_0_direct
func.func @f16_k_major(%v: tensor<100x40xf16>, %m: tensor<100x5xi16>, %d: tensor<80x?xf16>) -> tensor<100x?xf32> {
  %y = stc.spmm %v, %m, %d {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>}
      : tensor<100x40xf16>, tensor<100x5xi16>, tensor<80x?xf16> -> tensor<100x?xf32>
  return %y : tensor<100x?xf32>
}

// -----

// tf32, a sparse rhs with X ? x ? (p-major, leading dimension K dynamic):
// rows of a multiple of 4 f32.
// CHECK-LABEL: func.func @tf32_p_major
// CHECK: gpu.func @stc_spmm_0(
// CHECK-SAME: family = staged, {{.*}}direct_fallback = true>
// CHECK-SAME: input_type = f32
// CHECK-SAME: fallback_kernel = "stc_spmm_0_direct", staged_align = 4>
// CHECK: nvvm.convert.float.to.tf32
// CHECK: gpu.func @stc_spmm_0_direct(
// DIRECT-LABEL: func.func @tf32_p_major
// DIRECT-NOT: stc_spmm_0_direct
// DIRECT: family = direct
// DIRECT-NOT: stc_spmm_0_direct
func.func @tf32_p_major(%v: tensor<45x?xf32>, %m: tensor<45x?xi16>, %x: tensor<?x?xf32>) -> tensor<?x45xf32> {
  %y = stc.spmm %v, %m, %x {pattern = #stc.nm<1:2>, sparse = #stc.operand<rhs>}
      : tensor<45x?xf32>, tensor<45x?xi16>, tensor<?x?xf32> -> tensor<?x45xf32>
  return %y : tensor<?x45xf32>
}

// -----

// i8, a sparse rhs with a static leading dimension (64) but dynamic value
// rows (K / 2 bytes, 16-byte rows only when K is a multiple of 32).
// CHECK-LABEL: func.func @i8_dynamic_value_rows
// CHECK: gpu.func @stc_spmm_0(
// CHECK-SAME: family = staged, {{.*}}direct_fallback = true>
// CHECK-SAME: fallback_kernel = "stc_spmm_0_direct", staged_align = 16>
// CHECK: gpu.func @stc_spmm_0_direct(
func.func @i8_dynamic_value_rows(%v: tensor<24x?xi8>, %m: tensor<24x?xi16>, %x: tensor<20x64xi8>) -> tensor<20x24xi32> {
  %y = stc.spmm %v, %m, %x {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>}
      : tensor<24x?xi8>, tensor<24x?xi16>, tensor<20x64xi8> -> tensor<20x24xi32>
  return %y : tensor<20x24xi32>
}

// -----

// A static leading dimension decides at compile time: 80 f16 (aligned) is
// staged without a fallback (dynamic rows of the dense operand, not its
// leading dimension, do not matter); an unaligned one is direct (auto) or
// an error (kernel=staged: stc-lower-spmm-to-gpu-invalid.mlir).
// CHECK-LABEL: func.func @static_ld
// CHECK: gpu.func @stc_spmm_0(
// CHECK-SAME: family = staged, block_rows = 64, block_cols = 64, stages = 3>
// CHECK-NOT: fallback_kernel
// CHECK-NOT: _direct(
func.func @static_ld(%v: tensor<40x40xf16>, %m: tensor<40x5xi16>, %x: tensor<?x80xf16>) -> tensor<?x40xf32> {
  %y = stc.spmm %v, %m, %x {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>}
      : tensor<40x40xf16>, tensor<40x5xi16>, tensor<?x80xf16> -> tensor<?x40xf32>
  return %y : tensor<?x40xf32>
}
