// The AOT path for a GPU target: the host object of --emit=obj embeds the
// PTX, loads it from a global constructor and launches through the mgpu*
// entry points, so it links with stc_runtime into a plain C program
// (Inputs/run-gpu-linear.c). Here, with no GPU, it runs against the fake
// driver (which computes nothing) and, without a driver, reports the
// runtime's error from main() (the constructor already failed to load the
// kernels); examples/gpu_aot (test/GPU/cuda-aot-example.test) checks the
// results of such a program on a real GPU.
// RUN: rm -rf %t && mkdir -p %t
// RUN: stc-compile %s --target=sm_80 --emit=obj -o %t/linear.o
// RUN: %host_cc -I%stc_src %S/Inputs/run-gpu-linear.c %t/linear.o %stc_runtime_libs -o %t/run-gpu-linear
// RUN: env STC_CUDA_DRIVER_LIBRARY=%fake_cuda %t/run-gpu-linear | FileCheck %s --check-prefix=FAKE
// FAKE: run-gpu-linear: ran
// RUN: not env STC_CUDA_DRIVER_LIBRARY=%fake_cuda STC_FAKE_CUDA_SCENARIO=launch-fails %t/run-gpu-linear 2>&1 \
// RUN:   | FileCheck %s --check-prefix=LAUNCH --match-full-lines
// LAUNCH: run-gpu-linear: error: mgpuLaunchKernel: cuLaunchKernel(kernel 'stc_spmm_0{{(_meta)?}}', {{.*}}) failed: CUDA_ERROR_LAUNCH_FAILED (unspecified launch failure)
// RUN: not env STC_CUDA_DRIVER_LIBRARY=%t/no-such-libcuda.so %t/run-gpu-linear 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NODRV --match-full-lines
// NODRV: run-gpu-linear: error: mgpuModuleLoadJIT: CUDA driver not found ({{.*}}no-such-libcuda.so: cannot open shared object file: No such file or directory); use --device=cpu

func.func @linear(%x: tensor<32x64xf16>, %w: tensor<64x16xf16>) -> tensor<32x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x16xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<32x16xf32>) -> tensor<32x16xf32>
  %wp = stc.prune %w by #stc.nm<2:4> along 0 : tensor<64x16xf16>
  %r = linalg.matmul ins(%x, %wp : tensor<32x64xf16>, tensor<64x16xf16>)
                     outs(%z : tensor<32x16xf32>) -> tensor<32x16xf32>
  return %r : tensor<32x16xf32>
}
