// A hand-written warp-specialised TMA kernel run on the CPU: stc-emulate-
// gpu-kernels, the upstream CPU lowering, llc and the emulator runtime
// (runtime/emulator/stc_gpu_emulator.h). Two blocks of 160 threads (one
// cluster of 2): thread 128 is the producer, which waits for an empty
// stage (parity-1 convention: fresh barriers pass), expects 2048 bytes on
// the stage's full barrier and loads a 64 x 16 u16 box with the 128-byte
// swizzle; threads 0..127, the consumers, wait for the full barrier, copy
// the tile to global memory undoing the swizzle (chunk ^ (row % 8)) and
// arrive on the empty barrier. Each block moves 3 tiles through a ring of
// 2 stages (so a stage and its barriers are reused); the tensor has 88
// rows, so the last tile's 8 rows past the end must come back as zeros.
// The kernel aligns its dynamic shared memory to 1024 bytes itself and
// puts the barriers after the stages.
// RUN: stc-opt %s --stc-emulate-gpu-kernels \
// RUN:   | mlir-opt --lower-affine --convert-scf-to-cf --expand-strided-metadata \
// RUN:       --finalize-memref-to-llvm --convert-arith-to-llvm \
// RUN:       --convert-index-to-llvm --convert-func-to-llvm \
// RUN:       --convert-cf-to-llvm --reconcile-unrealized-casts \
// RUN:   | mlir-translate --mlir-to-llvmir -o %t.ll
// RUN: llc -O2 -filetype=obj -relocation-model=pic %t.ll -o %t.o
// RUN: %host_cc %t.o %stc_emulator_libs -lstdc++ -lm -o %t.exe
// RUN: %t.exe | FileCheck %s
// CHECK: mismatches: 0 of 6144

module attributes {gpu.container_module} {
  llvm.func @printf(!llvm.ptr, ...) -> i32
  llvm.mlir.global private constant @fmt("mismatches: %d of %d\0A\00") {addr_space = 0 : i32}
  func.func private @stc_gpu_tensor_map_2d(!llvm.ptr, i32, i64, i64, i64, i32, i32, i32) -> !llvm.ptr

