// End to end on a CUDA GPU (lit feature `cuda`): linear layers through the
// whole compiler under --sparsity=force (the weight of X . W pruned 2:4
// along K at run time, bias add and ReLU fused into the kernel's epilogue,
// f16/bf16 results), also with the weight in nn.Linear's [out, in] layout
// behind a transpose; each checked against the dense CPU reference on
// seeded random data. --device=auto picks the GPU for such a program.
// REQUIRES: cuda
// RUN: stc-run %s --device=cuda %gpu_target --sparsity=force --entry=bias_relu_f16_100x72x200 --random-inputs --seed=20 --check 2>&1 | FileCheck %s --implicit-check-not=FAIL
// RUN: stc-run %s --device=cuda %gpu_target --sparsity=force --entry=bias_relu_bf16_257x129x48 --random-inputs --seed=21 --check 2>&1 | FileCheck %s --implicit-check-not=FAIL
// RUN: stc-run %s --device=cuda %gpu_target --sparsity=force --entry=bias_relu_f16_128x256x512 --random-inputs --seed=22 --check 2>&1 | FileCheck %s --implicit-check-not=FAIL
// RUN: stc-run %s --device=cuda %gpu_target --sparsity=force --entry=torch_linear_f16_64x64x64 --random-inputs --seed=23 --check 2>&1 | FileCheck %s --implicit-check-not=FAIL
// RUN: stc-run %s --device=cuda %gpu_target --sparsity=force --entry=torch_linear_bf16_1x8x16 --random-inputs --seed=24 --check 2>&1 | FileCheck %s --implicit-check-not=FAIL
// RUN: stc-run %s --sparsity=force --entry=bias_relu_f16_100x72x200 --random-inputs --seed=30 --check 2>&1 | FileCheck %s --implicit-check-not=FAIL
// CHECK: stc-run: device: cuda ({{.*}}, sm_{{[0-9]+}}
// CHECK: stc-run: check: result #0 relative error {{.*}} (tolerance 1e-02): PASS

func.func @bias_relu_f16_100x72x200(%x: tensor<100x200xf16>, %w: tensor<200x72xf16>, %b: tensor<72xf16>) -> tensor<100x72xf16> {
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<100x72xf16>
  %z = linalg.fill ins(%zero : f16) outs(%e : tensor<100x72xf16>) -> tensor<100x72xf16>
  %mm = linalg.matmul ins(%x, %w : tensor<100x200xf16>, tensor<200x72xf16>)
                      outs(%z : tensor<100x72xf16>) -> tensor<100x72xf16>
  %biased = linalg.generic
      {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>,
                        affine_map<(d0, d1) -> (d0, d1)>],
       iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<100x72xf16>, tensor<72xf16>) outs(%e : tensor<100x72xf16>) {
  ^bb0(%a: f16, %c: f16, %o: f16):
    %s = arith.addf %a, %c : f16
    linalg.yield %s : f16
  } -> tensor<100x72xf16>
  %r = linalg.generic
      {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
       iterator_types = ["parallel", "parallel"]}
      ins(%biased : tensor<100x72xf16>) outs(%e : tensor<100x72xf16>) {
  ^bb0(%a: f16, %o: f16):
    %m = arith.maximumf %a, %zero : f16
    linalg.yield %m : f16
  } -> tensor<100x72xf16>
  return %r : tensor<100x72xf16>
}

func.func @bias_relu_bf16_257x129x48(%x: tensor<257x48xbf16>, %w: tensor<48x129xbf16>, %b: tensor<129xbf16>) -> tensor<257x129xbf16> {
  %zero = arith.constant 0.0 : bf16
  %e = tensor.empty() : tensor<257x129xbf16>
  %z = linalg.fill ins(%zero : bf16) outs(%e : tensor<257x129xbf16>) -> tensor<257x129xbf16>
  %mm = linalg.matmul ins(%x, %w : tensor<257x48xbf16>, tensor<48x129xbf16>)
                      outs(%z : tensor<257x129xbf16>) -> tensor<257x129xbf16>
  %biased = linalg.generic
      {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>,
                        affine_map<(d0, d1) -> (d0, d1)>],
       iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<257x129xbf16>, tensor<129xbf16>) outs(%e : tensor<257x129xbf16>) {
  ^bb0(%a: bf16, %c: bf16, %o: bf16):
    %s = arith.addf %a, %c : bf16
    linalg.yield %s : bf16
  } -> tensor<257x129xbf16>
  %r = linalg.generic
      {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
       iterator_types = ["parallel", "parallel"]}
      ins(%biased : tensor<257x129xbf16>) outs(%e : tensor<257x129xbf16>) {
  ^bb0(%a: bf16, %o: bf16):
    %m = arith.maximumf %a, %zero : bf16
    linalg.yield %m : bf16
  } -> tensor<257x129xbf16>
  return %r : tensor<257x129xbf16>
}

