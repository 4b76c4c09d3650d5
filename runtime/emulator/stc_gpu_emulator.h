/*===- stc_gpu_emulator.h - run generated GPU kernels on the CPU -*- C -*-===//
 *
 * What generated code calls when `stc-emulate-gpu` has turned its kernels
 * into CPU functions (stc-run --device=emulate): a launch runs every thread
 * of every block as a CPU thread, and each warp-wide mma.sp is a
 * rendezvous of the warp's 32 threads at which the CPU model of mma.sp
 * (MmaSpModel.h, written from the PTX ISA's fragment tables) computes the
 * warp's result, and each wgmma.mma_async.sp (stc_gpu.wgmma_sp) one of the
 * warpgroup's 128 threads (WgmmaSpModel.h). sm_90a kernels that load
 * their tiles with TMA and synchronise on mbarriers (warp-specialised
 * producer and consumer warpgroups) run too: tensor maps, box copies and
 * mbarrier objects follow the CPU model of TmaModel.h; a tensor copy
 * happens at once in the issuing thread (a legal schedule of an
 * asynchronous copy), then completes its bytes on its mbarrier. Slow, and
 * only as faithful as the models, but it runs the kernel's own index
 * arithmetic, bounds checks, fragment packing, pipeline protocol and
 * epilogue on machines with no GPU.
 *
 * Errors the hardware would leave undefined or hang on (illegal operands,
 * misaligned addresses, an mbarrier misused, every thread of a block
 * waiting on mbarrier phases that cannot complete) are reported on stderr
 * as "stc-gpu-emulator: error: ..." and end the process with status 1.
 *
 *===----------------------------------------------------------------------===*/
#ifndef STC_RUNTIME_EMULATOR_STC_GPU_EMULATOR_H
#define STC_RUNTIME_EMULATOR_STC_GPU_EMULATOR_H

#include <stddef.h>
#include <stdint.h>

#include "../stc_gpu_counters.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One thread of a kernel: its parameters (each widened to 64 bits, in
 * order), its thread index and its block's (x, y) index. */
typedef void (*stc_emu_kernel_fn)(int64_t *params, int32_t thread,
                                  int32_t blockX, int32_t blockY);

/* Runs `kernel` (named `name`) on a grid of grid_x x grid_y blocks of
 * `threads` threads (a multiple of 32). Blocks run one after the other; the
 * threads of a block concurrently. With STC_EMU_TRACE set (not "0") in the
 * environment, each launch prints "stc-emu: launch NAME: X x Y blocks of T
 * threads" to stderr. */
void stc_emu_launch(stc_emu_kernel_fn kernel, int64_t grid_x, int64_t grid_y,
                    int64_t threads, int64_t *params, const char *name);

/* The same with clusters of cluster_x x cluster_y blocks (dividing the
 * grid, at most 8 blocks): the blocks of one cluster run together, each
 * with its own shared memory (stc_emu_cta_shared) and its rank
 * (x % cluster_x) + cluster_x (y % cluster_y); clusters one after the
 * other. */
void stc_emu_launch_cluster(stc_emu_kernel_fn kernel, int64_t grid_x,
                            int64_t grid_y, int64_t threads, int64_t *params,
                            const char *name, int64_t cluster_x,
                            int64_t cluster_y);

/* The calling block's copy of the shared-memory global at `global` (256
 * KiB aligned): the global itself for a block of rank 0, a 256 KiB aligned
 * window of the same size for ranks 1.. (made on first use and kept). */
void *stc_emu_cta_shared(void *global);

/* mapa: the address in the shared memory of the cluster's block `rank` that
 * corresponds to `address` in any block's shared memory. */
void *stc_emu_mapa(void *address, int32_t rank);

/* %cluster_ctarank of the calling thread's block. */
int32_t stc_emu_cluster_ctarank(void);

/* barrier.cluster.arrive and barrier.cluster.wait: wait returns when every
 * thread of every block of the cluster has arrived since the caller's
 * arrive (an arrive must precede each wait). */
void stc_emu_cluster_arrive(void);
void stc_emu_cluster_wait(void);

