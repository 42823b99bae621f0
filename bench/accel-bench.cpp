//===- accel-bench.cpp - accel kernels next to oneDNN and OpenBLAS --------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Times accel's generated CPU kernels and the reference libraries on the
// same buffers in one process, interleaving their samples, and prints
// GFLOP/s and ratios. Run it through bench/run.sh, which pins the
// environment (shared/reference/anchors-performance.md §3.1).
//
//   gemm:      C = A·B (or A·Bᵀ), f32, accel vs dnnl_sgemm vs cblas_sgemm
//   attention: accel.attention (one kernel) vs the unfused OpenBLAS
//              baseline: S = Q·Kᵀ·scale (sgemm), row softmax, O = P·V
//
//===----------------------------------------------------------------------===//

#include "accel/InitAll.h"
#include "accel/Runtime/JitRunner.h"
#include "accel/Target/Catalogue.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <malloc.h>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <cblas.h>
#include <immintrin.h>
#include <oneapi/dnnl/dnnl.h>
#include <oneapi/dnnl/dnnl.hpp>

using namespace mlir;
namespace cl = llvm::cl;

static cl::opt<std::string> mode("mode",
                                 cl::desc("gemm, attention, precision or all"),
                                 cl::init("all"));
static cl::opt<int> benchThreads(
    "bench-threads", cl::desc("Threads for every library and for accel"),
    cl::init(1));
static cl::opt<int> samples("samples", cl::desc("Interleaved samples each"),
                            cl::init(7));
static cl::opt<double> minSampleMs(
    "min-sample-ms", cl::desc("Repeat calls until a sample lasts this long"),
    cl::init(50.0));
static cl::opt<bool> quick("quick",
                           cl::desc("Smaller shapes only (a smoke run)"),
                           cl::init(false));

namespace {
struct Timing {
  double best = 0, median = 0; // seconds per call
};

/// Times `fns` interleaved: each sample runs every function in turn for at
/// least --min-sample-ms, so drift (boost clocks, a neighbour) hits all.
std::vector<Timing> timeInterleaved(std::vector<std::function<void()>> fns) {
  std::vector<std::vector<double>> per(fns.size());
  std::vector<int> reps(fns.size(), 1);
  for (size_t f = 0; f < fns.size(); ++f) { // warm up and calibrate
    auto t0 = std::chrono::steady_clock::now();
    fns[f]();
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                             t0)
                   .count();
    reps[f] = std::max(1, int(minSampleMs / 1e3 / std::max(s, 1e-9)));
  }
  for (int s = 0; s < samples; ++s) {
    for (size_t f = 0; f < fns.size(); ++f) {
      auto t0 = std::chrono::steady_clock::now();
      for (int r = 0; r < reps[f]; ++r)
        fns[f]();
      double t = std::chrono::duration<double>(
                     std::chrono::steady_clock::now() - t0)
                     .count();
      per[f].push_back(t / reps[f]);
    }
  }
  std::vector<Timing> out;
  for (auto &v : per) {
    std::sort(v.begin(), v.end());
    out.push_back({v.front(), v[v.size() / 2]});
  }
  return out;
}

std::vector<float> randomBuffer(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  std::vector<float> v(n);
  for (float &x : v)
    x = d(rng);
  return v;
}

/// A JIT-compiled accel function and its argument buffers.
struct AccelKernel {
  OwningOpRef<ModuleOp> module;
  std::unique_ptr<ExecutionEngine> engine;
  accel::PackedCall call;
  std::string name;
  void operator()() {
    if (llvm::Error e = call.invoke(*engine, name)) {
      llvm::errs() << "accel-bench: " << llvm::toString(std::move(e)) << "\n";
      std::exit(1);
    }
  }
};

std::string shapeStr(std::initializer_list<int64_t> dims) {
  std::string s = "tensor<";
  for (int64_t d : dims)
    s += std::to_string(d) + "x";
  return s + "f32>";
}

