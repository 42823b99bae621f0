//===- SystolicOps.cpp - systolic ops and their verifiers -----------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//

#include "accel/Dialect/Systolic/IR/SystolicOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::systolic;

#define GET_OP_CLASSES
#include "accel/Dialect/Systolic/IR/SystolicOps.cpp.inc"

void ProgramOp::build(OpBuilder &builder, OperationState &state,
                      StringRef name, ConfigAttr config, ArrayAttr buffers) {
  state.addAttribute(getSymNameAttrName(state.name),
                     builder.getStringAttr(name));
  state.addAttribute(getConfigAttrName(state.name), config);
  state.addAttribute(getBuffersAttrName(state.name), buffers);
  Region *body = state.addRegion();
  body->push_back(new Block());
}

// TODO(dialect helper): the full checks against the machine.
LogicalResult ConfigAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 uint32_t, uint32_t, Type, Type, uint32_t,
                                 uint32_t, uint32_t, uint32_t, llvm::APFloat,
                                 uint32_t, uint32_t) {
  return success();
}

LogicalResult BufferAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 StringRef, BufferRole, uint32_t,
                                 RankedTensorType) {
  return success();
}

LogicalResult ProgramOp::verify() { return success(); }