/* mma.sp(::ordered_metadata).sync.aligned.<shape>.row.col.<d>.<a>.<b>.<c>
 * for the calling thread's lane, input_kind giving the shape and types: */
typedef enum StcEmuMmaSpKind {
  /* m16n8k32 .f32.f16.f16.f32: A, B 4 f16x2 words; C, D 4 f32 */
  STC_EMU_MMA_SP_M16N8K32_F32_F16 = 0,
  /* m16n8k32 .f32.bf16.bf16.f32: A, B 4 bf16x2 words; C, D 4 f32 */
  STC_EMU_MMA_SP_M16N8K32_F32_BF16 = 1,
  /* m16n8k16 .f32.tf32.tf32.f32: A, B 4 tf32 words; C, D 4 f32 */
  STC_EMU_MMA_SP_M16N8K16_F32_TF32 = 2,
  /* m16n8k32 .f16.f16.f16.f16: A, B 4 f16x2 words; C, D 2 f16x2 */
  STC_EMU_MMA_SP_M16N8K32_F16_F16 = 3,
  /* m16n8k64 .s32.s8.s8.s32: A, B 4 words of 4 s8; C, D 4 s32 */
  STC_EMU_MMA_SP_M16N8K64_S32_S8_S8 = 4,
  /* m16n8k32 .s32.s8.s8.s32: A, B 2 words of 4 s8; C, D 4 s32 */
  STC_EMU_MMA_SP_M16N8K32_S32_S8_S8 = 5,
  /* the same two shapes with u8 A and B, s8 A and u8 B, u8 A and s8 B */
  STC_EMU_MMA_SP_M16N8K64_S32_U8_U8 = 6,
  STC_EMU_MMA_SP_M16N8K32_S32_U8_U8 = 7,
  STC_EMU_MMA_SP_M16N8K64_S32_S8_U8 = 8,
  STC_EMU_MMA_SP_M16N8K32_S32_S8_U8 = 9,
  STC_EMU_MMA_SP_M16N8K64_S32_U8_S8 = 10,
  STC_EMU_MMA_SP_M16N8K32_S32_U8_S8 = 11
} StcEmuMmaSpKind;

/* stc_emu_mma_sp: input_kind (an StcEmuMmaSpKind) for the calling lane;
 * a and b are its A and B registers (8-bit elements little-endian, element 0
 * in bits 7..0), c its accumulators and d receives its result, each as
 * 32-bit words (f32, f16x2 or s32 bits, whatever the pointer type says);
 * meta its metadata register, selector the sparsity selector (0..1 for the
 * m16n8k32 shapes, 0 for m16n8k64). Integer kinds accumulate modulo 2^32
 * (the wrapping form; .satfinite is not emulated). Every thread of the warp
 * must call it with the same input_kind, ordered and selector. An illegal
 * metadata nibble in a lane the selector reads is reported (once, on
 * stderr) and aborts the emulation: the hardware's result would be
 * undefined. */
void stc_emu_mma_sp(int32_t input_kind, int32_t ordered, const int32_t *a,
                    const int32_t *b, const float *c, int32_t meta,
                    int32_t selector, float *d);

/* The dense mma.sync.aligned.m16n8k16.row.col.<d>.<a>.<b>.<c> of the dense
 * GEMM kernel: the kind of stc_emu_mma. */
typedef enum StcEmuMmaKind {
  /* .f32.f16.f16.f32: A 4 f16x2 words, B 2; C, D 4 f32 */
  STC_EMU_MMA_M16N8K16_F32_F16 = 0,
  /* .f32.bf16.bf16.f32: A 4 bf16x2 words, B 2; C, D 4 f32 */
  STC_EMU_MMA_M16N8K16_F32_BF16 = 1,
  /* .f16.f16.f16.f16: A 4 f16x2 words, B 2; C, D 2 f16x2 */
  STC_EMU_MMA_M16N8K16_F16_F16 = 2
} StcEmuMmaKind;

/* stc_emu_mma: like stc_emu_mma_sp, without metadata. */
void stc_emu_mma(int32_t input_kind, const int32_t *a, const int32_t *b,
                 const float *c, float *d);

