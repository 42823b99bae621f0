//===- Roofline.cpp - accel ops on a target's roofline --------------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// accel-roofline: FLOPs, compulsory bytes, arithmetic intensity, bound and
// predicted time of each accel op on a catalogue target; a remark per op, an
// optional table and an optional SVG plot.
//
//===----------------------------------------------------------------------===//

#include "accel/Transforms/Roofline.h"
#include "accel/Dialect/Accel/IR/AccelOps.h"
#include "accel/Target/Catalogue.h"
#include "accel/Target/CostModel.h"
#include "accel/Transforms/CpuTuning.h"
#include "accel/Transforms/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/ToolOutputFile.h"
#include <cmath>

namespace mlir::accel {
#define GEN_PASS_DEF_ACCELROOFLINEPASS
#include "accel/Transforms/Passes.h.inc"
} // namespace mlir::accel

using namespace mlir;
using namespace mlir::accel;

namespace {
/// One op's costs.
struct Cost {
  Operation *op;
  std::string name;
  double flops = 0, bytes = 0;
  Type precision;
};
} // namespace

double accel::getRooflineBytes(Type shaped) {
  auto t = cast<ShapedType>(shaped);
  double bits = std::max<unsigned>(8, t.getElementTypeBitWidth());
  return double(t.getNumElements()) * bits / 8.0;
}

static double numBytes(Value v) { return getRooflineBytes(v.getType()); }

static bool allStatic(Operation *op) {
  return llvm::all_of(op->getOperandTypes(), [](Type t) {
    auto s = dyn_cast<ShapedType>(t);
    return !s || s.hasStaticShape();
  });
}

/// Number of (query, key) pairs the causal band (and the sliding window)
/// keeps in one head: row i keeps keys (i + d - W, i + d] within [0, Skv).
static double keptPairs(int64_t sq, int64_t skv, std::optional<int64_t> diag,
                        std::optional<int64_t> window) {
  int64_t d = diag.value_or(skv - sq);
  double kept = 0;
  for (int64_t i = 0; i < sq; ++i) {
    int64_t end = std::clamp<int64_t>(i + d + 1, 0, skv);
    int64_t begin =
        window ? std::clamp<int64_t>(i + d + 1 - *window, 0, skv) : 0;
    kept += double(std::max<int64_t>(end - begin, 0));
  }
  return kept;
}

/// Number of (query, key) pairs a blocked attention kernel computes in one
/// head: query tiles of `tq` rows, each running whole key tiles of `tkv`
/// from the first that its first row's window reaches to the last that
/// its last row keeps (DecomposeAttention.cpp's key loop); a tile's keys
/// outside the band are masked, not skipped.
static double visitedPairs(int64_t sq, int64_t skv, std::optional<int64_t> diag,
                           std::optional<int64_t> window, int64_t tq,
                           int64_t tkv) {
  int64_t d = diag.value_or(skv - sq);
  double pairs = 0;
  for (int64_t q0 = 0; q0 < sq; q0 += tq) {
    int64_t rows = std::min(tq, sq - q0);
    int64_t last = std::max<int64_t>(std::min(skv, q0 + rows + d), 0);
    int64_t end = std::min(skv, (last + tkv - 1) / tkv * tkv);
    int64_t begin = 0;
    if (window)
      begin = std::min(end, std::max<int64_t>(q0 + d - (*window - 1), 0) / tkv *
                                tkv);
    pairs += double(rows) * double(std::max<int64_t>(end - begin, 0));
  }
  return pairs;
}

