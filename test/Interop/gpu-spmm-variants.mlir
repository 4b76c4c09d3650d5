// More of the gpu sparse family on STC's kernels, each form the pass must
// map correctly: B given transposed ({TRANSPOSE}, so K runs along its
// rows' ends) with NONE (A is 2:4 by construction, checked, not pruned);
// a flat 1-D buffer as the 2:4 matrix (PRUNE_ONLY, bf16); i8 matrices with
// an i32 C (exact, C added after the product). Every C starts non-zero:
// the products accumulate. Expected values by NumPy
// (Inputs/interop_ref.py).
//
// RUN: %python %S/Inputs/interop_ref.py gpu-spmm-variants > %t.check
// RUN: stc-run %s 2>/dev/null | FileCheck %t.check
// RUN: stc-run %s --device=emulate 2>/dev/null | FileCheck %t.check
// NONE means "already 2:4": data that is not is a run-time error at the
// gpu.spmm, and the program stops there (nothing printed after it).
// RUN: sed -e 's/^\/\/ MAKE-BROKEN: //' %s > %t.broken.mlir
// RUN: not stc-run %t.broken.mlir --device=cpu 2> %t.err > %t.out
// RUN: FileCheck %s --check-prefix=BROKEN < %t.err
// RUN: not grep . %t.out
//
// BROKEN: stc-run: device: cpu
// BROKEN-NEXT: gpu-spmm-variants.mlir.tmp.broken.mlir:[[# @LINE + 14]]:11: error: stc.compress: operand is not 2:4 along dimension 1: row 0, group 1 has 3 non-zeros
// BROKEN-NOT: {{.}}

