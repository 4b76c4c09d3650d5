// stc-compile --emit=stc|mlir|llvm|asm|obj smoke tests on a 2:4 program
// (--sparsity=force): the stc level has stc.spmm and no linalg.matmul, the
// MLIR output is in the LLVM dialect with no stc op left, the LLVM IR
// defines @main and its C interface, and the object file defines both and
// only needs the stc runtime's prune/compress entry points (for the weight
// argument) besides malloc/free.
// RUN: rm -rf %t && mkdir -p %t
// RUN: stc-compile %s --sparsity=force --emit=stc -o - | FileCheck %s --check-prefix=STC
// STC: func.func @main
// STC: stc.prune
// STC: stc.compress
// STC: stc.spmm {{.*}}bias({{.*}}) {activation = #stc.activation<relu>
// STC-NOT: linalg.
// RUN: stc-compile %s --sparsity=force --emit=mlir -o - | FileCheck %s --check-prefix=MLIR --implicit-check-not=stc.
// MLIR-DAG: llvm.func @main(
// MLIR-DAG: llvm.func @_mlir_ciface_main(
// MLIR-DAG: llvm.call @_mlir_ciface_stc_rt_prune_f32(
// RUN: stc-compile %s --sparsity=force --emit=llvm -o %t/out.ll
// RUN: FileCheck %s --check-prefix=LLVM < %t/out.ll
// LLVM-DAG: define {{.*}} @main(
// LLVM-DAG: define void @_mlir_ciface_main(
// RUN: stc-compile %s --sparsity=force --emit=asm -o - | FileCheck %s --check-prefix=ASM
// ASM: main:
// RUN: stc-compile %s --sparsity=force --emit=obj -o %t/out.o
// RUN: stc-compile %s --sparsity=force -o %t/default.o
// RUN: cmp %t/out.o %t/default.o
// RUN: llvm-nm %t/out.o | FileCheck %s --check-prefix=NM
// NM-DAG: T _mlir_ciface_main
// NM-DAG: T main
// NM-DAG: U _mlir_ciface_stc_rt_compress_f32
// NM-DAG: U _mlir_ciface_stc_rt_prune_f32
// Without --sparsity the matmul stays dense: no runtime calls.
// RUN: stc-compile %s --emit=obj -o %t/dense.o
// RUN: llvm-nm %t/dense.o | FileCheck %s --check-prefix=DENSE
// DENSE: T main
// DENSE-NOT: stc_rt

func.func @main(%x: tensor<16x64xf32>, %w: tensor<64x32xf32>, %b: tensor<32xf32>) -> tensor<16x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x32xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<16x32xf32>) -> tensor<16x32xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<16x64xf32>, tensor<64x32xf32>)
                      outs(%z : tensor<16x32xf32>) -> tensor<16x32xf32>
  %bias = linalg.generic
      {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                        affine_map<(d0, d1) -> (d1)>,
                        affine_map<(d0, d1) -> (d0, d1)>],
       iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<16x32xf32>, tensor<32xf32>) outs(%e : tensor<16x32xf32>) {
  ^bb0(%a: f32, %bb: f32, %o: f32):
    %s = arith.addf %a, %bb : f32
    linalg.yield %s : f32
  } -> tensor<16x32xf32>
  %r = linalg.generic
      {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                        affine_map<(d0, d1) -> (d0, d1)>],
       iterator_types = ["parallel", "parallel"]}
      ins(%bias : tensor<16x32xf32>) outs(%e : tensor<16x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<16x32xf32>
  return %r : tensor<16x32xf32>
}
