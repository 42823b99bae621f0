//===- StructuredFuzzer.cpp - libFuzzer target: generated programs --------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// accel-fuzz-structured: the input bytes do not hold MLIR; they choose a
// valid program and run it, as scripts/differential-sweep.py does through
// accel-run, but under libFuzzer's coverage guidance:
//
//   - one op: accel.matmul (every A/B/C element type the verifier takes,
//     f8 mixes, i8/f8 scales, transpose_b, accumulate, 0-2 batch dims),
//     accel.attention (f32/f16/bf16/f8 Q/K/V, MHA/GQA/MQA, causal with
//     diagonal and window, kv/q lengths, i1 or additive masks of every
//     broadcast shape with fully masked rows, explicit scales) or
//     accel.softmax; sizes 0..67 with zeros, ones and primes;
//   - accel-cpu-pipeline options: vectorize, decompose-attention and its
//     tiles, cache and register tiles, cpu-features, threads;
//   - the input values: small integers, dyadic fractions or rounded reals
//     (so that the matmul gate is often the exact tier), with NaN/Inf
//     planted now and then, i1 masks of any density.
//
// The program is printed as MLIR, parsed and verified (a rejection is a bug
// of this generator and aborts), compiled with accel::compileForHost (a
// failure aborts: the CPU pipeline takes every valid program), run on
// NaN-prefilled outputs, and each result is compared with the fp64 oracle
// (accel/Reference) the way accel-run compares it. A result outside its
// gate, a write outside an output or into an input (each buffer sits
// between guard bytes; the JIT's code is not instrumented by ASan), and
// every crash are findings: the target prints the program, the pipeline
// options and the worst element, then traps.
//
// ACCEL_FUZZ_VERBOSE=1 prints every program and its options to stderr
// (to turn a reproducer into an accel-run test).
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"
#include "accel/Dialect/Accel/IR/AccelOps.h"
#include "accel/InitAll.h"
#include "accel/Pipelines/Pipelines.h"
#include "accel/Reference/AccelOps.h"
#include "accel/Reference/Reference.h"
#include "accel/Runtime/JitRunner.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fuzzer/FuzzedDataProvider.h>
#include <limits>
#include <string>
#include <vector>

using namespace mlir;
using namespace mlir::accel;