/* wgmma.mma_async.sp.sync.aligned.m64n<n>k<K>.<d>.<a>.<b> (sm_90a): the
 * kind of stc_emu_wgmma_sp and stc_emu_wgmma_sp_ss. */
typedef enum StcEmuWgmmaSpKind {
  STC_EMU_WGMMA_SP_F32_F16 = 0,  /* .f32.f16.f16: d n/2 f32 */
  STC_EMU_WGMMA_SP_F32_BF16 = 1, /* .f32.bf16.bf16: d n/2 f32 */
  STC_EMU_WGMMA_SP_F16_F16 = 2,  /* .f16.f16.f16: d n/4 f16x2 words */
  /* .s32.s8.s8 (m64nNk64, wrapping): d n/2 s32, read and written as 32-bit
   * words whatever its C type */
  STC_EMU_WGMMA_SP_S32_S8 = 3
} StcEmuWgmmaSpKind;

/* stc_emu_wgmma_sp: the instruction of `kind` (an StcEmuWgmmaSpKind) with
 * A from registers and B from shared memory, for the calling thread. n is
 * 8..256 in steps of 8 (for STC_EMU_WGMMA_SP_S32_S8: 8, 16, 24, 32, then
 * steps of 16). The 128 threads of a warpgroup (4 consecutive warps of the
 * block, warpgroup = thread / 128; the block must have all 128) meet here; the
 * last to arrive runs the CPU model of the instruction (WgmmaSpModel.h) and
 * every thread gets its D registers. a is the thread's 4 packed A registers,
 * meta its sp-meta register, d its accumulators: read (if scale_d is non-zero)
 * and overwritten with the result. b_desc, selector (sp-sel, 0..1), scale_d,
 * scale_a and scale_b (imm-scale-a/b, 1 or -1), trans_b (imm-trans-b: 0
 * K-major, 1 N-major), smem and smem_bytes must be the same in every thread of
 * the warpgroup. The instruction is synchronous here (wgmma.fence /
 * commit_group / wait_group have nothing to do).
 *
 * Shared memory: a matrix descriptor holds only the low 18 bits of a
 * shared-memory address (start address field = (address >> 4) & 0x3FFF).
 * smem is the host address of the kernel's shared memory (the LLVM global
 * stc-emulate-gpu-kernels moved to the host module), which must be aligned
 * to 256 KiB (the pass gives that global alignment 262144), and
 * smem_bytes its size (at most 256 KiB): the host address of descriptor
 * address x is smem + x, so the kernel's shared addresses (ptrtoint of the
 * host address, truncated by the descriptor) find their bytes again. The
 * model reads that window; an access outside the first smem_bytes bytes,
 * like any other error of the model (illegal metadata, descriptor, scale),
 * is reported on stderr and aborts the emulation. */
void stc_emu_wgmma_sp(int32_t kind, int32_t n, const int32_t *a, int64_t b_desc,
                      int32_t meta, int32_t selector, int32_t scale_d,
                      int32_t scale_a, int32_t scale_b, int32_t trans_b,
                      const void *smem, int64_t smem_bytes, float *d);

/* The same instruction with A from shared memory too
 * (wgmma.mma_async.sp...m64n<n>k32 d, a-desc, b-desc, sp-meta, sp-sel,
 * scale-d, imm-scale-a, imm-scale-b, imm-trans-a, imm-trans-b): a_desc is
 * A's matrix descriptor (the 64 x 16 compressed A tile, K-major, or
 * M-major with trans_a = 1) in the same shared-memory window as B. The
 * other operands, the rendezvous and the errors are those of
 * stc_emu_wgmma_sp; a_desc and trans_a must be the same in every thread of
 * the warpgroup. */
void stc_emu_wgmma_sp_ss(int32_t kind, int32_t n, int64_t a_desc,
                         int64_t b_desc, int32_t meta, int32_t selector,
                         int32_t scale_d, int32_t scale_a, int32_t scale_b,
                         int32_t trans_a, int32_t trans_b, const void *smem,
                         int64_t smem_bytes, float *d);