std::optional<RooflineCost> accel::getKernelCost(Operation *op) {
  std::optional<RooflineCost> c = getRooflineCost(op);
  auto at = dyn_cast<AttentionOp>(op);
  auto config = op->getAttrOfType<LoweringConfigAttr>(kLoweringConfigAttrName);
  if (!c || !at || !at.getCausal() || !config ||
      !config.getKernel().starts_with("cpu-flash") ||
      config.getTile().size() != 2)
    return c;
  ArrayRef<int64_t> q = at.getQuery().getType().getShape();
  ArrayRef<int64_t> v = at.getValue().getType().getShape();
  int64_t b = q[0], h = q[1], sq = q[2], d = q[3], skv = v[2], dv = v[3];
  int64_t tq = config.getTile()[0], tkv = config.getTile()[1];
  if (tq <= 0 || tkv <= 0)
    return c;
  std::optional<int64_t> diag;
  if (Value dg = at.getDiagonal()) {
    auto cst = dg.getDefiningOp<arith::ConstantIndexOp>();
    if (!cst)
      return c;
    diag = cst.value();
  }
  double pairs = visitedPairs(sq, skv, diag, at.getWindow(), std::min(tq, sq),
                              std::min(tkv, skv));
  c->flops = double(b * h) * pairs * (2.0 * d + 2.0 * dv + 5.0);
  c->scores = double(b * h) * pairs;
  return c;
}

std::optional<RooflineCost> accel::getRooflineCost(Operation *op) {
  RooflineCost c;
  if (auto pa = dyn_cast<PagedAttentionOp>(op)) {
    // Decode over a paged cache: each sequence reads its own pages once
    // (the pool's page count P does not matter, and may be dynamic); the
    // lengths are run-time data, so the table's N * T tokens are the bound.
    auto qT = pa.getQuery().getType();
    if (qT.isDynamicDim(0))
      return std::nullopt;
    int64_t b = qT.getDimSize(0), hq = qT.getDimSize(1), sq = qT.getDimSize(2),
            d = qT.getDimSize(3);
    auto vT = pa.getValueCache().getType();
    int64_t hkv = vT.getDimSize(2), dv = vT.getDimSize(3);
    int64_t skv = pa.getMaxPages() * pa.getPageSize();
    double pairs = pa.getCausal()
                       ? keptPairs(sq, skv, std::nullopt, std::nullopt)
                       : double(sq) * double(skv);
    c.flops = double(b * hq) * pairs * (2.0 * d + 2.0 * dv + 5.0);
    c.scores = double(b * hq) * pairs;
    double elt = std::max<double>(1, qT.getElementTypeBitWidth() / 8.0);
    c.bytes = numBytes(pa.getQuery()) + numBytes(pa.getInit()) +
              numBytes(pa.getBlockTable()) + numBytes(pa.getKvLengths()) +
              double(b) * double(hkv) * double(skv) * double(d + dv) * elt;
    c.precision = qT.getElementType();
    return c;
  }
  if (!allStatic(op))
    return std::nullopt;
  if (auto mm = dyn_cast<MatmulOp>(op)) {
    auto ct = mm.getInit().getType();
    int64_t k = mm.getLhs().getType().getShape().back();
    c.flops = 2.0 * double(ct.getNumElements()) * double(k);
    c.bytes = numBytes(mm.getLhs()) + numBytes(mm.getRhs()) +
              numBytes(mm.getInit()) * (mm.getAccumulate() ? 2 : 1);
    c.precision = mm.getLhs().getType().getElementType();
    return c;
  }
  if (auto dq = dyn_cast<DequantMatmulOp>(op)) {
    // The weights are read packed (bits / 8 bytes each) with their scales
    // and zero points; the products run in f32.
    auto ct = dq.getInit().getType();
    c.flops = 2.0 * double(ct.getNumElements()) * double(dq.getK());
    c.bytes = numBytes(dq.getLhs()) + numBytes(dq.getWeights()) +
              numBytes(dq.getScales()) + numBytes(dq.getInit());
    if (Value z = dq.getZeroPoints())
      c.bytes += numBytes(z);
    c.precision = Float32Type::get(op->getContext());
    return c;
  }
  if (auto sm = dyn_cast<SoftmaxOp>(op)) {
    // max, subtract, exp, sum, divide.
    c.flops = 5.0 * double(sm.getInput().getType().getNumElements());
    c.scores = double(sm.getInput().getType().getNumElements());
    c.bytes = numBytes(sm.getInput()) + numBytes(sm.getInit());
    c.precision = sm.getInput().getType().getElementType();
    return c;
  }
  if (auto at = dyn_cast<AttentionOp>(op)) {
    ArrayRef<int64_t> q = at.getQuery().getType().getShape();
    ArrayRef<int64_t> v = at.getValue().getType().getShape();
    int64_t b = q[0], h = q[1], sq = q[2], d = q[3], skv = v[2], dv = v[3];
    std::optional<int64_t> diag;
    if (Value dg = at.getDiagonal()) {
      if (auto cst = dg.getDefiningOp<arith::ConstantIndexOp>())
        diag = cst.value();
    }
    // Sequence lengths are run-time data: the padded sizes are the bound.
    double pairs = at.getCausal() ? keptPairs(sq, skv, diag, at.getWindow())
                                  : double(sq) * double(skv);
    // Q·Kᵀ and P·V, plus the softmax on each kept logit.
    c.flops = double(b * h) * pairs * (2.0 * d + 2.0 * dv + 5.0);
    c.scores = double(b * h) * pairs;
    c.bytes = numBytes(at.getQuery()) + numBytes(at.getKey()) +
              numBytes(at.getValue()) + numBytes(at.getInit());
    if (Value m = at.getMask())
      c.bytes += numBytes(m);
    c.precision = at.getQuery().getType().getElementType();
    return c;
  }
  return std::nullopt;
}

