"""Copies a small, fixed subset of the .mlir seeds (make_seeds.py) to DEST
for the quick runs of the pipeline targets in the test suite: the programs
of test/GPU, test/E2E and test/Tools and the spmm/conv pass tests, at most
COUNT of them, smallest first (the campaigns of scripts/fuzz.sh take all).

usage: pick_seeds.py SEEDS_MLIR DEST COUNT"""
import os
import shutil
import sys

seeds, dest, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
os.makedirs(dest, exist_ok=True)
wanted = ("test_GPU_", "test_E2E_", "test_Tools_", "test_Passes_stc-lower-spmm",
          "test_Passes_stc-sparsify", "examples_")
names = sorted((os.path.getsize(os.path.join(seeds, n)), n)
               for n in os.listdir(seeds) if n.startswith(wanted))
for _, name in names[:count]:
    shutil.copy(os.path.join(seeds, name), dest)
print("pick_seeds.py: %d seeds" % min(count, len(names)))
