// Every diagnostic of the stc_gpu attributes: the rules of
// #stc_gpu.kernel_config that hold for any op (each case breaks one), those
// of #stc_gpu.kernel_info, and where the dialect's discardable attributes
// may appear. (The rules that depend on the op are
// stc-lower-spmm-to-gpu's: test/Passes/stc-lower-spmm-to-gpu-config-invalid.mlir.)
// RUN: stc-opt %s -split-input-file -verify-diagnostics

// wgmma on sm80
// expected-error @+1 {{family wgmma needs arch sm_90a (wgmma.mma_async.sp), got sm_80}}
#wgmma_on_sm80 = #stc_gpu.kernel_config<arch = sm_80, family = wgmma, block_rows = 64, block_cols = 64, stages = 4>
func.func @wgmma_on_sm80() { return }

// -----

// odd tile
// expected-error @+1 {{block tiles are 64 or 128 rows by 64 or 128 columns (256 rows for family staged; for family wgmma 256 either way, and 16 or 32 columns), got 96 x 64 for family direct}}
#odd_tile = #stc_gpu.kernel_config<arch = sm_80, family = direct, block_rows = 96, block_cols = 64>
func.func @odd_tile() { return }

// -----

// odd warp tile
// expected-error @+1 {{warp_rows x warp_cols must be 32 or 64 each and divide the block tile (64 x 128), got 16 x 64}}
#odd_warp_tile = #stc_gpu.kernel_config<arch = sm_80, family = staged, block_rows = 64, block_cols = 128, stages = 3, warp_rows = 16, warp_cols = 64>
func.func @odd_warp_tile() { return }

// -----

// warp tile larger than the block
// expected-error @+1 {{warp_rows x warp_cols must be 32 or 64 each and divide the block tile (128 x 64), got 64 x 128}}
#warp_over_block = #stc_gpu.kernel_config<arch = sm_80, family = direct, block_rows = 128, block_cols = 64, warp_rows = 64, warp_cols = 128>
func.func @warp_over_block() { return }

// -----

// warp tile of wgmma
// expected-error @+1 {{family wgmma has its own warpgroup tiles: warp_rows x warp_cols stay 32 x 32, got 64 x 64}}
#wgmma_warp_tile = #stc_gpu.kernel_config<arch = sm_90a, family = wgmma, block_rows = 128, block_cols = 128, stages = 4, warp_rows = 64, warp_cols = 64>
func.func @wgmma_warp_tile() { return }

// -----

// direct 256 rows
// expected-error @+1 {{block tiles are 64 or 128 rows by 64 or 128 columns (256 rows for family staged; for family wgmma 256 either way, and 16 or 32 columns), got 256 x 64 for family direct}}
#direct_256_rows = #stc_gpu.kernel_config<arch = sm_80, family = direct, block_rows = 256, block_cols = 64>
func.func @direct_256_rows() { return }

// -----

// too many warps
// expected-error @+1 {{a 256 x 128 block of 32 x 32 warps has 32 warps; mma.sp blocks take at most 16}}
#too_many_warps = #stc_gpu.kernel_config<arch = sm_80, family = staged, block_rows = 256, block_cols = 128, stages = 3>
func.func @too_many_warps() { return }

// -----

// staged shared memory
// expected-error @+1 {{4 stages of 2 K steps of a 256 x 128 tile take 131072 bytes of shared memory; sm_86 allows 101376 a block}}
#staged_smem = #stc_gpu.kernel_config<arch = sm_86, family = staged, block_rows = 256, block_cols = 128, stages = 4, warp_rows = 64, warp_cols = 64, stage_k_steps = 2>
func.func @staged_smem() { return }

// -----

// k steps of direct
// expected-error @+1 {{stage_k_steps must be 1 for family direct, got 2}}
#direct_k_steps = #stc_gpu.kernel_config<arch = sm_80, family = direct, block_rows = 64, block_cols = 64, stage_k_steps = 2>
func.func @direct_k_steps() { return }

// -----

// three k steps
// expected-error @+1 {{stage_k_steps must be 1 or 2, got 3}}
#three_k_steps = #stc_gpu.kernel_config<arch = sm_80, family = staged, block_rows = 64, block_cols = 64, stages = 3, stage_k_steps = 3>
func.func @three_k_steps() { return }

// -----