namespace {

//===----------------------------------------------------------------------===//
// The program
//===----------------------------------------------------------------------===//

/// What an argument's values are.
enum class Fill {
  Data,        ///< an input tensor (values from the program's value mode)
  Output,      ///< an `outs` that is not read: NaN-prefilled
  Accumulator, ///< an `outs` that is read (matmul accumulate)
  BoolMask,    ///< i1, keep with the mask density, some rows all false
  AddMask,     ///< additive: mostly 0, some -inf, some rows all -inf
  Lengths,     ///< sequence lengths around [0, lengthBound]
  Scale,       ///< an f32 scalar near 1
};

struct ArgSpec {
  std::string name, elem; // SSA name without '%'; MLIR element type
  SmallVector<int64_t> shape;
  bool scalar = false;
  Fill fill = Fill::Data;
  int64_t lengthBound = 0;
  /// Whether NaN and infinities may be planted (not where the oracle would
  /// propagate them through an exact zero, e.g. V of a masked key).
  bool specials = false;
};

struct Program {
  std::string summary;
  SmallVector<ArgSpec> args;
  std::string prelude; // lines before the op
  std::string op;      // the op, its result named %r
  std::string resultType;
};

std::string tensorType(ArrayRef<int64_t> shape, StringRef elem) {
  std::string s = "tensor<";
  for (int64_t d : shape)
    s += std::to_string(d) + "x";
  return s + elem.str() + ">";
}

std::string typeOf(const ArgSpec &a) {
  return a.scalar ? a.elem : tensorType(a.shape, a.elem);
}

std::string dims(ArrayRef<int64_t> shape) {
  std::string s;
  for (int64_t d : shape)
    s += (s.empty() ? "" : "x") + std::to_string(d);
  return s.empty() ? "scalar" : s;
}

std::string printProgram(const Program &p) {
  std::string s = "func.func @fuzz(";
  for (auto [i, a] : llvm::enumerate(p.args))
    s += (i ? ", %" : "%") + a.name + ": " + typeOf(a);
  s += ") -> " + p.resultType + " {\n" + p.prelude + "  " + p.op + "\n" +
       "  return %r : " + p.resultType + "\n}\n";
  return s;
}

/// A size: half the time one of the interesting ones (0, 1, primes, around
/// the powers of two that tiles use), else anything in [0, 40].
int64_t drawSize(FuzzedDataProvider &fdp) {
  static const int64_t interesting[] = {13, 1,  2,  3,  4,  5,  7,  8,  9,
                                        11, 0,  15, 16, 17, 19, 23, 24, 29,
                                        31, 32, 33, 37, 40, 47, 63, 64, 65};
  uint8_t b = fdp.ConsumeIntegral<uint8_t>();
  if (b < 128)
    return interesting[b % std::size(interesting)];
  return (b - 128) % 41;
}

/// True with probability about num/256; false once the data is used up
/// (FuzzedDataProvider then gives zeros), so that short inputs are plain
/// programs.
bool chance(FuzzedDataProvider &fdp, unsigned num) {
  return fdp.ConsumeIntegral<uint8_t>() >= 256 - num;
}

template <typename T, size_t N>
T pick(FuzzedDataProvider &fdp, const T (&values)[N]) {
  return values[fdp.ConsumeIntegralInRange<size_t>(0, N - 1)];
}

bool isF8(StringRef t) { return t.starts_with("f8"); }

Program drawMatmul(FuzzedDataProvider &fdp) {
  Program p;
  static const char *lhsTypes[] = {
      "f32", "f32",      "f16",    "bf16",     "bf16",       "i8",
      "i8",  "f8E4M3FN", "f8E5M2", "f8E4M3FN", "f8E4M3FNUZ", "f8E5M2FNUZ"};
  std::string lhs = pick(fdp, lhsTypes), rhs = lhs;
  // f8 operands mix within one family (OCP or AMD's FNUZ).
  if (isF8(lhs) && chance(fdp, 80)) {
    bool fnuz = StringRef(lhs).ends_with("FNUZ");
    static const char *ocp[] = {"f8E4M3FN", "f8E5M2"};
    static const char *amd[] = {"f8E4M3FNUZ", "f8E5M2FNUZ"};
    rhs = fnuz ? pick(fdp, amd) : pick(fdp, ocp);
  }
  bool scaled = (isF8(lhs) || lhs == "i8") && chance(fdp, 80);
  std::vector<const char *> accs;
  if (lhs == "f32")
    accs = {"f32"};
  else if (lhs == "f16")
    accs = {"f32", "f16"};
  else if (lhs == "bf16")
    accs = {"f32", "bf16"};
  else if (lhs == "i8" && !scaled)
    accs = {"i32"};
  else
    accs = {"f32", "f16", "bf16"};
  std::string acc =
      accs[fdp.ConsumeIntegralInRange<size_t>(0, accs.size() - 1)];

  SmallVector<int64_t> batch;
  int numBatch = fdp.ConsumeIntegralInRange<int>(0, 3);
  numBatch = numBatch == 3 ? 2 : numBatch == 2 ? 1 : 0; // half unbatched
  for (int i = 0; i < numBatch; ++i)
    batch.push_back(chance(fdp, 10) ? 0
                                    : fdp.ConsumeIntegralInRange<int>(1, 3));
  int64_t m = drawSize(fdp), n = drawSize(fdp), k = drawSize(fdp);
  bool tb = fdp.ConsumeBool();
  bool accumulate = chance(fdp, 80);
  bool emptyInit = !accumulate && chance(fdp, 64);

  auto shape = [&](int64_t x, int64_t y) {
    SmallVector<int64_t> s(batch);
    s.push_back(x);
    s.push_back(y);
    return s;
  };
  ArgSpec a{"a", lhs, shape(m, k)}, b{"b", rhs, tb ? shape(n, k) : shape(k, n)};
  ArgSpec c{"c", acc, shape(m, n)};
  a.specials = b.specials = true;
  c.fill = accumulate ? Fill::Accumulator : Fill::Output;
  c.specials = accumulate;
  p.args = {a, b};
  if (!emptyInit)
    p.args.push_back(c);
  else
    p.prelude = "  %c = tensor.empty() : " + typeOf(c) + "\n";
  if (scaled) {
    p.args.push_back(ArgSpec{"sa", "f32", {}, true, Fill::Scale});
    p.args.push_back(ArgSpec{"sb", "f32", {}, true, Fill::Scale});
  }
  p.resultType = typeOf(c);
  p.op = std::string("%r = accel.matmul ") + (tb ? "transpose_b " : "") +
         (accumulate ? "accumulate " : "") + "ins(%a, %b : " + typeOf(a) +
         ", " + typeOf(b) + ") " + (scaled ? "scales(%sa, %sb) " : "") +
         "outs(%c : " + typeOf(c) + ") -> " + p.resultType;
  p.summary = "matmul " + lhs + (rhs != lhs ? "/" + rhs : "") + "->" + acc +
              " " + dims(shape(m, n)) + " K" + std::to_string(k) +
              (tb ? " transpose_b" : "") + (accumulate ? " accumulate" : "") +
              (scaled ? " scales" : "") + (emptyInit ? " empty-init" : "");
  return p;
}

Program drawAttention(FuzzedDataProvider &fdp) {
  Program p;
  static const char *inTypes[] = {"f32",  "f32",      "f16",   "bf16",
                                  "bf16", "f8E4M3FN", "f8E5M2"};
  std::string in = pick(fdp, inTypes);
  static const char *outTypes[] = {"f32", "f16", "bf16"};
  std::string out = !isF8(in) && chance(fdp, 100) ? in : pick(fdp, outTypes);
  static const int64_t batches[] = {1, 1, 2, 3, 0};
  static const int64_t kvHeads[] = {1, 1, 2, 3, 0};
  static const int64_t groups[] = {1, 2, 3, 4};
  static const int64_t headDims[] = {16, 1, 2,  3,  4,  5,  7,  8,
                                     13, 0, 17, 31, 32, 33, 40, 64};
  int64_t b = pick(fdp, batches), hkv = pick(fdp, kvHeads);
  int64_t hq = hkv * pick(fdp, groups);
  int64_t sq = drawSize(fdp), skv = drawSize(fdp);
  int64_t d = pick(fdp, headDims);
  int64_t dv = chance(fdp, 56) ? pick(fdp, headDims) : d;

  ArgSpec q{"q", in, {b, hq, sq, d}}, k{"k", in, {b, hkv, skv, d}},
      v{"v", in, {b, hkv, skv, dv}}, o{"o", out, {b, hq, sq, dv}};
  q.specials = k.specials = true;
  o.fill = Fill::Output;
  p.args = {q, k, v};

  std::string attrs, extra, summary;
  bool causal = chance(fdp, 100);
  if (causal) {
    attrs += "causal ";
    summary += " causal";
    if (chance(fdp, 80)) {
      static const int64_t windows[] = {1, 2, 3, 4, 7, 16, 40, 2147483648};
      int64_t w = pick(fdp, windows);
      attrs += "window(" + std::to_string(w) + ") ";
      summary += " window " + std::to_string(w);
    }
    if (chance(fdp, 64)) {
      int64_t diag = fdp.ConsumeIntegralInRange<int64_t>(-sq - 2, skv + 2);
      p.prelude +=
          "  %d = arith.constant " + std::to_string(diag) + " : index\n";
      attrs += "diagonal(%d) ";
      summary += " diagonal " + std::to_string(diag);
    }
  }
  if (chance(fdp, 80)) {
    static const char *scales[] = {"0.125", "0.25", "0.5", "1.0",
                                   "2.0",   "-0.5", "0.0", "3.0"};
    std::string s = pick(fdp, scales);
    attrs += "scale(" + s + ") ";
    summary += " scale " + s;
  }
  int maskKind = fdp.ConsumeIntegralInRange<int>(0, 3); // 0-1 none, 2 i1, 3 add
  if (maskKind >= 2) {
    static const int64_t ranks[] = {0, 1, 2, 2, 3, 4, 4, 4};
    int64_t rank = pick(fdp, ranks);
    int64_t full[4] = {b, hq, sq, skv};
    SmallVector<int64_t> shape;
    for (int64_t i = 4 - rank; i < 4; ++i)
      shape.push_back(chance(fdp, 160) ? full[i] : 1);
    static const char *addTypes[] = {"f32", "f16", "bf16"};
    std::string elem = maskKind == 2 ? "i1" : pick(fdp, addTypes);
    ArgSpec mask{"mask", elem, shape};
    mask.fill = maskKind == 2 ? Fill::BoolMask : Fill::AddMask;
    p.args.push_back(mask);
    extra += "mask(%mask : " + typeOf(mask) + ") ";
    summary += " mask " + elem + " " + dims(shape);
  }
  for (auto [name, bound] :
       {std::pair<const char *, int64_t>{"kv_lengths", skv},
        {"q_lengths", sq}}) {
    if (!chance(fdp, 40))
      continue;
    std::string elem = fdp.ConsumeBool() ? "i32" : "i64";
    ArgSpec len{name, elem, {b}};
    len.fill = Fill::Lengths;
    len.lengthBound = bound;
    p.args.push_back(len);
    extra += std::string(name) + "(%" + name + " : " + typeOf(len) + ") ";
    summary += std::string(" ") + name + " " + elem;
  }
  p.args.push_back(o);
  p.resultType = typeOf(o);
  p.op = "%r = accel.attention " + attrs + "ins(%q, %k, %v : " + typeOf(q) +
         ", " + typeOf(k) + ", " + typeOf(v) + ") " + extra +
         "outs(%o : " + p.resultType + ") -> " + p.resultType;
  p.summary = "attention " + in + "->" + out + " B" + std::to_string(b) +
              " Hq" + std::to_string(hq) + " Hkv" + std::to_string(hkv) +
              " Sq" + std::to_string(sq) + " Skv" + std::to_string(skv) + " D" +
              std::to_string(d) + " Dv" + std::to_string(dv) + summary;
  return p;
}

Program drawSoftmax(FuzzedDataProvider &fdp) {
  Program p;
  static const char *inTypes[] = {"f32",  "f32",      "f16",
                                  "bf16", "f8E4M3FN", "f8E5M2"};
  std::string in = pick(fdp, inTypes);
  // The oracle's gate for f8 outputs would be f32's: outputs are 16 bits or
  // more.
  static const char *outTypes[] = {"f32", "f16", "bf16"};
  std::string out = !isF8(in) && chance(fdp, 128) ? in : pick(fdp, outTypes);
  int64_t rank = fdp.ConsumeIntegralInRange<int64_t>(1, 4);
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < rank; ++i) {
    int64_t s = drawSize(fdp);
    // Four dimensions of 40 would make one input slow; keep 4-D small.
    shape.push_back(rank == 4 ? s % 9 : s);
  }
  int64_t dim = fdp.ConsumeIntegralInRange<int64_t>(0, rank - 1);
  ArgSpec x{"x", in, shape}, y{"y", out, shape};
  x.specials = true;
  y.fill = Fill::Output;
  p.args = {x, y};
  p.resultType = typeOf(y);
  p.op = "%r = accel.softmax dimension(" + std::to_string(dim) +
         ") ins(%x : " + typeOf(x) + ") outs(%y : " + p.resultType + ") -> " +
         p.resultType;
  p.summary = "softmax " + in + "->" + out + " " + dims(shape) + " dim " +
              std::to_string(dim);
  return p;
}

