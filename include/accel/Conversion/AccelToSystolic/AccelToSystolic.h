//===- AccelToSystolic.h - accel to systolic array programs -----*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// convert-accel-to-systolic and the schedule model it chooses with. The
// model (SystolicSchedule.cpp) predicts the cycles of a tiled matmul or
// attention on the machine of include/accel/Systolic/ISA.h with the
// simulator's default timing model (docs/systolic-simulator.md), so the
// compiler picks dataflows and tiles by the same arithmetic the simulator
// then measures.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_CONVERSION_ACCELTOSYSTOLIC_ACCELTOSYSTOLIC_H
#define ACCEL_CONVERSION_ACCELTOSYSTOLIC_ACCELTOSYSTOLIC_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

namespace sysarray {
struct MachineConfig;
enum class ElemType : uint8_t;
} // namespace sysarray

namespace mlir {
namespace systolic {
class SystolicDialect;
} // namespace systolic
namespace accel {

#define GEN_PASS_DECL_ACCELSYSTOLICCONFIGUREPASS
#define GEN_PASS_DECL_CONVERTACCELTOSYSTOLICPASS
#include "accel/Conversion/Passes.h.inc"

/// Matmul dataflows the compiler emits (IS is WS on the transposed problem).
enum class SystolicDataflow { WS, OS, IS };

const char *stringifySystolicDataflow(SystolicDataflow d);

/// What an elementwise kernel applied to a matmul's C blocks in the
/// accumulator adds to its program (convert-accel-to-systolic's fused
/// epilogue, SystolicElementwise.h): per strip of C (a block's rows x the
/// array's columns) its other inputs are moved in and its vector program
/// runs before the result is stored.
struct SystolicEpilogueShape {
  /// Accumulator slots of a block's rows besides C's (two sets alternate
  /// between strips).
  int64_t slots = 0;
  /// DRAM bytes read per element of C (inputs as large as C), per column of
  /// a strip (an input broadcast along the rows, read once per strip), per
  /// row of a strip (a per-row value).
  double elemBytes = 0, rowBytes = 0, colBytes = 0;
  /// The vector unit's issue cycles per strip in blocks of the strip (an
  /// exp counts 4, the copies that double a row broadcast about 1), and
  /// its instructions (each adds the unit's pipeline latency).
  double vectorOps = 0, vectorInstrs = 0;
  /// Bytes stored per element: the epilogue's result, and C's too when
  /// something else reads C.
  unsigned storeBytes = 4;
  /// The model's cycles of the epilogue as a kernel of its own after the
  /// matmul (per 2-D slice of C), what applying it saves at best.
  double separateCycles = 0;
};

/// One matmul (a single batch element): C[M, N] (+)= A[M, K] . B[K, N].
struct SystolicMatmulShape {
  int64_t m = 0, n = 0, k = 0;
  /// Element sizes of A/B (input type), C in DRAM, and whether C is read.
  unsigned inBytes = 1, outBytes = 4;
  bool accumulate = false;
  /// An epilogue to apply to C's blocks in the accumulator (not with IS,
  /// whose C blocks are transposed), and the same with its first add
  /// folded into C's initial value (the seeded form, where it has one).
  std::optional<SystolicEpilogueShape> epilogue, seededEpilogue;
};

/// Blocks of the tiled loop nest: Mt rows of A, Nt columns of B (a
/// multiple of the array's columns), Kt deep (a multiple of its rows); for
/// IS the roles of M and N swap (Mt counts rows of Bᵀ).
struct SystolicMatmulSchedule {
  SystolicDataflow dataflow = SystolicDataflow::WS;
  int64_t tileM = 0, tileN = 0, tileK = 0;
  /// Whether the shape's epilogue is applied to C's blocks (it fits and
  /// the dataflow is WS or OS), or its seeded form; otherwise it runs as a
  /// kernel of its own.
  bool epilogue = false, seeded = false;
  /// The rows of a strip of C the applied epilogue works on at a time,
  /// the height of its slots (0: tileM). Fewer rows than tileM where its
  /// slots would not fit beside C's blocks otherwise.
  int64_t epilogueRows = 0;
  /// Buffers of C's blocks in the accumulator: 2, the next block's
  /// computes overlapping this one's stores, or 1, twice the block for
  /// the same rows (a block's first computes wait for the previous one's
  /// stores and epilogue; a seed goes in right before the block, not one
  /// ahead; OS takes no initial C or seed, fitsSystolic).
  int64_t cBuffers = 2;
};

/// Whether `schedule`'s double-buffered blocks fit in the SRAMs.
bool fitsSystolic(const ::sysarray::MachineConfig &config,
                  const SystolicMatmulShape &shape,
                  const SystolicMatmulSchedule &schedule);

/// Predicted cycles of the program convert-accel-to-systolic emits for one
/// matmul with `schedule` (DMA, array and their overlap).
double predictSystolicMatmulCycles(const ::sysarray::MachineConfig &config,
                                   const SystolicMatmulShape &shape,
                                   const SystolicMatmulSchedule &schedule);

/// The fastest fitting schedule by the model. `dataflow` and the tile sizes
/// (0: free) restrict the search, and so does `allow` when given; nullopt
/// when nothing fits.
std::optional<SystolicMatmulSchedule> chooseSystolicMatmulSchedule(
    const ::sysarray::MachineConfig &config, const SystolicMatmulShape &shape,
    std::optional<SystolicDataflow> dataflow, int64_t tileM = 0,
    int64_t tileN = 0, int64_t tileK = 0, int64_t cBuffers = 0,
    bool seeded = false,
    llvm::function_ref<bool(const SystolicMatmulSchedule &)> allow = nullptr);

/// The options accel-systolic-configure and convert-accel-to-systolic share
/// (in the order Passes.td declares them, so that either pass writes
/// `SystolicOptions{rows, cols, ...}`): the machine, and what overrides the
/// schedule model (0 and "auto": the model chooses).
struct SystolicOptions {
  int64_t rows = 16, cols = 16, spadKib = 256, accKib = 64, spadBanks = 4,
          accBanks = 2;
  double dramBytesPerCycle = 16.0;
  int64_t dramLatency = 100, vectorLanes = 16;
  std::string dataflow = "auto";
  int64_t tileM = 0, tileN = 0, tileK = 0;
  int64_t attentionTileQ = 0, attentionTileKV = 0;
  bool fuseEpilogues = true;
  /// Buffers of a matmul's C blocks in the accumulator (0: chosen; a
  /// lowering_config gives 1 with `stages = 1`, else 2).
  int64_t cBuffers = 0;
  /// An accel.dequant_matmul's blocks (its lowering_config's tile [M, N]:
  /// rows of A a block of C's columns, W's rows a strip; 0: chosen).
  int64_t dequantTileM = 0, dequantTileN = 0;
};

/// Checks `o` (machine sizes in range, a known dataflow, sizes not
/// negative); a located error at `module` naming `pass` when not.
LogicalResult checkSystolicOptions(ModuleOp module, llvm::StringRef pass,
                                   const SystolicOptions &o);

/// The machine `o` describes for programs of `input` elements.
::sysarray::MachineConfig getSystolicMachine(const SystolicOptions &o,
                                             ::sysarray::ElemType input);

/// The forced dataflow of `o` (std::nullopt for auto).
std::optional<SystolicDataflow> getForcedDataflow(const SystolicOptions &o);

/// The overrides of `op`: its accel.lowering_config's dataflow and tile
/// where it has one, `options` for the rest; a located error for a config
/// that is not the systolic kernel's or does not fit the op.
FailureOr<SystolicOptions> getSystolicOverrides(Operation *op,
                                                const SystolicOptions &options);

/// The array's element type for an MLIR element type (i8, i32, bf16, f32);
/// std::nullopt for any other.
std::optional<::sysarray::ElemType> getSystolicElemType(Type type);

/// An attention problem as the array's blocks see it.
struct SystolicAttentionShape {
  int64_t sq = 0, skv = 0, d = 0, dv = 0;
  bool masked = false;
  /// Keys of a strip of S (0: min(rows, cols)); a paged attention's
  /// strips never straddle a page (the gcd of the two).
  int64_t stripKeys = 0;
};

/// An accel.attention on the array: without a mask, a GQA group's query
/// heads stacked into one block of rows (K and V read once for them).
SystolicAttentionShape getSystolicAttentionShape(Operation *attention);

/// An accel.paged_attention on the array: the query heads that share a KV
/// head stacked into one block of rows (each KV page read once for all of
/// them), all the block table's keys (pages past a sequence's length are
/// not read, their keys masked), strips that never straddle a page.
SystolicAttentionShape
getSystolicPagedAttentionShape(Operation *pagedAttention,
                               const ::sysarray::MachineConfig &config);

/// Scratchpad and accumulator rows the double-buffered blocks of `tileQ`
/// queries x `tileKV` keys take (AccelToSystolic.cpp's layout).
std::pair<int64_t, int64_t>
getSystolicAttentionRows(const ::sysarray::MachineConfig &config,
                         const SystolicAttentionShape &shape, int64_t tileQ,
                         int64_t tileKV);

/// The blocks of an attention: `tileKV` (0: 4 array widths, or all the
/// keys) and `tileQ` (0: the most that fit, up to 256) checked against the
/// machine; a located error at `op` when they do not fit.
FailureOr<std::pair<int64_t, int64_t>>
chooseSystolicAttentionTiles(Operation *op,
                             const ::sysarray::MachineConfig &config,
                             const SystolicAttentionShape &shape,
                             int64_t tileQ, int64_t tileKV);

/// The schedule of a matmul (`chooseSystolicMatmulSchedule` with the
/// overrides of `o`): with the shape's epilogue applied to C's blocks when
/// `o.fuseEpilogues`, a WS or OS schedule fits with it and the model
/// predicts it faster than the best schedule without it plus the epilogue
/// on its own (the accumulator rows the epilogue takes may force smaller
/// blocks); its seeded form when that is faster still, on blocks where the
/// epilogue's slots would not fit at full height (elsewhere the seed's
/// latency, which the model does not see, makes it slower); else without
/// (the epilogue then runs as a kernel of its own). The rule depends on
/// the blocks alone, so the conversion, given the blocks the
/// configuration wrote, makes the same choice. A located error at `op`
/// when none fits.
FailureOr<SystolicMatmulSchedule>
configureSystolicMatmul(Operation *op, const ::sysarray::MachineConfig &config,
                        const SystolicMatmulShape &shape,
                        const SystolicOptions &o);

class LoweringConfigAttr;

/// The configuration of `op` (an accel.matmul or accel.attention): its own
/// accel.lowering_config completed and checked, or the stage's choice with
/// `options`; a null attribute for an op that needs none or that the
/// conversion refuses (an empty matmul, a type the array does not take); a
/// located error when no schedule fits.
/// A matmul's `epilogue` (the elementwise kernel that reads its result,
/// as convert-accel-to-systolic finds it, for a machine; its seeded form
/// when the flag is set) takes accumulator rows: the schedule accounts for
/// them.
FailureOr<LoweringConfigAttr> configureSystolicOp(
    Operation *op, const SystolicOptions &options,
    llvm::function_ref<std::optional<SystolicEpilogueShape>(
        const ::sysarray::MachineConfig &, bool seeded)>
        epilogue = nullptr);

} // namespace accel
} // namespace mlir

#endif // ACCEL_CONVERSION_ACCELTOSYSTOLIC_ACCELTOSYSTOLIC_H
