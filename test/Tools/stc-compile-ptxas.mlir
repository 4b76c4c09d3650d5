// The PTX of every GPU target is valid for ptxas (CUDA toolkit, feature
// `ptxas`): the f16 and the bf16 kernel below, each built on
// mma.sp::ordered_metadata m16n8k32 with f32 accumulation, assemble for
// sm_80, sm_86, sm_89 and sm_90; for sm_90a the same programs become the
// Hopper kernels (TMA, mbarriers, wgmma.mma_async.sp), which assemble for
// sm_90a. --emit=cubin runs that ptxas
// itself (--cuda-path) and writes a CUDA ELF for the architecture.
// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: stc-compile %s --target=sm_80 --emit=ptx -o %t/sm80.ptx
// RUN: %ptxas -arch=sm_80 %t/sm80.ptx -o %t/sm80.cubin
// RUN: FileCheck %s --check-prefixes=CHECK,MMASP,SM80 < %t/sm80.ptx
// RUN: stc-compile %s --target=sm_86 --emit=ptx -o %t/sm86.ptx
// RUN: %ptxas -arch=sm_86 %t/sm86.ptx -o %t/sm86.cubin
// RUN: FileCheck %s --check-prefixes=CHECK,MMASP,SM86 < %t/sm86.ptx
// RUN: stc-compile %s --target=sm_89 --emit=ptx -o %t/sm89.ptx
// RUN: %ptxas -arch=sm_89 %t/sm89.ptx -o %t/sm89.cubin
// RUN: FileCheck %s --check-prefixes=CHECK,MMASP,SM89 < %t/sm89.ptx
// RUN: stc-compile %s --target=sm_90 --emit=ptx -o %t/sm90.ptx
// RUN: %ptxas -arch=sm_90 %t/sm90.ptx -o %t/sm90.cubin
// RUN: FileCheck %s --check-prefixes=CHECK,MMASP,SM90 < %t/sm90.ptx
// RUN: stc-compile %s --target=sm_90a --emit=ptx -o %t/sm90a.ptx
// RUN: %ptxas -arch=sm_90a %t/sm90a.ptx -o %t/sm90a.cubin
// RUN: FileCheck %s --check-prefixes=CHECK,WGMMA,SM90A < %t/sm90a.ptx
// SM80: .target sm_80{{$}}
// SM86: .target sm_86{{$}}
// SM89: .target sm_89{{$}}
// SM90: .target sm_90{{$}}
// SM90A: .target sm_90a{{$}}
// CHECK-DAG: .visible .entry stc_spmm_0(
// CHECK-DAG: .visible .entry stc_spmm_1(
// MMASP-DAG: mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32
// MMASP-DAG: mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.bf16.bf16.f32
// WGMMA-DAG: wgmma.mma_async.sp.sync.aligned.m64n64k32.f32.f16.f16
// WGMMA-DAG: wgmma.mma_async.sp.sync.aligned.m64n64k32.f32.bf16.bf16
// WGMMA-DAG: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// WGMMA-DAG: mbarrier.try_wait.parity.shared.b64

// RUN: stc-compile %s --target=sm_80 --emit=cubin --cuda-path=%cuda_path -o %t/k80.cubin
// RUN: llvm-readelf -h %t/k80.cubin | FileCheck %s --check-prefix=ELF80
// ELF80: Machine: NVIDIA CUDA architecture
// ELF80: Flags: {{.*}}sm_80
// RUN: stc-compile %s --target=sm_90a --emit=cubin --cuda-path=%cuda_path -o %t/k90a.cubin
// RUN: llvm-readelf -h %t/k90a.cubin | FileCheck %s --check-prefix=ELF90A
// llvm-readelf does not name the "a" variant.
// ELF90A: Flags: {{.*}}sm_90

func.func @linear_f16(%x: tensor<48x64xf16>, %w: tensor<64x32xf16>) -> tensor<48x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<48x32xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<48x32xf32>) -> tensor<48x32xf32>
  %wp = stc.prune %w by #stc.nm<2:4> along 0 : tensor<64x32xf16>
  %r = linalg.matmul ins(%x, %wp : tensor<48x64xf16>, tensor<64x32xf16>)
                     outs(%z : tensor<48x32xf32>) -> tensor<48x32xf32>
  return %r : tensor<48x32xf32>
}

func.func @linear_bf16(%a: tensor<40x96xbf16>, %b: tensor<96x24xbf16>, %bias: tensor<40xbf16>) -> tensor<40x24xbf16> {
  %p = stc.prune %a by #stc.nm<2:4> along 1 : tensor<40x96xbf16>
  %v, %m = stc.compress %p by #stc.nm<2:4> along 1 : tensor<40x96xbf16> -> tensor<40x48xbf16>, tensor<40x6xi16>
  %y = stc.spmm %v, %m, %b bias(%bias : tensor<40xbf16>)
      {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>, activation = #stc.activation<relu>}
      : tensor<40x48xbf16>, tensor<40x6xi16>, tensor<96x24xbf16> -> tensor<40x24xbf16>
  return %y : tensor<40x24xbf16>
}
