/*===- stc_gpu_emulator.h - run generated GPU kernels on the CPU -*- C -*-===//
 *
 * What generated code calls when `stc-emulate-gpu` has turned its kernels
 * into CPU functions (stc-run --device=emulate): a launch runs every thread
 * of every block as a CPU thread, and each warp-wide mma.sp is a
 * rendezvous of the warp's 32 threads at which the CPU model of mma.sp
 * (MmaSpModel.h, written from the PTX ISA's fragment tables) computes the
 * warp's result, and each wgmma.mma_async.sp (stc.wgmma_sp) one of the
 * warpgroup's 128 threads (WgmmaSpModel.h). Slow, and only as faithful as
 * the model, but it runs the kernel's own index arithmetic, bounds checks,
 * fragment packing and epilogue on machines with no GPU.
 *
 *===----------------------------------------------------------------------===*/
#ifndef STC_RUNTIME_EMULATOR_STC_GPU_EMULATOR_H
#define STC_RUNTIME_EMULATOR_STC_GPU_EMULATOR_H

#include <stdint.h>

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

/* mma.sp(::ordered_metadata).sync.aligned.<shape>.row.col.<d>.<a>.<b>.<c>
 * for the calling thread's lane, input_kind giving the shape and types:
 *
 *   0  m16n8k32 .f32.f16.f16.f32     A, B: 4 f16x2 words; C, D: 4 f32
 *   1  m16n8k32 .f32.bf16.bf16.f32   A, B: 4 bf16x2 words; C, D: 4 f32
 *   2  m16n8k16 .f32.tf32.tf32.f32   A, B: 4 tf32 words; C, D: 4 f32
 *   3  m16n8k32 .f16.f16.f16.f16     A, B: 4 f16x2 words; C, D: 2 f16x2
 *   4  m16n8k64 .s32.s8.s8.s32       A, B: 4 words of 4 s8; C, D: 4 s32
 *   5  m16n8k32 .s32.s8.s8.s32       A, B: 2 words of 4 s8; C, D: 4 s32
 *   6  m16n8k64 .s32.u8.u8.s32       as 4, with u8 A and B
 *   7  m16n8k32 .s32.u8.u8.s32       as 5, with u8 A and B
 *   8, 9    as 4, 5 with s8 A and u8 B
 *   10, 11  as 4, 5 with u8 A and s8 B
 *
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

/* wgmma.mma_async.sp.sync.aligned.m64n<n>k32.<d>.<a>.<b> (sm_90a) with A
 * from registers and B from shared memory, for the calling thread:
 *
 *   0  .f32.f16.f16     d: n/2 f32
 *   1  .f32.bf16.bf16   d: n/2 f32
 *   2  .f16.f16.f16     d: n/4 f16x2 words
 *
 * n is 8..256 in steps of 8. The 128 threads of a warpgroup (4 consecutive
 * warps of the block, warpgroup = thread / 128; the block must have all
 * 128) meet here; the last to arrive runs the CPU model of the instruction
 * (WgmmaSpModel.h) and every thread gets its D registers. a is the thread's
 * 4 packed A registers, meta its sp-meta register, d its accumulators:
 * read (if scale_d is non-zero) and overwritten with the result. b_desc,
 * selector (sp-sel, 0..1), scale_d, scale_a and scale_b (imm-scale-a/b,
 * 1 or -1), trans_b (imm-trans-b: 0 K-major, 1 N-major), smem and
 * smem_bytes must be the same in every thread of the warpgroup. The
 * instruction is synchronous here (wgmma.fence / commit_group / wait_group
 * have nothing to do).
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

#ifdef __cplusplus
}
#endif

#endif /* STC_RUNTIME_EMULATOR_STC_GPU_EMULATOR_H */
