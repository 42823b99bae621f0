//===- AccelAttrs.cpp - accel attributes ----------------------------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Verification and queries of #accel.target.
//
//===----------------------------------------------------------------------===//

#include "accel/Dialect/Accel/IR/AccelAttrs.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/SmallString.h"
#include <cmath>
#include <cstdio>
#include <cstdlib>

using namespace mlir;
using namespace mlir::accel;

#include "accel/Dialect/Accel/IR/AccelEnums.cpp.inc"

FailureOr<APFloat> mlir::accel::parseF64Field(AsmParser &parser) {
  double value;
  if (parser.parseFloat(value))
    return failure();
  return APFloat(value);
}

void mlir::accel::printF64Field(AsmPrinter &printer, const APFloat &value) {
  // 1.83 prints as written, not as 1.8300000000000001; integers keep a
  // float token.
  // The fewest digits (15, else 17) that parse back to the same double.
  double v = value.convertToDouble();
  char buf[64];
  snprintf(buf, sizeof(buf), "%.15g", v);
  if (strtod(buf, nullptr) != v)
    snprintf(buf, sizeof(buf), "%.17g", v);
  std::string text = buf;
  if (StringRef(text).find_first_of(".eEn") == StringRef::npos)
    text += ".0";
  printer << text;
}

/// A square-bracketed, comma-separated list of elements `parseOne` reads.
template <typename T>
static FailureOr<SmallVector<T>>
parseSquareList(AsmParser &parser,
                function_ref<ParseResult(AsmParser &, T &)> parseOne) {
  SmallVector<T> list;
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
        T v;
        if (parseOne(parser, v))
          return failure();
        list.push_back(v);
        return success();
      }))
    return failure();
  return list;
}

FailureOr<SmallVector<StringAttr>>
mlir::accel::parseStringList(AsmParser &parser) {
  return parseSquareList<StringAttr>(parser, [](AsmParser &p, StringAttr &v) {
    std::string s;
    if (p.parseString(&s))
      return failure();
    v = p.getBuilder().getStringAttr(s);
    return success();
  });
}

void mlir::accel::printStringList(AsmPrinter &printer,
                                  ArrayRef<StringAttr> list) {
  printer << '[';
  llvm::interleaveComma(list, printer, [&](StringAttr s) { printer << s; });
  printer << ']';
}

FailureOr<SmallVector<int64_t>> mlir::accel::parseI64List(AsmParser &parser) {
  return parseSquareList<int64_t>(
      parser, [](AsmParser &p, int64_t &v) { return p.parseInteger(v); });
}

void mlir::accel::printI64List(AsmPrinter &printer, ArrayRef<int64_t> list) {
  printer << '[';
  llvm::interleaveComma(list, printer);
  printer << ']';
}

FailureOr<DenseF64ArrayAttr> mlir::accel::parseF64Array(AsmParser &parser) {
  FailureOr<SmallVector<double>> list = parseSquareList<double>(
      parser, [](AsmParser &p, double &v) { return p.parseFloat(v); });
  if (failed(list))
    return failure();
  return DenseF64ArrayAttr::get(parser.getContext(), *list);
}

void mlir::accel::printF64Array(AsmPrinter &printer, DenseF64ArrayAttr list) {
  printer << '[';
  llvm::interleaveComma(list.asArrayRef(), printer,
                        [&](double v) { printF64Field(printer, APFloat(v)); });
  printer << ']';
}

/// A throughput, bandwidth or size figure must be finite and non-negative.
static LogicalResult checkFigure(function_ref<InFlightDiagnostic()> emitError,
                                 StringRef name, double value) {
  if (!std::isfinite(value) || value < 0.0)
    return emitError() << "target parameter '" << name
                       << "' must be finite and non-negative, got " << value;
  return success();
}