  func.func @main() -> i32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c64 = arith.constant 64 : index
    %c88 = arith.constant 88 : index
    %c96 = arith.constant 96 : index
    %c160 = arith.constant 160 : index
    %a = memref.alloc() {alignment = 64 : i64} : memref<88x64xi16>
    %out = memref.alloc() {alignment = 64 : i64} : memref<96x64xi16>
    %mul = arith.constant 40503 : i32
    %add = arith.constant 12345 : i32
    %one = arith.constant 1 : i32
    %sentinel = arith.constant 21845 : i16
    scf.for %i = %c0 to %c96 step %c1 {
      scf.for %j = %c0 to %c64 step %c1 {
        memref.store %sentinel, %out[%i, %j] : memref<96x64xi16>
      }
    }
    scf.for %i = %c0 to %c88 step %c1 {
      scf.for %j = %c0 to %c64 step %c1 {
        %lin = affine.apply affine_map<(d0, d1) -> (d0 * 64 + d1)>(%i, %j)
        %l = arith.index_cast %lin : index to i32
        %h0 = arith.muli %l, %mul : i32
        %h1 = arith.addi %h0, %add : i32
        %h2 = arith.ori %h1, %one : i32
        %v = arith.trunci %h2 : i32 to i16
        memref.store %v, %a[%i, %j] : memref<88x64xi16>
      }
    }
    %pa = memref.extract_aligned_pointer_as_index %a : memref<88x64xi16> -> index
    %pa64 = arith.index_cast %pa : index to i64
    %pap = llvm.inttoptr %pa64 : i64 to !llvm.ptr
    %po = memref.extract_aligned_pointer_as_index %out : memref<96x64xi16> -> index
    %po64 = arith.index_cast %po : index to i64
    %pop = llvm.inttoptr %po64 : i64 to !llvm.ptr
    %u16 = arith.constant 1 : i32
    %inner = arith.constant 64 : i64
    %outer = arith.constant 88 : i64
    %stride = arith.constant 128 : i64
    %box_inner = arith.constant 64 : i32
    %box_outer = arith.constant 16 : i32
    %swizzle = arith.constant 128 : i32
    %map = func.call @stc_gpu_tensor_map_2d(%pap, %u16, %inner, %outer, %stride, %box_inner, %box_outer, %swizzle) : (!llvm.ptr, i32, i64, i64, i64, i32, i32, i32) -> !llvm.ptr
    %smem = arith.constant 5184 : i32
    gpu.launch_func @kernels::@tma_copy clusters in (%c2, %c1, %c1) blocks in (%c2, %c1, %c1) threads in (%c160, %c1, %c1) dynamic_shared_memory_size %smem args(%map : !llvm.ptr, %pop : !llvm.ptr)
    %zero = arith.constant 0 : i16
    %bad0 = arith.constant 0 : i32
    %bad = scf.for %i = %c0 to %c96 step %c1 iter_args(%b0 = %bad0) -> (i32) {
      %in = arith.cmpi ult, %i, %c88 : index
      %row = scf.for %j = %c0 to %c64 step %c1 iter_args(%b1 = %b0) -> (i32) {
        %want = scf.if %in -> (i16) {
          %w = memref.load %a[%i, %j] : memref<88x64xi16>
          scf.yield %w : i16
        } else {
          scf.yield %zero : i16
        }
        %got = memref.load %out[%i, %j] : memref<96x64xi16>
        %ne = arith.cmpi ne, %want, %got : i16
        %inc = arith.extui %ne : i1 to i32
        %b2 = arith.addi %b1, %inc : i32
        scf.yield %b2 : i32
      }
      scf.yield %row : i32
    }
    %total = arith.constant 6144 : i32
    %f = llvm.mlir.addressof @fmt : !llvm.ptr
    %r = llvm.call @printf(%f, %bad, %total) vararg(!llvm.func<i32 (ptr, ...)>) : (!llvm.ptr, i32, i32) -> i32
    return %bad : i32
  }

  gpu.module @kernels {
    llvm.mlir.global external @tma_copy_smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
    gpu.func @tma_copy(%map: !llvm.ptr, %out: !llvm.ptr) kernel attributes {stc_gpu.kernel_info = #stc_gpu.kernel_info<kernel = "k", config = <arch = sm_80, family = direct, block_rows = 64, block_cols = 64>, threads = 128, shared_bytes = 5184, static_shared_bytes = 0, params = ["values", "meta", "dense", "out", "R", "P", "K", "value_cols", "meta_cols"], num_pointers = 4, rows = 64, cols = 64, depth = 64, sparse_lhs = true, dense_transposed = false, input_type = f16, output_type = f32, meta_layout = kernel_ready, meta_rows_per_block = 32, meta_k_per_word = 32, meta_threads = 32>} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c3 = arith.constant 3 : index
      %c8 = arith.constant 8 : index
      %i0 = arith.constant 0 : i32
      %i1 = arith.constant 1 : i32
      %i2 = arith.constant 2 : i32
      %i7 = arith.constant 7 : i32
      %i8 = arith.constant 8 : i32
      %i16 = arith.constant 16 : i32
      %i63 = arith.constant 63 : i32
      %i64 = arith.constant 64 : i32
      %i128 = arith.constant 128 : i32
      %i1023 = arith.constant 1023 : i32
      %i1024 = arith.constant 1024 : i32
      %i2048 = arith.constant 2048 : i32
      %i4096 = arith.constant 4096 : i32
      %i4112 = arith.constant 4112 : i32
      %ticks = arith.constant 1000000 : i32
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %t = arith.index_cast %tid : index to i32
      %b = arith.index_cast %bid : index to i32
      // The kernel's own 1024-byte alignment of its dynamic shared memory.
      %raw = llvm.mlir.addressof @tma_copy_smem : !llvm.ptr<3>
      %addr = llvm.ptrtoint %raw : !llvm.ptr<3> to i32
      %low = arith.andi %addr, %i1023 : i32
      %up = arith.subi %i1024, %low : i32
      %pad = arith.andi %up, %i1023 : i32
      %base = llvm.getelementptr %raw[%pad] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
      %first = arith.cmpi eq, %t, %i0 : i32
      scf.if %first {
        scf.for %s = %c0 to %c2 step %c1 {
          %si = arith.index_cast %s : index to i32
          %o = arith.muli %si, %i8 : i32
          %fo = arith.addi %o, %i4096 : i32
          %eo = arith.addi %o, %i4112 : i32
          %full = llvm.getelementptr %base[%fo] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %empty = llvm.getelementptr %base[%eo] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          nvvm.mbarrier.init %full, %i1 : !llvm.ptr<3>, i32
          nvvm.mbarrier.init %empty, %i128 : !llvm.ptr<3>, i32
        }
        nvvm.fence.mbarrier.init
      }
      gpu.barrier
      %producer = arith.cmpi eq, %t, %i128 : i32
      %consumer = arith.cmpi ult, %t, %i128 : i32
      // Tiles b, b + 2, b + 4 through stages 0, 1, 0.
      scf.if %producer {
        nvvm.setmaxregister decrease 40
        scf.for %k = %c0 to %c3 step %c1 {
          %ki = arith.index_cast %k : index to i32
          %s = arith.remui %ki, %i2 : i32
          %round = arith.divui %ki, %i2 : i32
          %rp = arith.andi %round, %i1 : i32
          %parity = arith.xori %rp, %i1 : i32
          %o = arith.muli %s, %i8 : i32
          %fo = arith.addi %o, %i4096 : i32
          %eo = arith.addi %o, %i4112 : i32
          %full = llvm.getelementptr %base[%fo] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %empty = llvm.getelementptr %base[%eo] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          nvvm.mbarrier.try_wait.parity %empty, %parity, %ticks : !llvm.ptr<3>, i32, i32
          nvvm.mbarrier.arrive.expect_tx %full, %i2048 : !llvm.ptr<3>, i32
          %so = arith.muli %s, %i2048 : i32
          %dst = llvm.getelementptr %base[%so] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %d7 = llvm.addrspacecast %dst : !llvm.ptr<3> to !llvm.ptr<7>
          %k2 = arith.muli %ki, %i2 : i32
          %tile = arith.addi %b, %k2 : i32
          %y = arith.muli %tile, %i16 : i32
          nvvm.cp.async.bulk.tensor.shared.cluster.global %d7, %map, %full, box[%i0, %y] : !llvm.ptr<7>, !llvm.ptr
        }
      }
      // Each consumer copies 8 elements of every tile out, unswizzled.
      scf.if %consumer {
        nvvm.setmaxregister increase 232
        scf.for %k = %c0 to %c3 step %c1 {
          %ki = arith.index_cast %k : index to i32
          %s = arith.remui %ki, %i2 : i32
          %round = arith.divui %ki, %i2 : i32
          %parity = arith.andi %round, %i1 : i32
          %o = arith.muli %s, %i8 : i32
          %fo = arith.addi %o, %i4096 : i32
          %eo = arith.addi %o, %i4112 : i32
          %full = llvm.getelementptr %base[%fo] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %empty = llvm.getelementptr %base[%eo] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          nvvm.mbarrier.try_wait.parity %full, %parity, %ticks : !llvm.ptr<3>, i32, i32
          %so = arith.muli %s, %i2048 : i32
          %stage = llvm.getelementptr %base[%so] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
          %k2 = arith.muli %ki, %i2 : i32
          %tile = arith.addi %b, %k2 : i32
          scf.for %e = %c0 to %c8 step %c1 {
            %ei = arith.index_cast %e : index to i32
            %e128 = arith.muli %ei, %i128 : i32
            %idx = arith.addi %t, %e128 : i32
            %r = arith.divui %idx, %i64 : i32
            %c = arith.andi %idx, %i63 : i32
            %chunk = arith.divui %c, %i8 : i32
            %r8 = arith.andi %r, %i7 : i32
            %sw = arith.xori %chunk, %r8 : i32
            %ro = arith.muli %r, %i128 : i32
            %co = arith.muli %sw, %i16 : i32
            %c8m = arith.andi %c, %i7 : i32
            %wo = arith.muli %c8m, %i2 : i32
            %off0 = arith.addi %ro, %co : i32
            %off = arith.addi %off0, %wo : i32
            %src = llvm.getelementptr %stage[%off] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
            %v = llvm.load %src : !llvm.ptr<3> -> i16
            %t16 = arith.muli %tile, %i16 : i32
            %row = arith.addi %t16, %r : i32
            %row64 = arith.muli %row, %i64 : i32
            %lin = arith.addi %row64, %c : i32
            %p = llvm.getelementptr %out[%lin] : (!llvm.ptr, i32) -> !llvm.ptr, i16
            llvm.store %v, %p : i16, !llvm.ptr
          }
          nvvm.mbarrier.arrive %empty : !llvm.ptr<3>
        }
      }
      gpu.return
    }
  }
}