std::optional<double> accel::getRooflineSeconds(const RooflineCost &cost,
                                                TargetAttr target) {
  double peak = target.getPeakFlops(cost.precision);
  if (peak <= 0)
    return std::nullopt;
  double bw = target.getMemoryGbps().convertToDouble() * 1e9;
  return std::max(cost.flops / peak, bw > 0 ? cost.bytes / bw : 0);
}

double accel::getCalibratedSeconds(const RooflineCost &cost,
                                   const CpuKernelCalibration &cal,
                                   TargetAttr target, int64_t threads) {
  double seconds =
      predictCalibratedMs(cal, cost.flops, cost.scores, cost.bytes) * 1e-3;
  double bw = target.getMemoryGbps().convertToDouble() * 1e9 * threads;
  double l2 = double(target.getL2Kib()) * 1024 * threads;
  if (bw > 0 && cost.bytes > l2)
    seconds = std::max(seconds, cost.bytes / bw);
  return seconds;
}

/// The op's cost with its name, for the table.
static std::optional<Cost> costOf(Operation *op) {
  std::optional<RooflineCost> c = getRooflineCost(op);
  if (!c)
    return std::nullopt;
  return Cost{op, op->getName().getStringRef().str(), c->flops, c->bytes,
              c->precision};
}

static std::string human(double v, StringRef unit) {
  const char *prefixes[] = {"", "K", "M", "G", "T", "P"};
  int i = 0;
  while (std::fabs(v) >= 1000.0 && i < 5) {
    v /= 1000.0;
    ++i;
  }
  return llvm::formatv("{0:f2} {1}{2}", v, prefixes[i], unit).str();
}

static std::string humanTime(double s) {
  if (s >= 1.0)
    return llvm::formatv("{0:f2} s", s).str();
  if (s >= 1e-3)
    return llvm::formatv("{0:f2} ms", s * 1e3).str();
  if (s >= 1e-6)
    return llvm::formatv("{0:f2} us", s * 1e6).str();
  return llvm::formatv("{0:f1} ns", s * 1e9).str();
}

/// A power of ten as a short axis label: 0.01, 1, 1000, 1e6.
static std::string tickLabel(double x) {
  int e = int(std::lround(std::log10(x)));
  if (e < 0)
    return "0." + std::string(-e - 1, '0') + "1";
  if (e <= 4)
    return std::to_string(int64_t(std::llround(x)));
  return "1e" + std::to_string(e);
}

