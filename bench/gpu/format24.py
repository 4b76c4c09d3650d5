"""2:4 pruning and the canonical compressed format (docs/DESIGN.md §3), for
the GPU GEMM benchmark.

One implementation, written over a tiny array interface so that the same code
runs on NumPy arrays (here, where test/Bench/format24.test checks it against
test/lib/stc_ref.py) and on torch CUDA tensors (on the GPU machine, where
gemm_bench.py uses it to prepare the kernels' inputs). It only uses
operations whose results are exact in both libraries: comparisons, selects,
small-integer arithmetic and stacking. No sorting, no floating-point
arithmetic on the values.

Operand: A is rows x K, sparse along K (axis 1), K a multiple of 16.
- prune24(A): keeps the 2 largest magnitudes of each group of 4 consecutive
  elements of a row, ties to the lower index (as stc_ref.prune_nm).
- compress24(P): P must have at most 2 non-zeros per group; values rows x K/2
  (the two kept elements of each group, increasing column order), metadata
  rows x K/16 (per group a nibble: first kept index in bits 1:0, second in
  bits 3:2; group j of each run of four at bits 4j+3..4j). A group with fewer
  than two non-zeros keeps its non-zeros, then its lowest-index zeros (as
  stc_ref.compress). Metadata is uint16 for NumPy and int16 (same bits) for
  torch, which has no general uint16 arithmetic.
- decompress24(values, meta): the inverse; rejects illegal nibbles.

Imports only NumPy (lazily); torch is imported only by TorchOps.
"""

#: Legal 2:4 nibbles and their kept indices (docs/DESIGN.md §3).
LEGAL_NIBBLES = {0x4: (0, 1), 0x8: (0, 2), 0xC: (0, 3), 0x9: (1, 2),
                 0xD: (1, 3), 0xE: (2, 3)}


class FormatError(ValueError):
    """An operand that is not 2:4, or metadata that is not legal."""


class NumpyOps:
    """The array interface over NumPy."""

    name = "numpy"

    def __init__(self):
        import numpy as np
        self.np = np

    def where(self, cond, a, b):
        return self.np.where(cond, a, b)

    def stack_last(self, arrays):
        return self.np.stack(arrays, axis=-1)

    def to_i32(self, x):
        return x.astype(self.np.int32)

    def zeros_like(self, x):
        return self.np.zeros_like(x)

    def abs(self, x):
        return self.np.abs(x)

    def any(self, x):
        return bool(self.np.any(x))

    def meta_out(self, word):
        """int32 metadata words (0..0xFFFF) -> the format's uint16."""
        return word.astype(self.np.uint16)

    def meta_in(self, meta):
        """Metadata of either signedness -> int32 words 0..0xFFFF."""
        return meta.astype(self.np.int64).astype(self.np.int32) & 0xFFFF

    def first_index(self, cond):
        """(row, column) of the first True of a 2-D boolean array."""
        r, c = self.np.argwhere(cond)[0]
        return int(r), int(c)


class TorchOps:
    """The array interface over torch tensors (any device)."""

    name = "torch"

    def __init__(self):
        import torch
        self.torch = torch

    def where(self, cond, a, b):
        return self.torch.where(cond, a, b)

    def stack_last(self, arrays):
        return self.torch.stack(arrays, dim=-1)

    def to_i32(self, x):
        return x.to(self.torch.int32)

    def zeros_like(self, x):
        return self.torch.zeros_like(x)

    def abs(self, x):
        return self.torch.abs(x)

    def any(self, x):
        return bool(self.torch.any(x).item())

    def meta_out(self, word):
        """int32 words 0..0xFFFF -> int16 with the same 16 bits."""
        t = self.torch
        return t.where(word >= 32768, word - 65536, word).to(t.int16)

    def meta_in(self, meta):
        t = self.torch
        w = meta.to(t.int32)
        return t.where(w < 0, w + 65536, w)

    def first_index(self, cond):
        r, c = self.torch.nonzero(cond)[0].tolist()
        return int(r), int(c)


def numpy_ops():
    return NumpyOps()


