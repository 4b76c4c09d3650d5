// Upstream's gpu sparse ops on a 2:4 matrix, written as the sm80-lt "hand"
// tests write them (device buffers, async tokens, the buffer-size query,
// PRUNE_AND_CHECK, the cuSPARSELt set-up calls), run on STC's kernels
// instead of cuSPARSELt: on the CPU, on the GPU kernels through the
// emulator, and on a GPU when there is one (cuda-gpu-spmm.test). The
// product accumulates into C (which starts at 1), A is pruned in place
// (the program copies it back and prints it), f16 throughout. Expected
// values by NumPy (Inputs/interop_ref.py).
//
// RUN: %python %S/Inputs/interop_ref.py gpu-spmm > %t.check
// RUN: stc-run %s --remarks 2> %t.err | FileCheck %t.check
// RUN: FileCheck %s --check-prefix=REMARK < %t.err
// RUN: stc-run %s --device=emulate 2>/dev/null | FileCheck %t.check
// For a GPU, the host prunes and compresses through STC's runtime and
// launches STC's mma.sp kernel; nothing calls cuSPARSELt.
// RUN: stc-compile %s --target=sm_80 --emit=llvm -o - 2>/dev/null | FileCheck %s --check-prefix=HOST --implicit-check-not=SparseLt
// RUN: stc-compile %s --target=sm_80 --emit=ptx -o - 2>/dev/null | FileCheck %s --check-prefix=PTX
// HOST-DAG: call {{.*}}@_mlir_ciface_stc_rt_prune_f16(
// HOST-DAG: call {{.*}}@_mlir_ciface_stc_rt_compress_f16(
// HOST-DAG: call {{.*}}@mgpuLaunchKernel(
// PTX: mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32
//
// REMARK: gpu-spmm.mlir:[[@LINE+22]]:12: remark: stc: gpu.spmm on a 2:4 matrix runs on STC's kernels (stc.spmm, A pruned in place); its device buffers are host buffers STC copies