/* The dense instruction, wgmma.mma_async.sync.aligned.m64n<n>k<K>.<d>.<a>.<b>
 * d, a-desc, b-desc, scale-d, imm-scale-a, imm-scale-b, imm-trans-a,
 * imm-trans-b (K = 16 for f16/bf16, 32 for s8: half the sparse K), with
 * the kinds of StcEmuWgmmaSpKind and A (64 x K) from shared memory. The
 * rendezvous, shared-memory window and errors are those of
 * stc_emu_wgmma_sp_ss. */
void stc_emu_wgmma_ss(int32_t kind, int32_t n, int64_t a_desc, int64_t b_desc,
                      int32_t scale_d, int32_t scale_a, int32_t scale_b,
                      int32_t trans_a, int32_t trans_b, const void *smem,
                      int64_t smem_bytes, float *d);

/* ldmatrix.sync.aligned.m8n8.x<num>(.trans).shared.b16 for the calling
 * thread: `row` is the address this lane supplies (lanes 8i .. 8i + 7 give
 * the rows of matrix i); out[i] receives this lane's word of matrix i:
 * row lane / 4, elements 2 (lane % 4) and + 1 (with trans: elements
 * [2 (lane % 4)][lane / 4] and [2 (lane % 4) + 1][lane / 4]). */
void stc_emu_ldmatrix(const void *row, int32_t num, int32_t trans,
                      int32_t *out);

/* cp.async of `size` bytes: the first `src_size` from src, the rest zeros,
 * done at once. Misaligned addresses are an error, as on the GPU. */
void stc_emu_cp_async(void *dst, const void *src, int32_t size,
                      int32_t src_size);

/* bar.sync 0 over the calling thread's block. */
void stc_emu_barrier(void);

/* bar.sync id, count: barrier `id` (0 .. 15) of the calling thread's block
 * completes when `count` threads (a multiple of 32, at most the block's)
 * have arrived at it. */
void stc_emu_named_barrier(int32_t id, int32_t count);

/* bar.warp.sync with the full member mask (0xffffffff; any other mask is an
 * error): every lane of the calling thread's warp must call it, and none
 * returns before all have arrived. */
void stc_emu_warp_sync(int32_t member_mask);

/* shfl.sync.bfly.b32 with all 32 lanes: returns `value` of lane
 * (this lane XOR lane_mask). Every lane of the warp must call it (as the
 * full member mask requires); lane_mask is 0 .. 31. */
int32_t stc_emu_shfl_xor(int32_t value, int32_t lane_mask);

/* mbarrier objects (sm_90). An mbarrier is 8 bytes of shared memory,
 * 8-byte aligned, that holds its own state (TmaModel.h, MbarrierState:
 * pending and expected arrivals, pending transaction bytes, phase); all
 * operations on any mbarrier are serialised by one lock, and waiting
 * threads sleep. A phase completes when no arrivals and no transaction
 * bytes are pending: the phase number increments and the pending arrivals
 * start again at the init count. Zeroed memory reads as "not initialised":
 * an operation other than init on it is an error.
 *
 * stc_emu_mbarrier_init: mbarrier.init.shared.b64 with `count` (1 .. 2^20 -
 * 1) expected arrivals, phase 0, no transaction bytes. */
void stc_emu_mbarrier_init(void *bar, int32_t count);

/* mbarrier.arrive.shared.b64 with `count` arrivals (1 for the plain form);
 * more than the pending arrivals is an error. */
void stc_emu_mbarrier_arrive(void *bar, int32_t count);

/* mbarrier.arrive.expect_tx.shared.b64: expect-tx(bytes), then one
 * arrival. */
void stc_emu_mbarrier_arrive_expect_tx(void *bar, int32_t bytes);

/* mbarrier.expect_tx: `bytes` more pending transaction bytes (at most
 * 2^19 - 1 pending in all; the count may be below zero while arrivals are
 * pending, when copies completed first). */
void stc_emu_mbarrier_expect_tx(void *bar, int32_t bytes);

/* mbarrier.complete_tx (what a tensor copy does when it has written its
 * bytes): `bytes` fewer pending transaction bytes. Completing more than the
 * pending count is an error: the emulator wants the expect-tx before the
 * copy (PTX would let the count go negative for a while; stc's kernels, as
 * CUTLASS's, never do). */
