"""Independent NumPy checks of `stc-prune` outputs (test/Tools/stc-prune-*).

Written from the format descriptions (docs/DESIGN.md §3 for the 2:4
format, the safetensors specification for the files), not from the C++
code, so that the two check each other.  Needs python3 and numpy only; the
safetensors files are parsed and written here with struct and json.

Commands
  gen-npy PATH --shape 8,32 [--dtype f4|f2] [--seed N]
      a seeded random normal array without zeros.
  gen-st PATH [--seed N]
      a safetensors file mixing weights (F32/F16/BF16, linear and conv),
      biases, norms, an embedding, integer, F64 and scalar tensors.
  gen-bad PREFIX --kinds truncated,json,overlap,dtype,size,nan
      malformed safetensors files PREFIX<kind>.safetensors (nan: a valid
      one with a NaN weight).
  check-npy --input IN --output OUT [options]
  check-st --input IN --output OUT --pruned NAME,... [options]
      options: --axis A, --method strip|tile, --permute, --compress,
      --report R.json, --dense D (the dense output of the same run without
      --compress, which the decompressed output must equal, permuted).

Every check failure raises (non-zero exit) with a message.
"""

import argparse
import itertools
import json
import struct
import sys

import numpy as np

SIZES = {"BOOL": 1, "U8": 1, "I8": 1, "F8_E5M2": 1, "F8_E4M3": 1, "I16": 2,
         "U16": 2, "F16": 2, "BF16": 2, "I32": 4, "U32": 4, "F32": 4,
         "F64": 8, "I64": 8, "U64": 8}
LEGAL_NIBBLES = {0x4: (0, 1), 0x8: (0, 2), 0xC: (0, 3), 0x9: (1, 2),
                 0xD: (1, 3), 0xE: (2, 3)}
BITS_DTYPE = {"F32": "<u4", "F16": "<u2", "BF16": "<u2"}


def fail(msg):
    raise SystemExit("stc_prune_check: FAIL: " + msg)


def expect(cond, msg):
    if not cond:
        fail(msg)


# ---------------------------------------------------------------------------
# Element conversions
# ---------------------------------------------------------------------------

def bits_to_f64(dtype, bits):
    """float64 values of raw element bits (uint32 for F32, uint16 else)."""
    if dtype == "F32":
        return bits.astype("<u4").view("<f4").astype(np.float64)
    if dtype == "F16":
        return bits.astype("<u2").view("<f2").astype(np.float64)
    if dtype == "BF16":
        return (bits.astype(np.uint32) << 16).view("<f4").astype(np.float64)
    fail("not a float dtype: " + dtype)


def f32_to_bf16_bits(x):
    u = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)
    u = u.astype(np.uint64)
    return (((u + 0x7FFF + ((u >> 16) & 1)) >> 16)).astype(np.uint16)


def random_values(rng, shape):
    """Normal values with no zero (tests never use all-zero data)."""
    x = rng.standard_normal(shape)
    x[np.abs(x) < 1e-3] = 0.5
    return x


# ---------------------------------------------------------------------------
# safetensors, per the specification
# ---------------------------------------------------------------------------

