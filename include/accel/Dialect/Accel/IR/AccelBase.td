//===- AccelBase.td - accel dialect definition -------------*- tablegen -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_DIALECT_ACCEL_IR_ACCELBASE_TD
#define ACCEL_DIALECT_ACCEL_IR_ACCELBASE_TD

include "mlir/IR/OpBase.td"

def Accel_Dialect : Dialect {
  let name = "accel";
  let cppNamespace = "::mlir::accel";
  let summary = "Matmul, softmax and attention as first-class tensor ops";
  let description = [{
    The `accel` dialect captures the two operations that dominate
    deep-learning compute, matrix multiplication and attention, plus the
    softmax between them, at a level where a compiler can still reason about
    them as a whole: fuse an unfused attention chain, choose a precision,
    tile for a target's memories and matrix units.

    Every compute op is in destination-passing style (`ins(...) outs(...)`,
    `DestinationStyleOpInterface`) on ranked tensors and implements
    `TilingInterface`, so upstream tiling (`scf::tileUsingSCF`,
    `transform.structured.tile_using_for`) works on it.

    Target descriptions (`#accel.target<...>`) carry the figures a cost model
    needs: peak throughput per precision, memory bandwidth, on-chip memories
    and the matrix-unit shape. A catalogue of real hardware ships with the
    compiler (`accel-attach-target{name=h100}`).
  }];
  let useDefaultAttributePrinterParser = 1;
  // `accel.precision` must be an #accel.precision on a matmul or attention.
  let hasOperationAttrVerify = 1;
}

class Accel_Op<string mnemonic, list<Trait> traits = []>
    : Op<Accel_Dialect, mnemonic, traits>;

#endif // ACCEL_DIALECT_ACCEL_IR_ACCELBASE_TD
