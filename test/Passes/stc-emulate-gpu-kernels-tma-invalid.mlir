// What stc-emulate-gpu-kernels rejects of the sm_90a pipeline ops: tensor
// copies other than 2-D and 4-D tile-mode loads without multicast or CTA
// group (3-D and 5-D among them),
// stc_gpu.wgmma_sp with A from shared memory but tf32 inputs, inline assembly
// that is not an empty register fence,
// predicated mbarrier and copy ops, a kernel whose dynamic shared memory has
// no size (or too big a one, or two dynamic globals), a host tensor-map
// function of another signature, and a cluster launch whose clusters do not
// tile the grid; an nvvm.barrier without a thread count.
// RUN: stc-opt %s -split-input-file --stc-emulate-gpu-kernels -verify-diagnostics

module attributes {gpu.container_module} {
  gpu.module @stc_kernels {
    gpu.func @im2col(%map: !llvm.ptr, %x: i32, %bar: !llvm.ptr<3>, %d: !llvm.ptr<7>) kernel {
      %o = arith.trunci %x : i32 to i16
      // expected-error @+1 {{stc-emulate-gpu: only tile-mode tensor copies are emulated, not im2col}}
      nvvm.cp.async.bulk.tensor.shared.cluster.global %d, %map, %bar, box[%x, %x, %x] im2col[%o] {mode = #nvvm.tma_load_mode<im2col>} : !llvm.ptr<7>, !llvm.ptr
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @stc_kernels {
    gpu.func @three_d(%map: !llvm.ptr, %x: i32, %bar: !llvm.ptr<3>, %d: !llvm.ptr<7>) kernel {
      // expected-error @+1 {{stc-emulate-gpu: only 2-D and 4-D tensor copies are emulated, not 3-D}}
      nvvm.cp.async.bulk.tensor.shared.cluster.global %d, %map, %bar, box[%x, %x, %x] : !llvm.ptr<7>, !llvm.ptr
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @stc_kernels {
    gpu.func @five_d(%map: !llvm.ptr, %x: i32, %bar: !llvm.ptr<3>, %d: !llvm.ptr<7>) kernel {
      // expected-error @+1 {{stc-emulate-gpu: only 2-D and 4-D tensor copies are emulated, not 5-D}}
      nvvm.cp.async.bulk.tensor.shared.cluster.global %d, %map, %bar, box[%x, %x, %x, %x, %x] : !llvm.ptr<7>, !llvm.ptr
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @stc_kernels {
    gpu.func @multicast_4d(%map: !llvm.ptr, %x: i32, %bar: !llvm.ptr<3>, %d: !llvm.ptr<7>) kernel {
      %m = arith.trunci %x : i32 to i16
      // expected-error @+1 {{stc-emulate-gpu: only 2-D multicast tensor copies are emulated}}
      nvvm.cp.async.bulk.tensor.shared.cluster.global %d, %map, %bar, box[%x, %x, %x, %x] multicast_mask = %m : !llvm.ptr<7>, !llvm.ptr
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @stc_kernels {
    gpu.func @cta_group(%map: !llvm.ptr, %x: i32, %bar: !llvm.ptr<3>, %d: !llvm.ptr<7>) kernel {
      // expected-error @+1 {{stc-emulate-gpu: tensor copies with a cta_group are not emulated}}
      nvvm.cp.async.bulk.tensor.shared.cluster.global %d, %map, %bar, box[%x, %x] {group = #nvvm.cta_group<cta_2>} : !llvm.ptr<7>, !llvm.ptr
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @stc_kernels {
    gpu.func @predicated_copy(%map: !llvm.ptr, %x: i32, %bar: !llvm.ptr<3>, %d: !llvm.ptr<7>) kernel {
      %p = arith.trunci %x : i32 to i1
      // expected-error @+1 {{stc-emulate-gpu: nvvm.cp.async.bulk.tensor.shared.cluster.global with a predicate is not emulated}}
      nvvm.cp.async.bulk.tensor.shared.cluster.global %d, %map, %bar, box[%x, %x] predicate = %p : !llvm.ptr<7>, !llvm.ptr
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @stc_kernels {
    gpu.func @predicated_init(%n: i32, %bar: !llvm.ptr<3>) kernel {
      %p = arith.trunci %n : i32 to i1
      // expected-error @+1 {{stc-emulate-gpu: nvvm.mbarrier.init with a predicate is not emulated}}
      nvvm.mbarrier.init %bar, %n, predicate = %p : !llvm.ptr<3>, i32, i1
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @stc_kernels {
    gpu.func @predicated_arrive(%n: i32, %bar: !llvm.ptr<3>) kernel {
      %p = arith.trunci %n : i32 to i1
      // expected-error @+1 {{stc-emulate-gpu: nvvm.mbarrier.arrive.expect_tx with a predicate is not emulated}}
      nvvm.mbarrier.arrive.expect_tx %bar, %n, predicate = %p : !llvm.ptr<3>, i32, i1
      gpu.return
    }
  }
}

// -----

// The dynamic shared memory's size comes from stc_gpu.kernel_info.
module attributes {gpu.container_module} {
  gpu.module @stc_kernels {
    llvm.mlir.global external @no_size_smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
    // expected-error @+1 {{stc-emulate-gpu: kernel @no_size uses the dynamic shared-memory global @no_size_smem but its stc_gpu.kernel_info has no shared_bytes > 0}}
    gpu.func @no_size(%n: i32) kernel attributes {stc_gpu.kernel_info = #stc_gpu.kernel_info<kernel = "k", config = <arch = sm_80, family = direct, block_rows = 64, block_cols = 64>, threads = 128, shared_bytes = 0, static_shared_bytes = 0, params = ["values", "meta", "dense", "out", "R", "P", "K", "value_cols", "meta_cols"], num_pointers = 4, rows = 64, cols = 64, depth = 64, sparse_lhs = true, dense_transposed = false, input_type = f16, output_type = f32, meta_layout = kernel_ready, meta_rows_per_block = 32, meta_k_per_word = 32, meta_threads = 32>} {
      %s = llvm.mlir.addressof @no_size_smem : !llvm.ptr<3>
      nvvm.mbarrier.init %s, %n : !llvm.ptr<3>, i32
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @stc_kernels {
    llvm.mlir.global external @big_smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
    // expected-error @+1 {{stc-emulate-gpu: kernel @big asks for 232449 bytes of dynamic shared memory, more than the 232448 an sm_90 block can have}}
    gpu.func @big(%n: i32) kernel attributes {stc_gpu.kernel_info = #stc_gpu.kernel_info<kernel = "k", config = <arch = sm_80, family = direct, block_rows = 64, block_cols = 64>, threads = 128, shared_bytes = 232449, static_shared_bytes = 0, params = ["values", "meta", "dense", "out", "R", "P", "K", "value_cols", "meta_cols"], num_pointers = 4, rows = 64, cols = 64, depth = 64, sparse_lhs = true, dense_transposed = false, input_type = f16, output_type = f32, meta_layout = kernel_ready, meta_rows_per_block = 32, meta_k_per_word = 32, meta_threads = 32>} {
      %s = llvm.mlir.addressof @big_smem : !llvm.ptr<3>
      nvvm.mbarrier.init %s, %n : !llvm.ptr<3>, i32
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @stc_kernels {
    llvm.mlir.global external @a_smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
    llvm.mlir.global external @b_smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
    // expected-error @+1 {{stc-emulate-gpu: kernel @two uses 2 dynamic shared-memory globals, not one}}
    gpu.func @two(%n: i32) kernel attributes {stc_gpu.kernel_info = #stc_gpu.kernel_info<kernel = "k", config = <arch = sm_80, family = direct, block_rows = 64, block_cols = 64>, threads = 128, shared_bytes = 4096, static_shared_bytes = 0, params = ["values", "meta", "dense", "out", "R", "P", "K", "value_cols", "meta_cols"], num_pointers = 4, rows = 64, cols = 64, depth = 64, sparse_lhs = true, dense_transposed = false, input_type = f16, output_type = f32, meta_layout = kernel_ready, meta_rows_per_block = 32, meta_k_per_word = 32, meta_threads = 32>} {
      %a = llvm.mlir.addressof @a_smem : !llvm.ptr<3>
      %b = llvm.mlir.addressof @b_smem : !llvm.ptr<3>
      nvvm.mbarrier.init %a, %n : !llvm.ptr<3>, i32
      nvvm.mbarrier.init %b, %n : !llvm.ptr<3>, i32
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  // expected-error @+1 {{stc-emulate-gpu: @stc_gpu_tensor_map_2d has type '(!llvm.ptr, i32, i64, i64, i64, i32, i32) -> !llvm.ptr', expected '(!llvm.ptr, i32, i64, i64, i64, i32, i32, i32) -> !llvm.ptr'}}
  func.func private @stc_gpu_tensor_map_2d(!llvm.ptr, i32, i64, i64, i64, i32, i32) -> !llvm.ptr
  gpu.module @stc_kernels {
    gpu.func @k() kernel {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  // The 4-D map's element strides missing.
  // expected-error @+1 {{stc-emulate-gpu: @stc_gpu_tensor_map_4d has type '(!llvm.ptr, i32, i64, i64, i64, i64, i64, i64, i64, i32, i32, i32, i32, i32) -> !llvm.ptr', expected '(!llvm.ptr, i32, i64, i64, i64, i64, i64, i64, i64, i32, i32, i32, i32, i32, i32, i32, i32, i32) -> !llvm.ptr'}}
  func.func private @stc_gpu_tensor_map_4d(!llvm.ptr, i32, i64, i64, i64, i64, i64, i64, i64, i32, i32, i32, i32, i32) -> !llvm.ptr
  gpu.module @stc_kernels {
    gpu.func @k() kernel {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  func.func @host() {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c128 = arith.constant 128 : index
    // expected-error @+1 {{stc-emulate-gpu: grid x of 3 blocks is not a multiple of the cluster's 2}}
    gpu.launch_func @stc_kernels::@k clusters in (%c2, %c1, %c1) blocks in (%c3, %c2, %c1) threads in (%c128, %c1, %c1)
    return
  }
  gpu.module @stc_kernels {
    gpu.func @k() kernel {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @stc_kernels {
    llvm.mlir.global external @tf32_smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
    gpu.func @tf32_a_desc(%la: i32, %lb: i32, %e: i32, %wc: i32) kernel attributes {stc_gpu.kernel_info = #stc_gpu.kernel_info<kernel = "k", config = <arch = sm_80, family = direct, block_rows = 64, block_cols = 64>, threads = 128, shared_bytes = 4096, static_shared_bytes = 0, params = ["values", "meta", "dense", "out", "R", "P", "K", "value_cols", "meta_cols"], num_pointers = 4, rows = 64, cols = 64, depth = 64, sparse_lhs = true, dense_transposed = false, input_type = f16, output_type = f32, meta_layout = kernel_ready, meta_rows_per_block = 32, meta_k_per_word = 32, meta_threads = 32>} {
      %s = llvm.mlir.addressof @tf32_smem : !llvm.ptr<3>
      %da = arith.extui %la : i32 to i64
      %db = arith.extui %lb : i32 to i64
      %c = llvm.bitcast %wc : i32 to f32
      // expected-error @+1 {{stc-emulate-gpu: only stc_gpu.wgmma_sp with A from registers or shared memory and f16 or bf16 inputs with f32 accumulators (or f16 with f16), or s8 inputs with i32 accumulators (not satfinite), is emulated}}
      %d:4 = stc_gpu.wgmma_sp tf32 * tf32 -> f32, n = 8, a_desc(%da) b_desc(%db)
          meta(%e) sel(0) acc(%c, %c, %c, %c) : f32
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @stc_kernels {
    gpu.func @asm_not_empty(%x: i32) kernel {
      // expected-error @+1 {{stc-emulate-gpu: cannot emulate inline assembly "mov.b32 $0, $1;"}}
      %y = llvm.inline_asm has_side_effects asm_dialect = att "mov.b32 $0, $1;", "=r,r" %x : (i32) -> i32
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @stc_kernels {
    gpu.func @asm_untied(%x: i32) kernel {
      // expected-error @+1 {{stc-emulate-gpu: empty inline assembly whose output 0 is not tied to an input is not emulated}}
      %y = llvm.inline_asm has_side_effects asm_dialect = att "", "=r,r" %x : (i32) -> i32
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @stc_kernels {
    gpu.func @asm_operands(%x: i32) kernel {
      // expected-error @+1 {{stc-emulate-gpu: inline assembly constraints "=r,0,0" do not match its 1 operands}}
      %y = llvm.inline_asm has_side_effects asm_dialect = att "", "=r,0,0" %x : (i32) -> i32
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @stc_kernels {
    gpu.func @asm_types(%x: i32) kernel {
      // expected-error @+1 {{stc-emulate-gpu: empty inline assembly whose result type differs from its tied operands is not emulated}}
      %y = llvm.inline_asm has_side_effects asm_dialect = att "", "=f,0" %x : (i32) -> f32
      gpu.return
    }
  }
}

// -----

// A named barrier without its id and thread count (the staged epilogue's
// is bar.sync 1, count; a block-wide one is gpu.barrier).
module attributes {gpu.container_module} {
  gpu.module @stc_kernels {
    gpu.func @named_barrier(%x: i32) kernel {
      // expected-error @+1 {{stc-emulate-gpu: only nvvm.barrier with an id and a thread count is emulated}}
      nvvm.barrier id = %x
      gpu.return
    }
  }
}