module {
  // op(A) = A (8 x 16, 2:4), op(B) = B^T with B stored 8 x 16.
  func.func @transposed_b(%a: memref<8x16xf16>, %bt: memref<8x16xf16>, %c: memref<8x8xf32>) {
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %t0 = gpu.wait async
    %spA, %t1 = gpu.create_2to4_spmat async [%t0] {NONE} %c8, %c16, %a : memref<8x16xf16>
    %dnB, %t2 = gpu.create_dn_tensor async [%t1] %bt, %c8, %c16 : index, index into memref<8x16xf16>
    %dnC, %t3 = gpu.create_dn_tensor async [%t2] %c, %c8, %c8 : index, index into memref<8x8xf32>
    %sz, %t4 = gpu.spmm_buffer_size async [%t3] %spA, %dnB{TRANSPOSE}, %dnC : index into f32
    %buf, %t5 = gpu.alloc async [%t4] (%sz) : memref<?xi8>
    %t6 = gpu.spmm async [%t5] %spA, %dnB{TRANSPOSE}, %dnC, %buf : memref<?xi8> into f32
    %t7 = gpu.destroy_sp_mat async [%t6] %spA
    %t8 = gpu.dealloc async [%t7] %buf : memref<?xi8>
    gpu.wait [%t8]
    return
  }

  // A in a flat buffer of 8 x 16 values, pruned in place; bf16.
  func.func @flat_bf16(%a: memref<128xbf16>, %b: memref<16x8xbf16>, %c: memref<8x8xbf16>) {
    %c8 = arith.constant 8 : index
    %c16 = arith.constant 16 : index
    %spA = gpu.create_2to4_spmat {PRUNE_ONLY} %c8, %c16, %a : memref<128xbf16>
    %dnB = gpu.create_dn_tensor %b, %c16, %c8 : index, index into memref<16x8xbf16>
    %dnC = gpu.create_dn_tensor %c, %c8, %c8 : index, index into memref<8x8xbf16>
    gpu.spmm %spA, %dnB, %dnC, %a : memref<128xbf16> into f32
    gpu.destroy_sp_mat %spA
    gpu.destroy_dn_tensor %dnB
    gpu.destroy_dn_tensor %dnC
    return
  }

  func.func @int8(%a: memref<8x32xi8>, %b: memref<32x8xi8>, %c: memref<8x8xi32>) {
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %t0 = gpu.wait async
    %spA, %t1 = gpu.create_2to4_spmat async [%t0] {PRUNE_AND_CHECK} %c8, %c32, %a : memref<8x32xi8>
    %dnB, %t2 = gpu.create_dn_tensor async [%t1] %b, %c32, %c8 : index, index into memref<32x8xi8>
    %dnC, %t3 = gpu.create_dn_tensor async [%t2] %c, %c8, %c8 : index, index into memref<8x8xi32>
    %t4 = gpu.spmm async [%t3] %spA, %dnB, %dnC, %a : memref<8x32xi8> into i32
    gpu.wait [%t4]
    return
  }

  // Fills m[i, j] = ((p i + q j) mod r) - s (as the element type).
  func.func @fill_f16(%m: memref<?x?xf16>, %p: index, %q: index, %r: index, %s: i32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %rows = memref.dim %m, %c0 : memref<?x?xf16>
    %cols = memref.dim %m, %c1 : memref<?x?xf16>
    scf.for %i = %c0 to %rows step %c1 {
      scf.for %j = %c0 to %cols step %c1 {
        %x0 = arith.muli %i, %p : index
        %x1 = arith.muli %j, %q : index
        %x2 = arith.addi %x0, %x1 : index
        %x3 = arith.remui %x2, %r : index
        %x4 = arith.index_cast %x3 : index to i32
        %x5 = arith.subi %x4, %s : i32
        %v = arith.sitofp %x5 : i32 to f16
        memref.store %v, %m[%i, %j] : memref<?x?xf16>
      }
    }
    return
  }

  func.func @fill_bf16(%m: memref<?x?xbf16>, %p: index, %q: index, %r: index, %s: i32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %rows = memref.dim %m, %c0 : memref<?x?xbf16>
    %cols = memref.dim %m, %c1 : memref<?x?xbf16>
    scf.for %i = %c0 to %rows step %c1 {
      scf.for %j = %c0 to %cols step %c1 {
        %x0 = arith.muli %i, %p : index
        %x1 = arith.muli %j, %q : index
        %x2 = arith.addi %x0, %x1 : index
        %x3 = arith.remui %x2, %r : index
        %x4 = arith.index_cast %x3 : index to i32
        %x5 = arith.subi %x4, %s : i32
        %v = arith.sitofp %x5 : i32 to bf16
        memref.store %v, %m[%i, %j] : memref<?x?xbf16>
      }
    }
    return
  }

  func.func @fill_i8(%m: memref<?x?xi8>, %p: index, %q: index, %r: index, %s: i32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %rows = memref.dim %m, %c0 : memref<?x?xi8>
    %cols = memref.dim %m, %c1 : memref<?x?xi8>
    scf.for %i = %c0 to %rows step %c1 {
      scf.for %j = %c0 to %cols step %c1 {
        %x0 = arith.muli %i, %p : index
        %x1 = arith.muli %j, %q : index
        %x2 = arith.addi %x0, %x1 : index
        %x3 = arith.remui %x2, %r : index
        %x4 = arith.index_cast %x3 : index to i32
        %x5 = arith.subi %x4, %s : i32
        %v = arith.trunci %x5 : i32 to i8
        memref.store %v, %m[%i, %j] : memref<?x?xi8>
      }
    }
    return
  }

  func.func @main() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c5 = arith.constant 5 : index
    %c8 = arith.constant 8 : index
    %c9 = arith.constant 9 : index
    %c13 = arith.constant 13 : index
    %c17 = arith.constant 17 : index
    %c31 = arith.constant 31 : index
    %i1 = arith.constant 1 : i32
    %i2 = arith.constant 2 : i32
    %i4 = arith.constant 4 : i32
    %i8 = arith.constant 8 : i32
    %i15 = arith.constant 15 : i32
    %h0 = arith.constant 0.0 : f16
    %f0 = arith.constant 0.0 : f32
    %f2 = arith.constant 2.0 : f32
    %b0 = arith.constant 0.0 : bf16
    %z8 = arith.constant 0 : i8
    %im1 = arith.constant -1 : i32

    // A(i, j) = (i + j) mod 5 - 2 on even j, 0 on odd j (2:4);
    // B^T(i, j) = (2i + j) mod 3 - 1; C = 2.
    %a = memref.alloc() : memref<8x16xf16>
    %bt = memref.alloc() : memref<8x16xf16>
    %c = memref.alloc() : memref<8x8xf32>
    scf.for %i = %c0 to %c8 step %c1 {
      scf.for %j = %c0 to %c8 step %c1 {
        %jj = arith.muli %j, %c2 : index
        %jo = arith.addi %jj, %c1 : index
        %x0 = arith.addi %i, %jj : index
        %x1 = arith.remui %x0, %c5 : index
        %x2 = arith.index_cast %x1 : index to i32
        %x3 = arith.subi %x2, %i2 : i32
        %v = arith.sitofp %x3 : i32 to f16
        memref.store %v, %a[%i, %jj] : memref<8x16xf16>
        memref.store %h0, %a[%i, %jo] : memref<8x16xf16>
        memref.store %f2, %c[%i, %j] : memref<8x8xf32>
      }
    }
    %btv = memref.cast %bt : memref<8x16xf16> to memref<?x?xf16>
    call @fill_f16(%btv, %c2, %c1, %c3, %i1) : (memref<?x?xf16>, index, index, index, i32) -> ()
// MAKE-BROKEN: %h1 = arith.constant 1.0 : f16
// MAKE-BROKEN: memref.store %h1, %a[%c0, %c5] : memref<8x16xf16>
    call @transposed_b(%a, %bt, %c) : (memref<8x16xf16>, memref<8x16xf16>, memref<8x8xf32>) -> ()
    scf.for %i = %c0 to %c8 step %c1 {
      %row = vector.transfer_read %c[%i, %c0], %f0 : memref<8x8xf32>, vector<8xf32>
      vector.print %row : vector<8xf32>
    }

    // A(i, j) = (5i + 3j) mod 9 - 4 in a flat buffer, B(i, j) =
    // (i + 3j) mod 5 - 2, C = 0.
    %af = memref.alloc() : memref<128xbf16>
    %afv = memref.expand_shape %af [[0, 1]] output_shape [8, 16] : memref<128xbf16> into memref<8x16xbf16>
    %afd = memref.cast %afv : memref<8x16xbf16> to memref<?x?xbf16>
    call @fill_bf16(%afd, %c5, %c3, %c9, %i4) : (memref<?x?xbf16>, index, index, index, i32) -> ()
    %bb = memref.alloc() : memref<16x8xbf16>
    %bbv = memref.cast %bb : memref<16x8xbf16> to memref<?x?xbf16>
    call @fill_bf16(%bbv, %c1, %c3, %c5, %i2) : (memref<?x?xbf16>, index, index, index, i32) -> ()
    %cb = memref.alloc() : memref<8x8xbf16>
    linalg.fill ins(%b0 : bf16) outs(%cb : memref<8x8xbf16>)
    call @flat_bf16(%af, %bb, %cb) : (memref<128xbf16>, memref<16x8xbf16>, memref<8x8xbf16>) -> ()
    scf.for %i = %c0 to %c8 step %c1 {
      %row = vector.transfer_read %cb[%i, %c0], %b0 : memref<8x8xbf16>, vector<8xbf16>
      vector.print %row : vector<8xbf16>
    }

    // A(i, j) = (9i + 13j) mod 31 - 15, B(i, j) = (3i + 5j) mod 17 - 8
    // (i8), C = -1 (i32).
    %ai = memref.alloc() : memref<8x32xi8>
    %aiv = memref.cast %ai : memref<8x32xi8> to memref<?x?xi8>
    call @fill_i8(%aiv, %c9, %c13, %c31, %i15) : (memref<?x?xi8>, index, index, index, i32) -> ()
    %bi = memref.alloc() : memref<32x8xi8>
    %biv = memref.cast %bi : memref<32x8xi8> to memref<?x?xi8>
    call @fill_i8(%biv, %c3, %c5, %c17, %i8) : (memref<?x?xi8>, index, index, index, i32) -> ()
    %ci = memref.alloc() : memref<8x8xi32>
    linalg.fill ins(%im1 : i32) outs(%ci : memref<8x8xi32>)
    call @int8(%ai, %bi, %ci) : (memref<8x32xi8>, memref<32x8xi8>, memref<8x8xi32>) -> ()
    scf.for %i = %c0 to %c8 step %c1 {
      %row = vector.transfer_read %ci[%i, %c0], %im1 : memref<8x8xi32>, vector<8xi32>
      vector.print %row : vector<8xi32>
    }
    return
  }
}
