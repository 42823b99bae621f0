//===- Passes.h - accel conversion passes -----------------------*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_CONVERSION_PASSES_H
#define ACCEL_CONVERSION_PASSES_H

#include "accel/Conversion/AccelToGPU/AccelToGPU.h"
#include "accel/Conversion/AccelToLinalg/AccelToLinalg.h"
#include "accel/Conversion/AccelToSystolic/AccelToSystolic.h"
#include "mlir/Pass/Pass.h"

namespace mlir::accel {

#define GEN_PASS_REGISTRATION
#include "accel/Conversion/Passes.h.inc"

} // namespace mlir::accel

#endif // ACCEL_CONVERSION_PASSES_H
