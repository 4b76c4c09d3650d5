//===- WgmmaSpModel.cpp - CPU model of one warpgroup's wgmma.sp -*- C++ -*-===//
//
// Every operand is read in the direction the PTX ISA states it: for each
// thread and register element, the matrix row and dense column range
// (A, metadata, D); for each matrix cell, the shared-memory byte address
// that the descriptor and the canonical layout give (B, and A from shared
// memory).  The tables are transcribed per type in "ISA tables" with the
// section they come from; where the ISA gives a mapping only as a figure
// (an image), the comment says so and names the cross-check.  Mappings not
// verified on hardware are *unverified* in docs/HOPPER-LAYOUT.md.
//
//===----------------------------------------------------------------------===//

#include "runtime/emulator/WgmmaSpModel.h"
#include "runtime/emulator/MmaElements.h"

#include <cstring>
#include <sstream>

namespace stc::emu {

namespace {

using namespace detail;

//===----------------------------------------------------------------------===//
// Instruction kinds
//===----------------------------------------------------------------------===//

/// The three sparse A layouts (by A element width).
enum class Kind { B16, TF32, I8, Illegal };

Kind kindOf(MmaElem a) {
  switch (a) {
  case MmaElem::F16:
  case MmaElem::BF16:
    return Kind::B16;
  case MmaElem::TF32:
    return Kind::TF32;
  case MmaElem::S8:
  case MmaElem::U8:
    return Kind::I8;
  default:
    return Kind::Illegal;
  }
}

/// 9.7.15.6.3, Syntax: the legal type combinations.
bool isLegalTypes(const WgmmaSpInstr &in) {
  switch (kindOf(in.a)) {
  case Kind::B16:
    return in.b == in.a && (in.d == MmaElem::F32 ||
                            (in.a == MmaElem::F16 && in.d == MmaElem::F16));
  case Kind::TF32:
    return in.b == MmaElem::TF32 && in.d == MmaElem::F32;
  case Kind::I8:
    return (in.b == MmaElem::S8 || in.b == MmaElem::U8) && in.d == MmaElem::S32;
  case Kind::Illegal:
    return false;
  }
  return false;
}

/// 9.7.15.6.3, Syntax: .m64n8..n256 in steps of 8 for the floating-point
/// types; the integer shapes are n8, n16, n24, n32 and then steps of 16.
bool isLegalN(const WgmmaSpInstr &in) {
  if (in.n < 8 || in.n > 256 || in.n % 8 != 0)
    return false;
  if (kindOf(in.a) == Kind::I8 && in.n > 32)
    return in.n % 16 == 0;
  return true;
}

//===----------------------------------------------------------------------===//
// ISA tables
//===----------------------------------------------------------------------===//

/// A matrix cell (row, column); for A the column is the first dense column
/// of the range whose non-zeros a register holds.
struct Cell {
  int row;
  int col;
};

/// Thread coordinates.  "Each warp in the warpgroup provides sparsity
/// information for 16 rows of matrix A": warp w = %warpid % 4 owns rows
/// 16w..16w+15 (9.7.15.6.2, table).  groupID / threadID_in_group as in the
/// warp-level tables.
struct Thread {
  int warp;
  int groupID;
  int threadIdInGroup;
};

Thread threadOf(int tid) { return {tid / 32, (tid % 32) >> 2, tid % 4}; }

/// Dense column range of A register `r` of thread `tid`: row and firstcol.
/// 9.7.15.6.2.1-3: "A vector expression containing four .b32 registers, with
/// each register containing two non-zero .f16/.bf16 elements out of 4
/// consecutive elements" (tf32: one of 2 per register; 8-bit: four of 8);
/// which thread holds which range is shown only in Figures 175, 177 and 179
/// (images).  Transcribed here as the warp-level mma.sp tables (9.7.14.6.2.2
/// m16n8k32 .f16, .3 m16n8k16 .tf32, .6 m16n8k64 .s8) applied to each warp's
/// 16 rows, which is what CuTe's SM90 sparse GMMA register-A layouts
/// (ALayout_64x32 / _64x16 / _64x64) state.
Cell aRange(Kind kind, int tid, int r) {
  Thread t = threadOf(tid);
  int row = 16 * t.warp + t.groupID + 8 * (r % 2);
  switch (kind) {
  case Kind::B16:
    return {row, t.threadIdInGroup * 4 + 16 * (r / 2)};
  case Kind::TF32:
    return {row, t.threadIdInGroup * 2 + 8 * (r / 2)};
  case Kind::I8:
    return {row, t.threadIdInGroup * 8 + 32 * (r / 2)};
  case Kind::Illegal:
    break;
  }
  return {0, 0};
}

/// The metadata chunk whose indices are in nibble `p` (bits 4p+3..4p) of the
/// sp-meta register of thread `tid`, if the selector reads that thread:
/// (row, chunk index along K).
///
/// .f16/.bf16 and .tf32 (9.7.15.6.1): "The sparsity selector indicates a
/// thread-pair within a group of four consecutive threads ... either 0
/// (threads T0, T1) or 1 (threads T2, T3)".  The bit layout is Figure 176
/// (resp. 178), which is the same image as the warp-level m16n8k32 .f16
/// (m16n8k16 .tf32) metadata figure: thread 2F holds chunks of K 0-15 (tf32:
/// 0-7), thread 2F+1 the second half; bits 15:0 row groupID, bits 31:16 row
/// groupID + 8 (as in MmaSpModel's metadataChunk, cross-checked there).
///
/// 8-bit (9.7.15.6.1): "All threads contribute the sparsity metadata and the
/// sparsity selector must be 0"; Figures 180-181 are the images of the
/// warp-level m16n8k64 figures: thread t holds row groupID + 8*(t%2), chunks
/// 8*(t/2)..+7 (columns 0-31 or 32-63), chunk p in nibble p.  Cross-checked
/// with CuTe's ELayout_64x64.
Cell metadataChunk(Kind kind, int tid, int p) {
  Thread t = threadOf(tid);
  int rowBase = 16 * t.warp + t.groupID;
  if (kind == Kind::I8)
    return {rowBase + 8 * (t.threadIdInGroup % 2),
            8 * (t.threadIdInGroup / 2) + p};
  return {rowBase + 8 * (p / 4), 4 * (t.threadIdInGroup % 2) + p % 4};
}

bool readsMetadata(Kind kind, int tid, int selector) {
  if (kind == Kind::I8)
    return true;
  return threadOf(tid).threadIdInGroup / 2 == selector;
}

/// Element d_v of thread `tid` (9.7.15.5.1.1.1-3, "Accumulator D", Figures
/// 149, 151, 153 - images): per warp the m16n8 accumulator tile repeated
/// N/8 times along N; row = 16*warp + groupID (+8 for v%4 >= 2), col =
/// 8*(v/4) + threadID_in_group*2 + v%2.  Cross-checked with CuTe's
/// CLayout_64xN.
Cell dElement(int tid, int v) {
  Thread t = threadOf(tid);
  return {16 * t.warp + t.groupID + 8 * ((v / 2) % 2),
          8 * (v / 4) + 2 * t.threadIdInGroup + v % 2};
}

/// 9.7.15.6.1 / 9.7.15.6.3: the meaningful metadata values.  The ISA lists
/// 0b0000 0b0101 0b1010 0b1111 as invalid for 2:4; the model also rejects
/// the descending pairs (0x1 0x2 0x3 0x6 0x7 0xB), whose meaning the ISA
/// does not state for wgmma (*unverified*); the project's format never
/// produces them.  .tf32: only 0b1110 and 0b0100.
bool decodeNibble(unsigned nibble, Kind kind, int idx[2]) {
  if (kind == Kind::TF32) {
    if (nibble != 0x4 && nibble != 0xE)
      return false;
    idx[0] = nibble == 0x4 ? 0 : 1;
    return true;
  }
  switch (nibble) {
  case 0x4:
  case 0x8:
  case 0x9:
  case 0xC:
  case 0xD:
  case 0xE:
    idx[0] = int(nibble & 3);
    idx[1] = int(nibble >> 2);
    return true;
  default:
    return false;
  }
}

//===----------------------------------------------------------------------===//
// Shared memory
//===----------------------------------------------------------------------===//

/// Bytes of one swizzle row (the "swizzle-byte-size"), 16 for no swizzle.
int swizzleBytes(WgmmaSwizzle s) {
  switch (s) {
  case WgmmaSwizzle::B128:
    return 128;
  case WgmmaSwizzle::B64:
    return 64;
  case WgmmaSwizzle::B32:
    return 32;
  case WgmmaSwizzle::None:
    break;
  }
  return 16;
}

/// An operand in shared memory: `mnExtent` x `kExtent` elements of
/// `bits` bits, read through a decoded descriptor.
struct SmemOperand {
  WgmmaDescriptor desc;
  bool mnMajor;
  int bits;
  int mnExtent;
  int kExtent;
};

/// The byte address of element (mn, k) (9.7.15.5.1.2.1.3 "Canonical
/// Layouts", in elements with T = 128 / bits; LBO and SBO in bytes):
///
///   K-major,  none:  ((8,m),(T,2k)) : ((1T,SBO),(1,LBO))
///   K-major,  W-byte swizzle (W = 32/64/128, c = W/16):
///                    ((8,m),(T,2k)) : ((cT,SBO),(1,T))
///   MN-major, none:  ((T,1,m),(8,k)) : ((1,T,SBO),(1T,LBO))
///   MN-major, W-byte swizzle: ((T,c,m),(8,k)) : ((1,T,LBO),(cT,SBO))
///
/// followed by Swizzle<log2 c, 4, 3> on the byte address: address bits
/// [4, 4+log2 c) are XORed with bits [7, 7+log2 c).  The swizzle acts on
/// the absolute address, as the descriptor's base-offset rule implies
/// (9.7.15.5.1.2.2: the pattern repeats at 1024/512/256-byte boundaries and
/// "base offset = (pattern start addr >> 0x7) & 0x7").
int64_t smemAddress(const SmemOperand &op, int mn, int k) {
  const int bytes = op.bits / 8;
  const int t = 128 / op.bits;
  const int64_t lbo = op.desc.leadingByteOffset, sbo = op.desc.strideByteOffset;
  const int w = swizzleBytes(op.desc.swizzle), c = w / 16;
  int64_t off;
  if (!op.mnMajor) {
    if (op.desc.swizzle == WgmmaSwizzle::None)
      off = int64_t(mn % 8) * 16 + int64_t(mn / 8) * sbo +
            int64_t(k % t) * bytes + int64_t(k / t) * lbo;
    else
      off = int64_t(mn % 8) * w + int64_t(mn / 8) * sbo + int64_t(k) * bytes;
  } else {
    if (op.desc.swizzle == WgmmaSwizzle::None)
      off = int64_t(mn % t) * bytes + int64_t(mn / t) * sbo +
            int64_t(k % 8) * 16 + int64_t(k / 8) * lbo;
    else
      off = int64_t(mn % (t * c)) * bytes + int64_t(mn / (t * c)) * lbo +
            int64_t(k % 8) * w + int64_t(k / 8) * sbo;
  }
  int64_t addr = int64_t(op.desc.startAddress) + off;
  if (c > 1)
    addr ^= ((addr >> 7) & (c - 1)) << 4;
  return addr;
}

/// Reads the operand as an mnExtent x kExtent array of raw element bits.
bool readSmem(const SmemOperand &op, const std::vector<uint8_t> &smem,
              const char *what, std::vector<uint32_t> &out,
              std::string &error) {
  std::ostringstream os;
  if (op.desc.baseOffset != 0) {
    os << what << " descriptor: non-zero matrix base offset "
       << op.desc.baseOffset << " is not modelled";
    error = os.str();
    return false;
  }
  if (!op.mnMajor && op.desc.swizzle != WgmmaSwizzle::None &&
      op.kExtent * op.bits / 8 > swizzleBytes(op.desc.swizzle)) {
    os << what << ": K-major K extent of " << op.kExtent * op.bits / 8
       << " bytes exceeds the " << swizzleBytes(op.desc.swizzle)
       << "-byte swizzle atom";
    error = os.str();
    return false;
  }
  const int bytes = op.bits / 8;
  out.assign(size_t(op.mnExtent) * size_t(op.kExtent), 0);
  for (int mn = 0; mn < op.mnExtent; ++mn)
    for (int k = 0; k < op.kExtent; ++k) {
      int64_t addr = smemAddress(op, mn, k);
      if (addr < 0 || addr % bytes != 0 ||
          addr + bytes > int64_t(smem.size())) {
        os << what << " element (" << mn << ", " << k << ") at byte address "
           << addr << " is misaligned or outside the " << smem.size()
           << "-byte shared memory";
        error = os.str();
        return false;
      }
      uint32_t v = 0;
      std::memcpy(&v, &smem[size_t(addr)], size_t(bytes)); // little endian
      out[size_t(mn) * size_t(op.kExtent) + size_t(k)] = v;
    }
  return true;
}

//===----------------------------------------------------------------------===//
// Elements
//===----------------------------------------------------------------------===//

WgmmaSpResult failure(std::string message) {
  WgmmaSpResult r;
  r.error = std::move(message);
  return r;
}

/// The sparse instruction's A as a dense 64 x K matrix of raw element bits:
/// the packed values (registers or shared memory) scattered to their
/// columns by the metadata of the threads the selector reads. False with
/// `error` for illegal metadata or an unreadable operand.
bool sparseA(const WgmmaSpInstr &instr, const WgmmaSpOperands &in, Kind kind,
             std::vector<uint32_t> &aDense, std::string &error) {
  const int kDense = wgmmaSpK(instr);
  const bool tf32 = kind == Kind::TF32;
  const int chunkWidth = tf32 ? 2 : 4, keptPerChunk = tf32 ? 1 : 2;
  const int chunks = kDense / chunkWidth;
  const int kStored = kDense / 2;
  const int aBits = mmaSpElementBits(instr.a);
  const int aRegs = wgmmaSpARegs(instr);
  // Metadata: kept in-chunk indices per (row, chunk) from the threads the
  // selector reads; every nibble of their registers is used.
  std::vector<int> kept(size_t(64 * chunks * keptPerChunk), -1);
  for (int tid = 0; tid < kWarpgroupThreads; ++tid) {
    if (!readsMetadata(kind, tid, in.selector))
      continue;
    for (int p = 0; p < 8; ++p) {
      unsigned nibble = (in.e[size_t(tid)] >> (4 * p)) & 0xF;
      int idx[2] = {0, 0};
      if (!decodeNibble(nibble, kind, idx)) {
        std::ostringstream os;
        os << "illegal metadata nibble 0x" << std::hex << nibble << std::dec
           << " in bits " << 4 * p + 3 << ".." << 4 * p << " of thread " << tid
           << " (warp " << tid / 32 << ", lane " << tid % 32 << ", selector "
           << in.selector << ")";
        error = os.str();
        return false;
      }
      Cell ch = metadataChunk(kind, tid, p);
      int *slot = &kept[size_t((ch.row * chunks + ch.col) * keptPerChunk)];
      if (slot[0] != -1) {
        error = "model bug: metadata chunk covered twice";
        return false;
      }
      for (int j = 0; j < keptPerChunk; ++j)
        slot[j] = idx[j];
    }
  }
  for (int v : kept)
    if (v < 0) {
      error = "model bug: metadata chunk not covered";
      return false;
    }

  // A as the packed 64 x K/2 matrix of raw bits, from registers or from
  // shared memory ("the MxK matrix A is packed into MxK/2 elements";
  // A from shared memory "is documented in Shared Memory Matrix Layout":
  // the packed matrix is read as an M x K/2 operand, *unverified*).
  const int aPerReg = 32 / aBits;
  std::vector<uint32_t> aPacked(size_t(64 * kStored), 0);
  if (in.aFromSmem) {
    SmemOperand op{decodeWgmmaDescriptor(in.aDesc), in.transA == 1, aBits, 64,
                   kStored};
    if (!readSmem(op, in.smem, "A", aPacked, error))
      return false;
  } else {
    // Element j of register r is the j-th (in increasing column order)
    // non-zero of the register's dense range; packed column = range
    // start / 2 + j.
    std::vector<bool> seen(aPacked.size(), false);
    for (int tid = 0; tid < kWarpgroupThreads; ++tid)
      for (int r = 0; r < aRegs; ++r) {
        Cell range = aRange(kind, tid, r);
        for (int j = 0; j < aPerReg; ++j) {
          size_t at = size_t(range.row * kStored + range.col / 2 + j);
          if (seen[at]) {
            error = "model bug: A element loaded twice";
            return false;
          }
          seen[at] = true;
          aPacked[at] = field(in.a[size_t(tid * aRegs + r)], aBits, j);
        }
      }
  }

  // Scatter A to its dense columns with the metadata: packed column c is
  // kept element c % keptPerChunk of chunk c / keptPerChunk.
  aDense.assign(size_t(64 * kDense), 0);
  for (int row = 0; row < 64; ++row)
    for (int c = 0; c < kStored; ++c) {
      int chunk = c / keptPerChunk, j = c % keptPerChunk;
      int col = chunk * chunkWidth +
                kept[size_t((row * chunks + chunk) * keptPerChunk + j)];
      aDense[size_t(row * kDense + col)] = aPacked[size_t(row * kStored + c)];
    }
  return true;
}

} // namespace

int wgmmaSpK(const WgmmaSpInstr &instr) {
  // 9.7.15.6.3 (sparse) and 9.7.15.5.2 (dense): the sparse shapes have
  // twice the dense K of the dense ones, for the same bytes of B.
  int sparseK = 0;
  switch (kindOf(instr.a)) {
  case Kind::B16:
    sparseK = 32;
    break;
  case Kind::TF32:
    sparseK = 16;
    break;
  case Kind::I8:
    sparseK = 64;
    break;
  case Kind::Illegal:
    break;
  }
  return instr.sparse ? sparseK : sparseK / 2;
}

std::string wgmmaSpInstrName(const WgmmaSpInstr &instr) {
  std::ostringstream os;
  os << "wgmma.mma_async" << (instr.sparse ? ".sp" : "") << ".sync.aligned.m64n"
     << instr.n << "k" << wgmmaSpK(instr) << "." << elemName(instr.d) << "."
     << elemName(instr.a) << "." << elemName(instr.b);
  return os.str();
}

int wgmmaSpARegs(const WgmmaSpInstr &) { return 4; }

int wgmmaSpDRegs(const WgmmaSpInstr &instr) {
  return instr.d == MmaElem::F16 ? instr.n / 4 : instr.n / 2;
}

WgmmaDescriptor decodeWgmmaDescriptor(uint64_t desc) {
  // 9.7.15.5.1.2.2: matrix-descriptor-encode(x) = (x & 0x3FFFF) >> 4.
  WgmmaDescriptor d;
  d.startAddress = uint32_t(desc & 0x3FFF) << 4;
  d.leadingByteOffset = uint32_t((desc >> 16) & 0x3FFF) << 4;
  d.strideByteOffset = uint32_t((desc >> 32) & 0x3FFF) << 4;
  d.baseOffset = unsigned((desc >> 49) & 0x7);
  d.swizzle = WgmmaSwizzle(unsigned(desc >> 62) & 0x3);
  return d;
}

WgmmaSpResult runWgmmaSp(const WgmmaSpInstr &instr, const WgmmaSpOperands &in) {
  if (!isLegalTypes(instr))
    return failure("illegal type combination: " + wgmmaSpInstrName(instr));
  if (!isLegalN(instr))
    return failure("illegal N " + std::to_string(instr.n) + " for " +
                   wgmmaSpInstrName(instr));
  const Kind kind = kindOf(instr.a);
  const bool isInt = kind == Kind::I8;
  const int maxSelector = isInt ? 0 : 1;
  if (!instr.sparse && !in.aFromSmem)
    return failure("dense wgmma with A from registers is not modelled");
  if (instr.sparse && (in.selector < 0 || in.selector > maxSelector))
    return failure("sparsity selector " + std::to_string(in.selector) +
                   " out of range 0.." + std::to_string(maxSelector));
  // imm-trans-a/b exist only for .f16/.bf16 (9.7.15.6.3); imm-trans-a only
  // in the shared-memory-A form.
  if ((in.transA != 0 && in.transA != 1) || (in.transB != 0 && in.transB != 1))
    return failure("imm-trans-a/b must be 0 or 1");
  if (kind != Kind::B16 && (in.transA || in.transB))
    return failure("transpose is only supported for .f16/.bf16");
  if (!in.aFromSmem && in.transA)
    return failure("imm-trans-a needs A in shared memory");
  if ((in.scaleA != 1 && in.scaleA != -1) ||
      (in.scaleB != 1 && in.scaleB != -1) ||
      (isInt && (in.scaleA != 1 || in.scaleB != 1)))
    return failure("imm-scale-a/b must be 1 or -1 (1 for integer types)");
  const int aRegs = wgmmaSpARegs(instr), dRegs = wgmmaSpDRegs(instr);
  if ((!in.aFromSmem && in.a.size() != size_t(kWarpgroupThreads * aRegs)) ||
      (in.scaleD && in.d.size() != size_t(kWarpgroupThreads * dRegs)))
    return failure("register vectors of the wrong size");

  const int kDense = wgmmaSpK(instr);
  const int n = instr.n;
  const int aBits = mmaSpElementBits(instr.a);
  std::string error;
  std::vector<uint32_t> aDense;
  if (instr.sparse) {
    if (!sparseA(instr, in, kind, aDense, error))
      return failure(error);
  } else {
    // The dense A: 64 x K through its descriptor, as B is read.
    SmemOperand op{decodeWgmmaDescriptor(in.aDesc), in.transA == 1, aBits, 64,
                   kDense};
    if (!readSmem(op, in.smem, "A", aDense, error))
      return failure(error);
  }

  // B: K x N, from shared memory ("Matrices A and B are stored in row-major
  // and column-major format": B is K-major unless imm-trans-b = 1).
  const int bBits = mmaSpElementBits(instr.b);
  std::vector<uint32_t> bNK; // N x K
  {
    SmemOperand op{decodeWgmmaDescriptor(in.bDesc), in.transB == 1, bBits, n,
                   kDense};
    if (!readSmem(op, in.smem, "B", bNK, error))
      return failure(error);
  }

  // D = A*B (+ D).
  WgmmaSpResult result;
  result.d.assign(size_t(kWarpgroupThreads * dRegs), 0);
  const bool f16Acc = instr.d == MmaElem::F16;
  const float sa = float(in.scaleA), sb = float(in.scaleB);
  for (int tid = 0; tid < kWarpgroupThreads; ++tid)
    for (int v = 0; v < n / 2; ++v) {
      Cell cell = dElement(tid, v);
      size_t reg = size_t(tid * dRegs + (f16Acc ? v / 2 : v));
      uint32_t cBits = 0;
      if (in.scaleD)
        cBits = f16Acc ? field(in.d[reg], 16, v % 2) : in.d[reg];
      uint32_t dBits;
      if (isInt) {
        uint32_t acc = cBits;
        for (int k = 0; k < kDense; ++k)
          acc += uint32_t(
              intValue(instr.a, aDense[size_t(cell.row * kDense + k)]) *
              intValue(instr.b, bNK[size_t(cell.col * kDense + k)]));
        dBits = acc;
      } else {
        float acc = 0.0f;
        if (in.scaleD)
          acc =
              f16Acc ? format::f16ToFloat(uint16_t(cBits)) : floatOfBits(cBits);
        for (int k = 0; k < kDense; ++k) {
          float prod =
              (sa *
               floatValue(instr.a, aDense[size_t(cell.row * kDense + k)])) *
              (sb * floatValue(instr.b, bNK[size_t(cell.col * kDense + k)]));
          acc += prod;
        }
        dBits = f16Acc ? format::floatToF16(acc) : bitsOfFloat(acc);
      }
      putAccumulator(result.d, reg, f16Acc, v % 2, dBits);
    }
  result.ok = true;
  return result;
}

} // namespace stc::emu