def read_st(path, ours=False):
    """Parses a safetensors file; with `ours`, also checks what our writer
    promises (8-byte aligned buffer, every tensor aligned to its element
    size).  Returns ({name: (dtype, shape, bytes)}, metadata)."""
    data = open(path, "rb").read()
    expect(len(data) >= 8, path + ": shorter than 8 bytes")
    (n,) = struct.unpack("<Q", data[:8])
    expect(8 + n <= len(data), path + ": header length beyond the file")
    text = data[8:8 + n].decode("utf-8")
    expect(text.startswith("{"), path + ": header does not start with {")

    def no_duplicates(pairs):
        keys = [k for k, _ in pairs]
        expect(len(keys) == len(set(keys)), path + ": duplicate keys")
        return dict(pairs)

    header = json.loads(text, object_pairs_hook=no_duplicates)
    metadata = header.pop("__metadata__", {})
    if ours:
        # Deterministic: compact JSON, __metadata__ first (keys sorted), then
        # the tensors sorted by name, padded with fewer than 8 spaces to a
        # multiple of 8 bytes.
        expect(n % 8 == 0, path + ": header length %d not a multiple of 8" % n)
        compact = text.rstrip(" ")
        expect(len(text) - len(compact) < 8, path + ": too much padding")
        dump = lambda v: json.dumps(v, separators=(",", ":"),
                                    ensure_ascii=False, sort_keys=True)
        parts = ['"__metadata__":' + dump(metadata)] if metadata else []
        for name in sorted(header, key=lambda s: s.encode("utf-8")):
            info = header[name]
            parts.append('%s:{"dtype":%s,"shape":%s,"data_offsets":%s}' % (
                dump(name), dump(info["dtype"]), dump(info["shape"]),
                dump(info["data_offsets"])))
        expect(compact == "{" + ",".join(parts) + "}",
               path + ": header is not the deterministic compact form")
    expect(all(isinstance(k, str) and isinstance(v, str)
               for k, v in metadata.items()), path + ": bad __metadata__")
    buf = data[8 + n:]
    spans = sorted((tuple(v["data_offsets"]), k) for k, v in header.items())
    pos = 0
    for (begin, end), name in spans:
        expect(begin == pos, "%s: %s starts at %d, expected %d" %
               (path, name, begin, pos))
        expect(end >= begin, path + ": end before begin")
        pos = end
    expect(pos == len(buf), path + ": offsets do not cover the buffer")
    tensors = {}
    for name, info in header.items():
        expect(set(info) == {"dtype", "shape", "data_offsets"},
               path + ": keys of " + name)
        dtype, shape = info["dtype"], tuple(info["shape"])
        begin, end = info["data_offsets"]
        size = SIZES[dtype]
        expect(end - begin == int(np.prod(shape, dtype=np.int64)) * size,
               path + ": size of " + name)
        if ours:
            expect(begin % size == 0, "%s: %s at %d not aligned to %d" %
                   (path, name, begin, size))
        tensors[name] = (dtype, shape, buf[begin:end])
    return tensors, metadata


def write_st(path, tensors, metadata=None, order=None):
    """Writes a safetensors file by hand: `tensors` is a list of
    (name, dtype, shape, bytes), stored in the order `order` (indices)."""
    order = list(range(len(tensors))) if order is None else order
    header = {}
    if metadata:
        header["__metadata__"] = metadata
    pos = 0
    blobs = []
    for i in order:
        name, dtype, shape, raw = tensors[i]
        header[name] = {"dtype": dtype, "shape": list(shape),
                        "data_offsets": [pos, pos + len(raw)]}
        pos += len(raw)
        blobs.append(raw)
    text = json.dumps(header, indent=1).encode("utf-8") + b"   "
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for raw in blobs:
            f.write(raw)


# ---------------------------------------------------------------------------
# 2:4 references
# ---------------------------------------------------------------------------

