//===- WgmmaSpModel.h - CPU model of one warpgroup's wgmma.sp ---*- C++ -*-===//
//
// A CPU model of one warpgroup (128 threads = 4 warps) executing
//
//   wgmma.mma_async.sp.sync.aligned.m64nNkK.<d>.<a>.<b>
//       d, a,      b-desc, sp-meta, sp-sel, scale-d, imm-scale-a, imm-scale-b,
//                  imm-trans-b;                               (A in registers)
//       d, a-desc, b-desc, sp-meta, sp-sel, scale-d, imm-scale-a, imm-scale-b,
//                  imm-trans-a, imm-trans-b;             (A in shared memory)
//
// (sm_90a), written from the PTX ISA section 9.7.15 "Asynchronous Warpgroup
// Level Matrix Multiply-Accumulate Instructions": 9.7.15.6.1 "Sparse matrix
// storage", 9.7.15.6.2 "Matrix fragments for warpgroup-level multiply-
// accumulate operation with sparse matrix A", 9.7.15.6.3 "wgmma.mma_async.sp",
// 9.7.15.5.1.1 "Register Fragments" (accumulator D), 9.7.15.5.1.2 "Shared
// Memory Matrix Layout" (canonical layouts, LBO/SBO, swizzling) and
// 9.7.15.5.1.2.2 "Matrix Descriptor Format".  docs/HOPPER-LAYOUT.md lists
// which statement comes from where and what is *unverified*.
//
// The model reads every operand the way the ISA states it (thread, register
// element -> matrix cell; descriptor + cell -> shared-memory byte address).
// It deliberately does not use runtime/format/StcHopperLayout.h, which
// states the same facts in the opposite direction for the code generator;
// test/Unit/WgmmaSpModelTest.cpp cross-checks the two.
//
// Supported: .f16 and .bf16 (k32, f32 accumulators; f16 also with f16
// accumulators), .tf32 (k16, f32), .s8/.u8 (k64, s32, no .satfinite); N
// = 8..256 in steps of 8 (the ISA's reduced N list for the integer shapes is
// enforced).  Not modelled: .e4m3/.e5m2, .satfinite, the asynchronous
// semantics (wgmma.fence / commit_group / wait_group) and a non-zero matrix
// base offset (an error).
//
// The dense instruction (WgmmaSpInstr::sparse false; 9.7.15.5 "wgmma.
// mma_async") is the same model without metadata: K is 16 (.f16/.bf16),
// 8 (.tf32) or 32 (.s8/.u8), and A is read whole (64 x K) through its
// descriptor. Dense A from registers is not modelled (an error): STC's
// kernels read it from shared memory.
//
// Numerics (assumptions, not ISA statements): products are exact in float;
// they are added to C in increasing K order in float with
// round-to-nearest-even after every addition (the ISA leaves order and
// rounding unspecified); f16 accumulators are rounded once at the end; .tf32
// ignores the low 13 bits of each element (ISA 9.7.15.6.3: "will truncate
// lower 13 bits"); integer accumulation wraps modulo 2^32.
//
//===----------------------------------------------------------------------===//

#ifndef STC_RUNTIME_EMULATOR_WGMMASPMODEL_H
#define STC_RUNTIME_EMULATOR_WGMMASPMODEL_H

#include "runtime/emulator/MmaSpModel.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace stc::emu {

/// One instruction: N and the types of A, B and D (= C).  K follows from
/// the A/B type: 32 (.f16/.bf16), 16 (.tf32), 64 (.s8/.u8).  Legal: A = B =
/// f16 with D = f32 or f16; A = B = bf16 with D = f32; A = B = tf32 with
/// D = f32; A, B in {s8, u8} with D = s32.
struct WgmmaSpInstr {
  int n = 64;
  MmaElem a = MmaElem::F16;
  MmaElem b = MmaElem::F16;
  MmaElem d = MmaElem::F32;
  /// wgmma.mma_async.sp (2:4 A with metadata) or the dense
  /// wgmma.mma_async (half the K; no metadata, selector or A registers).
  bool sparse = true;
};

/// Dense K of the instruction (0 for an illegal A type).
int wgmmaSpK(const WgmmaSpInstr &instr);

