"""Independent NumPy reference for STC end-to-end tests.

This module is deliberately written from the format description in
docs/DESIGN.md (§3, "The 2:4 format (canonical)") and *not* ported from
the C++ runtime, so that the two implementations check each other.  It needs
only python3 and numpy.

Contents
  Rounding     : to_f16, to_bf16, round_to
  N:M sparsity : prune_nm, is_nm, compress, decompress, tile_masks,
                 prune_tile, strip_mask, permute_axis
  References   : apply_act, gelu, spmm_ref, spmm_compressed_ref,
                 conv2d_nhwc_ref
  Metrics      : rel_error

Conventions
  * All references compute in float64 and return float64 arrays.
  * `axis` always names the *reduction* axis along which groups of `m`
    consecutive elements are formed (for `X @ W` the weight W is sparse along
    axis 0; for the canonical M x K operand A it is axis 1 / -1).
"""

import math

import numpy as np

__all__ = [
    "to_f16", "to_bf16", "round_to", "prune_nm", "is_nm", "compress",
    "decompress", "tile_masks", "prune_tile", "strip_mask", "permute_axis", "apply_act", "gelu", "spmm_ref", "spmm_compressed_ref",
    "conv2d_nhwc_ref", "rel_error", "LEGAL_NIBBLES_2_4", "LEGAL_NIBBLES_1_2",
]

#: Legal metadata nibbles of a 2:4 group, mapped to their kept indices.
LEGAL_NIBBLES_2_4 = {0x4: (0, 1), 0x8: (0, 2), 0xC: (0, 3), 0x9: (1, 2),
                     0xD: (1, 3), 0xE: (2, 3)}
#: Legal metadata nibbles of a 1:2 (tf32/f32) group, mapped to the kept index.
LEGAL_NIBBLES_1_2 = {0x4: 0, 0xE: 1}


# ---------------------------------------------------------------------------
# Rounding helpers
# ---------------------------------------------------------------------------

def to_f16(x):
    """Rounds `x` to IEEE half precision (nearest even); returns float16."""
    with np.errstate(over="ignore"):
        return np.asarray(x, dtype=np.float64).astype(np.float16)


def to_bf16(x):
    """Rounds `x` to bfloat16 (top 16 bits of a float32, round to nearest
    even; NaN stays NaN) and returns the result as float32 (numpy has no
    bfloat16 dtype)."""
    f = np.ascontiguousarray(np.asarray(x, dtype=np.float32))
    u = f.view(np.uint32).astype(np.uint64)
    rounded = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16) << 16
    out = rounded.astype(np.uint32).view(np.float32).copy()
    nan = np.isnan(f)
    out[nan] = np.nan
    return out.reshape(f.shape)


def round_to(x, dtype):
    """Rounds `x` to the element type `dtype` ('f32', 'f16', 'bf16', 'f64')
    and returns float64 holding exactly the rounded values."""
    if dtype in ("f32", "tf32"):
        return np.asarray(x, np.float32).astype(np.float64)
    if dtype == "f16":
        return to_f16(x).astype(np.float64)
    if dtype == "bf16":
        return to_bf16(x).astype(np.float64)
    if dtype == "f64":
        return np.asarray(x, np.float64)
    raise ValueError("round_to: unknown dtype %r" % (dtype,))


# ---------------------------------------------------------------------------
# N:M structured sparsity
# ---------------------------------------------------------------------------

