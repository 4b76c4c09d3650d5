//===- StcGpuEmulatorMma.cpp - the emulated MMA instructions ----*- C++ -*-===//
//
// The warp and warpgroup instructions of the emulator (stc_gpu_emulator.h):
// mma.sp (and the dense mma.sync), ldmatrix and cp.async for the sm_80
// kernels, wgmma.mma_async.sp
// for the sm_90a kernel.  The threads of a warp (warpgroup) meet at each
// instruction; the last to arrive runs MmaSpModel (WgmmaSpModel) for all.
//
//===----------------------------------------------------------------------===//

#include "runtime/emulator/MmaModel.h"
#include "runtime/emulator/MmaSpModel.h"
#include "runtime/emulator/StcGpuEmulatorState.h"
#include "runtime/emulator/WgmmaSpModel.h"
#include "runtime/emulator/stc_gpu_emulator.h"

#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

using namespace stc::emu;

//===----------------------------------------------------------------------===//
// mma.sp, ldmatrix, cp.async
//===----------------------------------------------------------------------===//

namespace {

/// The instruction of an stc_emu_mma_sp input_kind (stc_gpu_emulator.h), or
/// false for an unknown kind.
bool instrOfKind(int32_t inputKind, MmaSpInstr &instr) {
  using stc::format::MmaSpShape;
  auto integer = [&](MmaSpShape shape, MmaElem a, MmaElem b) {
    instr = {shape, a, b, MmaElem::S32};
    return true;
  };
  switch (static_cast<StcEmuMmaSpKind>(inputKind)) {
  case STC_EMU_MMA_SP_M16N8K32_F32_F16:
    instr = {MmaSpShape::M16N8K32B16, MmaElem::F16, MmaElem::F16, MmaElem::F32};
    return true;
  case STC_EMU_MMA_SP_M16N8K32_F32_BF16:
    instr = {MmaSpShape::M16N8K32B16, MmaElem::BF16, MmaElem::BF16,
             MmaElem::F32};
    return true;
  case STC_EMU_MMA_SP_M16N8K16_F32_TF32:
    instr = {MmaSpShape::M16N8K16TF32, MmaElem::TF32, MmaElem::TF32,
             MmaElem::F32};
    return true;
  case STC_EMU_MMA_SP_M16N8K32_F16_F16:
    instr = {MmaSpShape::M16N8K32B16, MmaElem::F16, MmaElem::F16, MmaElem::F16};
    return true;
  case STC_EMU_MMA_SP_M16N8K64_S32_S8_S8:
    return integer(MmaSpShape::M16N8K64I8, MmaElem::S8, MmaElem::S8);
  case STC_EMU_MMA_SP_M16N8K32_S32_S8_S8:
    return integer(MmaSpShape::M16N8K32I8, MmaElem::S8, MmaElem::S8);
  case STC_EMU_MMA_SP_M16N8K64_S32_U8_U8:
    return integer(MmaSpShape::M16N8K64I8, MmaElem::U8, MmaElem::U8);
  case STC_EMU_MMA_SP_M16N8K32_S32_U8_U8:
    return integer(MmaSpShape::M16N8K32I8, MmaElem::U8, MmaElem::U8);
  case STC_EMU_MMA_SP_M16N8K64_S32_S8_U8:
    return integer(MmaSpShape::M16N8K64I8, MmaElem::S8, MmaElem::U8);
  case STC_EMU_MMA_SP_M16N8K32_S32_S8_U8:
    return integer(MmaSpShape::M16N8K32I8, MmaElem::S8, MmaElem::U8);
  case STC_EMU_MMA_SP_M16N8K64_S32_U8_S8:
    return integer(MmaSpShape::M16N8K64I8, MmaElem::U8, MmaElem::S8);
  case STC_EMU_MMA_SP_M16N8K32_S32_U8_S8:
    return integer(MmaSpShape::M16N8K32I8, MmaElem::U8, MmaElem::S8);
  }
  return false;
}

} // namespace

