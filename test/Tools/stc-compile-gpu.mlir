// stc-compile with a GPU target (no GPU and no CUDA toolkit needed: the PTX
// comes from LLVM's NVPTX back end): --emit=ptx writes the kernels of the
// two 2:4 contractions below (f16 with a sparse rhs from --sparsity=force's
// view of stc.prune, bf16 with a sparse lhs, bias and ReLU) as one PTX
// module for the requested architecture; --kernel-info writes one JSON
// object per kernel, converted from its stc_gpu.kernel_info; --emit=mlir holds
// the gpu.binary with that PTX; --emit=llvm and --emit=obj are the host
// code, which embeds the PTX, loads it from a global constructor and calls
// the runtime's mgpu* entry points (and links with stc_runtime: see
// stc-compile-gpu-aot.test); --emit=stc stops before the kernels. A program
// without a sparse contraction has no kernels: --emit=ptx fails and writes
// neither file.
// RUN: rm -rf %t && mkdir -p %t
// RUN: stc-compile %s --target=sm_80 --emit=ptx -o %t/k80.ptx --kernel-info=%t/k80.json
// RUN: FileCheck %s --check-prefix=PTX80 < %t/k80.ptx
// PTX80: .target sm_80
// PTX80-DAG: .visible .entry stc_spmm_0(
// PTX80-DAG: .visible .entry stc_spmm_1(
// PTX80-DAG: mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32
// PTX80-DAG: mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.bf16.bf16.f32
// RUN: FileCheck %s --check-prefix=JSON < %t/k80.json
// JSON:      [
// JSON-NEXT:   {
// JSON:          "K": 64,
// JSON:          "P": 48,
// JSON:          "R": 32,
// JSON:          "block": [
// JSON-NEXT:       128,
// JSON-NEXT:       1,
// JSON-NEXT:       1
// JSON-NEXT:     ],
// JSON:          "dense_transposed": false,
// JSON:          "input_type": "f16",
// JSON:          "kernel": "stc_spmm_0",
// JSON:          "ordered_metadata": true,
// JSON:          "output_type": "f32",
// JSON:          "param_types": [
// JSON-NEXT:       "ptr",
// JSON:          "params": [
// JSON-NEXT:       "values",
// JSON:          "sparse": "rhs",
// JSON:        },
// JSON-NEXT:   {
// JSON:          "input_type": "bf16",
// JSON:          "kernel": "stc_spmm_1",
// JSON:          "output_type": "bf16",
// JSON:          "sparse": "lhs",
// JSON:        }
// JSON-NEXT: ]
// RUN: %python -c "import json,sys; k=json.load(open(sys.argv[1])); assert [x['kernel'] for x in k] == ['stc_spmm_0', 'stc_spmm_1'], k" %t/k80.json

// The other architectures, from the same program.
// RUN: stc-compile %s --target=sm_86 --emit=ptx -o - | FileCheck %s --check-prefix=PTX86
// PTX86: .target sm_86
// RUN: stc-compile %s --target=sm_89 --emit=ptx -o - | FileCheck %s --check-prefix=PTX89
// PTX89: .target sm_89
// RUN: stc-compile %s --target=sm_90 --emit=ptx -o - | FileCheck %s --check-prefix=PTX90
// PTX90: .target sm_90{{$}}
// RUN: stc-compile %s --target=sm_90a --emit=ptx -o - | FileCheck %s --check-prefix=PTX90A
// PTX90A: .target sm_90a

// RUN: stc-compile %s --target=sm_80 --emit=mlir -o - | FileCheck %s --check-prefix=MLIR
// MLIR-DAG: gpu.binary @stc_kernels [#gpu.object<#nvvm.target<{{.*}}chip = "sm_80"{{.*}}assembly = "{{.*}}.entry stc_spmm_0
// MLIR-DAG: llvm.func @_mlir_ciface_linear_f16(
// MLIR-DAG: gpu.launch_func <{{.*}}> @stc_kernels::@stc_spmm_1

// RUN: stc-compile %s --target=sm_80 --emit=llvm -o %t/host.ll
// RUN: FileCheck %s --check-prefix=LLVM < %t/host.ll
// LLVM-DAG: @stc_kernels_binary = internal constant {{.*}}.target sm_80
// LLVM-DAG: call ptr @mgpuModuleLoadJIT(
// LLVM-DAG: define void @_mlir_ciface_linear_f16(
// LLVM-DAG: define void @_mlir_ciface_linear_bf16(

// RUN: stc-compile %s --target=sm_80 --emit=obj -o %t/host.o
// RUN: llvm-nm %t/host.o | FileCheck %s --check-prefix=NM
// NM-DAG: T _mlir_ciface_linear_f16
// NM-DAG: T _mlir_ciface_linear_bf16
// NM-DAG: U mgpuModuleLoadJIT
// NM-DAG: U mgpuModuleGetFunction
// NM-DAG: U mgpuLaunchKernel
// NM-DAG: U mgpuMemAlloc
// NM-DAG: U mgpuMemcpy

// RUN: stc-compile %s --target=sm_80 --emit=stc -o - | FileCheck %s --check-prefix=STC --implicit-check-not=gpu.
// STC-COUNT-2: stc.spmm

// RUN: not stc-compile %S/Inputs/host-only.mlir --target=sm_80 --emit=ptx -o %t/none.ptx --kernel-info=%t/none.json 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NONE --match-full-lines
// NONE: stc-compile: error: no GPU kernel to write: no op of the program runs on the GPU (see --remarks)
// RUN: not test -e %t/none.ptx
// RUN: not test -e %t/none.json
// Without --emit=ptx the same program has no kernel and an empty list.
// RUN: stc-compile %S/Inputs/host-only.mlir --target=sm_80 --emit=obj -o %t/none.o --kernel-info=%t/none.json
// RUN: FileCheck %s --check-prefix=EMPTY --match-full-lines < %t/none.json
// EMPTY: []

// X (48 x 64) . W (64 x 32), W pruned 2:4 along K at run time.
func.func @linear_f16(%x: tensor<48x64xf16>, %w: tensor<64x32xf16>) -> tensor<48x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<48x32xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<48x32xf32>) -> tensor<48x32xf32>
  %wp = stc.prune %w by #stc.nm<2:4> along 0 : tensor<64x32xf16>
  %r = linalg.matmul ins(%x, %wp : tensor<48x64xf16>, tensor<64x32xf16>)
                     outs(%z : tensor<48x32xf32>) -> tensor<48x32xf32>
  return %r : tensor<48x32xf32>
}

// A (40 x 96, sparse) . B (96 x 24) + bias (one per row), ReLU, bf16
// result.
func.func @linear_bf16(%a: tensor<40x96xbf16>, %b: tensor<96x24xbf16>, %bias: tensor<40xbf16>) -> tensor<40x24xbf16> {
  %p = stc.prune %a by #stc.nm<2:4> along 1 : tensor<40x96xbf16>
  %v, %m = stc.compress %p by #stc.nm<2:4> along 1 : tensor<40x96xbf16> -> tensor<40x48xbf16>, tensor<40x6xi16>
  %y = stc.spmm %v, %m, %b bias(%bias : tensor<40xbf16>)
      {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>, activation = #stc.activation<relu>}
      : tensor<40x48xbf16>, tensor<40x6xi16>, tensor<96x24xbf16> -> tensor<40x24xbf16>
  return %y : tensor<40x24xbf16>
}
