//===- FragmentStores.h - a warp's results as 16-byte vectors ---*- C++ -*-===//
//
// The epilogue's staged stores, for any warp whose accumulators are in the
// m16n8 C-fragment layout: the mma.sp and mma.sync tiles of the sm_80
// kernels, and each warp's 16 rows of an sm_90a wgmma m64nN tile, which
// have the same layout. The warp writes its results (after the fused
// epilogue, Epilogue.h) into a region of shared memory laid out as Out is,
// then copies whole 16-byte vectors along Out's contiguous dimension to
// global memory, instead of each thread storing each element.
//
//===----------------------------------------------------------------------===//
#ifndef STC_PASSES_GPU_FRAGMENTSTORES_H
#define STC_PASSES_GPU_FRAGMENTSTORES_H

#include "passes/GPU/KernelIR.h"
#include "passes/GPU/KernelProblem.h"
#include "passes/GPU/KernelPrologue.h"

namespace mlir::stc::gpu_kernel {

/// A column of a warp's tile as a column p of Out (canonical), and whether
/// it exists (p < P; for a convolution's pixel tile, a pixel inside the
/// image).
struct TileColumn {
  Value p, valid;
};

/// One warp's accumulators: tile m has 16 rows from firstRow[m] and `cols`
/// columns (a multiple of 8); value v of thread (g, t) of tile m, acc[m *
/// cols / 2 + v], is row firstRow[m] + g + 8 ((v / 2) % 2) and tile column
/// 8 (v / 4) + 2 t + v % 2 (as mma.sp's tile j = v / 4, element v % 4).
struct FragmentTiles {
  SmallVector<Value, 4> firstRow;
  int64_t cols = 0;
};

/// Row and tile column (i32) of accumulator v of tile m.
std::pair<Value, Value> fragmentPlace(KernelIR &ir, const KernelPrologue &kp,
                                      const FragmentTiles &tiles, int64_t m,
                                      int64_t v);

/// Columns a warp stages at a time: 32, or fewer for a narrower tile.
inline int64_t stagingChunkCols(int64_t tileCols) {
  return std::min<int64_t>(32, tileCols);
}
/// Bytes of one warp's staging region (FragmentStores.cpp): at most 2560,
/// for f32 results or a residual's f32 products staged 16 rows x 32
/// columns with 16 bytes of padding per line.
int64_t stagingRegionBytes(const Problem &pb, int64_t tileCols);

/// Writes the warp's results through `region` (shared memory of
/// stagingRegionBytes, which nothing else uses meanwhile: the caller's
/// barrier) as 16-byte vectors; elements a vector cannot take (ragged
/// edges, rows not 16-byte aligned) one by one. `column(c)` maps tile
/// column c (i32) to Out; where Out is not transposed (a sparse lhs's R x
/// P), consecutive tile columns must be consecutive p. Every lane of the
/// warp must reach it (bar.warp.sync).
void storeFragmentsAsVectors(KernelIR &ir, const Problem &pb,
                             const KernelPrologue &kp,
                             const FragmentTiles &tiles,
                             function_ref<TileColumn(Value)> column,
                             Value region, ArrayRef<Value> acc);

} // namespace mlir::stc::gpu_kernel

#endif // STC_PASSES_GPU_FRAGMENTSTORES_H