// wide mma sp tile
// expected-error @+1 {{block tiles are 64 or 128 rows by 64 or 128 columns (256 rows for family staged; for family wgmma 256 either way, and 16 or 32 columns), got 64 x 256 for family staged}}
#wide_mma_sp_tile = #stc_gpu.kernel_config<arch = sm_90a, family = staged, block_rows = 64, block_cols = 256, stages = 3>
func.func @wide_mma_sp_tile() { return }

// -----

// square 256
// expected-error @+1 {{a 256 x 256 tile needs 256 accumulators per thread; 256-row tiles take at most 128 columns}}
#square_256 = #stc_gpu.kernel_config<arch = sm_90a, family = wgmma, block_rows = 256, block_cols = 256, stages = 2>
func.func @square_256() { return }

// -----

// rows 256 registers
// expected-error @+1 {{256-row tiles take A from shared memory (a_source = smem)}}
#rows_256_registers = #stc_gpu.kernel_config<arch = sm_90a, family = wgmma, block_rows = 256, block_cols = 128, stages = 2, a_source = registers>
func.func @rows_256_registers() { return }

// -----

// direct with stages
// expected-error @+1 {{family direct takes no stages (0), got 3}}
#direct_with_stages = #stc_gpu.kernel_config<arch = sm_80, family = direct, block_rows = 64, block_cols = 64, stages = 3>
func.func @direct_with_stages() { return }

// -----

// staged without stages
// expected-error @+1 {{family staged takes stages from 2 to 4, got 0}}
#staged_without_stages = #stc_gpu.kernel_config<arch = sm_80, family = staged, block_rows = 64, block_cols = 64>
func.func @staged_without_stages() { return }

// -----

// deep ring
// expected-error @+1 {{family wgmma takes stages from 2 to 12, got 13}}
#deep_ring = #stc_gpu.kernel_config<arch = sm_90a, family = wgmma, block_rows = 64, block_cols = 64, stages = 13>
func.func @deep_ring() { return }

// -----

// mma sp cluster
// expected-error @+1 {{cluster_rows must be 1 for family staged, got 2}}
#mma_sp_cluster = #stc_gpu.kernel_config<arch = sm_90, family = staged, block_rows = 64, block_cols = 64, stages = 3, cluster_rows = 2>
func.func @mma_sp_cluster() { return }

// -----

// cluster of three
// expected-error @+1 {{cluster_rows must be 1 or 2, got 3}}
#cluster_of_three = #stc_gpu.kernel_config<arch = sm_90a, family = wgmma, block_rows = 64, block_cols = 64, stages = 4, cluster_rows = 3>
func.func @cluster_of_three() { return }

// -----

// split cluster groups
// expected-error @+1 {{group_rows must be 0 to 64 and a multiple of cluster_rows (2), got 3}}
#split_cluster_groups = #stc_gpu.kernel_config<arch = sm_90a, family = wgmma, block_rows = 64, block_cols = 64, stages = 4, cluster_rows = 2, group_rows = 3>
func.func @split_cluster_groups() { return }

// -----

// multicast alone
// expected-error @+1 {{multicast_b needs family wgmma with cluster_rows = 2, got wgmma with cluster_rows = 1}}
#multicast_alone = #stc_gpu.kernel_config<arch = sm_90a, family = wgmma, block_rows = 64, block_cols = 64, stages = 4, multicast_b = true>
func.func @multicast_alone() { return }

// -----

// 16 columns on mma.sp
// expected-error @+1 {{block tiles are 64 or 128 rows by 64 or 128 columns (256 rows for family staged; for family wgmma 256 either way, and 16 or 32 columns), got 64 x 16 for family staged}}
#narrow_staged = #stc_gpu.kernel_config<arch = sm_80, family = staged, block_rows = 64, block_cols = 16, stages = 3>
func.func @narrow_staged() { return }

// -----

// metadata through TMA on mma.sp
// expected-error @+1 {{meta_tma needs family wgmma, got staged}}
#meta_tma_staged = #stc_gpu.kernel_config<arch = sm_80, family = staged, block_rows = 64, block_cols = 64, stages = 3, meta_tma = true>
func.func @meta_tma_staged() { return }

// -----

// mma sp registers
// expected-error @+1 {{a_source = registers needs family wgmma, got direct}}
#mma_sp_registers = #stc_gpu.kernel_config<arch = sm_80, family = direct, block_rows = 64, block_cols = 64, a_source = registers>
func.func @mma_sp_registers() { return }

// -----

