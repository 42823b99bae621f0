//===- InitAll.cpp - register every accel dialect and pass ----------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//

#include "accel/InitAll.h"
#include "accel/Dialect/Accel/IR/AccelDialect.h"
#include "accel/Dialect/Accel/IR/ShardingInterfaceImpl.h"
#include "accel/Dialect/Systolic/IR/SystolicDialect.h"
#include "accel/Conversion/Passes.h"
#include "accel/Pipelines/Pipelines.h"
#include "accel/Transforms/Passes.h"
#include "accel/Transforms/Transforms.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"

using namespace mlir;

void accel::registerAllAccelDialects(DialectRegistry &registry) {
  // Every upstream dialect and extension (interface models, transform ops,
  // to-LLVM conversions): accel pipelines reach from tosa and linalg down to
  // LLVM, NVVM and ROCDL, and one-shot bufferization needs the models.
  registry.insert<accel::AccelDialect, systolic::SystolicDialect>();
  registerAllDialects(registry);
  registerAllExtensions(registry);
  // accel.matmul, accel.attention and accel.softmax under upstream's
  // sharding propagation and partitioning (mlir/Dialect/Shard).
  accel::registerShardingInterfaceExternalModels(registry);
  accel::registerMpiMemoryEffects(registry);
}

void accel::registerAllAccelPasses() {
  registerAllPasses();
  accel::registerAccelPasses();
  accel::registerAccelConversionPasses();
  accel::registerAccelPipelines();
}
