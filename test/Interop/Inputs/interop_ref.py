#!/usr/bin/env python3
"""Expected output of the test/Interop programs, computed with NumPy.

Each program builds its matrices from index formulas (tensor.generate or
scf loops) and prints results with vector.print. This script builds the same
matrices from the same formulas, computes what the program must print
(pruning by magnitude where the program asks for 2:4, products in exact
integer arithmetic rounded once to the result type) and writes FileCheck
lines: `python interop_ref.py CASE > %t.check` then
`stc-run prog.mlir | FileCheck %t.check`.

Pruning rule (STC's, written here independently of the compiler): in every
group of 4 consecutive elements along the reduction dimension, the 2 of
largest magnitude are kept, the lower index winning ties; the others are 0.
"""
import sys

import numpy as np


def prune_2to4(a, axis):
    """Keeps the 2 largest magnitudes of every 4 along `axis`."""
    moved = np.moveaxis(np.array(a, dtype=np.float64), axis, -1)
    out = np.zeros_like(moved)
    k = moved.shape[-1]
    for idx in np.ndindex(moved.shape[:-1]):
        row = moved[idx]
        for start in range(0, k, 4):
            group = row[start:start + 4]
            # Stable sort of -|x|: equal magnitudes keep index order.
            order = np.argsort(-np.abs(group), kind="stable")
            for j in order[:2]:
                out[idx + (start + j,)] = group[j]
    return np.moveaxis(out, -1, axis)


def fmt(v):
    """A number as vector.print writes integral values; zeros of either
    sign match."""
    v = float(v)
    assert v == int(v), v
    if v == 0:
        return "{{-?}}0"
    return str(int(v))


def rows(m):
    return ["( " + ", ".join(fmt(x) for x in row) + " )" for row in m]


def to_type(m, dtype):
    """Exact values rounded once to the program's result type."""
    if dtype == "f16":
        return np.array(m, dtype=np.float64).astype(np.float16).astype(np.float64)
    if dtype == "bf16":
        f = np.array(m, dtype=np.float32)
        bits = f.view(np.uint32).astype(np.uint64)
        rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
        return rounded.astype(np.uint32).view(np.float32).astype(np.float64)
    return np.array(m, dtype=np.float64)


def gen(shape, f):
    return np.fromfunction(np.vectorize(f), shape, dtype=np.int64).astype(np.float64)


def emit(lines, prefix="CHECK"):
    first = True
    for line in lines:
        print(("%s: " if first else "%s-NEXT: ") % prefix + line)
        first = False


# --- cases -------------------------------------------------------------------


def convert_prune():
    # convert-prune.mlir: A 8x16 (run-time and constant), B 16x8.
    a = gen((8, 16), lambda i, j: (i * 7 + j * 5) % 13 - 6)
    b = gen((16, 8), lambda i, j: (i * 3 + j * 11) % 7 - 3)
    pa = prune_2to4(a, 1)
    lines = rows(pa) + rows(pa @ b)
    # f16 copy of the same program: products exact, one rounding.
    lines += rows(to_type(pa @ b, "f16"))
    emit(lines)


def convert_prune_f64():
    # convert-prune-f64.mlir: the same A and B as convert-prune.mlir, f64.
    a = gen((8, 16), lambda i, j: (i * 7 + j * 5) % 13 - 6)
    b = gen((16, 8), lambda i, j: (i * 3 + j * 11) % 7 - 3)
    pa = prune_2to4(a, 1)
    emit(rows(pa) + rows(pa @ b))


def calls():
    # call-boundary.mlir: A 8x32 pruned in @main, used by callees.
    a = gen((8, 32), lambda i, j: (i * 5 + j * 3) % 11 - 5)
    b = gen((32, 4), lambda i, j: (i + 2 * j) % 5 - 2)
    pa = prune_2to4(a, 1)
    prod = pa @ b
    emit(rows(prod) + rows(prod + prod) + rows(pa[:2]))


def gpu_spmm():
    # gpu-spmm.mlir: A 16x32 (PRUNE_AND_CHECK, in place), B 32x16,
    # C 16x16 starting at 1 (C accumulates), f16.
    a = gen((16, 32), lambda i, j: (i * 5 + j * 7) % 11 - 5)
    b = gen((32, 16), lambda i, j: (i * 5 + j) % 7 - 3)
    c = np.ones((16, 16))
    pa = prune_2to4(a, 1)
    emit(rows(pa) + rows(to_type(pa @ b + c, "f16")))