// wgmma f16 accumulator
// expected-error @+1 {{family wgmma accumulates in f32 or s32, got f16}}
#wgmma_f16_accumulator = #stc_gpu.kernel_config<arch = sm_90a, family = wgmma, block_rows = 64, block_cols = 64, stages = 4, accumulator = f16>
func.func @wgmma_f16_accumulator() { return }

// -----

// direct fallback of direct
// expected-error @+1 {{direct_fallback belongs to family staged, got direct}}
#direct_fallback_of_direct = #stc_gpu.kernel_config<arch = sm_80, family = direct, block_rows = 64, block_cols = 64, direct_fallback = true>
func.func @direct_fallback_of_direct() { return }

// -----

// pixel tile mismatch
// expected-error @+1 {{pixel_tile_h x pixel_tile_w (8 x 8) must be 0 x 0, or for family wgmma cover block_cols (128) output pixels}}
#pixel_tile_mismatch = #stc_gpu.kernel_config<arch = sm_90a, family = wgmma, block_rows = 64, block_cols = 128, stages = 4, pixel_tile_h = 8, pixel_tile_w = 8>
func.func @pixel_tile_mismatch() { return }

// -----

// no kernel name
// expected-error @+1 {{kernel_info needs a kernel name}}
#no_kernel_name = #stc_gpu.kernel_info<kernel = "", config = <arch = sm_80, family = direct, block_rows = 64, block_cols = 64>, threads = 128, shared_bytes = 0, static_shared_bytes = 0, params = ["values", "meta", "dense", "out", "R", "P", "K", "value_cols", "meta_cols"], num_pointers = 4, rows = 4, cols = 8, depth = 16, sparse_lhs = true, dense_transposed = false, input_type = f16, output_type = f32, meta_layout = kernel_ready, meta_rows_per_block = 32, meta_k_per_word = 32, meta_threads = 32>
func.func @no_kernel_name() { return }

// -----

// param not a string
// expected-error @+1 {{params must be strings, got ["values", 4]}}
#param_not_a_string = #stc_gpu.kernel_info<kernel = "k", config = <arch = sm_80, family = direct, block_rows = 64, block_cols = 64>, threads = 128, shared_bytes = 0, static_shared_bytes = 0, params = ["values", 4], num_pointers = 4, rows = 4, cols = 8, depth = 16, sparse_lhs = true, dense_transposed = false, input_type = f16, output_type = f32, meta_layout = kernel_ready, meta_rows_per_block = 32, meta_k_per_word = 32, meta_threads = 32>
func.func @param_not_a_string() { return }

// -----

// too many pointers
// expected-error @+1 {{num_pointers (12) must count 1 to all of the 9 params}}
#too_many_pointers = #stc_gpu.kernel_info<kernel = "k", config = <arch = sm_80, family = direct, block_rows = 64, block_cols = 64>, threads = 128, shared_bytes = 0, static_shared_bytes = 0, params = ["values", "meta", "dense", "out", "R", "P", "K", "value_cols", "meta_cols"], num_pointers = 12, rows = 4, cols = 8, depth = 16, sparse_lhs = true, dense_transposed = false, input_type = f16, output_type = f32, meta_layout = kernel_ready, meta_rows_per_block = 32, meta_k_per_word = 32, meta_threads = 32>
func.func @too_many_pointers() { return }

// -----

// no threads
// expected-error @+1 {{threads and groups must be positive and shared memory sizes non-negative}}
#no_threads = #stc_gpu.kernel_info<kernel = "k", config = <arch = sm_80, family = direct, block_rows = 64, block_cols = 64>, threads = 0, shared_bytes = 0, static_shared_bytes = 0, params = ["values", "meta", "dense", "out", "R", "P", "K", "value_cols", "meta_cols"], num_pointers = 4, rows = 4, cols = 8, depth = 16, sparse_lhs = true, dense_transposed = false, input_type = f16, output_type = f32, meta_layout = kernel_ready, meta_rows_per_block = 32, meta_k_per_word = 32, meta_threads = 32>
func.func @no_threads() { return }

// -----

// canonical without kernel
// expected-error @+1 {{a meta_layout = canonical kernel names its meta_kernel (the conversion to the kernel-ready layout), and only it}}
#canonical_without_kernel = #stc_gpu.kernel_info<kernel = "k", config = <arch = sm_80, family = direct, block_rows = 64, block_cols = 64>, threads = 128, shared_bytes = 0, static_shared_bytes = 0, params = ["values", "meta", "dense", "out", "R", "P", "K", "value_cols", "meta_cols"], num_pointers = 4, rows = 4, cols = 8, depth = 16, sparse_lhs = true, dense_transposed = false, input_type = f16, output_type = f32, meta_layout = canonical, meta_rows_per_block = 32, meta_k_per_word = 32, meta_threads = 32>
func.func @canonical_without_kernel() { return }

