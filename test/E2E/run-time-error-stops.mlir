// The failure rule (docs/RELIABILITY.md): a run-time error stops the call
// before any later op runs, before any kernel is launched with the failed
// op's outputs, and before anything is printed or written; stc-run prints
// the one error with its source location and exits 1.
//
// Each function below prints a marker before the op that fails and the
// result after it. On the CPU and on the GPU emulator: stdout holds the
// marker only, stderr the one error line, and no output file exists. On
// the emulator no kernel is launched (STC_EMU_TRACE lists every launch; the
// 2:4 run shows the same program does launch one when nothing fails).
//
// RUN: rm -rf %t && mkdir -p %t && cd %t
// RUN: %python -c "import numpy as np; r = np.random.default_rng(0); np.save('x.npy', r.standard_normal((16, 32)).astype(np.float16)); np.save('w.npy', r.standard_normal((32, 16)).astype(np.float16)); w = np.zeros((32, 16), np.float16); w[0::4] = 1; w[3::4] = -2; np.save('w24.npy', w); np.save('xd.npy', np.ones((4, 2), np.float32)); np.save('wd.npy', np.ones((16, 6), np.float32))"
//
// A tensor that is not 2:4 reaching stc.compress.
// RUN: not stc-run %s --device=cpu --input=x.npy --input=w.npy --output=out.npy > out.txt 2> err.txt
// RUN: FileCheck %s --check-prefix=MARK --match-full-lines < out.txt
// RUN: FileCheck %s -DFILE=%s --check-prefix=COMPRESS --match-full-lines --implicit-check-not=error: < err.txt
// RUN: not test -e out.npy
// RUN: env STC_EMU_TRACE=1 not stc-run %s --device=emulate --input=x.npy --input=w.npy --output=out.npy > out.txt 2> err.txt
// RUN: FileCheck %s --check-prefix=MARK --match-full-lines < out.txt
// RUN: FileCheck %s -DFILE=%s --check-prefix=COMPRESS --match-full-lines --implicit-check-not=error: --implicit-check-not=stc-emu: < err.txt
// RUN: not test -e out.npy
// MARK: 1
// MARK-EMPTY:
//
// With 2:4 data the same program prints both and launches its kernel.
// RUN: env STC_EMU_TRACE=1 stc-run %s --device=emulate --input=x.npy --input=w24.npy --output=out.npy > out.txt 2> err.txt
// RUN: FileCheck %s --check-prefix=BOTH --match-full-lines < out.txt
// RUN: FileCheck %s --check-prefix=LAUNCH < err.txt
// RUN: test -s out.npy && rm out.npy
// RUN: stc-run %s --device=cpu --input=x.npy --input=w24.npy | FileCheck %s --check-prefix=BOTH --match-full-lines
// BOTH: 1
// BOTH-NEXT: {{-?[0-9.e+-]+}}
// LAUNCH: stc-emu: launch

func.func @main(%x: tensor<16x32xf16>, %w: tensor<32x16xf16>) -> tensor<16x16xf16> {
  %one = arith.constant 1.0 : f32
  vector.print %one : f32
  // COMPRESS: [[FILE]]:[[#@LINE+1]]:12: error: stc.compress: operand is not 2:4 along dimension 0: row 0, group 0 has 4 non-zeros
  %v, %m = stc.compress %w by #stc.nm<2:4> along 0
      : tensor<32x16xf16> -> tensor<16x16xf16>, tensor<16x2xi16>
  %y = stc.spmm %v, %m, %x {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>}
      : tensor<16x16xf16>, tensor<16x2xi16>, tensor<16x32xf16> -> tensor<16x16xf16>
  %c0 = arith.constant 0 : index
  %e = tensor.extract %y[%c0, %c0] : tensor<16x16xf16>
  %f = arith.extf %e : f16 to f32
  vector.print %f : f32
  return %y : tensor<16x16xf16>
}

// The error of a callee stops its caller: @layer returns at once, and so
// does @caller after the call.
// RUN: not stc-run %s --entry=caller --device=cpu --input=x.npy --input=w.npy --output=out.npy > out.txt 2> err.txt
// RUN: FileCheck %s --check-prefix=MARK --match-full-lines < out.txt
// RUN: FileCheck %s -DFILE=%s --check-prefix=CALLEE --match-full-lines --implicit-check-not=error: < err.txt
// RUN: env STC_EMU_TRACE=1 not stc-run %s --entry=caller --device=emulate --input=x.npy --input=w.npy --output=out.npy > out.txt 2> err.txt
// RUN: FileCheck %s --check-prefix=MARK --match-full-lines < out.txt
// RUN: FileCheck %s -DFILE=%s --check-prefix=CALLEE --match-full-lines --implicit-check-not=error: --implicit-check-not=stc-emu: < err.txt
// RUN: not test -e out.npy

func.func private @layer(%x: tensor<16x32xf16>, %w: tensor<32x16xf16>) -> tensor<16x16xf16> {
  // CALLEE: [[FILE]]:[[#@LINE+1]]:12: error: stc.compress: operand is not 2:4 along dimension 0: row 0, group 0 has 4 non-zeros
  %v, %m = stc.compress %w by #stc.nm<2:4> along 0
      : tensor<32x16xf16> -> tensor<16x16xf16>, tensor<16x2xi16>
  %y = stc.spmm %v, %m, %x {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>}
      : tensor<16x16xf16>, tensor<16x2xi16>, tensor<16x32xf16> -> tensor<16x16xf16>
  return %y : tensor<16x16xf16>
}

func.func @caller(%x: tensor<16x32xf16>, %w: tensor<32x16xf16>) -> tensor<16x16xf16> {
  %one = arith.constant 1.0 : f32
  vector.print %one : f32
  %y = func.call @layer(%x, %w) : (tensor<16x32xf16>, tensor<32x16xf16>) -> tensor<16x16xf16>
  %c0 = arith.constant 0 : index
  %e = tensor.extract %y[%c0, %c0] : tensor<16x16xf16>
  %f = arith.extf %e : f16 to f32
  vector.print %f : f32
  return %y : tensor<16x16xf16>
}

// Dynamic sizes that disagree on the reduction dimension: the run-time
// shape check stops the call before the product.
// RUN: not stc-run %s --entry=mismatch --sparsity=force --device=cpu --input=xd.npy --input=wd.npy --output=out.npy > out.txt 2> err.txt
// RUN: FileCheck %s --check-prefix=MARK --match-full-lines < out.txt
// RUN: FileCheck %s -DFILE=%s --check-prefix=SHAPE --match-full-lines --implicit-check-not=error: < err.txt
// RUN: not test -e out.npy

func.func @mismatch(%x: tensor<?x?xf32>, %w: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %one = arith.constant 1.0 : f32
  vector.print %one : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %n = tensor.dim %w, %c1 : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  // SHAPE: [[FILE]]:[[#@LINE+1]]:8: error: stc.spmm: the dense operand has reduction size 2, which does not match the sparse operand's 16
  %r = linalg.matmul ins(%x, %w : tensor<?x?xf32>, tensor<?x?xf32>)
                     outs(%z : tensor<?x?xf32>) -> tensor<?x?xf32>
  %r0 = tensor.extract %r[%c0, %c0] : tensor<?x?xf32>
  vector.print %r0 : f32
  return %r : tensor<?x?xf32>
}
