// stc-permute-channels: a constant weight pruned with permute_channels gets
// its reduction channels permuted (the search keeps more magnitude under
// strip pruning) and the same permutation is folded into the constants of
// the layer that produces the other operand's channels: its weight's output
// channels and its bias. The weights are built so that every channel c of
// the producer holds the value c (weight rows and bias), and the consumer's
// weight has rows 8-c and c+1: the FileCheck run reads the permutation P
// from a remark and checks the rewritten constants against it, whatever
// permutation the search picks. Any P that puts two of the channels 0-3 and
// two of 4-7 in each group is optimal (row 0 keeps 8 7 6 5, row 1 keeps 8 7
// 6 5 of its values: 52 of 72 instead of 44). Then the cases it must leave
// alone, each with the remark that says why.
// RUN: stc-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(func.func(stc-permute-channels))' | FileCheck %s --check-prefix=IR
// RUN: stc-opt %s -split-input-file --mlir-disable-threading --mlir-print-op-on-diagnostic=false --pass-pipeline='builtin.module(func.func(stc-permute-channels{print-permutation=true}))' 2>%t.err >%t.out
// RUN: cat %t.err %t.out | FileCheck %s
// RUN: stc-opt %s -split-input-file --mlir-print-op-on-diagnostic=false --pass-pipeline='builtin.module(func.func(stc-permute-channels{test-skip-prune=true}))' 2>/dev/null | FileCheck %s --check-prefix=SKIP

// The remarks (stderr) come before the IR (stdout): one permutation per
// function, in function order, captured as A, B, C and D.
// CHECK: remark: stc: permutation: [[#$A0:]] [[#$A1:]] [[#$A2:]] [[#$A3:]] [[#$A4:]] [[#$A5:]] [[#$A6:]] [[#$A7:]]
// CHECK: remark: stc: permutation: [[#$B0:]] [[#$B1:]] [[#$B2:]] [[#$B3:]] [[#$B4:]] [[#$B5:]] [[#$B6:]] [[#$B7:]]
// CHECK: remark: stc: permutation: [[#$C0:]] [[#$C1:]] [[#$C2:]] [[#$C3:]] [[#$C4:]] [[#$C5:]] [[#$C6:]] [[#$C7:]]
// CHECK: remark: stc: permutation: [[#$D0:]] [[#$D1:]] [[#$D2:]] [[#$D3:]] [[#$D4:]] [[#$D5:]] [[#$D6:]] [[#$D7:]]

// The request is consumed everywhere.
// IR-NOT: permute_channels