namespace {

/// The rendezvous of a warp at one mma instruction: each lane deposits its
/// registers (`aRegs`, `bRegs`, `cRegs` words; `meta`), the last to arrive
/// runs `execute` on all of them, and each lane takes its `cRegs` result
/// words. `inputKind` and `selector` must agree across the lanes.
template <typename Execute>
void warpMma(const char *what, int32_t inputKind, int32_t selector,
             const int32_t *a, int aRegs, const int32_t *b, int bRegs,
             const float *c, int cRegs, int32_t meta, float *d,
             Execute execute) {
  Warp *warp = currentWarp;
  if (!warp)
    fail(std::string(what) + " called outside stc_emu_launch");
  int lane = currentLane;
  std::unique_lock<std::mutex> lock(warp->mutex);
  if (warp->arrived == 0) {
    warp->inputKind = inputKind;
    warp->selector = selector;
    warp->in.a.assign(size_t(32 * aRegs), 0);
    warp->in.b.assign(size_t(32 * bRegs), 0);
    warp->in.c.assign(size_t(32 * cRegs), 0);
  } else if (warp->inputKind != inputKind || warp->selector != selector) {
    fail(std::string("the lanes of a warp disagree on the ") + what +
         "'s type or selector");
  }
  for (int i = 0; i < aRegs; ++i)
    warp->in.a[lane * aRegs + i] = static_cast<uint32_t>(a[i]);
  for (int i = 0; i < bRegs; ++i)
    warp->in.b[lane * bRegs + i] = static_cast<uint32_t>(b[i]);
  for (int i = 0; i < cRegs; ++i) {
    uint32_t bits;
    std::memcpy(&bits, &c[i], 4);
    warp->in.c[lane * cRegs + i] = bits;
  }
  warp->in.e[lane] = static_cast<uint32_t>(meta);
  uint64_t generation = warp->generation;
  if (++warp->arrived == 32) {
    MmaSpResult result = execute(warp->in);
    if (!result.ok)
      fail(result.error);
    warp->d = std::move(result.d);
    warp->arrived = 0;
    ++warp->generation;
    warp->done.notify_all();
  } else {
    warp->done.wait(lock, [&] { return warp->generation != generation; });
  }
  for (int i = 0; i < cRegs; ++i)
    std::memcpy(&d[i], &warp->d[lane * cRegs + i], 4);
}

} // namespace

extern "C" void stc_emu_mma_sp(int32_t inputKind, int32_t ordered,
                               const int32_t *a, const int32_t *b,
                               const float *c, int32_t meta, int32_t selector,
                               float *d) {
  (void)ordered; // The model is of the ordered form; the plain form reads
                 // the same metadata for the legal (increasing) nibbles.
  MmaSpInstr instr;
  if (!instrOfKind(inputKind, instr))
    fail("mma.sp of unknown input_kind " + std::to_string(inputKind));
  // Registers per lane: A and B by shape; C and D 4 words (f32 or s32), or
  // 2 f16x2 words for f16 accumulators.
  warpMma("mma.sp", inputKind, selector, a, mmaSpARegs(instr), b,
          mmaSpBRegs(instr), c, mmaSpCRegs(instr), meta, d,
          [&](const MmaSpFragments &in) {
            MmaSpResult result = runMmaSp(instr, in, selector);
            if (!result.ok)
              result.error = mmaSpInstrName(instr) + ": " + result.error;
            return result;
          });
}

extern "C" void stc_emu_mma(int32_t inputKind, const int32_t *a,
                            const int32_t *b, const float *c, float *d) {
  MmaElem ab, acc;
  switch (static_cast<StcEmuMmaKind>(inputKind)) {
  case STC_EMU_MMA_M16N8K16_F32_F16:
    ab = MmaElem::F16, acc = MmaElem::F32;
    break;
  case STC_EMU_MMA_M16N8K16_F32_BF16:
    ab = MmaElem::BF16, acc = MmaElem::F32;
    break;
  case STC_EMU_MMA_M16N8K16_F16_F16:
    ab = MmaElem::F16, acc = MmaElem::F16;
    break;
  default:
    fail("mma of unknown input_kind " + std::to_string(inputKind));
  }
  warpMma("mma", inputKind, 0, a, kMmaM16N8K16ARegs, b, kMmaM16N8K16BRegs, c,
          acc == MmaElem::F16 ? 2 : 4, 0, d, [&](const MmaSpFragments &in) {
            MmaSpResult result = runMmaM16N8K16(ab, acc, in);
            if (!result.ok)
              result.error = mmaM16N8K16Name(ab, acc) + ": " + result.error;
            return result;
          });
}