/// accel-cpu-pipeline options, as the string accel-run's
/// --cpu-pipeline-options takes.
std::string drawOptions(FuzzedDataProvider &fdp, int64_t &threads) {
  std::string s;
  auto add = [&](const std::string &opt) { s += (s.empty() ? "" : " ") + opt; };
  if (chance(fdp, 48))
    add("vectorize=0");
  if (chance(fdp, 48))
    add("decompose-attention=0");
  static const int64_t attnTiles[] = {1, 2, 3, 4, 7, 8, 16, 32, 128};
  if (chance(fdp, 160))
    add("attention-tile-q=" + std::to_string(pick(fdp, attnTiles)));
  if (chance(fdp, 160))
    add("attention-tile-kv=" + std::to_string(pick(fdp, attnTiles)));
  if (chance(fdp, 128)) {
    static const int64_t cache[] = {0, 1, 2, 3, 5, 8, 16, 17, 32, 64, 256};
    add(llvm::formatv("cache-tile={0},{1},{2}", pick(fdp, cache),
                      pick(fdp, cache), pick(fdp, cache))
            .str());
  }
  if (chance(fdp, 128)) {
    static const int64_t mr[] = {1, 2, 3, 4, 6, 8};
    // nr must be a power of two (accel-cpu-vectorize-contractions refuses
    // other widths: x86 assembled them lane by lane).
    static const int64_t nr[] = {1, 2, 4, 8, 16, 32, 64};
    static const int64_t kr[] = {1, 2, 3, 4};
    add(llvm::formatv("register-tile={0},{1},{2}", pick(fdp, mr), pick(fdp, nr),
                      pick(fdp, kr))
            .str());
  }
  // The JIT compiles for the host; "none" turns the dot micro-kernels off.
  if (chance(fdp, 48))
    add("cpu-features=none");
  threads = chance(fdp, 24) ? 2 : 1;
  if (threads > 1)
    add("threads=" + std::to_string(threads));
  return s;
}

