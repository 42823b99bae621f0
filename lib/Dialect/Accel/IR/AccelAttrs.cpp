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

FailureOr<SmallVector<StringAttr>>
mlir::accel::parseStringList(AsmParser &parser) {
  SmallVector<StringAttr> list;
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
        std::string s;
        if (parser.parseString(&s))
          return failure();
        list.push_back(parser.getBuilder().getStringAttr(s));
        return success();
      }))
    return failure();
  return list;
}

void mlir::accel::printStringList(AsmPrinter &printer,
                                  ArrayRef<StringAttr> list) {
  printer << '[';
  llvm::interleaveComma(list, printer, [&](StringAttr s) { printer << s; });
  printer << ']';
}

FailureOr<SmallVector<int64_t>> mlir::accel::parseI64List(AsmParser &parser) {
  SmallVector<int64_t> list;
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
        int64_t v;
        if (parser.parseInteger(v))
          return failure();
        list.push_back(v);
        return success();
      }))
    return failure();
  return list;
}

void mlir::accel::printI64List(AsmPrinter &printer, ArrayRef<int64_t> list) {
  printer << '[';
  llvm::interleaveComma(list, printer);
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
