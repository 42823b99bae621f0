//===- CompilerId.cpp - the compiler id of this build ---------------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The one place the compiler id is made: the version and the git commit of
// the sources (accel/Revision.h, written at every build by
// cmake/AccelRevision.cmake). Kept in a file of its own, so that a new
// commit recompiles this file only.
//
//===----------------------------------------------------------------------===//

#include "accel/Revision.h"
#include "accel/Runtime/KernelMetadata.h"

std::string mlir::accel::getAccelCompilerId() {
  return "accel " ACCEL_VERSION_STRING "+" ACCEL_REVISION;
}
