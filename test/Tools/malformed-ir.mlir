// Malformed IR: both tools report `file:line:col: error: ...` on one line
// (followed by the source line and a caret), exit non-zero, do not crash,
// and write no output file.
// RUN: rm -rf %t && mkdir -p %t
// RUN: not stc-run %s --random-inputs --output=%t/out.npy 2>&1 \
// RUN:   | FileCheck %s -DFILE=%s --match-full-lines --implicit-check-not=error:
// RUN: not test -e %t/out.npy
// RUN: not stc-compile %s -o %t/out.o 2>&1 \
// RUN:   | FileCheck %s -DFILE=%s --match-full-lines --implicit-check-not=error:
// RUN: not test -e %t/out.o
// RUN: not stc-compile %s --emit=stc -o %t/out.mlir 2>&1 \
// RUN:   | FileCheck %s -DFILE=%s --match-full-lines --implicit-check-not=error:
// RUN: not test -e %t/out.mlir

// CHECK: [[FILE]]:[[#@LINE+4]]:42: error: expected '>' in tensor type
// CHECK-NEXT: {{.*}}%y = arith.addf %x, %x : tensor<4x8xf32
// CHECK-NEXT: {{ *}}^
func.func @main(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %y = arith.addf %x, %x : tensor<4x8xf32
  return %y : tensor<4x8xf32>
}