LogicalResult
TargetAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                   StringRef name, TargetKind kind, StringRef chip,
                   ArrayRef<StringAttr> features, int64_t computeUnits,
                   APFloat clockGhzF, APFloat peakF32F, APFloat peakTf32F,
                   APFloat peakF16F, APFloat peakBf16F, APFloat peakF8F,
                   APFloat peakI8F, APFloat memoryGibF, APFloat memoryGbpsF,
                   int64_t localMemoryKib, int64_t l2Kib, int64_t llcKib,
                   ArrayRef<int64_t> matrixUnit, int64_t warpSize) {
  double clockGhz = clockGhzF.convertToDouble(),
         peakF32 = peakF32F.convertToDouble(),
         peakTf32 = peakTf32F.convertToDouble(),
         peakF16 = peakF16F.convertToDouble(),
         peakBf16 = peakBf16F.convertToDouble(),
         peakF8 = peakF8F.convertToDouble(),
         peakI8 = peakI8F.convertToDouble(),
         memoryGib = memoryGibF.convertToDouble(),
         memoryGbps = memoryGbpsF.convertToDouble();
  if (name.empty())
    return emitError() << "target 'name' must not be empty";
  if (computeUnits <= 0)
    return emitError() << "target parameter 'compute_units' must be positive, "
                          "got "
                       << computeUnits;
  if (!std::isfinite(clockGhz) || clockGhz <= 0.0)
    return emitError() << "target parameter 'clock_ghz' must be positive, got "
                       << clockGhz;
  std::pair<StringRef, double> figures[] = {
      {"peak_f32", peakF32},       {"peak_tf32", peakTf32},
      {"peak_f16", peakF16},       {"peak_bf16", peakBf16},
      {"peak_f8", peakF8},         {"peak_i8", peakI8},
      {"memory_gib", memoryGib},   {"memory_gbps", memoryGbps}};
  for (auto [figName, value] : figures)
    if (failed(checkFigure(emitError, figName, value)))
      return failure();
  if (peakF32 == 0.0 && peakF16 == 0.0 && peakBf16 == 0.0 && peakF8 == 0.0 &&
      peakI8 == 0.0)
    return emitError() << "target '" << name
                       << "' must give at least one positive peak throughput";
  std::pair<StringRef, int64_t> sizes[] = {{"local_memory_kib", localMemoryKib},
                                           {"l2_kib", l2Kib},
                                           {"llc_kib", llcKib}};
  for (auto [sizeName, value] : sizes)
    if (value < 0)
      return emitError() << "target parameter '" << sizeName
                         << "' must be non-negative, got " << value;
  if (!matrixUnit.empty()) {
    if (matrixUnit.size() != 3)
      return emitError() << "target parameter 'matrix_unit' must have 3 "
                            "entries [m, n, k], got "
                         << matrixUnit.size();
    for (int64_t d : matrixUnit)
      if (d <= 0)
        return emitError()
               << "target parameter 'matrix_unit' entries must be positive, "
                  "got "
               << d;
  }
  bool isGpu = kind == TargetKind::NVPTX || kind == TargetKind::AMDGPU;
  if (isGpu && warpSize != 32 && warpSize != 64)
    return emitError() << "GPU target '" << name
                       << "' needs 'warp_size' 32 or 64, got " << warpSize;
  if (!isGpu && warpSize != 0)
    return emitError() << "'warp_size' is only meaningful for GPU targets";
  if (kind == TargetKind::NVPTX && !chip.starts_with("sm_"))
    return emitError() << "nvptx target '" << name
                       << "' needs a chip of the form sm_XX, got '" << chip
                       << "'";
  if (kind == TargetKind::AMDGPU && !chip.starts_with("gfx"))
    return emitError() << "amdgpu target '" << name
                       << "' needs a chip of the form gfxXXX, got '" << chip
                       << "'";
  if (kind == TargetKind::Systolic && matrixUnit.empty())
    return emitError() << "systolic target '" << name
                       << "' needs 'matrix_unit' = [rows, cols, 1]";
  for (StringAttr feature : features)
    if (!feature || feature.getValue().empty())
      return emitError() << "target features must be non-empty strings";
  return success();
}

double TargetAttr::getPeakFlops(Type elementType) const {
  double tera = 1e12;
  if (elementType.isF32())
    return getPeakF32().convertToDouble() * tera;
  if (elementType.isF16())
    return getPeakF16().convertToDouble() * tera;
  if (elementType.isBF16())
    return getPeakBf16().convertToDouble() * tera;
  if (isa<Float8E4M3FNType, Float8E5M2Type, Float8E4M3FNUZType,
          Float8E5M2FNUZType>(elementType))
    return getPeakF8().convertToDouble() * tera;
  if (elementType.isInteger(8))
    return getPeakI8().convertToDouble() * tera;
  return 0.0;
}

bool TargetAttr::hasFeature(StringRef feature) const {
  return llvm::any_of(getFeatures(), [&](StringAttr f) {
    return f.getValue() == feature;
  });
}

//===----------------------------------------------------------------------===//
// PrecisionAttr
//===----------------------------------------------------------------------===//

static bool isOcpF8(Type t) { return isa<Float8E4M3FNType, Float8E5M2Type>(t); }

/// A type as the policy's syntax writes it (a diagnostic would quote it).
static std::string str(Type t) {
  std::string s;
  llvm::raw_string_ostream(s) << t;
  return s;
}

double mlir::accel::getLargestQuantised(Type type) {
  if (auto f = dyn_cast<FloatType>(type))
    return APFloat::getLargest(f.getFloatSemantics()).convertToDouble();
  return 127.0;
}