func.func @bias_relu_f16_128x256x512(%x: tensor<128x512xf16>, %w: tensor<512x256xf16>, %b: tensor<256xf16>) -> tensor<128x256xf16> {
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<128x256xf16>
  %z = linalg.fill ins(%zero : f16) outs(%e : tensor<128x256xf16>) -> tensor<128x256xf16>
  %mm = linalg.matmul ins(%x, %w : tensor<128x512xf16>, tensor<512x256xf16>)
                      outs(%z : tensor<128x256xf16>) -> tensor<128x256xf16>
  %biased = linalg.generic
      {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>,
                        affine_map<(d0, d1) -> (d0, d1)>],
       iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<128x256xf16>, tensor<256xf16>) outs(%e : tensor<128x256xf16>) {
  ^bb0(%a: f16, %c: f16, %o: f16):
    %s = arith.addf %a, %c : f16
    linalg.yield %s : f16
  } -> tensor<128x256xf16>
  %r = linalg.generic
      {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
       iterator_types = ["parallel", "parallel"]}
      ins(%biased : tensor<128x256xf16>) outs(%e : tensor<128x256xf16>) {
  ^bb0(%a: f16, %o: f16):
    %m = arith.maximumf %a, %zero : f16
    linalg.yield %m : f16
  } -> tensor<128x256xf16>
  return %r : tensor<128x256xf16>
}

func.func @torch_linear_f16_64x64x64(%x: tensor<64x64xf16>, %w: tensor<64x64xf16>, %b: tensor<64xf16>) -> tensor<64x64xf16> {
  %zero = arith.constant 0.0 : f16
  %et = tensor.empty() : tensor<64x64xf16>
  %wt = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>],
                        iterator_types = ["parallel", "parallel"]}
      ins(%w : tensor<64x64xf16>) outs(%et : tensor<64x64xf16>) {
  ^bb0(%a: f16, %o: f16):
    linalg.yield %a : f16
  } -> tensor<64x64xf16>
  %e = tensor.empty() : tensor<64x64xf16>
  %z = linalg.fill ins(%zero : f16) outs(%e : tensor<64x64xf16>) -> tensor<64x64xf16>
  %mm = linalg.matmul ins(%x, %wt : tensor<64x64xf16>, tensor<64x64xf16>)
                      outs(%z : tensor<64x64xf16>) -> tensor<64x64xf16>
  %biased = linalg.generic
      {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>,
                        affine_map<(d0, d1) -> (d0, d1)>],
       iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<64x64xf16>, tensor<64xf16>) outs(%e : tensor<64x64xf16>) {
  ^bb0(%a: f16, %c: f16, %o: f16):
    %s = arith.addf %a, %c : f16
    linalg.yield %s : f16
  } -> tensor<64x64xf16>
  %r = linalg.generic
      {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
       iterator_types = ["parallel", "parallel"]}
      ins(%biased : tensor<64x64xf16>) outs(%e : tensor<64x64xf16>) {
  ^bb0(%a: f16, %o: f16):
    %m = arith.maximumf %a, %zero : f16
    linalg.yield %m : f16
  } -> tensor<64x64xf16>
  return %r : tensor<64x64xf16>
}

func.func @torch_linear_bf16_1x8x16(%x: tensor<1x16xbf16>, %w: tensor<8x16xbf16>, %b: tensor<8xbf16>) -> tensor<1x8xbf16> {
  %zero = arith.constant 0.0 : bf16
  %et = tensor.empty() : tensor<16x8xbf16>
  %wt = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>],
                        iterator_types = ["parallel", "parallel"]}
      ins(%w : tensor<8x16xbf16>) outs(%et : tensor<16x8xbf16>) {
  ^bb0(%a: bf16, %o: bf16):
    linalg.yield %a : bf16
  } -> tensor<16x8xbf16>
  %e = tensor.empty() : tensor<1x8xbf16>
  %z = linalg.fill ins(%zero : bf16) outs(%e : tensor<1x8xbf16>) -> tensor<1x8xbf16>
  %mm = linalg.matmul ins(%x, %wt : tensor<1x16xbf16>, tensor<16x8xbf16>)
                      outs(%z : tensor<1x8xbf16>) -> tensor<1x8xbf16>
  %biased = linalg.generic
      {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>,
                        affine_map<(d0, d1) -> (d0, d1)>],
       iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<1x8xbf16>, tensor<8xbf16>) outs(%e : tensor<1x8xbf16>) {
  ^bb0(%a: bf16, %c: bf16, %o: bf16):
    %s = arith.addf %a, %c : bf16
    linalg.yield %s : bf16
  } -> tensor<1x8xbf16>
  %r = linalg.generic
      {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
       iterator_types = ["parallel", "parallel"]}
      ins(%biased : tensor<1x8xbf16>) outs(%e : tensor<1x8xbf16>) {
  ^bb0(%a: bf16, %o: bf16):
    %m = arith.maximumf %a, %zero : bf16
    linalg.yield %m : bf16
  } -> tensor<1x8xbf16>
  return %r : tensor<1x8xbf16>
}
