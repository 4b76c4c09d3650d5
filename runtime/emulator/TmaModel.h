//===- TmaModel.h - CPU model of TMA copies and mbarriers -------*- C++ -*-===//
//
// What the emulator (stc_gpu_emulator.h) needs to run an sm_90a kernel that
// loads its tiles with the Tensor Memory Accelerator and synchronises on
// mbarriers, as plain functions with no threads or locks (the emulator adds
// those):
//
// - TensorMap: a tiled tensor map of rank 1 to 4 with element (traversal)
//   strides, checked the way cuTensorMapEncodeTiled checks its arguments
//   (CUDA driver API, "Tensor Map Object Management");
// - tmaLoad: cp.async.bulk.tensor.{2d..4d}.shared::cluster.global.tile: the
//   box at the given tensor coordinates, every element_stride-th element
//   along each outer dimension, elements outside the tensor read as zero,
//   stored dense (innermost dimension contiguous), then permuted by the
//   map's swizzle (the CU_TENSOR_MAP_SWIZZLE_{32B,64B,128B} pattern on the
//   absolute shared address: the 16-byte chunk bits [4, 4 + log2(W/16))
//   XOR bits [7, 7 + log2(W/16)));
// - MbarrierState: the state of an mbarrier object (PTX ISA 9.7.13.15) in
//   its own 8 bytes, and the arrive-on, expect-tx and complete-tx
//   operations on it.
//
//===----------------------------------------------------------------------===//
#ifndef STC_RUNTIME_EMULATOR_TMAMODEL_H
#define STC_RUNTIME_EMULATOR_TMAMODEL_H

#include <cstdint>
#include <string>

namespace stc::emu {

//===----------------------------------------------------------------------===//
// Tensor maps and TMA loads
//===----------------------------------------------------------------------===//

/// Bytes of one element of a CUtensorMapDataType (0 UINT8 .. 12
/// TFLOAT32_FTZ), 0 for a value the emulator does not know.
int tensorMapElementBytes(int32_t dataType);

/// The most dimensions an emulated tensor map has (CUDA allows 5).
constexpr int kTensorMapMaxRank = 4;

/// A tiled tensor map of rank 1 .. kTensorMapMaxRank (interleave none,
/// out-of-bounds fill zero): the emulator's stand-in for a CUtensorMap.
/// Everything is innermost first, as cuTensorMapEncodeTiled takes it.
struct TensorMap {
  /// Tells a map made by makeTensorMap from arbitrary memory.
  static constexpr uint64_t kMagic = 0x646e70616d72736eULL; // "nsrmapnd"
  uint64_t magic = kMagic;
  const uint8_t *base = nullptr;
  int32_t dataType = 0;
  int32_t elemBytes = 0;
  int32_t rank = 0;
  /// 0 (none), 32, 64 or 128.
  int32_t swizzleBytes = 0;
  /// Elements along each dimension.
  int64_t dims[kTensorMapMaxRank] = {};
  /// Byte strides of each dimension (strides[0] = elemBytes: dimension 0
  /// is contiguous).
  int64_t strides[kTensorMapMaxRank] = {};
  /// Box sizes (boxDim) and traversal strides (elementStrides, 1 .. 8).
  int32_t box[kTensorMapMaxRank] = {};
  int32_t elementStrides[kTensorMapMaxRank] = {};

