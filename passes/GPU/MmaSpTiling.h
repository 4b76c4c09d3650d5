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
/// problem of `rows` x `cols` (either negative: dynamic). Warps are
/// 32 x 32, so a 64 x 64 tile is 4 warps and 128 x 128 is 16. Bigger tiles
/// reuse each staged chunk of A and B more (arithmetic intensity grows
/// with the tile), but leave SMs idle when the problem has few tiles: take
/// the largest tile that still gives at least 256 blocks (about two waves
/// on the 108 to 132 SMs of A100/H100), growing the side of the problem
/// that is larger; small or dynamic problems keep 64 x 64.
std::pair<int64_t, int64_t> chooseMmaSpBlockTile(int64_t rows, int64_t cols);

} // namespace mlir::stc

#endif // STC_PASSES_GPU_MMASPTILING_H
