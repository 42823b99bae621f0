//===- AccelAttrs.h - accel attributes --------------------------*- C++ -*-===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef ACCEL_DIALECT_ACCEL_IR_ACCELATTRS_H
#define ACCEL_DIALECT_ACCEL_IR_ACCELATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include <optional>

namespace mlir::accel {
/// Parses a finite floating-point attribute parameter.
FailureOr<llvm::APFloat> parseF64Field(AsmParser &parser);
/// Prints a floating-point parameter in its shortest form that parses back.
void printF64Field(AsmPrinter &printer, const llvm::APFloat &value);
/// Parses and prints `[...]` lists of strings and of integers.
FailureOr<SmallVector<StringAttr>> parseStringList(AsmParser &parser);
void printStringList(AsmPrinter &printer, ArrayRef<StringAttr> list);
FailureOr<SmallVector<int64_t>> parseI64List(AsmParser &parser);
void printI64List(AsmPrinter &printer, ArrayRef<int64_t> list);
FailureOr<DenseF64ArrayAttr> parseF64Array(AsmParser &parser);
void printF64Array(AsmPrinter &printer, DenseF64ArrayAttr list);
} // namespace mlir::accel

#include "accel/Dialect/Accel/IR/AccelEnums.h.inc"

namespace mlir::accel {
/// Hashes for the optional enum parameters of #accel.precision.
inline llvm::hash_code hash_value(ScaleMode m) {
  return llvm::hash_value(static_cast<uint32_t>(m));
}
inline llvm::hash_code hash_value(OverflowMode m) {
  return llvm::hash_value(static_cast<uint32_t>(m));
}

/// Name of the discardable attribute that holds an op's #accel.precision.
inline constexpr llvm::StringLiteral kPrecisionAttrName = "accel.precision";
/// A unit attribute accel-lower-precision puts on an f32 accel.matmul (A
/// and B) or accel.attention (Q, K and V) whose inputs it rounded to TF32
/// (compute = tf32): every input is a TF32 value held in f32, so matrix
/// units that take TF32 (NVIDIA mma.sync m16n8k8, gfx942's xf32 MFMA)
/// multiply them exactly and the GPU configuration picks them (attention
/// then rounds P to TF32 too).
inline constexpr llvm::StringLiteral kTf32InputsAttrName = "accel.tf32_inputs";

/// The discardable attribute that holds an op's #accel.lowering_config.
inline constexpr llvm::StringLiteral kLoweringConfigAttrName =
    "accel.lowering_config";

/// The discardable attribute that marks the linalg.generic of an
/// accel.dequant_matmul (convert-accel-to-linalg): a dictionary {bits,
/// group, unsigned, zero_points}, which accel-cpu-dequant-kernels reads.
inline constexpr llvm::StringLiteral kDequantMatmulAttrName =
    "accel.dequant_matmul";

/// A unit attribute on a row-max linalg.generic (the FlashAttention
/// decomposition's): where a row holds a NaN, its max may be any of the
/// row's values or NaN (a NaN logit reaches the output through P anyway),
/// so accel-cpu-vectorize-elementwise lowers it to `vmaxps` without NaN
/// ordering (fastmath nnan nsz on its vector reductions).
inline constexpr llvm::StringLiteral kUnorderedMaxAttrName =
    "accel.unordered_max";

/// A unit attribute on an arith.truncf to bf16 whose subnormal results may
/// be flushed to zero (cpu-flash-amx's P, values in [0, 2^8], compiled only
/// with bf16-subnormals=flush): accel-expand-bf16-casts leaves it to LLVM,
/// which emits `vcvtneps2bf16` on AVX512-BF16 hosts.
inline constexpr llvm::StringLiteral kBf16FlushAttrName = "accel.bf16_flush";

/// A unit attribute on a math.exp2 whose operand is at most 128 or NaN
/// (the online softmax's s - m' is at most 2^kLazyRescaleLog2): the vector
/// exp2 (FastExp2.cpp) then drops its upper clamp.
inline constexpr llvm::StringLiteral kExp2BoundedAttrName =
    "accel.exp2_bounded";

/// A float attribute on a math.exp2: the relative error its users allow
/// (cpu-flash-amx's P, rounded to bf16 after the exp2, allows 2^-17, 1/256
/// of that rounding's): the vector exp2 takes the shortest of its
/// polynomials within it. Without it, the f32 one (2 ulp).
inline constexpr llvm::StringLiteral kExp2ToleranceAttrName =
    "accel.exp2_tolerance";

/// A precision policy (#accel.precision, or accel-lower-precision's options)
/// with every default filled in; see docs/precision.md.
struct PrecisionPolicy {
  /// The inputs' type; f32 keeps the op as it is.
  Type compute;
  /// The dot product's accumulator: f32, f16, bf16 or i32.
  Type accumulate;
  /// The type the result is rounded to before it returns to f32.
  Type output;
  ScaleMode scales = ScaleMode::None;
  /// Given scales, in operand order, or one for every input.
  SmallVector<double> scaleValues;
  OverflowMode overflow = OverflowMode::Saturate;

  /// Whether the inputs are quantised with per-tensor scales.
  bool isScaled() const { return scales != ScaleMode::None; }
};

/// Fills in the defaults of a policy (null types and absent modes) and
/// checks the combination; a bad one is reported through `emitError`.
FailureOr<PrecisionPolicy> resolvePrecisionPolicy(
    llvm::function_ref<InFlightDiagnostic()> emitError, Type compute,
    Type accumulate, Type output, std::optional<ScaleMode> scales,
    ArrayRef<double> scaleValues, std::optional<OverflowMode> overflow);

/// The largest finite value of an f8 type, or 127 for i8 (the symmetric
/// range int8 quantisation uses).
double getLargestQuantised(Type type);
} // namespace mlir::accel

#define GET_ATTRDEF_CLASSES
#include "accel/Dialect/Accel/IR/AccelAttrs.h.inc"

namespace mlir::accel {
/// The #accel.lowering_config of `op` (a null attribute when it has none);
/// a located error when its accel.lowering_config is another attribute.
FailureOr<LoweringConfigAttr> getLoweringConfig(Operation *op);
} // namespace mlir::accel

#endif // ACCEL_DIALECT_ACCEL_IR_ACCELATTRS_H