def _groups(w, m, axis):
    """Moves `axis` last, zero-pads it to a multiple of `m` and returns
    (grouped array of shape (..., G, m), original length)."""
    w = np.moveaxis(np.asarray(w), axis, -1)
    k = w.shape[-1]
    pad = (-k) % m
    if pad:
        widths = [(0, 0)] * (w.ndim - 1) + [(0, pad)]
        w = np.pad(w, widths)
    return w.reshape(w.shape[:-1] + ((k + pad) // m, m)), k


def prune_nm(w, n=2, m=4, axis=-1):
    """Keeps the `n` largest-magnitude elements of every group of `m`
    consecutive elements along `axis` and zeroes the others.

    Ties go to the lower index (stable argsort on -|x|).  An axis whose length
    is not a multiple of `m` is padded with zeros internally and cropped back.
    Returns an array of the same shape and dtype as `w`.
    """
    w = np.asarray(w)
    if not 0 < n <= m:
        raise ValueError("prune_nm: need 0 < n <= m, got %d:%d" % (n, m))
    g, k = _groups(w, m, axis)
    order = np.argsort(-np.abs(g.astype(np.float64)), axis=-1, kind="stable")
    keep = np.zeros(g.shape, dtype=bool)
    np.put_along_axis(keep, order[..., :n], True, axis=-1)
    pruned = np.where(keep, g, np.zeros((), dtype=g.dtype))
    pruned = pruned.reshape(pruned.shape[:-2] + (pruned.shape[-2] * m,))
    pruned = pruned[..., :k]
    return np.moveaxis(pruned, -1, axis).astype(w.dtype, copy=False)


def is_nm(w, n=2, m=4, axis=-1):
    """True if every group of `m` consecutive elements along `axis` (the last
    group zero-padded) has at most `n` non-zeros."""
    g, _ = _groups(w, m, axis)
    return bool(np.all(np.count_nonzero(g, axis=-1) <= n))


def tile_masks():
    """The 4x4 0/1 masks with exactly two ones in every row and every
    column, as 16-bit words (bit 4*r + c = row r, column c), in increasing
    order.  Found by brute force over all C(16, 8) masks with 8 ones."""
    import itertools
    words = []
    for ones in itertools.combinations(range(16), 8):
        bits = np.zeros((4, 4), dtype=int)
        for b in ones:
            bits[b // 4, b % 4] = 1
        if np.all(bits.sum(axis=0) == 2) and np.all(bits.sum(axis=1) == 2):
            words.append(sum(1 << b for b in ones))
    return sorted(words)


def prune_tile(w, axis=-1):
    """Transposable 2:4 tile pruning of the 2-D `w` whose reduction axis is
    `axis`: viewed as rows x K (rows = the other axis, columns = the
    reduction axis), every 4x4 tile (rows 4i..4i+3, columns 4j..4j+3) keeps
    the mask of `tile_masks()` with the largest sum of |w| over its kept
    elements, the first such mask in increasing word order on ties.  Rows
    and columns beyond the edges count as zeros.  Returns an array of w's
    shape and dtype with the other elements zeroed."""
    w = np.asarray(w)
    a = _as_rows(w, axis)
    rows, k = a.shape
    pr, pk = -(-rows // 4) * 4, -(-k // 4) * 4
    mag = np.zeros((pr, pk))
    mag[:rows, :k] = np.abs(a.astype(np.float64))
    masks = np.array([[(word >> b) & 1 for b in range(16)]
                      for word in tile_masks()], dtype=np.float64)
    keep = np.zeros((pr, pk), dtype=bool)
    for i in range(0, pr, 4):
        for j in range(0, pk, 4):
            scores = masks @ mag[i:i + 4, j:j + 4].reshape(16)
            best = int(np.argmax(scores))  # the first maximum
            keep[i:i + 4, j:j + 4] = masks[best].reshape(4, 4) > 0
    out = np.where(keep[:rows, :k], a, np.zeros((), dtype=a.dtype))
    return np.moveaxis(out, -1, axis).astype(w.dtype, copy=False)


def strip_mask(w, n=2, m=4, axis=-1):
    """The 0/1 mask (w's shape) of the elements prune_nm(w, n, m, axis)
    keeps, zeros included (same ranking: stable argsort on -|x|)."""
    g, k = _groups(np.asarray(w, np.float64), m, axis)
    order = np.argsort(-np.abs(g), axis=-1, kind="stable")
    keep = np.zeros(g.shape, dtype=bool)
    np.put_along_axis(keep, order[..., :n], True, axis=-1)
    keep = keep.reshape(keep.shape[:-2] + (keep.shape[-2] * m,))[..., :k]
    return np.moveaxis(keep, -1, axis).astype(np.float64)


def permute_axis(w, perm, axis):
    """w with its slices along `axis` reordered: new[..., i, ...] =
    old[..., perm[i], ...] (a channel permutation as stc-permute-channels
    prints it)."""
    return np.take(np.asarray(w), np.asarray(perm, dtype=np.int64),
                   axis=axis)


def _as_rows(w, axis):
    """Returns `w` (2-D) as rows x K with the reduction axis last."""
    w = np.asarray(w)
    if w.ndim != 2:
        raise ValueError("expected a 2-D operand, got shape %s" % (w.shape,))
    return np.moveaxis(w, axis, -1)


def _nibble(idx, n, m):
    if (n, m) == (2, 4):
        return idx[0] | (idx[1] << 2)
    if (n, m) == (1, 2):
        return 0x4 if idx[0] == 0 else 0xE
    raise NotImplementedError("canonical format exists for 2:4 and 1:2 only")


def compress(w, n=2, m=4, axis=-1):
    """Compresses the 2-D N:M-sparse operand `w` (sparse along `axis`, the
    reduction axis) into the canonical format of docs/DESIGN.md §3.

    rows = the non-reduction dimension, K = the reduction length, Kp = K
    rounded up to a multiple of 4*m (zero padded).  Returns (values, meta):
      values: rows x (Kp*n/m), same dtype as `w`, the kept elements of each
              group in increasing index order;
      meta:   uint16 rows x (Kp/(4*m)); group j of each run of four groups
              occupies bits [4j+3:4j].  2:4 nibble = idx0 | idx1 << 2;
              1:2 nibble 0x4 keeps element 0, 0xE keeps element 1.
    Groups with fewer than `n` non-zeros are completed with the lowest unused
    indices.  Raises ValueError if `w` is not N:M sparse.
    """
    if (n, m) not in ((2, 4), (1, 2)):
        raise NotImplementedError("canonical format exists for 2:4 and 1:2")
    a = _as_rows(w, axis)
    rows, k = a.shape
    kp = -(-k // (4 * m)) * (4 * m) if k else 0
    padded = np.zeros((rows, kp), dtype=a.dtype)
    padded[:, :k] = a
    groups = padded.reshape(rows, kp // m, m)
    counts = np.count_nonzero(groups, axis=-1)
    if np.any(counts > n):
        r, g = np.argwhere(counts > n)[0]
        raise ValueError("compress: not %d:%d sparse (row %d, group %d has %d "
                         "non-zeros)" % (n, m, r, g, counts[r, g]))
    # Keep every non-zero, then the lowest-index zeros: sort by the key
    # (is_zero, index) and take the first n, in increasing index order.
    key = (groups == 0) * m + np.arange(m)
    idx = np.sort(np.argsort(key, axis=-1, kind="stable")[..., :n], axis=-1)
    values = np.take_along_axis(groups, idx, axis=-1).reshape(
        rows, kp // m * n)
    if (n, m) == (2, 4):
        nib = idx[..., 0] | (idx[..., 1] << 2)
    else:
        nib = np.where(idx[..., 0] == 0, 0x4, 0xE)
    nib = nib.astype(np.uint32).reshape(rows, kp // (4 * m), 4)
    meta = np.zeros((rows, kp // (4 * m)), dtype=np.uint32)
    for j in range(4):
        meta |= nib[..., j] << (4 * j)
    return values, meta.astype(np.uint16)


def decompress(values, meta, k, n=2, m=4, axis=-1):
    """Inverse of `compress`: rebuilds the dense 2-D operand with reduction
    length `k`, the reduction dimension placed at `axis`.  Raises ValueError
    on illegal metadata nibbles or inconsistent shapes."""
    if (n, m) not in ((2, 4), (1, 2)):
        raise NotImplementedError("canonical format exists for 2:4 and 1:2")
    values = np.asarray(values)
    meta = np.asarray(meta).astype(np.uint16)
    rows = values.shape[0]
    kp = -(-k // (4 * m)) * (4 * m) if k else 0
    if values.shape != (rows, kp // m * n):
        raise ValueError("decompress: values shape %s, expected %s"
                         % (values.shape, (rows, kp // m * n)))
    if meta.shape != (rows, kp // (4 * m)):
        raise ValueError("decompress: meta shape %s, expected %s"
                         % (meta.shape, (rows, kp // (4 * m))))
    shifts = 4 * np.arange(4, dtype=np.uint32)
    nib = ((meta.astype(np.uint32)[..., None] >> shifts) & 0xF).reshape(
        rows, kp // m)
    table = LEGAL_NIBBLES_2_4 if (n, m) == (2, 4) else {
        k_: (v,) for k_, v in LEGAL_NIBBLES_1_2.items()}
    lut = np.full((16, n), -1, dtype=np.int64)
    for code, kept in table.items():
        lut[code] = kept
    idx = lut[nib]
    bad = np.argwhere(idx[..., 0] < 0)
    if bad.size:
        r, g = bad[0]
        raise ValueError("decompress: illegal %d:%d nibble 0x%X at row %d "
                         "group %d" % (n, m, nib[r, g], r, g))
    dense = np.zeros((rows, kp // m, m), dtype=values.dtype)
    np.put_along_axis(dense, idx, values.reshape(rows, kp // m, n), axis=-1)
    dense = dense.reshape(rows, kp)
    dense = dense[:, :k]
    return np.moveaxis(dense, -1, axis)


# ---------------------------------------------------------------------------
# Dense references (float64)
# ---------------------------------------------------------------------------

_erf = np.vectorize(math.erf, otypes=[np.float64])


def gelu(x, approximate="tanh"):
    """GELU in float64.  approximate='tanh':
    0.5*x*(1+tanh(sqrt(2/pi)*(x+0.044715*x^3))); approximate='erf' (or
    'none'): 0.5*x*(1+erf(x/sqrt(2)))."""
    x = np.asarray(x, np.float64)
    if approximate == "tanh":
        return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) *
                                        (x + 0.044715 * x ** 3)))
    if approximate in ("erf", "none"):
        return 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)))
    raise ValueError("gelu: approximate must be 'tanh' or 'erf'")


def apply_act(x, act="none", gelu_approximate="tanh"):
    """Applies an activation in float64: 'none', 'relu', 'gelu' (form chosen
    by `gelu_approximate`), 'gelu_tanh' or 'gelu_erf'."""
    x = np.asarray(x, np.float64)
    if act in (None, "none", "identity"):
        return x
    if act == "relu":
        return np.maximum(x, 0.0)
    if act == "gelu":
        return gelu(x, gelu_approximate)
    if act == "gelu_tanh":
        return gelu(x, "tanh")
    if act == "gelu_erf":
        return gelu(x, "erf")
    raise ValueError("apply_act: unknown activation %r" % (act,))


def spmm_ref(a, b, c=None, bias=None, alpha=1.0, beta=1.0, act="none",
             gelu_approximate="tanh", prune_a=None, prune_b=None):
    """float64 reference of act(alpha * (A @ B) + beta * C + bias).

    a: (..., M, K), b: (..., K, N) (batched matmul broadcasting as np.matmul);
    c: optional, broadcastable to the result; bias: optional, broadcast along
    the last axis (shape (N,)).  prune_a / prune_b: None, or (n, m) to prune
    A along K (its last axis) / B along K (its second-to-last axis) by
    magnitude first, as `--sparsity=force` does.
    """
    a = np.asarray(a, np.float64)
    b = np.asarray(b, np.float64)
    if prune_a is not None:
        a = prune_nm(a, prune_a[0], prune_a[1], axis=-1)
    if prune_b is not None:
        b = prune_nm(b, prune_b[0], prune_b[1], axis=-2)
    out = alpha * np.matmul(a, b)
    if c is not None:
        out = out + beta * np.asarray(c, np.float64)
    if bias is not None:
        out = out + np.asarray(bias, np.float64)
    return apply_act(out, act, gelu_approximate)


def spmm_compressed_ref(values, meta, k, b, n=2, m=4, **kwargs):
    """spmm_ref with A given in canonical compressed form (rows = M, sparse
    along K); extra keyword arguments go to `spmm_ref`."""
    a = decompress(values, meta, k, n, m, axis=-1)
    return spmm_ref(a, b, **kwargs)


def _pair(v):
    if isinstance(v, (tuple, list)):
        if len(v) != 2:
            raise ValueError("expected an int or a pair, got %r" % (v,))
        return int(v[0]), int(v[1])
    return int(v), int(v)


# ---------------------------------------------------------------------------
# Metrics
# ---------------------------------------------------------------------------

def rel_error(out, ref):
    """||out - ref||_2 / ||ref||_2 in float64 (Frobenius norm over all
    elements).  Returns inf if `out` has a NaN or an infinity where `ref` is
    finite, if the result is NaN, or if the shapes differ; 0 if both are all
    zeros; inf if only `ref` is."""
    out = np.asarray(out, np.float64)
    ref = np.asarray(ref, np.float64)
    if out.shape != ref.shape:
        return math.inf
    if np.any(~np.isfinite(out) & np.isfinite(ref)):
        return math.inf
    with np.errstate(invalid="ignore", over="ignore"):
        num = np.linalg.norm((out - ref).ravel())
        den = np.linalg.norm(ref.ravel())
    if den == 0.0:
        return 0.0 if num == 0.0 else math.inf
    err = float(num / den)
    return math.inf if math.isnan(err) else err


# ---------------------------------------------------------------------------
# Convolution with a 2:4-sparse filter (stc.conv)
# ---------------------------------------------------------------------------

def conv2d_nhwc_ref(x, w_fhwc, stride=1, dilation=1, pad_low=0, pad_high=0,
                    groups=1, bias=None, act=None, acc=None, alpha=1.0,
                    beta=0.0, padding=None):
    """float64 reference of stc.conv:
    act(alpha * conv(x, w) + beta * acc + bias), NHWC.

    x: N x H x W x (G*C); w_fhwc: (G*F) x KH x KW x C; stride, dilation:
    int or (h, w); pad_low / pad_high: int or (h, w) zeros before / after
    the image; groups: G (output channel o reads input channels
    [(o // F) * C, (o // F + 1) * C)); bias: optional (G*F,); act: None or a
    name accepted by apply_act; acc: optional, the result's shape.  For
    compatibility with the earlier version of this function, `padding` may
    be given instead of pad_low/pad_high: int, (ph, pw), or (top, bottom,
    left, right).  Returns N x OH x OW x (G*F) with
    OH = (H + pl + ph - dh*(KH-1) - 1) // sh + 1.

    Plain float64 loops over (kh, kw) with strided slices of the zero-padded
    input; independent of STC's im2col and compressed format.
    """
    x = np.asarray(x, np.float64)
    w = np.asarray(w_fhwc, np.float64)
    n, h, wd, c = x.shape
    f, kh, kw, cg = w.shape
    if c % groups or f % groups or cg != c // groups:
        raise ValueError("conv2d_nhwc_ref: C=%d, F=%d, filter C=%d do not fit "
                         "groups=%d" % (c, f, cg, groups))
    sh, sw = _pair(stride)
    dh, dw = _pair(dilation)
    if padding is not None:
        if isinstance(padding, (tuple, list)) and len(padding) == 4:
            pt, pb, pl, pr = (int(p) for p in padding)
        else:
            pt, pl = _pair(padding)
            pb, pr = pt, pl
    else:
        pt, pl = _pair(pad_low)
        pb, pr = _pair(pad_high)
    xp = np.pad(x, ((0, 0), (pt, pb), (pl, pr), (0, 0)))
    oh = (h + pt + pb - dh * (kh - 1) - 1) // sh + 1
    ow = (wd + pl + pr - dw * (kw - 1) - 1) // sw + 1
    if oh <= 0 or ow <= 0:
        raise ValueError("conv2d_nhwc_ref: empty output")
    fg = f // groups
    out = np.zeros((n, oh, ow, f), np.float64)
    for i in range(kh):
        for j in range(kw):
            patch = xp[:, i * dh:i * dh + (oh - 1) * sh + 1:sh,
                       j * dw:j * dw + (ow - 1) * sw + 1:sw, :]
            for g in range(groups):
                out[..., g * fg:(g + 1) * fg] += np.einsum(
                    "nhwc,fc->nhwf", patch[..., g * cg:(g + 1) * cg],
                    w[g * fg:(g + 1) * fg, i, j, :])
    out = alpha * out
    if acc is not None:
        out = out + beta * np.asarray(acc, np.float64)
    if bias is not None:
        out = out + np.asarray(bias, np.float64)
    return apply_act(out, act)


def prune_conv_filter_24(w_fhwc):
    """Prunes an F x KH x KW x C filter 2:4 along C for every (f, kh, kw):
    C is zero-padded to a multiple of 4 and in every group of four channels
    the two largest magnitudes are kept (ties to the lower index), the rule
    of stc.prune (strip) on the (F) x (KH*KW*Cp) matrix that stc.conv's
    filter is.  Returns float64 of the input's shape (padding dropped)."""
    w = np.asarray(w_fhwc, np.float64)
    f, kh, kw, c = w.shape
    cp = -(-c // 4) * 4
    padded = np.zeros((f, kh, kw, cp), np.float64)
    padded[..., :c] = w
    g = padded.reshape(f, kh, kw, cp // 4, 4)
    # Stable sort of -|x|: among equal magnitudes the lower index comes
    # first, so it is kept.
    order = np.argsort(-np.abs(g), axis=-1, kind="stable")[..., :2]
    mask = np.zeros(g.shape, bool)
    np.put_along_axis(mask, order, True, axis=-1)
    return np.where(mask, g, 0.0).reshape(f, kh, kw, cp)[..., :c]
