//===- InitAll.h - register every accel dialect and pass --------*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_INITALL_H
#define ACCEL_INITALL_H

namespace mlir {
class DialectRegistry;
namespace accel {

/// Adds the accel dialects and the upstream dialects (with their interface
/// models and transform extensions) that accel tools parse and create.
void registerAllAccelDialects(DialectRegistry &registry);

/// Registers the accel passes and pipelines, plus the upstream passes that
/// accel-opt offers (canonicalize, cse, transform-interpreter, ...).
void registerAllAccelPasses();

} // namespace accel
} // namespace mlir

#endif // ACCEL_INITALL_H
