// A block label defined twice in one region, after a use of one of its
// arguments outside it (a mutant of the fuzzer): MLIR 22's parser reports
// "redefinition of block '^bb0'" and, cleaning up, writes to freed memory
// (valgrind: invalid write in Operation::dropAllReferences from
// Block::~Block in parseFunctionOp); the heap then aborts later at random
// (malloc_consolidate at exit in 2 of 20000 mutants). mlir-opt on this file
// under valgrind shows the invalid write every time.
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %s = arith.addf %o, %o : f32
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%a : tensor<4xf32>) outs(%a : tensor<4xf32>) {
    ^bb0(%x: f32, %o: f32):
    ^bb0(%x: f32, %o: f32):
      linalg.yield %x : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
