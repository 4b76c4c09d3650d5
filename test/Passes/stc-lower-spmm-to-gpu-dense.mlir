// Dense contractions on the tensor-core kernel (DenseGemm.h):
// stc-configure-gpu-kernels gives each one that qualifies a staged
// configuration, stc-lower-spmm-to-gpu the staged kernel with a dense S
// (no metadata parameter, two mma.sync m16n8k16 where mma.sp would be one)
// and a host call on S, D (and the initial result) and the result.
// RUN: stc-opt %s --stc-configure-gpu-kernels=target=sm_80 2>&1 | FileCheck %s --check-prefix=CONFIG
// RUN: stc-opt %s --stc-configure-gpu-kernels=target=sm_90 --stc-lower-spmm-to-gpu 2>&1 | FileCheck %s
// On sm_90a the products run on the wgmma kernel with a dense A (TMA maps
// over S and D, 128-byte swizzle, nvvm.wgmma.mma_async m64nNk16; a batch's
// maps one matrix deep).
// RUN: stc-opt %s --stc-configure-gpu-kernels=target=sm_90a --stc-lower-spmm-to-gpu 2>&1 | FileCheck %s --check-prefix=WGMMA
// WGMMA: remark: stc: dense linalg.matmul runs on the GPU's tensor cores as @stc_gemm_0 (wgmma, 64x64 tiles)
// WGMMA: remark: stc: dense linalg.batch_matmul runs on the GPU's tensor cores as @stc_gemm_1 (wgmma,
// WGMMA: gpu.func @stc_gemm_0(
// WGMMA-SAME: config = <arch = sm_90a, family = wgmma
// WGMMA-SAME: params = ["values", "dense", "out", "R", "P", "K", "value_cols", "meta_cols", "values_map", "dense_map"]
// WGMMA-SAME: tensor_maps = [#stc_gpu.tensor_map<"values_map" over "values", type 6, box[64, 64], swizzle 128>, #stc_gpu.tensor_map<"dense_map" over "dense", type 6, box[64, 64], swizzle 128>]
// WGMMA-NOT: stc_gpu.wgmma_sp
// WGMMA-COUNT-4: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <row>]
// WGMMA-NOT: stc_gpu.wgmma_sp
// WGMMA: gpu.func @stc_gemm_1(
// WGMMA-SAME: family = wgmma
// WGMMA-SAME: tensor_maps = [#stc_gpu.tensor_map<"values_map" over "values", type 9, box[64, 64, 1], swizzle 128>, #stc_gpu.tensor_map<"dense_map" over "dense", type 9, box[64, 64, 1], swizzle 128>]
// WGMMA: nvvm.cp.async.bulk.tensor.shared.cluster.global {{.*}} box[{{.*}}, {{.*}}, {{.*}}, {{.*}}]

// f32 stays exact: not for the tensor cores (the elementwise pass takes
// it), with a remark (emitted while configuring, before the module prints).
// CONFIG: remark: stc-configure-gpu-kernels: dense linalg.matmul is not for the tensor-core kernel: the tensor-core kernel takes f16 or bf16 operands and an f32, f16 or bf16 result, got f32 x f32 -> f32

// CONFIG-LABEL: func.func @matmul
// CONFIG: linalg.matmul {stc_gpu.kernel_config = #stc_gpu.kernel_config<arch = sm_80, family = staged, block_rows = 64, block_cols = 64, stages = 3, ordered_metadata = false>}
// CHECK: remark: stc: dense linalg.matmul runs on the GPU's tensor cores as @stc_gemm_0
// CHECK-LABEL: func.func @matmul
// CHECK: call @stc_gemm_0_host(%{{.*}}, %{{.*}}, %{{.*}}) : (memref<96x64xf16>, memref<64x80xf16>, memref<96x80xf32>) -> ()
func.func @matmul(%a: tensor<96x64xf16>, %b: tensor<64x80xf16>) -> tensor<96x80xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<96x80xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<96x80xf32>) -> tensor<96x80xf32>
  %r = linalg.matmul ins(%a, %b : tensor<96x64xf16>, tensor<64x80xf16>) outs(%f : tensor<96x80xf32>) -> tensor<96x80xf32>
  return %r : tensor<96x80xf32>
}

