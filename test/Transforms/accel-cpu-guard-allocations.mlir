// RUN: accel-opt %s --split-input-file --accel-cpu-guard-allocations | FileCheck %s
// RUN: accel-opt %s --split-input-file --accel-cpu-guard-allocations="max-bytes=1000 callee=stop" | FileCheck %s --check-prefix=LIMIT
// RUN: accel-opt %s --split-input-file --accel-cpu-guard-allocations="max-bytes=0" | FileCheck %s --check-prefix=MAX0
// RUN: accel-opt %s --split-input-file --accel-cpu-pipeline="guard-allocations=1 max-allocation-bytes=4096" | FileCheck %s --check-prefix=PIPE
// RUN: accel-opt %s --split-input-file --accel-cpu-pipeline | FileCheck %s --check-prefix=PLAIN

// Each dynamically sized allocation gets, before it, the product of its
// sizes and its element bytes with the overflow checked, and a call of the
// callee (declared once, () -> ()) when a size is negative, or when the
// product leaves int64 (or is over max-bytes) and no size is 0. The static
// sizes and the element bytes are folded into one constant: 1024 f32 are
// 4096 bytes.

// CHECK-LABEL: module
// CHECK:       func.func private @accel_allocation_failed()
// CHECK-LABEL: func.func @dynamic(
// CHECK-SAME:    %[[N:.+]]: index
// CHECK-DAG:     %[[ZERO:.+]] = arith.constant 0 : i64
// CHECK-DAG:     %[[BYTES:.+]] = arith.constant 4096 : i64
// CHECK:         %[[SIZE:.+]] = arith.index_cast %[[N]] : index to i64
// CHECK:         %[[NEG:.+]] = arith.cmpi slt, %[[SIZE]], %[[ZERO]] : i64
// CHECK:         %[[EMPTY:.+]] = arith.cmpi eq, %[[SIZE]], %[[ZERO]] : i64
// CHECK:         %[[LOW:.+]], %[[HIGH:.+]] = arith.mului_extended %[[BYTES]], %[[SIZE]] : i64
// CHECK:         %[[HI:.+]] = arith.cmpi ne, %[[HIGH]], %[[ZERO]] : i64
// CHECK:         %[[SIGN:.+]] = arith.cmpi slt, %[[LOW]], %[[ZERO]] : i64
// CHECK:         %[[OVER:.+]] = arith.ori %[[HI]], %[[SIGN]] : i1
// CHECK:         %[[NOTEMPTY:.+]] = arith.xori %[[EMPTY]], %{{.+}} : i1
// CHECK:         %[[TOOBIG:.+]] = arith.andi %[[OVER]], %[[NOTEMPTY]] : i1
// CHECK:         %[[FAIL:.+]] = arith.ori %[[NEG]], %[[TOOBIG]] : i1
// CHECK-NOT:     arith.cmpi ugt
// CHECK:         scf.if %[[FAIL]] {
// CHECK-NEXT:      func.call @accel_allocation_failed() : () -> ()
// CHECK-NEXT:    }
// CHECK-NEXT:    memref.alloc(%[[N]]) {alignment = 64 : i64} : memref<?x1024xf32>
// A static allocation is left alone (its size is checked when compiling).
// CHECK-NEXT:    memref.alloc() : memref<4xf32>
// CHECK-NEXT:    memref.dealloc

// With max-bytes, the product (unsigned) is compared with it too, and the
// callee is the one named.
// LIMIT:       func.func private @stop()
// LIMIT-LABEL: func.func @dynamic(
// LIMIT:         %[[LOW:.+]], %{{.+}} = arith.mului_extended
// LIMIT:         %[[MAX:.+]] = arith.constant 1000 : i64
// LIMIT:         %[[OVERMAX:.+]] = arith.cmpi ugt, %[[LOW]], %[[MAX]] : i64
// LIMIT:         arith.andi %[[OVERMAX]],
// LIMIT:         scf.if
// LIMIT-NEXT:      func.call @stop() : () -> ()

// max-bytes=0 (as accel-compile's --max-tensor-bytes=0): nothing non-empty.
// MAX0-LABEL: func.func @dynamic(
// MAX0:         %[[LOW:.+]], %{{.+}} = arith.mului_extended
// MAX0:         %[[MAX:.+]] = arith.constant 0 : i64
// MAX0:         arith.cmpi ugt, %[[LOW]], %[[MAX]] : i64

module {
  func.func @dynamic(%n: index) {
    %a = memref.alloc(%n) {alignment = 64 : i64} : memref<?x1024xf32>
    %s = memref.alloc() : memref<4xf32>
    memref.dealloc %s : memref<4xf32>
    memref.dealloc %a : memref<?x1024xf32>
    return
  }
}

// -----