def gpu_spmm_variants():
    # gpu-spmm-variants.mlir.
    lines = []
    # @transposed_b: A 8x16 (NONE, already 2:4 by construction), B^T given
    # as 8x16 (N x K), f32 C 8x8 accumulating 2.
    a = gen((8, 16), lambda i, j: ((i + j) % 5 - 2) if j % 2 == 0 else 0)
    bt = gen((8, 16), lambda i, j: (i * 2 + j) % 3 - 1)
    lines += rows(a @ bt.T + 2)
    # @flat_bf16: A 8x16 flat buffer pruned (PRUNE_ONLY), B 16x8, bf16 C.
    a = gen((8, 16), lambda i, j: (i * 5 + j * 3) % 9 - 4)
    b = gen((16, 8), lambda i, j: (i + j * 3) % 5 - 2)
    lines += rows(to_type(prune_2to4(a, 1) @ b, "bf16"))
    # @int8: A 8x32 i8 pruned, B 32x8 i8, C i32 starting at -1.
    a = gen((8, 32), lambda i, j: (i * 9 + j * 13) % 31 - 15)
    b = gen((32, 8), lambda i, j: (i * 3 + j * 5) % 17 - 8)
    lines += rows(prune_2to4(a, 1) @ b - 1)
    emit(lines)


def read_mtx(path):
    with open(path) as f:
        lines = [l for l in f if not l.startswith("%")]
    rows, cols, _ = map(int, lines[0].split())
    m = np.zeros((rows, cols))
    for line in lines[1:]:
        i, j, v = line.split()
        m[int(i) - 1, int(j) - 1] = float(v)
    return m


def mixed():
    # mixed-stc-upstream.mlir: Inputs/small.mtx times its constant B, by
    # STC's 2:4 kernel and by upstream's CSR kernel (2-D vectors).
    import os
    a = read_mtx(os.path.join(os.path.dirname(__file__), "small.mtx"))
    b = np.array([[1, 2, 0, -1], [0, 1, 3, 1], [2, 0, 1, 0], [1, 1, 1, 1],
                  [-2, 0, 0, 4], [0.5, 0.5, 0, 0], [0, 3, -1, 2], [1, 0, 2, 0]])
    assert (prune_2to4(a, 1) == a).all()
    line = "( " + ", ".join(rows(a @ b)) + " )"
    emit([line, line])


def npy_data():
    rng = np.random.default_rng(22)
    a = rng.standard_normal((6, 8))
    a[rng.random((6, 8)) < 0.5] = 0.0
    b = rng.standard_normal((8, 3))
    w = rng.standard_normal((6, 8)).astype(np.float32)
    a24 = prune_2to4(rng.standard_normal((6, 8)), 1)
    return a, b, w, a24


def npy_inputs(out):
    # entry-dense-abi.mlir: the arrays its entry points take.
    a, b, w, a24 = npy_data()
    np.save(out + "/a.npy", a)
    np.save(out + "/b.npy", b)
    np.save(out + "/b32.npy", b.astype(np.float32))
    np.save(out + "/w.npy", w)
    np.save(out + "/a24.npy", a24)


def npy_check(out):
    a, b, w, a24 = npy_data()
    expected = {
        "csr.npy": (a @ b, 1e-12),
        "pruned.npy": (prune_2to4(w.astype(np.float64), 1), 0.0),
        "f64.npy": (a24 @ b, 1e-12),
    }
    for name, (want, tol) in expected.items():
        got = np.load(out + "/" + name)
        ok = got.shape == want.shape and np.allclose(got, want, rtol=tol,
                                                     atol=tol)
        print("%s: %s" % (name, "ok" if ok else "MISMATCH\n%s\n%s" % (got, want)))


CASES = {
    "mixed": mixed,
    "convert-prune": convert_prune,
    "convert-prune-f64": convert_prune_f64,
    "calls": calls,
    "gpu-spmm": gpu_spmm,
    "gpu-spmm-variants": gpu_spmm_variants,
}

if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "npy-inputs":
        sys.exit(npy_inputs(sys.argv[2]))
    if len(sys.argv) == 3 and sys.argv[1] == "npy-check":
        sys.exit(npy_check(sys.argv[2]))
    if len(sys.argv) != 2 or sys.argv[1] not in CASES:
        sys.exit("usage: interop_ref.py {" + ",".join(CASES) + "}")
    CASES[sys.argv[1]]()
