// Upstream: NVVM::MmaSpOp::verify aborts on a result struct with an index
// member (mlir-opt aborts parsing this file). For upstream-crashes.test.
llvm.func @f(%a: i32) {
  %c0 = llvm.mlir.constant(0 : i32) : i32
  %r = nvvm.mma.sp.sync A[%a, %a, %a, %a] B[%a, %a, %a, %a] C[%a, %a, %a, %a]
      sparseMetadata[%a] selector[%c0]
      {multiplicandAPtxType = #nvvm.mma_type<s8>, multiplicandBPtxType = #nvvm.mma_type<s8>, orderedMetadata, shape = #nvvm.shape<m = 16, n = 8, k = 64>}
      : (i32, i32, i32) -> !llvm.struct<(index, i32, i32, i32)>
  llvm.return
}