//===----------------------------------------------------------------------===//
// Values
//===----------------------------------------------------------------------===//

/// splitmix64: the values of one input come from a seed in the fuzz data.
struct Rng {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  int64_t range(int64_t lo, int64_t hi) {
    return lo + int64_t(next() % uint64_t(hi - lo + 1));
  }
  double unit() { return double(next() >> 11) * 0x1p-53; }
};

struct ValueChoice {
  /// 0: integers in [-2, 2] (the exact tier); 1: integers in [-16, 16]
  /// ([-128, 127] for i8); 2: multiples of 1/8 in [-2, 2]; 3: reals in
  /// [-1, 1]; 4: reals in [-4, 4] (rounded to the element type).
  int mode = 0;
  uint64_t seed = 0;
  double maskDensity = 0.8;
  /// Probability that a mask row (the Sq dimension) masks every key.
  double emptyRowChance = 0;
  /// NaN/±inf planted at (flat index modulo the size) of a tensor that may
  /// hold them: (argument slot, index, kind).
  struct Special {
    unsigned slot;
    uint32_t index;
    int kind;
  };
  SmallVector<Special> specials;
  /// Softmax rows shifted by +1000 or set to -inf.
  bool rowShifts = false;
};

ValueChoice drawValues(FuzzedDataProvider &fdp) {
  ValueChoice v;
  v.mode = fdp.ConsumeIntegralInRange<int>(0, 4);
  v.seed = fdp.ConsumeIntegral<uint64_t>();
  static const double densities[] = {0.0, 0.3, 0.6, 0.8, 0.9, 1.0};
  v.maskDensity = pick(fdp, densities);
  static const double emptyRows[] = {0.0, 0.0, 0.2, 0.5, 1.0};
  v.emptyRowChance = pick(fdp, emptyRows);
  v.rowShifts = chance(fdp, 64);
  if (chance(fdp, 32)) {
    int n = fdp.ConsumeIntegralInRange<int>(1, 3);
    for (int i = 0; i < n; ++i)
      v.specials.push_back({fdp.ConsumeIntegral<uint8_t>(),
                            fdp.ConsumeIntegral<uint32_t>(),
                            fdp.ConsumeIntegralInRange<int>(0, 2)});
  }
  return v;
}

