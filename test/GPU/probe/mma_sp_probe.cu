//===- mma_sp_probe.cu - hardware probe of mma.sp fragment layouts -------===//
//
// Runs one warp executing every sparse MMA instruction the CPU model
// (runtime/emulator/MmaSpModel.h) supports -- every shape, type combination,
// legal sparsity selector F, and both `mma.sp` and `mma.sp::ordered_metadata`
// -- on seeded random registers, and compares the D registers lane by lane
// with the model run on the host on the same registers.  This is how the
// *probe* rows of docs/GPU-LAYOUT.md (metadata thread mapping, nibble order,
// the B fragments given only as figures, tf32 low bits, which lanes the
// selector reads) are checked on hardware.
//
// The metadata register of every lane the selector reads holds random legal
// nibbles of the pattern (2:4: 0x4 0x8 0xC 0x9 0xD 0xE; tf32 1:2: 0x4 0xE);
// every other lane's metadata register holds random garbage, which the
// hardware must ignore.
//
// Per case four data sets run: two of small non-zero integers (every sum is
// exact in any order, so D must equal the model exactly: a pure layout check)
// and two of random values (f16/bf16/tf32 with random mantissas, tf32 with
// random low 13 bits, int8 over the full range, s32 accumulators wrapping),
// compared with a tolerance relative to |C| + sum |products| (the model run
// on the magnitudes): 1e-5 for f32 accumulators, 1e-2 for f16 accumulators,
// exact for s32.
//
//   mma_sp_probe               run on GPU 0; one line per case, then
//                              "probe: N cases, M mismatches"; exit 1 on any
//                              mismatch, 2 without a usable GPU.
//   mma_sp_probe --self-check  no GPU: checks the model against hand-computed
//                              answers from the PTX ISA tables and that every
//                              case's data is accepted by the model.
//
// Build: nvcc -std=c++17 -I<stc src> -gencode ... mma_sp_probe.cu
//        <build>/runtime/libStcGpuEmulator.a <build>/runtime/libStcFormat.a
//
//===----------------------------------------------------------------------===//

#include "runtime/emulator/MmaSpModel.h"
#include "runtime/format/StcFormat.h"
#include "runtime/format/StcGpuLayout.h"

#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

// mma.sp::ordered_metadata needs PTX ISA 8.5 (CUDA 12.5).  With an older
// toolkit the ordered cases are reported as SKIPPED.
#if defined(__CUDACC_VER_MAJOR__) &&                                           \
    (__CUDACC_VER_MAJOR__ > 12 ||                                              \
     (__CUDACC_VER_MAJOR__ == 12 && __CUDACC_VER_MINOR__ >= 5))
#define STC_PROBE_ORDERED 1
#else
#define STC_PROBE_ORDERED 0
#endif

//===----------------------------------------------------------------------===//
// Device side: one kernel per instruction and selector
//===----------------------------------------------------------------------===//

// mma.sp needs sm_80; the probe is only built for sm_80 and later.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#define STC_PROBE_ASM(...) __trap()
#else
#define STC_PROBE_ASM(...) asm volatile(__VA_ARGS__)
#endif

#define STC_PROBE_PARAMS                                                       \
  const unsigned *__restrict__ ga, const unsigned *__restrict__ gb,            \
      const unsigned *__restrict__ gc, const unsigned *__restrict__ ge,        \
      unsigned *__restrict__ gd

// A and B in 2 registers each, C/D 4 x f32.
#define STC_PROBE_KERNEL_A2_F32(NAME, OP)                                      \
  template <int F> __global__ void NAME(STC_PROBE_PARAMS) {                    \
    const int l = threadIdx.x;                                                 \
    unsigned a0 = ga[2 * l], a1 = ga[2 * l + 1];                               \
    unsigned b0 = gb[2 * l], b1 = gb[2 * l + 1];                               \
    float c0 = __uint_as_float(gc[4 * l]), c1 = __uint_as_float(gc[4 * l + 1]); \
    float c2 = __uint_as_float(gc[4 * l + 2]),                                 \
          c3 = __uint_as_float(gc[4 * l + 3]);                                 \
    unsigned e = ge[l];                                                        \
    float d0 = 0, d1 = 0, d2 = 0, d3 = 0;                                      \
    STC_PROBE_ASM(OP " {%0,%1,%2,%3}, {%4,%5}, {%6,%7}, {%8,%9,%10,%11}, "     \
                     "%12, %13;"                                               \
                  : "=f"(d0), "=f"(d1), "=f"(d2), "=f"(d3)                     \
                  : "r"(a0), "r"(a1), "r"(b0), "r"(b1), "f"(c0), "f"(c1),      \
                    "f"(c2), "f"(c3), "r"(e), "n"(F));                         \
    gd[4 * l] = __float_as_uint(d0);                                           \
    gd[4 * l + 1] = __float_as_uint(d1);                                       \
    gd[4 * l + 2] = __float_as_uint(d2);                                       \
    gd[4 * l + 3] = __float_as_uint(d3);                                       \
  }

// A and B in 4 registers each, C/D 4 x f32.
#define STC_PROBE_KERNEL_A4_F32(NAME, OP)                                      \
  template <int F> __global__ void NAME(STC_PROBE_PARAMS) {                    \
    const int l = threadIdx.x;                                                 \
    unsigned a0 = ga[4 * l], a1 = ga[4 * l + 1], a2 = ga[4 * l + 2],           \
             a3 = ga[4 * l + 3];                                               \
    unsigned b0 = gb[4 * l], b1 = gb[4 * l + 1], b2 = gb[4 * l + 2],           \
             b3 = gb[4 * l + 3];                                               \
    float c0 = __uint_as_float(gc[4 * l]), c1 = __uint_as_float(gc[4 * l + 1]); \
    float c2 = __uint_as_float(gc[4 * l + 2]),                                 \
          c3 = __uint_as_float(gc[4 * l + 3]);                                 \
    unsigned e = ge[l];                                                        \
    float d0 = 0, d1 = 0, d2 = 0, d3 = 0;                                      \
    STC_PROBE_ASM(OP " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9,%10,%11}, "        \
                     "{%12,%13,%14,%15}, %16, %17;"                            \
                  : "=f"(d0), "=f"(d1), "=f"(d2), "=f"(d3)                     \
                  : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1),      \
                    "r"(b2), "r"(b3), "f"(c0), "f"(c1), "f"(c2), "f"(c3),      \
                    "r"(e), "n"(F));                                           \
    gd[4 * l] = __float_as_uint(d0);                                           \
    gd[4 * l + 1] = __float_as_uint(d1);                                       \
    gd[4 * l + 2] = __float_as_uint(d2);                                       \
    gd[4 * l + 3] = __float_as_uint(d3);                                       \
  }

