// stc-gpu-host-launch keeps intermediates on the device: %mid, written by
// one kernel and read by another and otherwise only freed (and compared by
// the ownership-based deallocation's pointer bookkeeping), becomes a
// gpu.alloc/gpu.dealloc buffer that both launches take as it is: no copy
// out of the first kernel, no copy into the second. %host_read, which the
// host reads (memref.load), and the returned %res stay host buffers, copied
// back after their kernels.
// RUN: stc-opt %s --stc-gpu-host-launch | FileCheck %s

module attributes {gpu.container_module} {
  func.func private @k1_host(memref<64xf32>, memref<64xf32>, index) attributes {stc_gpu.launches = @stc_kernels::@k}
  func.func private @k2_host(memref<64xf32>, memref<64xf32>, index) attributes {stc_gpu.launches = @stc_kernels::@k}
  func.func private @k3_host(memref<64xf32>, memref<64xf32>, index) attributes {stc_gpu.launches = @stc_kernels::@k}
  func.func @main(%x: memref<64xf32>) -> (memref<64xf32>, f32) {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %mid = memref.alloc() : memref<64xf32>
    call @k1_host(%x, %mid, %c64) : (memref<64xf32>, memref<64xf32>, index) -> ()
    %host_read = memref.alloc() : memref<64xf32>
    call @k2_host(%mid, %host_read, %c64) : (memref<64xf32>, memref<64xf32>, index) -> ()
    %p = memref.extract_aligned_pointer_as_index %mid : memref<64xf32> -> index
    %res = memref.alloc() : memref<64xf32>
    call @k3_host(%host_read, %res, %c64) : (memref<64xf32>, memref<64xf32>, index) -> ()
    %v = memref.load %host_read[%c0] : memref<64xf32>
    memref.dealloc %mid : memref<64xf32>
    memref.dealloc %host_read : memref<64xf32>
    return %res, %v : memref<64xf32>, f32
  }
  gpu.module @stc_kernels {
    gpu.func @k(%in: !llvm.ptr, %out: !llvm.ptr, %n: i32) kernel attributes {stc_gpu.elementwise, known_block_size = array<i32: 256, 1, 1>} {
      gpu.return
    }
  }
}

// k1 writes %mid in place: no gpu.memcpy back.
// CHECK-LABEL: func.func private @k1_host(
// CHECK-SAME: %[[IN1:[a-z0-9]+]]: memref<64xf32>, %[[OUT1:[a-z0-9]+]]: memref<64xf32>, %{{.*}}: index)
// CHECK: %[[D1:.*]] = gpu.alloc () : memref<64xf32>
// CHECK: gpu.memcpy %[[D1]], %[[IN1]]
// CHECK: memref.extract_aligned_pointer_as_index %[[OUT1]]
// CHECK: gpu.launch_func @stc_kernels::@k
// CHECK-NOT: gpu.memcpy
// CHECK: gpu.dealloc %[[D1]]
// CHECK-NOT: gpu.memcpy
// CHECK: return

// k2 reads %mid in place and copies its host-read result back.
// CHECK-LABEL: func.func private @k2_host(
// CHECK-SAME: %[[IN2:[a-z0-9]+]]: memref<64xf32>, %[[OUT2:[a-z0-9]+]]: memref<64xf32>, %{{.*}}: index)
// CHECK-NOT: gpu.memcpy %{{.*}}, %[[IN2]]
// CHECK: memref.extract_aligned_pointer_as_index %[[IN2]]
// CHECK: %[[DO2:.*]] = gpu.alloc () : memref<64xf32>
// CHECK: gpu.launch_func @stc_kernels::@k
// CHECK: gpu.memcpy %[[OUT2]], %[[DO2]]

// CHECK-LABEL: func.func @main(
// CHECK: %[[MID:.*]] = gpu.alloc () : memref<64xf32>
// CHECK: call @k1_host(%{{.*}}, %[[MID]], %{{.*}})
// CHECK: %[[HR:.*]] = memref.alloc() : memref<64xf32>
// CHECK: call @k2_host(%[[MID]], %[[HR]], %{{.*}})
// CHECK: %[[RES:.*]] = memref.alloc() : memref<64xf32>
// CHECK: gpu.dealloc %[[MID]]
// CHECK: memref.dealloc %[[HR]]