FailureOr<PrecisionPolicy> mlir::accel::resolvePrecisionPolicy(
    function_ref<InFlightDiagnostic()> emitError, Type compute, Type accumulate,
    Type output, std::optional<ScaleMode> scales, ArrayRef<double> scaleValues,
    std::optional<OverflowMode> overflow) {
  MLIRContext *ctx = compute.getContext();
  Type f32 = Float32Type::get(ctx), f16 = Float16Type::get(ctx),
       bf16 = BFloat16Type::get(ctx), i32 = IntegerType::get(ctx, 32);
  PrecisionPolicy p;
  p.compute = compute;
  if (isa<Float8E4M3FNUZType, Float8E5M2FNUZType>(compute))
    return emitError() << "compute = " << str(compute)
                       << ": accel ops do not accept the FNUZ fp8 variants "
                          "(gfx942's); use f8E4M3FN or f8E5M2";
  bool isI8 = compute.isInteger(8), isF8 = isOcpF8(compute);
  bool isTf32 = isa<FloatTF32Type>(compute);
  if (!compute.isF32() && !compute.isBF16() && !compute.isF16() && !isF8 &&
      !isI8 && !isTf32)
    return emitError() << "compute = " << str(compute)
                       << " is not a precision accel ops compute in; expected "
                          "f32, tf32, bf16, f16, f8E4M3FN, f8E5M2 or i8";
  if (compute.isF32()) {
    // f32 keeps the op as it is: nothing else applies.
    if (accumulate || output || scales || !scaleValues.empty() || overflow)
      return emitError() << "compute = f32 keeps the op in f32 and takes no "
                            "other parameter";
    p.accumulate = p.output = f32;
    return p;
  }

  p.accumulate = accumulate ? accumulate : isI8 ? i32 : f32;
  SmallVector<Type> accs;
  if (isI8)
    accs = {i32};
  else if (compute.isF16())
    accs = {f32, f16};
  else if (compute.isBF16())
    accs = {f32, bf16};
  else
    accs = {f32};
  if (!llvm::is_contained(accs, p.accumulate)) {
    InFlightDiagnostic diag = emitError();
    diag << "accumulate = " << str(p.accumulate)
         << " is not allowed with compute = " << str(compute) << "; expected ";
    llvm::interleave(
        accs, [&](Type t) { diag << str(t); }, [&] { diag << " or "; });
    return diag;
  }

  p.output = output ? output : f32;
  if (p.output != f32 && p.output != f16 && p.output != bf16)
    return emitError() << "output = " << str(p.output)
                       << " is not allowed; expected f32, f16 or bf16 (the "
                          "result returns to the op's f32)";

  p.scales = scales           ? *scales
             : (isF8 || isI8) ? ScaleMode::Dynamic
                              : ScaleMode::None;
  if (p.scales != ScaleMode::None && !isF8 && !isI8)
    return emitError() << "scales = " << stringifyScaleMode(p.scales)
                       << " needs compute = f8E4M3FN, f8E5M2 or i8, got "
                       << str(compute);
  if (p.scales == ScaleMode::Given) {
    if (scaleValues.empty())
      return emitError() << "scales = given needs scale_values (one per "
                            "input, or one for all)";
    for (double v : scaleValues) {
      float asF32 = static_cast<float>(v);
      if (!std::isfinite(asF32) || asF32 <= 0.0f)
        return emitError() << "scale_values must be positive and finite in "
                              "f32, got "
                           << v;
    }
  } else if (!scaleValues.empty()) {
    return emitError() << "scale_values are only used with scales = given";
  }
  p.scaleValues.assign(scaleValues.begin(), scaleValues.end());

  p.overflow = overflow ? *overflow : OverflowMode::Saturate;
  if (p.overflow == OverflowMode::NaN && !isF8)
    return emitError() << "overflow = nan needs an fp8 compute type ("
                       << str(compute) << " has no NaN to produce"
                       << (isI8 ? "; i8 always saturates)" : ")");
  return p;
}

LogicalResult PrecisionAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, Type compute, Type accumulate,
    Type output, std::optional<ScaleMode> scales, DenseF64ArrayAttr scaleValues,
    std::optional<OverflowMode> overflow) {
  return resolvePrecisionPolicy(
      emitError, compute, accumulate, output, scales,
      scaleValues ? scaleValues.asArrayRef() : ArrayRef<double>(), overflow);
}

FailureOr<PrecisionPolicy>
PrecisionAttr::resolve(function_ref<InFlightDiagnostic()> emitError) const {
  DenseF64ArrayAttr values = getScaleValues();
  return resolvePrecisionPolicy(
      emitError, getCompute(), getAccumulate(), getOutput(), getScales(),
      values ? values.asArrayRef() : ArrayRef<double>(), getOverflow());
}