/// One buffer of the call: values as doubles (rounded to the element type)
/// and their native bytes between guard bytes.
struct Buffer {
  static constexpr size_t kGuard = 64;
  static constexpr uint8_t kGuardByte = 0x5c;
  const ArgSpec *spec = nullptr;
  Type elementType;
  ref::Tensor value;
  size_t width = 0, dataBytes = 0;
  std::vector<uint8_t> storage, pristine;
  uint8_t *data() { return storage.data() + kGuard; }
  const uint8_t *data() const { return storage.data() + kGuard; }
};

double drawValue(Rng &rng, int mode, Type t) {
  if (t.isInteger(8) && mode == 1)
    return double(rng.range(-128, 127));
  switch (mode) {
  case 0:
    return double(rng.range(-2, 2));
  case 1:
    return double(rng.range(-16, 16));
  case 2:
    return double(rng.range(-16, 16)) / 8.0;
  case 3:
    return rng.unit() * 2.0 - 1.0;
  default:
    return rng.unit() * 8.0 - 4.0;
  }
}

/// Fills `buf` as its spec says; `slot` is its argument number.
void fill(Buffer &buf, unsigned slot, const ValueChoice &choice, Rng &rng) {
  const ArgSpec &spec = *buf.spec;
  Type t = buf.elementType;
  std::vector<double> &data = buf.value.data;
  constexpr double inf = std::numeric_limits<double>::infinity();
  constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  for (double &x : data) {
    switch (spec.fill) {
    case Fill::Data:
    case Fill::Accumulator:
      x = drawValue(rng, choice.mode, t);
      break;
    case Fill::Output:
      x = nan; // integers get the guard pattern below
      break;
    case Fill::BoolMask:
      x = rng.unit() < choice.maskDensity ? 1.0 : 0.0;
      break;
    case Fill::AddMask: {
      uint64_t r = rng.next() % 16;
      x = r < 9 ? 0.0 : r < 12 ? -inf : r == 12 ? -1000.0 : double(r) - 14.0;
      break;
    }
    case Fill::Lengths: {
      int64_t r = rng.range(-3, spec.lengthBound + 3);
      // Now and then the ends of the type (the op clamps to ±2^31).
      uint64_t e = rng.next() % 32;
      x = e == 0 ? 4e18 : e == 1 ? -4e18 : double(r);
      break;
    }
    case Fill::Scale: {
      static const double scales[] = {0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0};
      x = scales[rng.next() % std::size(scales)];
      break;
    }
    }
  }
  // Masks: whole rows (the Sq dimension, or everything for a mask without
  // one) that keep no key.
  if ((spec.fill == Fill::BoolMask || spec.fill == Fill::AddMask) &&
      choice.emptyRowChance > 0 && !data.empty()) {
    int64_t cols = spec.shape.empty() ? 1 : spec.shape.back();
    for (size_t row = 0; row * cols < data.size(); ++row)
      if (rng.unit() < choice.emptyRowChance)
        for (int64_t c = 0; c < cols; ++c)
          data[row * cols + c] = spec.fill == Fill::BoolMask ? 0.0 : -inf;
  }
  // Rows (the last dimension) shifted by +1000 or, where specials may go,
  // all -inf (a softmax row that is fully masked).
  if (spec.fill == Fill::Data && choice.rowShifts && !data.empty() &&
      isa<FloatType>(t)) {
    int64_t cols = std::max<int64_t>(1, spec.shape.back());
    for (size_t row = 0; row * cols < data.size(); ++row) {
      uint64_t r = rng.next() % 4;
      for (int64_t c = 0; c < cols && row * cols + c < data.size(); ++c) {
        if (r == 0)
          data[row * cols + c] += 1000.0;
        else if (r == 1 && spec.specials)
          data[row * cols + c] = -inf;
      }
    }
  }
  if (spec.specials && !data.empty() && isa<FloatType>(t))
    for (const ValueChoice::Special &s : choice.specials)
      if (s.slot % 8 == slot % 8)
        data[s.index % data.size()] = s.kind == 0   ? nan
                                      : s.kind == 1 ? inf
                                                    : -inf;
  // What the kernel sees is what the oracle sees.
  for (double &x : data)
    x = ref::roundTo(x, t);
}