void stc_emu_mbarrier_complete_tx(void *bar, int32_t bytes);

/* mbarrier.try_wait.parity as MLIR's nvvm.mbarrier.try_wait.parity
 * (a loop until it succeeds): returns once the phase of parity `parity`
 * (0 or 1) has completed, i.e. when the current phase's parity differs. A
 * freshly initialised barrier is in phase 0, so waiting for parity 1
 * returns at once. Inside stc_emu_launch, when every thread of the block
 * has returned from the kernel or waits here for a phase that has not
 * completed, nothing can complete one any more: that deadlock is reported
 * (each barrier waited on, with its state) and stops the emulation.
 * Threads blocked at bar.sync or a warp rendezvous do not count, so a hang
 * that involves them stays a hang. */
void stc_emu_mbarrier_wait_parity(void *bar, int32_t parity);

/* cuTensorMapEncodeTiled for a 2-D tensor (interleave none, element
 * strides 1, no L2 promotion, out-of-bounds elements read as zero), as the
 * host code of an sm_90a kernel calls stc_gpu_tensor_map_2d
 * (stc-emulate-gpu-kernels renames the calls): `base` the tensor's first
 * element, `data_type` a CUtensorMapDataType (0 UINT8, 1 UINT16, 2 UINT32,
 * 3 INT32, 4 UINT64, 5 INT64, 6 FLOAT16, 7 FLOAT32, 8 FLOAT64, 9 BFLOAT16,
 * 10 FLOAT32_FTZ, 11 TFLOAT32, 12 TFLOAT32_FTZ), `inner` x `outer`
 * elements (inner contiguous), rows `outer_stride_bytes` apart, boxes of
 * `box_inner` x `box_outer` elements, `swizzle_bytes` 0 (none), 32, 64 or
 * 128. The arguments are checked as the driver checks them (base 16-byte
 * aligned, outer stride a multiple of 16 and at least a row, box
 * dimensions 1 .. 256, box inner bytes a multiple of 16 and, when
 * swizzled, at most the swizzle width); a violation is an error. Returns
 * the emulator's map (not the CUDA 128-byte format; owned by the emulator,
 * the same pointer for the same arguments). */
void *stc_emu_tensor_map_2d(const void *base, int32_t data_type, int64_t inner,
                            int64_t outer, int64_t outer_stride_bytes,
                            int32_t box_inner, int32_t box_outer,
                            int32_t swizzle_bytes);

/* cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx
 * ::bytes [dst], [map, {x, y}], [bar]: copies the box whose first element
 * is at tensor coordinates (x, y) (innermost first; elements at negative
 * coordinates or past the tensor's end read as zero) to `dst` as a dense
 * row-major box, each 16-byte chunk moved by the map's swizzle on its
 * absolute address (chunk bits [4, 4 + log2(W/16)) XOR bits [7, ...); the
 * host address works because shared memory is 256 KiB aligned), then
 * completes box_inner * box_outer * element bytes (the whole box) on
 * `bar`, which must be initialised. `map` must come from
 * stc_emu_tensor_map_2d. dst must be 128-byte aligned, and with a W-byte
 * swizzle aligned to 8 W (256, 512, 1024 bytes: the box starts a
 * repetition of the pattern) with box rows of exactly W bytes (CUDA allows
 * narrower rows; the emulator does not model them). */
void stc_emu_tma_load_2d(void *dst, const void *map, int32_t x, int32_t y,
                         void *bar);

/* cp.async.bulk.tensor.2d ... .multicast::cluster: the same box into the
 * shared memory of every block of the cluster whose rank is a bit of
 * `mask`, at dst's offset there, completing on the mbarrier at bar's
 * offset there (stc_emu_mapa). */
void stc_emu_tma_load_2d_multicast(void *dst, const void *map, int32_t x,
                                   int32_t y, void *bar, int32_t mask);