//===----------------------------------------------------------------------===//
// LoweringConfigAttr
//===----------------------------------------------------------------------===//

LogicalResult
LoweringConfigAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                           StringRef kernel, ArrayRef<int64_t> tile,
                           ArrayRef<int64_t> warps, ArrayRef<int64_t> mma,
                           int64_t stages, StringRef dataflow) {
  static const StringRef kernels[] = {"mma.sync",
                                      "wgmma",
                                      "mfma",
                                      "wmma",
                                      "fma",
                                      "systolic",
                                      "cpu-fma",
                                      "cpu-avx512bf16",
                                      "cpu-avx512vnni",
                                      "cpu-amx-bf16",
                                      "cpu-amx-int8",
                                      "cpu-flash",
                                      "cpu-flash-amx",
                                      "cpu-paged-flash",
                                      "cpu-dequant",
                                      "cpu-dequant-lut",
                                      "cpu-dequant-amx",
                                      "cpu-row-dot",
                                      "cpu-loops"};
  if (!llvm::is_contained(kernels, kernel))
    return emitError() << "lowering_config 'kernel' must be mma.sync, wgmma, "
                          "mfma, wmma, fma, systolic, cpu-fma, cpu-avx512bf16, "
                          "cpu-avx512vnni, cpu-amx-bf16, cpu-amx-int8, "
                          "cpu-flash, cpu-flash-amx, cpu-paged-flash, "
                          "cpu-dequant, cpu-dequant-lut, cpu-dequant-amx, "
                          "cpu-row-dot or cpu-loops, got '"
                       << kernel << "'";
  bool cpu = kernel.starts_with("cpu-");
  auto positive = [&](StringRef name, ArrayRef<int64_t> list,
                      ArrayRef<size_t> sizes,
                      bool zeroIsWhole = false) -> LogicalResult {
    if (!list.empty() && !llvm::is_contained(sizes, list.size())) {
      auto diag = emitError() << "lowering_config '" << name << "' must have ";
      llvm::interleave(sizes, diag, " or ");
      return diag << " entries, got " << list.size();
    }
    for (int64_t v : list)
      if (v < 0 || (v == 0 && !zeroIsWhole))
        return emitError() << "lowering_config '" << name << "' entries must "
                           << (zeroIsWhole ? "not be negative" : "be positive")
                           << ", got " << v;
    return success();
  };
  // Matmuls tile [M, N, K], attention [query rows, keys per step], paged
  // attention [pages per step, splits] (and its mma the P · V register tile
  // [rows, columns]); a CPU matmul's cache tile of 0 leaves its dimension
  // whole.
  size_t mmaSize = kernel == "cpu-paged-flash" ? 2 : 3;
  if (failed(positive("tile", tile, {2, 3},
                      /*zeroIsWhole=*/cpu && !kernel.starts_with("cpu-flash") &&
                          kernel != "cpu-paged-flash")) ||
      failed(positive("warps", warps, {1, 2})) ||
      failed(positive("mma", mma, {mmaSize})))
    return failure();
  if (stages < 0)
    return emitError() << "lowering_config 'stages' must not be negative, got "
                       << stages;
  bool systolic = kernel == "systolic";
  if (!dataflow.empty() && !systolic)
    return emitError() << "lowering_config 'dataflow' applies to the systolic "
                          "kernel only, not "
                       << kernel;
  if (!dataflow.empty() && dataflow != "ws" && dataflow != "os" &&
      dataflow != "is")
    return emitError() << "lowering_config 'dataflow' must be ws, os or is, "
                          "got '"
                       << dataflow << "'";
  if (systolic && (!warps.empty() || !mma.empty()))
    return emitError() << "lowering_config of the systolic kernel takes no "
                          "warps or mma (the array has none)";
  if (systolic && stages > 2)
    return emitError() << "lowering_config of the systolic kernel takes "
                          "stages 0 to 2 (buffers of a matmul's C blocks in "
                          "the accumulator; 0: 2), got "
                       << stages;
  if (cpu && (!warps.empty() || stages != 0))
    return emitError() << "lowering_config of a CPU kernel takes no warps or "
                          "stages (its register tile is 'mma')";
  return success();
}

FailureOr<LoweringConfigAttr> mlir::accel::getLoweringConfig(Operation *op) {
  Attribute attr = op->getAttr(kLoweringConfigAttrName);
  if (!attr)
    return LoweringConfigAttr();
  if (auto config = dyn_cast<LoweringConfigAttr>(attr))
    return config;
  return op->emitOpError("has an accel.lowering_config that is not an "
                         "#accel.lowering_config attribute");
}