// A and B in 2 registers each, C/D 2 x f16x2.
#define STC_PROBE_KERNEL_A2_H2(NAME, OP)                                       \
  template <int F> __global__ void NAME(STC_PROBE_PARAMS) {                    \
    const int l = threadIdx.x;                                                 \
    unsigned a0 = ga[2 * l], a1 = ga[2 * l + 1];                               \
    unsigned b0 = gb[2 * l], b1 = gb[2 * l + 1];                               \
    unsigned c0 = gc[2 * l], c1 = gc[2 * l + 1];                               \
    unsigned e = ge[l];                                                        \
    unsigned d0 = 0, d1 = 0;                                                   \
    STC_PROBE_ASM(OP " {%0,%1}, {%2,%3}, {%4,%5}, {%6,%7}, %8, %9;"            \
                  : "=r"(d0), "=r"(d1)                                         \
                  : "r"(a0), "r"(a1), "r"(b0), "r"(b1), "r"(c0), "r"(c1),      \
                    "r"(e), "n"(F));                                           \
    gd[2 * l] = d0;                                                            \
    gd[2 * l + 1] = d1;                                                        \
  }

// A and B in 4 registers each, C/D 2 x f16x2.
#define STC_PROBE_KERNEL_A4_H2(NAME, OP)                                       \
  template <int F> __global__ void NAME(STC_PROBE_PARAMS) {                    \
    const int l = threadIdx.x;                                                 \
    unsigned a0 = ga[4 * l], a1 = ga[4 * l + 1], a2 = ga[4 * l + 2],           \
             a3 = ga[4 * l + 3];                                               \
    unsigned b0 = gb[4 * l], b1 = gb[4 * l + 1], b2 = gb[4 * l + 2],           \
             b3 = gb[4 * l + 3];                                               \
    unsigned c0 = gc[2 * l], c1 = gc[2 * l + 1];                               \
    unsigned e = ge[l];                                                        \
    unsigned d0 = 0, d1 = 0;                                                   \
    STC_PROBE_ASM(OP " {%0,%1}, {%2,%3,%4,%5}, {%6,%7,%8,%9}, {%10,%11}, "     \
                     "%12, %13;"                                               \
                  : "=r"(d0), "=r"(d1)                                         \
                  : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1),      \
                    "r"(b2), "r"(b3), "r"(c0), "r"(c1), "r"(e), "n"(F));       \
    gd[2 * l] = d0;                                                            \
    gd[2 * l + 1] = d1;                                                        \
  }

// A and B in 2 registers each, C/D 4 x s32.
#define STC_PROBE_KERNEL_A2_S32(NAME, OP)                                      \
  template <int F> __global__ void NAME(STC_PROBE_PARAMS) {                    \
    const int l = threadIdx.x;                                                 \
    unsigned a0 = ga[2 * l], a1 = ga[2 * l + 1];                               \
    unsigned b0 = gb[2 * l], b1 = gb[2 * l + 1];                               \
    unsigned c0 = gc[4 * l], c1 = gc[4 * l + 1], c2 = gc[4 * l + 2],           \
             c3 = gc[4 * l + 3];                                               \
    unsigned e = ge[l];                                                        \
    unsigned d0 = 0, d1 = 0, d2 = 0, d3 = 0;                                   \
    STC_PROBE_ASM(OP " {%0,%1,%2,%3}, {%4,%5}, {%6,%7}, {%8,%9,%10,%11}, "     \
                     "%12, %13;"                                               \
                  : "=r"(d0), "=r"(d1), "=r"(d2), "=r"(d3)                     \
                  : "r"(a0), "r"(a1), "r"(b0), "r"(b1), "r"(c0), "r"(c1),      \
                    "r"(c2), "r"(c3), "r"(e), "n"(F));                         \
    gd[4 * l] = d0;                                                            \
    gd[4 * l + 1] = d1;                                                        \
    gd[4 * l + 2] = d2;                                                        \
    gd[4 * l + 3] = d3;                                                        \
  }

// A and B in 4 registers each, C/D 4 x s32.
#define STC_PROBE_KERNEL_A4_S32(NAME, OP)                                      \
  template <int F> __global__ void NAME(STC_PROBE_PARAMS) {                    \
    const int l = threadIdx.x;                                                 \
    unsigned a0 = ga[4 * l], a1 = ga[4 * l + 1], a2 = ga[4 * l + 2],           \
             a3 = ga[4 * l + 3];                                               \
    unsigned b0 = gb[4 * l], b1 = gb[4 * l + 1], b2 = gb[4 * l + 2],           \
             b3 = gb[4 * l + 3];                                               \
    unsigned c0 = gc[4 * l], c1 = gc[4 * l + 1], c2 = gc[4 * l + 2],           \
             c3 = gc[4 * l + 3];                                               \
    unsigned e = ge[l];                                                        \
    unsigned d0 = 0, d1 = 0, d2 = 0, d3 = 0;                                   \
    STC_PROBE_ASM(OP " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9,%10,%11}, "        \
                     "{%12,%13,%14,%15}, %16, %17;"                            \
                  : "=r"(d0), "=r"(d1), "=r"(d2), "=r"(d3)                     \
                  : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1),      \
                    "r"(b2), "r"(b3), "r"(c0), "r"(c1), "r"(c2), "r"(c3),      \
                    "r"(e), "n"(F));                                           \
    gd[4 * l] = d0;                                                            \
    gd[4 * l + 1] = d1;                                                        \
    gd[4 * l + 2] = d2;                                                        \
    gd[4 * l + 3] = d3;                                                        \
  }

// Both forms of one instruction: NAME_plain and NAME_ordered.
#if STC_PROBE_ORDERED
#define STC_PROBE_DEFINE(KIND, NAME, SUFFIX)                                   \
  STC_PROBE_KERNEL_##KIND(NAME##_plain, "mma.sp.sync.aligned." SUFFIX)         \
  STC_PROBE_KERNEL_##KIND(NAME##_ordered,                                      \
                          "mma.sp::ordered_metadata.sync.aligned." SUFFIX)
#define STC_PROBE_ORDERED_KERNEL(NAME, F) (&NAME##_ordered<F>)
#else
#define STC_PROBE_DEFINE(KIND, NAME, SUFFIX)                                   \
  STC_PROBE_KERNEL_##KIND(NAME##_plain, "mma.sp.sync.aligned." SUFFIX)
#define STC_PROBE_ORDERED_KERNEL(NAME, F) (nullptr)
#endif