extern "C" void stc_emu_ldmatrix(const void *row, int32_t num, int32_t trans,
                                 int32_t *out) {
  Warp *warp = currentWarp;
  if (!warp)
    fail("ldmatrix called outside stc_emu_launch");
  if (num != 1 && num != 2 && num != 4)
    fail("ldmatrix .x" + std::to_string(num));
  int lane = currentLane;
  std::unique_lock<std::mutex> lock(warp->mutex);
  warp->rows[lane] = static_cast<const uint8_t *>(row);
  if (warp->arrived == 0) {
    warp->num = num;
    warp->trans = trans;
  } else if (warp->num != num || warp->trans != trans) {
    fail("the lanes of a warp disagree on an ldmatrix's shape");
  }
  uint64_t generation = warp->generation;
  if (++warp->arrived == 32) {
    // Matrix m's row r is at the address of lane 8m + r (8 b16 elements,
    // 16 bytes, which must be 16-byte aligned).
    for (int m = 0; m < num; ++m)
      for (int r = 0; r < 8; ++r)
        if (reinterpret_cast<uintptr_t>(warp->rows[8 * m + r]) % 16 != 0)
          fail("ldmatrix row address not 16-byte aligned");
    for (int l = 0; l < 32; ++l) {
      for (int m = 0; m < num; ++m) {
        uint16_t lo, hi;
        if (!warp->trans) {
          const uint8_t *r = warp->rows[8 * m + l / 4];
          std::memcpy(&lo, r + 4 * (l % 4), 2);
          std::memcpy(&hi, r + 4 * (l % 4) + 2, 2);
        } else {
          std::memcpy(&lo, warp->rows[8 * m + 2 * (l % 4)] + 2 * (l / 4), 2);
          std::memcpy(&hi, warp->rows[8 * m + 2 * (l % 4) + 1] + 2 * (l / 4),
                      2);
        }
        warp->words[l][m] = uint32_t(lo) | (uint32_t(hi) << 16);
      }
    }
    warp->arrived = 0;
    ++warp->generation;
    warp->done.notify_all();
  } else {
    warp->done.wait(lock, [&] { return warp->generation != generation; });
  }
  for (int m = 0; m < num; ++m)
    out[m] = static_cast<int32_t>(warp->words[lane][m]);
}

extern "C" void stc_emu_cp_async(void *dst, const void *src, int32_t size,
                                 int32_t srcSize) {
  if (srcSize < 0 || srcSize > size)
    fail("cp.async with src-size " + std::to_string(srcSize) +
         " of a copy of " + std::to_string(size) + " bytes");
  if (reinterpret_cast<uintptr_t>(dst) % size != 0 ||
      (srcSize > 0 && reinterpret_cast<uintptr_t>(src) % size != 0))
    fail("cp.async of " + std::to_string(size) +
         " bytes from or to a misaligned address");
  std::memcpy(dst, src, srcSize);
  std::memset(static_cast<uint8_t *>(dst) + srcSize, 0, size - srcSize);
}

//===----------------------------------------------------------------------===//
// wgmma.mma_async.sp
//===----------------------------------------------------------------------===//