/* cuTensorMapEncodeTiled for a 4-D tensor, as the host code of an sm_90a
 * kernel calls stc_gpu_tensor_map_4d (renamed by stc-emulate-gpu-kernels),
 * everything innermost first: sizes d0 .. d3 (d0 contiguous), the byte
 * strides s1 .. s3 of dimensions 1 .. 3, boxes of b0 .. b3 elements and
 * the traversal strides e0 .. e3 (elementStrides, 1 .. 8). Checked like
 * stc_emu_tensor_map_2d (each stride a multiple of 16 below 2^40 and at
 * least the extent of the dimension inside it, box dimensions 1 .. 256,
 * element strides 1 .. 8, box inner bytes a multiple of 16 and, when
 * swizzled, at most the swizzle width); a violation is an error. A box
 * takes ceil(b_i / e_i) elements along dimension i >= 1 and b0 along
 * dimension 0, whose element stride TMA ignores (cuTensorMapEncodeTiled:
 * with no interleave "the first element of this array is ignored").
 * Returns the emulator's map, the same pointer for the same arguments. */
void *stc_emu_tensor_map_4d(const void *base, int32_t data_type, int64_t d0,
                            int64_t d1, int64_t d2, int64_t d3, int64_t s1,
                            int64_t s2, int64_t s3, int32_t b0, int32_t b1,
                            int32_t b2, int32_t b3, int32_t e0, int32_t e1,
                            int32_t e2, int32_t e3, int32_t swizzle_bytes);

/* cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx
 * ::bytes [dst], [map, {c0, c1, c2, c3}], [bar] with a map from
 * stc_emu_tensor_map_4d: along dimension i the box starts at coordinate
 * c_i (may be negative) and takes n_i elements (n_0 = b0, n_i = ceil(b_i /
 * e_i) for i >= 1) at coordinates c_i + e_i * j, j < n_i; they land in
 * `dst` as the dense n_0 x n_1 x n_2 x n_3 box (dimension 0 contiguous,
 * rows of n_0 elements), elements outside the tensor as zero, swizzled as
 * in stc_emu_tma_load_2d (rows of exactly the swizzle width when
 * swizzled), and then n_0 * n_1 * n_2 * n_3 * element bytes complete on
 * `bar`. A map of another rank is an error (and so is a 4-D map given to
 * stc_emu_tma_load_2d). */
void stc_emu_tma_load_4d(void *dst, const void *map, int32_t c0, int32_t c1,
                         int32_t c2, int32_t c3, void *bar);

/* Checks a cluster launch: each cluster dimension at least 1 and dividing
 * the grid's, as cuLaunchKernelEx requires; otherwise an error. The launch
 * that follows is stc_emu_launch_cluster. */
void stc_emu_check_cluster(int64_t grid_x, int64_t grid_y, int64_t grid_z,
                           int64_t cluster_x, int64_t cluster_y,
                           int64_t cluster_z);

/* Device memory and copies, counted as the CUDA runtime counts them
 * (runtime/stc_gpu_counters.h; StcGpuEmulatorMemory.cpp). The emulator's
 * device memory is host memory that generated code allocates itself; these
 * only count, with the CUDA runtime's pool policy
 * (runtime/DevicePoolPolicy.h): an allocation of `bytes` that a block the
 * pool would have cached serves counts as none. A free names the address
 * the allocation returned (0 and unknown addresses: nothing). */
void stc_emu_device_alloc(int64_t address, int64_t bytes);
void stc_emu_device_free(int64_t address);
/* A copy of `bytes` to the device (to_device 1) or from it (0). */
void stc_emu_copy(int32_t to_device, int64_t bytes);
/* stc_gpu_resident and stc_gpu_release_resident (stc_runtime_cuda.h) on
 * the emulator: the "device" copy is a host copy, made once per slot. */
void *stc_emu_resident(int64_t *slot, const void *host, int64_t bytes);
void stc_emu_release_resident(int64_t *slot);
/* The counters since the process started; kernel_ms is the wall time of
 * the emulated launches. */
void stc_emu_counters(StcGpuCounters *counters);

/* Testing: how many shared-memory copies of cluster ranks 1.. exist (0
 * outside a launch: each launch frees its copies when it ends). */
size_t stc_emu_shared_copies_for_testing(void);

#ifdef __cplusplus
}
#endif

#endif /* STC_RUNTIME_EMULATOR_STC_GPU_EMULATOR_H */