STC_PROBE_DEFINE(A2_F32, k16_f32_f16, "m16n8k16.row.col.f32.f16.f16.f32")
STC_PROBE_DEFINE(A2_H2, k16_f16_f16, "m16n8k16.row.col.f16.f16.f16.f16")
STC_PROBE_DEFINE(A2_F32, k16_f32_bf16, "m16n8k16.row.col.f32.bf16.bf16.f32")
STC_PROBE_DEFINE(A4_F32, k32_f32_f16, "m16n8k32.row.col.f32.f16.f16.f32")
STC_PROBE_DEFINE(A4_H2, k32_f16_f16, "m16n8k32.row.col.f16.f16.f16.f16")
STC_PROBE_DEFINE(A4_F32, k32_f32_bf16, "m16n8k32.row.col.f32.bf16.bf16.f32")
STC_PROBE_DEFINE(A2_F32, k8_tf32, "m16n8k8.row.col.f32.tf32.tf32.f32")
STC_PROBE_DEFINE(A4_F32, k16_tf32, "m16n8k16.row.col.f32.tf32.tf32.f32")
STC_PROBE_DEFINE(A2_S32, k32_s8_s8, "m16n8k32.row.col.s32.s8.s8.s32")
STC_PROBE_DEFINE(A2_S32, k32_s8_u8, "m16n8k32.row.col.s32.s8.u8.s32")
STC_PROBE_DEFINE(A2_S32, k32_u8_s8, "m16n8k32.row.col.s32.u8.s8.s32")
STC_PROBE_DEFINE(A2_S32, k32_u8_u8, "m16n8k32.row.col.s32.u8.u8.s32")
STC_PROBE_DEFINE(A4_S32, k64_s8_s8, "m16n8k64.row.col.s32.s8.s8.s32")
STC_PROBE_DEFINE(A4_S32, k64_s8_u8, "m16n8k64.row.col.s32.s8.u8.s32")
STC_PROBE_DEFINE(A4_S32, k64_u8_s8, "m16n8k64.row.col.s32.u8.s8.s32")
STC_PROBE_DEFINE(A4_S32, k64_u8_u8, "m16n8k64.row.col.s32.u8.u8.s32")

//===----------------------------------------------------------------------===//
// Host side: the cases
//===----------------------------------------------------------------------===//

namespace {

using stc::emu::MmaElem;
using stc::emu::MmaSpFragments;
using stc::emu::MmaSpInstr;
using stc::emu::MmaSpResult;
using stc::emu::mmaSpElementBits;
using stc::emu::mmaSpIsMetadataLane;
using stc::format::MmaSpShape;

using Kernel = void (*)(const unsigned *, const unsigned *, const unsigned *,
                        const unsigned *, unsigned *);

struct Case {
  const char *shape; // "m16n8k16"
  const char *types; // "f32.f16.f16.f32" (d.a.b.c)
  MmaSpInstr instr;
  int f;
  bool ordered;
  Kernel kernel; // null: the form is not compiled in (toolkit too old)
};

std::vector<Case> allCases() {
  std::vector<Case> cases;
  auto add = [&](const char *shape, const char *types, MmaSpInstr instr, int f,
                 Kernel plain, Kernel ordered) {
    cases.push_back({shape, types, instr, f, false, plain});
    cases.push_back({shape, types, instr, f, true, ordered});
  };
#define STC_ADD(SHAPE, TYPES, INSTR, NAME, F)                                  \
  add(SHAPE, TYPES, INSTR, F, &NAME##_plain<F>,                                \
      STC_PROBE_ORDERED_KERNEL(NAME, F))
#define STC_ADD_F4(SHAPE, TYPES, INSTR, NAME)                                  \
  STC_ADD(SHAPE, TYPES, INSTR, NAME, 0);                                       \
  STC_ADD(SHAPE, TYPES, INSTR, NAME, 1);                                       \
  STC_ADD(SHAPE, TYPES, INSTR, NAME, 2);                                       \
  STC_ADD(SHAPE, TYPES, INSTR, NAME, 3)
#define STC_ADD_F2(SHAPE, TYPES, INSTR, NAME)                                  \
  STC_ADD(SHAPE, TYPES, INSTR, NAME, 0);                                       \
  STC_ADD(SHAPE, TYPES, INSTR, NAME, 1)
#define STC_ADD_F1(SHAPE, TYPES, INSTR, NAME) STC_ADD(SHAPE, TYPES, INSTR, NAME, 0)

  using S = MmaSpShape;
  using E = MmaElem;
  STC_ADD_F4("m16n8k16", "f32.f16.f16.f32",
             (MmaSpInstr{S::M16N8K16B16, E::F16, E::F16, E::F32}), k16_f32_f16);
  STC_ADD_F4("m16n8k16", "f16.f16.f16.f16",
             (MmaSpInstr{S::M16N8K16B16, E::F16, E::F16, E::F16}), k16_f16_f16);
  STC_ADD_F4("m16n8k16", "f32.bf16.bf16.f32",
             (MmaSpInstr{S::M16N8K16B16, E::BF16, E::BF16, E::F32}),
             k16_f32_bf16);
  STC_ADD_F2("m16n8k32", "f32.f16.f16.f32",
             (MmaSpInstr{S::M16N8K32B16, E::F16, E::F16, E::F32}), k32_f32_f16);
  STC_ADD_F2("m16n8k32", "f16.f16.f16.f16",
             (MmaSpInstr{S::M16N8K32B16, E::F16, E::F16, E::F16}), k32_f16_f16);
  STC_ADD_F2("m16n8k32", "f32.bf16.bf16.f32",
             (MmaSpInstr{S::M16N8K32B16, E::BF16, E::BF16, E::F32}),
             k32_f32_bf16);
  STC_ADD_F4("m16n8k8", "f32.tf32.tf32.f32",
             (MmaSpInstr{S::M16N8K8TF32, E::TF32, E::TF32, E::F32}), k8_tf32);
  STC_ADD_F2("m16n8k16", "f32.tf32.tf32.f32",
             (MmaSpInstr{S::M16N8K16TF32, E::TF32, E::TF32, E::F32}), k16_tf32);
  STC_ADD_F2("m16n8k32", "s32.s8.s8.s32",
             (MmaSpInstr{S::M16N8K32I8, E::S8, E::S8, E::S32}), k32_s8_s8);
  STC_ADD_F2("m16n8k32", "s32.s8.u8.s32",
             (MmaSpInstr{S::M16N8K32I8, E::S8, E::U8, E::S32}), k32_s8_u8);
  STC_ADD_F2("m16n8k32", "s32.u8.s8.s32",
             (MmaSpInstr{S::M16N8K32I8, E::U8, E::S8, E::S32}), k32_u8_s8);
  STC_ADD_F2("m16n8k32", "s32.u8.u8.s32",
             (MmaSpInstr{S::M16N8K32I8, E::U8, E::U8, E::S32}), k32_u8_u8);
  STC_ADD_F1("m16n8k64", "s32.s8.s8.s32",
             (MmaSpInstr{S::M16N8K64I8, E::S8, E::S8, E::S32}), k64_s8_s8);
  STC_ADD_F1("m16n8k64", "s32.s8.u8.s32",
             (MmaSpInstr{S::M16N8K64I8, E::S8, E::U8, E::S32}), k64_s8_u8);
  STC_ADD_F1("m16n8k64", "s32.u8.s8.s32",
             (MmaSpInstr{S::M16N8K64I8, E::U8, E::S8, E::S32}), k64_u8_s8);
  STC_ADD_F1("m16n8k64", "s32.u8.u8.s32",
             (MmaSpInstr{S::M16N8K64I8, E::U8, E::U8, E::S32}), k64_u8_u8);
#undef STC_ADD
#undef STC_ADD_F4
#undef STC_ADD_F2
#undef STC_ADD_F1
  return cases;
}

std::string caseName(const Case &c) {
  return std::string("probe ") + c.shape + " " + c.types +
         " F=" + std::to_string(c.f) + " " + (c.ordered ? "ordered" : "plain");
}

//===----------------------------------------------------------------------===//
// Host side: data
//===----------------------------------------------------------------------===//

uint32_t floatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  return u;
}

float bitsFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
}

/// A data set: kIntsN = small non-zero integers (every sum exact in any
/// order), kRandomN = random mantissas / full-range integers.
enum class DataKind { Ints, Random };

struct DataSet {
  const char *name;
  DataKind kind;
  uint32_t seed;
};

const DataSet kDataSets[] = {{"ints#0", DataKind::Ints, 0x5eed0001u},
                             {"ints#1", DataKind::Ints, 0x5eed0002u},
                             {"random#0", DataKind::Random, 0x5eed0003u},
                             {"random#1", DataKind::Random, 0x5eed0004u}};

/// One A or B element's bits.
uint32_t genElement(MmaElem e, DataKind kind, std::mt19937 &rng) {
  uint32_t r = rng();
  uint32_t sign = (r >> 31) & 1u;
  if (kind == DataKind::Ints) {
    // +-1..4 (u8: 1..4): never zero, so every misplaced element shows.
    int v = int(r % 4u) + 1;
    if (e != MmaElem::U8 && sign)
      v = -v;
    switch (e) {
    case MmaElem::F16:
      return stc::format::floatToF16(float(v));
    case MmaElem::BF16:
      return floatBits(float(v)) >> 16;
    case MmaElem::TF32:
      return floatBits(float(v));
    default:
      return uint32_t(uint8_t(int8_t(v)));
    }
  }
  uint32_t exp3 = (r >> 24) % 3u; // magnitudes in [0.5, 4)
  switch (e) {
  case MmaElem::F16:
    return (sign << 15) | ((14u + exp3) << 10) | (r & 0x3FFu);
  case MmaElem::BF16:
    return (sign << 15) | ((126u + exp3) << 7) | (r & 0x7Fu);
  case MmaElem::TF32:
    // Random low 13 bits too: the model assumes they are ignored.
    return (sign << 31) | ((126u + exp3) << 23) | (r & 0x7FFFFFu);
  default:
    return r & 0xFFu;
  }
}

/// One accumulator element's bits (f16: 16 bits).
uint32_t genAccumulator(MmaElem c, DataKind kind, std::mt19937 &rng) {
  uint32_t r = rng();
  uint32_t sign = (r >> 31) & 1u;
  if (kind == DataKind::Ints) {
    int v = int(r % 17u) - 8;
    switch (c) {
    case MmaElem::F16:
      return stc::format::floatToF16(float(v));
    case MmaElem::F32:
      return floatBits(float(v));
    default:
      return uint32_t(v);
    }
  }
  uint32_t exp4 = (r >> 24) % 4u; // magnitudes in [0.5, 8)
  switch (c) {
  case MmaElem::F16:
    return (sign << 15) | ((14u + exp4) << 10) | (r & 0x3FFu);
  case MmaElem::F32:
    return (sign << 31) | ((126u + exp4) << 23) | (r & 0x7FFFFFu);
  default:
    return rng(); // full range: the sum wraps modulo 2^32
  }
}

/// Registers of `n` per lane holding elements of type `e`.
void fillRegisters(std::vector<uint32_t> &regs, int n, MmaElem e,
                   DataKind kind, std::mt19937 &rng, bool accumulator) {
  int bits = mmaSpElementBits(e);
  regs.assign(size_t(32 * n), 0);
  for (uint32_t &reg : regs)
    for (int slot = 0; slot < 32 / bits; ++slot) {
      uint32_t v = accumulator ? genAccumulator(e, kind, rng)
                               : genElement(e, kind, rng);
      reg |= (bits == 32 ? v : (v & ((1u << bits) - 1))) << (bits * slot);
    }
}

MmaSpFragments makeFragments(const Case &c, const DataSet &ds) {
  std::mt19937 rng(ds.seed ^ (uint32_t(c.instr.shape) * 0x9E3779B9u) ^
                   (uint32_t(c.instr.a) << 8) ^ (uint32_t(c.instr.b) << 12) ^
                   (uint32_t(c.instr.c) << 16) ^ (uint32_t(c.f) << 20) ^
                   (c.ordered ? 0x01000000u : 0u));
  MmaSpFragments in;
  fillRegisters(in.a, stc::emu::mmaSpARegs(c.instr), c.instr.a, ds.kind, rng,
                false);
  fillRegisters(in.b, stc::emu::mmaSpBRegs(c.instr), c.instr.b, ds.kind, rng,
                false);
  fillRegisters(in.c, stc::emu::mmaSpCRegs(c.instr), c.instr.c, ds.kind, rng,
                true);
  const bool tf32 = c.instr.a == MmaElem::TF32;
  static const uint32_t kNibbles24[] = {0x4, 0x8, 0xC, 0x9, 0xD, 0xE};
  static const uint32_t kNibbles12[] = {0x4, 0xE};
  for (int lane = 0; lane < 32; ++lane) {
    if (!mmaSpIsMetadataLane(c.instr.shape, lane, c.f)) {
      in.e[size_t(lane)] = rng(); // garbage: must be ignored
      continue;
    }
    uint32_t word = 0;
    for (int p = 0; p < 8; ++p)
      word |= (tf32 ? kNibbles12[rng() % 2u] : kNibbles24[rng() % 6u])
              << (4 * p);
    in.e[size_t(lane)] = word;
  }
  return in;
}