namespace {

/// One thread's wgmma.mma_async.sp (dense: wgmma.mma_async, `sparse`
/// false, A from shared memory, meta and selector unused): A from its
/// registers `a`, or (a null) from shared memory through aDesc.
void wgmmaSp(bool sparse, int32_t kind, int32_t n, const int32_t *a,
             int64_t aDesc, int32_t transA, int64_t bDesc, int32_t meta,
             int32_t selector, int32_t scaleD, int32_t scaleA, int32_t scaleB,
             int32_t transB, const void *smem, int64_t smemBytes, float *d) {
  Warpgroup *wg = currentWarpgroup;
  if (!wg)
    fail("wgmma.mma_async.sp called outside stc_emu_launch");
  if (wg->threads != kWarpgroupThreads)
    fail("wgmma.mma_async.sp in a warpgroup of " + std::to_string(wg->threads) +
         " threads (the block's size is not a multiple of 128)");
  WgmmaSpInstr instr;
  instr.n = n;
  instr.sparse = sparse;
  switch (static_cast<StcEmuWgmmaSpKind>(kind)) {
  case STC_EMU_WGMMA_SP_F32_F16:
    instr.a = instr.b = MmaElem::F16;
    instr.d = MmaElem::F32;
    break;
  case STC_EMU_WGMMA_SP_F32_BF16:
    instr.a = instr.b = MmaElem::BF16;
    instr.d = MmaElem::F32;
    break;
  case STC_EMU_WGMMA_SP_F16_F16:
    instr.a = instr.b = MmaElem::F16;
    instr.d = MmaElem::F16;
    break;
  case STC_EMU_WGMMA_SP_S32_S8:
    instr.a = instr.b = MmaElem::S8;
    instr.d = MmaElem::S32;
    break;
  default:
    fail("wgmma.mma_async.sp of unknown kind " + std::to_string(kind));
  }
  if (n < 8 || n > 256 || n % 8 != 0)
    fail("wgmma.mma_async.sp with n = " + std::to_string(n));
  constexpr uintptr_t kWindow = uintptr_t(1) << 18; // 256 KiB
  if (!smem || reinterpret_cast<uintptr_t>(smem) % kWindow != 0 ||
      smemBytes <= 0 || uint64_t(smemBytes) > kWindow)
    fail("wgmma.mma_async.sp needs the kernel's shared memory at a 256 KiB "
         "aligned address, of 1 byte to 256 KiB (got " +
         std::to_string(smemBytes) + " bytes at " +
         std::to_string(reinterpret_cast<uintptr_t>(smem)) + ")");
  const bool aFromSmem = a == nullptr;
  const int t = currentWarpgroupThread;
  const int aRegs = wgmmaSpARegs(instr), dRegs = wgmmaSpDRegs(instr);
  std::unique_lock<std::mutex> lock(wg->mutex);
  if (wg->arrived == 0) {
    wg->instr = instr;
    wg->kind = kind;
    wg->smem = smem;
    wg->smemBytes = smemBytes;
    wg->in = WgmmaSpOperands();
    wg->in.aFromSmem = aFromSmem;
    if (aFromSmem) {
      wg->in.aDesc = static_cast<uint64_t>(aDesc);
      wg->in.transA = transA;
    } else {
      wg->in.a.assign(size_t(kWarpgroupThreads * aRegs), 0);
    }
    wg->in.bDesc = static_cast<uint64_t>(bDesc);
    wg->in.transB = transB;
    wg->in.selector = selector;
    wg->in.scaleD = scaleD != 0;
    wg->in.scaleA = scaleA;
    wg->in.scaleB = scaleB;
    wg->in.d.assign(size_t(kWarpgroupThreads * dRegs), 0);
  } else if (wg->kind != kind || wg->instr.n != n ||
             wg->instr.sparse != sparse || wg->in.aFromSmem != aFromSmem ||
             (aFromSmem && (wg->in.aDesc != static_cast<uint64_t>(aDesc) ||
                            wg->in.transA != transA)) ||
             wg->in.bDesc != static_cast<uint64_t>(bDesc) ||
             wg->in.transB != transB || wg->in.selector != selector ||
             wg->in.scaleD != (scaleD != 0) || wg->in.scaleA != scaleA ||
             wg->in.scaleB != scaleB || wg->smem != smem ||
             wg->smemBytes != smemBytes) {
    fail("the threads of a warpgroup disagree on a wgmma.mma_async's "
         "sparsity, type, n, A source or descriptor, B descriptor, selector, "
         "scales, transposes or shared memory");
  }
  if (!aFromSmem)
    for (int i = 0; i < aRegs; ++i)
      wg->in.a[size_t(t * aRegs + i)] = static_cast<uint32_t>(a[i]);
  std::memcpy(&wg->in.d[size_t(t * dRegs)], d, size_t(dRegs) * 4);
  wg->in.e[size_t(t)] = static_cast<uint32_t>(meta);
  uint64_t generation = wg->generation;
  if (++wg->arrived == kWarpgroupThreads) {
    const auto *bytes = static_cast<const uint8_t *>(smem);
    wg->in.smem.assign(bytes, bytes + smemBytes);
    WgmmaSpResult result = runWgmmaSp(instr, wg->in);
    if (!result.ok)
      fail(wgmmaSpInstrName(instr) + ": " + result.error);
    wg->d = std::move(result.d);
    wg->in.smem.clear();
    wg->arrived = 0;
    ++wg->generation;
    wg->done.notify_all();
  } else {
    wg->done.wait(lock, [&] { return wg->generation != generation; });
  }
  std::memcpy(d, &wg->d[size_t(t * dRegs)], size_t(dRegs) * 4);
}

} // namespace

extern "C" void stc_emu_wgmma_sp(int32_t kind, int32_t n, const int32_t *a,
                                 int64_t bDesc, int32_t meta, int32_t selector,
                                 int32_t scaleD, int32_t scaleA, int32_t scaleB,
                                 int32_t transB, const void *smem,
                                 int64_t smemBytes, float *d) {
  if (!a)
    fail("wgmma.mma_async.sp with A from registers and no registers");
  wgmmaSp(/*sparse=*/true, kind, n, a, 0, 0, bDesc, meta, selector, scaleD,
          scaleA, scaleB, transB, smem, smemBytes, d);
}

extern "C" void stc_emu_wgmma_sp_ss(int32_t kind, int32_t n, int64_t aDesc,
                                    int64_t bDesc, int32_t meta,
                                    int32_t selector, int32_t scaleD,
                                    int32_t scaleA, int32_t scaleB,
                                    int32_t transA, int32_t transB,
                                    const void *smem, int64_t smemBytes,
                                    float *d) {
  wgmmaSp(/*sparse=*/true, kind, n, nullptr, aDesc, transA, bDesc, meta,
          selector, scaleD, scaleA, scaleB, transB, smem, smemBytes, d);
}

extern "C" void stc_emu_wgmma_ss(int32_t kind, int32_t n, int64_t aDesc,
                                 int64_t bDesc, int32_t scaleD, int32_t scaleA,
                                 int32_t scaleB, int32_t transA, int32_t transB,
                                 const void *smem, int64_t smemBytes,
                                 float *d) {
  wgmmaSp(/*sparse=*/false, kind, n, nullptr, aDesc, transA, bDesc,
          /*meta=*/0, /*selector=*/0, scaleD, scaleA, scaleB, transB, smem,
          smemBytes, d);
}