// -----

// kernel ready with kernel
// expected-error @+1 {{a meta_layout = canonical kernel names its meta_kernel (the conversion to the kernel-ready layout), and only it}}
#kernel_ready_with_kernel = #stc_gpu.kernel_info<kernel = "k", config = <arch = sm_80, family = direct, block_rows = 64, block_cols = 64>, threads = 128, shared_bytes = 0, static_shared_bytes = 0, params = ["values", "meta", "dense", "out", "R", "P", "K", "value_cols", "meta_cols"], num_pointers = 4, rows = 4, cols = 8, depth = 16, sparse_lhs = true, dense_transposed = false, input_type = f16, output_type = f32, meta_layout = kernel_ready, meta_kernel = "k_meta", meta_rows_per_block = 32, meta_k_per_word = 32, meta_threads = 32>
func.func @kernel_ready_with_kernel() { return }

// -----

// empty meta geometry
// expected-error @+1 {{the metadata geometry must be positive}}
#empty_meta_geometry = #stc_gpu.kernel_info<kernel = "k", config = <arch = sm_80, family = direct, block_rows = 64, block_cols = 64>, threads = 128, shared_bytes = 0, static_shared_bytes = 0, params = ["values", "meta", "dense", "out", "R", "P", "K", "value_cols", "meta_cols"], num_pointers = 4, rows = 4, cols = 8, depth = 16, sparse_lhs = true, dense_transposed = false, input_type = f16, output_type = f32, meta_layout = kernel_ready, meta_rows_per_block = 0, meta_k_per_word = 32, meta_threads = 32>
func.func @empty_meta_geometry() { return }

// -----

// a dense kernel (no metadata) with a metadata geometry
// expected-error @+1 {{the metadata geometry must be positive, or 0 for a kernel without metadata (meta_layout = none)}}
#dense_meta_geometry = #stc_gpu.kernel_info<kernel = "k", config = <arch = sm_80, family = staged, block_rows = 64, block_cols = 64, stages = 3>, threads = 128, shared_bytes = 0, static_shared_bytes = 0, params = ["values", "dense", "out", "R", "P", "K", "value_cols", "meta_cols"], num_pointers = 3, rows = 4, cols = 8, depth = 16, sparse_lhs = true, dense_transposed = false, input_type = f16, output_type = f32, meta_layout = none, meta_rows_per_block = 32, meta_k_per_word = 32, meta_threads = 32>
func.func @dense_meta_geometry() { return }

// -----

// a dense kernel with a meta parameter
// expected-error @+1 {{a kernel without metadata (meta_layout = none) has no meta parameter}}
#dense_meta_param = #stc_gpu.kernel_info<kernel = "k", config = <arch = sm_80, family = staged, block_rows = 64, block_cols = 64, stages = 3>, threads = 128, shared_bytes = 0, static_shared_bytes = 0, params = ["values", "meta", "dense", "out", "R", "P", "K", "value_cols", "meta_cols"], num_pointers = 4, rows = 4, cols = 8, depth = 16, sparse_lhs = true, dense_transposed = false, input_type = f16, output_type = f32, meta_layout = none, meta_rows_per_block = 0, meta_k_per_word = 0, meta_threads = 0>
func.func @dense_meta_param() { return }

// -----

// fallback without align
// expected-error @+1 {{fallback_kernel and staged_align (elements, >= 1) come together}}
#fallback_without_align = #stc_gpu.kernel_info<kernel = "k", config = <arch = sm_80, family = direct, block_rows = 64, block_cols = 64>, threads = 128, shared_bytes = 0, static_shared_bytes = 0, params = ["values", "meta", "dense", "out", "R", "P", "K", "value_cols", "meta_cols"], num_pointers = 4, rows = 4, cols = 8, depth = 16, sparse_lhs = true, dense_transposed = false, input_type = f16, output_type = f32, meta_layout = kernel_ready, meta_rows_per_block = 32, meta_k_per_word = 32, meta_threads = 32, fallback_kernel = "k_direct">
func.func @fallback_without_align() { return }

// -----