/// The fragments with every float element's sign cleared (for the magnitude
/// bound |C| + sum |a*b|); integer types unchanged.
MmaSpFragments magnitudes(const MmaSpInstr &instr, MmaSpFragments in) {
  auto mask = [](MmaElem e) -> uint32_t {
    switch (e) {
    case MmaElem::F16:
    case MmaElem::BF16:
      return 0x7FFF7FFFu;
    case MmaElem::TF32:
    case MmaElem::F32:
      return 0x7FFFFFFFu;
    default:
      return 0xFFFFFFFFu;
    }
  };
  for (uint32_t &r : in.a)
    r &= mask(instr.a);
  for (uint32_t &r : in.b)
    r &= mask(instr.b);
  for (uint32_t &r : in.c)
    r &= mask(instr.c);
  return in;
}

/// Element `i` (0..3) of lane `lane`'s D as a double, and its bits.
double dValue(const MmaSpInstr &instr, const std::vector<uint32_t> &d,
              int lane, int i, uint32_t *bits) {
  if (instr.c == MmaElem::F16) {
    uint32_t h = (d[size_t(lane * 2 + i / 2)] >> (16 * (i % 2))) & 0xFFFFu;
    *bits = h;
    return double(stc::format::f16ToFloat(uint16_t(h)));
  }
  uint32_t w = d[size_t(lane * 4 + i)];
  *bits = w;
  if (instr.c == MmaElem::S32)
    return double(int32_t(w));
  return double(bitsFloat(w));
}

/// Compares the GPU's D with the model's; on the first difference writes a
/// message and returns false.
bool compareD(const Case &c, const DataSet &ds, const std::vector<uint32_t> &gpu,
              const MmaSpResult &model, const MmaSpResult &mag,
              std::string &message) {
  const bool exact = c.instr.c == MmaElem::S32 || ds.kind == DataKind::Ints;
  const double rel = c.instr.c == MmaElem::F16 ? 1e-2 : 1e-5;
  for (int lane = 0; lane < 32; ++lane)
    for (int i = 0; i < 4; ++i) {
      uint32_t gBits = 0, mBits = 0, magBits = 0;
      double g = dValue(c.instr, gpu, lane, i, &gBits);
      double m = dValue(c.instr, model.d, lane, i, &mBits);
      bool ok;
      double tol = 0;
      if (c.instr.c == MmaElem::S32) {
        ok = gBits == mBits;
      } else if (exact) {
        ok = g == m; // +0 == -0
      } else {
        tol = rel * dValue(c.instr, mag.d, lane, i, &magBits);
        ok = std::isfinite(g) && std::fabs(g - m) <= tol;
      }
      if (ok)
        continue;
      int regs = stc::emu::mmaSpCRegs(c.instr);
      int reg = regs == 2 ? i / 2 : i;
      char buf[256];
      std::snprintf(buf, sizeof(buf),
                    "data %s, lane %d d%d (reg %d%s, row %d col %d): gpu %.9g "
                    "(0x%x) model %.9g (0x%x)",
                    ds.name, lane, i, reg,
                    regs == 2 ? (i % 2 ? " hi" : " lo") : "",
                    i < 2 ? lane / 4 : lane / 4 + 8, (lane % 4) * 2 + (i & 1),
                    g, gBits, m, mBits);
      message = buf;
      if (!exact) {
        std::snprintf(buf, sizeof(buf), " tol %.3g", tol);
        message += buf;
      }
      return false;
    }
  return true;
}

//===----------------------------------------------------------------------===//
// GPU run
//===----------------------------------------------------------------------===//

#define STC_CUDA_CHECK(CALL, WHAT)                                             \
  do {                                                                         \
    cudaError_t err_ = (CALL);                                                 \
    if (err_ != cudaSuccess) {                                                 \
      std::fprintf(stderr, "mma_sp_probe: %s: %s\n", WHAT,                     \
                   cudaGetErrorString(err_));                                  \
      return 2;                                                                \
    }                                                                          \
  } while (0)

int runOnGpu() {
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    std::fprintf(stderr, "mma_sp_probe: no CUDA device (%s)\n",
                 err != cudaSuccess ? cudaGetErrorString(err) : "count 0");
    return 2;
  }
  cudaDeviceProp prop;
  STC_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  std::printf("probe: device %s sm_%d%d\n", prop.name, prop.major, prop.minor);
  if (prop.major < 8) {
    std::fprintf(stderr, "mma_sp_probe: mma.sp needs sm_80 or later\n");
    return 2;
  }
  std::fflush(stdout);
  unsigned *dA = nullptr, *dB = nullptr, *dC = nullptr, *dE = nullptr,
           *dD = nullptr;
  STC_CUDA_CHECK(cudaMalloc(&dA, 32 * 4 * sizeof(unsigned)), "cudaMalloc");
  STC_CUDA_CHECK(cudaMalloc(&dB, 32 * 4 * sizeof(unsigned)), "cudaMalloc");
  STC_CUDA_CHECK(cudaMalloc(&dC, 32 * 4 * sizeof(unsigned)), "cudaMalloc");
  STC_CUDA_CHECK(cudaMalloc(&dE, 32 * sizeof(unsigned)), "cudaMalloc");
  STC_CUDA_CHECK(cudaMalloc(&dD, 32 * 4 * sizeof(unsigned)), "cudaMalloc");

  int cases = 0, mismatches = 0, skipped = 0;
  for (const Case &c : allCases()) {
    const std::string name = caseName(c);
    if (!c.kernel) {
      std::printf("%s: SKIPPED (built without PTX ISA 8.5)\n", name.c_str());
      ++skipped;
      continue;
    }
    ++cases;
    std::string message;
    bool ok = true;
    for (const DataSet &ds : kDataSets) {
      MmaSpFragments in = makeFragments(c, ds);
      MmaSpResult model = stc::emu::runMmaSp(c.instr, in, c.f);
      MmaSpResult mag =
          stc::emu::runMmaSp(c.instr, magnitudes(c.instr, in), c.f);
      if (!model.ok || !mag.ok) {
        message = std::string("data ") + ds.name + ": model error: " +
                  (model.ok ? mag.error : model.error);
        ok = false;
        break;
      }
      const size_t dWords = size_t(32 * stc::emu::mmaSpCRegs(c.instr));
      STC_CUDA_CHECK(cudaMemcpy(dA, in.a.data(), in.a.size() * 4,
                                cudaMemcpyHostToDevice),
                     "cudaMemcpy A");
      STC_CUDA_CHECK(cudaMemcpy(dB, in.b.data(), in.b.size() * 4,
                                cudaMemcpyHostToDevice),
                     "cudaMemcpy B");
      STC_CUDA_CHECK(cudaMemcpy(dC, in.c.data(), in.c.size() * 4,
                                cudaMemcpyHostToDevice),
                     "cudaMemcpy C");
      STC_CUDA_CHECK(cudaMemcpy(dE, in.e.data(), 32 * 4,
                                cudaMemcpyHostToDevice),
                     "cudaMemcpy E");
      STC_CUDA_CHECK(cudaMemset(dD, 0xFF, 32 * 4 * sizeof(unsigned)),
                     "cudaMemset D");
      c.kernel<<<1, 32>>>(dA, dB, dC, dE, dD);
      cudaError_t launch = cudaGetLastError();
      if (launch == cudaSuccess)
        launch = cudaDeviceSynchronize();
      if (launch != cudaSuccess) {
        // A failed kernel may leave the context unusable: stop here.
        std::printf("%s: MISMATCH data %s: kernel failed: %s\n", name.c_str(),
                    ds.name, cudaGetErrorString(launch));
        ++mismatches;
        std::printf("probe: %d cases, %d mismatches (stopped early)\n", cases,
                    mismatches);
        return 1;
      }
      std::vector<uint32_t> gpu(dWords);
      STC_CUDA_CHECK(cudaMemcpy(gpu.data(), dD, dWords * 4,
                                cudaMemcpyDeviceToHost),
                     "cudaMemcpy D");
      if (!compareD(c, ds, gpu, model, mag, message)) {
        ok = false;
        break;
      }
    }
    if (ok) {
      std::printf("%s: OK\n", name.c_str());
    } else {
      std::printf("%s: MISMATCH %s\n", name.c_str(), message.c_str());
      ++mismatches;
    }
  }
  cudaFree(dA);
  cudaFree(dB);
  cudaFree(dC);
  cudaFree(dE);
  cudaFree(dD);
  std::printf("probe: %d cases, %d mismatches", cases, mismatches);
  if (skipped)
    std::printf(", %d skipped", skipped);
  std::printf("\n");
  return mismatches ? 1 : 0;
}