bool compile(MLIRContext &ctx, const std::string &text, AccelKernel &k,
             const std::string &pipelineOptions = "") {
  k.module = parseSourceString<ModuleOp>(text, &ctx);
  if (!k.module)
    return false;
  accel::AccelCpuPipelineOptions options;
  if (failed(options.parseFromString(pipelineOptions))) {
    llvm::errs() << "accel-bench: bad pipeline options '" << pipelineOptions
                 << "'\n";
    return false;
  }
  options.threads = benchThreads;
  auto engine = accel::compileForHost(*k.module, options);
  if (!engine) {
    llvm::errs() << "accel-bench: " << llvm::toString(engine.takeError())
                 << "\n";
    return false;
  }
  k.engine = std::move(*engine);
  return true;
}

double gflops(double flop, double seconds) { return flop / seconds / 1e9; }

/// The f32 FMA roof of one core, measured: 16 independent 512-bit FMA
/// chains (more than latency x throughput on Zen 4/5). Zen 5 runs two
/// 512-bit FMAs a cycle (~222 GFLOP/s here); Zen 4 splits each in two
/// (~110): the roof has to be measured, not assumed.
__attribute__((target("avx512f"))) static double measureF32Roof() {
  __m512 acc[16];
  for (int i = 0; i < 16; ++i)
    acc[i] = _mm512_set1_ps(0.f);
  const __m512 x = _mm512_set1_ps(1.0000001f), y = _mm512_set1_ps(0.9999999f);
  const long iters = 20000000;
  double best = 0;
  for (int s = 0; s < 3; ++s) {
    auto t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < iters; ++i)
      for (int j = 0; j < 16; ++j)
        acc[j] = _mm512_fmadd_ps(acc[j], x, y);
    double t = std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                             t0)
                   .count();
    best = std::max(best, 16.0 * 16 * 2 * iters / t / 1e9);
  }
  float sink = 0;
  for (int j = 0; j < 16; ++j)
    sink += _mm512_reduce_add_ps(acc[j]);
  if (sink == 12345.f)
    llvm::outs() << "";
  return best;
}

static double roofF32 = 0;
/// The catalogue entry whose figures the predicted times use
/// (accel-roofline's model: max(FLOPs / peak, bytes / bandwidth)).
static cl::opt<std::string> modelTarget(
    "model-target",
    cl::desc("Catalogue target whose peak and bandwidth the predicted times "
             "use"),
    cl::init("x86-64-avx512"));
static double modelPeakGflops = 0;
static double bandwidthGBs = 0;