/// PTX spelling, e.g. "wgmma.mma_async.sp.sync.aligned.m64n64k32.f32.f16.f16"
/// (dense: "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16").
std::string wgmmaSpInstrName(const WgmmaSpInstr &instr);

/// Threads of a warpgroup.
inline constexpr int kWarpgroupThreads = 128;

/// 32-bit A registers per thread (4 for every sparse shape, ISA 9.7.15.6.2).
int wgmmaSpARegs(const WgmmaSpInstr &instr);
/// 32-bit D registers per thread: N/2 (f32, s32) or N/4 (f16).
int wgmmaSpDRegs(const WgmmaSpInstr &instr);

/// The swizzling mode of a matrix descriptor (bits 63..62; the enumerator
/// values are the ISA's encoding).
enum class WgmmaSwizzle : unsigned { None = 0, B128 = 1, B64 = 2, B32 = 3 };

/// The fields of a 64-bit matrix descriptor, decoded (byte quantities).
struct WgmmaDescriptor {
  /// Bits 13..0 << 4: start address (the low 18 bits of the shared-memory
  /// address, 16-byte aligned).
  uint32_t startAddress = 0;
  /// Bits 29..16 << 4: leading dimension byte offset.
  uint32_t leadingByteOffset = 0;
  /// Bits 45..32 << 4: stride dimension byte offset.
  uint32_t strideByteOffset = 0;
  /// Bits 51..49: matrix base offset.
  unsigned baseOffset = 0;
  /// Bits 63..62.
  WgmmaSwizzle swizzle = WgmmaSwizzle::None;
};

/// Decodes a descriptor the way the ISA's table (9.7.15.5.1.2.2) states it.
WgmmaDescriptor decodeWgmmaDescriptor(uint64_t desc);

/// All operands of one instruction.  Register vectors are thread-major:
/// register i of thread T (0..127, T = 32 * warp + lane) is v[T * regs + i].
struct WgmmaSpOperands {
  /// A from registers (false) or from shared memory through `aDesc`.
  bool aFromSmem = false;
  /// A registers (wgmmaSpARegs per thread), when !aFromSmem.
  std::vector<uint32_t> a;
  /// A descriptor and imm-trans-a (1 = M-major), when aFromSmem.
  uint64_t aDesc = 0;
  int transA = 0;
  /// B descriptor and imm-trans-b (1 = N-major).
  uint64_t bDesc = 0;
  int transB = 0;
  /// The shared-memory window: byte address x is smem[x].
  std::vector<uint8_t> smem;
  /// sp-meta of every thread and sp-sel.
  std::array<uint32_t, kWarpgroupThreads> e{};
  int selector = 0;
  /// scale-d: false computes D = A*B, true D = A*B + D.
  bool scaleD = true;
  /// imm-scale-a / imm-scale-b: 1 or -1 (floating-point types only).
  int scaleA = 1;
  int scaleB = 1;
  /// Input accumulators (wgmmaSpDRegs per thread); read only if scaleD.
  std::vector<uint32_t> d;
};

/// Result: `d` in the accumulator layout, or an error (never a crash).
struct WgmmaSpResult {
  bool ok = false;
  std::string error;
  std::vector<uint32_t> d;
};

/// Executes the instruction.  Errors: an illegal type combination or N,
/// a selector other than 0/1 (b16, tf32) or 0 (8-bit), transposes on a type
/// that has none, scale factors other than +-1 (or not 1 for integers),
/// register vectors of the wrong size, a descriptor with a non-zero base
/// offset, a shared-memory access outside `smem` or misaligned, a K-major
/// swizzled operand whose K extent exceeds the swizzle width, and a metadata
/// nibble (of a thread the selector reads) that is not one of 0x4 0x8 0x9
/// 0xC 0xD 0xE (tf32: 0x4 0xE); for the dense instruction, A from
/// registers. The dense instruction ignores `e` and `selector`.
WgmmaSpResult runWgmmaSp(const WgmmaSpInstr &instr, const WgmmaSpOperands &in);

} // namespace stc::emu

#endif // STC_RUNTIME_EMULATOR_WGMMASPMODEL_H
