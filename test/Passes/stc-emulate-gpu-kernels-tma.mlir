// stc-emulate-gpu-kernels on the ops of a warp-specialised sm_90a kernel
// (runtime/emulator/stc_gpu_emulator.h):
// - each kernel's dynamic shared memory (a zero-sized addr_space 3 global)
//   becomes an internal, zero-initialised host global of the kernel's
//   stc_gpu.kernel_info shared_bytes, aligned to 256 KiB; one no kernel uses
//   goes; stc_gpu.wgmma_sp gets the kernel's own as its window, and with A
//   from shared memory (a_desc) becomes stc_emu_wgmma_sp_ss;
// - nvvm.mbarrier.init / arrive (with or without count and result) /
//   arrive.expect_tx / expect_tx / complete_tx / try_wait.parity become
//   calls of stc_emu_mbarrier_* on the barrier's generic address (an
//   arrive's i64 token becomes 0); the mbarrier-init and proxy fences,
//   setmaxregister and empty inline assembly (register fences: their
//   results are their tied operands) disappear;
// - the 2-D tile TMA load becomes stc_emu_tma_load_2d(dst, map, x, y, bar),
//   the 4-D one stc_emu_tma_load_4d(dst, map, c0, c1, c2, c3, bar), the
//   coordinates in order (innermost first);
// - on the host, stc_gpu_tensor_map_2d and stc_gpu_tensor_map_4d
//   (declarations and calls) become stc_emu_tensor_map_2d and
//   stc_emu_tensor_map_4d, and a cluster launch whose sizes are not all
//   constants checks at run time that its clusters tile the grid
//   (stc_emu_check_cluster) before stc_emu_launch.
// RUN: stc-opt %s --stc-emulate-gpu-kernels | FileCheck %s --implicit-check-not=stc_gpu_tensor_map_2d --implicit-check-not=stc_gpu_tensor_map_4d --implicit-check-not=@unused_smem

// CHECK-DAG: func.func private @stc_emu_wgmma_sp_ss(i32, i32, i64, i64, i32, i32, i32, i32, i32, i32, i32, !llvm.ptr, i64, !llvm.ptr)
// CHECK-DAG: func.func private @stc_emu_mbarrier_init(!llvm.ptr, i32)
// CHECK-DAG: func.func private @stc_emu_mbarrier_arrive(!llvm.ptr, i32)
// CHECK-DAG: func.func private @stc_emu_mbarrier_arrive_expect_tx(!llvm.ptr, i32)
// CHECK-DAG: func.func private @stc_emu_mbarrier_expect_tx(!llvm.ptr, i32)
// CHECK-DAG: func.func private @stc_emu_mbarrier_complete_tx(!llvm.ptr, i32)
// CHECK-DAG: func.func private @stc_emu_mbarrier_wait_parity(!llvm.ptr, i32)
// CHECK-DAG: func.func private @stc_emu_tma_load_2d(!llvm.ptr, !llvm.ptr, i32, i32, !llvm.ptr)
// CHECK-DAG: func.func private @stc_emu_tma_load_4d(!llvm.ptr, !llvm.ptr, i32, i32, i32, i32, !llvm.ptr)
// CHECK-DAG: func.func private @stc_emu_check_cluster(i64, i64, i64, i64, i64, i64)
// CHECK-DAG: func.func private @stc_emu_tensor_map_2d(!llvm.ptr, i32, i64, i64, i64, i32, i32, i32) -> !llvm.ptr
// CHECK-DAG: func.func private @stc_emu_tensor_map_4d(!llvm.ptr, i32, i64, i64, i64, i64, i64, i64, i64, i32, i32, i32, i32, i32, i32, i32, i32, i32) -> !llvm.ptr