// Sparsified and fused (the pipeline's form): the producer is an stc.spmm
// with a bias and ReLU epilogue; its weight (under a strip stc.prune, along
// the rows) and its bias are permuted.
// CHECK-LABEL: func.func @spmm_chain
// CHECK-SAME: (%[[X:.*]]: tensor<2x4xf32>)
// CHECK: %[[W1:.*]] = arith.constant dense<{{\[}}{{\[}}[[#$A0]].000000e+00, [[#$A0]].000000e+00, [[#$A0]].000000e+00, [[#$A0]].000000e+00], {{\[}}[[#$A1]].000000e+00, [[#$A1]].000000e+00, [[#$A1]].000000e+00, [[#$A1]].000000e+00], {{\[}}[[#$A2]].000000e+00, [[#$A2]].000000e+00, [[#$A2]].000000e+00, [[#$A2]].000000e+00], {{\[}}[[#$A3]].000000e+00, [[#$A3]].000000e+00, [[#$A3]].000000e+00, [[#$A3]].000000e+00], {{\[}}[[#$A4]].000000e+00, [[#$A4]].000000e+00, [[#$A4]].000000e+00, [[#$A4]].000000e+00], {{\[}}[[#$A5]].000000e+00, [[#$A5]].000000e+00, [[#$A5]].000000e+00, [[#$A5]].000000e+00], {{\[}}[[#$A6]].000000e+00, [[#$A6]].000000e+00, [[#$A6]].000000e+00, [[#$A6]].000000e+00], {{\[}}[[#$A7]].000000e+00, [[#$A7]].000000e+00, [[#$A7]].000000e+00, [[#$A7]].000000e+00]]> : tensor<8x4xf32>
// CHECK: %[[P1:.*]] = stc.prune %[[W1]] by #stc.nm<2:4> along 1 : tensor<8x4xf32>
// CHECK: %[[V1:.*]], %[[M1:.*]] = stc.compress %[[P1]]
// CHECK: %[[B1:.*]] = arith.constant dense<{{\[}}[[#$A0]].000000e+00, [[#$A1]].000000e+00, [[#$A2]].000000e+00, [[#$A3]].000000e+00, [[#$A4]].000000e+00, [[#$A5]].000000e+00, [[#$A6]].000000e+00, [[#$A7]].000000e+00]> : tensor<8xf32>
// CHECK: %[[H:.*]] = stc.spmm %[[V1]], %[[M1]], %[[X]] bias(%[[B1]] : tensor<8xf32>)
// CHECK: %[[W2:.*]] = arith.constant dense<{{\[\[}}[[#8-$A0]].000000e+00, [[#8-$A1]].000000e+00, [[#8-$A2]].000000e+00, [[#8-$A3]].000000e+00, [[#8-$A4]].000000e+00, [[#8-$A5]].000000e+00, [[#8-$A6]].000000e+00, [[#8-$A7]].000000e+00], {{\[}}[[#$A0+1]].000000e+00, [[#$A1+1]].000000e+00, [[#$A2+1]].000000e+00, [[#$A3+1]].000000e+00, [[#$A4+1]].000000e+00, [[#$A5+1]].000000e+00, [[#$A6+1]].000000e+00, [[#$A7+1]].000000e+00]]> : tensor<2x8xf32>
// CHECK: %[[P2:.*]] = stc.prune %[[W2]] by #stc.nm<2:4> along 1 : tensor<2x8xf32>
// CHECK: %[[V2:.*]], %[[M2:.*]] = stc.compress %[[P2]]
// CHECK: %[[Y:.*]] = stc.spmm %[[V2]], %[[M2]], %[[H]]
// CHECK: return %[[Y]]
func.func @spmm_chain(%x: tensor<2x4xf32>) -> tensor<2x2xf32> {
  %w1 = arith.constant dense<[[0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0], [2.0, 2.0, 2.0, 2.0], [3.0, 3.0, 3.0, 3.0], [4.0, 4.0, 4.0, 4.0], [5.0, 5.0, 5.0, 5.0], [6.0, 6.0, 6.0, 6.0], [7.0, 7.0, 7.0, 7.0]]> : tensor<8x4xf32>
  %b1 = arith.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]> : tensor<8xf32>
  %p1 = stc.prune %w1 by #stc.nm<2:4> along 1 : tensor<8x4xf32>
  %v1, %m1 = stc.compress %p1 by #stc.nm<2:4> along 1 : tensor<8x4xf32> -> tensor<8x8xf32>, tensor<8x1xi16>
  %h = stc.spmm %v1, %m1, %x bias(%b1 : tensor<8xf32>)
      {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>, activation = #stc.activation<relu>}
      : tensor<8x8xf32>, tensor<8x1xi16>, tensor<2x4xf32> -> tensor<2x8xf32>
  %w2 = arith.constant dense<[[8.0, 7.0, 6.0, 5.0, 4.0, 3.0, 2.0, 1.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]]> : tensor<2x8xf32>
  // expected-remark @+1 {{stc: reduction channels permuted: strip pruning keeps 0.6111 of the weight's magnitude without the permutation, 0.7222 with it (recovers 0.2857 of the pruned magnitude); folded into 'stc.spmm'}}
  %p2 = stc.prune %w2 by #stc.nm<2:4> along 1 permute_channels : tensor<2x8xf32>
  %v2, %m2 = stc.compress %p2 by #stc.nm<2:4> along 1 : tensor<2x8xf32> -> tensor<2x8xf32>, tensor<2x1xi16>
  %y = stc.spmm %v2, %m2, %h {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>}
      : tensor<2x8xf32>, tensor<2x1xi16>, tensor<2x8xf32> -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>
#col = affine_map<(d0, d1) -> (d1)>

// Not yet sparsified, as torch-mlir writes nn.Linear: weights out x in
// behind a transposing linalg.generic, linalg.matmul, a broadcast bias add
// and a ReLU (cmpf + select). The producer's weight is permuted through its
// transpose (rows of the stored 8x4), the bias along its only dimension.
// With test-skip-prune the stc.prune is dropped: the program stays dense.
// CHECK-LABEL: func.func @linalg_chain
// CHECK: %[[W1:.*]] = arith.constant dense<{{\[}}{{\[}}[[#$B0]].000000e+00, [[#$B0]].000000e+00, [[#$B0]].000000e+00, [[#$B0]].000000e+00], {{\[}}[[#$B1]].000000e+00, [[#$B1]].000000e+00, [[#$B1]].000000e+00, [[#$B1]].000000e+00], {{\[}}[[#$B2]].000000e+00, [[#$B2]].000000e+00, [[#$B2]].000000e+00, [[#$B2]].000000e+00], {{\[}}[[#$B3]].000000e+00, [[#$B3]].000000e+00, [[#$B3]].000000e+00, [[#$B3]].000000e+00], {{\[}}[[#$B4]].000000e+00, [[#$B4]].000000e+00, [[#$B4]].000000e+00, [[#$B4]].000000e+00], {{\[}}[[#$B5]].000000e+00, [[#$B5]].000000e+00, [[#$B5]].000000e+00, [[#$B5]].000000e+00], {{\[}}[[#$B6]].000000e+00, [[#$B6]].000000e+00, [[#$B6]].000000e+00, [[#$B6]].000000e+00], {{\[}}[[#$B7]].000000e+00, [[#$B7]].000000e+00, [[#$B7]].000000e+00, [[#$B7]].000000e+00]]> : tensor<8x4xf32>
// CHECK: linalg.generic {{.*}} ins(%[[W1]] : tensor<8x4xf32>)
// CHECK: linalg.matmul
// CHECK: %[[B1:.*]] = arith.constant dense<{{\[}}[[#$B0]].000000e+00, [[#$B1]].000000e+00, [[#$B2]].000000e+00, [[#$B3]].000000e+00, [[#$B4]].000000e+00, [[#$B5]].000000e+00, [[#$B6]].000000e+00, [[#$B7]].000000e+00]> : tensor<8xf32>
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[B1]] : tensor<2x8xf32>, tensor<8xf32>)
// CHECK: %[[W2:.*]] = arith.constant dense<{{\[\[}}[[#8-$B0]].000000e+00, [[#8-$B1]].000000e+00, [[#8-$B2]].000000e+00, [[#8-$B3]].000000e+00, [[#8-$B4]].000000e+00, [[#8-$B5]].000000e+00, [[#8-$B6]].000000e+00, [[#8-$B7]].000000e+00], {{\[}}[[#$B0+1]].000000e+00, [[#$B1+1]].000000e+00, [[#$B2+1]].000000e+00, [[#$B3+1]].000000e+00, [[#$B4+1]].000000e+00, [[#$B5+1]].000000e+00, [[#$B6+1]].000000e+00, [[#$B7+1]].000000e+00]]> : tensor<2x8xf32>
// CHECK: %[[P2:.*]] = stc.prune %[[W2]] by #stc.nm<2:4> along 1 : tensor<2x8xf32>
// CHECK: linalg.generic {{.*}} ins(%[[P2]] : tensor<2x8xf32>)
// SKIP-LABEL: func.func @linalg_chain
// SKIP-NOT: stc.prune
// SKIP: return
func.func @linalg_chain(%x: tensor<2x4xf32>) -> tensor<2x2xf32> {
  %cst = arith.constant 0.0 : f32
  %w1 = arith.constant dense<[[0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0], [2.0, 2.0, 2.0, 2.0], [3.0, 3.0, 3.0, 3.0], [4.0, 4.0, 4.0, 4.0], [5.0, 5.0, 5.0, 5.0], [6.0, 6.0, 6.0, 6.0], [7.0, 7.0, 7.0, 7.0]]> : tensor<8x4xf32>
  %b1 = arith.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]> : tensor<8xf32>
  %e1 = tensor.empty() : tensor<4x8xf32>
  %w1t = linalg.generic {indexing_maps = [#tr, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w1 : tensor<8x4xf32>) outs(%e1 : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<4x8xf32>
  %e = tensor.empty() : tensor<2x8xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<2x8xf32>) -> tensor<2x8xf32>
  %mm = linalg.matmul ins(%x, %w1t : tensor<2x4xf32>, tensor<4x8xf32>) outs(%z : tensor<2x8xf32>) -> tensor<2x8xf32>
  %ba = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b1 : tensor<2x8xf32>, tensor<8xf32>) outs(%e : tensor<2x8xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<2x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%ba : tensor<2x8xf32>) outs(%e : tensor<2x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.cmpf ugt, %in, %cst : f32
    %s = arith.select %c, %in, %cst : f32
    linalg.yield %s : f32
  } -> tensor<2x8xf32>
  %w2 = arith.constant dense<[[8.0, 7.0, 6.0, 5.0, 4.0, 3.0, 2.0, 1.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]]> : tensor<2x8xf32>
  // expected-remark @+1 {{stc: reduction channels permuted: strip pruning keeps 0.6111 of the weight's magnitude without the permutation, 0.7222 with it (recovers 0.2857 of the pruned magnitude); folded into 'linalg.matmul'}}
  %p2 = stc.prune %w2 by #stc.nm<2:4> along 1 permute_channels : tensor<2x8xf32>
  %e2 = tensor.empty() : tensor<8x2xf32>
  %w2t = linalg.generic {indexing_maps = [#tr, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p2 : tensor<2x8xf32>) outs(%e2 : tensor<8x2xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<8x2xf32>
  %e3 = tensor.empty() : tensor<2x2xf32>
  %z3 = linalg.fill ins(%cst : f32) outs(%e3 : tensor<2x2xf32>) -> tensor<2x2xf32>
  %y = linalg.matmul ins(%r, %w2t : tensor<2x8xf32>, tensor<8x2xf32>) outs(%z3 : tensor<2x2xf32>) -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// An already folded producer (constant values and metadata: reordering
// compressed rows keeps each valid) behind an element-wise op that stays a
// separate op (a GELU-like tanh body with its own constants).
// CHECK-LABEL: func.func @folded_producer
// CHECK: %[[V1:.*]] = arith.constant dense<{{\[}}{{\[}}[[#$C0]].000000e+00, [[#$C0]].000000e+00, [[#$C0]].000000e+00, [[#$C0]].000000e+00, [[#$C0]].000000e+00, [[#$C0]].000000e+00, [[#$C0]].000000e+00, [[#$C0]].000000e+00], {{\[}}[[#$C1]].000000e+00, [[#$C1]].000000e+00, [[#$C1]].000000e+00, [[#$C1]].000000e+00, [[#$C1]].000000e+00, [[#$C1]].000000e+00, [[#$C1]].000000e+00, [[#$C1]].000000e+00], {{\[}}[[#$C2]].000000e+00, [[#$C2]].000000e+00, [[#$C2]].000000e+00, [[#$C2]].000000e+00, [[#$C2]].000000e+00, [[#$C2]].000000e+00, [[#$C2]].000000e+00, [[#$C2]].000000e+00], {{\[}}[[#$C3]].000000e+00, [[#$C3]].000000e+00, [[#$C3]].000000e+00, [[#$C3]].000000e+00, [[#$C3]].000000e+00, [[#$C3]].000000e+00, [[#$C3]].000000e+00, [[#$C3]].000000e+00], {{\[}}[[#$C4]].000000e+00, [[#$C4]].000000e+00, [[#$C4]].000000e+00, [[#$C4]].000000e+00, [[#$C4]].000000e+00, [[#$C4]].000000e+00, [[#$C4]].000000e+00, [[#$C4]].000000e+00], {{\[}}[[#$C5]].000000e+00, [[#$C5]].000000e+00, [[#$C5]].000000e+00, [[#$C5]].000000e+00, [[#$C5]].000000e+00, [[#$C5]].000000e+00, [[#$C5]].000000e+00, [[#$C5]].000000e+00], {{\[}}[[#$C6]].000000e+00, [[#$C6]].000000e+00, [[#$C6]].000000e+00, [[#$C6]].000000e+00, [[#$C6]].000000e+00, [[#$C6]].000000e+00, [[#$C6]].000000e+00, [[#$C6]].000000e+00], {{\[}}[[#$C7]].000000e+00, [[#$C7]].000000e+00, [[#$C7]].000000e+00, [[#$C7]].000000e+00, [[#$C7]].000000e+00, [[#$C7]].000000e+00, [[#$C7]].000000e+00, [[#$C7]].000000e+00]]> : tensor<8x8xf32>
// CHECK: %[[M1:.*]] = arith.constant dense<{{.*}}> : tensor<8x1xi16>
// CHECK: stc.spmm %[[V1]], %[[M1]], %{{.*}}
func.func @folded_producer(%x: tensor<2x4xf32>) -> tensor<2x2xf32> {
  %v1 = arith.constant dense<[[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0], [3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0], [4.0, 4.0, 4.0, 4.0, 4.0, 4.0, 4.0, 4.0], [5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0], [6.0, 6.0, 6.0, 6.0, 6.0, 6.0, 6.0, 6.0], [7.0, 7.0, 7.0, 7.0, 7.0, 7.0, 7.0, 7.0]]> : tensor<8x8xf32>
  %m1 = arith.constant dense<[[17476], [17480], [17484], [17481], [17485], [17486], [17476], [17480]]> : tensor<8x1xi16>
  %h = stc.spmm %v1, %m1, %x {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>}
      : tensor<8x8xf32>, tensor<8x1xi16>, tensor<2x4xf32> -> tensor<2x8xf32>
  %e = tensor.empty() : tensor<2x8xf32>
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h : tensor<2x8xf32>) outs(%e : tensor<2x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %half = arith.constant 5.000000e-01 : f32
    %t = math.tanh %in : f32
    %m = arith.mulf %t, %half : f32
    linalg.yield %m : f32
  } -> tensor<2x8xf32>
  %w2 = arith.constant dense<[[8.0, 7.0, 6.0, 5.0, 4.0, 3.0, 2.0, 1.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]]> : tensor<2x8xf32>
  // expected-remark @+1 {{stc: reduction channels permuted: strip pruning keeps 0.6111 of the weight's magnitude without the permutation, 0.7222 with it (recovers 0.2857 of the pruned magnitude); folded into 'stc.spmm'}}
  %p2 = stc.prune %w2 by #stc.nm<2:4> along 1 permute_channels : tensor<2x8xf32>
  %v2, %m2 = stc.compress %p2 by #stc.nm<2:4> along 1 : tensor<2x8xf32> -> tensor<2x8xf32>, tensor<2x1xi16>
  %y = stc.spmm %v2, %m2, %g {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>}
      : tensor<2x8xf32>, tensor<2x1xi16>, tensor<2x8xf32> -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

// -----

// The sparse operand on the left (W . X): the consumer's dense operand is
// K x N, its channels are its rows, which are the producer's sparse rows.
// CHECK-LABEL: func.func @lhs_sparse
// CHECK: %[[W1:.*]] = arith.constant dense<{{\[}}{{\[}}[[#$D0]].000000e+00, [[#$D0]].000000e+00, [[#$D0]].000000e+00, [[#$D0]].000000e+00], {{\[}}[[#$D1]].000000e+00, [[#$D1]].000000e+00, [[#$D1]].000000e+00, [[#$D1]].000000e+00], {{\[}}[[#$D2]].000000e+00, [[#$D2]].000000e+00, [[#$D2]].000000e+00, [[#$D2]].000000e+00], {{\[}}[[#$D3]].000000e+00, [[#$D3]].000000e+00, [[#$D3]].000000e+00, [[#$D3]].000000e+00], {{\[}}[[#$D4]].000000e+00, [[#$D4]].000000e+00, [[#$D4]].000000e+00, [[#$D4]].000000e+00], {{\[}}[[#$D5]].000000e+00, [[#$D5]].000000e+00, [[#$D5]].000000e+00, [[#$D5]].000000e+00], {{\[}}[[#$D6]].000000e+00, [[#$D6]].000000e+00, [[#$D6]].000000e+00, [[#$D6]].000000e+00], {{\[}}[[#$D7]].000000e+00, [[#$D7]].000000e+00, [[#$D7]].000000e+00, [[#$D7]].000000e+00]]> : tensor<8x4xf32>
// CHECK: stc.prune %[[W1]]
// CHECK: %[[B1:.*]] = arith.constant dense<{{\[}}[[#$D0]].000000e+00, [[#$D1]].000000e+00, [[#$D2]].000000e+00, [[#$D3]].000000e+00, [[#$D4]].000000e+00, [[#$D5]].000000e+00, [[#$D6]].000000e+00, [[#$D7]].000000e+00]> : tensor<8xf32>
// CHECK: stc.spmm {{.*}} bias(%[[B1]] : tensor<8xf32>)
// CHECK: %[[W2:.*]] = arith.constant dense<{{\[\[}}[[#8-$D0]].000000e+00, [[#8-$D1]].000000e+00, [[#8-$D2]].000000e+00, [[#8-$D3]].000000e+00, [[#8-$D4]].000000e+00, [[#8-$D5]].000000e+00, [[#8-$D6]].000000e+00, [[#8-$D7]].000000e+00], {{\[}}[[#$D0+1]].000000e+00, [[#$D1+1]].000000e+00, [[#$D2+1]].000000e+00, [[#$D3+1]].000000e+00, [[#$D4+1]].000000e+00, [[#$D5+1]].000000e+00, [[#$D6+1]].000000e+00, [[#$D7+1]].000000e+00]]> : tensor<2x8xf32>
// CHECK: stc.prune %[[W2]]
func.func @lhs_sparse(%x: tensor<4x2xf32>) -> tensor<2x2xf32> {
  %w1 = arith.constant dense<[[0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0], [2.0, 2.0, 2.0, 2.0], [3.0, 3.0, 3.0, 3.0], [4.0, 4.0, 4.0, 4.0], [5.0, 5.0, 5.0, 5.0], [6.0, 6.0, 6.0, 6.0], [7.0, 7.0, 7.0, 7.0]]> : tensor<8x4xf32>
  %b1 = arith.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]> : tensor<8xf32>
  %p1 = stc.prune %w1 by #stc.nm<2:4> along 1 : tensor<8x4xf32>
  %v1, %m1 = stc.compress %p1 by #stc.nm<2:4> along 1 : tensor<8x4xf32> -> tensor<8x8xf32>, tensor<8x1xi16>
  %h = stc.spmm %v1, %m1, %x bias(%b1 : tensor<8xf32>)
      {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>, activation = #stc.activation<relu>}
      : tensor<8x8xf32>, tensor<8x1xi16>, tensor<4x2xf32> -> tensor<8x2xf32>
  %w2 = arith.constant dense<[[8.0, 7.0, 6.0, 5.0, 4.0, 3.0, 2.0, 1.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]]> : tensor<2x8xf32>
  // expected-remark @+1 {{stc: reduction channels permuted: strip pruning keeps 0.6111 of the weight's magnitude without the permutation, 0.7222 with it (recovers 0.2857 of the pruned magnitude); folded into 'stc.spmm'}}
  %p2 = stc.prune %w2 by #stc.nm<2:4> along 1 permute_channels : tensor<2x8xf32>
  %v2, %m2 = stc.compress %p2 by #stc.nm<2:4> along 1 : tensor<2x8xf32> -> tensor<2x8xf32>, tensor<2x1xi16>
  %y = stc.spmm %v2, %m2, %h {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>}
      : tensor<2x8xf32>, tensor<2x1xi16>, tensor<8x2xf32> -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

// -----

// The activations come straight from the caller: nothing can absorb the
// permutation (the first layer of every network).
func.func @activations_are_an_argument(%h: tensor<2x8xf32>) -> tensor<2x2xf32> {
  %w2 = arith.constant dense<[[8.0, 7.0, 6.0, 5.0, 4.0, 3.0, 2.0, 1.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]]> : tensor<2x8xf32>
  // expected-remark @+1 {{stc: reduction channels not permuted: the activations are a function argument}}
  %p2 = stc.prune %w2 by #stc.nm<2:4> along 1 permute_channels : tensor<2x8xf32>
  %v2, %m2 = stc.compress %p2 by #stc.nm<2:4> along 1 : tensor<2x8xf32> -> tensor<2x8xf32>, tensor<2x1xi16>
  %y = stc.spmm %v2, %m2, %h {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>}
      : tensor<2x8xf32>, tensor<2x1xi16>, tensor<2x8xf32> -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

// -----

// The hidden activations are also returned: that use needs them in the
// original order.
func.func @other_use(%x: tensor<2x4xf32>) -> (tensor<2x2xf32>, tensor<2x8xf32>) {
  %w1 = arith.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [1.5, 2.5, 3.5, 4.5], [5.5, 6.5, 7.5, 8.5], [1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [1.5, 2.5, 3.5, 4.5], [5.5, 6.5, 7.5, 8.5]]> : tensor<8x4xf32>
  %b1 = arith.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]> : tensor<8xf32>
  %p1 = stc.prune %w1 by #stc.nm<2:4> along 1 : tensor<8x4xf32>
  %v1, %m1 = stc.compress %p1 by #stc.nm<2:4> along 1 : tensor<8x4xf32> -> tensor<8x8xf32>, tensor<8x1xi16>
  %h = stc.spmm %v1, %m1, %x bias(%b1 : tensor<8xf32>)
      {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>, activation = #stc.activation<relu>}
      : tensor<8x8xf32>, tensor<8x1xi16>, tensor<2x4xf32> -> tensor<2x8xf32>
  %w2 = arith.constant dense<[[8.0, 7.0, 6.0, 5.0, 4.0, 3.0, 2.0, 1.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]]> : tensor<2x8xf32>
  // expected-remark @+1 {{stc: reduction channels not permuted: the result of 'stc.spmm' has other uses that need the original channel order}}
  %p2 = stc.prune %w2 by #stc.nm<2:4> along 1 permute_channels : tensor<2x8xf32>
  %v2, %m2 = stc.compress %p2 by #stc.nm<2:4> along 1 : tensor<2x8xf32> -> tensor<2x8xf32>, tensor<2x1xi16>
  %y = stc.spmm %v2, %m2, %h {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>}
      : tensor<2x8xf32>, tensor<2x1xi16>, tensor<2x8xf32> -> tensor<2x2xf32>
  return %y, %h : tensor<2x2xf32>, tensor<2x8xf32>
}

// -----

// A residual connection adds two run-time tensors: both would need the
// permutation.
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @residual(%x: tensor<2x4xf32>, %r: tensor<2x8xf32>) -> tensor<2x2xf32> {
  %w1 = arith.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [1.5, 2.5, 3.5, 4.5], [5.5, 6.5, 7.5, 8.5], [1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [1.5, 2.5, 3.5, 4.5], [5.5, 6.5, 7.5, 8.5]]> : tensor<8x4xf32>
  %b1 = arith.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]> : tensor<8xf32>
  %p1 = stc.prune %w1 by #stc.nm<2:4> along 1 : tensor<8x4xf32>
  %v1, %m1 = stc.compress %p1 by #stc.nm<2:4> along 1 : tensor<8x4xf32> -> tensor<8x8xf32>, tensor<8x1xi16>
  %h = stc.spmm %v1, %m1, %x bias(%b1 : tensor<8xf32>)
      {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>, activation = #stc.activation<relu>}
      : tensor<8x8xf32>, tensor<8x1xi16>, tensor<2x4xf32> -> tensor<2x8xf32>
  %e = tensor.empty() : tensor<2x8xf32>
  %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h, %r : tensor<2x8xf32>, tensor<2x8xf32>) outs(%e : tensor<2x8xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %t = arith.addf %a, %b : f32
    linalg.yield %t : f32
  } -> tensor<2x8xf32>
  %w2 = arith.constant dense<[[8.0, 7.0, 6.0, 5.0, 4.0, 3.0, 2.0, 1.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]]> : tensor<2x8xf32>
  // expected-remark @+1 {{stc: reduction channels not permuted: 'linalg.generic' combines two run-time tensors (e.g. a residual connection)}}
  %p2 = stc.prune %w2 by #stc.nm<2:4> along 1 permute_channels : tensor<2x8xf32>
  %v2, %m2 = stc.compress %p2 by #stc.nm<2:4> along 1 : tensor<2x8xf32> -> tensor<2x8xf32>, tensor<2x1xi16>
  %y = stc.spmm %v2, %m2, %s {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>}
      : tensor<2x8xf32>, tensor<2x1xi16>, tensor<2x8xf32> -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

// -----

// The producer's bias is a run-time value.
func.func @bias_argument(%x: tensor<2x4xf32>, %b1: tensor<8xf32>) -> tensor<2x2xf32> {
  %w1 = arith.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [1.5, 2.5, 3.5, 4.5], [5.5, 6.5, 7.5, 8.5], [1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [1.5, 2.5, 3.5, 4.5], [5.5, 6.5, 7.5, 8.5]]> : tensor<8x4xf32>
  %p1 = stc.prune %w1 by #stc.nm<2:4> along 1 : tensor<8x4xf32>
  %v1, %m1 = stc.compress %p1 by #stc.nm<2:4> along 1 : tensor<8x4xf32> -> tensor<8x8xf32>, tensor<8x1xi16>
  %h = stc.spmm %v1, %m1, %x bias(%b1 : tensor<8xf32>)
      {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>, activation = #stc.activation<relu>}
      : tensor<8x8xf32>, tensor<8x1xi16>, tensor<2x4xf32> -> tensor<2x8xf32>
  %w2 = arith.constant dense<[[8.0, 7.0, 6.0, 5.0, 4.0, 3.0, 2.0, 1.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]]> : tensor<2x8xf32>
  // expected-remark @+1 {{stc: reduction channels not permuted: the bias of the producing 'stc.spmm' is a function argument}}
  %p2 = stc.prune %w2 by #stc.nm<2:4> along 1 permute_channels : tensor<2x8xf32>
  %v2, %m2 = stc.compress %p2 by #stc.nm<2:4> along 1 : tensor<2x8xf32> -> tensor<2x8xf32>, tensor<2x1xi16>
  %y = stc.spmm %v2, %m2, %h {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>}
      : tensor<2x8xf32>, tensor<2x1xi16>, tensor<2x8xf32> -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

// -----

// The producer's weight is a run-time value (pruned at run time).
func.func @producer_weight_argument(%x: tensor<2x4xf32>, %w1: tensor<8x4xf32>) -> tensor<2x2xf32> {
  %b1 = arith.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]> : tensor<8xf32>
  %p1 = stc.prune %w1 by #stc.nm<2:4> along 1 : tensor<8x4xf32>
  %v1, %m1 = stc.compress %p1 by #stc.nm<2:4> along 1 : tensor<8x4xf32> -> tensor<8x8xf32>, tensor<8x1xi16>
  %h = stc.spmm %v1, %m1, %x bias(%b1 : tensor<8xf32>)
      {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>, activation = #stc.activation<relu>}
      : tensor<8x8xf32>, tensor<8x1xi16>, tensor<2x4xf32> -> tensor<2x8xf32>
  %w2 = arith.constant dense<[[8.0, 7.0, 6.0, 5.0, 4.0, 3.0, 2.0, 1.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]]> : tensor<2x8xf32>
  // expected-remark @+1 {{stc: reduction channels not permuted: the weight of the producing 'stc.spmm' is an stc.prune of a function argument}}
  %p2 = stc.prune %w2 by #stc.nm<2:4> along 1 permute_channels : tensor<2x8xf32>
  %v2, %m2 = stc.compress %p2 by #stc.nm<2:4> along 1 : tensor<2x8xf32> -> tensor<2x8xf32>, tensor<2x1xi16>
  %y = stc.spmm %v2, %m2, %h {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>}
      : tensor<2x8xf32>, tensor<2x1xi16>, tensor<2x8xf32> -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

// -----

// The producer's weight is tile-pruned: its rows share 4x4 tiles, so
// reordering them would change its mask.
func.func @producer_tile(%x: tensor<2x4xf32>) -> tensor<2x2xf32> {
  %w1 = arith.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [1.5, 2.5, 3.5, 4.5], [5.5, 6.5, 7.5, 8.5], [1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [1.5, 2.5, 3.5, 4.5], [5.5, 6.5, 7.5, 8.5]]> : tensor<8x4xf32>
  %b1 = arith.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]> : tensor<8xf32>
  %p1 = stc.prune %w1 by #stc.nm<2:4> along 1 method tile : tensor<8x4xf32>
  %v1, %m1 = stc.compress %p1 by #stc.nm<2:4> along 1 : tensor<8x4xf32> -> tensor<8x8xf32>, tensor<8x1xi16>
  %h = stc.spmm %v1, %m1, %x bias(%b1 : tensor<8xf32>)
      {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>, activation = #stc.activation<relu>}
      : tensor<8x8xf32>, tensor<8x1xi16>, tensor<2x4xf32> -> tensor<2x8xf32>
  %w2 = arith.constant dense<[[8.0, 7.0, 6.0, 5.0, 4.0, 3.0, 2.0, 1.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]]> : tensor<2x8xf32>
  // expected-remark @+1 {{stc: reduction channels not permuted: the weight of the producing 'stc.spmm' is tile-pruned (its rows share 4x4 tiles)}}
  %p2 = stc.prune %w2 by #stc.nm<2:4> along 1 permute_channels : tensor<2x8xf32>
  %v2, %m2 = stc.compress %p2 by #stc.nm<2:4> along 1 : tensor<2x8xf32> -> tensor<2x8xf32>, tensor<2x1xi16>
  %y = stc.spmm %v2, %m2, %h {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>}
      : tensor<2x8xf32>, tensor<2x1xi16>, tensor<2x8xf32> -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

// -----

// The producer is lhs-sparse: its sparse rows are the rows of its result,
// while the consumer reduces over the columns, which come from the
// producer's dense operand.
func.func @channels_from_dense_operand(%x: tensor<4x8xf32>) -> tensor<8x2xf32> {
  %w1 = arith.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [1.5, 2.5, 3.5, 4.5], [5.5, 6.5, 7.5, 8.5], [1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [1.5, 2.5, 3.5, 4.5], [5.5, 6.5, 7.5, 8.5]]> : tensor<8x4xf32>
  %p1 = stc.prune %w1 by #stc.nm<2:4> along 1 : tensor<8x4xf32>
  %v1, %m1 = stc.compress %p1 by #stc.nm<2:4> along 1 : tensor<8x4xf32> -> tensor<8x8xf32>, tensor<8x1xi16>
  %h = stc.spmm %v1, %m1, %x {pattern = #stc.nm<2:4>, sparse = #stc.operand<lhs>}
      : tensor<8x8xf32>, tensor<8x1xi16>, tensor<4x8xf32> -> tensor<8x8xf32>
  %w2 = arith.constant dense<[[8.0, 7.0, 6.0, 5.0, 4.0, 3.0, 2.0, 1.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]]> : tensor<2x8xf32>
  // expected-remark @+1 {{stc: reduction channels not permuted: the channels come from the dense operand of the producing 'stc.spmm'}}
  %p2 = stc.prune %w2 by #stc.nm<2:4> along 1 permute_channels : tensor<2x8xf32>
  %v2, %m2 = stc.compress %p2 by #stc.nm<2:4> along 1 : tensor<2x8xf32> -> tensor<2x8xf32>, tensor<2x1xi16>
  %y = stc.spmm %v2, %m2, %h {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>}
      : tensor<2x8xf32>, tensor<2x1xi16>, tensor<8x8xf32> -> tensor<8x2xf32>
  return %y : tensor<8x2xf32>
}

// -----

// An op that is not element-wise stands between the layers.
func.func @not_elementwise(%big: tensor<4x8xf32>) -> tensor<2x2xf32> {
  %hs = tensor.extract_slice %big[0, 0] [2, 8] [1, 1] : tensor<4x8xf32> to tensor<2x8xf32>
  %w2 = arith.constant dense<[[8.0, 7.0, 6.0, 5.0, 4.0, 3.0, 2.0, 1.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]]> : tensor<2x8xf32>
  // expected-remark @+1 {{stc: reduction channels not permuted: 'tensor.extract_slice' does not act on each channel alone}}
  %p2 = stc.prune %w2 by #stc.nm<2:4> along 1 permute_channels : tensor<2x8xf32>
  %v2, %m2 = stc.compress %p2 by #stc.nm<2:4> along 1 : tensor<2x8xf32> -> tensor<2x8xf32>, tensor<2x1xi16>
  %y = stc.spmm %v2, %m2, %hs {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>}
      : tensor<2x8xf32>, tensor<2x1xi16>, tensor<2x8xf32> -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

// -----

// A dense producer whose weight is a run-time value.
func.func @matmul_weight_argument(%x: tensor<2x4xf32>, %w1: tensor<4x8xf32>) -> tensor<2x2xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<2x8xf32>) -> tensor<2x8xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<2x4xf32>, tensor<4x8xf32>) outs(%z : tensor<2x8xf32>) -> tensor<2x8xf32>
  %w2 = arith.constant dense<[[8.0, 7.0, 6.0, 5.0, 4.0, 3.0, 2.0, 1.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]]> : tensor<2x8xf32>
  // expected-remark @+1 {{stc: reduction channels not permuted: the weight of the producing 'linalg.matmul' is a function argument}}
  %p2 = stc.prune %w2 by #stc.nm<2:4> along 1 permute_channels : tensor<2x8xf32>
  %v2, %m2 = stc.compress %p2 by #stc.nm<2:4> along 1 : tensor<2x8xf32> -> tensor<2x8xf32>, tensor<2x1xi16>
  %y = stc.spmm %v2, %m2, %h {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>}
      : tensor<2x8xf32>, tensor<2x1xi16>, tensor<2x8xf32> -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

// -----

// The consumer's own weight is a run-time value.
func.func @weight_argument(%x: tensor<2x4xf32>, %w2: tensor<2x8xf32>) -> tensor<2x2xf32> {
  %w1 = arith.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [1.5, 2.5, 3.5, 4.5], [5.5, 6.5, 7.5, 8.5], [1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [1.5, 2.5, 3.5, 4.5], [5.5, 6.5, 7.5, 8.5]]> : tensor<8x4xf32>
  %b1 = arith.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]> : tensor<8xf32>
  %p1 = stc.prune %w1 by #stc.nm<2:4> along 1 : tensor<8x4xf32>
  %v1, %m1 = stc.compress %p1 by #stc.nm<2:4> along 1 : tensor<8x4xf32> -> tensor<8x8xf32>, tensor<8x1xi16>
  %h = stc.spmm %v1, %m1, %x bias(%b1 : tensor<8xf32>)
      {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>, activation = #stc.activation<relu>}
      : tensor<8x8xf32>, tensor<8x1xi16>, tensor<2x4xf32> -> tensor<2x8xf32>
  // expected-remark @+1 {{stc: reduction channels not permuted: the weight is not a constant (it is pruned at run time)}}
  %p2 = stc.prune %w2 by #stc.nm<2:4> along 1 permute_channels : tensor<2x8xf32>
  %v2, %m2 = stc.compress %p2 by #stc.nm<2:4> along 1 : tensor<2x8xf32> -> tensor<2x8xf32>, tensor<2x1xi16>
  %y = stc.spmm %v2, %m2, %h {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>}
      : tensor<2x8xf32>, tensor<2x1xi16>, tensor<2x8xf32> -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

// -----

// Tile pruning is not what the search optimises.
func.func @tile_method(%x: tensor<2x4xf32>) -> tensor<2x2xf32> {
  %w1 = arith.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [1.5, 2.5, 3.5, 4.5], [5.5, 6.5, 7.5, 8.5], [1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [1.5, 2.5, 3.5, 4.5], [5.5, 6.5, 7.5, 8.5]]> : tensor<8x4xf32>
  %b1 = arith.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]> : tensor<8xf32>
  %p1 = stc.prune %w1 by #stc.nm<2:4> along 1 : tensor<8x4xf32>
  %v1, %m1 = stc.compress %p1 by #stc.nm<2:4> along 1 : tensor<8x4xf32> -> tensor<8x8xf32>, tensor<8x1xi16>
  %h = stc.spmm %v1, %m1, %x bias(%b1 : tensor<8xf32>)
      {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>, activation = #stc.activation<relu>}
      : tensor<8x8xf32>, tensor<8x1xi16>, tensor<2x4xf32> -> tensor<2x8xf32>
  %w2 = arith.constant dense<[[8.0, 7.0, 6.0, 5.0, 4.0, 3.0, 2.0, 1.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]]> : tensor<2x8xf32>
  // expected-remark @+1 {{stc: reduction channels not permuted: the weight is pruned with method tile; the permutation search optimises strip pruning}}
  %p2 = stc.prune %w2 by #stc.nm<2:4> along 1 method tile permute_channels : tensor<2x8xf32>
  %v2, %m2 = stc.compress %p2 by #stc.nm<2:4> along 1 : tensor<2x8xf32> -> tensor<2x8xf32>, tensor<2x1xi16>
  %y = stc.spmm %v2, %m2, %h {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>}
      : tensor<2x8xf32>, tensor<2x1xi16>, tensor<2x8xf32> -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

// -----

// A pruned weight that no contraction consumes.
func.func @not_a_contraction() -> tensor<2x8xf32> {
  %w2 = arith.constant dense<[[8.0, 7.0, 6.0, 5.0, 4.0, 3.0, 2.0, 1.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]]> : tensor<2x8xf32>
  // expected-remark @+1 {{stc: reduction channels not permuted: it is not the sparse operand of a contraction (stc.spmm or a matmul-like linalg op)}}
  %p2 = stc.prune %w2 by #stc.nm<2:4> along 1 permute_channels : tensor<2x8xf32>
  return %p2 : tensor<2x8xf32>
}

// -----

// Strip pruning already keeps the four largest of every row: no
// permutation does better (52 of 72).
func.func @already_best(%x: tensor<2x4xf32>) -> tensor<2x2xf32> {
  %w1 = arith.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [1.5, 2.5, 3.5, 4.5], [5.5, 6.5, 7.5, 8.5], [1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [1.5, 2.5, 3.5, 4.5], [5.5, 6.5, 7.5, 8.5]]> : tensor<8x4xf32>
  %b1 = arith.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]> : tensor<8xf32>
  %p1 = stc.prune %w1 by #stc.nm<2:4> along 1 : tensor<8x4xf32>
  %v1, %m1 = stc.compress %p1 by #stc.nm<2:4> along 1 : tensor<8x4xf32> -> tensor<8x8xf32>, tensor<8x1xi16>
  %h = stc.spmm %v1, %m1, %x bias(%b1 : tensor<8xf32>)
      {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>, activation = #stc.activation<relu>}
      : tensor<8x8xf32>, tensor<8x1xi16>, tensor<2x4xf32> -> tensor<2x8xf32>
  %w2 = arith.constant dense<[[8.0, 7.0, 1.0, 2.0, 6.0, 5.0, 3.0, 4.0], [8.0, 7.0, 1.0, 2.0, 6.0, 5.0, 3.0, 4.0]]> : tensor<2x8xf32>
  // expected-remark @+1 {{stc: reduction channels not permuted: no permutation found keeps more than the 0.7222 of the magnitude that strip pruning keeps}}
  %p2 = stc.prune %w2 by #stc.nm<2:4> along 1 permute_channels : tensor<2x8xf32>
  %v2, %m2 = stc.compress %p2 by #stc.nm<2:4> along 1 : tensor<2x8xf32> -> tensor<2x8xf32>, tensor<2x1xi16>
  %y = stc.spmm %v2, %m2, %h {pattern = #stc.nm<2:4>, sparse = #stc.operand<rhs>}
      : tensor<2x8xf32>, tensor<2x1xi16>, tensor<2x8xf32> -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

// -----

// A dead request (the sparsifier re-creates the prunes it rewrites and
// leaves the originals, and the transposes behind them, to the
// canonicalizer) is dropped without a remark.
func.func @dead_request() {
  %w2 = arith.constant dense<[[8.0, 7.0, 6.0, 5.0, 4.0, 3.0, 2.0, 1.0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]]> : tensor<2x8xf32>
  %p2 = stc.prune %w2 by #stc.nm<2:4> along 1 permute_channels : tensor<2x8xf32>
  %e = tensor.empty() : tensor<8x2xf32>
  %t = linalg.transpose ins(%p2 : tensor<2x8xf32>) outs(%e : tensor<8x2xf32>) permutation = [1, 0]
  return
}
