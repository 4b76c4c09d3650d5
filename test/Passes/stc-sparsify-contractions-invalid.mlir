// Errors of stc-sparsify-contractions: bad pass options, checked on stderr
// (they are reported once for the whole module).
// RUN: stc-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(stc-sparsify-contractions)'
// RUN: not stc-opt %s -split-input-file --pass-pipeline='builtin.module(stc-sparsify-contractions{sparsity=sometimes})' 2>&1 | FileCheck %s --check-prefix=MODE
// RUN: not stc-opt %s -split-input-file --pass-pipeline='builtin.module(stc-sparsify-contractions{pattern=4:8})' 2>&1 | FileCheck %s --check-prefix=PATTERN

// RUN: not stc-opt %s -split-input-file --pass-pipeline='builtin.module(stc-sparsify-contractions{prune-method=random})' 2>&1 | FileCheck %s --check-prefix=METHOD
// RUN: not stc-opt %s -split-input-file --pass-pipeline='builtin.module(stc-sparsify-contractions{prune-method=tile pattern=1:2})' 2>&1 | FileCheck %s --check-prefix=TILE

// MODE: error: unknown sparsity mode 'sometimes' (expected explicit, enable, force or auto)
// PATTERN: error: unsupported pattern '4:8' (expected 2:4 or 1:2)
// METHOD: error: unknown prune method 'random' (expected strip or tile)
// TILE: error: prune method tile requires the 2:4 pattern, got 1:2

// Sparse encodings STC cannot specialize are not errors: they are left to
// upstream's sparsifier (stc-sparsify-contractions-upstream.mlir).
func.func @nothing_to_report() {
  return
}