  /// Elements a box load takes along dimension `d`: ceil(box / element
  /// stride), except along dimension 0, whose element stride TMA ignores
  /// without interleave (cuTensorMapEncodeTiled: "the first element of
  /// this array is ignored"), so box[0] contiguous elements.
  int64_t loaded(int d) const {
    return d == 0 ? box[0]
                  : (box[d] + elementStrides[d] - 1) / elementStrides[d];
  }
};

/// Fills `map` and returns "" when the arguments are ones
/// cuTensorMapEncodeTiled accepts for a tiled map of `rank` (1 ..
/// kTensorMapMaxRank) dimensions, all innermost first: a known data type,
/// base 16-byte aligned (and not null), each size 1 .. 2^32, the byte
/// strides of dimensions 1 .. rank - 1 (`strides`, rank - 1 entries) each a
/// multiple of 16 below 2^40 and at least the extent of the dimension
/// inside it, box sizes 1 .. 256, element strides 1 .. 8 (null: all 1),
/// box inner bytes a multiple of 16, swizzle 0, 32, 64 or 128 and, when
/// swizzled, box inner bytes at most the swizzle width. Otherwise returns
/// what is wrong (rank 2 in the words of the 2-D map: "outer stride",
/// "a row").
std::string makeTensorMap(const void *base, int32_t dataType, int32_t rank,
                          const int64_t *dims, const int64_t *strides,
                          const int32_t *box, const int32_t *elementStrides,
                          int32_t swizzleBytes, TensorMap &map);

/// makeTensorMap for a 2-D map: `inner` x `outer` elements, rows
/// `outerStrideBytes` apart, boxes of `boxInner` x `boxOuter`, unit element
/// strides.
std::string makeTensorMap2d(const void *base, int32_t dataType, int64_t inner,
                            int64_t outer, int64_t outerStrideBytes,
                            int32_t boxInner, int32_t boxOuter,
                            int32_t swizzleBytes, TensorMap &map);

/// Where the byte at shared address `address` of an unswizzled box lands
/// with swizzle width `swizzleBytes` (0: none): the 16-byte chunk index
/// (address >> 4) & (W/16 - 1) is XORed with (address >> 7) & (W/16 - 1).
uint64_t tmaSwizzleAddress(uint64_t address, int32_t swizzleBytes);

/// Bytes one box load writes and completes on its mbarrier: the product of
/// the elements loaded along each dimension (TensorMap::loaded), times the
/// element bytes (out-of-bounds elements included).
int64_t tmaBoxBytes(const TensorMap &map);

/// Alignment the destination of a box load needs: 128 bytes, or 8 swizzle
/// rows (256, 512, 1024 bytes for 32, 64, 128-byte swizzle) so that the box
/// starts a repetition of the swizzle pattern.
int64_t tmaDestinationAlignment(const TensorMap &map);

/// "" when a box load with `map` into shared address `dst` is emulated:
/// dst aligned to tmaDestinationAlignment, and, when swizzled, box rows of
/// exactly the swizzle width (narrower rows, which CUDA accepts, are not
/// modelled). Otherwise what is wrong.
std::string tmaLoadError(const TensorMap &map, uint64_t dst);

/// The box load itself (after tmaLoadError said ""), tile mode: along
/// dimension d the box starts at tensor coordinate `coords[d]` (map.rank
/// of them, innermost first; negative or past the end reads zeros) and
/// takes map.loaded(d) elements, coords[d] + elementStrides[d] * j apart
/// (dimension 0: contiguous); they are stored as a dense box (dimension 0
/// contiguous, rows of loaded(0) elements) at `dst`, swizzled on dst's
/// address.
void tmaLoad(const TensorMap &map, void *dst, const int32_t *coords);

//===----------------------------------------------------------------------===//
// mbarrier objects
//===----------------------------------------------------------------------===//

/// Largest arrival count (mbarrier.init), and largest magnitude of the
/// pending transaction count. PTX allows +-(2^20 - 1); the emulator keeps
/// the count as a signed 20-bit field of the barrier's 8 bytes, so
/// +-(2^19 - 1), still more than a block's 227 KiB of shared memory.
constexpr int64_t kMbarrierMaxCount = (int64_t(1) << 20) - 1;
constexpr int64_t kMbarrierMaxTx = (int64_t(1) << 19) - 1;

/// The state of an mbarrier object, kept in its 8 bytes (encodeMbarrier):
/// bits 19..0 pending arrivals, 39..20 expected arrivals (the init count;
/// 0: not initialised, which zeroed memory reads as), 59..40 pending
/// transaction bytes (20-bit two's complement: the count may go below zero
/// while arrivals are pending), 63..60 the phase number modulo 16 (bit 60:
/// the parity try_wait.parity tests).
struct MbarrierState {
  uint32_t pending = 0;
  uint32_t expected = 0;
  int32_t tx = 0;
  uint32_t phase = 0;

  bool initialised() const { return expected != 0; }
  /// Whether the phase of parity `parity` is complete: the current phase has
  /// the other parity (so a fresh barrier, in phase 0, has completed the
  /// "phase" of parity 1, as try_wait.parity on hardware reports).
  bool phaseDone(int32_t parity) const {
    return int32_t(phase & 1) != (parity & 1);
  }
};

MbarrierState decodeMbarrier(uint64_t word);
uint64_t encodeMbarrier(const MbarrierState &state);

/// mbarrier.init: phase 0, `count` pending and expected arrivals (1 ..
/// kMbarrierMaxCount), no transactions. "" or what is wrong.
std::string mbarrierInit(MbarrierState &state, int64_t count);

/// Arrive-on with `count` arrivals (1 .. the pending count: more would
/// complete a phase the thread did not see; PTX leaves it undefined).
/// Completes the phase (sets `completed`) when no arrivals and no
/// transaction bytes remain pending.
std::string mbarrierArrive(MbarrierState &state, int64_t count,
                           bool &completed);

/// expect-tx: `bytes` more transaction bytes pending (the total within
/// +-kMbarrierMaxTx).
std::string mbarrierExpectTx(MbarrierState &state, int64_t bytes);

/// complete-tx: `bytes` transaction bytes done. The count may go below
/// zero while arrivals are pending (PTX allows it down to -(2^20 - 1)): with
/// TMA multicast a partner block's copy can land before this block's expect-tx,
/// which its arrive.expect_tx then balances. Once every arrival is in, more
/// bytes than pending is an error (a missing or short expect-tx). Completes the
/// phase like mbarrierArrive.
std::string mbarrierCompleteTx(MbarrierState &state, int64_t bytes,
                               bool &completed);

/// "pending arrivals A of E, T transaction bytes, phase P" for messages.
std::string describeMbarrier(const MbarrierState &state);

} // namespace stc::emu

#endif // STC_RUNTIME_EMULATOR_TMAMODEL_H
