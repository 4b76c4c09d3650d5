// Upstream: a 2-D TMA copy with cta_group<cta_2> (an sm_100 feature) passes
// the NVVM verifier for sm_90a, then the NVPTX back end aborts ("Cannot
// select: intrinsic %llvm.nvvm.cp.async.bulk.tensor.g2s.tile.2d"). For
// upstream-crashes.test.
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @copy(%map: !llvm.ptr, %x: i32, %bar: !llvm.ptr<3>, %d: !llvm.ptr<7>, %p: i1) kernel {
      nvvm.cp.async.bulk.tensor.shared.cluster.global %d, %map, %bar, box[%x, %x] {group = #nvvm.cta_group<cta_2>} : !llvm.ptr<7>, !llvm.ptr
      gpu.return
    }
  }
}