def pad_cols(a, multiple):
    k = a.shape[-1]
    kp = -(-k // multiple) * multiple
    if kp == k:
        return a
    pad = np.zeros(a.shape[:-1] + (kp - k,), dtype=a.dtype)
    return np.concatenate([a, pad], axis=-1)


def strip_keep(mag):
    """Mask of magnitude pruning of rows x K: in each group of 4 the two
    largest magnitudes, the lower index first on ties."""
    rows, k = mag.shape
    m = pad_cols(mag, 4).reshape(rows, -1, 4)
    order = np.argsort(-m, axis=-1, kind="stable")
    keep = np.zeros(m.shape, dtype=bool)
    np.put_along_axis(keep, order[..., :2], True, axis=-1)
    return keep.reshape(rows, -1)[:, :k]


def check_24_rows(mag, what):
    rows = mag.shape[0]
    counts = (pad_cols(mag, 4).reshape(rows, -1, 4) != 0).sum(axis=-1)
    expect((counts <= 2).all(), what + ": not 2:4 along the reduction axis")


def tile_masks():
    masks = []
    for rows in itertools.product(itertools.combinations(range(4), 2),
                                  repeat=4):
        m = np.zeros((4, 4))
        for r, cols in enumerate(rows):
            m[r, list(cols)] = 1
        if (m.sum(axis=0) == 2).all():
            masks.append(m)
    expect(len(masks) == 90, "there are 90 transposable 4x4 masks")
    return np.array(masks)


MASKS = tile_masks()


def check_tile(mag_in, mag_out, what):
    """`mag_out` (rows x K) is 2:4 along K and along the rows, and each 4x4
    tile keeps the largest sum any of the 90 masks can keep."""
    check_24_rows(mag_out, what)
    a = pad_cols(mag_in, 4)
    b = pad_cols(mag_out, 4)
    rows = a.shape[0]
    rp = -(-rows // 4) * 4
    a = np.concatenate([a, np.zeros((rp - rows, a.shape[1]))])
    b = np.concatenate([b, np.zeros((rp - rows, b.shape[1]))])
    cols_nz = (b != 0).reshape(rp // 4, 4, -1).sum(axis=1)
    expect((cols_nz <= 2).all(), what + ": tile output not 2:4 along rows")
    ta = a.reshape(rp // 4, 4, -1, 4).transpose(0, 2, 1, 3).reshape(-1, 4, 4)
    tb = b.reshape(rp // 4, 4, -1, 4).transpose(0, 2, 1, 3).reshape(-1, 4, 4)
    best = np.einsum("tij,mij->tm", ta, MASKS).max(axis=1)
    kept = tb.sum(axis=(1, 2))
    expect(np.allclose(kept, best, rtol=1e-9, atol=0),
           what + ": a tile keeps less than the best of the 90 masks")
    return len(kept)


def decode(values_bits, meta, k):
    """Decompresses canonical rows (values: rows x Kp/2 bits, meta: rows x
    Kp/16 uint16) to rows x K bits, per docs/DESIGN.md §3."""
    rows, half = values_bits.shape
    kp = half * 2
    expect(meta.shape == (rows, kp // 16), "metadata shape")
    out = np.zeros((rows, kp), dtype=values_bits.dtype)
    for g in range(kp // 4):
        nib = (meta[:, g // 4].astype(np.uint32) >> (4 * (g % 4))) & 0xF
        for r in range(rows):
            expect(int(nib[r]) in LEGAL_NIBBLES,
                   "illegal nibble %#x (row %d group %d)" % (nib[r], r, g))
            i0, i1 = LEGAL_NIBBLES[int(nib[r])]
            out[r, 4 * g + i0] = values_bits[r, 2 * g]
            out[r, 4 * g + i1] = values_bits[r, 2 * g + 1]
    expect((out[:, k:] == 0).all(), "values stored in the padding")
    return out[:, :k]


def slices(rows_matrix, shape, axis):
    """The matrices the tool tile-prunes: one (outer x K) per inner index,
    or (inner x K) when there is no outer dimension."""
    outer = int(np.prod(shape[:axis], dtype=np.int64))
    inner = int(np.prod(shape[axis + 1:], dtype=np.int64))
    k = shape[axis]
    if outer == 1 and inner > 1:
        return [rows_matrix]
    r = rows_matrix.reshape(outer, inner, k)
    return [r[:, j, :] for j in range(inner)]


# ---------------------------------------------------------------------------
# One tensor
# ---------------------------------------------------------------------------

def check_tensor(name, dtype, shape, in_bits, axis, args, out_bits=None,
                 values_bits=None, meta=None, perm=None, dense_bits=None,
                 entry=None):
    """Checks one pruned tensor.  `in_bits`/`out_bits` have the tensor's
    shape (out_bits: dense output); `values_bits`/`meta`: compressed output;
    `perm`: the permutation (None without --permute); `entry`: its report
    entry (or None)."""
    what = "%s (%s %s axis %d)" % (name, dtype, list(shape), axis)
    k = shape[axis]
    rows_in = np.moveaxis(in_bits, axis, -1).reshape(-1, k)
    mag_in = np.abs(bits_to_f64(dtype, rows_in))
    expect((mag_in != 0).all(), what + ": the test input has zeros")
    order = np.arange(k) if perm is None else np.asarray(perm)
    expect(sorted(order.tolist()) == list(range(k)),
           what + ": perm is not a permutation of 0..K-1")
    total = mag_in.sum()

    strip = strip_keep(mag_in)
    kept_strip = (mag_in * strip).sum()

    # The pruned tensor in pruning (permuted) order, as bits.
    if out_bits is not None:
        rows_out = np.moveaxis(out_bits, axis, -1).reshape(-1, k)
        expect(((rows_out == rows_in) | (rows_out == 0)).all(),
               what + ": an output element is neither the input nor +0")
        pruned = rows_out[:, order]
    else:
        expect(values_bits is not None, "no output given")
        rows = rows_in.shape[0]
        vrows = values_bits.reshape(rows, -1)
        mrows = meta.reshape(rows, -1)
        kp = -(-k // 16) * 16
        expect(values_bits.shape == tuple(np.delete(shape, axis)) +
               (kp // 2,), what + ": values shape %s" % (values_bits.shape,))
        expect(meta.shape == tuple(np.delete(shape, axis)) + (kp // 16,),
               what + ": meta shape %s" % (meta.shape,))
        pruned = decode(vrows, mrows, k)
        expect(((pruned == rows_in[:, order]) | (pruned == 0)).all(),
               what + ": a decompressed element is neither input nor +0")
    if dense_bits is not None:
        rows_dense = np.moveaxis(dense_bits, axis, -1).reshape(-1, k)
        expect((pruned == rows_dense[:, order]).all(),
               what + ": compressed output differs from the dense run's")
    mag_pruned = np.abs(bits_to_f64(dtype, pruned))
    mag_perm_in = mag_in[:, order]

    if args.method == "strip":
        keep = strip_keep(mag_perm_in)
        expected = np.where(keep, rows_in[:, order], 0)
        expect((pruned == expected).all(),
               what + ": strip output differs from the 2 largest of each 4")
    else:
        for a, b in zip(slices(mag_perm_in, shape, axis),
                        slices(mag_pruned, shape, axis)):
            check_tile(a, b, what)
    check_24_rows(mag_pruned, what)

    kept = mag_pruned.sum()
    if entry is None:
        return
    expect(entry["name"] == name, "report name %r" % entry["name"])
    expect(entry["dtype"] == dtype, what + ": report dtype")
    expect(entry["shape"] == list(shape), what + ": report shape")
    expect(entry["axis"] == axis, what + ": report axis")
    expect(entry["method"] == args.method, what + ": report method")
    close = lambda a, b: abs(a - b) <= 1e-6 * max(1.0, abs(b))
    expect(close(entry["kept_ratio"], kept / total),
           what + ": kept_ratio %r, measured %r" %
           (entry["kept_ratio"], kept / total))
    expect(close(entry["kept_ratio_strip"], kept_strip / total),
           what + ": kept_ratio_strip %r, measured %r" %
           (entry["kept_ratio_strip"], kept_strip / total))
    if args.method == "strip":
        expect(entry["kept_ratio"] >= entry["kept_ratio_strip"] - 1e-12,
               what + ": the permutation made strip pruning worse")
    if args.permute:
        expect(entry["perm"] == list(order), what + ": report perm")
        ident = entry["kept_ratio_identity"]
        if args.method == "strip":
            expect(close(ident, kept_strip / total),
                   what + ": kept_ratio_identity")
        expect(entry["kept_ratio"] >= ident - 1e-12,
               what + ": the permutation lost magnitude")
        rec = (entry["kept_ratio"] - ident) / (1 - ident)
        expect(close(entry["recovered_fraction"], rec),
               what + ": recovered_fraction %r, expected %r" %
               (entry["recovered_fraction"], rec))
        expect("search_seconds" not in entry,
               what + ": no timing in the report (it must be reproducible)")
    else:
        expect(entry["perm"] is None and entry["recovered_fraction"] is None,
               what + ": perm/recovered_fraction without --permute")


def load_report(path):
    if not path:
        return None
    report = json.load(open(path))
    for key in ("tensors", "seed", "version"):
        expect(key in report, "report has no %r" % key)
    return report


# ---------------------------------------------------------------------------
# Commands
# ---------------------------------------------------------------------------

def npy_bits(arr):
    return arr.view("<u4" if arr.dtype == np.float32 else "<u2")


def cmd_gen_npy(args):
    rng = np.random.default_rng(args.seed)
    shape = tuple(int(s) for s in args.shape.split(","))
    np.save(args.path, random_values(rng, shape).astype(args.dtype))


def cmd_gen_st(args):
    rng = np.random.default_rng(args.seed)

    def f32(shape):
        return random_values(rng, shape).astype("<f4").tobytes()

    def f16(shape):
        return random_values(rng, shape).astype("<f2").tobytes()

    def bf16(shape):
        return f32_to_bf16_bits(random_values(rng, shape)).tobytes()

    tensors = [
        ("model.layers.0.mlp.up_proj.weight", "F32", (16, 32), f32((16, 32))),
        ("model.layers.0.mlp.down_proj.weight", "F16", (8, 48), f16((8, 48))),
        ("model.layers.0.self_attn.q_proj.weight", "BF16", (12, 20),
         bf16((12, 20))),
        ("conv1.weight", "F32", (8, 16, 3, 3), f32((8, 16, 3, 3))),
        ("conv0.weight", "F32", (8, 3, 3, 3), f32((8, 3, 3, 3))),
        ("tiny.weight", "F32", (5, 4), f32((5, 4))),
        ("model.layers.0.mlp.up_proj.bias", "F32", (16,), f32((16,))),
        ("model.norm.weight", "F16", (32,), f16((32,))),
        ("model.embed_tokens.weight", "F32", (50, 16), f32((50, 16))),
        ("position_ids", "I64", (1, 8),
         np.arange(8, dtype="<i8").tobytes()),
        ("lm_head.weight", "F64", (4, 8),
         random_values(rng, (4, 8)).astype("<f8").tobytes()),
        ("flags", "BOOL", (3,), bytes([1, 0, 1])),
        ("scale", "F32", (), f32(())),
    ]
    order = list(rng.permutation(len(tensors)))
    write_st(args.path, tensors, {"format": "pt", "source": "stc test"},
             order)


def cmd_gen_bad(args):
    for kind in args.kinds.split(","):
        gen_bad(args.prefix + kind + ".safetensors", kind)


def gen_bad(path, kind):
    w = np.arange(1, 9, dtype="<f4").tobytes()

    def header(h, data):
        text = json.dumps(h).encode()
        return struct.pack("<Q", len(text)) + text + data

    entry = {"dtype": "F32", "shape": [2, 4], "data_offsets": [0, 32]}
    if kind == "truncated":
        blob = header({"w": entry}, w)[:-5]
    elif kind == "json":
        text = b'{"w": {"dtype": "F32", "shape": [2, 4],, }}'
        blob = struct.pack("<Q", len(text)) + text + w
    elif kind == "overlap":
        blob = header({"w": entry,
                       "v": {"dtype": "F32", "shape": [2, 2],
                             "data_offsets": [16, 32]}}, w)
    elif kind == "dtype":
        blob = header({"w": dict(entry, dtype="F31")}, w)
    elif kind == "size":
        blob = header({"w": dict(entry, shape=[2, 3])}, w)
    elif kind == "nan":
        # Valid, but "b" holds a NaN (which --permute rejects).
        rng = np.random.default_rng(5)
        a = random_values(rng, (8, 16)).astype("<f4")
        b = random_values(rng, (8, 16)).astype("<f4")
        b[3, 5] = np.nan
        write_st(path, [("a", "F32", a.shape, a.tobytes()),
                             ("b", "F32", b.shape, b.tobytes())])
        return
    else:
        fail("unknown kind " + kind)
    open(path, "wb").write(blob)


def cmd_check_npy(args):
    x = np.load(args.input)
    dtype = {np.dtype("<f4"): "F32", np.dtype("<f2"): "F16"}[x.dtype]
    axis = args.axis if args.axis is not None else -1
    axis = axis % x.ndim
    report = load_report(args.report)
    entry = None
    if report:
        expect(len(report["tensors"]) == 1, "one tensor in the report")
        entry = report["tensors"][0]
    stem = args.output[:-len(".npy")]
    perm = None
    if args.permute:
        if args.compress:
            perm = np.load(stem + ".perm.npy")
            expect(perm.dtype == np.int64, "perm dtype")
            if entry:
                expect(entry["perm"] == perm.tolist(), "perm vs report")
        else:
            expect(entry is not None, "--permute needs --report to check")
            perm = entry["perm"]
    kwargs = {}
    if args.compress:
        values = np.load(args.output)
        expect(values.dtype == x.dtype, "values dtype")
        meta = np.load(stem + ".meta.npy")
        expect(meta.dtype == np.int16, "meta dtype %s" % meta.dtype)
        kwargs = dict(values_bits=npy_bits(values), meta=meta.view("<u2"))
    else:
        out = np.load(args.output)
        expect(out.dtype == x.dtype and out.shape == x.shape,
               "output dtype/shape")
        kwargs = dict(out_bits=npy_bits(out))
    if args.dense:
        kwargs["dense_bits"] = npy_bits(np.load(args.dense))
    check_tensor(entry["name"] if entry else "x", dtype, x.shape,
                 npy_bits(x), axis, args, perm=perm, entry=entry, **kwargs)
    print("stc_prune_check: ok")


def st_bits(dtype, shape, raw):
    return np.frombuffer(raw, dtype=BITS_DTYPE[dtype]).reshape(shape)


def cmd_check_st(args):
    tin, min_ = read_st(args.input)
    tout, mout = read_st(args.output, ours=True)
    pruned = [p for p in args.pruned.split(",") if p]
    report = load_report(args.report)
    entries = {}
    if report:
        entries = {e["name"]: e for e in report["tensors"]}
        expect(sorted(entries) == sorted(pruned),
               "report tensors %s, expected %s" % (sorted(entries),
                                                   sorted(pruned)))
    for key, value in min_.items():
        expect(mout.get(key) == value, "input metadata %r not kept" % key)
    expect("stc.version" in mout, "no stc.version metadata")
    dense = read_st(args.dense)[0] if args.dense else {}
    expected_names = set()
    for name, (dtype, shape, raw) in tin.items():
        if name not in pruned:
            expect(tout.get(name) == (dtype, shape, raw),
                   "unselected tensor %r changed" % name)
            expected_names.add(name)
            continue
        axis = (args.axis if args.axis is not None else 1) % len(shape)
        info = json.loads(mout["stc.prune." + name])
        expect(info["axis"] == axis and info["method"] == args.method and
               info["shape"] == list(shape), name + ": stc.prune metadata")
        entry = entries.get(name)
        perm = None
        kwargs = {}
        if args.compress:
            expect(mout.get("stc.format") == "stc-2:4-canonical-v1",
                   "stc.format metadata")
            expect(name not in tout, name + " still in the output")
            vd, vs, vr = tout[name + ".values"]
            md, ms, mr = tout[name + ".meta"]
            expect(vd == dtype and md == "U16", name + ": compressed dtypes")
            expect(info["values"] == name + ".values" and
                   info["meta"] == name + ".meta", name + ": names in info")
            expected_names |= {name + ".values", name + ".meta"}
            kwargs = dict(values_bits=st_bits(vd, vs, vr),
                          meta=np.frombuffer(mr, "<u2").reshape(ms))
            if args.permute:
                pd, ps, pr = tout[name + ".perm"]
                expect(pd == "I64" and ps == (shape[axis],), name + ": perm")
                perm = np.frombuffer(pr, "<i8").tolist()
                expected_names.add(name + ".perm")
                expect(info["permuted"] is True, name + ": permuted")
        else:
            od, os_, orw = tout[name]
            expect(od == dtype and os_ == shape, name + ": dtype/shape")
            kwargs = dict(out_bits=st_bits(od, os_, orw))
            expected_names.add(name)
            if args.permute:
                expect(entry is not None, "--permute needs --report to check")
                perm = entry["perm"]
        if args.dense:
            dd, ds, dr = dense[name]
            kwargs["dense_bits"] = st_bits(dd, ds, dr)
        check_tensor(name, dtype, shape, st_bits(dtype, shape, raw), axis,
                     args, perm=perm, entry=entry, **kwargs)
    expect(set(tout) == expected_names,
           "output tensors differ: extra %s, missing %s" %
           (sorted(set(tout) - expected_names),
            sorted(expected_names - set(tout))))
    print("stc_prune_check: ok")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("gen-npy")
    p.add_argument("path")
    p.add_argument("--shape", required=True)
    p.add_argument("--dtype", default="f4")
    p.add_argument("--seed", type=int, default=0)
    p = sub.add_parser("gen-st")
    p.add_argument("path")
    p.add_argument("--seed", type=int, default=0)
    p = sub.add_parser("gen-bad")
    p.add_argument("prefix")
    p.add_argument("--kinds", required=True)
    for name in ("check-npy", "check-st"):
        p = sub.add_parser(name)
        p.add_argument("--input", required=True)
        p.add_argument("--output", required=True)
        p.add_argument("--axis", type=int)
        p.add_argument("--method", default="strip",
                       choices=["strip", "tile"])
        p.add_argument("--permute", action="store_true")
        p.add_argument("--compress", action="store_true")
        p.add_argument("--report")
        p.add_argument("--dense")
        if name == "check-st":
            p.add_argument("--pruned", required=True)
    args = parser.parse_args()
    {"gen-npy": cmd_gen_npy, "gen-st": cmd_gen_st, "gen-bad": cmd_gen_bad,
     "check-npy": cmd_check_npy, "check-st": cmd_check_st}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
