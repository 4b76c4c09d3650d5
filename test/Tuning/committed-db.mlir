// The tuning database committed in tuning/stc-tuning-db.json is built into
// the tools: a product it has measured (the 4096^3 f16 GEMM on an H200,
// sm_90a) is an exact hit without any --tuning-db. --tuning-builtin=false
// (pass option tuning-builtin=false) leaves it out: the heuristics, no
// remark.
// RUN: stc-opt %s --stc-configure-gpu-kernels="target=sm_90a" 2>&1 | FileCheck %s
// RUN: stc-opt %s --stc-configure-gpu-kernels="target=sm_90a tuning-builtin=false" 2>&1 | FileCheck %s --check-prefix=NONE --allow-empty
// RUN: stc-compile %s --target=sm_90a --tuning-builtin=false --remarks --emit=ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=NONE --allow-empty
// RUN: stc-compile %s --target=sm_90a --remarks --emit=ptx -o /dev/null 2>&1 | FileCheck %s

// CHECK: remark: stc-configure-gpu-kernels: tuning database: exact hit for matmul 4096x4096x4096 f16->f16 none on sm_90a on NVIDIA H200: #stc_gpu.kernel_config<arch = sm_90a, family = wgmma,
// NONE-NOT: remark: stc-configure-gpu-kernels
func.func @square(%v: tensor<4096x2048xf16>, %m: tensor<4096x256xi16>, %d: tensor<4096x4096xf16>) -> tensor<4096x4096xf16> {
  %y = stc.spmm %v, %m, %d {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>}
      : tensor<4096x2048xf16>, tensor<4096x256xi16>, tensor<4096x4096xf16> -> tensor<4096x4096xf16>
  return %y : tensor<4096x4096xf16>
}