//===----------------------------------------------------------------------===//
// The check
//===----------------------------------------------------------------------===//

struct Input {
  Program program;
  std::string text;
  std::string options;
  int64_t threads = 1;
  ValueChoice values;
};

[[noreturn]] void report(const Input &in, const std::string &diagnostics,
                         const std::string &what,
                         ArrayRef<Buffer> buffers = {}) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "accel-fuzz-structured: " << what << "\n"
     << "program: " << in.program.summary << "\n"
     << "accel-cpu-pipeline options: '" << in.options << "'\n"
     << "values: mode " << in.values.mode << ", seed " << in.values.seed
     << ", mask density " << in.values.maskDensity << ", empty-row chance "
     << in.values.emptyRowChance << ", row shifts " << in.values.rowShifts
     << ", " << in.values.specials.size() << " special values\n"
     << in.text;
  if (!diagnostics.empty())
    os << "diagnostics:\n" << diagnostics;
  // Small inputs in full, for a reproducer (accel-run --input takes .npy).
  int64_t total = 0;
  for (const Buffer &b : buffers)
    total += b.value.numElements();
  if (total <= 1024)
    for (const Buffer &b : buffers) {
      os << "%" << b.spec->name << " = [";
      for (auto [i, x] : llvm::enumerate(b.value.data))
        os << (i ? ", " : "") << x;
      os << "]\n";
    }
  std::fputs(s.c_str(), stderr);
  std::fflush(stderr);
  __builtin_trap();
}

/// The oracle of the one op of `func`, on the buffers' values.
ref::Result evaluate(func::FuncOp func, ArrayRef<Buffer> buffers,
                     const ref::AccelOpOptions &oracleOptions) {
  // Operand values by reference: the arguments' buffers, an integer
  // constant's value (attention's diagonal), or a NaN-filled tensor for a
  // tensor.empty init (never read).
  llvm::DenseMap<Value, ref::Tensor> others;
  auto valueOf = [&](Value v) -> const ref::Tensor & {
    if (auto arg = dyn_cast<BlockArgument>(v))
      return buffers[arg.getArgNumber()].value;
    auto [it, inserted] = others.try_emplace(v);
    if (inserted) {
      if (std::optional<int64_t> c = getConstantIntValue(v))
        it->second = ref::Tensor({}, static_cast<double>(*c));
      else
        it->second = ref::Tensor(cast<RankedTensorType>(v.getType()).getShape(),
                                 std::numeric_limits<double>::quiet_NaN());
    }
    return it->second;
  };
  ref::Result result;
  func.walk([&](Operation *op) {
    if (!ref::isAccelOracleOp(op))
      return;
    // The generator only makes ops the oracle models (static head
    // dimensions).
    FailureOr<ref::Result> r = ref::evaluateAccelOp(op, valueOf, oracleOptions);
    if (succeeded(r))
      result = std::move(*r);
  });
  return result;
}