void benchGemm(MLIRContext &ctx) {
  struct Shape {
    int64_t m, n, k;
    bool transB;
  };
  std::vector<Shape> shapes = {{256, 256, 256, false},
                               {512, 512, 512, false},
                               {1024, 1024, 1024, false},
                               {2048, 2048, 2048, false},
                               {4096, 4096, 64, true},
                               {4096, 4096, 128, true},
                               {4096, 64, 4096, false},
                               {4096, 128, 4096, false}};
  if (quick)
    shapes = {{256, 256, 256, false}, {512, 512, 512, false},
              {1024, 1024, 64, true}};
  llvm::outs() << "\nf32 GEMM, row-major, " << benchThreads
               << " thread(s); GFLOP/s best (median)\n";
  llvm::outs() << llvm::formatv("{0,-22} {1,15} {2,15} {3,15} {4,9} {5,9} "
                                "{6,7}\n",
                                "M x N x K", "accel", "oneDNN", "OpenBLAS",
                                "/oneDNN", "/OpenBLAS", "%roof");
  for (const Shape &s : shapes) {
    auto a = randomBuffer(s.m * s.k, 1), b = randomBuffer(s.k * s.n, 2);
    std::vector<float> c(s.m * s.n), cRef(s.m * s.n);
    std::string tb = s.transB ? "transpose_b " : "";
    std::string ta = shapeStr({s.m, s.k});
    std::string tbt =
        s.transB ? shapeStr({s.n, s.k}) : shapeStr({s.k, s.n});
    std::string tc = shapeStr({s.m, s.n});
    std::string text = "func.func @mm(%a: " + ta + ", %b: " + tbt +
                       ", %c: " + tc + ") -> " + tc +
                       " {\n  %0 = accel.matmul " + tb + "ins(%a, %b : " + ta +
                       ", " + tbt + ") outs(%c : " + tc + ") -> " + tc +
                       "\n  return %0 : " + tc + "\n}\n";
    AccelKernel k;
    k.name = "mm";
    if (!compile(ctx, text, k))
      std::exit(1);
    k.call.addMemref(a.data(), {s.m, s.k});
    k.call.addMemref(b.data(),
                     s.transB ? ArrayRef<int64_t>{s.n, s.k}
                              : ArrayRef<int64_t>{s.k, s.n});
    k.call.addMemref(c.data(), {s.m, s.n});
    k.call.addResults({2});
    char tr = s.transB ? 'T' : 'N';
    int64_t ldb = s.transB ? s.k : s.n;
    auto dnnl = [&] {
      dnnl_sgemm('N', tr, s.m, s.n, s.k, 1.f, a.data(), s.k, b.data(), ldb,
                 0.f, cRef.data(), s.n);
    };
    auto blas = [&] {
      cblas_sgemm(CblasRowMajor, CblasNoTrans,
                  s.transB ? CblasTrans : CblasNoTrans, s.m, s.n, s.k, 1.f,
                  a.data(), s.k, b.data(), ldb, 0.f, cRef.data(), s.n);
    };
    std::vector<Timing> t = timeInterleaved({std::ref(k), dnnl, blas});
    // A sanity check that the kernels computed the same product.
    k();
    dnnl();
    double maxDiff = 0;
    for (size_t i = 0; i < c.size(); ++i)
      maxDiff = std::max(maxDiff, double(std::fabs(c[i] - cRef[i])));
    double flop = 2.0 * s.m * s.n * s.k;
    double g0 = gflops(flop, t[0].best), g1 = gflops(flop, t[1].best),
           g2 = gflops(flop, t[2].best);
    llvm::outs() << llvm::formatv(
        "{0,-22} {1,6:f1} ({2,6:f1}) {3,6:f1} ({4,6:f1}) {5,6:f1} ({6,6:f1}) "
        "{7,9:f2} {8,9:f2} {9,6:f0}%{10}\n",
        std::to_string(s.m) + "x" + std::to_string(s.n) + "x" +
            std::to_string(s.k) + (s.transB ? " Bt" : ""),
        g0, gflops(flop, t[0].median), g1, gflops(flop, t[1].median), g2,
        gflops(flop, t[2].median), g0 / g1, g0 / g2,
        100.0 * g0 / (roofF32 * benchThreads),
        maxDiff > 1e-3 * s.k ? "  MISMATCH" : "");
  }
}

/// The unfused baseline: per head S = scale·Q·Kᵀ (sgemm), a row softmax
/// (over the kept keys when causal: the others are -inf), O = P·V (sgemm).
/// One L x L buffer `s` serves every head (the least memory an unfused
/// kernel can use; frameworks materialise [B, H, L, L]).
void unfusedAttention(const float *q, const float *k, const float *v, float *s,
                      float *o, int64_t heads, int64_t L, int64_t d,
                      bool causal) {
  float scale = 1.f / std::sqrt(float(d));
  for (int64_t h = 0; h < heads; ++h) {
    const float *qh = q + h * L * d, *kh = k + h * L * d, *vh = v + h * L * d;
    float *oh = o + h * L * d;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, L, L, d, scale, qh, d,
                kh, d, 0.f, s, L);
#pragma omp parallel for num_threads(benchThreads) schedule(static)
    for (int64_t i = 0; i < L; ++i) {
      float *row = s + i * L;
      int64_t kept = causal ? i + 1 : L;
      float mx = *std::max_element(row, row + kept), sum = 0;
      for (int64_t j = 0; j < kept; ++j)
        sum += (row[j] = std::exp(row[j] - mx));
      float inv = 1.f / sum;
      for (int64_t j = 0; j < kept; ++j)
        row[j] *= inv;
      std::fill(row + kept, row + L, 0.f);
    }
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, L, d, L, 1.f, s, L,
                vh, d, 0.f, oh, d);
  }
}

