// stc-emulate-gpu-kernels on int8 mma.sp: nvvm.mma.sp.sync m16n8k64 and
// m16n8k32 with s8/u8 A and B and s32 accumulators becomes a call of
// stc_emu_mma_sp with the integer input_kind (runtime/emulator/
// stc_gpu_emulator.h: 4 + k32 + 2 * {s8.s8: 0, u8.u8: 1, s8.u8: 2,
// u8.s8: 3}), the A, B and C registers stored as i32 words (2 A and B words
// for m16n8k32) and the result rebuilt as a struct of 4 x i32 loaded from D.
// The emulator's arithmetic for these kinds is tested in
// test/Unit/GpuEmulatorI8Test.cpp.
// RUN: stc-opt %s --stc-emulate-gpu-kernels | FileCheck %s

module attributes {gpu.container_module} {
  gpu.module @stc_kernels {
    // CHECK-LABEL: func.func private @s8_k64_emu(
    // CHECK: %[[D:[0-9]+]] = llvm.alloca %{{.*}} x i32
    // CHECK: %[[C:[0-9]+]] = llvm.alloca %{{.*}} x i32
    // CHECK: %[[B:[0-9]+]] = llvm.alloca %{{.*}} x i32
    // CHECK: %[[A:[0-9]+]] = llvm.alloca %{{.*}} x i32
    // CHECK: %[[P:[0-9]+]] = llvm.inttoptr
    // CHECK: %[[X0:[0-9]+]] = llvm.load %[[P]] : !llvm.ptr -> i32
    // CHECK: %[[X1:[0-9]+]] = llvm.load %{{.*}} : !llvm.ptr -> i32
    // CHECK: %[[X2:[0-9]+]] = llvm.load %{{.*}} : !llvm.ptr -> i32
    // CHECK: %[[E:[0-9]+]] = llvm.load %{{.*}} : !llvm.ptr -> i32
    // A: a0..a3, B: b0..b3, C: c0..c3, each an i32 word, no bitcast.
    // CHECK-NOT: llvm.bitcast
    // CHECK: %[[G:[0-9]+]] = llvm.getelementptr %[[A]][0] : (!llvm.ptr) -> !llvm.ptr, i32
    // CHECK-NEXT: llvm.store %[[X0]], %[[G]] : i32, !llvm.ptr
    // CHECK: llvm.getelementptr %[[A]][3]
    // CHECK-NEXT: llvm.store %[[X0]]
    // CHECK: llvm.getelementptr %[[B]][0]
    // CHECK-NEXT: llvm.store %[[X1]]
    // CHECK: llvm.getelementptr %[[B]][3]
    // CHECK-NEXT: llvm.store %[[X1]]
    // CHECK: llvm.getelementptr %[[C]][0] : (!llvm.ptr) -> !llvm.ptr, i32
    // CHECK-NEXT: llvm.store %[[X2]], %{{.*}} : i32, !llvm.ptr
    // CHECK: llvm.getelementptr %[[C]][3]
    // CHECK-NEXT: llvm.store %[[X2]]
    // CHECK-NEXT: %[[KIND:.*]] = arith.constant 4 : i32
    // CHECK-NEXT: %[[ORD:.*]] = arith.constant 1 : i32
    // CHECK-NEXT: call @stc_emu_mma_sp(%[[KIND]], %[[ORD]], %[[A]], %[[B]], %[[C]], %[[E]], %[[SEL:.*]], %[[D]]) : (i32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, i32, !llvm.ptr) -> ()
    // CHECK-NEXT: %[[U:[0-9]+]] = llvm.mlir.undef : !llvm.struct<(i32, i32, i32, i32)>
    // CHECK-NEXT: %[[G0:[0-9]+]] = llvm.getelementptr %[[D]][0] : (!llvm.ptr) -> !llvm.ptr, i32
    // CHECK-NEXT: %[[D0:[0-9]+]] = llvm.load %[[G0]] : !llvm.ptr -> i32
    // CHECK-NEXT: %[[R0:[0-9]+]] = llvm.insertvalue %[[D0]], %[[U]][0] : !llvm.struct<(i32, i32, i32, i32)>
    // CHECK: llvm.getelementptr %[[D]][3] : (!llvm.ptr) -> !llvm.ptr, i32
    // CHECK-NEXT: %[[D3:[0-9]+]] = llvm.load %{{.*}} : !llvm.ptr -> i32
    // CHECK-NEXT: %[[R3:[0-9]+]] = llvm.insertvalue %[[D3]], %{{.*}}[3] : !llvm.struct<(i32, i32, i32, i32)>
    // CHECK-NEXT: %[[OUT:[0-9]+]] = llvm.extractvalue %[[R3]][3]
    // CHECK-NEXT: llvm.store %[[OUT]], %[[P]] : i32, !llvm.ptr
    // CHECK-NOT: nvvm.
    // CHECK: return
    gpu.func @s8_k64(%p: !llvm.ptr) kernel {
      %c0 = arith.constant 0 : i32
      %x0 = llvm.load %p : !llvm.ptr -> i32
      %p1 = llvm.getelementptr %p[1] : (!llvm.ptr) -> !llvm.ptr, i32
      %x1 = llvm.load %p1 : !llvm.ptr -> i32
      %p2 = llvm.getelementptr %p[2] : (!llvm.ptr) -> !llvm.ptr, i32
      %x2 = llvm.load %p2 : !llvm.ptr -> i32
      %p3 = llvm.getelementptr %p[3] : (!llvm.ptr) -> !llvm.ptr, i32
      %e = llvm.load %p3 : !llvm.ptr -> i32
      %r = nvvm.mma.sp.sync A[%x0, %x0, %x0, %x0] B[%x1, %x1, %x1, %x1] C[%x2, %x2, %x2, %x2]
          sparseMetadata[%e] selector[%c0]
          {intOverflowBehavior = #nvvm.mma_int_overflow<wrapped>, multiplicandAPtxType = #nvvm.mma_type<s8>, multiplicandBPtxType = #nvvm.mma_type<s8>, orderedMetadata, shape = #nvvm.shape<m = 16, n = 8, k = 64>}
          : (i32, i32, i32) -> !llvm.struct<(i32, i32, i32, i32)>
      %d = llvm.extractvalue %r[3] : !llvm.struct<(i32, i32, i32, i32)>
      llvm.store %d, %p : i32, !llvm.ptr
      gpu.return
    }

    // m16n8k32: 2 A and 2 B words; the selector a kernel parameter; the
    // plain (not ordered) metadata form.
    // CHECK-LABEL: func.func private @s8_k32_emu(
    // CHECK: %[[SEL:[0-9]+]] = arith.trunci
    // CHECK: %[[A:[0-9]+]] = arith.trunci
    // CHECK: llvm.store %[[A]]
    // CHECK-NEXT: llvm.getelementptr %{{.*}}[1] : (!llvm.ptr) -> !llvm.ptr, i32
    // CHECK-NEXT: llvm.store %[[A]]
    // CHECK-NEXT: llvm.getelementptr %{{.*}}[0] : (!llvm.ptr) -> !llvm.ptr, i32
    // CHECK-NEXT: llvm.store %[[A]]
    // CHECK-NEXT: llvm.getelementptr %{{.*}}[1] : (!llvm.ptr) -> !llvm.ptr, i32
    // CHECK-NEXT: llvm.store %[[A]]
    // CHECK-NEXT: llvm.getelementptr %{{.*}}[0] : (!llvm.ptr) -> !llvm.ptr, i32
    // CHECK: %[[KIND:.*]] = arith.constant 5 : i32
    // CHECK-NEXT: %[[ORD:.*]] = arith.constant 0 : i32
    // CHECK-NEXT: call @stc_emu_mma_sp(%[[KIND]], %[[ORD]], %{{.*}}, %{{.*}}, %{{.*}}, %[[A]], %[[SEL]], %{{.*}})
    // CHECK-NOT: nvvm.
    // CHECK: return
    gpu.func @s8_k32(%sel: i32, %a: i32) kernel {
      %r = nvvm.mma.sp.sync A[%a, %a] B[%a, %a] C[%a, %a, %a, %a]
          sparseMetadata[%a] selector[%sel]
          {intOverflowBehavior = #nvvm.mma_int_overflow<wrapped>, multiplicandAPtxType = #nvvm.mma_type<s8>, multiplicandBPtxType = #nvvm.mma_type<s8>, shape = #nvvm.shape<m = 16, n = 8, k = 32>}
          : (i32, i32, i32) -> !llvm.struct<(i32, i32, i32, i32)>
      gpu.return
    }

    // The unsigned and mixed forms.
    // CHECK-LABEL: func.func private @u8_k64_emu(
    // CHECK: %[[KIND:.*]] = arith.constant 6 : i32
    // CHECK-NEXT: %[[ORD:.*]] = arith.constant 1 : i32
    // CHECK-NEXT: call @stc_emu_mma_sp(%[[KIND]], %[[ORD]],
    gpu.func @u8_k64(%a: i32) kernel {
      %c0 = arith.constant 0 : i32
      %r = nvvm.mma.sp.sync A[%a, %a, %a, %a] B[%a, %a, %a, %a] C[%a, %a, %a, %a]
          sparseMetadata[%a] selector[%c0]
          {intOverflowBehavior = #nvvm.mma_int_overflow<wrapped>, multiplicandAPtxType = #nvvm.mma_type<u8>, multiplicandBPtxType = #nvvm.mma_type<u8>, orderedMetadata, shape = #nvvm.shape<m = 16, n = 8, k = 64>}
          : (i32, i32, i32) -> !llvm.struct<(i32, i32, i32, i32)>
      gpu.return
    }
    // CHECK-LABEL: func.func private @u8_k32_emu(
    // CHECK: %[[KIND:.*]] = arith.constant 7 : i32
    // CHECK-NEXT: %[[ORD:.*]] = arith.constant 1 : i32
    // CHECK-NEXT: call @stc_emu_mma_sp(%[[KIND]], %[[ORD]],
    gpu.func @u8_k32(%a: i32) kernel {
      %c1 = arith.constant 1 : i32
      %r = nvvm.mma.sp.sync A[%a, %a] B[%a, %a] C[%a, %a, %a, %a]
          sparseMetadata[%a] selector[%c1]
          {intOverflowBehavior = #nvvm.mma_int_overflow<wrapped>, multiplicandAPtxType = #nvvm.mma_type<u8>, multiplicandBPtxType = #nvvm.mma_type<u8>, orderedMetadata, shape = #nvvm.shape<m = 16, n = 8, k = 32>}
          : (i32, i32, i32) -> !llvm.struct<(i32, i32, i32, i32)>
      gpu.return
    }
    // CHECK-LABEL: func.func private @s8u8_k64_emu(
    // CHECK: %[[KIND:.*]] = arith.constant 8 : i32
    // CHECK-NEXT: %[[ORD:.*]] = arith.constant 1 : i32
    // CHECK-NEXT: call @stc_emu_mma_sp(%[[KIND]], %[[ORD]],
    gpu.func @s8u8_k64(%a: i32) kernel {
      %c0 = arith.constant 0 : i32
      %r = nvvm.mma.sp.sync A[%a, %a, %a, %a] B[%a, %a, %a, %a] C[%a, %a, %a, %a]
          sparseMetadata[%a] selector[%c0]
          {intOverflowBehavior = #nvvm.mma_int_overflow<wrapped>, multiplicandAPtxType = #nvvm.mma_type<s8>, multiplicandBPtxType = #nvvm.mma_type<u8>, orderedMetadata, shape = #nvvm.shape<m = 16, n = 8, k = 64>}
          : (i32, i32, i32) -> !llvm.struct<(i32, i32, i32, i32)>
      gpu.return
    }
    // CHECK-LABEL: func.func private @u8s8_k32_emu(
    // CHECK: %[[KIND:.*]] = arith.constant 11 : i32
    // CHECK-NEXT: %[[ORD:.*]] = arith.constant 1 : i32
    // CHECK-NEXT: call @stc_emu_mma_sp(%[[KIND]], %[[ORD]],
    gpu.func @u8s8_k32(%a: i32) kernel {
      %c0 = arith.constant 0 : i32
      %r = nvvm.mma.sp.sync A[%a, %a] B[%a, %a] C[%a, %a, %a, %a]
          sparseMetadata[%a] selector[%c0]
          {intOverflowBehavior = #nvvm.mma_int_overflow<wrapped>, multiplicandAPtxType = #nvvm.mma_type<u8>, multiplicandBPtxType = #nvvm.mma_type<s8>, orderedMetadata, shape = #nvvm.shape<m = 16, n = 8, k = 32>}
          : (i32, i32, i32) -> !llvm.struct<(i32, i32, i32, i32)>
      gpu.return
    }
  }
}