std::optional<RooflinePoint> accel::getFunctionRoofline(func::FuncOp func,
                                                        TargetAttr target) {
  RooflinePoint point;
  point.label = func.getSymName().str();
  double topFlops = -1;
  bool any = false;
  func.walk([&](Operation *op) {
    std::optional<RooflineCost> c = getRooflineCost(op);
    if (!c)
      return;
    std::optional<double> seconds = getRooflineSeconds(*c, target);
    if (!seconds)
      return;
    any = true;
    point.cost.flops += c->flops;
    point.cost.scores += c->scores;
    point.predictedSeconds += *seconds;
    if (c->flops > topFlops) {
      topFlops = c->flops;
      point.cost.precision = c->precision;
    }
  });
  if (!any)
    return std::nullopt;
  for (Type t : func.getArgumentTypes())
    if (auto s = dyn_cast<ShapedType>(t); s && s.hasStaticShape())
      point.cost.bytes += getRooflineBytes(s);
  for (Type t : func.getResultTypes())
    if (auto s = dyn_cast<ShapedType>(t); s && s.hasStaticShape())
      point.cost.bytes += getRooflineBytes(s);
  return point;
}

static std::string typeName(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  t.print(os);
  return s;
}

static std::string escapeXml(StringRef text) {
  std::string out;
  for (char c : text) {
    switch (c) {
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '&':
      out += "&amp;";
      break;
    case '"':
      out += "&quot;";
      break;
    default:
      out += c;
    }
  }
  return out;
}

RooflineRoofs accel::getCatalogueRoofs(TargetAttr target, double scale) {
  RooflineRoofs roofs;
  roofs.name = target.getName().str();
  roofs.bandwidthGBps = target.getMemoryGbps().convertToDouble() * scale;
  roofs.peakGflops = [target, scale](Type t) {
    return target.getPeakFlops(t) * scale / 1e9;
  };
  roofs.source = scale == 1.0 ? "catalogue figures"
                 : scale == std::round(scale)
                     ? llvm::formatv("catalogue figures x {0:f0}", scale).str()
                     : llvm::formatv("catalogue figures x {0:f2}", scale).str();
  return roofs;
}

