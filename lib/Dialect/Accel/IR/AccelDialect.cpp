//===- AccelDialect.cpp - accel dialect -----------------------------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Registers the accel ops and attributes.
//
//===----------------------------------------------------------------------===//

#include "accel/Dialect/Accel/IR/AccelDialect.h"
#include "accel/Dialect/Accel/IR/AccelAttrs.h"
#include "accel/Dialect/Accel/IR/AccelOps.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::accel;

#include "accel/Dialect/Accel/IR/AccelOpsDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "accel/Dialect/Accel/IR/AccelAttrs.cpp.inc"

void AccelDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "accel/Dialect/Accel/IR/AccelOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "accel/Dialect/Accel/IR/AccelAttrs.cpp.inc"
      >();
}

LogicalResult AccelDialect::verifyOperationAttribute(Operation *op,
                                                     NamedAttribute attr) {
  if (attr.getName() == kTf32InputsAttrName) {
    // A promise that the multiplied inputs hold TF32 values: it only means
    // something on an f32 matmul or attention (the GPU configuration reads
    // it there).
    auto isF32 = [](Value v) {
      return getElementTypeOrSelf(v.getType()).isF32();
    };
    bool applies = false;
    if (auto mm = dyn_cast<MatmulOp>(op))
      applies = isF32(mm.getLhs()) && isF32(mm.getRhs());
    if (auto at = dyn_cast<AttentionOp>(op))
      applies =
          isF32(at.getQuery()) && isF32(at.getKey()) && isF32(at.getValue());
    if (!isa<UnitAttr>(attr.getValue()) || !applies)
      return op->emitError()
             << "'" << kTf32InputsAttrName
             << "' is a unit attribute of an accel.matmul with f32 A and B or "
                "an accel.attention with f32 Q, K and V (TF32 values held in "
                "f32: accel-lower-precision's compute = tf32)";
    return success();
  }
  if (attr.getName() != kPrecisionAttrName)
    return success();
  if (!isa<PrecisionAttr>(attr.getValue()))
    return op->emitError() << "'" << kPrecisionAttrName
                           << "' must be an #accel.precision, got "
                           << attr.getValue();
  if (!isa<MatmulOp, AttentionOp>(op))
    return op->emitError() << "'" << kPrecisionAttrName
                           << "' only applies to accel.matmul and "
                              "accel.attention, not to "
                           << op->getName();
  return success();
}
