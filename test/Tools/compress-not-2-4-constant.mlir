// A constant operand of stc.compress that is not 2:4 is a compile-time
// error with the op's location (row/group of the first offending group),
// from stc-compile and stc-run alike; nothing is written.
// RUN: rm -rf %t && mkdir -p %t
// RUN: not stc-compile %s -o %t/out.o 2>&1 \
// RUN:   | FileCheck %s -DFILE=%s --match-full-lines --implicit-check-not=error:
// RUN: not test -e %t/out.o
// RUN: not stc-run %s --random-inputs --output=%t/out.npy 2>&1 \
// RUN:   | FileCheck %s -DFILE=%s --match-full-lines --implicit-check-not=error:
// RUN: not test -e %t/out.npy

func.func @main(%x: tensor<2x8xf32>) -> tensor<2x2xf32> {
  // Column 1 has three non-zeros in its second group of four.
  %w = arith.constant dense<[[1.0, 0.0], [0.0, 2.0], [3.0, 0.0], [0.0, 4.0],
                             [1.0, 5.0], [0.0, 6.0], [3.0, 7.0], [0.0, 0.0]]> : tensor<8x2xf32>
  // CHECK: [[FILE]]:[[#@LINE+1]]:12: error: stc.compress: constant operand is not 2:4 along dimension 0: row 1, group 1 has 3 non-zeros
  %v, %m = stc.compress %w by #stc.nm<2:4> along 0
      : tensor<8x2xf32> -> tensor<2x8xf32>, tensor<2x1xi16>
  %y = stc.spmm %v, %m, %x {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>}
      : tensor<2x8xf32>, tensor<2x1xi16>, tensor<2x8xf32> -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

