// stc-emulate-gpu-kernels on stc_gpu.wgmma_sp (sm_90a warpgroup sparse MMA, A
// from registers, B from shared memory): the op becomes a call of
// stc_emu_wgmma_sp (runtime/emulator/stc_gpu_emulator.h) with the kind
// (0: f16 -> f32, 1: bf16 -> f32, 2: f16 -> f16), n, the A registers and the
// accumulators stored to entry-block allocas, the B descriptor, metadata,
// selector, scale-d (constant 1 when absent, the i1 operand widened
// otherwise), scale-a/b, trans-b, and the address and size of the kernel's
// shared-memory global, which is aligned to 256 KiB on the host so that the
// descriptor's 18-bit addresses find it; the results are loaded back. The
// wgmma fence, commit and wait disappear (the emulated MMA is synchronous).
// RUN: stc-opt %s -split-input-file --stc-emulate-gpu-kernels | FileCheck %s

// CHECK: func.func private @stc_emu_wgmma_sp(i32, i32, !llvm.ptr, i64, i32, i32, i32, i32, i32, i32, !llvm.ptr, i64, !llvm.ptr)
// CHECK: llvm.mlir.global internal @smem() {addr_space = 3 : i32, alignment = 262144 : i64} : !llvm.array<8192 x i8>

module attributes {gpu.container_module} {
  gpu.module @stc_kernels {
    llvm.mlir.global internal @smem() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<8192 x i8>
    // CHECK-LABEL: func.func private @wgmma_emu(
    // CHECK: %[[D:[0-9]+]] = llvm.alloca %{{.*}} x f32
    // CHECK: %[[A:[0-9]+]] = llvm.alloca %{{.*}} x i32
    gpu.func @wgmma(%a: i32, %e: i32, %lo: i32, %flag: i32) kernel {
      %db = arith.extui %lo : i32 to i64
      %c = llvm.bitcast %e : i32 to f32
      %one = arith.constant 1 : i32
      %keep = arith.cmpi eq, %flag, %one : i32
      // CHECK-NOT: nvvm.wgmma
      nvvm.wgmma.fence.aligned
      // CHECK: llvm.getelementptr %[[A]][0]
      // CHECK-NEXT: llvm.store
      // CHECK: llvm.getelementptr %[[A]][3]
      // CHECK-NEXT: llvm.store
      // CHECK: llvm.getelementptr %[[D]][0] : (!llvm.ptr) -> !llvm.ptr, f32
      // CHECK-NEXT: llvm.store %{{.*}} : f32, !llvm.ptr
      // CHECK: llvm.getelementptr %[[D]][3]
      // CHECK-NEXT: llvm.store
      // CHECK: %[[SD:.*]] = arith.extui %{{.*}} : i1 to i32
      // CHECK: %[[G:.*]] = llvm.mlir.addressof @smem : !llvm.ptr<3>
      // CHECK: %[[GH:.*]] = llvm.addrspacecast %[[G]] : !llvm.ptr<3> to !llvm.ptr
      // CHECK: %[[GC:.*]] = call @stc_emu_cta_shared(%[[GH]]) : (!llvm.ptr) -> !llvm.ptr
      // CHECK: %[[GB:.*]] = llvm.addrspacecast %[[GC]] : !llvm.ptr to !llvm.ptr<3>
      // CHECK: %[[GF:.*]] = llvm.addrspacecast %[[GB]] : !llvm.ptr<3> to !llvm.ptr
      // kind 0, n 8, sel 1, scale-d %keep, scale-a -1, scale-b 1, trans-b 1,
      // 8192 bytes of shared memory.
      // CHECK: call @stc_emu_wgmma_sp(%c0_i32, %c8_i32, %[[A]], %{{.*}}, %{{.*}}, %c1_i32{{(_[0-9]+)?}}, %[[SD]], %c-1_i32, %c1_i32{{(_[0-9]+)?}}, %c1_i32{{(_[0-9]+)?}}, %[[GF]], %c8192_i64, %[[D]])
      %d:4 = stc_gpu.wgmma_sp f16 * f16 -> f32, n = 8, a_regs(%a, %a, %a, %a)
          b_desc(%db) meta(%e) sel(1) scale_d(%keep) scale_a(-1) trans_b
          acc(%c, %c, %c, %c) : f32
      nvvm.wgmma.commit.group.sync.aligned
      nvvm.wgmma.wait.group.sync.aligned 0
      // CHECK: llvm.getelementptr %[[D]][0]
      // CHECK-NEXT: llvm.load %{{.*}} : !llvm.ptr -> f32
      // CHECK: llvm.getelementptr %[[D]][3]
      // CHECK-NEXT: %[[R3:.*]] = llvm.load %{{.*}} : !llvm.ptr -> f32
      // CHECK: llvm.bitcast %[[R3]] : f32 to i32
      %r = llvm.bitcast %d#3 : f32 to i32
      %p = llvm.mlir.addressof @smem : !llvm.ptr<3>
      llvm.store %r, %p : i32, !llvm.ptr<3>
      // CHECK: return
      gpu.return
    }
  }
}

// -----

// bf16 with f32 accumulators (kind 1), no scale-d operand (constant 1), no
// transpose: a second kernel module with its own shared memory.
module attributes {gpu.container_module} {
  gpu.module @stc_kernels {
    llvm.mlir.global internal @smem2() {addr_space = 3 : i32} : !llvm.array<1024 x i32>
    // CHECK-LABEL: func.func private @wgmma_bf16_emu(
    gpu.func @wgmma_bf16(%a: i32, %e: i32, %lo: i32) kernel {
      %db = arith.extui %lo : i32 to i64
      %c = llvm.bitcast %e : i32 to f32
      // CHECK: %[[G:.*]] = llvm.mlir.addressof @smem2 : !llvm.ptr<3>
      // CHECK: %[[GH:.*]] = llvm.addrspacecast %[[G]] : !llvm.ptr<3> to !llvm.ptr
      // CHECK: %[[GC:.*]] = call @stc_emu_cta_shared(%[[GH]]) : (!llvm.ptr) -> !llvm.ptr
      // CHECK: %[[GB:.*]] = llvm.addrspacecast %[[GC]] : !llvm.ptr to !llvm.ptr<3>
      // CHECK: %[[GF:.*]] = llvm.addrspacecast %[[GB]] : !llvm.ptr<3> to !llvm.ptr
      // CHECK: call @stc_emu_wgmma_sp(%c1_i32{{(_[0-9]+)?}}, %c16_i32, %{{.*}}, %{{.*}}, %{{.*}}, %c0_i32{{(_[0-9]+)?}}, %c1_i32{{(_[0-9]+)?}}, %c1_i32{{(_[0-9]+)?}}, %c1_i32{{(_[0-9]+)?}}, %c0_i32{{(_[0-9]+)?}}, %[[GF]], %c4096_i64, %{{.*}})
      %d:8 = stc_gpu.wgmma_sp bf16 * bf16 -> f32, n = 16, a_regs(%a, %a, %a, %a)
          b_desc(%db) meta(%e) sel(0) acc(%c, %c, %c, %c, %c, %c, %c, %c) : f32
      gpu.return
    }
  }
}