def _groups(ops, a):
    """rows x K -> the four columns g0..g3 of the rows x K/4 groups."""
    if len(a.shape) != 2:
        raise FormatError("expected a 2-D operand, got shape %s" % (tuple(a.shape),))
    rows, k = a.shape
    if k % 16:
        raise FormatError("K=%d is not a multiple of 16 (one metadata word "
                          "covers 16 columns)" % k)
    g = a.reshape((rows, k // 4, 4))
    return [g[:, :, i] for i in range(4)]


def _top2(ops, s):
    """For four score arrays s[0..3] (same shape), returns (idx0, idx1), the
    int32 indices of the two highest scores, ties to the lower index
    (index i beats a later index j unless s[j] > s[i]), idx0 < idx1."""
    rank = [None] * 4
    for i in range(4):
        for j in range(i + 1, 4):
            j_beats_i = s[j] > s[i]
            a = ops.to_i32(j_beats_i)
            rank[i] = a if rank[i] is None else rank[i] + a
            b = 1 - a
            rank[j] = b if rank[j] is None else rank[j] + b
    keep = [r < 2 for r in rank]
    # Exactly two of the four ranks are < 2 (the ranks are 0..3): the first
    # kept index is 0, 1 or 2, the second 1, 2 or 3. Integer arithmetic on
    # the 0/1 flags (exact in both libraries, no scalar selects).
    k0, k1, k2, k3 = [ops.to_i32(x) for x in keep]
    idx0 = (1 - k0) * (2 - k1)
    idx1 = 3 * k3 + (1 - k3) * (1 + k2)
    return idx0, idx1, keep


def prune24(a, ops=None):
    """Keeps the two largest magnitudes of each group of four along K (ties
    to the lower index); returns an array of a's shape and dtype."""
    ops = ops or numpy_ops()
    g = _groups(ops, a)
    mag = [ops.abs(x) for x in g]
    _, _, keep = _top2(ops, mag)
    z = ops.zeros_like(g[0])
    pruned = ops.stack_last([ops.where(keep[i], g[i], z) for i in range(4)])
    return pruned.reshape(a.shape)


def compress24(p, ops=None):
    """Canonical compression of a 2:4-sparse rows x K operand; returns
    (values rows x K/2 of p's dtype, metadata rows x K/16)."""
    ops = ops or numpy_ops()
    g = _groups(ops, p)
    nz = [ops.to_i32(x != 0) for x in g]
    count = nz[0] + nz[1] + nz[2] + nz[3]
    if ops.any(count > 2):
        r, grp = ops.first_index(count > 2)
        raise FormatError("compress24: not 2:4 sparse: row %d, group %d "
                          "(columns %d..%d) has more than 2 non-zeros"
                          % (r, grp, 4 * grp, 4 * grp + 3))
    idx0, idx1, _ = _top2(ops, nz)
    v0 = ops.where(idx0 == 0, g[0], ops.where(idx0 == 1, g[1], g[2]))
    v1 = ops.where(idx1 == 3, g[3], ops.where(idx1 == 2, g[2], g[1]))
    rows, k = p.shape
    values = ops.stack_last([v0, v1]).reshape((rows, k // 2))
    nib = (idx0 + 4 * idx1).reshape((rows, k // 16, 4))
    word = (nib[:, :, 0] + 16 * nib[:, :, 1] + 256 * nib[:, :, 2]
            + 4096 * nib[:, :, 3])
    return values, ops.meta_out(word)


def decompress24(values, meta, ops=None):
    """Rebuilds the dense rows x K operand (K = 2 * values' columns) from the
    canonical format; raises FormatError on shapes or illegal nibbles."""
    ops = ops or numpy_ops()
    rows, half = values.shape
    k = 2 * half
    if k % 16 or tuple(meta.shape) != (rows, k // 16):
        raise FormatError("decompress24: values %s and metadata %s do not "
                          "match (expected metadata %s)"
                          % (tuple(values.shape), tuple(meta.shape),
                             (rows, k // 16)))
    word = ops.meta_in(meta)
    nibs = [(word // (16 ** j)) % 16 for j in range(4)]
    nib = ops.stack_last(nibs).reshape((rows, k // 4))
    idx0 = nib % 4
    idx1 = nib // 4
    bad = idx0 >= idx1
    if ops.any(bad):
        r, grp = ops.first_index(bad)
        raise FormatError("decompress24: illegal nibble at row %d, group %d "
                          "(legal: 0x4 0x8 0xC 0x9 0xD 0xE)" % (r, grp))
    v = values.reshape((rows, k // 4, 2))
    v0, v1 = v[:, :, 0], v[:, :, 1]
    z = ops.zeros_like(v0)
    dense = ops.stack_last([ops.where(idx0 == i, v0, ops.where(idx1 == i, v1, z))
                            for i in range(4)])
    return dense.reshape((rows, k))
