// The stc-pipeline options (stc-opt, and the C API's stcAddPipeline) are the
// tools' options under their pipeline names, checked by the same
// StcPipelineOptions::verify: a bad value or combination is one error that
// names the option as stc-pipeline spells it (the GPU knobs with gpu-), and
// no pipeline runs. The tool spellings (--sparsity, --gpu-kernel) are in
// test/Tools/bad-options.test; the pass's own (kernel=) in
// test/Passes/stc-configure-gpu-kernels-invalid.mlir.
// RUN: not stc-opt %s --stc-pipeline="sparsity=bogus" 2>&1 | FileCheck %s --check-prefix=SPARSITY --implicit-check-not=error:
// SPARSITY: error: stc-pipeline: sparsity must be explicit, enable, force or auto, got 'bogus'
// RUN: not stc-opt %s --stc-pipeline="target=sm_80 gpu-kernel=wgmma" 2>&1 | FileCheck %s --check-prefix=WGMMA --implicit-check-not=error:
// WGMMA: error: stc-pipeline: gpu-kernel=wgmma needs target=sm_90a, got target=sm_80
// RUN: not stc-opt %s --stc-pipeline="target=sm_90a gpu-block-rows=256 gpu-block-cols=256" 2>&1 | FileCheck %s --check-prefix=TILE --implicit-check-not=error:
// TILE: error: stc-pipeline: gpu-block-rows=256 takes at most 128 columns (a 256 x 256 tile needs 256 accumulators per thread)
// RUN: not stc-opt %s --stc-pipeline="target=sm_99" 2>&1 | FileCheck %s --check-prefix=TARGET --implicit-check-not=error:
// TARGET: error: stc-pipeline: unknown target 'sm_99' (expected cpu, sm_80, sm_86, sm_89, sm_90 or sm_90a)
// RUN: not stc-opt %s --stc-pipeline="sparsity=enable prune-method=tile" 2>&1 | FileCheck %s --check-prefix=TILEFORCE --implicit-check-not=error:
// TILEFORCE: error: stc-pipeline: prune-method=tile needs sparsity=force or auto (an explicit stc.prune says `method tile`)
// The CPU tiling knobs are pipeline options too (the tools' --mr ...):
// a valid value builds and runs the pipeline.
// RUN: stc-opt %s --stc-pipeline="mr=4 nv=1" | FileCheck %s --check-prefix=OK
// OK: llvm.func @f()
func.func @f() {
  return
}
