// A 2:4 sparse linear layer for ahead-of-time compilation to a GPU object:
// Y (M x 256, f32) = relu(X (M x 512, f16) . prune(W) (512 x 256, f16) + b),
// with W a run-time argument pruned 2:4 along K by the program itself (its
// metadata is converted to the kernel-ready layout on the device) and M
// dynamic (any batch of tokens). run_linear.c calls it from C.
//
//   stc-compile linear_f16.mlir --target=sm_80 --emit=obj -o linear.o
//   cc -I<stc prefix>/include run_linear.c linear.o \
//      -L<stc prefix>/lib -lstc_runtime -lstdc++ -ldl -lm -o run_linear
//   ./run_linear 64          # prints the relative error against a C reference
//
// (Inside the build tree: test/Examples/gpu-aot.test shows the exact
// command lines.) The object embeds the PTX and loads it from a global
// constructor; stc_runtime's driver layer dlopens libcuda.so.1.
func.func @linear(%x: tensor<?x512xf16>, %w: tensor<512x256xf16>, %b: tensor<256xf32>) -> tensor<?x256xf32> {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x512xf16>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%m) : tensor<?x256xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x256xf32>) -> tensor<?x256xf32>
  %wp = stc.prune %w by #stc.nm<2:4> along 0 : tensor<512x256xf16>
  %r = linalg.matmul ins(%x, %wp : tensor<?x512xf16>, tensor<512x256xf16>)
                     outs(%z : tensor<?x256xf32>) -> tensor<?x256xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%r, %b : tensor<?x256xf32>, tensor<256xf32>) outs(%e : tensor<?x256xf32>) {
  ^bb0(%a: f32, %bias: f32, %o: f32):
    %s = arith.addf %a, %bias : f32
    %v = arith.maximumf %s, %zero : f32
    linalg.yield %v : f32
  } -> tensor<?x256xf32>
  return %y : tensor<?x256xf32>
}
