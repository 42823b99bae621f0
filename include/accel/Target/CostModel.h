//===- CostModel.h - target-driven tile sizes -------------------*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The tile sizes accel-tile uses and accel-roofline reports, chosen from an
// #accel.target's figures by the rules of docs/tiling.md: working sets that
// fit the caches (CPU), shared memory, registers and MMA shapes (GPU), or
// the array and its SRAMs (systolic). Every level comes with the numbers
// that decided it.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_TARGET_COSTMODEL_H
#define ACCEL_TARGET_COSTMODEL_H

#include "accel/Dialect/Accel/IR/AccelAttrs.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include <cstdint>
#include <string>

namespace mlir {
class Operation;
namespace accel {

/// Which rules of docs/tiling.md a target's tiles follow.
enum class TilingScheme {
  /// Caches and vector registers (kind `cpu`).
  Cpu,
  /// Shared memory, registers and MMA shapes (kinds `nvptx`, `amdgpu`).
  Gpu,
  /// The array and its scratchpad / accumulator SRAMs (kind `systolic`).
  Array,
  /// No rules: `model` targets are described for the roofline only.
  None,
};

/// The scheme for `target`'s kind.
TilingScheme getTilingScheme(TargetAttr target);

/// User-given tile sizes in an op's own terms (see `TileLevel::shape`);
/// empty: the model chooses. A 0 leaves that dimension whole.
struct TileRequest {
  llvm::SmallVector<int64_t> outer, inner;
  /// Number of levels to plan: 1 (outer only) or 2.
  unsigned numLevels = 2;
  /// GPU shared-memory pipeline stages; 0: by target (docs/tiling.md).
  int64_t stages = 0;
};

/// One level of tiling.
struct TileLevel {
  /// What the level's tile lives in: `l2`, `l1` (CPU), `block`, `warp`,
  /// `warpgroup` (GPU), `sram`, `array` (systolic).
  std::string name;
  /// The tile in the op's own terms, as the model sees it: [M, N, K] for
  /// matmul, [heads, Sq, Skv] for attention (Skv: the key/value block the
  /// FlashAttention decomposition should use), [rows] for softmax. Sizes
  /// are clamped to the dimensions (a dimension kept whole has its size).
  llvm::SmallVector<int64_t> shape;
  /// Tile sizes over the op's TilingInterface iteration domain (matmul
  /// [batch..., M, N, K], attention [B, Hq, Sq, Dv], softmax its dims);
  /// 0 leaves the loop whole.
  llvm::SmallVector<int64_t> sizes;
  /// Bytes the tile's working set needs in the level's memory.
  int64_t footprint = 0;
  /// What the model allows itself (a stated fraction of `capacity`) and
  /// what the hardware has; 0 when the target gives no size.
  int64_t budget = 0, capacity = 0;
  /// The numbers that decided the tile, for people.
  std::string why;
};

/// The tiles of one op on one target, outer level first.
struct TilePlan {
  TilingScheme scheme = TilingScheme::None;
  llvm::SmallVector<TileLevel, 2> levels;
  /// Empty when everything fits. Otherwise what does not, with the
  /// numbers; `fatal` when a hard limit is exceeded (shared memory, SRAM,
  /// registers or threads per block: no kernel can be built), not a
  /// cache that merely spills.
  std::string problem;
  bool fatal = false;

  /// "l2 96x512x256, l1 24x64x64" (the shapes).
  std::string shapes() const;
  /// `shapes()` with each level's reasons.
  std::string describe() const;
};

/// Plans the tiles of `op` (accel.matmul, accel.attention, accel.softmax on
/// ranked tensors) on `target`. Fails, with the reason in `*reason`, for
/// other ops and for `model` targets without user-given sizes for every
/// level; a plan that does not fit is returned with `problem` set.
FailureOr<TilePlan> planTiles(Operation *op, TargetAttr target,
                              const TileRequest &request,
                              std::string *reason = nullptr);

/// The register tile [mr, nr] of a CPU target's contraction kernel for an
/// accumulator of `accBits`: mr rows of nr / lanes vector accumulators, the
/// most multiply-adds per loaded value that the vector registers hold.
std::pair<int64_t, int64_t> getCpuRegisterTile(TargetAttr target,
                                               unsigned accBits);

/// Bytes of shared memory (LDS) one GPU thread block can allocate: the
/// per-SM figure less what the hardware reserves per block.
int64_t getGpuSharedMemoryPerBlock(TargetAttr target);

} // namespace accel
} // namespace mlir

#endif // ACCEL_TARGET_COSTMODEL_H