/// Reads a returned memref descriptor (allocated, aligned, offset, sizes,
/// strides) of `type`.
ref::Tensor readDescriptor(const int64_t *desc, RankedTensorType type) {
  int64_t rank = type.getRank();
  auto *base = reinterpret_cast<const uint8_t *>(desc[1]);
  const int64_t *sizes = desc + 3, *strides = desc + 3 + rank;
  ref::Tensor t(type.getShape());
  size_t width = ref::storageBytes(type.getElementType());
  for (int64_t n = 0; n < t.numElements(); ++n) {
    int64_t rem = n, pos = desc[2];
    for (int64_t d = rank - 1; d >= 0; --d) {
      pos += (rem % sizes[d]) * strides[d];
      rem /= sizes[d];
    }
    t.data[n] = ref::decodeElement(base + pos * width, type.getElementType());
  }
  return t;
}

std::string flatIndexStr(int64_t flat, ArrayRef<int64_t> shape) {
  SmallVector<int64_t> idx(shape.size());
  for (int64_t d = int64_t(shape.size()) - 1; d >= 0; --d) {
    idx[d] = shape[d] ? flat % shape[d] : 0;
    flat = shape[d] ? flat / shape[d] : 0;
  }
  std::string s = "[";
  for (auto [i, x] : llvm::enumerate(idx))
    s += (i ? ", " : "") + std::to_string(x);
  return s + "]";
}

//===----------------------------------------------------------------------===//
// The process-wide state
//===----------------------------------------------------------------------===//

