//===- CpuSizeChecks.h - sizes a CPU kernel's ops tie together --*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Which dynamic sizes of an ahead-of-time compiled function must agree, as
// its ops define them, so that the C wrapper can refuse a call whose sizes
// disagree (a matmul of an 8x16 A and an 8x4 B would read past B) instead
// of running the kernel (docs/aot.md, docs/bad-input-catalogue.md F5).
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_TOOLS_ACCEL_COMPILE_CPUSIZECHECKS_H
#define ACCEL_TOOLS_ACCEL_COMPILE_CPUSIZECHECKS_H

#include "accel/Target/CpuAbi.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include <vector>

namespace mlir::accel::cpuabi {

/// The conditions between the sizes of `func`'s arguments and results that
/// its ops require and its static shapes do not already fix. Ops the
/// analysis does not know tie nothing (their sizes go unchecked).
std::vector<SizeCheck> collectSizeChecks(func::FuncOp func);

} // namespace mlir::accel::cpuabi

#endif // ACCEL_TOOLS_ACCEL_COMPILE_CPUSIZECHECKS_H