//===----------------------------------------------------------------------===//
// Self-check (no GPU): the model against hand-computed answers
//===----------------------------------------------------------------------===//
//
// Each check builds registers directly from the PTX ISA's fragment formulas
// (lane = 4g + t) with one-hot or structured data, and states D by hand.

struct SelfCheck {
  int checks = 0;
  int failures = 0;

  void report(const std::string &name, bool ok, const std::string &why) {
    ++checks;
    if (ok) {
      std::printf("self-check %s: OK\n", name.c_str());
    } else {
      ++failures;
      std::printf("self-check %s: FAILED %s\n", name.c_str(), why.c_str());
    }
  }

  /// Runs the model and compares every D element (as value, f16 accumulators
  /// per half) with expected(lane, i).
  template <typename Expected>
  void expect(const std::string &name, const MmaSpInstr &instr,
              const MmaSpFragments &in, int f, Expected expected) {
    MmaSpResult r = stc::emu::runMmaSp(instr, in, f);
    if (!r.ok) {
      report(name, false, "model error: " + r.error);
      return;
    }
    for (int lane = 0; lane < 32; ++lane)
      for (int i = 0; i < 4; ++i) {
        uint32_t bits = 0;
        double got = dValue(instr, r.d, lane, i, &bits);
        double want = expected(lane, i);
        if (got != want) {
          char buf[160];
          std::snprintf(buf, sizeof(buf), "lane %d d%d: model %.9g, expected %.9g",
                        lane, i, got, want);
          report(name, false, buf);
          return;
        }
      }
    report(name, true, "");
  }
};

uint32_t f16(float v) { return stc::format::floatToF16(v); }
uint32_t pack16(uint32_t lo, uint32_t hi) { return (lo & 0xFFFFu) | (hi << 16); }
uint32_t pack8(const int v[4]) {
  uint32_t r = 0;
  for (int j = 0; j < 4; ++j)
    r |= uint32_t(uint8_t(int8_t(v[j]))) << (8 * j);
  return r;
}

MmaSpFragments emptyFragments(const MmaSpInstr &instr) {
  MmaSpFragments in;
  in.a.assign(size_t(32 * stc::emu::mmaSpARegs(instr)), 0);
  in.b.assign(size_t(32 * stc::emu::mmaSpBRegs(instr)), 0);
  in.c.assign(size_t(32 * stc::emu::mmaSpCRegs(instr)), 0);
  in.e.fill(0xFFFFFFFFu); // illegal everywhere; the selected lanes are set
  return in;
}

/// D row of element i of lane (ISA 9.7.14.5.x: c0, c1 row g, c2, c3 row
/// g + 8; column 2t + (i & 1)).
int dRow(int lane, int i) { return lane / 4 + (i < 2 ? 0 : 8); }
int dCol(int lane, int i) { return (lane % 4) * 2 + (i & 1); }

