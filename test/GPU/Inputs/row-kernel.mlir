// Row groups of stc-lower-elementwise-to-gpu (passes/GPU/RowKernel.h),
// checked by row_kernel_ref.py:
// - @softmax3d: a softmax over the last of three dimensions, rows of 4096
//   (a team of 256 threads, combining across warps in shared memory), the
//   row max kept in f16 (16-bit words through the shuffles);
// - @layernorm: LayerNorm as torch-mlir writes it, the mean and the
//   reciprocal deviation elementwise ops of their own over the rows (row
//   ops inside the group), rows of 768 (teams of 64), a dynamic number of
//   rows;
// - @ints: an i32 row max and row sum; the max is also a result, so it is
//   a kernel of its own that the row kernel reads, and the sum is computed
//   inside.
#id3 = affine_map<(b, i, j) -> (b, i, j)>
#row3 = affine_map<(b, i, j) -> (b, i)>
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
#rowonly = affine_map<(i) -> (i)>
func.func @main(%h: tensor<2x3x4096xf16>, %x: tensor<?x768xf32>, %n: tensor<7x100xi32>)
    -> (tensor<2x3x4096xf16>, tensor<?x768xf32>, tensor<7x100xi32>, tensor<7xi32>) {
  %ninf16 = arith.constant 0xFC00 : f16
  %zero = arith.constant 0.0 : f32
  %c768 = arith.constant 768.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %c0 = arith.constant 0 : index
  %imin = arith.constant -2147483648 : i32
  %izero = arith.constant 0 : i32

  %rows3 = tensor.empty() : tensor<2x3xf16>
  %rows3f = tensor.empty() : tensor<2x3xf32>
  %full3 = tensor.empty() : tensor<2x3x4096xf16>
  %maxInit = linalg.fill ins(%ninf16 : f16) outs(%rows3 : tensor<2x3xf16>) -> tensor<2x3xf16>
  %max = linalg.generic {indexing_maps = [#id3, #row3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%h : tensor<2x3x4096xf16>) outs(%maxInit : tensor<2x3xf16>) {
  ^bb0(%a: f16, %m: f16):
    %r = arith.maximumf %a, %m : f16
    linalg.yield %r : f16
  } -> tensor<2x3xf16>
  %sumInit = linalg.fill ins(%zero : f32) outs(%rows3f : tensor<2x3xf32>) -> tensor<2x3xf32>
  %sum = linalg.generic {indexing_maps = [#id3, #row3, #row3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%h, %max : tensor<2x3x4096xf16>, tensor<2x3xf16>) outs(%sumInit : tensor<2x3xf32>) {
  ^bb0(%a: f16, %m: f16, %s: f32):
    %d = arith.subf %a, %m : f16
    %d32 = arith.extf %d : f16 to f32
    %e = math.exp %d32 : f32
    %r = arith.addf %e, %s : f32
    linalg.yield %r : f32
  } -> tensor<2x3xf32>
  %p = linalg.generic {indexing_maps = [#id3, #row3, #row3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%h, %max, %sum : tensor<2x3x4096xf16>, tensor<2x3xf16>, tensor<2x3xf32>) outs(%full3 : tensor<2x3x4096xf16>) {
  ^bb0(%a: f16, %m: f16, %s: f32, %o: f16):
    %d = arith.subf %a, %m : f16
    %d32 = arith.extf %d : f16 to f32
    %e = math.exp %d32 : f32
    %q = arith.divf %e, %s : f32
    %q16 = arith.truncf %q : f32 to f16
    linalg.yield %q16 : f16
  } -> tensor<2x3x4096xf16>

  %nrows = tensor.dim %x, %c0 : tensor<?x768xf32>
  %rows = tensor.empty(%nrows) : tensor<?xf32>
  %full = tensor.empty(%nrows) : tensor<?x768xf32>
  %sInit = linalg.fill ins(%zero : f32) outs(%rows : tensor<?xf32>) -> tensor<?xf32>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<?x768xf32>) outs(%sInit : tensor<?xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  %mean = linalg.generic {indexing_maps = [#rowonly, #rowonly], iterator_types = ["parallel"]} ins(%s : tensor<?xf32>) outs(%rows : tensor<?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.divf %a, %c768 : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  %vInit = linalg.fill ins(%zero : f32) outs(%rows : tensor<?xf32>) -> tensor<?xf32>
  %v = linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "reduction"]} ins(%x, %mean : tensor<?x768xf32>, tensor<?xf32>) outs(%vInit : tensor<?xf32>) {
  ^bb0(%a: f32, %m: f32, %acc: f32):
    %d = arith.subf %a, %m : f32
    %d2 = arith.mulf %d, %d : f32
    %r = arith.addf %d2, %acc : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  %rstd = linalg.generic {indexing_maps = [#rowonly, #rowonly], iterator_types = ["parallel"]} ins(%v : tensor<?xf32>) outs(%rows : tensor<?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %vn = arith.divf %a, %c768 : f32
    %ve = arith.addf %vn, %eps : f32
    %r = math.rsqrt %ve : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  %ln = linalg.generic {indexing_maps = [#id, #row, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %mean, %rstd : tensor<?x768xf32>, tensor<?xf32>, tensor<?xf32>) outs(%full : tensor<?x768xf32>) {
  ^bb0(%a: f32, %m: f32, %r: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %y = arith.mulf %d, %r : f32
    linalg.yield %y : f32
  } -> tensor<?x768xf32>

  %irows = tensor.empty() : tensor<7xi32>
  %ifull = tensor.empty() : tensor<7x100xi32>
  %imaxInit = linalg.fill ins(%imin : i32) outs(%irows : tensor<7xi32>) -> tensor<7xi32>
  %imax = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%n : tensor<7x100xi32>) outs(%imaxInit : tensor<7xi32>) {
  ^bb0(%a: i32, %m: i32):
    %r = arith.maxsi %a, %m : i32
    linalg.yield %r : i32
  } -> tensor<7xi32>
  %isumInit = linalg.fill ins(%izero : i32) outs(%irows : tensor<7xi32>) -> tensor<7xi32>
  %isum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%n : tensor<7x100xi32>) outs(%isumInit : tensor<7xi32>) {
  ^bb0(%a: i32, %acc: i32):
    %r = arith.addi %a, %acc : i32
    linalg.yield %r : i32
  } -> tensor<7xi32>
  %iout = linalg.generic {indexing_maps = [#id, #row, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%n, %imax, %isum : tensor<7x100xi32>, tensor<7xi32>, tensor<7xi32>) outs(%ifull : tensor<7x100xi32>) {
  ^bb0(%a: i32, %m: i32, %t: i32, %o: i32):
    %d = arith.subi %a, %m : i32
    %r = arith.addi %d, %t : i32
    linalg.yield %r : i32
  } -> tensor<7x100xi32>
  return %p, %ln, %iout, %imax : tensor<2x3x4096xf16>, tensor<?x768xf32>, tensor<7x100xi32>, tensor<7xi32>
}