/// Resident-memory probes (Linux): the peak is reset through clear_refs, so
/// a call's extra memory is its peak minus what was resident before it.
/// Large blocks are mmapped and unmapped on free (see main), so freed
/// scratch never hides in the heap.
int64_t statusKiB(const char *field) {
  FILE *f = std::fopen("/proc/self/status", "r");
  if (!f)
    return -1;
  char line[256];
  int64_t value = -1;
  size_t n = std::strlen(field);
  while (std::fgets(line, sizeof line, f))
    if (!std::strncmp(line, field, n) && line[n] == ':')
      value = std::atoll(line + n + 1);
  std::fclose(f);
  return value;
}
/// For the memory probes, blocks of 128 KiB and more are mmapped and
/// unmapped when freed, so a probe sees every call's scratch; for timing,
/// freed blocks stay in the heap for the next call (what a long-running
/// program gets from glibc's dynamic threshold), so no call pays page
/// faults for its scratch.
void probeMalloc(bool probing) {
  size_t threshold = probing ? 128 * 1024 : size_t(1) << 30;
  mallopt(M_MMAP_THRESHOLD, int(std::min<size_t>(threshold, 1u << 30)));
  mallopt(M_TRIM_THRESHOLD, int(std::min<size_t>(threshold, 1u << 30)));
}

double extraMiB(const std::function<void()> &fn) {
  // Free heap memory the timed calls left behind goes back first, so the
  // call cannot shrink the resident set below the base it is measured from.
  malloc_trim(0);
  if (FILE *f = std::fopen("/proc/self/clear_refs", "w")) {
    std::fputs("5", f);
    std::fclose(f);
  }
  int64_t base = statusKiB("VmRSS");
  fn();
  int64_t peak = statusKiB("VmHWM");
  return base < 0 || peak < 0 ? -1.0 : double(peak - base) / 1024.0;
}

static cl::list<int64_t> attnLengths("attn-lengths",
                                     cl::desc("Sequence lengths L"),
                                     cl::CommaSeparated);
static cl::list<int64_t> attnHeadDims("attn-head-dims",
                                      cl::desc("Head dimensions d"),
                                      cl::CommaSeparated);
static cl::opt<int64_t> attnHeads("attn-heads", cl::desc("Heads H"),
                                  cl::init(8));
static cl::opt<int64_t> oursUnfusedMaxL(
    "ours-unfused-max-length",
    cl::desc("Longest L our unfused path (decompose-attention=0) runs at"),
    cl::init(2048));

/// The roofline prediction (accel-roofline's formula on --model-target's
/// figures, a per-core entry scaled to the threads used).
double predictedSeconds(double flops, double bytes) {
  return std::max(flops / (modelPeakGflops * 1e9),
                  bytes / (bandwidthGBs * 1e9));
}

