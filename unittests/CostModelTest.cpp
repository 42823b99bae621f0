//===- CostModelTest.cpp - the tiling cost model --------------------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//

#include "accel/Target/CostModel.h"
#include "accel/Dialect/Accel/IR/AccelDialect.h"
#include "accel/Dialect/Accel/IR/AccelOps.h"
#include "accel/Target/Catalogue.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::accel;

namespace {

class CostModelTest : public ::testing::Test {
protected:
  CostModelTest() {
    ctx.loadDialect<AccelDialect, func::FuncDialect, tensor::TensorDialect>();
  }

  /// The accel ops of `source`, parsed into `module`.
  SmallVector<Operation *> ops(StringRef source) {
    module = parseSourceString<ModuleOp>(source, &ctx);
    SmallVector<Operation *> result;
    if (!module)
      return result;
    module->walk([&](Operation *op) {
      if (isa<MatmulOp, AttentionOp, SoftmaxOp>(op))
        result.push_back(op);
    });
    return result;
  }

  MLIRContext ctx;
  OwningOpRef<ModuleOp> module;
};

// Shapes that are not multiples of anything, tiny and huge, every op kind
// and the element types the targets run.
constexpr StringLiteral kOps = R"mlir(
func.func @f(%a: tensor<1000x700xf32>, %b: tensor<700x900xf32>, %c: tensor<1000x900xf32>,
             %a16: tensor<4096x4096xbf16>, %c32: tensor<4096x4096xf32>,
             %a8: tensor<2048x2048xi8>, %c8: tensor<2048x2048xi32>,
             %x: tensor<1x8192xbf16>, %w: tensor<8192x8192xbf16>, %y: tensor<1x8192xf32>,
             %s: tensor<7x3xf32>, %t: tensor<3x5xf32>, %u: tensor<7x5xf32>,
             %q: tensor<2x32x4096x128xf16>, %kv: tensor<2x8x4096x128xf16>, %o: tensor<2x32x4096x128xf16>,
             %l: tensor<32x4096xf32>) {
  %0 = accel.matmul ins(%a, %b : tensor<1000x700xf32>, tensor<700x900xf32>) outs(%c : tensor<1000x900xf32>) -> tensor<1000x900xf32>
  %1 = accel.matmul ins(%a16, %a16 : tensor<4096x4096xbf16>, tensor<4096x4096xbf16>) outs(%c32 : tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  %2 = accel.matmul ins(%a8, %a8 : tensor<2048x2048xi8>, tensor<2048x2048xi8>) outs(%c8 : tensor<2048x2048xi32>) -> tensor<2048x2048xi32>
  %3 = accel.matmul ins(%x, %w : tensor<1x8192xbf16>, tensor<8192x8192xbf16>) outs(%y : tensor<1x8192xf32>) -> tensor<1x8192xf32>
  %4 = accel.matmul ins(%s, %t : tensor<7x3xf32>, tensor<3x5xf32>) outs(%u : tensor<7x5xf32>) -> tensor<7x5xf32>
  %5 = accel.attention causal ins(%q, %kv, %kv : tensor<2x32x4096x128xf16>, tensor<2x8x4096x128xf16>, tensor<2x8x4096x128xf16>) outs(%o : tensor<2x32x4096x128xf16>) -> tensor<2x32x4096x128xf16>
  %6 = accel.softmax dimension(1) ins(%l : tensor<32x4096xf32>) outs(%l : tensor<32x4096xf32>) -> tensor<32x4096xf32>
  return
}
)mlir";

/// The op's iteration-domain sizes, or its shape in the model's terms.
static SmallVector<int64_t> modelExtents(Operation *op) {
  if (auto mm = dyn_cast<MatmulOp>(op)) {
    ArrayRef<int64_t> c = mm.getInit().getType().getShape();
    return {c[c.size() - 2], c.back(), mm.getLhs().getType().getShape().back()};
  }
  if (auto at = dyn_cast<AttentionOp>(op)) {
    ArrayRef<int64_t> q = at.getQuery().getType().getShape();
    return {q[1], q[2], at.getKey().getType().getShape()[2]};
  }
  auto sm = cast<SoftmaxOp>(op);
  return {sm.getInput().getType().getShape()[0]};
}

// Whatever the target and the op, the model's own tiles fit the hardware,
// nest (inner within outer, no larger than the dimensions) and give loop
// sizes for every loop of the op.
TEST_F(CostModelTest, ModelTilesFitAndNestOnEveryTarget) {
  SmallVector<Operation *> accelOps = ops(kOps);
  ASSERT_EQ(accelOps.size(), 7u);
  for (const TargetSpec &spec : getTargetCatalogue()) {
    TargetAttr target = lookupTarget(&ctx, spec.name);
    if (getTilingScheme(target) == TilingScheme::None)
      continue;
    for (Operation *op : accelOps) {
      SCOPED_TRACE(std::string(spec.name) + " " +
                   op->getName().getStringRef().str());
      std::string reason;
      FailureOr<TilePlan> plan = planTiles(op, target, TileRequest(), &reason);
      ASSERT_TRUE(succeeded(plan)) << reason;
      EXPECT_EQ(plan->problem, "");
      ASSERT_EQ(plan->levels.size(), 2u);
      unsigned loops = cast<TilingInterface>(op).getLoopIteratorTypes().size();
      SmallVector<int64_t> extents = modelExtents(op);
      const TileLevel &outer = plan->levels[0], &inner = plan->levels[1];
      EXPECT_EQ(outer.sizes.size(), loops);
      EXPECT_EQ(inner.sizes.size(), loops);
      EXPECT_FALSE(outer.why.empty());
      for (unsigned d = 0; d < extents.size(); ++d) {
        EXPECT_GE(inner.shape[d], 1);
        EXPECT_LE(inner.shape[d], outer.shape[d]) << "dimension " << d;
        EXPECT_LE(outer.shape[d], extents[d]) << "dimension " << d;
      }
      // These shapes all have a tile within the model's budgets, except a
      // softmax row, which is never split: 4096 f32 in and out (32 KiB)
      // is over half of L1D on its own.
      if (isa<SoftmaxOp>(op))
        continue;
      for (const TileLevel &l : plan->levels) {
        EXPECT_EQ(l.why.find("no tile fits"), std::string::npos)
            << l.name << ": " << l.why;
        if (l.budget > 0)
          EXPECT_LE(l.footprint, l.budget) << l.name << ": " << l.why;
      }
    }
  }
}

TEST_F(CostModelTest, CpuRegisterTiles) {
  // 32 zmm of 16 f32: 6 rows x 4 vectors (24 accumulators, the measured
  // default of accel-cpu-vectorize-contractions); 16 ymm of 8: Haswell's
  // 6 x 16; 32 NEON registers of 4: 6 x 16.
  EXPECT_EQ(getCpuRegisterTile(lookupTarget(&ctx, "x86-64-avx512"), 32),
            (std::pair<int64_t, int64_t>(6, 64)));
  EXPECT_EQ(getCpuRegisterTile(lookupTarget(&ctx, "x86-64-avx2"), 32),
            (std::pair<int64_t, int64_t>(6, 16)));
  EXPECT_EQ(getCpuRegisterTile(lookupTarget(&ctx, "aarch64-neoverse-v2"), 32),
            (std::pair<int64_t, int64_t>(6, 16)));
}

TEST_F(CostModelTest, SharedMemoryPerBlock) {
  // NVIDIA keeps 1 KiB of an SM's shared memory per block.
  EXPECT_EQ(getGpuSharedMemoryPerBlock(lookupTarget(&ctx, "h100")), 232448);
  EXPECT_EQ(getGpuSharedMemoryPerBlock(lookupTarget(&ctx, "a100")), 166912);
  EXPECT_EQ(getGpuSharedMemoryPerBlock(lookupTarget(&ctx, "mi300x")), 65536);
}

TEST_F(CostModelTest, GivenTilesAreClampedAndChecked) {
  SmallVector<Operation *> accelOps = ops(kOps);
  ASSERT_FALSE(accelOps.empty());
  TileRequest request;
  request.outer = {2000, 0, 4096};
  request.numLevels = 1;
  FailureOr<TilePlan> plan =
      planTiles(accelOps[0], lookupTarget(&ctx, "x86-64-avx512"), request);
  ASSERT_TRUE(succeeded(plan));
  ASSERT_EQ(plan->levels.size(), 1u);
  // 1000x900x700: every size keeps its dimension whole.
  EXPECT_EQ(plan->levels[0].shape, (SmallVector<int64_t>{1000, 900, 700}));
  EXPECT_EQ(plan->levels[0].sizes, (SmallVector<int64_t>{0, 0, 0}));
  // The whole problem is 6.9 MB: over the 1 MiB L2, a warning, not fatal.
  EXPECT_NE(plan->problem.find("needs 8920000 B of L2"), std::string::npos)
      << plan->problem;
  EXPECT_FALSE(plan->fatal);

  // Wrong counts are refused with the reason.
  request.outer = {64, 64};
  std::string reason;
  EXPECT_TRUE(failed(
      planTiles(accelOps[0], lookupTarget(&ctx, "h100"), request, &reason)));
  EXPECT_EQ(reason, "expected 3 tile sizes");
  request.outer = {64, -1, 64};
  EXPECT_TRUE(failed(
      planTiles(accelOps[0], lookupTarget(&ctx, "h100"), request, &reason)));
  EXPECT_EQ(reason, "tile sizes must be >= 0");
  EXPECT_TRUE(
      failed(planTiles(module->getOperation(), lookupTarget(&ctx, "h100"),
                       TileRequest(), &reason)));
  EXPECT_EQ(reason, "not an accel.matmul, accel.attention or accel.softmax");
}

} // namespace
