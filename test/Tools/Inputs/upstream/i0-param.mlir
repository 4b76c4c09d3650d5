// Upstream: a kernel parameter of type i0 makes the NVPTX back end abort
// ("Empty parameter types are not supported") in gpu-module-to-binary.
// For upstream-crashes.test.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @kernel(%p: i0) kernel {
      gpu.return
    }
  }
}