void accel::writeRooflineSvg(raw_ostream &os, const RooflineRoofs &target,
                             ArrayRef<RooflinePoint> points, StringRef note) {
  double bwGbps = target.bandwidthGBps;
  // One roof per peak the points' precisions have, highest first, named
  // by the precisions that share it.
  SmallVector<std::pair<std::string, double>> roofs;
  SmallVector<Type> seen;
  for (const RooflinePoint &p : points) {
    if (llvm::is_contained(seen, p.cost.precision))
      continue;
    seen.push_back(p.cost.precision);
    double peak = target.peakGflops(p.cost.precision);
    auto *same =
        llvm::find_if(roofs, [&](auto &r) { return r.second == peak; });
    if (same != roofs.end())
      same->first += "/" + typeName(p.cost.precision);
    else
      roofs.push_back({typeName(p.cost.precision), peak});
  }
  llvm::sort(roofs, [](auto &a, auto &b) { return a.second > b.second; });
  double peakMax = roofs.empty() ? 1.0 : std::max(roofs.front().second, 1e-9);
  unsigned legend = points.size() + roofs.size();
  const double w = 760, plotH = 480, left = 70, bottom = 50, top = 46,
               right = 20;
  const double h = plotH + 16.0 * legend + 10;
  double xMin = 0.01, xMax = 1e5;
  double yMax = std::pow(10.0, std::ceil(std::log10(peakMax * 2)));
  double yMin = yMax / 1e7;
  auto px = [&](double x) {
    x = std::clamp(x, xMin, xMax);
    return left + (std::log10(x) - std::log10(xMin)) /
                      (std::log10(xMax) - std::log10(xMin)) *
                      (w - left - right);
  };
  auto py = [&](double y) {
    y = std::clamp(y, yMin, yMax);
    return plotH - bottom -
           (std::log10(y) - std::log10(yMin)) /
               (std::log10(yMax) - std::log10(yMin)) * (plotH - top - bottom);
  };
  os << llvm::formatv("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" "
                      "height=\"{1}\" font-family=\"sans-serif\" "
                      "font-size=\"11\">\n",
                      w, h);
  os << llvm::formatv("<title>Roofline on {0}</title>\n",
                      escapeXml(target.name));
  os << llvm::formatv("<text x=\"{0}\" y=\"16\" font-size=\"13\">{1}: "
                      "{2:f1} GB/s ({3})</text>\n",
                      left, escapeXml(target.name), bwGbps,
                      escapeXml(target.source));
  if (!note.empty())
    os << llvm::formatv("<text x=\"{0}\" y=\"32\">{1}</text>\n", left,
                        escapeXml(note));
  os << llvm::formatv("<rect x=\"{0}\" y=\"{1}\" width=\"{2}\" height=\"{3}\" "
                      "fill=\"white\" stroke=\"black\"/>\n",
                      left, top, w - left - right, plotH - top - bottom);
  for (double x = xMin; x <= xMax * 1.001; x *= 10)
    os << llvm::formatv("<text x=\"{0:f1}\" y=\"{1:f1}\" "
                        "text-anchor=\"middle\">{2}</text>\n",
                        px(x), plotH - bottom + 15, tickLabel(x));
  for (double y = yMin; y <= yMax * 1.001; y *= 10)
    os << llvm::formatv("<text x=\"{0:f1}\" y=\"{1:f1}\" "
                        "text-anchor=\"end\">{2}</text>\n",
                        left - 5, py(y) + 4, tickLabel(y));
  os << llvm::formatv("<text x=\"{0:f1}\" y=\"{1:f1}\" text-anchor=\"middle\">"
                      "arithmetic intensity (FLOP/byte)</text>\n",
                      (left + w - right) / 2, plotH - 12);
  os << llvm::formatv("<text x=\"15\" y=\"{0:f1}\" transform=\"rotate(-90 15 "
                      "{0:f1})\" text-anchor=\"middle\">GFLOP/s</text>\n",
                      (top + plotH - bottom) / 2);
  double legendY = plotH + 6;
  // The roofs: min(peak, bandwidth x intensity).
  for (auto [precision, peak] : roofs) {
    if (peak <= 0)
      continue;
    double ridge = bwGbps > 0 ? peak / bwGbps : xMin;
    os << "<polyline class=\"roof\" fill=\"none\" stroke=\"black\" "
          "stroke-width=\"2\" points=\"";
    if (bwGbps > 0)
      os << llvm::formatv("{0:f1},{1:f1} ", px(xMin), py(bwGbps * xMin));
    os << llvm::formatv("{0:f1},{1:f1} {2:f1},{3:f1}\"/>\n", px(ridge),
                        py(peak), px(xMax), py(peak));
    os << llvm::formatv("<text x=\"{0:f1}\" y=\"{1:f1}\" "
                        "text-anchor=\"end\">{2} peak</text>\n",
                        px(xMax) - 4, py(peak) - 4, precision);
    os << llvm::formatv("<text x=\"{0}\" y=\"{1:f1}\">{2} roof: {3:f1} "
                        "GFLOP/s, ridge {4:f1} FLOP/B</text>\n",
                        left, legendY += 16, precision, peak,
                        bwGbps > 0 ? peak / bwGbps : 0.0);
  }
  for (auto [i, p] : llvm::enumerate(points)) {
    double intensity = p.cost.bytes > 0 ? p.cost.flops / p.cost.bytes : xMax;
    double peak = target.peakGflops(p.cost.precision);
    double roof = bwGbps > 0 ? std::min(peak, bwGbps * intensity) : peak;
    double predicted =
        p.predictedSeconds > 0 ? p.cost.flops / p.predictedSeconds / 1e9 : 0;
    std::string label = escapeXml(p.label);
    os << llvm::formatv("<circle class=\"model\" cx=\"{0:f1}\" cy=\"{1:f1}\" "
                        "r=\"5\" fill=\"none\" stroke=\"#1f77b4\" "
                        "stroke-width=\"2\"><title>{2}: model</title>"
                        "</circle>\n",
                        px(intensity), py(predicted), label);
    std::string measuredText;
    double labelY = py(predicted);
    if (p.measuredSeconds && *p.measuredSeconds > 0) {
      double measured = p.cost.flops / *p.measuredSeconds / 1e9;
      labelY = py(measured);
      os << llvm::formatv("<line x1=\"{0:f1}\" y1=\"{1:f1}\" x2=\"{0:f1}\" "
                          "y2=\"{2:f1}\" stroke=\"#999\" "
                          "stroke-dasharray=\"3,2\"/>\n",
                          px(intensity), py(predicted), py(measured));
      os << llvm::formatv("<circle class=\"measured\" cx=\"{0:f1}\" "
                          "cy=\"{1:f1}\" r=\"5\" fill=\"#d62728\"><title>{2}: "
                          "measured</title></circle>\n",
                          px(intensity), py(measured), label);
      measuredText = llvm::formatv(
          ", measured {0:f2} GFLOP/s = {1:f0}% of the roof, measured / "
          "predicted time {2:f2}",
          measured, roof > 0 ? 100.0 * measured / roof : 0.0,
          *p.measuredSeconds / p.predictedSeconds);
    }
    os << llvm::formatv("<text x=\"{0:f1}\" y=\"{1:f1}\">{2}</text>\n",
                        px(intensity) + 7, labelY - 6 - 12.0 * (i % 3), i);
    os << llvm::formatv("<text class=\"legend\" x=\"{0}\" y=\"{1:f1}\">{2}: "
                        "{3} ({4}), {5}, {6:f1} FLOP/B, predicted "
                        "{7:f2} GFLOP/s{8}</text>\n",
                        left, legendY += 16, i, label,
                        typeName(p.cost.precision), human(p.cost.flops, "FLOP"),
                        intensity, predicted, measuredText);
  }
  os << "</svg>\n";
}

