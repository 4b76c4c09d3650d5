"""Runs `stc-opt PROGRAM --stc-pipeline=sparsity=force -o OUTPUT` on a
generated program (many copies of a small matmul function) and kills it
with SIGKILL while its pipeline runs, as the kernel's OOM killer would (no
signal handler runs, so nothing can clean up after the fact); exits 0 once
the process died of that signal. The caller then checks that
OUTPUT does not exist. The program grows until the pipeline takes long
enough to be interrupted (the process must still be running when it is
signalled).

usage: abort_midway.py STC_OPT OUTPUT"""
import os
import signal
import subprocess
import sys
import tempfile
import time

FUNCTION = """
func.func @f{i}(%x: tensor<32x64xf32>, %w: tensor<64x48xf32>) -> tensor<32x48xf32> {{
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x48xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<32x48xf32>) -> tensor<32x48xf32>
  %r = linalg.matmul ins(%x, %w : tensor<32x64xf32>, tensor<64x48xf32>)
                     outs(%z : tensor<32x48xf32>) -> tensor<32x48xf32>
  return %r : tensor<32x48xf32>
}}
"""

stc_opt, output = sys.argv[1:3]
for copies in (100, 400, 1600, 6400):
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
        for i in range(copies):
            f.write(FUNCTION.format(i=i))
        path = f.name
    proc = subprocess.Popen([stc_opt, path, "--stc-pipeline=sparsity=force",
                             "-o", output], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    time.sleep(0.5)
    running = proc.poll() is None
    if running:
        proc.send_signal(signal.SIGKILL)
    proc.wait()
    os.unlink(path)
    if running:
        if proc.returncode != -signal.SIGKILL:
            sys.exit("stc-opt exited with %d, not SIGKILL" % proc.returncode)
        sys.exit(0)
    if os.path.exists(output):
        os.unlink(output)
sys.exit("stc-opt always finished before it could be interrupted")