// map not a map
// expected-error @+1 {{tensor_maps must be #stc_gpu.tensor_map, got 4 : i64}}
#map_not_a_map = #stc_gpu.kernel_info<kernel = "k", config = <arch = sm_80, family = direct, block_rows = 64, block_cols = 64>, threads = 128, shared_bytes = 0, static_shared_bytes = 0, params = ["values", "meta", "dense", "out", "R", "P", "K", "value_cols", "meta_cols"], num_pointers = 4, rows = 4, cols = 8, depth = 16, sparse_lhs = true, dense_transposed = false, input_type = f16, output_type = f32, meta_layout = kernel_ready, meta_rows_per_block = 32, meta_k_per_word = 32, meta_threads = 32, tensor_maps = [4]>
func.func @map_not_a_map() { return }

// -----

// map of unknown param
// expected-error @+1 {{names a parameter the kernel does not have}}
#map_of_unknown_param = #stc_gpu.kernel_info<kernel = "k", config = <arch = sm_80, family = direct, block_rows = 64, block_cols = 64>, threads = 128, shared_bytes = 0, static_shared_bytes = 0, params = ["values", "meta", "dense", "out", "R", "P", "K", "value_cols", "meta_cols"], num_pointers = 4, rows = 4, cols = 8, depth = 16, sparse_lhs = true, dense_transposed = false, input_type = f16, output_type = f32, meta_layout = kernel_ready, meta_rows_per_block = 32, meta_k_per_word = 32, meta_threads = 32, tensor_maps = [#stc_gpu.tensor_map<"values_map" over "values", type 6, box[32, 64], swizzle 64>]>
func.func @map_of_unknown_param() { return }

// -----

func.func @config_of_wrong_type() {
  // expected-error @+1 {{stc_gpu.kernel_config must be a #stc_gpu.kernel_config}}
  %c = arith.constant {stc_gpu.kernel_config = 4} 0 : i32
  return
}

// -----

func.func @config_on_other_op(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{stc_gpu.kernel_config configures stc.spmm, stc.conv and dense linalg contractions, not arith.addf}}
  %0 = arith.addf %a, %a {stc_gpu.kernel_config = #stc_gpu.kernel_config<arch = sm_80, family = direct, block_rows = 64, block_cols = 64>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// expected-error @+1 {{stc_gpu.kernel_info must be a #stc_gpu.kernel_info}}
func.func @info_of_wrong_type() attributes {stc_gpu.kernel_info = "stc_spmm_0"} {
  return
}

// -----

// expected-error @+1 {{stc_gpu.launches must name the kernel it launches}}
func.func private @launches_a_string() attributes {stc_gpu.launches = "k"}

// -----

func.func @launches_on_other_op() {
  // expected-error @+1 {{stc_gpu.launches marks a host function, not func.call}}
  func.call @launches_on_other_op() {stc_gpu.launches = @k} : () -> ()
  return
}

// -----

// expected-error @+1 {{stc_gpu.elementwise is a unit attribute}}
func.func private @elementwise_not_unit() attributes {stc_gpu.elementwise = 1}

// -----

// expected-error @+1 {{stc_gpu.block_per_element is a unit attribute}}
func.func private @block_per_element_not_unit() attributes {stc_gpu.block_per_element = "yes"}

// -----

// expected-error @+1 {{stc_gpu.rows_per_block must be a positive integer}}
func.func private @rows_per_block_zero() attributes {stc_gpu.rows_per_block = 0 : i64}

// -----

// expected-error @+1 {{stc_gpu.rows_per_block must be a positive integer}}
func.func private @rows_per_block_unit() attributes {stc_gpu.rows_per_block}

// -----

// expected-error @+1 {{stc_gpu.elements_per_thread must be a positive integer}}
func.func private @elements_per_thread_negative() attributes {stc_gpu.elements_per_thread = -8 : i64}

// -----

// expected-error @+1 {{unknown stc_gpu attribute stc_gpu.config (expected stc_gpu.kernel_config, stc_gpu.kernel_info, stc_gpu.launches, stc_gpu.elementwise, stc_gpu.block_per_element, stc_gpu.rows_per_block or stc_gpu.elements_per_thread)}}
func.func @unknown_attribute() attributes {stc_gpu.config = 1} {
  return
}

// -----

// the staged epilogue's vector stores on mma.sp
// expected-error @+1 {{vector_stores needs family wgmma or staged, got direct}}
#vector_stores_direct = #stc_gpu.kernel_config<arch = sm_90a, family = direct, block_rows = 64, block_cols = 64, vector_stores = true>
func.func @vector_stores_direct() { return }