namespace {
struct AccelRooflinePass
    : public accel::impl::AccelRooflinePassBase<AccelRooflinePass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<TargetAttr> resolved =
        resolveTarget(module, targetName, "accel-roofline", "x86-64-avx512");
    if (failed(resolved))
      return signalPassFailure();
    TargetAttr target = *resolved;
    double bw = target.getMemoryGbps().convertToDouble() * 1e9;
    if (threads < 1) {
      module.emitError() << "accel-roofline: threads=" << int64_t(threads)
                         << " is not a thread count (1 or more)";
      return signalPassFailure();
    }
    // tuning-cache: calibrated times for the ops whose kernel (their
    // lowering_config's) has a calibration on this CPU and thread count.
    CpuTuningCache cache;
    if (!tuningCache.empty()) {
      if (target.getKind() != TargetKind::CPU) {
        module.emitError() << "accel-roofline: tuning-cache holds CPU "
                           << "calibrations; " << target.getName()
                           << " is not a CPU";
        return signalPassFailure();
      }
      auto loaded = loadCpuTuningCache(tuningCache);
      if (!loaded) {
        module.emitError() << "accel-roofline: tuning cache '" << tuningCache
                           << "': " << llvm::toString(loaded.takeError());
        return signalPassFailure();
      }
      cache = std::move(*loaded);
    }