void benchAttention(MLIRContext &ctx) {
  std::vector<int64_t> lengths(attnLengths.begin(), attnLengths.end()),
      dims(attnHeadDims.begin(), attnHeadDims.end());
  if (lengths.empty())
    lengths = quick ? std::vector<int64_t>{256, 512}
                    : std::vector<int64_t>{512, 1024, 2048, 4096, 8192};
  if (dims.empty())
    dims = {64, 128};
  int64_t H = attnHeads;
  llvm::outs() << "\nf32 attention, B = 1, H = " << H << ", Sq = Skv = L, "
               << benchThreads
               << " thread(s); milliseconds per call, best of the samples "
                  "(median)\n"
               << "  fused: accel.attention (FlashAttention-2); ours unf.: "
                  "accel's reference lowering (decompose-attention=0); BLAS "
                  "unf.: OpenBLAS sgemm + softmax + sgemm\n"
               << "  x: BLAS unf. time / fused time; extra MiB: peak resident "
                  "memory a call adds over its inputs and outputs\n";
  llvm::outs() << llvm::formatv(
      "{0,-16} {1,17} {2,17} {3,17} {4,6} {5,7} {6,6} {7,9} {8,9} {9,9} "
      "{10,7} {11,9}\n",
      "L, d, mask", "fused", "ours unf.", "BLAS unf.", "x", "GFLOP/s",
      "%roof", "MiB fused", "MiB ours", "MiB BLAS", "pred.", "meas/pred");
  std::map<std::pair<int64_t, int64_t>, double> nonCausal;
  for (int64_t L : lengths) {
    for (int64_t d : dims) {
      for (bool causal : {false, true}) {
        int64_t n = H * L * d;
        auto q = randomBuffer(n, 3), k = randomBuffer(n, 4),
             v = randomBuffer(n, 5);
        std::vector<float> o(n), oRef(n), oOurs(n), s(L * L);
        std::string t4 = shapeStr({1, H, L, d});
        std::string text =
            "func.func @attn(%q: " + t4 + ", %k: " + t4 + ", %v: " + t4 +
            ", %o: " + t4 + ") -> " + t4 + " {\n  %0 = accel.attention " +
            (causal ? "causal " : "") + "ins(%q, %k, %v : " + t4 + ", " + t4 +
            ", " + t4 + ") outs(%o : " + t4 + ") -> " + t4 +
            "\n  return %0 : " + t4 + "\n}\n";
        AccelKernel fused, ours;
        fused.name = ours.name = "attn";
        if (!compile(ctx, text, fused))
          std::exit(1);
        bool runOurs = L <= oursUnfusedMaxL;
        if (runOurs && !compile(ctx, text, ours, "decompose-attention=0"))
          std::exit(1);
        for (AccelKernel *kern : {&fused, &ours}) {
          float *out = kern == &fused ? o.data() : oOurs.data();
          for (float *p : {q.data(), k.data(), v.data(), out})
            kern->call.addMemref(p, {1, H, L, d});
          kern->call.addResults({4});
        }
        auto base = [&] {
          unfusedAttention(q.data(), k.data(), v.data(), s.data(),
                           oRef.data(), H, L, d, causal);
        };
        std::vector<std::function<void()>> fns = {std::ref(fused), base};
        if (runOurs)
          fns.push_back(std::ref(ours));
        std::vector<Timing> t = timeInterleaved(fns);
        double maxDiff = 0, maxDiffOurs = 0;
        for (int64_t i = 0; i < n; ++i) {
          maxDiff = std::max(maxDiff, double(std::fabs(o[i] - oRef[i])));
          if (runOurs)
            maxDiffOurs =
                std::max(maxDiffOurs, double(std::fabs(oOurs[i] - oRef[i])));
        }
        // Memory: one more call of each, its scratch allocated inside.
        probeMalloc(true);
        double memFused = extraMiB([&] { fused(); });
        double memOurs = runOurs ? extraMiB([&] { ours(); }) : -1;
        s.clear();
        s.shrink_to_fit();
        double memBlas = extraMiB([&] {
          std::vector<float> scratch(L * L);
          unfusedAttention(q.data(), k.data(), v.data(), scratch.data(),
                           oRef.data(), H, L, d, causal);
        });
        probeMalloc(false);
        // FLOPs of the kept pairs: Q·Kᵀ and P·V (2·d each per pair).
        double pairs = causal ? double(L) * double(L + 1) / 2
                              : double(L) * double(L);
        double flop = double(H) * pairs * 4.0 * double(d);
        double bytes = 4.0 * double(n) * 4.0; // Q, K, V read, O written
        // accel-roofline's count: Q·Kᵀ, P·V and 5 softmax FLOPs per pair.
        double modelFlop = double(H) * pairs * (4.0 * double(d) + 5.0);
        double pred = predictedSeconds(modelFlop, bytes);
        auto ms = [](double sec) { return sec * 1e3; };
        std::string oursStr =
            runOurs ? std::string(llvm::formatv("{0,7:f1} ({1,7:f1})",
                                                ms(t[2].best),
                                                ms(t[2].median)))
                    : std::string("-");
        auto mib = [](double m) {
          return m < 0 ? std::string("-")
                       : std::string(llvm::formatv("{0:f1}", m));
        };
        double g = gflops(flop, t[0].best);
        llvm::outs() << llvm::formatv(
            "{0,-16} {1,7:f1} ({2,7:f1}) {3,17} {4,7:f1} ({5,7:f1}) {6,6:f2} "
            "{7,7:f1} {8,5:f0}% {9,9} {10,9} {11,9} {12,7:f1} {13,9:f2}{14}\n",
            std::to_string(L) + ", " + std::to_string(d) +
                (causal ? ", causal" : ""),
            ms(t[0].best), ms(t[0].median), oursStr, ms(t[1].best),
            ms(t[1].median), t[1].best / t[0].best, g,
            100.0 * g / (roofF32 * benchThreads), mib(memFused), mib(memOurs),
            mib(memBlas), ms(pred), t[0].best / pred,
            maxDiff > 1e-4 || maxDiffOurs > 1e-4 ? "  MISMATCH" : "");
        if (!causal)
          nonCausal[{L, d}] = t[0].best;
        else
          llvm::outs() << llvm::formatv(
              "{0,-16} causal is {1:f2}x faster than non-causal (fused)\n", "",
              nonCausal[{L, d}] / t[0].best);
      }
    }
  }
}
/// Rounds f32 to bf16 (nearest even), as the bits.
uint16_t toBf16(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  u += 0x7fff + ((u >> 16) & 1);
  return uint16_t(u >> 16);
}

