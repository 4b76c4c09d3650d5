// --sparsity=auto (docs/TUNING.md): like force, but on a GPU target a
// contraction stays dense when its tuning-database entry (both kernels
// measured) or the cost model says dense is faster; the remark gives both
// times. Inputs/h200-db.json measured the 1024x64x1024 product at 12 us
// sparse and 9 us dense (used alone: --tuning-builtin=false keeps the
// committed database out). Without a database the priors decide (a large
// square, 3072^3: sparse, even paying for pruning at run time; at 2048^3
// the dense wgmma kernel's prior wins). An operand that is not a constant is pruned and
// compressed on every call, which the sparse side pays: a 512^3 product of
// two arguments stays dense. i8 has no dense tensor-core kernel: sparse, and the
// remark says why. On the CPU the dense path is scalar loops: sparse.
// RUN: stc-compile %s --target=sm_90a --sparsity=auto --tuning-builtin=false --tuning-db=%S/Inputs/h200-db.json --emit=stc -o - --remarks 2>&1 | FileCheck %s
// RUN: stc-compile %s --target=sm_90a --sparsity=auto --tuning-builtin=false --emit=stc -o - --remarks 2>&1 | FileCheck %s --check-prefix=PRIORS
// RUN: stc-compile %s --target=cpu --sparsity=auto --emit=stc -o - --remarks 2>&1 | FileCheck %s --check-prefix=CPU
// The same program under force sparsifies all three.
// RUN: stc-compile %s --target=sm_90a --sparsity=force --emit=stc -o - 2>&1 | FileCheck %s --check-prefix=FORCE

// CHECK-DAG: remark: stc: sparsity=auto on sm_90a: sparse, cost model (NVIDIA H200): sparse {{[0-9.]+}} us (sparse wgmma {{[0-9x]+}}, {{.*}}) + {{[0-9.]+}} us to prune and compress it at run time, dense {{[0-9.]+}} us (dense wgmma {{[0-9x]+}}, {{.*}})
// CHECK-DAG: remark: stc: sparsity=auto on sm_90a: kept dense, tuning database (NVIDIA H200): sparse 12.0 us (measured), dense 9.0 us (measured)
// CHECK-DAG: remark: stc: sparsity=auto on sm_90a: sparse, sparse {{[0-9.]+}} us (sparse staged {{[0-9x]+}}, prior) + {{[0-9.]+}} us to prune and compress it at run time; no dense tensor-core kernel for it (the tensor-core kernel takes f16 or bf16 operands
// PRIORS-DAG: remark: stc: sparsity=auto on sm_90a: sparse, cost model (priors, no tuning data): sparse {{[0-9.]+}} us (sparse wgmma {{[0-9x]+}}, prior) + {{[0-9.]+}} us to prune and compress it at run time, dense {{[0-9.]+}} us (dense wgmma {{[0-9x]+}}, prior)
// PRIORS-DAG: remark: stc: sparsity=auto on sm_90a: kept dense, cost model (priors, no tuning data): sparse {{[0-9.]+}} us (sparse wgmma {{[0-9x]+}}, prior) + {{[0-9.]+}} us to prune and compress it at run time, dense {{[0-9.]+}} us (dense wgmma {{[0-9x]+}}, prior)
// The constant weight of @decode is pruned at compile time: no such cost.
// PRIORS-DAG: remark: stc: sparsity=auto on sm_90a: {{sparse|kept dense}}, cost model (priors, no tuning data): sparse {{[0-9.]+}} us (sparse wgmma {{[0-9x]+}}, prior), dense
// CPU-COUNT-4: remark: stc: sparsity=auto on cpu: sparse (a dense contraction runs as scalar loops there, the 2:4 one on the sparse microkernel)

// CHECK-LABEL: func.func @square
// CHECK: stc.spmm
// FORCE-LABEL: func.func @square
// FORCE: stc.spmm
func.func @square(%x: tensor<3072x3072xf16>, %w: tensor<3072x3072xf16>) -> tensor<3072x3072xf16> {
  %zero = arith.constant 0.0 : f16
  %init = tensor.empty() : tensor<3072x3072xf16>
  %c0 = linalg.fill ins(%zero : f16) outs(%init : tensor<3072x3072xf16>) -> tensor<3072x3072xf16>
  %y = linalg.matmul ins(%x, %w : tensor<3072x3072xf16>, tensor<3072x3072xf16>) outs(%c0 : tensor<3072x3072xf16>) -> tensor<3072x3072xf16>
  return %y : tensor<3072x3072xf16>
}

// The constant weight is the sparse operand: key 1024x64x1024.
// CHECK-LABEL: func.func @decode
// CHECK-NOT: stc.spmm
// CHECK: linalg.matmul
// FORCE-LABEL: func.func @decode
// FORCE: stc.spmm
func.func @decode(%x: tensor<1024x64xf16>) -> tensor<1024x64xf16> {
  %w = arith.constant dense<0.5> : tensor<1024x1024xf16>
  %zero = arith.constant 0.0 : f16
  %init = tensor.empty() : tensor<1024x64xf16>
  %c0 = linalg.fill ins(%zero : f16) outs(%init : tensor<1024x64xf16>) -> tensor<1024x64xf16>
  %y = linalg.matmul ins(%w, %x : tensor<1024x1024xf16>, tensor<1024x64xf16>) outs(%c0 : tensor<1024x64xf16>) -> tensor<1024x64xf16>
  return %y : tensor<1024x64xf16>
}

// CHECK-LABEL: func.func @int8
// CHECK: stc.spmm
func.func @int8(%x: tensor<256x512xi8>, %w: tensor<512x256xi8>) -> tensor<256x256xi32> {
  %zero = arith.constant 0 : i32
  %init = tensor.empty() : tensor<256x256xi32>
  %c0 = linalg.fill ins(%zero : i32) outs(%init : tensor<256x256xi32>) -> tensor<256x256xi32>
  %y = linalg.matmul ins(%x, %w : tensor<256x512xi8>, tensor<512x256xi8>) outs(%c0 : tensor<256x256xi32>) -> tensor<256x256xi32>
  return %y : tensor<256x256xi32>
}

// PRIORS-LABEL: func.func @activations
// PRIORS-NOT: stc.spmm
// PRIORS: linalg.matmul
// FORCE-LABEL: func.func @activations
// FORCE: stc.spmm
func.func @activations(%q: tensor<512x512xf16>, %k: tensor<512x512xf16>) -> tensor<512x512xf16> {
  %zero = arith.constant 0.0 : f16
  %init = tensor.empty() : tensor<512x512xf16>
  %c0 = linalg.fill ins(%zero : f16) outs(%init : tensor<512x512xf16>) -> tensor<512x512xf16>
  %y = linalg.matmul ins(%q, %k : tensor<512x512xf16>, tensor<512x512xf16>) outs(%c0 : tensor<512x512xf16>) -> tensor<512x512xf16>
  return %y : tensor<512x512xf16>
}