module {
  llvm.func @mgpuCreateSparseLtEnv()
  llvm.func @mgpuDestroySparseLtEnv()
  func.func @spmm24(%a : memref<16x32xf16>, %b : memref<32x16xf16>, %c : memref<16x16xf16>) {
    %c16 = arith.constant 16  : index
    %c32 = arith.constant 32  : index
    %t0 = gpu.wait async
    %da, %t1 = gpu.alloc async [%t0] () : memref<16x32xf16>
    %db, %t2 = gpu.alloc async [%t1] () : memref<32x16xf16>
    %dc, %t3 = gpu.alloc async [%t2] () : memref<16x16xf16>
    %t4 = gpu.memcpy async [%t3] %da, %a : memref<16x32xf16>, memref<16x32xf16>
    %t5 = gpu.memcpy async [%t4] %db, %b : memref<32x16xf16>, memref<32x16xf16>
    %t6 = gpu.memcpy async [%t5] %dc, %c : memref<16x16xf16>, memref<16x16xf16>
    %spA, %t7 = gpu.create_2to4_spmat async [%t6] {PRUNE_AND_CHECK} %c16, %c32, %da : memref<16x32xf16>
    %dnB, %t8 = gpu.create_dn_tensor async [%t7] %db, %c32, %c16 : index, index into memref<32x16xf16>
    %dnC, %t9 = gpu.create_dn_tensor async [%t8] %dc, %c16, %c16 : index, index into memref<16x16xf16>
    %s0, %s1, %s2, %t10 = gpu.spmm_buffer_size async [%t9] %spA{NON_TRANSPOSE}, %dnB{NON_TRANSPOSE}, %dnC : index, index, index into f16
    %w0, %t11 = gpu.alloc async [%t10] (%s0) : memref<?xf16>
    %w1, %t12 = gpu.alloc async [%t11] (%s1) : memref<?xf16>
    %w2, %t13 = gpu.alloc async [%t12] (%s2) : memref<?xf16>
    %t14 = gpu.spmm async [%t13] %spA{NON_TRANSPOSE}, %dnB{NON_TRANSPOSE}, %dnC, %w0, %w1, %w2 : memref<?xf16>, memref<?xf16>, memref<?xf16> into f16
    %t15 = gpu.destroy_sp_mat async [%t14] %spA
    %t16 = gpu.destroy_dn_tensor async [%t15] %dnB
    %t17 = gpu.destroy_dn_tensor async [%t16] %dnC
    %t18 = gpu.memcpy async [%t17] %c, %dc : memref<16x16xf16>, memref<16x16xf16>
    %t19 = gpu.memcpy async [%t18] %a, %da : memref<16x32xf16>, memref<16x32xf16>
    %t20 = gpu.dealloc async [%t19] %da : memref<16x32xf16>
    %t21 = gpu.dealloc async [%t20] %db : memref<32x16xf16>
    %t22 = gpu.dealloc async [%t21] %dc : memref<16x16xf16>
    %t23 = gpu.dealloc async [%t22] %w0 : memref<?xf16>
    %t24 = gpu.dealloc async [%t23] %w1 : memref<?xf16>
    %t25 = gpu.dealloc async [%t24] %w2 : memref<?xf16>
    gpu.wait [%t25]
    return
  }
  func.func @main() {
    llvm.call @mgpuCreateSparseLtEnv() : () -> ()
    %h0 = arith.constant 0.0 : f16
    %one = arith.constant 1.0 : f16
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %a = memref.alloc() : memref<16x32xf16>
    %b = memref.alloc() : memref<32x16xf16>
    %c = memref.alloc() : memref<16x16xf16>
    scf.for %i = %c0 to %c16 step %c1 {
      scf.for %j = %c0 to %c32 step %c1 {
        %c5 = arith.constant 5 : index
        %c7 = arith.constant 7 : index
        %c11 = arith.constant 11 : index
        %x0 = arith.muli %i, %c5 : index
        %x1 = arith.muli %j, %c7 : index
        %x2 = arith.addi %x0, %x1 : index
        %x3 = arith.remui %x2, %c11 : index
        %x4 = arith.index_cast %x3 : index to i32
        %x5 = arith.sitofp %x4 : i32 to f16
        %five = arith.constant 5.0 : f16
        %x6 = arith.subf %x5, %five : f16
        memref.store %x6, %a[%i, %j] : memref<16x32xf16>
        %y1 = arith.muli %j, %c5 : index
        %y2 = arith.addi %y1, %i : index
        %y3 = arith.remui %y2, %c7 : index
        %y4 = arith.index_cast %y3 : index to i32
        %y5 = arith.sitofp %y4 : i32 to f16
        %three = arith.constant 3.0 : f16
        %y6 = arith.subf %y5, %three : f16
        memref.store %y6, %b[%j, %i] : memref<32x16xf16>
      }
      scf.for %j = %c0 to %c16 step %c1 {
        memref.store %one, %c[%i, %j] : memref<16x16xf16>
      }
    }
    call @spmm24(%a, %b, %c) : (memref<16x32xf16>, memref<32x16xf16>, memref<16x16xf16>) -> ()
    scf.for %i = %c0 to %c16 step %c1 {
      %row = vector.transfer_read %a[%i, %c0], %h0 : memref<16x32xf16>, vector<32xf16>
      vector.print %row : vector<32xf16>
    }
    scf.for %i = %c0 to %c16 step %c1 {
      %row = vector.transfer_read %c[%i, %c0], %h0 : memref<16x16xf16>, vector<16xf16>
      vector.print %row : vector<16xf16>
    }
    memref.dealloc %a : memref<16x32xf16>
    memref.dealloc %b : memref<32x16xf16>
    memref.dealloc %c : memref<16x16xf16>
    llvm.call @mgpuDestroySparseLtEnv() : () -> ()
    return
  }
}