module attributes {gpu.container_module} {
  func.func private @stc_gpu_tensor_map_2d(!llvm.ptr, i32, i64, i64, i64, i32, i32, i32) -> !llvm.ptr
  func.func private @stc_gpu_tensor_map_4d(!llvm.ptr, i32, i64, i64, i64, i64, i64, i64, i64, i32, i32, i32, i32, i32, i32, i32, i32, i32) -> !llvm.ptr

  // CHECK-LABEL: func.func @host(
  // CHECK-SAME: %[[A:[^:]+]]: !llvm.ptr, %[[N:[^:]+]]: index
  func.func @host(%a: !llvm.ptr, %n: index, %x: i32) {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c288 = arith.constant 288 : index
    %type = arith.constant 6 : i32
    %inner = arith.constant 64 : i64
    %outer = arith.constant 100 : i64
    %stride = arith.constant 128 : i64
    %box_inner = arith.constant 64 : i32
    %box_outer = arith.constant 32 : i32
    %swizzle = arith.constant 128 : i32
    // CHECK: %[[MAP:.*]] = call @stc_emu_tensor_map_2d(%[[A]], %{{.*}}) : (!llvm.ptr, i32, i64, i64, i64, i32, i32, i32) -> !llvm.ptr
    %map = func.call @stc_gpu_tensor_map_2d(%a, %type, %inner, %outer, %stride, %box_inner, %box_outer, %swizzle) : (!llvm.ptr, i32, i64, i64, i64, i32, i32, i32) -> !llvm.ptr
    %smem = arith.constant 33792 : i32
    // Constant grid and clusters: checked here, nothing to check at run
    // time.
    // CHECK: llvm.ptrtoint %[[MAP]]
    // CHECK-NOT: stc_emu_check_cluster
    // CHECK: call @stc_emu_launch_cluster(
    gpu.launch_func @stc_kernels::@tma clusters in (%c2, %c1, %c1) blocks in (%c4, %c2, %c1) threads in (%c288, %c1, %c1) dynamic_shared_memory_size %smem args(%map : !llvm.ptr, %x : i32)
    // CHECK: %[[GX:.*]] = arith.index_cast %[[N]] : index to i64
    // CHECK: call @stc_emu_check_cluster(%[[GX]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (i64, i64, i64, i64, i64, i64) -> ()
    // CHECK: call @stc_emu_launch_cluster(
    gpu.launch_func @stc_kernels::@tma clusters in (%c2, %c1, %c1) blocks in (%n, %c2, %c1) threads in (%c288, %c1, %c1) dynamic_shared_memory_size %smem args(%map : !llvm.ptr, %x : i32)
    return
  }

  // An NHWC f16 activation of 2 x 10 x 12 x 64, boxes of 64 x 8 x 4 x 1
  // taking every other W and H: the arguments pass through unchanged.
  // CHECK-LABEL: func.func @host_4d(
  // CHECK-SAME: %[[X4:[^:]+]]: !llvm.ptr
  // CHECK: %[[MAP4:.*]] = call @stc_emu_tensor_map_4d(%[[X4]], {{(%[^,]+, )+}}%[[ONE:[^,]+]], %[[ONE]], %[[TWO:[^,]+]], %[[TWO]], %[[ONE]], %{{[^)]+}}) : (!llvm.ptr, i32, i64, i64, i64, i64, i64, i64, i64, i32, i32, i32, i32, i32, i32, i32, i32, i32) -> !llvm.ptr
  // CHECK: return %[[MAP4]]
  func.func @host_4d(%x: !llvm.ptr) -> !llvm.ptr {
    %type = arith.constant 6 : i32
    %c = arith.constant 64 : i64
    %w = arith.constant 12 : i64
    %h = arith.constant 10 : i64
    %n = arith.constant 2 : i64
    %sw = arith.constant 128 : i64
    %sh = arith.constant 1536 : i64
    %sn = arith.constant 15360 : i64
    %b0 = arith.constant 64 : i32
    %b1 = arith.constant 8 : i32
    %b2 = arith.constant 4 : i32
    %one = arith.constant 1 : i32
    %two = arith.constant 2 : i32
    %swizzle = arith.constant 128 : i32
    %map = func.call @stc_gpu_tensor_map_4d(%x, %type, %c, %w, %h, %n, %sw, %sh, %sn, %b0, %b1, %b2, %one, %one, %two, %two, %one, %swizzle) : (!llvm.ptr, i32, i64, i64, i64, i64, i64, i64, i64, i32, i32, i32, i32, i32, i32, i32, i32, i32) -> !llvm.ptr
    return %map : !llvm.ptr
  }