int runSelfCheck() {
  using S = MmaSpShape;
  using E = MmaElem;
  SelfCheck sc;

  // 1. m16n8k16 f16 (f32, f16 accumulators; bf16), F = 2: all A = 1,
  //    B[k][n] = k + 1 (dense m16n8k16 B: k = 2t + j + 8*reg, n = g), and the
  //    metadata of lanes t == 2: bits 15:0 (row g) 0x4444 keep columns 0, 1
  //    of every chunk, bits 31:16 (row g+8) 0xEEEE keep 2, 3.  Row g sums
  //    1+2+5+6+9+10+13+14 = 60, row g+8 3+4+7+8+11+12+15+16 = 76.
  for (E acc : {E::F32, E::F16}) {
    for (E ab : {E::F16, E::BF16}) {
      if (acc == E::F16 && ab == E::BF16)
        continue;
      MmaSpInstr instr{S::M16N8K16B16, ab, ab, acc};
      MmaSpFragments in = emptyFragments(instr);
      auto elem = [&](float v) {
        return ab == E::F16 ? f16(v) : (floatBits(v) >> 16);
      };
      for (uint32_t &r : in.a)
        r = pack16(elem(1.0f), elem(1.0f));
      for (int lane = 0; lane < 32; ++lane) {
        int t = lane % 4;
        for (int reg = 0; reg < 2; ++reg)
          in.b[size_t(lane * 2 + reg)] =
              pack16(elem(float(2 * t + 8 * reg + 1)),
                     elem(float(2 * t + 1 + 8 * reg + 1)));
        if (t == 2)
          in.e[size_t(lane)] = 0xEEEE4444u;
      }
      std::string name = std::string("m16n8k16.") +
                         (acc == E::F32 ? "f32" : "f16") + "." +
                         (ab == E::F16 ? "f16" : "bf16") +
                         " F=2 row halves";
      sc.expect(name, instr, in, 2,
                [](int, int i) { return i < 2 ? 60.0 : 76.0; });
    }
  }

  // 2. m16n8k16.f32.f16, F = 0, one-hot A: lane 1 (g 0, t 1) a3 (reg 1 hi)
  //    = 1: row 8 (a2, a3 are row g+8), firstcol 4t = 4 -> chunk 1, second
  //    kept element.  Metadata lane 0 bits 31:16 (row 8) = 0x44D4: nibble 1
  //    (chunk 1) = 0xD -> indices 1, 3; the second is column 4 + 3 = 7.
  //    B[k][n] = 16k + n + 1, so D[8][n] = 113 + n, all else 0.
  {
    MmaSpInstr instr{S::M16N8K16B16, E::F16, E::F16, E::F32};
    MmaSpFragments in = emptyFragments(instr);
    in.a[size_t(1 * 2 + 1)] = pack16(0, f16(1.0f));
    for (int lane = 0; lane < 32; ++lane) {
      int g = lane / 4, t = lane % 4;
      for (int reg = 0; reg < 2; ++reg) {
        int k0 = 2 * t + 8 * reg;
        in.b[size_t(lane * 2 + reg)] = pack16(f16(float(16 * k0 + g + 1)),
                                              f16(float(16 * (k0 + 1) + g + 1)));
      }
      if (t == 0)
        in.e[size_t(lane)] = lane == 0 ? 0x44D44444u : 0x44444444u;
    }
    sc.expect("m16n8k16.f32.f16 F=0 one-hot A (row 8, col 7)", instr, in, 0,
              [](int lane, int i) {
                return dRow(lane, i) == 8 ? 113.0 + dCol(lane, i) : 0.0;
              });
  }

  // 3. m16n8k32.f32.f16, F = 1 (lanes t = 2: chunks 0..3, t = 3: chunks
  //    4..7), one-hot A: lane 14 (g 3, t 2) a6 (reg 3 lo) = 1: row g+8 = 11
  //    (a2, a3, a6, a7), firstcol 4t + 16 = 24 -> chunk 6, first kept.  Its
  //    metadata: lane 15 (g 3, t 3), bits 31:16, nibble 6 (chunk 4 + 2) =
  //    0x9 -> indices 1, 2; column 24 + 1 = 25.  B (k = 2t + j + 8*reg)
  //    B[k][n] = k + 32n + 1, so D[11][n] = 26 + 32n.
  {
    MmaSpInstr instr{S::M16N8K32B16, E::F16, E::F16, E::F32};
    MmaSpFragments in = emptyFragments(instr);
    in.a[size_t(14 * 4 + 3)] = pack16(f16(1.0f), 0);
    for (int lane = 0; lane < 32; ++lane) {
      int g = lane / 4, t = lane % 4;
      for (int reg = 0; reg < 4; ++reg) {
        int k0 = 2 * t + 8 * reg;
        in.b[size_t(lane * 4 + reg)] = pack16(f16(float(k0 + 32 * g + 1)),
                                              f16(float(k0 + 1 + 32 * g + 1)));
      }
      if (t / 2 == 1)
        in.e[size_t(lane)] = lane == 15 ? 0x49444444u : 0x44444444u;
    }
    sc.expect("m16n8k32.f32.f16 F=1 one-hot A (row 11, col 25)", instr, in, 1,
              [](int lane, int i) {
                return dRow(lane, i) == 11 ? 26.0 + 32 * dCol(lane, i) : 0.0;
              });
  }

  // 4. m16n8k8.tf32, F = 3, one-hot A: lane 23 (g 5, t 3) a0 = 1.0 with all
  //    13 low bits set (0x3F801FFF: ignored -> exactly 1): row 5, firstcol
  //    2t = 6 -> chunk 3.  Metadata lane 23 bits 15:0 nibble 3 = 0xE ->
  //    element 1 -> column 7.  B (k = t + 4*reg) B[k][n] = k + 8n + 1, so
  //    D[5][n] = 8 + 8n.
  {
    MmaSpInstr instr{S::M16N8K8TF32, E::TF32, E::TF32, E::F32};
    MmaSpFragments in = emptyFragments(instr);
    in.a[size_t(23 * 2 + 0)] = 0x3F801FFFu;
    for (int lane = 0; lane < 32; ++lane) {
      int g = lane / 4, t = lane % 4;
      for (int reg = 0; reg < 2; ++reg)
        in.b[size_t(lane * 2 + reg)] = floatBits(float(t + 4 * reg + 8 * g + 1));
      if (t == 3)
        in.e[size_t(lane)] = lane == 23 ? 0x4444E444u : 0x44444444u;
    }
    sc.expect("m16n8k8.tf32 F=3 one-hot A (row 5, col 7), low bits ignored",
              instr, in, 3, [](int lane, int i) {
                return dRow(lane, i) == 5 ? 8.0 + 8 * dCol(lane, i) : 0.0;
              });
  }

  // 5. m16n8k16.tf32, F = 0 (lanes t = 0: chunks 0..3 = columns 0..7,
  //    t = 1: chunks 4..7), one-hot A: lane 2 (g 0, t 2) a3 = 1: row 8 (a1,
  //    a3), firstcol 2t + 8 = 12 -> chunk 6.  Metadata lane 1 (t 1) bits
  //    31:16 nibble 6 (chunk 4 + 2) = 0xE -> column 13.  B (k = t + 4*reg)
  //    B[k][n] = k + 16n + 1, so D[8][n] = 14 + 16n.
  {
    MmaSpInstr instr{S::M16N8K16TF32, E::TF32, E::TF32, E::F32};
    MmaSpFragments in = emptyFragments(instr);
    in.a[size_t(2 * 4 + 3)] = floatBits(1.0f);
    for (int lane = 0; lane < 32; ++lane) {
      int g = lane / 4, t = lane % 4;
      for (int reg = 0; reg < 4; ++reg)
        in.b[size_t(lane * 4 + reg)] = floatBits(float(t + 4 * reg + 16 * g + 1));
      if (t / 2 == 0)
        in.e[size_t(lane)] = lane == 1 ? 0x4E444444u : 0x44444444u;
    }
    sc.expect("m16n8k16.tf32 F=0 one-hot A (row 8, col 13)", instr, in, 0,
              [](int lane, int i) {
                return dRow(lane, i) == 8 ? 14.0 + 16 * dCol(lane, i) : 0.0;
              });
  }

  // 6. m16n8k32.s32.s8.s8, F = 1 (*probe* mapping: lane t = 2 row g, t = 3
  //    row g + 8, all 8 chunks, chunk p in nibble p), one-hot A: lane 3
  //    (g 0, t 3) a7 (reg 1, byte 3) = -3: row 8 (a4..a7), firstcol 8t = 24,
  //    byte 3 -> chunk 7, second kept.  Metadata lane 3 nibble 7 = 0xD ->
  //    indices 1, 3; column 28 + 3 = 31.  B (k = 4t + j + 16*reg)
  //    B[k][n] = k + 4n - 20; C = 1000.  D[8][n] = 1000 - 3 (11 + 4n).
  {
    MmaSpInstr instr{S::M16N8K32I8, E::S8, E::S8, E::S32};
    MmaSpFragments in = emptyFragments(instr);
    const int a[4] = {0, 0, 0, -3};
    in.a[size_t(3 * 2 + 1)] = pack8(a);
    for (uint32_t &c : in.c)
      c = 1000u;
    for (int lane = 0; lane < 32; ++lane) {
      int g = lane / 4, t = lane % 4;
      for (int reg = 0; reg < 2; ++reg) {
        int v[4];
        for (int j = 0; j < 4; ++j)
          v[j] = 4 * t + j + 16 * reg + 4 * g - 20;
        in.b[size_t(lane * 2 + reg)] = pack8(v);
      }
      if (t / 2 == 1)
        in.e[size_t(lane)] = lane == 3 ? 0xD4444444u : 0x44444444u;
    }
    sc.expect("m16n8k32.s32.s8.s8 F=1 one-hot A (row 8, col 31)", instr, in, 1,
              [](int lane, int i) {
                return dRow(lane, i) == 8 ? 1000.0 - 3 * (11 + 4 * dCol(lane, i))
                                          : 1000.0;
              });
  }

  // 7. m16n8k64.s32.u8.s8, F = 0 (*probe* mapping: all lanes; t % 2 picks
  //    row g / g + 8, t / 2 columns 0..31 / 32..63), one-hot A: lane 29
  //    (g 7, t 1) a13 (reg 3, byte 1) = 200: row 15 (a4..a7, a12..a15),
  //    firstcol 8t + 32 = 40, byte 1 -> chunk 10, second kept.  Metadata
  //    lane 31 (g 7, t 3) nibble 10 - 8 = 2 = 0x8 -> indices 0, 2; column
  //    40 + 2 = 42.  B (k = 4t + j + 16*reg) B[k][n] = k + n - 30; C = -7.
  //    D[15][n] = -7 + 200 (12 + n).
  {
    MmaSpInstr instr{S::M16N8K64I8, E::U8, E::S8, E::S32};
    MmaSpFragments in = emptyFragments(instr);
    in.a[size_t(29 * 4 + 3)] = 200u << 8;
    for (uint32_t &c : in.c)
      c = uint32_t(-7);
    for (int lane = 0; lane < 32; ++lane) {
      int g = lane / 4, t = lane % 4;
      for (int reg = 0; reg < 4; ++reg) {
        int v[4];
        for (int j = 0; j < 4; ++j)
          v[j] = 4 * t + j + 16 * reg + g - 30;
        in.b[size_t(lane * 4 + reg)] = pack8(v);
      }
      in.e[size_t(lane)] = lane == 31 ? 0x44444844u : 0x44444444u;
    }
    sc.expect("m16n8k64.s32.u8.s8 F=0 one-hot A (row 15, col 42)", instr, in,
              0, [](int lane, int i) {
                return dRow(lane, i) == 15 ? -7.0 + 200 * (12 + dCol(lane, i))
                                           : -7.0;
              });
  }

  // 8. An illegal nibble in a lane the selector reads is a model error.
  {
    MmaSpInstr instr{S::M16N8K32B16, E::F16, E::F16, E::F32};
    MmaSpFragments in = emptyFragments(instr);
    for (int lane = 0; lane < 32; ++lane)
      in.e[size_t(lane)] = 0x44444444u;
    in.e[5] = 0x44444434u; // lane 5 (t 1): read by F = 0
    MmaSpResult r = stc::emu::runMmaSp(instr, in, 0);
    sc.report("illegal nibble in a selected lane is rejected", !r.ok,
              "the model accepted nibble 0x3");
    MmaSpResult r1 = stc::emu::runMmaSp(instr, in, 1);
    sc.report("illegal nibble in an unselected lane is ignored", r1.ok,
              r1.error);
  }

  // 9. Every probe case's data is accepted by the model, and the magnitude
  //    bound is at least |D|.
  int cases = 0, ordered = 0, compiled = 0, bad = 0;
  std::string firstBad;
  for (const Case &c : allCases()) {
    ++cases;
    ordered += c.ordered;
    compiled += c.kernel != nullptr;
    for (const DataSet &ds : kDataSets) {
      MmaSpFragments in = makeFragments(c, ds);
      MmaSpResult model = stc::emu::runMmaSp(c.instr, in, c.f);
      MmaSpResult mag =
          stc::emu::runMmaSp(c.instr, magnitudes(c.instr, in), c.f);
      bool ok = model.ok && mag.ok;
      if (ok && c.instr.c != MmaElem::S32)
        for (int lane = 0; lane < 32 && ok; ++lane)
          for (int i = 0; i < 4 && ok; ++i) {
            uint32_t b0, b1;
            double v = dValue(c.instr, model.d, lane, i, &b0);
            double m = dValue(c.instr, mag.d, lane, i, &b1);
            ok = std::isfinite(v) && std::fabs(v) <= m * (1 + 1e-3);
          }
      if (!ok && bad++ == 0)
        firstBad = caseName(c) + " data " + ds.name + ": " +
                   (model.ok ? mag.error : model.error);
    }
  }
  char buf[160];
  std::snprintf(buf, sizeof(buf),
                "cases prepared (%d cases, %d ordered, %d compiled in)", cases,
                ordered, compiled);
  sc.report(buf, bad == 0, firstBad);

  std::printf("self-check: %d checks, %d failures\n", sc.checks, sc.failures);
  return sc.failures ? 1 : 0;
}

} // namespace

int main(int argc, char **argv) {
  if (argc == 2 && std::strcmp(argv[1], "--self-check") == 0)
    return runSelfCheck();
  if (argc != 1) {
    std::fprintf(stderr, "usage: %s [--self-check]\n", argv[0]);
    return 2;
  }
  return runOnGpu();
}