/// One accel matmul kernel C = A·B of the given element types.
bool matmulKernel(MLIRContext &ctx, AccelKernel &k, int64_t m, int64_t n,
                  int64_t kk, const std::string &in, const std::string &acc,
                  void *a, void *b, void *c) {
  auto t = [](int64_t x, int64_t y, const std::string &e) {
    return "tensor<" + std::to_string(x) + "x" + std::to_string(y) + "x" + e +
           ">";
  };
  std::string ta = t(m, kk, in), tb = t(kk, n, in), tc = t(m, n, acc);
  std::string text = "func.func @mm(%a: " + ta + ", %b: " + tb + ", %c: " +
                     tc + ") -> " + tc + " {\n  %0 = accel.matmul ins(%a, %b : " +
                     ta + ", " + tb + ") outs(%c : " + tc + ") -> " + tc +
                     "\n  return %0 : " + tc + "\n}\n";
  k.name = "mm";
  if (!compile(ctx, text, k))
    return false;
  k.call.addMemref(a, {m, kk});
  k.call.addMemref(b, {kk, n});
  k.call.addMemref(c, {m, n});
  k.call.addResults({2});
  return true;
}

/// bf16 and int8 GEMM next to f32, in accel and in oneDNN (bf16 through
/// its matmul primitive, int8 through dnnl_gemm_s8s8s32).
void benchPrecision(MLIRContext &ctx) {
  std::vector<int64_t> sizes = {256, 512, 1024, 2048};
  if (quick)
    sizes = {256, 512};
  dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(engine);
  llvm::outs() << "\nGEMM by precision, M = N = K, row-major, " << benchThreads
               << " thread(s); GFLOP/s (GOP/s for int8) best of the samples\n"
               << "  bf16 x bf16 -> f32 and int8 x int8 -> int32; ratios: "
                  "accel bf16 / accel f32, accel int8 / accel f32, accel / "
                  "oneDNN in the same precision\n";
  llvm::outs() << llvm::formatv(
      "{0,-6} {1,9} {2,9} {3,9} {4,9} {5,9} {6,9} {7,9} {8,9} {9,9} {10,9}\n",
      "size", "f32", "bf16", "int8", "dnnl f32", "dnnl bf16", "dnnl s8",
      "bf16/f32", "i8/f32", "/dnnl bf", "/dnnl s8");
  for (int64_t sz : sizes) {
    int64_t n = sz * sz;
    auto af = randomBuffer(n, 11), bf = randomBuffer(n, 12);
    std::vector<float> cf(n), cd(n);
    std::vector<uint16_t> ab(n), bb(n);
    std::vector<int8_t> ai(n), bi(n);
    std::vector<int32_t> ci(n), cdi(n);
    std::mt19937 rng(13);
    std::uniform_int_distribution<int> byte(-128, 127);
    for (int64_t i = 0; i < n; ++i) {
      ab[i] = toBf16(af[i]);
      bb[i] = toBf16(bf[i]);
      ai[i] = int8_t(byte(rng));
      bi[i] = int8_t(byte(rng));
    }
    AccelKernel kf, kb, ki;
    if (!matmulKernel(ctx, kf, sz, sz, sz, "f32", "f32", af.data(), bf.data(),
                      cf.data()) ||
        !matmulKernel(ctx, kb, sz, sz, sz, "bf16", "f32", ab.data(), bb.data(),
                      cf.data()) ||
        !matmulKernel(ctx, ki, sz, sz, sz, "i8", "i32", ai.data(), bi.data(),
                      ci.data()))
      std::exit(1);
    // oneDNN bf16 matmul primitive on the same buffers.
    using dt = dnnl::memory::data_type;
    using tag = dnnl::memory::format_tag;
    dnnl::memory::desc aMd({sz, sz}, dt::bf16, tag::ab),
        bMd({sz, sz}, dt::bf16, tag::ab), cMd({sz, sz}, dt::f32, tag::ab);
    dnnl::matmul::primitive_desc pd(
        dnnl::matmul::desc(aMd, bMd, cMd), engine);
    dnnl::matmul prim(pd);
    dnnl::memory aMem(aMd, engine, ab.data()), bMem(bMd, engine, bb.data()),
        cMem(cMd, engine, cd.data());
    auto dnnlBf16 = [&] {
      prim.execute(stream, {{DNNL_ARG_SRC, aMem},
                            {DNNL_ARG_WEIGHTS, bMem},
                            {DNNL_ARG_DST, cMem}});
      stream.wait();
    };
    auto dnnlF32 = [&] {
      dnnl_sgemm('N', 'N', sz, sz, sz, 1.f, af.data(), sz, bf.data(), sz, 0.f,
                 cd.data(), sz);
    };
    int32_t co = 0;
    auto dnnlS8 = [&] {
      dnnl_gemm_s8s8s32('N', 'N', 'F', sz, sz, sz, 1.f, ai.data(), sz, 0,
                        bi.data(), sz, 0, 0.f, cdi.data(), sz, &co);
    };
    std::vector<Timing> t = timeInterleaved(
        {std::ref(kf), std::ref(kb), std::ref(ki), dnnlF32, dnnlBf16, dnnlS8});
    // The int8 results must agree exactly; bf16 to f32 rounding.
    ki();
    dnnlS8();
    bool intOk = ci == cdi;
    kb();
    dnnlBf16();
    double maxDiff = 0;
    for (int64_t i = 0; i < n; ++i)
      maxDiff = std::max(maxDiff, double(std::fabs(cf[i] - cd[i])));
    double flop = 2.0 * double(sz) * sz * sz;
    double g[6];
    for (int i = 0; i < 6; ++i)
      g[i] = gflops(flop, t[i].best);
    llvm::outs() << llvm::formatv(
        "{0,-6} {1,9:f1} {2,9:f1} {3,9:f1} {4,9:f1} {5,9:f1} {6,9:f1} "
        "{7,9:f2} {8,9:f2} {9,9:f2} {10,9:f2}{11}{12}\n",
        sz, g[0], g[1], g[2], g[3], g[4], g[5], g[1] / g[0], g[2] / g[0],
        g[1] / g[4], g[2] / g[5], intOk ? "" : "  INT8 MISMATCH",
        maxDiff > 1e-3 * sz ? "  BF16 MISMATCH" : "");
  }

  // FlashAttention in bf16 (Q, K, V bf16, O f32) next to f32.
  llvm::outs() << "\nFlashAttention-2 by precision, B = 1, H = 8, d = 64, "
               << benchThreads << " thread(s); ms per call, best\n";
  llvm::outs() << llvm::formatv("{0,-8} {1,10} {2,10} {3,10}\n", "L", "f32",
                                "bf16", "f32/bf16");
  for (int64_t L : quick ? std::vector<int64_t>{512}
                         : std::vector<int64_t>{1024, 2048, 4096}) {
    int64_t H = 8, d = 64, n = H * L * d;
    auto q = randomBuffer(n, 3), k = randomBuffer(n, 4), v = randomBuffer(n, 5);
    std::vector<uint16_t> qb(n), kb(n), vb(n);
    for (int64_t i = 0; i < n; ++i) {
      qb[i] = toBf16(q[i]);
      kb[i] = toBf16(k[i]);
      vb[i] = toBf16(v[i]);
    }
    std::vector<float> o(n), ob(n);
    AccelKernel kf, kbf;
    for (auto [kern, elt] : {std::pair<AccelKernel *, std::string>{&kf, "f32"},
                             {&kbf, "bf16"}}) {
      std::string shape = "1x" + std::to_string(H) + "x" + std::to_string(L) +
                          "x" + std::to_string(d);
      std::string ti = "tensor<" + shape + "x" + elt + ">",
                  to = "tensor<" + shape + "xf32>";
      std::string text = "func.func @attn(%q: " + ti + ", %k: " + ti +
                         ", %v: " + ti + ", %o: " + to + ") -> " + to +
                         " {\n  %0 = accel.attention ins(%q, %k, %v : " + ti +
                         ", " + ti + ", " + ti + ") outs(%o : " + to +
                         ") -> " + to + "\n  return %0 : " + to + "\n}\n";
      kern->name = "attn";
      if (!compile(ctx, text, *kern))
        std::exit(1);
      bool isBf16 = elt == "bf16";
      for (void *p : {isBf16 ? (void *)qb.data() : (void *)q.data(),
                      isBf16 ? (void *)kb.data() : (void *)k.data(),
                      isBf16 ? (void *)vb.data() : (void *)v.data()})
        kern->call.addMemref(p, {1, H, L, d});
      kern->call.addMemref(isBf16 ? ob.data() : o.data(), {1, H, L, d});
      kern->call.addResults({4});
    }
    std::vector<Timing> t = timeInterleaved({std::ref(kf), std::ref(kbf)});
    llvm::outs() << llvm::formatv("{0,-8} {1,10:f2} {2,10:f2} {3,10:f2}\n", L,
                                  t[0].best * 1e3, t[1].best * 1e3,
                                  t[0].best / t[1].best);
  }
}

} // namespace

