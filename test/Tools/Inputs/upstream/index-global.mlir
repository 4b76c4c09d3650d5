// Upstream: an LLVM global of !llvm.array<0 x index> in a gpu.module
// crashes the translation to LLVM IR (TypeToLLVMIRTranslator) in
// gpu-module-to-binary. For upstream-crashes.test.
module attributes {gpu.container_module} {
  gpu.module @k {
    llvm.mlir.global external @g() {addr_space = 3 : i32} : !llvm.array<0 x index>
  }
}
