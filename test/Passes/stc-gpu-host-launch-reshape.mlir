// stc-gpu-host-launch looks through reshapes: a buffer that kernels read
// only through memref.expand_shape / memref.collapse_shape (the heads of an
// attention block: 1024x768 -> 8x128x12x64) is an intermediate like any
// other, a device buffer no kernel copies in or out. A reshape the host
// reads (%seen, memref.load) keeps its buffer on the host.
// RUN: stc-opt %s -split-input-file --stc-gpu-host-launch | FileCheck %s
// RUN: stc-opt %s -split-input-file --stc-gpu-host-launch=device-entry=true | FileCheck %s --check-prefix=ENTRY

module attributes {gpu.container_module} {
  func.func private @k1_host(memref<64xf32>, memref<64xf32>, index) attributes {stc_gpu.launches = @stc_kernels::@k}
  func.func private @k2_host(memref<8x8xf32>, memref<8x8xf32>, index, index) attributes {stc_gpu.launches = @stc_kernels::@k2}
  func.func private @k3_host(memref<64xf32>, memref<64xf32>, index) attributes {stc_gpu.launches = @stc_kernels::@k}
  func.func @main(%x: memref<64xf32>) -> (memref<64xf32>, f32) {
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %c64 = arith.constant 64 : index
    %mid = memref.alloc() : memref<64xf32>
    call @k1_host(%x, %mid, %c64) : (memref<64xf32>, memref<64xf32>, index) -> ()
    %heads = memref.expand_shape %mid [[0, 1]] output_shape [8, 8] : memref<64xf32> into memref<8x8xf32>
    %mixed = memref.alloc() : memref<8x8xf32>
    call @k2_host(%heads, %mixed, %c8, %c8) : (memref<8x8xf32>, memref<8x8xf32>, index, index) -> ()
    %flat = memref.collapse_shape %mixed [[0, 1]] : memref<8x8xf32> into memref<64xf32>
    %res = memref.alloc() : memref<64xf32>
    call @k3_host(%flat, %res, %c64) : (memref<64xf32>, memref<64xf32>, index) -> ()
    %seen_buf = memref.alloc() : memref<64xf32>
    call @k1_host(%x, %seen_buf, %c64) : (memref<64xf32>, memref<64xf32>, index) -> ()
    %seen = memref.expand_shape %seen_buf [[0, 1]] output_shape [8, 8] : memref<64xf32> into memref<8x8xf32>
    %v = memref.load %seen[%c0, %c0] : memref<8x8xf32>
    memref.dealloc %mid : memref<64xf32>
    memref.dealloc %mixed : memref<8x8xf32>
    memref.dealloc %seen_buf : memref<64xf32>
    return %res, %v : memref<64xf32>, f32
  }
  gpu.module @stc_kernels {
    gpu.func @k(%in: !llvm.ptr, %out: !llvm.ptr, %n: i32) kernel attributes {stc_gpu.elementwise, known_block_size = array<i32: 256, 1, 1>} {
      gpu.return
    }
    gpu.func @k2(%in: !llvm.ptr, %out: !llvm.ptr, %n0: i32, %n1: i32) kernel attributes {stc_gpu.elementwise, known_block_size = array<i32: 256, 1, 1>} {
      gpu.return
    }
  }
}

// k2 reads the reshaped intermediate in place and writes its result in
// place: no copies at all.
// CHECK-LABEL: func.func private @k2_host(
// CHECK-NOT: gpu.memcpy
// CHECK: gpu.launch_func @stc_kernels::@k2
// CHECK-NOT: gpu.memcpy
// CHECK: return

// (The gpu.deallocs at the end show which buffers became device buffers.)
// CHECK-LABEL: func.func @main(
// CHECK: call @k1_host(%{{.*}}, %[[MID:[a-z0-9_]+]], %{{.*}})
// CHECK: %[[HEADS:.*]] = memref.expand_shape %[[MID]]
// CHECK: %[[MIXED:.*]] = gpu.alloc () : memref<8x8xf32>
// CHECK: call @k2_host(%[[HEADS]], %[[MIXED]],
// CHECK: %[[FLAT:.*]] = memref.collapse_shape %[[MIXED]]
// CHECK: %[[RES:.*]] = memref.alloc() : memref<64xf32>
// CHECK: call @k3_host(%[[FLAT]], %[[RES]],
// CHECK: %[[SEEN:.*]] = memref.alloc() : memref<64xf32>
// CHECK: memref.expand_shape %[[SEEN]]
// CHECK: gpu.dealloc %[[MID]]
// CHECK: gpu.dealloc %[[MIXED]]
// CHECK: memref.dealloc %[[SEEN]]

// -----

// With device-entry, kernels may read an argument through a reshape, and a
// reshape of an argument that is returned is a copy (the caller owns its
// results).
module attributes {gpu.container_module} {
  func.func private @k2_host(memref<8x8xf32>, memref<8x8xf32>, index, index) attributes {stc_gpu.launches = @stc_kernels::@k2}
  func.func @entry(%x: memref<64xf32>) -> (memref<8x8xf32>, memref<8x8xf32>) {
    %c8 = arith.constant 8 : index
    %heads = memref.expand_shape %x [[0, 1]] output_shape [8, 8] : memref<64xf32> into memref<8x8xf32>
    %out = memref.alloc() : memref<8x8xf32>
    call @k2_host(%heads, %out, %c8, %c8) : (memref<8x8xf32>, memref<8x8xf32>, index, index) -> ()
    return %out, %heads : memref<8x8xf32>, memref<8x8xf32>
  }
  gpu.module @stc_kernels {
    gpu.func @k2(%in: !llvm.ptr, %out: !llvm.ptr, %n0: i32, %n1: i32) kernel attributes {stc_gpu.elementwise, known_block_size = array<i32: 256, 1, 1>} {
      gpu.return
    }
  }
}

// ENTRY-LABEL: func.func private @k2_host(
// ENTRY-NOT: gpu.memcpy
// ENTRY: gpu.launch_func @stc_kernels::@k2
// ENTRY-NOT: gpu.memcpy
// ENTRY: return
// ENTRY-LABEL: func.func @entry(
// ENTRY-SAME: %[[X:[a-z0-9]+]]: memref<64xf32>
// ENTRY: %[[HEADS:.*]] = memref.expand_shape %[[X]]
// ENTRY: %[[OUT:.*]] = gpu.alloc () : memref<8x8xf32>
// ENTRY: call @k2_host(%[[HEADS]], %[[OUT]],
// ENTRY: %[[COPY:.*]] = gpu.alloc () : memref<8x8xf32>
// ENTRY: gpu.memcpy %[[COPY]], %[[HEADS]]
// ENTRY: return %[[OUT]], %[[COPY]]
