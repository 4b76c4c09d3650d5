// The whole --stc-pipeline on the CPU target: sparsity=force turns a dense
// matmul into the 2:4 CPU microkernel and ends in the LLVM dialect with no
// stc op left (constant weights are pruned and compressed at compile time,
// argument weights through _mlir_ciface_stc_rt_* calls); stop-after-stc
// stops right after the stc-level stage with stc.spmm in the IR.
// RUN: stc-opt %s --stc-pipeline="sparsity=force" 2>/dev/null | FileCheck %s --implicit-check-not=stc.
// RUN: stc-opt %s --stc-pipeline="sparsity=force stop-after-stc=true" 2>/dev/null | FileCheck %s --check-prefix=STC

// The runtime declarations get C-interface wrappers that pass descriptors
// by pointer to _mlir_ciface_stc_rt_*.
// CHECK-DAG: llvm.func @_mlir_ciface_stc_rt_prune_f32(!llvm.ptr, !llvm.ptr, i64, i64, i64, i64)
// CHECK-DAG: llvm.func @_mlir_ciface_stc_rt_compress_f32(!llvm.ptr, !llvm.ptr, !llvm.ptr, i64, i64, i64, !llvm.ptr)
// CHECK-DAG: llvm.call @_mlir_ciface_stc_rt_prune_f32(
// CHECK-DAG: llvm.call @_mlir_ciface_stc_rt_compress_f32(

// The constant weight folds: @main calls no runtime function.
// CHECK-LABEL: llvm.func @main(
// CHECK-NOT: llvm.call @stc_rt
// CHECK: llvm.intr.fmuladd({{.*}}) : (vector<16xf32>, vector<16xf32>, vector<16xf32>) -> vector<16xf32>
// CHECK-NOT: llvm.call @stc_rt
// CHECK: llvm.return
// STC-LABEL: func.func @main
// STC-SAME: (%[[X:.*]]: tensor<4x32xf32>)
// STC-DAG: %[[V:.*]] = arith.constant dense<1.500000e+00> : tensor<16x16xf32>
// STC-DAG: %[[M:.*]] = arith.constant dense<17476> : tensor<16x2xi16>
// STC: %[[Y:.*]] = stc.spmm %[[V]], %[[M]], %[[X]] {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>} : tensor<16x16xf32>, tensor<16x2xi16>, tensor<4x32xf32> -> tensor<4x16xf32>
// STC-NOT: linalg.matmul
// STC: return %[[Y]]
func.func @main(%x: tensor<4x32xf32>) -> tensor<4x16xf32> {
  %w = arith.constant dense<1.5> : tensor<32x16xf32>
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x16xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %y = linalg.matmul ins(%x, %w : tensor<4x32xf32>, tensor<32x16xf32>) outs(%z : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// A weight that is a function argument is pruned and compressed at run time.
// CHECK-LABEL: llvm.func @weights_arg(
// CHECK: llvm.call @stc_rt_prune_f32(
// CHECK: llvm.call @stc_rt_compress_f32(
// CHECK: llvm.intr.fmuladd({{.*}}) : (vector<16xf32>, vector<16xf32>, vector<16xf32>) -> vector<16xf32>
// CHECK: llvm.return
// STC-LABEL: func.func @weights_arg
// STC-SAME: (%[[X:.*]]: tensor<4x32xf32>, %[[W:.*]]: tensor<32x16xf32>)
// STC: %[[P:.*]] = stc.prune %[[W]] by #stc.nm<2:4> along 0 : tensor<32x16xf32>
// STC: %[[V:.*]], %[[M:.*]] = stc.compress %[[P]] by #stc.nm<2:4> along 0 : tensor<32x16xf32> -> tensor<16x16xf32>, tensor<16x2xi16>
// STC: %[[Y:.*]] = stc.spmm %[[V]], %[[M]], %[[X]] {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>}
// STC: return %[[Y]]
func.func @weights_arg(%x: tensor<4x32xf32>, %w: tensor<32x16xf32>) -> tensor<4x16xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x16xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %y = linalg.matmul ins(%x, %w : tensor<4x32xf32>, tensor<32x16xf32>) outs(%z : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}