// Several dynamic sizes: each is checked for a negative value and for 0,
// and the product runs through them in order, from 2 bytes x 3 (bf16, the
// static size).
// CHECK-LABEL: func.func @sizes(
// CHECK-SAME:    %[[N:[^:]+]]: index, %[[M:[^:]+]]: index
// CHECK-DAG:     %[[SIX:.+]] = arith.constant 6 : i64
// CHECK:         %[[SN:.+]] = arith.index_cast %[[N]] : index to i64
// CHECK:         %[[L1:.+]], %{{.+}} = arith.mului_extended %[[SIX]], %[[SN]] : i64
// CHECK:         %[[SM:.+]] = arith.index_cast %[[M]] : index to i64
// CHECK:         %[[NEGM:.+]] = arith.cmpi slt, %[[SM]], %{{.+}} : i64
// CHECK:         arith.ori %{{.+}}, %[[NEGM]] : i1
// CHECK:         %[[EMPTYM:.+]] = arith.cmpi eq, %[[SM]], %{{.+}} : i64
// CHECK:         arith.ori %{{.+}}, %[[EMPTYM]] : i1
// CHECK:         arith.mului_extended %[[L1]], %[[SM]] : i64
// CHECK:         scf.if
// CHECK-NEXT:      func.call @accel_allocation_failed()
// CHECK:         memref.alloc(%[[N]], %[[M]]) : memref<?x3x?xbf16>
// A static size of 0: the allocation is empty, only negative sizes fail.
// CHECK:         %[[SK:.+]] = arith.index_cast %{{.+}} : index to i64
// CHECK-NEXT:    %[[NEGK:.+]] = arith.cmpi slt, %[[SK]], %{{.+}} : i64
// CHECK-NEXT:    arith.cmpi eq
// CHECK-NEXT:    arith.mului_extended
// CHECK-NEXT:    arith.cmpi ne
// CHECK-NEXT:    arith.cmpi slt
// CHECK-NEXT:    arith.ori
// CHECK-NEXT:    scf.if %[[NEGK]] {
// CHECK:         memref.alloc(%{{.+}}) : memref<0x?xf32>
// Vector elements take LLVM's size: 16 x 4 bytes; 3 x 5 x 4 is an array
// of 3 vectors of 5 floats, each 32 bytes; 2 x 3 x 5 i8 are 6 vectors of 8
// bytes; a 0-d vector is one element.
// CHECK:         arith.constant 64 : i64
// CHECK:         memref.alloc(%{{.+}}) : memref<?xvector<16xf32>>
// CHECK:         arith.constant 96 : i64
// CHECK:         memref.alloc(%{{.+}}) : memref<?xvector<3x5xf32>>
// CHECK:         arith.constant 48 : i64
// CHECK:         memref.alloc(%{{.+}}) : memref<?xvector<2x3x5xi8>>
// CHECK:         arith.constant 4 : i64
// CHECK:         memref.alloc(%{{.+}}) : memref<?xvector<f32>>
module {
  func.func @sizes(%n: index, %m: index, %k: index) {
    %a = memref.alloc(%n, %m) : memref<?x3x?xbf16>
    %b = memref.alloc(%k) : memref<0x?xf32>
    %c = memref.alloc(%k) : memref<?xvector<16xf32>>
    %d = memref.alloc(%k) : memref<?xvector<3x5xf32>>
    %e = memref.alloc(%k) : memref<?xvector<2x3x5xi8>>
    %f = memref.alloc(%k) : memref<?xvector<f32>>
    memref.dealloc %e : memref<?xvector<2x3x5xi8>>
    memref.dealloc %f : memref<?xvector<f32>>
    memref.dealloc %a : memref<?x3x?xbf16>
    memref.dealloc %b : memref<0x?xf32>
    memref.dealloc %c : memref<?xvector<16xf32>>
    memref.dealloc %d : memref<?xvector<3x5xf32>>
    return
  }
}

// -----

// The callee is declared where the call resolves: in the nested module.
// CHECK-LABEL: module
// CHECK-NEXT:    module @inner {
// CHECK-NEXT:      func.func private @accel_allocation_failed()
// CHECK-LABEL:     func.func @nested(
// CHECK:             func.call @accel_allocation_failed()
module {
  module @inner {
    func.func @nested(%n: index) {
      %a = memref.alloc(%n) : memref<?xf32>
      memref.dealloc %a : memref<?xf32>
      return
    }
  }
}

// -----

// Nothing to check: nothing declared.
// CHECK-LABEL: module
// CHECK-NOT:   accel_allocation_failed
// CHECK:       func.func @static
module {
  func.func @static() {
    %a = memref.alloc() : memref<16xf32>
    memref.dealloc %a : memref<16xf32>
    return
  }
}

// -----

// In the CPU pipeline (guard-allocations, as accel-compile runs it), the
// check comes before the allocation, which goes through MLIR's generic
// allocation functions; without it the pipeline calls malloc and checks
// nothing.
// PIPE-LABEL:  llvm.func @rows(
// PIPE:          llvm.icmp "ugt" %{{.+}}, %{{.+}} : i64
// PIPE:          llvm.call @accel_allocation_failed() : () -> ()
// PIPE:          llvm.call @_mlir_memref_to_llvm_alloc(
// PIPE-NOT:      llvm.call @malloc
// PIPE:          llvm.call @_mlir_memref_to_llvm_free(
// PLAIN-LABEL: llvm.func @rows(
// PLAIN-NOT:     accel_allocation_failed
// PLAIN:         llvm.call @malloc(
func.func @rows(%a: tensor<?x?xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %d0 = tensor.dim %a, %c0 : tensor<?x?xf32>
  %one = arith.constant 1.0 : f32
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%d0) : tensor<?x4xf32>
  %t = linalg.fill ins(%one : f32) outs(%e : tensor<?x4xf32>) -> tensor<?x4xf32>
  %r0 = tensor.empty() : tensor<4xf32>
  %r1 = linalg.fill ins(%zero : f32) outs(%r0 : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.reduce ins(%t : tensor<?x4xf32>) outs(%r1 : tensor<4xf32>) dimensions = [0]
    (%x: f32, %y: f32) {
      %u = arith.addf %x, %y : f32
      linalg.yield %u : f32
    }
  return %r : tensor<4xf32>
}
