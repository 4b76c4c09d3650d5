//===- MmaSpTiling.h - block tile choice of the mma.sp kernels -*- C++ -*-===//
//
// The shape heuristic of the sm_80 (mma.sp) kernels, before the
// configuration's knobs override it. MLIR-free, like HopperTiling.h.
//
//===----------------------------------------------------------------------===//
#ifndef STC_PASSES_GPU_MMASPTILING_H
#define STC_PASSES_GPU_MMASPTILING_H

#include <cstdint>
#include <utility>

namespace mlir::stc {

/// The block tile (rows x cols of the canonical problem Out[R, P]) for a
/// problem of `rows` x `cols` (either negative: dynamic). Bigger tiles
/// reuse each staged chunk of A and B more (arithmetic intensity grows
/// with the tile), but leave SMs idle when the problem has few tiles: take
/// the largest tile that still gives at least 256 blocks (about two waves
/// on the 108 to 132 SMs of A100/H100), growing the side of the problem
/// that is larger; small or dynamic problems keep 64 x 64.
std::pair<int64_t, int64_t> chooseMmaSpBlockTile(int64_t rows, int64_t cols);

/// The warp tile of the staged kernel for a block tile: half the block
/// each way, 32 to 64 (4 warps; a 64 x 64 block keeps 32 x 32, a 256-row
/// block has 8). On an
/// H200 (bench/results/gpu-sweep-20261127T0746Z-warp-tiles) 64 x 64 warps
/// in 128 x 128 blocks ran 1.6x the 16 warps of 32 x 32 (fewer ldmatrix
/// bytes per mma.sp, two blocks per SM), 64 x 32 in 128 x 64 blocks 1.05x,
/// while 64 x 64 in a 64 x 64 block (one warp) lost 30%.
std::pair<int64_t, int64_t> chooseMmaSpWarpTile(int64_t blockRows,
                                                int64_t blockCols);

} // namespace mlir::stc

#endif // STC_PASSES_GPU_MMASPTILING_H
