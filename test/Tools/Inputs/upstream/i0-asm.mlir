// Upstream: inline assembly with an i0 result segfaults NVPTX instruction
// selection (EVT::isExtendedVector) in gpu-module-to-binary. For
// upstream-crashes.test.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @kernel(%x: i32) kernel {
      %y = llvm.inline_asm has_side_effects asm_dialect = att "", "=r,r" %x : (i32) -> i0
      gpu.return
    }
  }
}