int main(int argc, char **argv) {
  cl::ParseCommandLineOptions(argc, argv,
                              "accel-bench: accel kernels next to oneDNN and "
                              "OpenBLAS in one run\n");
  openblas_set_num_threads(benchThreads);
  probeMalloc(false);
  DialectRegistry registry;
  accel::registerAllAccelDialects(registry);
  registerAllToLLVMIRTranslations(registry);
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  roofF32 = measureF32Roof();
  const accel::TargetSpec *spec = accel::findTargetSpec(modelTarget);
  if (!spec) {
    llvm::errs() << "accel-bench: no catalogue target '" << modelTarget
                 << "'\n";
    return 1;
  }
  // Per core on CPU entries: peak and bandwidth scale with the threads.
  double scale = spec->kind == accel::TargetKind::CPU ? benchThreads : 1;
  bandwidthGBs = spec->memoryGbps * scale;
  modelPeakGflops = spec->peakF32 * 1e3 * scale;
  llvm::outs() << llvm::formatv("accel-bench: predictions from the {0} "
                                "catalogue entry: {1:f1} GFLOP/s f32, {2:f1} "
                                "GB/s\n",
                                modelTarget, modelPeakGflops, bandwidthGBs);
  llvm::outs() << "accel-bench: OpenBLAS core " << openblas_get_corename()
               << ", oneDNN " << dnnl_version()->major << "."
               << dnnl_version()->minor << "." << dnnl_version()->patch
               << llvm::formatv(", measured f32 FMA roof {0:f1} GFLOP/s per "
                                "core\n",
                                roofF32);
  if (mode == "gemm" || mode == "all")
    benchGemm(ctx);
  if (mode == "attention" || mode == "all")
    benchAttention(ctx);
  if (mode == "precision" || mode == "all")
    benchPrecision(ctx);
  return 0;
}
