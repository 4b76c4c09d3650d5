#!/usr/bin/env python3
"""Writes the matrices of the pruning quality benchmark and its job list.

  make_inputs.py OUT_DIR [--quick] > jobs.tsv

Every matrix is generated here, seeded, as a .npy (rows x K, K the reduction
dimension along axis 1):

  * gauss_<rows>x<K>_s<seed>: standard normal, numpy's PCG64
    (np.random.default_rng(seed)), float32;
  * asp_rand_128x64: np.random.seed(1); np.random.rand(128, 64), the matrix
    that NVIDIA Apex's permutation_test.py builds with its defaults and
    `--channels 64 --filters 128` (its README reports results on it);
  * the nn.Linear weights [out, in] of examples/mlp.mlir and
    examples/transformer_ffn.mlir, read back from their dense_resource blobs
    with examples/gen_examples.py.

The job list (TSV: name, path, source, maxRounds, timeBudgetSeconds,
searchSeed) is written to stdout.  The search is bounded by maxRounds (a
fixed amount of work, so results are reproducible); the time budget is only a
safety net and is reported when it cuts a search short.
"""

import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "examples"))
import gen_examples  # noqa: E402

GAUSSIAN = [  # (rows, K, seeds)
    (64, 128, (1, 2, 3)),
    (128, 256, (1, 2, 3)),
    (512, 512, (1, 2)),
    (1024, 1024, (1,)),
    (4096, 4096, (1,)),
]
QUICK_GAUSSIAN = [(64, 128, (1,)), (128, 256, (1,))]
SEARCH_SEED = 1


def search_bounds(rows, cols):
    """(maxRounds, timeBudgetSeconds) by size: about 1 s of search on one
    core for the small matrices, 2-3 s for 1024x1024 and 20 s for
    4096x4096 (a round is 5-25 ms of work depending on the shape)."""
    n = rows * cols
    if n <= 40000:
        return 40, 5.0
    if n <= 300000:
        return 100, 10.0
    if n <= 1100000:
        return 400, 20.0
    return 2500, 30.0


def main(argv):
    quick = "--quick" in argv
    argv = [a for a in argv if a != "--quick"]
    if len(argv) != 1:
        sys.stderr.write(__doc__)
        return 2
    out = argv[0]
    os.makedirs(out, exist_ok=True)
    jobs = []

    def add(name, array, source):
        path = os.path.join(out, name + ".npy")
        np.save(path, array)
        rounds, budget = search_bounds(*array.shape)
        jobs.append((name, path, source, rounds, budget, SEARCH_SEED))

    np.random.seed(seed=1)
    add("asp_rand_128x64", np.random.rand(128, 64),
        "np.random.seed(1); np.random.rand(128, 64): Apex permutation_test.py"
        " --channels 64 --filters 128")
    for rows, cols, seeds in (QUICK_GAUSSIAN if quick else GAUSSIAN):
        for seed in seeds:
            rng = np.random.default_rng(seed)
            add("gauss_%dx%d_s%d" % (rows, cols, seed),
                rng.standard_normal((rows, cols), dtype=np.float32),
                "np.random.default_rng(%d).standard_normal((%d, %d))"
                % (seed, rows, cols))
    for prog in ("mlp.mlir", "transformer_ffn.mlir"):
        with open(os.path.join(ROOT, "examples", prog)) as f:
            consts = gen_examples.read_constants(f.read())
        weights = [c for c in consts if c.ndim == 2]
        for i, w in enumerate(weights):
            name = "%s_linear%d_%dx%d" % (prog[:-5], i, w.shape[0], w.shape[1])
            add(name, w.astype(np.float32),
                "examples/%s nn.Linear weight %d [out, in]" % (prog, i))
            if quick:
                break
    for job in jobs:
        print("\t".join(str(x) for x in job))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