// A batch, accumulating into its argument: S, D, acc, then the result.
// CONFIG-LABEL: func.func @batch
// CONFIG: linalg.batch_matmul {stc_gpu.kernel_config
// CHECK-LABEL: func.func @batch
// CHECK: call @stc_gemm_1_host(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (memref<2x32x16xbf16>, memref<2x16x24xbf16>, memref<2x32x24xf32>, memref<2x32x24xf32>) -> ()
func.func @batch(%a: tensor<2x32x16xbf16>, %b: tensor<2x16x24xbf16>, %c: tensor<2x32x24xf32>) -> tensor<2x32x24xf32> {
  %r = linalg.batch_matmul ins(%a, %b : tensor<2x32x16xbf16>, tensor<2x16x24xbf16>) outs(%c : tensor<2x32x24xf32>) -> tensor<2x32x24xf32>
  return %r : tensor<2x32x24xf32>
}

// CONFIG-LABEL: func.func @f32
// CONFIG-NOT: kernel_config
// CONFIG: return
func.func @f32(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}

// x . x^T with the transpose as torch-mlir writes it: read in place (x
// twice, the second p-major), the transpose gone.
// CHECK-LABEL: func.func @scores
// CHECK-NOT: linalg.transpose
// CHECK: %[[S:.*]] = bufferization.to_buffer %arg0 read_only
// CHECK: %[[D:.*]] = bufferization.to_buffer %arg0 read_only
// CHECK-NOT: linalg.transpose
// CHECK: call @stc_gemm_2_host(%[[S]], %[[D]], %{{.*}}) : (memref<32x64xf16>, memref<32x64xf16>, memref<32x32xf32>) -> ()
func.func @scores(%x: tensor<32x64xf16>) -> tensor<32x32xf32> {
  %z = arith.constant 0.0 : f32
  %t0 = tensor.empty() : tensor<64x32xf16>
  %xt = linalg.transpose ins(%x : tensor<32x64xf16>) outs(%t0 : tensor<64x32xf16>) permutation = [1, 0]
  %e = tensor.empty() : tensor<32x32xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %s = linalg.matmul ins(%x, %xt : tensor<32x64xf16>, tensor<64x32xf16>) outs(%f : tensor<32x32xf32>) -> tensor<32x32xf32>
  return %s : tensor<32x32xf32>
}

// The kernels: dense S (no meta parameter), the mma.sync of the right type,
// no mma.sp, the grid's contract in kernel_info.
// CHECK: gpu.module @stc_kernels
// CHECK: gpu.func @stc_gemm_0(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32) kernel
// CHECK-SAME: stc_gpu.kernel_info = #stc_gpu.kernel_info<kernel = "stc_gemm_0", config = <arch = sm_90, family = staged
// CHECK-SAME: params = ["values", "dense", "out", "R", "P", "K", "value_cols", "meta_cols"], num_pointers = 3, rows = 96, cols = 80, depth = 64, sparse_lhs = true, dense_transposed = false, input_type = f16, output_type = f32, meta_layout = none, meta_rows_per_block = 0, meta_k_per_word = 0, meta_threads = 0>
// CHECK-NOT: nvvm.mma.sp
// CHECK: nvvm.ldmatrix
// CHECK: nvvm.mma.sync {{.*}} {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK-NOT: nvvm.mma.sp
// CHECK: gpu.func @stc_gemm_1
// CHECK-SAME: params = ["values", "dense", "acc", "out", "R", "P", "K", "value_cols", "meta_cols"], num_pointers = 4, rows = 32, cols = 24, depth = 16
// CHECK-SAME: input_type = bf16
// CHECK: nvvm.mma.sync {{.*}} {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK: gpu.func @stc_gemm_2
// CHECK-SAME: sparse_lhs = true, dense_transposed = true