    SmallVector<RooflinePoint> points;
    std::string table;
    llvm::raw_string_ostream rows(table);
    rows << llvm::formatv(
        "{0,-4} {1,-16} {2,14} {3,14} {4,11} {5,-8} {6,12}  "
        "{7}{8}\n",
        "#", "op", "FLOPs", "bytes", "FLOP/B", "bound", "predicted",
        tuningCache.empty() ? std::string()
                            : llvm::formatv("{0,12}  ", "calibrated").str(),
        "tiles");
    module.walk([&](Operation *op) {
      if (!isa<MatmulOp, DequantMatmulOp, SoftmaxOp, AttentionOp,
               PagedAttentionOp>(op))
        return;
      std::optional<Cost> cost = costOf(op);
      if (!cost) {
        op->emitRemark() << "roofline on " << target.getName()
                         << ": dynamic shapes, no estimate";
        return;
      }
      double peak = target.getPeakFlops(cost->precision);
      if (peak <= 0) {
        op->emitRemark() << "roofline on " << target.getName() << ": "
                         << cost->precision
                         << " is not supported by the target (peak 0)";
        return;
      }
      double intensity = cost->bytes > 0 ? cost->flops / cost->bytes : 0;
      double ridge = bw > 0 ? peak / bw : 0;
      bool computeBound = bw <= 0 || intensity >= ridge;
      double time = *getRooflineSeconds(
          RooflineCost{cost->flops, cost->bytes, cost->precision}, target);
      // The tiles accel-tile would choose on this target, and why.
      std::string reason, tiles;
      FailureOr<TilePlan> plan = planTiles(op, target, TileRequest(), &reason);
      if (succeeded(plan))
        tiles = plan->shapes();
      InFlightDiagnostic remark = op->emitRemark();
      remark << llvm::formatv(
          "roofline on {0}: {1}, {2}, {3:f1} FLOP/B, {4}-bound (ridge "
          "{5:f1} FLOP/B), predicted {6} at {7}",
          target.getName(), human(cost->flops, "FLOP"),
          human(cost->bytes, "B"), intensity,
          computeBound ? "compute" : "memory", ridge, humanTime(time),
          computeBound ? human(peak, "FLOP/s") : human(bw, "B/s"));
      // The calibrated time: the fitted kernel rates, bounded below by the
      // bytes at the bandwidth of the threads' cores.
      std::string calibrated = "-";
      if (!tuningCache.empty()) {
        auto config =
            op->getAttrOfType<LoweringConfigAttr>(kLoweringConfigAttrName);
        const CpuKernelCalibration *cal =
            config ? cache.findCalibration(target.getName(), config.getKernel(),
                                           threads)
                   : nullptr;
        std::optional<RooflineCost> rc = getKernelCost(op);
        if (!config) {
          remark << "; no calibrated time (no lowering_config: run "
                    "accel-cpu-configure first)";
        } else if (!cal) {
          remark << "; no calibration of " << config.getKernel() << " on "
                 << target.getName() << " with " << int64_t(threads)
                 << " thread(s) in the tuning cache";
        } else {
          calibrated =
              humanTime(getCalibratedSeconds(*rc, *cal, target, threads));
          remark << llvm::formatv(
              "; calibrated {0} ({1} on {2} thread(s): {3:f1} GFLOP/s, "
              "{4:f3} ns a score, {5:f4} ns a byte, {6:f1} us a call; {7} "
              "samples)",
              calibrated, cal->kernel, int64_t(threads), cal->gflops,
              cal->nsPerScore, cal->nsPerByte, cal->usPerCall,
              cal->samples.size());
        }
      }
      Diagnostic &note = remark.attachNote(op->getLoc());
      if (failed(plan))
        note << "no tiles on " << target.getName() << ": " << reason;
      else if (!plan->problem.empty())
        note << "tiles on " << target.getName() << " do not fit: "
             << plan->problem;
      else
        note << "tiles on " << target.getName() << ": " << plan->describe();
      rows << llvm::formatv(
          "{0,-4} {1,-16} {2,14} {3,14} {4,11:f1} {5,-8} "
          "{6,12}  {7}{8}\n",
          points.size(), cost->name, human(cost->flops, "FLOP"),
          human(cost->bytes, "B"), intensity,
          computeBound ? "compute" : "memory", humanTime(time),
          tuningCache.empty() ? std::string()
                              : llvm::formatv("{0,12}  ", calibrated).str(),
          tiles);
      points.push_back(RooflinePoint{
          cost->name, RooflineCost{cost->flops, cost->bytes, cost->precision},
          time, std::nullopt});
    });

    auto write = [&](StringRef path, function_ref<void(raw_ostream &)> fn) {
      std::string error;
      auto file = openOutputFile(path, &error);
      if (!file) {
        mlir::emitError(module.getLoc()) << "accel-roofline: " << error;
        return false;
      }
      fn(file->os());
      file->keep();
      return true;
    };
    if (!reportFile.empty() &&
        !write(reportFile, [&](raw_ostream &os) {
          os << "roofline on " << target.getName() << "\n" << table;
        }))
      return signalPassFailure();
    if (!svgFile.empty() && !points.empty()) {
      if (!write(svgFile, [&](raw_ostream &os) {
            writeRooflineSvg(os, getCatalogueRoofs(target), points,
                             "the model's points (accel-opt "
                             "--accel-roofline); measured ones: accel-run "
                             "--roofline");
          }))
        return signalPassFailure();
    }
    markAllAnalysesPreserved();
  }
};
} // namespace