DialectRegistry *registry = nullptr;
MLIRContext *context = nullptr;
bool verbose = false;

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  accel_fuzz::installFatalErrorHandler();
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  // One registry and context for the whole run: loading the dialects and
  // registering the LLVM IR translations is not what is tested.
  registry = new DialectRegistry();
  accel::registerAllAccelDialects(*registry);
  registerAllToLLVMIRTranslations(*registry);
  context = new MLIRContext(*registry, MLIRContext::Threading::DISABLED);
  context->loadAllAvailableDialects();
  const char *env = std::getenv("ACCEL_FUZZ_VERBOSE");
  verbose = env && *env && std::strcmp(env, "0") != 0;
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  FuzzedDataProvider fdp(data, size);
  Input in;
  switch (fdp.ConsumeIntegralInRange<int>(0, 9)) {
  case 0:
  case 1:
  case 2:
  case 3:
    in.program = drawMatmul(fdp);
    break;
  case 4:
  case 5:
  case 6:
  case 7:
    in.program = drawAttention(fdp);
    break;
  default:
    in.program = drawSoftmax(fdp);
    break;
  }
  in.options = drawOptions(fdp, in.threads);
  in.values = drawValues(fdp);
  in.text = printProgram(in.program);
  if (verbose)
    llvm::errs() << "// " << in.program.summary << "\n// options: '"
                 << in.options << "'\n"
                 << in.text;

  std::string diagnostics;
  llvm::raw_string_ostream diagStream(diagnostics);
  ScopedDiagnosticHandler handler(context, [&](Diagnostic &diag) {
    diagStream << diag.getLocation() << ": " << diag << "\n";
    return success();
  });

  // Parse and verify: the generator only makes valid programs.
  ParserConfig config(context, /*verifyAfterParse=*/true);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(in.text, config);
  if (!module)
    report(in, diagnostics,
           "the verifier rejects a generated program (a bug "
           "of the generator)");
  auto func = *module->getOps<func::FuncOp>().begin();

  AccelCpuPipelineOptions options;
  if (failed(options.parseFromString(in.options)))
    report(in, diagnostics, "bad generated pipeline options");

  // Inputs, rounded to their element types; outputs NaN-prefilled.
  Rng rng{in.values.seed};
  SmallVector<Buffer> buffers(in.program.args.size());
  for (auto [i, spec] : llvm::enumerate(in.program.args)) {
    Buffer &buf = buffers[i];
    buf.spec = &spec;
    Type type = func.getArgument(i).getType();
    buf.elementType = getElementTypeOrSelf(type);
    buf.value = ref::Tensor(spec.scalar ? ArrayRef<int64_t>{}
                                        : ArrayRef<int64_t>(spec.shape));
    fill(buf, i, in.values, rng);
    buf.width = ref::storageBytes(buf.elementType);
    buf.dataBytes = buf.value.data.size() * buf.width;
    buf.storage.assign(2 * Buffer::kGuard + buf.dataBytes, Buffer::kGuardByte);
    for (auto [n, x] : llvm::enumerate(buf.value.data))
      ref::encodeElement(x, buf.elementType, buf.data() + n * buf.width);
    // An integer output has no NaN: a pattern no kernel writes by accident.
    if (spec.fill == Fill::Output && !isa<FloatType>(buf.elementType))
      std::memset(buf.data(), 0xa5, buf.dataBytes);
    buf.pristine.assign(buf.data(), buf.data() + buf.dataBytes);
  }
  // The host's bf16 dot kernels may flush subnormals (the oracle knows).
  ref::AccelOpOptions oracleOptions;
  oracleOptions.flushBf16Subnormals = hostKernelsFlushBf16Subnormals(options);
  // bf16 attention on AMX rounds P to bf16 before P·V (cpu-flash-amx).
  func.walk([&](mlir::accel::AttentionOp at) {
    if (hostKernelsRoundAttentionProbabilities(options, at))
      oracleOptions.roundProbabilities = true;
  });
  ref::Result expected = evaluate(func, buffers, oracleOptions);

  llvm::Expected<std::unique_ptr<ExecutionEngine>> engine =
      compileForHost(*module, options);
  if (!engine)
    report(in, diagnostics,
           "the CPU pipeline rejects a valid program: " +
               llvm::toString(engine.takeError()),
           buffers);

  PackedCall call;
  for (Buffer &buf : buffers) {
    if (buf.spec->scalar)
      call.addScalar(buf.data());
    else
      call.addMemref(buf.data(), buf.spec->shape);
  }
  call.addResults({int64_t(expected.value.rank())});
  if (llvm::Error err = call.invoke(**engine, "fuzz"))
    report(in, diagnostics,
           "running the program failed: " + llvm::toString(std::move(err)),
           buffers);

  // Nothing outside the outputs is written.
  for (Buffer &buf : buffers) {
    auto guardOk = [&](const uint8_t *p) {
      return std::all_of(p, p + Buffer::kGuard,
                         [](uint8_t x) { return x == Buffer::kGuardByte; });
    };
    if (!guardOk(buf.storage.data()) || !guardOk(buf.data() + buf.dataBytes))
      report(in, diagnostics,
             "the kernel wrote outside %" + buf.spec->name + " (" +
                 std::to_string(buf.dataBytes) + " bytes)",
             buffers);
    bool isOut =
        buf.spec->fill == Fill::Output || buf.spec->fill == Fill::Accumulator;
    if (!isOut && buf.dataBytes &&
        std::memcmp(buf.data(), buf.pristine.data(), buf.dataBytes) != 0)
      report(in, diagnostics,
             "the kernel wrote into the input %" + buf.spec->name, buffers);
  }

  auto resultType = cast<RankedTensorType>(func.getResultTypes()[0]);
  const int64_t *desc = call.result(0);
  ref::Tensor actual = readDescriptor(desc, resultType);
  // A result the pipeline allocated (a tensor.empty init) is the caller's.
  auto *allocated = reinterpret_cast<uint8_t *>(desc[0]);
  bool ours = llvm::any_of(buffers, [&](Buffer &b) {
    return allocated >= b.storage.data() &&
           allocated < b.storage.data() + b.storage.size();
  });
  if (allocated && !ours)
    std::free(allocated);

  ref::Comparison c = ref::compare(actual, expected);
  if (!c.passed()) {
    // The worst element, by the ratio compare() uses.
    int64_t worst = c.firstFailure;
    double worstRatio = 0;
    for (int64_t i = 0; i < actual.numElements(); ++i) {
      double ratio = ref::elementRatio(actual.data[i], expected, i);
      if (ratio > worstRatio) {
        worstRatio = ratio;
        worst = i;
      }
    }
    report(in, diagnostics,
           llvm::formatv("{0} of {1} elements out of gate; worst at {2}: got "
                         "{3:e9}, expected {4:e9}, gate {5:e2} (err/gate "
                         "{6}); first at {7}",
                         c.failures, actual.numElements(),
                         flatIndexStr(worst, actual.shape), actual.data[worst],
                         expected.value.data[worst], expected.bound.data[worst],
                         worstRatio, flatIndexStr(c.firstFailure, actual.shape))
               .str(),
           buffers);
  }
  return 0;
}
