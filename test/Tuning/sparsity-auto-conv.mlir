// --sparsity=auto on convolutions (docs/TUNING.md): like force, but on a
// GPU target a convolution stays dense when its dense tensor-core kernel is
// measured or predicted faster than the sparse kernel it would get: wgmma
// for one group of whole K steps (64 f16 or 128 i8 channels a tap),
// the staged mma.sp kernel where 16-byte copies hold one tap's channels,
// else the direct kernel (element gathers). The stem (C = 3) is the case:
// its sparse kernel is the direct one, its dense one the mma.sync kernel on
// channels zero-padded to 8, so it stays dense (from the priors; with the
// committed H200 database from the direct kernel's measured 320 us at
// batch 32). A large 3x3 with a constant filter is sparse; an i8 one has no
// dense tensor-core kernel (sparse, and the remark says why); dynamic sizes
// predict nothing (sparse). On the CPU the dense convolution is scalar
// loops: sparse. A tuning database that cannot be read is an error.
// RUN: stc-compile %s --target=sm_90a --sparsity=auto --tuning-builtin=false --emit=stc -o - --remarks 2>&1 | FileCheck %s
// RUN: stc-compile %s --target=sm_90a --sparsity=auto --emit=stc -o - --remarks 2>&1 | FileCheck %s --check-prefix=H200
// RUN: stc-compile %s --target=cpu --sparsity=auto --emit=stc -o - --remarks 2>&1 | FileCheck %s --check-prefix=CPU
// RUN: stc-compile %s --target=sm_90a --sparsity=force --emit=stc -o - 2>&1 | FileCheck %s --check-prefix=FORCE
// RUN: not stc-compile %s --target=sm_90a --sparsity=auto --tuning-db=%t.missing.json --emit=stc -o %t.out 2>&1 | FileCheck %s --check-prefix=ERROR
// RUN: not test -e %t.out

// CHECK-DAG: remark: stc: sparsity=auto on sm_90a: kept dense, cost model (priors, no tuning data): sparse {{[0-9.]+}} us (sparse direct 64x64, prior), dense {{[0-9.]+}} us (dense staged {{[0-9x]+}}, prior)
// CHECK-DAG: remark: stc: sparsity=auto on sm_90a: sparse, cost model (priors, no tuning data): sparse {{[0-9.]+}} us (sparse wgmma {{[0-9x]+}}, prior), dense {{[0-9.]+}} us (dense wgmma {{[0-9x]+}}, prior)
// CHECK-DAG: remark: stc: sparsity=auto on sm_90a: sparse, sparse {{[0-9.]+}} us (sparse wgmma {{[0-9x]+}}, prior) + {{[0-9.]+}} us to prune and compress it at run time; no dense tensor-core kernel for it (the tensor-core kernel takes f16 or bf16 input and filter
// CHECK-DAG: remark: stc: sparsity=auto on sm_90a: sparse, its sizes are dynamic, so nothing is predicted; pruned as with force
// H200-DAG: remark: stc: sparsity=auto on sm_90a: kept dense, cost model (NVIDIA H200): sparse 320.2 us (measured), dense {{[0-9.]+}} us (dense staged {{[0-9x]+}}, {{.*}})
// CPU-COUNT-4: remark: stc: sparsity=auto on cpu: sparse (a dense convolution runs as scalar loops there, the 2:4 one on the sparse microkernel)
// ERROR: error: stc-sparsify-convolutions: cannot read tuning database '{{.*}}missing.json'

// CHECK-LABEL: func.func @stem
// CHECK-NOT: stc.conv
// CHECK: linalg.conv_2d_nhwc_fhwc
// FORCE-LABEL: func.func @stem
// FORCE: stc.conv
func.func @stem(%x: tensor<32x224x224x3xf16>) -> tensor<32x112x112x64xf16> {
  %w = arith.constant dense<0.5> : tensor<64x7x7x3xf16>
  %zero = arith.constant 0.000000e+00 : f16
  %padded = tensor.pad %x low[0, 3, 3, 0] high[0, 3, 3, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f16
  } : tensor<32x224x224x3xf16> to tensor<32x230x230x3xf16>
  %init = tensor.empty() : tensor<32x112x112x64xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%init : tensor<32x112x112x64xf16>) -> tensor<32x112x112x64xf16>
  %y = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%padded, %w : tensor<32x230x230x3xf16>, tensor<64x7x7x3xf16>) outs(%acc : tensor<32x112x112x64xf16>) -> tensor<32x112x112x64xf16>
  return %y : tensor<32x112x112x64xf16>
}

// CHECK-LABEL: func.func @block
// CHECK: stc.conv
func.func @block(%x: tensor<32x28x28x512xf16>) -> tensor<32x28x28x512xf16> {
  %w = arith.constant dense<0.5> : tensor<512x3x3x512xf16>
  %zero = arith.constant 0.000000e+00 : f16
  %padded = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f16
  } : tensor<32x28x28x512xf16> to tensor<32x30x30x512xf16>
  %init = tensor.empty() : tensor<32x28x28x512xf16>
  %acc = linalg.fill ins(%zero : f16) outs(%init : tensor<32x28x28x512xf16>) -> tensor<32x28x28x512xf16>
  %y = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%padded, %w : tensor<32x30x30x512xf16>, tensor<512x3x3x512xf16>) outs(%acc : tensor<32x28x28x512xf16>) -> tensor<32x28x28x512xf16>
  return %y : tensor<32x28x28x512xf16>
}

// CHECK-LABEL: func.func @quantized
// CHECK: stc.conv
func.func @quantized(%x: tensor<8x14x14x128xi8>, %w: tensor<128x3x3x128xi8>) -> tensor<8x12x12x128xi32> {
  %zero = arith.constant 0 : i32
  %init = tensor.empty() : tensor<8x12x12x128xi32>
  %acc = linalg.fill ins(%zero : i32) outs(%init : tensor<8x12x12x128xi32>) -> tensor<8x12x12x128xi32>
  %y = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<8x14x14x128xi8>, tensor<128x3x3x128xi8>) outs(%acc : tensor<8x12x12x128xi32>) -> tensor<8x12x12x128xi32>
  return %y : tensor<8x12x12x128xi32>
}

// CHECK-LABEL: func.func @dynamic
// CHECK: stc.conv
func.func @dynamic(%x: tensor<?x16x16x64xf16>, %w: tensor<64x3x3x64xf16>, %init: tensor<?x14x14x64xf16>) -> tensor<?x14x14x64xf16> {
  %y = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<?x16x16x64xf16>, tensor<64x3x3x64xf16>) outs(%init : tensor<?x14x14x64xf16>) -> tensor<?x14x14x64xf16>
  return %y : tensor<?x14x14x64xf16>
}