  // CHECK: llvm.mlir.global internal @tma_smem() {addr_space = 3 : i32, alignment = 262144 : i64} : !llvm.array<33792 x i8> {
  // CHECK-NEXT: %[[Z:.*]] = llvm.mlir.zero : !llvm.array<33792 x i8>
  // CHECK-NEXT: llvm.return %[[Z]]
  // CHECK: llvm.mlir.global internal @wgmma_smem() {addr_space = 3 : i32, alignment = 262144 : i64} : !llvm.array<2048 x i8>
  gpu.module @stc_kernels {
    llvm.mlir.global external @tma_smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
    llvm.mlir.global external @wgmma_smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
    llvm.mlir.global external @unused_smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
    llvm.mlir.global external @tma4d_smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>

    // CHECK-LABEL: func.func private @tma_emu(
    // CHECK: %[[P0:.*]] = llvm.load %{{.*}} : !llvm.ptr -> i64
    // CHECK: %[[TMAP:.*]] = llvm.inttoptr %[[P0]] : i64 to !llvm.ptr
    // CHECK: %[[X:.*]] = arith.trunci
    // CHECK: %[[S:.*]] = llvm.mlir.addressof @tma_smem : !llvm.ptr<3>
    // CHECK: %[[SH:.*]] = llvm.addrspacecast %[[S]] : !llvm.ptr<3> to !llvm.ptr
    // CHECK: %[[SC:.*]] = call @stc_emu_cta_shared(%[[SH]]) : (!llvm.ptr) -> !llvm.ptr
    // CHECK: %[[SB:.*]] = llvm.addrspacecast %[[SC]] : !llvm.ptr to !llvm.ptr<3>
    // CHECK: %[[BAR:.*]] = llvm.getelementptr %[[SB]][32768]
    // CHECK: %[[B0:.*]] = llvm.addrspacecast %[[BAR]] : !llvm.ptr<3> to !llvm.ptr
    // CHECK-NEXT: call @stc_emu_mbarrier_init(%[[B0]], %c1_i32) : (!llvm.ptr, i32) -> ()
    // CHECK-NOT: nvvm.
    // CHECK: %[[B1:.*]] = llvm.addrspacecast %[[BAR]] : !llvm.ptr<3> to !llvm.ptr
    // CHECK-NEXT: call @stc_emu_mbarrier_arrive_expect_tx(%[[B1]], %[[X]])
    // CHECK: %[[D7:.*]] = llvm.addrspacecast %[[SB]] : !llvm.ptr<3> to !llvm.ptr<7>
    // CHECK-NEXT: %[[D:.*]] = llvm.addrspacecast %[[D7]] : !llvm.ptr<7> to !llvm.ptr
    // CHECK-NEXT: %[[B2:.*]] = llvm.addrspacecast %[[BAR]] : !llvm.ptr<3> to !llvm.ptr
    // CHECK-NEXT: call @stc_emu_tma_load_2d(%[[D]], %[[TMAP]], %[[X]], %c0_i32, %[[B2]]) : (!llvm.ptr, !llvm.ptr, i32, i32, !llvm.ptr) -> ()
    // CHECK: call @stc_emu_mbarrier_wait_parity(%{{.*}}, %c0_i32) : (!llvm.ptr, i32) -> ()
    // The plain arrive is one arrival.
    // CHECK: %[[ONE:.*]] = arith.constant 1 : i32
    // CHECK: call @stc_emu_mbarrier_arrive(%{{.*}}, %[[ONE]])
    // CHECK: call @stc_emu_mbarrier_arrive(%{{.*}}, %[[X]])
    // CHECK: %[[TOKEN:.*]] = arith.constant 0 : i64
    // CHECK: %[[T32:.*]] = arith.trunci %[[TOKEN]] : i64 to i32
    // CHECK: call @stc_emu_mbarrier_expect_tx(%{{.*}}, %[[T32]])
    // CHECK: call @stc_emu_mbarrier_complete_tx(%{{.*}}, %[[T32]])
    // CHECK-NOT: nvvm.
    // CHECK: return
    gpu.func @tma(%map: !llvm.ptr, %x: i32) kernel attributes {stc_gpu.kernel_info = #stc_gpu.kernel_info<kernel = "k", config = <arch = sm_80, family = direct, block_rows = 64, block_cols = 64>, threads = 128, shared_bytes = 33792, static_shared_bytes = 0, params = ["values", "meta", "dense", "out", "R", "P", "K", "value_cols", "meta_cols"], num_pointers = 4, rows = 64, cols = 64, depth = 64, sparse_lhs = true, dense_transposed = false, input_type = f16, output_type = f32, meta_layout = kernel_ready, meta_rows_per_block = 32, meta_k_per_word = 32, meta_threads = 32>} {
      %s = llvm.mlir.addressof @tma_smem : !llvm.ptr<3>
      %c1 = arith.constant 1 : i32
      %c0 = arith.constant 0 : i32
      %bar = llvm.getelementptr %s[32768] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
      nvvm.mbarrier.init %bar, %c1 : !llvm.ptr<3>, i32
      nvvm.fence.mbarrier.init
      nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
      nvvm.setmaxregister increase 232
      nvvm.mbarrier.arrive.expect_tx %bar, %x : !llvm.ptr<3>, i32
      %d7 = llvm.addrspacecast %s : !llvm.ptr<3> to !llvm.ptr<7>
      nvvm.cp.async.bulk.tensor.shared.cluster.global %d7, %map, %bar, box[%x, %c0] : !llvm.ptr<7>, !llvm.ptr
      nvvm.mbarrier.try_wait.parity %bar, %c0, %x : !llvm.ptr<3>, i32, i32
      nvvm.mbarrier.arrive %bar : !llvm.ptr<3>
      %r = nvvm.mbarrier.arrive %bar, %x : !llvm.ptr<3> -> i64
      %r32 = arith.trunci %r : i64 to i32
      nvvm.mbarrier.expect_tx %bar, %r32 : !llvm.ptr<3>, i32
      nvvm.mbarrier.complete_tx %bar, %r32 : !llvm.ptr<3>, i32
      gpu.return
    }

    // A and B from shared memory: stc_emu_wgmma_sp_ss(kind, n, a-desc,
    // b-desc, meta, sel, scale-d, scale-a, scale-b, trans-a, trans-b, smem,
    // bytes, d). The descriptors' window is this kernel's own dynamic shared
    // memory, of its 2048 bytes.
    // CHECK-LABEL: func.func private @wgmma_emu(
    // CHECK: %[[D:[0-9]+]] = llvm.alloca %{{.*}} x f32
    // CHECK-NOT: llvm.alloca
    // CHECK: %[[A64:.*]] = arith.extui %{{.*}} : i32 to i64
    // CHECK: llvm.mlir.addressof @wgmma_smem : !llvm.ptr<3>
    // CHECK: %[[G:.*]] = llvm.mlir.addressof @wgmma_smem : !llvm.ptr<3>
    // CHECK: %[[GH:.*]] = llvm.addrspacecast %[[G]] : !llvm.ptr<3> to !llvm.ptr
    // CHECK: %[[GC:.*]] = call @stc_emu_cta_shared(%[[GH]]) : (!llvm.ptr) -> !llvm.ptr
    // CHECK: %[[GB:.*]] = llvm.addrspacecast %[[GC]] : !llvm.ptr to !llvm.ptr<3>
    // CHECK: %[[GF:.*]] = llvm.addrspacecast %[[GB]] : !llvm.ptr<3> to !llvm.ptr
    // kind 1 (bf16), n 16, sel 1, scale-d 1, scale-a 1, scale-b -1, trans-a
    // 1, trans-b 0.
    // CHECK: call @stc_emu_wgmma_sp_ss(%c1_i32{{(_[0-9]+)?}}, %c16_i32, %[[A64]], %{{.*}}, %{{.*}}, %c1_i32{{(_[0-9]+)?}}, %c1_i32{{(_[0-9]+)?}}, %c1_i32{{(_[0-9]+)?}}, %c-1_i32, %c1_i32{{(_[0-9]+)?}}, %c0_i32{{(_[0-9]+)?}}, %[[GF]], %c2048_i64, %[[D]]) : (i32, i32, i64, i64, i32, i32, i32, i32, i32, i32, i32, !llvm.ptr, i64, !llvm.ptr) -> ()
    // CHECK: %[[R0:.*]] = llvm.load %{{.*}} : !llvm.ptr -> f32
    // CHECK: %[[R1:.*]] = llvm.load %{{.*}} : !llvm.ptr -> f32
    // CHECK: %[[R2:.*]] = llvm.load %{{.*}} : !llvm.ptr -> f32
    // CHECK-NOT: llvm.inline_asm
    // CHECK: %[[U:.*]] = llvm.mlir.undef : !llvm.struct<(f32, f32)>
    // CHECK: %[[S0:.*]] = llvm.insertvalue %[[R1]], %[[U]][0]
    // CHECK: %[[S1:.*]] = llvm.insertvalue %[[R2]], %[[S0]][1]
    // CHECK: %[[E:.*]] = llvm.extractvalue %[[S1]][1]
    // CHECK: llvm.fadd %[[R0]], %[[E]] : f32
    gpu.func @wgmma(%la: i32, %e: i32, %lo: i32) kernel attributes {stc_gpu.kernel_info = #stc_gpu.kernel_info<kernel = "k", config = <arch = sm_80, family = direct, block_rows = 64, block_cols = 64>, threads = 128, shared_bytes = 2048, static_shared_bytes = 0, params = ["values", "meta", "dense", "out", "R", "P", "K", "value_cols", "meta_cols"], num_pointers = 4, rows = 64, cols = 64, depth = 64, sparse_lhs = true, dense_transposed = false, input_type = f16, output_type = f32, meta_layout = kernel_ready, meta_rows_per_block = 32, meta_k_per_word = 32, meta_threads = 32>} {
      %da = arith.extui %la : i32 to i64
      %s = llvm.mlir.addressof @wgmma_smem : !llvm.ptr<3>
      %db = arith.extui %lo : i32 to i64
      %c = llvm.bitcast %e : i32 to f32
      %d:8 = stc_gpu.wgmma_sp bf16 * bf16 -> f32, n = 16, a_desc(%da) b_desc(%db)
          meta(%e) sel(1) scale_b(-1) trans_a
          acc(%c, %c, %c, %c, %c, %c, %c, %c) : f32
      // Register fences (empty inline assembly) are the identity on their
      // tied operands, one output or several.
      %f0 = llvm.inline_asm has_side_effects asm_dialect = att "", "=f,0" %d#0 : (f32) -> f32
      %f12 = llvm.inline_asm has_side_effects asm_dialect = att "", "=f,=f,1,0,~{memory}" %d#2, %d#1 : (f32, f32) -> !llvm.struct<(f32, f32)>
      %f2 = llvm.extractvalue %f12[1] : !llvm.struct<(f32, f32)>
      %sum = llvm.fadd %f0, %f2 : f32
      %r = llvm.bitcast %sum : f32 to i32
      llvm.store %r, %s : i32, !llvm.ptr<3>
      gpu.return
    }

    // The 4-D tile load of an implicit-GEMM convolution: coordinates
    // (channel, w, h, n), innermost first, the h one negative (padding).
    // CHECK-LABEL: func.func private @tma_4d_emu(
    // CHECK: %[[P4:.*]] = llvm.load %{{.*}} : !llvm.ptr -> i64
    // CHECK: %[[TMAP4:.*]] = llvm.inttoptr %[[P4]] : i64 to !llvm.ptr
    // CHECK: %[[W4:.*]] = arith.trunci
    // CHECK: %[[S4:.*]] = llvm.mlir.addressof @tma4d_smem : !llvm.ptr<3>
    // CHECK: %[[S4H:.*]] = llvm.addrspacecast %[[S4]] : !llvm.ptr<3> to !llvm.ptr
    // CHECK: %[[S4C:.*]] = call @stc_emu_cta_shared(%[[S4H]]) : (!llvm.ptr) -> !llvm.ptr
    // CHECK: %[[S4B:.*]] = llvm.addrspacecast %[[S4C]] : !llvm.ptr to !llvm.ptr<3>
    // CHECK: %[[C0:.*]] = arith.constant 0 : i32
    // CHECK: %[[C1:.*]] = arith.constant 1 : i32
    // CHECK: %[[NEG:.*]] = arith.constant -1 : i32
    // CHECK: %[[BAR4:.*]] = llvm.getelementptr %[[S4B]][16384]
    // CHECK: %[[D47:.*]] = llvm.addrspacecast %[[S4B]] : !llvm.ptr<3> to !llvm.ptr<7>
    // CHECK-NEXT: %[[D4:.*]] = llvm.addrspacecast %[[D47]] : !llvm.ptr<7> to !llvm.ptr
    // CHECK-NEXT: %[[B4:.*]] = llvm.addrspacecast %[[BAR4]] : !llvm.ptr<3> to !llvm.ptr
    // CHECK-NEXT: call @stc_emu_tma_load_4d(%[[D4]], %[[TMAP4]], %[[C0]], %[[W4]], %[[NEG]], %[[C1]], %[[B4]]) : (!llvm.ptr, !llvm.ptr, i32, i32, i32, i32, !llvm.ptr) -> ()
    // CHECK-NOT: nvvm.
    // CHECK: return
    gpu.func @tma_4d(%map: !llvm.ptr, %w: i32) kernel attributes {stc_gpu.kernel_info = #stc_gpu.kernel_info<kernel = "k", config = <arch = sm_80, family = direct, block_rows = 64, block_cols = 64>, threads = 128, shared_bytes = 17408, static_shared_bytes = 0, params = ["values", "meta", "dense", "out", "R", "P", "K", "value_cols", "meta_cols"], num_pointers = 4, rows = 64, cols = 64, depth = 64, sparse_lhs = true, dense_transposed = false, input_type = f16, output_type = f32, meta_layout = kernel_ready, meta_rows_per_block = 32, meta_k_per_word = 32, meta_threads = 32>} {
      %s = llvm.mlir.addressof @tma4d_smem : !llvm.ptr<3>
      %c0 = arith.constant 0 : i32
      %c1 = arith.constant 1 : i32
      %neg = arith.constant -1 : i32
      %bar = llvm.getelementptr %s[16384] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
      nvvm.mbarrier.init %bar, %c1 : !llvm.ptr<3>, i32
      nvvm.mbarrier.arrive.expect_tx %bar, %c1 : !llvm.ptr<3>, i32
      %d7 = llvm.addrspacecast %s : !llvm.ptr<3> to !llvm.ptr<7>
      nvvm.cp.async.bulk.tensor.shared.cluster.global %d7, %map, %bar, box[%c0, %w, %neg, %c1] : !llvm.ptr<7>, !llvm.ptr
      gpu.return
    }
  }
}
