//===- HopperTiling.h - tile, stage and cluster choice for sm_90a -*- C++ -*-//
//
// The shape heuristic of the Hopper (wgmma.mma_async.sp) kernels: which
// block tile, K step, pipeline depth and thread-block cluster a sparse
// product Out[R, P] = S[R, K] . D[K, P] gets, before pass options override
// any of them. MLIR-free, so that tools and tests can ask it directly.
//
// The kernel the choice is for (docs/HOPPER.md): one producer warp issues
// TMA copies of a K step of A (compressed values) and B into a ring of
// `stages` shared-memory buffers; one or two consumer warpgroups
// (BM = 64 rows each) run wgmma.mma_async.sp m64nBNk(32|64|16) on them.
//
//===----------------------------------------------------------------------===//
#ifndef STC_PASSES_GPU_HOPPERTILING_H
#define STC_PASSES_GPU_HOPPERTILING_H

#include <cstdint>
#include <string>

namespace mlir::stc {

/// What the heuristic knows about the GPU (H100 SXM by default).
struct HopperDevice {
  int64_t sms = 132;
  /// Dynamic shared memory a block may opt into (227 KiB on sm_90).
  int64_t sharedBytesPerBlock = 227 * 1024;
};

/// A convolution's output pixels, which the kernel tiles image by image:
/// a block's BN columns are TH x TW pixels of one image (HopperPixelTile).
/// Sizes are 0 where unknown (dynamic).
struct HopperPixelGrid {
  int64_t images = 0, outH = 0, outW = 0;
  /// The convolution's strides: a tile's TMA box spans TH * strideH input
  /// rows and TW * strideW columns, each at most 256.
  int64_t strideH = 1, strideW = 1;
};

/// A block's pixel tile: TH rows x TW columns of one image's output.
struct HopperPixelTile {
  int64_t rows = 0, cols = 0;
};

/// The TH x TW = `blockCols` tile, TW a power of two from 4 to 64, that
/// covers an OH x OW image in the fewest tiles (the pixels past the image
/// are loaded, multiplied and thrown away: on 7 x 7 maps a 16 x 16 tile is
/// 81 % waste, an 8 x 8 one 23 %). Ties go to the squarest tile (the
/// smallest halo for a filter wider than 1), then to the wider one. With
/// OH or OW unknown every tile ties: 8 x 8 for 64 columns, 8 x 16 for 128,
/// 16 x 16 for 256.
HopperPixelTile chooseHopperPixelTile(int64_t blockCols,
                                      const HopperPixelGrid &grid);

/// A problem: canonical sizes (R sparse rows, P columns, K reduction) and
/// the byte width of the operands (2 for f16/bf16, 1 for i8/e4m3/e5m2, 4
/// for tf32).
struct HopperProblem {
  int64_t rows = 0, cols = 0, depth = 0;
  int64_t elementBytes = 2;
  /// A dense S (the dense wgmma kernel): A's tile is BM x BK, not half.
  bool denseA = false;
  /// Matrices of a batched product: each has its own tiles.
  int64_t batch = 1;
  /// A convolution (images > 0): P = images x outH x outW pixels, tiled
  /// per image, so a tile's real work is what its pixel tile covers.
  HopperPixelGrid pixels;
};

/// The choice.
struct HopperTiling {
  /// Block tile: BM rows (64 per consumer warpgroup) x BN columns (the
  /// wgmma N, 64..256).
  int64_t blockRows = 128, blockCols = 128;
  /// Dense K per pipeline stage: one 128-byte swizzled row of B per column
  /// (64 f16, 128 i8, 32 tf32).
  int64_t blockDepth = 64;
  /// Shared-memory ring depth.
  int64_t stages = 4;
  /// Thread-block cluster along the rows: co-schedules blocks that read
  /// the same B tiles (and share them by TMA multicast on request).
  int64_t clusterRows = 1;
  /// Bytes of one stage: compressed A values, metadata, B.
  int64_t stageBytes = 0;
  /// Fraction of the GPU's tile slots that hold real work, over all waves
  /// (1 = no partial wave and no tile overhang).
  double utilization = 0.0;
  /// A convolution's pixel tile (chooseHopperPixelTile for blockCols);
  /// 0 x 0 for a GEMM.
  HopperPixelTile pixelTile;

  /// "128x256x64 s4 c2": for remarks and kernel_info.
  std::string str() const;
};

/// Shared-memory bytes of one pipeline stage for a block tile: A values
/// (BM x BK/2 elements, 2:4; BM x BK for a dense A) and B (BK x BN
/// elements). The metadata is not staged: the consumers read it from
/// global memory, four K steps per 128-bit load (StcHopperLayout.h).
int64_t hopperStageBytes(int64_t blockRows, int64_t blockCols,
                         int64_t blockDepth, int64_t elementBytes,
                         bool denseA = false);

/// Ring depth for stages of `stageBytes`: as many as fit in the block's
/// shared memory less 2 KiB (mbarriers, alignment), between 2 and
/// `maxStages` (the heuristic's 6; the kernel takes up to
/// kMaxWgmmaStages, which only small slots reach).
constexpr int64_t kMaxWgmmaStages = 12;
int64_t hopperStagesThatFit(int64_t stageBytes,
                            const HopperDevice &device = HopperDevice(),
                            int64_t maxStages = 6);

/// The ring depth worth having of the `fit` that fit: no more slots than
/// the op's ring fills (`fills`, 0 when K is not known), since a slot past
/// the last fill is never written but keeps other blocks off the SM; at
/// least 2.
int64_t hopperUsefulStages(int64_t fit, int64_t fills);

/// The heuristic (docs/HOPPER.md, "Tile choice"):
/// 1. BK fills a 128-byte swizzle row: 128 / elementBytes.
/// 2. Among BM in {64, 128} and BN in {64, 128, 256}, keep the tiles whose
///    waves are best used: utilization = R * P / (waves * SMs * BM * BN),
///    waves = ceil(tiles / SMs); a convolution's column tiles are
///    images x its pixel tiles per image. Take the best utilization; within 5 %
///    of it, the tile with the most arithmetic per loaded byte (BM * BN / (BM /
///    2 + BN), A being half-size; BM * BN / (BM + BN) for a dense A), then the
///    larger BM.
/// 3. stages: as many as fit (hopperStagesThatFit), at most 6 (deeper
///    rings stop hiding more latency), no more than the K steps
///    (hopperUsefulStages), at least 2.
/// 4. cluster of 2 along the rows when there are at least two row tiles
///    and at least one full wave of tiles (multicast halves B's L2 reads;
///    small problems keep 1 so that no SM waits for a partner).
HopperTiling chooseHopperTiling(const HopperProblem &problem,
                                const HopperDevice &device = HopperDevice());

} // namespace mlir::stc

#endif // STC_PASSES_GPU_HOPPERTILING_H
