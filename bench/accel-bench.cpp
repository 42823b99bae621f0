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

#include "accel/Dialect/Accel/IR/AccelAttrs.h"
#include "accel/InitAll.h"
#include "accel/Runtime/JitRunner.h"
#include "accel/Target/Catalogue.h"
#include "accel/Transforms/CpuTuning.h"
#include "accel/Transforms/Passes.h"
#include "accel/Transforms/Roofline.h"
#include "accel/Transforms/Transforms.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <deque>
#include <functional>
#include <malloc.h>
#include <map>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <tuple>
#include <unordered_map>
#include <vector>

#include <cblas.h>
#include <immintrin.h>
#include <omp.h>
#include <oneapi/dnnl/dnnl.h>
#include <oneapi/dnnl/dnnl.hpp>

using namespace mlir;
namespace cl = llvm::cl;

static cl::opt<std::string> mode(
    "mode",
    cl::desc(
        "gemm, attention, precision, all (the three), table "
        "(issue 10's ratios against their goals), tune, or "
        "epilogue (matmuls with fused epilogues against oneDNN's "
        "post-ops), decode (paged decode attention against the memory's read "
        "bandwidth), dequant (weight-only int4/int8 GEMV against "
        "bf16 weights)"),
    cl::init("all"));
static cl::opt<int>
    benchThreads("bench-threads",
                 cl::desc("Threads for every library and for accel"),
                 cl::init(1));
static cl::opt<std::string> extraPipelineOptions(
    "cpu-pipeline-options",
    cl::desc("accel-cpu-pipeline options for every accel kernel, before the "
             "kernel's own (e.g. 'pack-rhs=0' to compare a code-generation "
             "choice)"),
    cl::init(""));
static cl::opt<std::string> epilogueTypes(
    "epilogue-types",
    cl::desc("--mode=epilogue: the tables to run: f32, bf16 or all"),
    cl::init("all"));
static cl::opt<int> samples("samples", cl::desc("Interleaved samples each"),
                            cl::init(7));
static cl::opt<double>
    minSampleMs("min-sample-ms",
                cl::desc("Repeat calls until a sample lasts this long"),
                cl::init(50.0));
static cl::opt<double> cooldownMs(
    "cooldown-ms",
    cl::desc("Multi-threaded timings: idle this long before each sample, then "
             "call the function once untimed, so another OpenMP runtime's "
             "workers have stopped spinning (run.sh: KMP_BLOCKTIME=1) and this "
             "one's are awake when the timed calls start"),
    cl::init(20.0));
static cl::opt<bool> quick("quick",
                           cl::desc("Smaller shapes only (a smoke run)"),
                           cl::init(false));

namespace {
struct Timing {
  double best = 0, median = 0; // seconds per call
};

/// Times `fns` interleaved: each sample runs every function in turn for at
/// least --min-sample-ms, so drift (boost clocks, a neighbour) hits all.
/// `threaded` (default: --bench-threads > 1): before each sample, idle
/// --cooldown-ms and make one untimed call. Back-to-back calls then find
/// their runtime's workers awake, as an application calling a kernel in a
/// loop does, and the previous function's runtime (accel's JIT code uses
/// LLVM's libomp; oneDNN's may differ) no longer spins on the other core.
/// Without it, OMP_WAIT_POLICY=passive was the only way to keep runtimes
/// apart, and it put a futex wake-up (~46 µs per parallel region here,
/// either runtime) on every call.
std::vector<Timing> timeInterleaved(std::vector<std::function<void()>> fns,
                                    std::optional<bool> threaded = {}) {
  bool cool = threaded.value_or(benchThreads > 1) && cooldownMs > 0;
  std::vector<std::vector<double>> per(fns.size());
  std::vector<int> reps(fns.size(), 1);
  for (size_t f = 0; f < fns.size(); ++f) { // warm up, then calibrate
    // The first call is not timed: it can include one-time work (the JIT
    // materialising the kernel, a library creating its primitive), and a
    // calibration on it gave a JIT kernel 1-2 calls a sample, each after
    // the other kernels had evicted its data, against hundreds of warm
    // calls for a library (int8 256³ measured 92-102 µs instead of 79).
    fns[f]();
    auto t0 = std::chrono::steady_clock::now();
    fns[f]();
    double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
            .count();
    reps[f] = std::max(1, int(minSampleMs / 1e3 / std::max(s, 1e-9)));
  }
  // Each sample runs the functions in its own order (a fixed shuffle per
  // sample), so none always follows the same one: on the Xeon vCPU an AMX
  // GEMM right after oneDNN's ran up to 15 % slower than after another of
  // ours (256x4096x4096 bf16), and a fixed order charged that to one
  // column.
  std::vector<size_t> order(fns.size());
  std::iota(order.begin(), order.end(), 0);
  for (int s = 0; s < samples; ++s) {
    std::mt19937 shuffler(unsigned(s) + 1);
    if (s > 0)
      std::shuffle(order.begin(), order.end(), shuffler);
    for (size_t f : order) {
      if (cool) {
        std::this_thread::sleep_for(
            std::chrono::duration<double, std::milli>(cooldownMs));
        fns[f]();
      }
      auto t0 = std::chrono::steady_clock::now();
      for (int r = 0; r < reps[f]; ++r)
        fns[f]();
      double t =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
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

/// Parses `text` and JIT-compiles it on `threads` OpenMP threads (0: the
/// --bench-threads count).
bool compile(MLIRContext &ctx, const std::string &text, AccelKernel &k,
             const std::string &pipelineOptions = "", int threads = 0) {
  k.module = parseSourceString<ModuleOp>(text, &ctx);
  if (!k.module)
    return false;
  accel::AccelCpuPipelineOptions options;
  if (failed(options.parseFromString(extraPipelineOptions + " " +
                                     pipelineOptions))) {
    llvm::errs() << "accel-bench: bad pipeline options '" << pipelineOptions
                 << "'\n";
    return false;
  }
  options.threads = threads > 0 ? threads : int(benchThreads);
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

/// Throughput probes: 16 independent chains of one 512-bit instruction
/// (more than latency x throughput on Zen 4/5), on `threads` threads at
/// once. Zen 5 runs two 512-bit FMAs a cycle (~222 GFLOP/s a core); Zen 4
/// splits each in two (~117): roofs are measured, not assumed.
using ProbeBody = void (*)(long iters, float *sink);

__attribute__((target("avx512f"))) void probeF32(long iters, float *sink) {
  __m512 acc[16];
  for (int i = 0; i < 16; ++i)
    acc[i] = _mm512_set1_ps(0.f);
  const __m512 x = _mm512_set1_ps(1.0000001f), y = _mm512_set1_ps(0.9999999f);
  for (long i = 0; i < iters; ++i)
    for (int j = 0; j < 16; ++j)
      acc[j] = _mm512_fmadd_ps(acc[j], x, y);
  float s = 0;
  for (int j = 0; j < 16; ++j)
    s += _mm512_reduce_add_ps(acc[j]);
  *sink = s;
}

/// Chains of 256-bit FMAs, for hosts without AVX-512 (Zen 3,
/// Haswell-class): 12 chains x 8 lanes x 2 FLOP per iteration. Twelve, not
/// 16: with x and y the chains must fit AVX2's 16 ymm registers (16 chains
/// spilled one each iteration and read ~50 GFLOP/s on a Zen 3 core where
/// OpenBLAS reaches 80), and 12 still cover 2 pipes x 4-5 cycles of
/// latency.
constexpr int kAvx2Chains = 12;
__attribute__((target("avx2,fma"))) void probeF32Avx2(long iters,
                                                      float *sink) {
  __m256 acc[kAvx2Chains];
  for (int i = 0; i < kAvx2Chains; ++i)
    acc[i] = _mm256_set1_ps(0.f);
  const __m256 x = _mm256_set1_ps(1.0000001f), y = _mm256_set1_ps(0.9999999f);
  for (long i = 0; i < iters; ++i)
    for (int j = 0; j < kAvx2Chains; ++j)
      acc[j] = _mm256_fmadd_ps(acc[j], x, y);
  alignas(32) float lanes[8];
  float s = 0;
  for (int j = 0; j < kAvx2Chains; ++j) {
    _mm256_store_ps(lanes, acc[j]);
    for (float l : lanes)
      s += l;
  }
  *sink = s;
}

/// The host's f32 FMA probe and its FLOP per iteration: 512-bit where the
/// host has AVX-512, else 256-bit.
static bool hostHasAvx512() { return __builtin_cpu_supports("avx512f"); }
/// The host's model name (/proc/cpuinfo), or "unknown".
static std::string hostCpuModel() {
  if (FILE *f = std::fopen("/proc/cpuinfo", "r")) {
    char line[512];
    while (std::fgets(line, sizeof line, f)) {
      llvm::StringRef l(line);
      if (l.consume_front("model name")) {
        std::fclose(f);
        return l.ltrim(" \t:").rtrim().str();
      }
    }
    std::fclose(f);
  }
  return "unknown";
}

/// The host's SIMD and matrix features the kernels care about, as LLVM
/// names them (those it has).
static std::string hostSimdFeatures() {
  llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
  std::string out;
  for (const char *f : {"avx2", "fma", "f16c", "avx512f", "avx512bw",
                        "avx512vl", "avx512bf16", "avx512fp16", "avx512vnni",
                        "amx-tile", "amx-bf16", "amx-int8"})
    if (features.lookup(f))
      out += (out.empty() ? "" : ",") + std::string(f);
  return out.empty() ? "none of avx2/avx512/amx" : out;
}

static ProbeBody f32Probe() {
  return hostHasAvx512() ? probeF32 : probeF32Avx2;
}
static double f32ProbeOps() {
  return hostHasAvx512() ? 16 * 32 : kAvx2Chains * 16;
}

/// vdpbf16ps: 16 lanes x 2 products x 2 FLOP = 64 FLOP.
__attribute__((target("avx512f,avx512bf16"))) void probeBf16(long iters,
                                                             float *sink) {
  __m512 acc[16];
  for (int i = 0; i < 16; ++i)
    acc[i] = _mm512_set1_ps(0.f);
  const __m512bh x = (__m512bh)_mm512_set1_epi16(0x3f80); // 1.0
  const __m512bh y = (__m512bh)_mm512_set1_epi16(0x3c00); // 2^-7
  for (long i = 0; i < iters; ++i)
    for (int j = 0; j < 16; ++j)
      acc[j] = _mm512_dpbf16_ps(acc[j], x, y);
  float s = 0;
  for (int j = 0; j < 16; ++j)
    s += _mm512_reduce_add_ps(acc[j]);
  *sink = s;
}

/// vpdpbusd: 16 lanes x 4 products x 2 OP = 128 OP.
__attribute__((target("avx512f,avx512vnni"))) void probeInt8(long iters,
                                                             float *sink) {
  __m512i acc[16];
  for (int i = 0; i < 16; ++i)
    acc[i] = _mm512_setzero_si512();
  const __m512i x = _mm512_set1_epi8(1), y = _mm512_set1_epi8(1);
  for (long i = 0; i < iters; ++i)
    for (int j = 0; j < 16; ++j)
      acc[j] = _mm512_dpbusd_epi32(acc[j], x, y);
  // 64-bit: after probeRate's 2e7 iterations each accumulator sums to
  // 1.28e9, and the 16 of them overflowed an int (UBSan, scripts/sanitize.sh).
  int64_t s = 0;
  for (int j = 0; j < 16; ++j)
    s += _mm512_reduce_add_epi32(acc[j]);
  *sink = float(s);
}

/// AMX: four C tiles accumulating the products of two A and two B tiles
/// held in tile registers (no loads), the limit of accel-cpu-amx-kernels'
/// 32 x 32 block. One tdpbf16ps is 16 x 16 x 32 multiply-adds (16384
/// FLOP), one tdpbssd 16 x 16 x 64 (32768 OP). Each thread configures its
/// own tiles; the process must hold AMX's tile state (requestAmxPermission).
struct AmxTileConfig {
  uint8_t palette = 1, startRow = 0, reserved[14] = {};
  uint16_t colsb[16] = {};
  uint8_t rows[16] = {};
};
template <bool Int8>
__attribute__((target("amx-tile,amx-bf16,amx-int8"))) void probeAmx(long iters,
                                                                    float *sink) {
  AmxTileConfig cfg;
  for (int t = 0; t < 8; ++t) {
    cfg.colsb[t] = 64;
    cfg.rows[t] = 16;
  }
  _tile_loadconfig(&cfg);
  alignas(64) static const uint8_t zeros[16 * 64] = {};
  _tile_loadd(4, zeros, 64);
  _tile_loadd(5, zeros, 64);
  _tile_loadd(6, zeros, 64);
  _tile_loadd(7, zeros, 64);
  _tile_zero(0);
  _tile_zero(1);
  _tile_zero(2);
  _tile_zero(3);
  for (long i = 0; i < iters; ++i) {
    if constexpr (Int8) {
      _tile_dpbssd(0, 4, 6);
      _tile_dpbssd(1, 4, 7);
      _tile_dpbssd(2, 5, 6);
      _tile_dpbssd(3, 5, 7);
    } else {
      _tile_dpbf16ps(0, 4, 6);
      _tile_dpbf16ps(1, 4, 7);
      _tile_dpbf16ps(2, 5, 6);
      _tile_dpbf16ps(3, 5, 7);
    }
  }
  alignas(64) float out[16 * 16];
  _tile_stored(0, out, 64);
  _tile_release();
  *sink = out[0];
}

static bool hostHasAmx() {
  llvm::StringMap<bool> f = llvm::sys::getHostCPUFeatures();
  return f.lookup("amx-tile") && f.lookup("amx-bf16") && f.lookup("amx-int8");
}

/// The inner loop of accel's f32 register tile (6 x 64, the
/// accel-cpu-vectorize-contractions default) with its operands in L1: per
/// k, 4 vectors of B and 6 broadcasts of A feed 24 FMAs. Its rate against
/// the FMA probe is the loop's own limit; the rest of a GEMM's gap is
/// memory (docs/cpu-performance.md).
__attribute__((target("avx512f"))) void probeMicroKernel(long iters,
                                                         float *sink) {
  alignas(64) float a[6 * 64], b[64 * 64];
  for (int i = 0; i < 6 * 64; ++i)
    a[i] = 1e-3f * float(i % 7);
  for (int i = 0; i < 64 * 64; ++i)
    b[i] = 1e-3f * float(i % 5);
  __m512 acc[24];
  for (__m512 &x : acc)
    x = _mm512_setzero_ps();
  for (long it = 0; it < iters; it += 64) {
    for (int k = 0; k < 64; ++k) {
      __m512 bv[4];
      for (int j = 0; j < 4; ++j)
        bv[j] = _mm512_load_ps(b + k * 64 + 16 * j);
      for (int r = 0; r < 6; ++r) {
        __m512 av = _mm512_set1_ps(a[r * 64 + k]);
        for (int j = 0; j < 4; ++j)
          acc[r * 4 + j] = _mm512_fmadd_ps(av, bv[j], acc[r * 4 + j]);
      }
    }
  }
  float s = 0;
  for (__m512 &x : acc)
    s += _mm512_reduce_add_ps(x);
  *sink = s;
}

/// Best of 3 samples, in G(FL)OP/s for all `threads` together; `opsPerIter`
/// counts one thread's iteration (16 instructions).
double probeRate(ProbeBody body, double opsPerIter, int threads) {
  const long iters = 20000000;
  float sinks[64] = {};
  double best = 0;
  for (int s = 0; s < 3; ++s) {
    auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel num_threads(threads)
    body(iters, &sinks[omp_get_thread_num() % 64]);
    double t =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
            .count();
    best = std::max(best, threads * opsPerIter * double(iters) / t / 1e9);
  }
  if (sinks[0] == 12345.f)
    llvm::outs() << "";
  return best;
}

double measureF32Roof() { return probeRate(f32Probe(), f32ProbeOps(), 1); }

static double roofF32 = 0;
/// The catalogue entry whose figures the predicted times use
/// (accel-roofline's model: max(FLOPs / peak, bytes / bandwidth)).
static cl::opt<std::string> modelTarget(
    "model-target",
    cl::desc("Catalogue target whose peak and bandwidth the predicted times "
             "use (empty: the host's class, accel::cpuTargetForFeatures: "
             "x86-64-sapphirerapids with AMX, x86-64-avx512 with AVX-512, "
             "else x86-64-avx2)"),
    cl::init(""));
static double modelPeakGflops = 0;
static double bandwidthGBs = 0;

static cl::list<std::string> gemmShapes(
    "gemm-shapes",
    cl::desc("--mode=gemm: shapes MxNxK, MxNxKt for B transposed (default: "
             "256^3-2048^3 and the attention shapes)"),
    cl::CommaSeparated);

struct Shape {
  int64_t m, n, k;
  bool transB;
};

/// Parses --gemm-shapes; false (after an error message) on a bad entry.
bool parseGemmShapes(std::vector<Shape> &out) {
  for (const std::string &text : gemmShapes) {
    llvm::StringRef rest(text);
    Shape s{0, 0, 0, rest.consume_back("t")};
    llvm::SmallVector<llvm::StringRef> parts;
    rest.split(parts, 'x');
    bool ok = parts.size() == 3 && !parts[0].getAsInteger(10, s.m) &&
              !parts[1].getAsInteger(10, s.n) &&
              !parts[2].getAsInteger(10, s.k) && s.m > 0 && s.n > 0 &&
              s.k > 0 && s.m <= (1 << 16) && s.n <= (1 << 16) &&
              s.k <= (1 << 16);
    if (!ok) {
      llvm::errs() << "accel-bench: bad --gemm-shapes entry '" << text
                   << "' (expected MxNxK or MxNxKt, sizes 1 to 65536)\n";
      return false;
    }
    out.push_back(s);
  }
  return true;
}

void benchGemm(MLIRContext &ctx) {
  std::vector<Shape> shapes = {
      {256, 256, 256, false},    {512, 512, 512, false},
      {1024, 1024, 1024, false}, {2048, 2048, 2048, false},
      {4096, 4096, 64, true},    {4096, 4096, 128, true},
      {4096, 64, 4096, false},   {4096, 128, 4096, false}};
  if (quick)
    shapes = {
        {256, 256, 256, false}, {512, 512, 512, false}, {1024, 1024, 64, true}};
  if (!gemmShapes.empty()) {
    shapes.clear();
    if (!parseGemmShapes(shapes))
      std::exit(1);
  }
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
    std::string tbt = s.transB ? shapeStr({s.n, s.k}) : shapeStr({s.k, s.n});
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
    k.call.addMemref(b.data(), s.transB ? ArrayRef<int64_t>{s.n, s.k}
                                        : ArrayRef<int64_t>{s.k, s.n});
    k.call.addMemref(c.data(), {s.m, s.n});
    k.call.addResults({2});
    char tr = s.transB ? 'T' : 'N';
    int64_t ldb = s.transB ? s.k : s.n;
    auto dnnl = [&] {
      dnnl_sgemm('N', tr, s.m, s.n, s.k, 1.f, a.data(), s.k, b.data(), ldb, 0.f,
                 cRef.data(), s.n);
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
      "L, d, mask", "fused", "ours unf.", "BLAS unf.", "x", "GFLOP/s", "%roof",
      "MiB fused", "MiB ours", "MiB BLAS", "pred.", "meas/pred");
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
          unfusedAttention(q.data(), k.data(), v.data(), s.data(), oRef.data(),
                           H, L, d, causal);
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
        double pairs =
            causal ? double(L) * double(L + 1) / 2 : double(L) * double(L);
        double flop = double(H) * pairs * 4.0 * double(d);
        double bytes = 4.0 * double(n) * 4.0; // Q, K, V read, O written
        // accel-roofline's count: Q·Kᵀ, P·V and 5 softmax FLOPs per pair.
        double modelFlop = double(H) * pairs * (4.0 * double(d) + 5.0);
        double pred = predictedSeconds(modelFlop, bytes);
        auto ms = [](double sec) { return sec * 1e3; };
        std::string oursStr =
            runOurs ? std::string(llvm::formatv("{0,7:f1} ({1,7:f1})",
                                                ms(t[2].best), ms(t[2].median)))
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

/// The f32 value of bf16 bits.
float fromBf16(uint16_t h) {
  uint32_t u = uint32_t(h) << 16;
  float x;
  std::memcpy(&x, &u, 4);
  return x;
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
  std::string text =
      "func.func @mm(%a: " + ta + ", %b: " + tb + ", %c: " + tc + ") -> " + tc +
      " {\n  %0 = accel.matmul ins(%a, %b : " + ta + ", " + tb +
      ") outs(%c : " + tc + ") -> " + tc + "\n  return %0 : " + tc + "\n}\n";
  k.name = "mm";
  if (!compile(ctx, text, k))
    return false;
  k.call.addMemref(a, {m, kk});
  k.call.addMemref(b, {kk, n});
  k.call.addMemref(c, {m, n});
  k.call.addResults({2});
  return true;
}

/// Why oneDNN cannot create the matmul `d` with `attr` here (empty when it
/// can; its bf16 matmul needs AVX-512, so an AVX2 CPU has none). Asked
/// through the C API: this file is built without exceptions, and the C++
/// API's constructors then exit on such an error.
std::string dnnlMatmulMissing(const dnnl::engine &engine,
                              const dnnl::matmul::desc &d,
                              const dnnl::primitive_attr &attr,
                              dnnl::memory::data_type in) {
  dnnl_primitive_desc_t pd = nullptr;
  dnnl_status_t st = dnnl_primitive_desc_create(&pd, &d.data, attr.get(),
                                                engine.get(), nullptr);
  if (st == dnnl_success) {
    dnnl_primitive_desc_destroy(pd);
    return "";
  }
  const char *type = in == dnnl::memory::data_type::bf16 ? "bf16"
                     : in == dnnl::memory::data_type::s8 ? "s8"
                                                         : "f32";
  return llvm::formatv("oneDNN {0}.{1}.{2} has no {3} matmul on this CPU "
                       "(status {4})",
                       dnnl_version()->major, dnnl_version()->minor,
                       dnnl_version()->patch, type, int(st))
      .str();
}

/// C = A · B in f32 through dnnl_sgemm, A and B bf16 values widened: the
/// products a bf16 matmul with f32 sums computes (only the summation order
/// differs), the check where oneDNN has no bf16 matmul.
void sgemmOfBf16(int64_t m, int64_t n, int64_t k, const uint16_t *a,
                 const uint16_t *b, float *c) {
  std::vector<float> af(size_t(m) * k), bf(size_t(k) * n);
  for (size_t i = 0; i < af.size(); ++i)
    af[i] = fromBf16(a[i]);
  for (size_t i = 0; i < bf.size(); ++i)
    bf[i] = fromBf16(b[i]);
  dnnl_sgemm('N', 'N', m, n, k, 1.f, af.data(), k, bf.data(), n, 0.f, c, n);
}

/// Entries of the n x n int32 product C = A · B (row-major int8 A and B)
/// that differ from the exact sums, of 4096 drawn at random (all of them
/// for n <= 64): the int8 results' check. oneDNN's own s8 matmul is not
/// exact on a CPU without VNNI (2.6.3 on AVX2 sums u8 x s8 pairs in
/// saturating 16 bits: 64986 of 65536 entries wrong at 256³ on Zen 3).
int64_t int8Wrong(int64_t n, const int8_t *a, const int8_t *b,
                  const int32_t *c) {
  std::mt19937_64 rng(n);
  std::uniform_int_distribution<int64_t> index(0, n - 1);
  int64_t wrong = 0, entries = n <= 64 ? n * n : 4096;
  for (int64_t e = 0; e < entries; ++e) {
    int64_t i = n <= 64 ? e / n : index(rng), j = n <= 64 ? e % n : index(rng);
    int64_t sum = 0;
    for (int64_t k = 0; k < n; ++k)
      sum += int64_t(a[i * n + k]) * b[k * n + j];
    wrong += sum != c[i * n + j];
  }
  return wrong;
}

/// oneDNN's matmul primitive C = A·B on the given buffers, row-major.
struct DnnlMatmul {
  dnnl::matmul prim;
  dnnl::memory a, b, c;
  dnnl::stream *stream = nullptr;
  std::string impl;
  /// Why oneDNN has no such matmul here (empty when it has): its bf16
  /// matmul needs AVX-512 (an AVX2 CPU has none). Calls then do nothing.
  std::string missing;

  DnnlMatmul(dnnl::engine &engine, dnnl::stream &s, int64_t m, int64_t n,
             int64_t k, dnnl::memory::data_type in, dnnl::memory::data_type out,
             void *pa, void *pb, void *pc)
      : stream(&s) {
    using tag = dnnl::memory::format_tag;
    dnnl::memory::desc aMd({m, k}, in, tag::ab), bMd({k, n}, in, tag::ab),
        cMd({m, n}, out, tag::ab);
    dnnl::matmul::desc desc(aMd, bMd, cMd);
    missing = dnnlMatmulMissing(engine, desc, dnnl::primitive_attr(), in);
    if (!missing.empty())
      return;
    dnnl::matmul::primitive_desc pd(desc, engine);
    impl = pd.impl_info_str();
    prim = dnnl::matmul(pd);
    a = dnnl::memory(aMd, engine, pa);
    b = dnnl::memory(bMd, engine, pb);
    c = dnnl::memory(cMd, engine, pc);
  }
  void operator()() {
    if (!missing.empty())
      return;
    prim.execute(*stream,
                 {{DNNL_ARG_SRC, a}, {DNNL_ARG_WEIGHTS, b}, {DNNL_ARG_DST, c}});
    stream->wait();
  }
};

/// bf16 and int8 GEMM next to f32, in accel and in oneDNN (bf16 and int8
/// through its matmul primitive).
void benchPrecision(MLIRContext &ctx) {
  std::vector<int64_t> sizes = {256, 512, 1024, 2048};
  if (quick)
    sizes = {256, 512};
  dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(engine);
  // The roofs of the instructions accel's bf16 and int8 kernels use, on
  // this CPU, in this run: AMX's tile products where it has them, else
  // AVX-512's dot products.
  double roofBf16 = 0, roofInt8 = 0;
  std::string roofKind;
  if (hostHasAmx() && !llvm::errorToBool(accel::requestAmxPermission())) {
    roofKind = "AMX tdpbf16ps / tdpbssd";
    roofBf16 = probeRate(probeAmx<false>, 4 * 16384, benchThreads);
    roofInt8 = probeRate(probeAmx<true>, 4 * 32768, benchThreads);
  } else if (__builtin_cpu_supports("avx512bf16") &&
             __builtin_cpu_supports("avx512vnni")) {
    roofKind = "vdpbf16ps / vpdpbusd";
    roofBf16 = probeRate(probeBf16, 16 * 64, benchThreads);
    roofInt8 = probeRate(probeInt8, 16 * 128, benchThreads);
  }
  llvm::outs() << "\nGEMM by precision, M = N = K, row-major, " << benchThreads
               << " thread(s); GFLOP/s (GOP/s for int8) best of the samples\n"
               << "  bf16 x bf16 -> f32 and int8 x int8 -> int32; ratios: "
                  "accel bf16 / accel f32, accel int8 / accel f32, accel / "
                  "oneDNN in the same precision\n";
  llvm::outs() << llvm::formatv(
      "{0,-6} {1,9} {2,9} {3,9} {4,9} {5,9} {6,9} {7,9} {8,9} {9,9} {10,9}\n",
      "size", "f32", "bf16", "int8", "dnnl f32", "dnnl bf16", "dnnl s8",
      "bf16/f32", "i8/f32", "/dnnl bf", "/dnnl s8");
  std::vector<std::string> roofShares;
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
    // oneDNN bf16 matmul primitive on the same buffers (none on a CPU
    // without AVX-512: its column is n/a and accel's bf16 is checked
    // against dnnl_sgemm on the bf16 values).
    using dt = dnnl::memory::data_type;
    DnnlMatmul dnnlBf16(engine, stream, sz, sz, sz, dt::bf16, dt::f32,
                        ab.data(), bb.data(), cd.data());
    if (!dnnlBf16.missing.empty() && sz == sizes.front())
      llvm::outs() << "(" << dnnlBf16.missing << ": its columns are n/a)\n";
    auto dnnlF32 = [&] {
      dnnl_sgemm('N', 'N', sz, sz, sz, 1.f, af.data(), sz, bf.data(), sz, 0.f,
                 cd.data(), sz);
    };
    // oneDNN s8 x s8 -> s32 through its matmul primitive on the same plain
    // row-major buffers (AMX where the CPU has it; dnnl_gemm_s8s8s32, the
    // BLAS-style call, ran at a third of it on a Sapphire Rapids core).
    DnnlMatmul dnnlS8(engine, stream, sz, sz, sz, dt::s8, dt::s32, ai.data(),
                      bi.data(), cdi.data());
    std::vector<Timing> t =
        timeInterleaved({std::ref(kf), std::ref(kb), std::ref(ki), dnnlF32,
                         std::ref(dnnlBf16), std::ref(dnnlS8)});
    // The int8 results must be exact (sampled; oneDNN's is reported, not
    // trusted: it saturates without VNNI); bf16 to f32 rounding.
    ki();
    dnnlS8();
    bool intOk = int8Wrong(sz, ai.data(), bi.data(), ci.data()) == 0;
    if (int64_t w = int8Wrong(sz, ai.data(), bi.data(), cdi.data()))
      llvm::outs() << "(oneDNN's s8 matmul is not exact here: " << w
                   << " of the sampled entries wrong)\n";
    kb();
    dnnlBf16();
    if (!dnnlBf16.missing.empty())
      sgemmOfBf16(sz, sz, sz, ab.data(), bb.data(), cd.data());
    double maxDiff = 0;
    for (int64_t i = 0; i < n; ++i)
      maxDiff = std::max(maxDiff, double(std::fabs(cf[i] - cd[i])));
    double flop = 2.0 * double(sz) * sz * sz;
    double g[6];
    for (int i = 0; i < 6; ++i)
      g[i] = gflops(flop, t[i].best);
    const bool noBf16 = !dnnlBf16.missing.empty();
    llvm::outs() << llvm::formatv(
        "{0,-6} {1,9:f1} {2,9:f1} {3,9:f1} {4,9:f1} {5,9} {6,9:f1} "
        "{7,9:f2} {8,9:f2} {9,9} {10,9:f2}{11}{12}\n",
        sz, g[0], g[1], g[2], g[3],
        noBf16 ? "n/a" : llvm::formatv("{0:f1}", g[4]).str(), g[5], g[1] / g[0],
        g[2] / g[0],
        noBf16 ? "n/a" : llvm::formatv("{0:f2}", g[1] / g[4]).str(),
        g[2] / g[5], intOk ? "" : "  INT8 MISMATCH",
        maxDiff > 1e-3 * sz ? "  BF16 MISMATCH" : "");
    roofShares.push_back(
        llvm::formatv("{0}: bf16 {1:f0} % (oneDNN {2:f0} %), int8 {3:f0} % "
                      "(oneDNN {4:f0} %)",
                      sz, 100 * g[1] / roofBf16, 100 * g[4] / roofBf16,
                      100 * g[2] / roofInt8, 100 * g[5] / roofInt8)
            .str());
  }
  if (roofBf16 > 0) {
    llvm::outs() << llvm::formatv(
        "  measured roofs in this run ({0} thread(s), {1}): bf16 {2:f1} "
        "GFLOP/s, int8 {3:f1} GOP/s; of them:\n",
        benchThreads, roofKind, roofBf16, roofInt8);
    for (const std::string &line : roofShares)
      llvm::outs() << "    " << line << "\n";
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
    for (auto [kern, elt] :
         {std::pair<AccelKernel *, std::string>{&kf, "f32"}, {&kbf, "bf16"}}) {
      std::string shape = "1x" + std::to_string(H) + "x" + std::to_string(L) +
                          "x" + std::to_string(d);
      std::string ti = "tensor<" + shape + "x" + elt + ">",
                  to = "tensor<" + shape + "xf32>";
      std::string text = "func.func @attn(%q: " + ti + ", %k: " + ti +
                         ", %v: " + ti + ", %o: " + to + ") -> " + to +
                         " {\n  %0 = accel.attention ins(%q, %k, %v : " + ti +
                         ", " + ti + ", " + ti + ") outs(%o : " + to + ") -> " +
                         to + "\n  return %0 : " + to + "\n}\n";
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

//===----------------------------------------------------------------------===//
// --mode=table: the table of issue 10 in one run
//===----------------------------------------------------------------------===//

static cl::opt<double> min2tProbeRatio(
    "min-2t-probe-ratio",
    cl::desc("--mode=table: discard the 2-thread row when the 2-thread FMA "
             "probe is below this multiple of the 1-thread one (the second "
             "vCPU was not a whole core)"),
    cl::init(1.8));
static cl::opt<double> goalScale(
    "goal-scale",
    cl::desc("--mode=table: multiply every goal by this (tests: 0 and a "
             "huge value make each verdict known in advance)"),
    cl::init(1.0), cl::Hidden);
static cl::opt<std::string> rooflineSvg(
    "roofline",
    cl::desc("--mode=table: also write an SVG roofline (FILE.svg) of every "
             "kernel of the per-kernel table: its measured G(FL)OP/s per core "
             "beside the model's, under the roofs measured in the same run"),
    cl::value_desc("FILE.svg"), cl::init(""));
static cl::opt<int> compileReps(
    "compile-reps",
    cl::desc("--mode=table: compiles per kernel for the compile-time rows "
             "(median); 0: 5, or 3 with --quick"),
    cl::init(0));

/// One accel kernel's measurement, for the per-kernel table: its fraction
/// of the measured roof of its precision and the roofline model's time.
struct KernelRecord {
  std::string kernel, shape;
  int threads;
  double flop, modelFlop, bytes;
  Timing time;
  /// Measured roof (read when the table is printed: the f32 one is probed
  /// again at the end) and the catalogue's peak, G(FL)OP/s per core, of the
  /// kernel's precision.
  const double *roof;
  double modelPeak;
  std::string reference;
  Timing refTime;
};

/// One shape's ratio (candidate ÷ reference speed) of bests and of medians.
struct ShapeRatio {
  std::string shape;
  double best, median;
  bool valid = true;
};

/// One line of the table.
struct TableRow {
  TableRow(std::string ratio, std::string goalText, double goal,
           bool atMost = false)
      : ratio(std::move(ratio)), goalText(std::move(goalText)), goal(goal),
        atMost(atMost) {}
  std::string ratio, goalText;
  double goal;
  /// Ratios must reach `goal`; with `atMost`, values must stay at or below.
  bool atMost;
  std::vector<ShapeRatio> values;
  /// Set when the row is not measured validly (discarded, wrong results).
  std::string note;
  std::string unit;
};

struct GemmShape {
  int64_t m, n, k;
  bool transB;
  /// For the Markdown table: 256³, 4096×4096×64 Bᵀ.
  std::string label() const {
    if (m == n && n == k && !transB)
      return std::to_string(m) + "³";
    return std::to_string(m) + "×" + std::to_string(n) + "×" +
           std::to_string(k) + (transB ? " Bᵀ" : "");
  }
  /// For the progress lines (aligned, ASCII).
  std::string ascii() const {
    return std::to_string(m) + "x" + std::to_string(n) + "x" +
           std::to_string(k) + (transB ? " Bt" : "");
  }
};

std::string matmulText(const GemmShape &s, const std::string &in,
                       const std::string &acc) {
  auto t = [](int64_t x, int64_t y, const std::string &e) {
    return "tensor<" + std::to_string(x) + "x" + std::to_string(y) + "x" + e +
           ">";
  };
  std::string ta = t(s.m, s.k, in),
              tb = s.transB ? t(s.n, s.k, in) : t(s.k, s.n, in),
              tc = t(s.m, s.n, acc);
  return "func.func @mm(%a: " + ta + ", %b: " + tb + ", %c: " + tc + ") -> " +
         tc + " {\n  %0 = accel.matmul " + (s.transB ? "transpose_b " : "") +
         "ins(%a, %b : " + ta + ", " + tb + ") outs(%c : " + tc + ") -> " + tc +
         "\n  return %0 : " + tc + "\n}\n";
}

std::string attentionText(int64_t heads, int64_t L, int64_t d, bool causal) {
  std::string t = shapeStr({1, heads, L, d});
  return "func.func @attn(%q: " + t + ", %k: " + t + ", %v: " + t +
         ", %o: " + t + ") -> " + t + " {\n  %0 = accel.attention " +
         (causal ? "causal " : "") + "ins(%q, %k, %v : " + t + ", " + t + ", " +
         t + ") outs(%o : " + t + ") -> " + t + "\n  return %0 : " + t +
         "\n}\n";
}

/// accel GEMM C = A·B (or A·Bᵀ) on the given buffers.
void buildMatmul(MLIRContext &ctx, AccelKernel &k, const GemmShape &s,
                 const std::string &in, const std::string &acc, void *a,
                 void *b, void *c, int threads = 1) {
  k.name = "mm";
  if (!compile(ctx, matmulText(s, in, acc), k, "", threads))
    std::exit(1);
  k.call.addMemref(a, {s.m, s.k});
  k.call.addMemref(b, s.transB ? ArrayRef<int64_t>{s.n, s.k}
                               : ArrayRef<int64_t>{s.k, s.n});
  k.call.addMemref(c, {s.m, s.n});
  k.call.addResults({2});
}

double maxAbs(const float *p, size_t n) {
  double m = 0;
  for (size_t i = 0; i < n; ++i)
    m = std::max(m, double(std::fabs(p[i])));
  return m;
}
double maxAbsDiff(const float *x, const float *y, size_t n) {
  double m = 0;
  for (size_t i = 0; i < n; ++i)
    m = std::max(m, double(std::fabs(x[i] - y[i])));
  return m;
}

/// oneDNN's matmul with the epilogue as its bias argument and post-ops (an
/// eltwise activation, then optionally a binary add of a residual): the
/// library's own fused form, the strongest reference for a fused epilogue.
struct DnnlMatmulPostOps {
  dnnl::matmul prim;
  dnnl::memory a, b, bias, c, residual;
  dnnl::stream *stream = nullptr;
  std::string impl;
  /// As DnnlMatmul's: why oneDNN has no such matmul here.
  std::string missing;

  DnnlMatmulPostOps(dnnl::engine &engine, dnnl::stream &s, int64_t m, int64_t n,
                    int64_t k, dnnl::algorithm activation, void *pa, void *pb,
                    void *pbias, void *presidual, void *pc,
                    dnnl::memory::data_type in = dnnl::memory::data_type::f32,
                    dnnl::memory::data_type out = dnnl::memory::data_type::f32)
      : stream(&s) {
    using tag = dnnl::memory::format_tag;
    using dt = dnnl::memory::data_type;
    dnnl::memory::desc aMd({m, k}, in, tag::ab), bMd({k, n}, in, tag::ab),
        biasMd({1, n}, dt::f32, tag::ab), cMd({m, n}, out, tag::ab);
    dnnl::post_ops ops;
    ops.append_eltwise(1.f, activation, 0.f, 0.f);
    if (presidual)
      ops.append_binary(dnnl::algorithm::binary_add,
                        dnnl::memory::desc({m, n}, dt::f32, tag::ab));
    dnnl::primitive_attr attr;
    attr.set_post_ops(ops);
    dnnl::matmul::desc desc(aMd, bMd, biasMd, cMd);
    missing = dnnlMatmulMissing(engine, desc, attr, in);
    if (!missing.empty())
      return;
    dnnl::matmul::primitive_desc pd(desc, attr, engine);
    impl = pd.impl_info_str();
    prim = dnnl::matmul(pd);
    a = dnnl::memory(aMd, engine, pa);
    b = dnnl::memory(bMd, engine, pb);
    bias = dnnl::memory(biasMd, engine, pbias);
    c = dnnl::memory(cMd, engine, pc);
    if (presidual)
      residual = dnnl::memory(dnnl::memory::desc({m, n}, dt::f32, tag::ab),
                              engine, presidual);
  }
  void operator()() {
    if (!missing.empty())
      return;
    std::unordered_map<int, dnnl::memory> args = {{DNNL_ARG_SRC, a},
                                                  {DNNL_ARG_WEIGHTS, b},
                                                  {DNNL_ARG_BIAS, bias},
                                                  {DNNL_ARG_DST, c}};
    if (residual)
      args[DNNL_ARG_ATTR_MULTIPLE_POST_OP(1) | DNNL_ARG_SRC_1] = residual;
    prim.execute(*stream, args);
    stream->wait();
  }
};

/// A matmul (A and B of element type `in`, C f32) with an in-place
/// epilogue (accel-fuse-epilogues's form): bias then ReLU (kind 0), bias
/// then GELU (erf, kind 1), or bias, GELU (tanh) and a residual add (kind
/// 2); kind 3: bias then ReLU out of place, rounded to bf16 into the out
/// argument %d (C a zero-filled temporary, as a frontend's Linear in bf16
/// emits it). Without `epilogue`, the matmul alone.
std::string epilogueText(const Shape &s, int kind, bool epilogue,
                         const std::string &in = "f32") {
  bool tanhResidual = kind == 2;
  auto typed = [&](int64_t x, int64_t y, const std::string &e) {
    return "tensor<" + std::to_string(x) + "x" + std::to_string(y) + "x" + e +
           ">";
  };
  std::string ta = typed(s.m, s.k, in), tb = typed(s.k, s.n, in),
              tc = shapeStr({s.m, s.n});
  std::string tbias = "tensor<" + std::to_string(s.n) + "xf32>";
  if (kind == 3 && epilogue) {
    std::string td = typed(s.m, s.n, "bf16");
    return "#id = affine_map<(d0, d1) -> (d0, d1)>\n"
           "#col = affine_map<(d0, d1) -> (d1)>\n"
           "func.func @mm(%a: " +
           ta + ", %b: " + tb + ", %bias: " + tbias + ", %d: " + td + ") -> " +
           td +
           " {\n  %z = arith.constant 0.0 : f32\n"
           "  %e = tensor.empty() : " +
           tc +
           "\n"
           "  %c = linalg.fill ins(%z : f32) outs(%e : " +
           tc + ") -> " + tc + "\n  %0 = accel.matmul ins(%a, %b : " + ta +
           ", " + tb + ") outs(%c : " + tc + ") -> " + tc +
           "\n"
           "  %1 = linalg.generic {indexing_maps = [#id, #col, #id], "
           "iterator_types = [\"parallel\", \"parallel\"]} ins(%0, %bias : " +
           tc + ", " + tbias + ") outs(%d : " + td +
           ") {\n"
           "  ^bb0(%acc: f32, %bv: f32, %o: bf16):\n"
           "    %x = arith.addf %acc, %bv : f32\n"
           "    %zero = arith.constant 0.0 : f32\n"
           "    %g = arith.maximumf %x, %zero : f32\n"
           "    %t = arith.truncf %g : f32 to bf16\n"
           "    linalg.yield %t : bf16\n  } -> " +
           td +
           "\n"
           "  return %1 : " +
           td + "\n}\n";
  }
  std::string text =
      "#id = affine_map<(d0, d1) -> (d0, d1)>\n"
      "#col = affine_map<(d0, d1) -> (d1)>\n"
      "func.func @mm(%a: " + ta + ", %b: " + tb + ", %bias: " + tbias +
      (tanhResidual ? ", %r: " + tc : std::string()) + ", %c: " + tc +
      ") -> " + tc + " {\n  %0 = accel.matmul ins(%a, %b : " + ta + ", " +
      tb + ") outs(%c : " + tc + ") -> " + tc + "\n";
  if (!epilogue)
    return text + "  return %0 : " + tc + "\n}\n";
  text += "  %1 = linalg.generic {indexing_maps = [#col, " +
          std::string(tanhResidual ? "#id, " : "") +
          "#id], iterator_types = [\"parallel\", \"parallel\"]} ins(%bias" +
          (tanhResidual ? ", %r : " + tbias + ", " + tc : " : " + tbias) +
          ") outs(%0 : " + tc + ") {\n" +
          (tanhResidual ? "  ^bb0(%bv: f32, %rv: f32, %acc: f32):\n"
                        : "  ^bb0(%bv: f32, %acc: f32):\n") +
          "    %half = arith.constant 0.5 : f32\n"
          "    %one = arith.constant 1.0 : f32\n"
          "    %x = arith.addf %acc, %bv : f32\n";
  if (kind == 0) {
    text += "    %zero = arith.constant 0.0 : f32\n"
            "    %g = arith.maximumf %x, %zero : f32\n"
            "    linalg.yield %g : f32\n";
    return text + "  } -> " + tc + "\n  return %1 : " + tc + "\n}\n";
  }
  if (tanhResidual)
    text += "    %k0 = arith.constant 0.797884583 : f32\n"
            "    %k1 = arith.constant 0.044715 : f32\n"
            "    %x2 = arith.mulf %x, %x : f32\n"
            "    %x3 = arith.mulf %x2, %x : f32\n"
            "    %cx3 = arith.mulf %x3, %k1 : f32\n"
            "    %in = arith.addf %x, %cx3 : f32\n"
            "    %arg = arith.mulf %in, %k0 : f32\n"
            "    %f = math.tanh %arg : f32\n";
  else
    text += "    %rsqrt2 = arith.constant 0.707106769 : f32\n"
            "    %arg = arith.mulf %x, %rsqrt2 : f32\n"
            "    %f = math.erf %arg : f32\n";
  text += "    %p = arith.addf %f, %one : f32\n"
          "    %h = arith.mulf %x, %half : f32\n"
          "    %g = arith.mulf %h, %p : f32\n";
  text += tanhResidual ? "    %y = arith.addf %g, %rv : f32\n"
                         "    linalg.yield %y : f32\n"
                       : "    linalg.yield %g : f32\n";
  return text + "  } -> " + tc + "\n  return %1 : " + tc + "\n}\n";
}

/// Fused epilogues: accel as configured (cheap epilogues on the C register
/// tiles, expensive ones a separate pass), accel with every epilogue on the
/// register tiles (fuse-expensive-epilogues=1), accel with it as a second
/// pass over C (fuse-epilogues=0), the matmul alone, and oneDNN's matmul
/// with bias and post-ops.
/// The epilogue tables' shapes: `defaults`, one small shape with --quick,
/// or --gemm-shapes.
std::vector<Shape> epilogueShapes(std::vector<Shape> defaults) {
  if (quick)
    defaults = {{256, 256, 256, false}};
  if (!gemmShapes.empty()) {
    defaults.clear();
    if (!parseGemmShapes(defaults))
      std::exit(1);
  }
  return defaults;
}

void benchEpilogue(MLIRContext &ctx) {
  std::vector<Shape> shapes = epilogueShapes({{256, 1024, 1024, false},
                                              {1024, 1024, 1024, false},
                                              {128, 4096, 1024, false},
                                              {2048, 1024, 256, false}});
  dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(engine);
  llvm::outs() << "\nf32 matmul + epilogue, row-major, " << benchThreads
               << " thread(s); GFLOP/s of the matmul, best (median)\n";
  llvm::outs() << llvm::formatv(
      "{0,-16} {1,-20} {2,15} {3,15} {4,15} {5,15} {6,15} {7,9} {8,9} {9,9} "
      "{10,9}\n",
      "M x N x K", "epilogue", "accel", "in registers", "unfused",
      "matmul alone", "oneDNN post-ops", "/unfused", "reg/unf",
      "/oneDNN", "/alone");
  for (const Shape &s : shapes) {
    if (s.transB)
      continue;
    for (int kind : {0, 1, 2}) {
      bool tanhResidual = kind == 2;
      auto a = randomBuffer(s.m * s.k, 1), b = randomBuffer(s.k * s.n, 2),
           bias = randomBuffer(s.n, 3), r = randomBuffer(s.m * s.n, 4);
      std::vector<float> c0(s.m * s.n), c1(s.m * s.n), c2(s.m * s.n),
          c3(s.m * s.n), cRef(s.m * s.n);
      AccelKernel fused, unfused, alone, forced;
      std::string text = epilogueText(s, kind, true);
      for (auto [k, options, out, epi] :
           {std::tuple{&fused, "", &c0, true},
            std::tuple{&forced, "fuse-expensive-epilogues=1", &c3, true},
            std::tuple{&unfused, "fuse-epilogues=0", &c1, true},
            std::tuple{&alone, "", &c2, false}}) {
        k->name = "mm";
        if (!compile(ctx, epi ? text : epilogueText(s, 0, false), *k,
                     options))
          std::exit(1);
        k->call.addMemref(a.data(), {s.m, s.k});
        k->call.addMemref(b.data(), {s.k, s.n});
        k->call.addMemref(bias.data(), {s.n});
        if (epi && tanhResidual)
          k->call.addMemref(r.data(), {s.m, s.n});
        k->call.addMemref(out->data(), {s.m, s.n});
        k->call.addResults({2});
      }
      DnnlMatmulPostOps dnnl(
          engine, stream, s.m, s.n, s.k,
          kind == 0   ? dnnl::algorithm::eltwise_relu
          : kind == 1 ? dnnl::algorithm::eltwise_gelu_erf
                      : dnnl::algorithm::eltwise_gelu_tanh,
          a.data(), b.data(), bias.data(),
          tanhResidual ? r.data() : nullptr, cRef.data());
      std::vector<Timing> t =
          timeInterleaved({std::ref(fused), std::ref(forced), std::ref(unfused),
                           std::ref(alone), std::ref(dnnl)});
      // Every accel variant against oneDNN's result.
      fused();
      forced();
      unfused();
      dnnl();
      double scale = std::max(1.0, maxAbs(cRef.data(), cRef.size()));
      double diff = 0;
      for (const std::vector<float> *c : {&c0, &c1, &c3})
        diff = std::max(diff, maxAbsDiff(c->data(), cRef.data(), c->size()));
      double flop = 2.0 * s.m * s.n * s.k;
      double g[5];
      for (int i = 0; i < 5; ++i)
        g[i] = gflops(flop, t[i].best);
      llvm::outs() << llvm::formatv(
          "{0,-16} {1,-20} {2,6:f1} ({3,6:f1}) {4,6:f1} ({5,6:f1}) {6,6:f1} "
          "({7,6:f1}) {8,6:f1} ({9,6:f1}) {10,6:f1} ({11,6:f1}) {12,9:f2} "
          "{13,9:f2} {14,9:f2} {15,9:f2}{16}\n",
          std::to_string(s.m) + "x" + std::to_string(s.n) + "x" +
              std::to_string(s.k),
          kind == 0   ? "bias+relu"
          : kind == 1 ? "bias+gelu_erf"
                      : "bias+gelu_tanh+res",
          g[0], gflops(flop, t[0].median), g[1], gflops(flop, t[1].median),
          g[2], gflops(flop, t[2].median), g[3], gflops(flop, t[3].median),
          g[4], gflops(flop, t[4].median), g[0] / g[2], g[1] / g[2],
          g[0] / g[4], g[0] / g[3],
          diff > 1e-4 * s.k * scale ? "  MISMATCH" : "");
    }
  }
}

/// Fused epilogues after bf16 matmuls (AMX on Intel, the AVX512-BF16 dot
/// kernels elsewhere): accel as configured, accel with the epilogue as a
/// second pass over C (fuse-epilogues=0), the matmul alone, and oneDNN's
/// bf16 matmul with bias and post-ops (f32 or bf16 result).
void benchEpilogueBf16(MLIRContext &ctx) {
  std::vector<Shape> shapes = epilogueShapes({{1024, 1024, 1024, false},
                                              {2048, 2048, 2048, false},
                                              {4096, 4096, 4096, false},
                                              {256, 4096, 4096, false}});
  dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(engine);
  using dt = dnnl::memory::data_type;
  llvm::outs() << "\nbf16 matmul (f32 sums) + epilogue, row-major, "
               << benchThreads
               << " thread(s); GFLOP/s of the matmul, best (median)\n";
  llvm::outs() << llvm::formatv(
      "{0,-16} {1,-20} {2,15} {3,15} {4,15} {5,15} {6,9} {7,9} {8,9}\n",
      "M x N x K", "epilogue", "accel", "unfused", "matmul alone",
      "oneDNN post-ops", "/unfused", "/oneDNN", "/alone");
  for (const Shape &s : shapes) {
    if (s.transB)
      continue;
    for (int kind : {0, 1, 2, 3}) {
      bool residual = kind == 2, castOut = kind == 3;
      auto af = randomBuffer(s.m * s.k, 1), bf = randomBuffer(s.k * s.n, 2),
           bias = randomBuffer(s.n, 3), r = randomBuffer(s.m * s.n, 4);
      std::vector<uint16_t> a(af.size()), b(bf.size());
      for (size_t i = 0; i < af.size(); ++i)
        a[i] = toBf16(af[i]);
      for (size_t i = 0; i < bf.size(); ++i)
        b[i] = toBf16(bf[i]);
      size_t mn = size_t(s.m) * s.n;
      std::vector<float> c0(mn), c1(mn), c2(mn), cRef(mn);
      std::vector<uint16_t> d0(mn), d1(mn), dRef(mn);
      AccelKernel fused, unfused, alone;
      for (auto [k, options, f32Out, bf16Out, epi] :
           {std::tuple{&fused, "", &c0, &d0, true},
            std::tuple{&unfused, "fuse-epilogues=0", &c1, &d1, true},
            std::tuple{&alone, "", &c2, &d0, false}}) {
        k->name = "mm";
        if (!compile(ctx, epilogueText(s, epi ? kind : 0, epi, "bf16"), *k,
                     options))
          std::exit(1);
        k->call.addMemref(a.data(), {s.m, s.k});
        k->call.addMemref(b.data(), {s.k, s.n});
        k->call.addMemref(bias.data(), {s.n});
        if (epi && residual)
          k->call.addMemref(r.data(), {s.m, s.n});
        if (epi && castOut)
          k->call.addMemref(bf16Out->data(), {s.m, s.n});
        else
          k->call.addMemref(f32Out->data(), {s.m, s.n});
        k->call.addResults({epi && (residual || castOut) ? 4 : 3});
      }
      DnnlMatmulPostOps dnnl(
          engine, stream, s.m, s.n, s.k,
          kind == 1   ? dnnl::algorithm::eltwise_gelu_erf
          : kind == 2 ? dnnl::algorithm::eltwise_gelu_tanh
                      : dnnl::algorithm::eltwise_relu,
          a.data(), b.data(), bias.data(), residual ? r.data() : nullptr,
          castOut ? (void *)dRef.data() : (void *)cRef.data(), dt::bf16,
          castOut ? dt::bf16 : dt::f32);
      if (!dnnl.missing.empty()) {
        // oneDNN's result is the table's check and its reference.
        llvm::outs() << "skipped: " << dnnl.missing << "\n";
        return;
      }
      std::vector<Timing> t =
          timeInterleaved({std::ref(fused), std::ref(unfused), std::ref(alone),
                           std::ref(dnnl)});
      fused();
      unfused();
      dnnl();
      // Against oneDNN: f32 sums of exact products (any order), plus one
      // bf16 rounding apart for the bf16 result.
      double diff = 0, scale = 1;
      if (castOut) {
        for (size_t i = 0; i < mn; ++i) {
          double ref = fromBf16(dRef[i]);
          scale = std::max(scale, std::fabs(ref));
          for (const std::vector<uint16_t> *d : {&d0, &d1})
            diff = std::max(diff, std::fabs(fromBf16((*d)[i]) - ref));
        }
      } else {
        scale = std::max(1.0, maxAbs(cRef.data(), mn));
        for (const std::vector<float> *c : {&c0, &c1})
          diff = std::max(diff, maxAbsDiff(c->data(), cRef.data(), mn));
      }
      double gate = 1e-4 * s.k * scale + (castOut ? 0x1p-7 * scale : 0);
      double flop = 2.0 * s.m * s.n * s.k;
      double g[4];
      for (int i = 0; i < 4; ++i)
        g[i] = gflops(flop, t[i].best);
      llvm::outs() << llvm::formatv(
          "{0,-16} {1,-20} {2,6:f1} ({3,6:f1}) {4,6:f1} ({5,6:f1}) {6,6:f1} "
          "({7,6:f1}) {8,6:f1} ({9,6:f1}) {10,9:f2} {11,9:f2} {12,9:f2}{13}\n",
          std::to_string(s.m) + "x" + std::to_string(s.n) + "x" +
              std::to_string(s.k),
          kind == 0   ? "bias+relu"
          : kind == 1 ? "bias+gelu_erf"
          : kind == 2 ? "bias+gelu_tanh+res"
                      : "bias+relu->bf16",
          g[0], gflops(flop, t[0].median), g[1], gflops(flop, t[1].median),
          g[2], gflops(flop, t[2].median), g[3], gflops(flop, t[3].median),
          g[0] / g[1], g[0] / g[3], g[0] / g[2],
          diff > gate ? "  MISMATCH" : "");
    }
  }
}

/// Median wall time of `reps` whole compilations (parse, accel-cpu-pipeline,
/// LLVM -O3, machine code: the JIT's symbol lookup forces code generation).
double compileSeconds(MLIRContext &ctx, const std::string &text,
                      const std::string &name, int reps) {
  std::vector<double> times;
  for (int r = 0; r < reps; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    AccelKernel k;
    if (!compile(ctx, text, k, "", 1))
      std::exit(1);
    auto fn = k.engine->lookupPacked(name);
    if (!fn) {
      llvm::errs() << "accel-bench: " << llvm::toString(fn.takeError()) << "\n";
      std::exit(1);
    }
    times.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
            .count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

std::string fmtRatio(double v) { return llvm::formatv("{0:f2}", v).str(); }

/// "256³ 0.99 (0.98)": best ratio (median ratio) per shape.
std::string rowValues(const TableRow &row) {
  std::string out;
  for (const ShapeRatio &v : row.values) {
    if (!out.empty())
      out += ", ";
    if (!v.shape.empty())
      out += v.shape + " ";
    out += row.unit.empty() ? fmtRatio(v.best)
                            : llvm::formatv("{0:f2}", v.best).str();
    if (row.unit.empty())
      out += " (" + fmtRatio(v.median) + ")";
    out += row.unit;
    if (!v.valid)
      out += " MISMATCH";
  }
  return out;
}

std::string rowVerdict(const TableRow &row) {
  if (!row.note.empty())
    return row.note;
  int below = 0, invalid = 0;
  double goal = row.goal * goalScale;
  for (const ShapeRatio &v : row.values) {
    if (!v.valid)
      ++invalid;
    else if (row.atMost ? v.best > goal : v.best < goal)
      ++below;
  }
  if (invalid)
    return "invalid: " + std::to_string(invalid) + " result(s) wrong";
  if (row.values.empty())
    return "not measured";
  if (!below)
    return "met";
  return "not met (" + std::to_string(below) + " of " +
         std::to_string(row.values.size()) + ")";
}

void benchTable(MLIRContext &ctx, const accel::TargetSpec &spec) {
  auto start = std::chrono::steady_clock::now();
  if (!samples.getNumOccurrences())
    samples = quick ? 3 : 11; // anchors-performance.md §3.1: >= 11
  if (!minSampleMs.getNumOccurrences() && quick)
    minSampleMs = 20;
  int reps = compileReps > 0 ? int(compileReps) : (quick ? 3 : 5);
  omp_set_num_threads(1);
  openblas_set_num_threads(1);

  // Roofs of one core per precision, and of two cores for the 2-thread row:
  // of the instructions accel's bf16 and int8 kernels use on this CPU (AMX
  // tile products where it has them, as --mode=precision).
  bool amx = hostHasAmx() && !llvm::errorToBool(accel::requestAmxPermission());
  double roofBf16 = amx ? probeRate(probeAmx<false>, 4 * 16384, 1)
                    : __builtin_cpu_supports("avx512bf16")
                        ? probeRate(probeBf16, 16 * 64, 1)
                        : 0;
  double roofI8 = amx ? probeRate(probeAmx<true>, 4 * 32768, 1)
                  : __builtin_cpu_supports("avx512vnni")
                      ? probeRate(probeInt8, 16 * 128, 1)
                      : 0;
  // The micro-kernel probe is the AVX-512 register tile (0: not measured).
  double microKernel =
      hostHasAvx512() ? probeRate(probeMicroKernel, 24 * 32, 1) : 0;
  double probe2Before = probeRate(f32Probe(), f32ProbeOps(), 2);
  // A busy machine shows as a load above ~0 here and as a roof that moves
  // between the start and the end of the run (checked at the end).
  double load = -1;
  if (FILE *f = std::fopen("/proc/loadavg", "r")) {
    if (std::fscanf(f, "%lf", &load) != 1)
      load = -1;
    std::fclose(f);
  }
  double roofBefore = roofF32;
  double peakF32 = spec.peakF32 * 1e3, peakBf16 = spec.peakBf16 * 1e3,
         peakI8 = spec.peakI8 * 1e3, bw = spec.memoryGbps;
  llvm::outs() << llvm::formatv(
      "\nissue 10 table ({0}; {1} interleaved samples of >= {2:f0} ms)\n"
      "  measured roofs of one core: f32 {3:f1}, bf16 {4:f1}, int8 {5:f1} "
      "G(FL)OP/s; f32 on two threads {6:f1} ({7:f2}x)\n"
      "  accel's f32 micro-kernel loop (6 x 64 tile, operands in L1): "
      "{15:f1} GFLOP/s = {16:f0} % of the f32 roof\n"
      "  model ({8}): f32 {9:f1}, bf16 {10:f1}, int8 {11:f1} G(FL)OP/s, "
      "{12:f1} GB/s per core; measured roof / model peak: f32 {13:f2}\n"
      "  1-minute load average at the start: {14:f2} (on 2 cores, anything "
      "near 1 or above makes the figures meaningless)\n",
      quick ? "--quick: small shapes, not the issue's" : "full shapes",
      int(samples), double(minSampleMs), roofF32, roofBf16, roofI8,
      probe2Before, probe2Before / roofF32, spec.name, peakF32, peakBf16,
      peakI8, bw, roofF32 / peakF32, load, microKernel,
      100.0 * microKernel / roofF32);

  std::vector<KernelRecord> records;
  auto record = [&](const std::string &kernel, const std::string &shape,
                    int threads, double flop, double modelFlop, double bytes,
                    Timing t, const double &roof, double modelPeak,
                    const std::string &ref, Timing refT) {
    records.push_back({kernel, shape, threads, flop, modelFlop, bytes, t, &roof,
                       modelPeak, ref, refT});
  };
  auto ratio = [](const std::string &shape, Timing cand, Timing ref,
                  bool valid) {
    // Speed ratio = time of the reference / time of the candidate.
    return ShapeRatio{shape, ref.best / cand.best, ref.median / cand.median,
                      valid};
  };

  // Compile time (first: nothing else is resident yet).
  TableRow compileGemm{"compile time per kernel, GEMM (1024³ f32, whole JIT "
                       "compile, median of " +
                           std::to_string(reps) + ")",
                       "≤ 0.3 s", 0.3, true};
  TableRow compileAttn{"compile time per kernel, attention (H 8, L 1024, d "
                       "64, f32)",
                       "≤ 1 s", 1.0, true};
  compileGemm.unit = compileAttn.unit = " s";
  {
    double g = compileSeconds(
        ctx, matmulText({1024, 1024, 1024, false}, "f32", "f32"), "mm", reps);
    double a =
        compileSeconds(ctx, attentionText(8, 1024, 64, false), "attn", reps);
    compileGemm.values.push_back({"", g, g});
    compileAttn.values.push_back({"", a, a});
    llvm::outs() << llvm::formatv("\ncompile (parse to machine code, median "
                                  "of {0}): GEMM {1:f3} s, attention {2:f3} "
                                  "s\n",
                                  reps, g, a);
  }

  // Square GEMMs in f32, bf16 and int8, accel and oneDNN interleaved.
  std::vector<int64_t> sizes = quick
                                   ? std::vector<int64_t>{256, 512}
                                   : std::vector<int64_t>{256, 512, 1024, 2048};
  TableRow f32Square{"fp32 GEMM ÷ oneDNN `dnnl_sgemm`, 1 thread, " +
                         std::string(quick ? "256³–512³" : "256³–2048³"),
                     "≥ 0.95", 0.95};
  TableRow bf16OverF32{"bf16 GEMM ÷ our fp32 GEMM", "≥ 1.9", 1.9};
  TableRow bf16OverDnnl{"bf16 GEMM ÷ oneDNN bf16 matmul", "≥ 0.95", 0.95};
  TableRow i8OverF32{"int8 GEMM ÷ our fp32 GEMM", "≥ 3.7", 3.7};
  TableRow i8OverDnnl{"int8 GEMM ÷ oneDNN int8 matmul", "≥ 0.95", 0.95};
  dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(engine);
  std::string implBf16, implI8;
  llvm::outs() << "\nsquare GEMM, 1 thread; G(FL)OP/s best (median); ratios "
                  "of bests\n"
               << llvm::formatv("{0,-16} {1,15} {2,15} {3,15} {4,15} {5,15} "
                                "{6,15} {7,7} {8,7} {9,7} {10,7} {11,7}\n",
                                "M x N x K", "accel f32", "dnnl f32",
                                "accel bf16", "dnnl bf16", "accel i8",
                                "dnnl i8", "f32/dn", "bf/f32", "bf/dn",
                                "i8/f32", "i8/dn");
  for (int64_t sz : sizes) {
    GemmShape s{sz, sz, sz, false};
    int64_t n = sz * sz;
    auto af = randomBuffer(n, 11), bf = randomBuffer(n, 12);
    std::vector<float> cf(n), cd(n), cb(n), cdb(n);
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
    buildMatmul(ctx, kf, s, "f32", "f32", af.data(), bf.data(), cf.data());
    buildMatmul(ctx, kb, s, "bf16", "f32", ab.data(), bb.data(), cb.data());
    buildMatmul(ctx, ki, s, "i8", "i32", ai.data(), bi.data(), ci.data());
    using dt = dnnl::memory::data_type;
    DnnlMatmul dnnlBf16(engine, stream, sz, sz, sz, dt::bf16, dt::f32,
                        ab.data(), bb.data(), cdb.data());
    DnnlMatmul dnnlI8(engine, stream, sz, sz, sz, dt::s8, dt::s32, ai.data(),
                      bi.data(), cdi.data());
    implBf16 = dnnlBf16.missing.empty() ? dnnlBf16.impl : "none";
    implI8 = dnnlI8.impl;
    const bool noDnnlBf16 = !dnnlBf16.missing.empty();
    if (noDnnlBf16)
      bf16OverDnnl.note = "n/a: " + dnnlBf16.missing;
    auto dnnlF32 = [&] {
      dnnl_sgemm('N', 'N', sz, sz, sz, 1.f, af.data(), sz, bf.data(), sz, 0.f,
                 cd.data(), sz);
    };
    std::vector<Timing> t =
        timeInterleaved({std::ref(kf), dnnlF32, std::ref(kb),
                         std::ref(dnnlBf16), std::ref(ki), std::ref(dnnlI8)});
    // Correctness gates (anchors §3.1): f32 and bf16 against oneDNN in the
    // same precision (only the summation order differs), int8 exactly;
    // without oneDNN's bf16 matmul, bf16 against dnnl_sgemm on the bf16
    // values.
    if (noDnnlBf16)
      sgemmOfBf16(sz, sz, sz, ab.data(), bb.data(), cdb.data());
    bool okF32 =
        maxAbsDiff(cf.data(), cd.data(), n) <= 1e-4 * maxAbs(cd.data(), n);
    bool okBf16 =
        maxAbsDiff(cb.data(), cdb.data(), n) <= 1e-3 * maxAbs(cdb.data(), n);
    // int8 exactly, against the exact sums (sampled): oneDNN's s8 matmul
    // saturates on a CPU without VNNI, so its result is reported, not
    // trusted.
    bool okI8 = int8Wrong(sz, ai.data(), bi.data(), ci.data()) == 0;
    int64_t dnnlI8Wrong = int8Wrong(sz, ai.data(), bi.data(), cdi.data());
    double flop = 2.0 * double(sz) * sz * sz;
    auto g = [&](int i) { return gflops(flop, t[i].best); };
    auto gm = [&](int i) { return gflops(flop, t[i].median); };
    std::string cells;
    for (int i = 0; i < 6; ++i)
      cells += i == 3 && noDnnlBf16
                   ? llvm::formatv(" {0,15}", "n/a").str()
                   : llvm::formatv(" {0,6:f1} ({1,6:f1})", g(i), gm(i)).str();
    std::string bfDn =
        noDnnlBf16 ? "n/a" : llvm::formatv("{0:f2}", g(2) / g(3)).str();
    llvm::outs() << llvm::formatv(
        "{0,-16}{1} {2,7:f2} {3,7:f2} {4,7} {5,7:f2} {6,7:f2}{7}{8}{9}\n",
        s.ascii(), cells, g(0) / g(1), g(2) / g(0), bfDn, g(4) / g(0),
        g(4) / g(5), okF32 ? "" : "  F32 MISMATCH",
        okBf16 ? "" : "  BF16 MISMATCH", okI8 ? "" : "  INT8 MISMATCH");
    if (dnnlI8Wrong)
      llvm::outs() << "  (oneDNN's s8 matmul is not exact here: " << dnnlI8Wrong
                   << " of the sampled entries wrong)\n";
    f32Square.values.push_back(ratio(s.label(), t[0], t[1], okF32));
    bf16OverF32.values.push_back(ratio(s.label(), t[2], t[0], okBf16 && okF32));
    if (!noDnnlBf16)
      bf16OverDnnl.values.push_back(ratio(s.label(), t[2], t[3], okBf16));
    i8OverF32.values.push_back(ratio(s.label(), t[4], t[0], okI8 && okF32));
    i8OverDnnl.values.push_back(ratio(s.label(), t[4], t[5], okI8));
    double bytesF32 = 3.0 * 4 * n, bytesBf16 = 2.0 * 2 * n + 4.0 * n,
           bytesI8 = 2.0 * n + 4.0 * n;
    record("f32 GEMM", s.label(), 1, flop, flop, bytesF32, t[0], roofF32,
           peakF32, "dnnl_sgemm", t[1]);
    Timing none{std::numeric_limits<double>::quiet_NaN(),
                std::numeric_limits<double>::quiet_NaN()};
    record("bf16 GEMM", s.label(), 1, flop, flop, bytesBf16, t[2], roofBf16,
           peakBf16,
           noDnnlBf16 ? "none (no oneDNN bf16 matmul here)"
                      : "oneDNN bf16 matmul",
           noDnnlBf16 ? none : t[3]);
    record("int8 GEMM", s.label(), 1, flop, flop, bytesI8, t[4], roofI8, peakI8,
           "oneDNN s8 matmul", t[5]);
  }

  // f32 GEMMs of attention's shapes.
  std::vector<GemmShape> attnShapes =
      quick ? std::vector<GemmShape>{{1024, 1024, 64, true},
                                     {1024, 64, 1024, false}}
            : std::vector<GemmShape>{{4096, 4096, 64, true},
                                     {4096, 4096, 128, true},
                                     {4096, 64, 4096, false},
                                     {4096, 128, 4096, false}};
  TableRow f32Attn{std::string("fp32 GEMM ÷ oneDNN, attention shapes ") +
                       (quick ? "1024×1024×64 (Bᵀ), 1024×64×1024"
                              : "4096×4096×64/128 (Bᵀ), 4096×64/128×4096"),
                   "≥ 0.95", 0.95};
  // Sizes off the tile grid (not in the issue's table: how the remainder
  // tiles, masked, hold up where real sizes land).
  std::vector<GemmShape> raggedShapes =
      quick ? std::vector<GemmShape>{{200, 300, 100, false}}
            : std::vector<GemmShape>{{1000, 1000, 1000, false},
                                     {517, 1031, 300, false},
                                     {1000, 1000, 64, true}};
  TableRow f32Ragged{std::string("fp32 GEMM ÷ oneDNN, sizes off the tile "
                                 "grid (not in the issue's table) ") +
                         (quick ? "200×300×100"
                                : "1000³, 517×1031×300, "
                                  "1000×1000×64 Bᵀ"),
                     "≥ 0.95", 0.95};
  auto timeF32Shapes = [&](const std::vector<GemmShape> &shapes, TableRow &row,
                           StringRef title) {
    llvm::outs() << "\nf32 GEMM of " << title
                 << ", 1 thread; GFLOP/s best (median)\n"
                 << llvm::formatv("{0,-22} {1,15} {2,15} {3,7}\n", "M x N x K",
                                  "accel", "dnnl_sgemm", "ratio");
    for (const GemmShape &s : shapes) {
      auto a = randomBuffer(s.m * s.k, 1), b = randomBuffer(s.k * s.n, 2);
      std::vector<float> c(s.m * s.n), cRef(s.m * s.n);
      AccelKernel k;
      buildMatmul(ctx, k, s, "f32", "f32", a.data(), b.data(), c.data());
      char tr = s.transB ? 'T' : 'N';
      int64_t ldb = s.transB ? s.k : s.n;
      auto dnnl = [&] {
        dnnl_sgemm('N', tr, s.m, s.n, s.k, 1.f, a.data(), s.k, b.data(), ldb,
                   0.f, cRef.data(), s.n);
      };
      std::vector<Timing> t = timeInterleaved({std::ref(k), dnnl});
      bool ok = maxAbsDiff(c.data(), cRef.data(), c.size()) <=
                1e-4 * maxAbs(cRef.data(), cRef.size());
      double flop = 2.0 * s.m * s.n * s.k;
      llvm::outs() << llvm::formatv(
          "{0,-22} {1,6:f1} ({2,6:f1}) {3,6:f1} ({4,6:f1}) {5,7:f2}{6}\n",
          s.ascii(), gflops(flop, t[0].best), gflops(flop, t[0].median),
          gflops(flop, t[1].best), gflops(flop, t[1].median),
          t[1].best / t[0].best, ok ? "" : "  MISMATCH");
      row.values.push_back(ratio(s.label(), t[0], t[1], ok));
      record("f32 GEMM", s.label(), 1, flop, flop,
             4.0 * (s.m * s.k + s.k * s.n + s.m * s.n), t[0], roofF32, peakF32,
             "dnnl_sgemm", t[1]);
    }
  };
  timeF32Shapes(attnShapes, f32Attn, "attention shapes");
  timeF32Shapes(raggedShapes, f32Ragged, "sizes off the tile grid");

  // Fused attention against the unfused OpenBLAS baseline, non-causal (the
  // baseline skips no work when causal either, so non-causal is the harder
  // comparison). H 8 at L 1k-2k, H 2 at 4k-8k (anchors C8, C9).
  struct AttnCase {
    int64_t H, L, d;
  };
  std::vector<AttnCase> shortCases, longCases;
  if (quick) {
    shortCases = {{2, 512, 64}};
    longCases = {{1, 1024, 64}};
  } else {
    for (int64_t L : {1024, 2048})
      for (int64_t d : {64, 128})
        shortCases.push_back({8, L, d});
    for (int64_t L : {4096, 8192})
      for (int64_t d : {64, 128})
        longCases.push_back({2, L, d});
  }
  TableRow attnShort{std::string("fused attention fp32 ÷ unfused "
                                 "OpenBLAS-SkylakeX baseline, ") +
                         (quick ? "L 512 (H 2)" : "L 1k–2k (H 8)") +
                         ", d 64/128",
                     "≥ 1.5", 1.5};
  TableRow attnLong{std::string("fused attention fp32 ÷ unfused baseline, ") +
                        (quick ? "L 1024 (H 1)" : "L 4k–8k (H 2)") +
                        ", d 64/128",
                    "≥ 1.8", 1.8};
  llvm::outs() << "\nf32 attention, non-causal, 1 thread; ms best (median); "
                  "x = baseline time / fused time\n"
               << llvm::formatv("{0,-16} {1,19} {2,19} {3,7}\n", "H, L, d",
                                "fused", "BLAS unfused", "x");
  for (bool isLong : {false, true}) {
    for (const AttnCase &c : isLong ? longCases : shortCases) {
      int64_t n = c.H * c.L * c.d;
      auto q = randomBuffer(n, 3), k = randomBuffer(n, 4),
           v = randomBuffer(n, 5);
      std::vector<float> o(n), oRef(n), s(c.L * c.L);
      AccelKernel fused;
      fused.name = "attn";
      if (!compile(ctx, attentionText(c.H, c.L, c.d, false), fused, "", 1))
        std::exit(1);
      for (float *p : {q.data(), k.data(), v.data(), o.data()})
        fused.call.addMemref(p, {1, c.H, c.L, c.d});
      fused.call.addResults({4});
      auto base = [&] {
        unfusedAttention(q.data(), k.data(), v.data(), s.data(), oRef.data(),
                         c.H, c.L, c.d, false);
      };
      std::vector<Timing> t = timeInterleaved({std::ref(fused), base});
      bool ok = maxAbsDiff(o.data(), oRef.data(), n) <= 1e-4;
      std::string label = "H " + std::to_string(c.H) + ", L " +
                          std::to_string(c.L) + ", d " + std::to_string(c.d);
      llvm::outs() << llvm::formatv(
          "{0,-16} {1,8:f2} ({2,8:f2}) {3,8:f2} ({4,8:f2}) {5,7:f2}{6}\n",
          std::to_string(c.H) + ", " + std::to_string(c.L) + ", " +
              std::to_string(c.d),
          t[0].best * 1e3, t[0].median * 1e3, t[1].best * 1e3,
          t[1].median * 1e3, t[1].best / t[0].best, ok ? "" : "  MISMATCH");
      (isLong ? attnLong : attnShort)
          .values.push_back(
              ratio("L " + std::to_string(c.L) + " d " + std::to_string(c.d),
                    t[0], t[1], ok));
      double pairs = double(c.L) * double(c.L);
      record("f32 attention", label, 1, double(c.H) * pairs * 4.0 * c.d,
             double(c.H) * pairs * (4.0 * c.d + 5.0), 4.0 * n * 4.0, t[0],
             roofF32, peakF32, "OpenBLAS unfused", t[1]);
    }
  }

  // Two threads: accel's speedup over its one-thread kernel, divided by
  // oneDNN's over its own (anchors C10), with the FMA probe around it.
  std::vector<int64_t> sizes2 = sizes;
  TableRow twoThreads{"2-thread speedup ÷ oneDNN's 2-thread speedup, " +
                          std::string(quick ? "256³–512³" : "256³–2048³"),
                      "≥ 1.0", 1.0};
  llvm::outs() << "\nf32 GEMM on 1 and 2 threads; GFLOP/s best; speedup = "
                  "2-thread / 1-thread\n"
               << llvm::formatv("{0,-16} {1,9} {2,9} {3,9} {4,9} {5,8} {6,8} "
                                "{7,7}\n",
                                "M x N x K", "accel 1T", "accel 2T", "dnnl 1T",
                                "dnnl 2T", "accel x", "dnnl x", "ratio");
  for (int64_t sz : sizes2) {
    GemmShape s{sz, sz, sz, false};
    int64_t n = sz * sz;
    auto a = randomBuffer(n, 21), b = randomBuffer(n, 22);
    std::vector<float> c1(n), c2(n), cd(n);
    AccelKernel k1, k2;
    buildMatmul(ctx, k1, s, "f32", "f32", a.data(), b.data(), c1.data(), 1);
    buildMatmul(ctx, k2, s, "f32", "f32", a.data(), b.data(), c2.data(), 2);
    auto dnnlOn = [&](int threads) {
      return [&, threads] {
        omp_set_num_threads(threads);
        dnnl_sgemm('N', 'N', sz, sz, sz, 1.f, a.data(), sz, b.data(), sz, 0.f,
                   cd.data(), sz);
      };
    };
    std::vector<Timing> t =
        timeInterleaved({std::ref(k1), std::ref(k2), dnnlOn(1), dnnlOn(2)},
                        /*threaded=*/true);
    omp_set_num_threads(1);
    bool ok =
        maxAbsDiff(c2.data(), cd.data(), n) <= 1e-4 * maxAbs(cd.data(), n) &&
        maxAbsDiff(c1.data(), cd.data(), n) <= 1e-4 * maxAbs(cd.data(), n);
    double flop = 2.0 * double(sz) * sz * sz;
    double ours = t[0].best / t[1].best, theirs = t[2].best / t[3].best;
    double oursMed = t[0].median / t[1].median,
           theirsMed = t[2].median / t[3].median;
    llvm::outs() << llvm::formatv(
        "{0,-16} {1,9:f1} {2,9:f1} {3,9:f1} {4,9:f1} {5,8:f2} {6,8:f2} "
        "{7,7:f2}{8}\n",
        s.ascii(), gflops(flop, t[0].best), gflops(flop, t[1].best),
        gflops(flop, t[2].best), gflops(flop, t[3].best), ours, theirs,
        ours / theirs, ok ? "" : "  MISMATCH");
    twoThreads.values.push_back(
        {s.label(), ours / theirs, oursMed / theirsMed, ok});
    record("f32 GEMM", s.label(), 2, flop, flop, 3.0 * 4 * n, t[1], roofF32,
           peakF32, "dnnl_sgemm 2T", t[3]);
  }
  double probe2After = probeRate(f32Probe(), f32ProbeOps(), 2);
  double probeRatio = std::min(probe2Before, probe2After) / roofF32;
  llvm::outs() << llvm::formatv("2-thread FMA probe before {0:f1}, after "
                                "{1:f1} GFLOP/s: {2:f2}x the 1-thread {3:f1}\n",
                                probe2Before, probe2After, probeRatio, roofF32);
  if (probeRatio < min2tProbeRatio)
    twoThreads.note = llvm::formatv("discarded: 2-thread FMA probe {0:f2}x "
                                    "the 1-thread one (< {1:f1}), the second "
                                    "vCPU was not a whole core",
                                    probeRatio, double(min2tProbeRatio))
                          .str();

  // The roof once more: kernels are rated against the higher of the two,
  // and a roof that moved says the machine was busy during the run.
  double roofAfter = measureF32Roof();
  roofF32 = std::max(roofBefore, roofAfter);
  bool unsteady = std::min(roofBefore, roofAfter) < 0.9 * roofF32;
  if (unsteady)
    llvm::outs() << llvm::formatv("WARNING: the 1-thread FMA probe moved "
                                  "from {0:f1} to {1:f1} GFLOP/s during the "
                                  "run: the machine was not quiet, rerun\n",
                                  roofBefore, roofAfter);

  // The table.
  std::vector<TableRow *> rows = {&f32Square,   &f32Attn,      &f32Ragged,
                                  &bf16OverF32, &bf16OverDnnl, &i8OverF32,
                                  &i8OverDnnl,  &attnShort,    &attnLong,
                                  &twoThreads,  &compileGemm,  &compileAttn};
  llvm::outs() << "\n## Issue 10: CPU kernels against the references, one "
                  "run\n\n"
               << "Speed ratios of bests (medians in parentheses), per "
                  "shape; 'met' when every shape reaches the goal.\n"
               << llvm::formatv("References: oneDNN {0}.{1}.{2} (bf16 "
                                "matmul: {3}; s8 matmul: {4}), OpenBLAS "
                                "core {5}.{6}\n\n",
                                dnnl_version()->major, dnnl_version()->minor,
                                dnnl_version()->patch, implBf16, implI8,
                                openblas_get_corename(),
                                quick ? " --quick: smaller shapes than the "
                                        "issue's, for a smoke test only."
                                      : "");
  if (unsteady || (load >= 1.0))
    llvm::outs() << llvm::formatv("**Measured on a busy machine (load "
                                  "{0:f2}, FMA probe {1:f1} -> {2:f1} "
                                  "GFLOP/s): not figures to quote.**\n\n",
                                  load, roofBefore, roofAfter);
  if (goalScale != 1.0)
    llvm::outs() << llvm::formatv("Verdicts against the goals x {0} "
                                  "(--goal-scale).\n\n",
                                  double(goalScale));
  llvm::outs() << "| ratio | measured | goal | verdict |\n|---|---|---|---|\n";
  for (TableRow *r : rows)
    llvm::outs() << "| " << r->ratio << " | " << rowValues(*r) << " | "
                 << r->goalText << " | " << rowVerdict(*r) << " |\n";

  llvm::outs() << llvm::formatv(
      "\nPer kernel: fraction of the measured roof of its precision (one "
      "core: f32 {0:f1}, bf16 {1:f1}, int8 {2:f1} G(FL)OP/s; x threads), "
      "and the roofline model's time on {3} (max(FLOPs / peak, bytes / "
      "bandwidth); attention FLOPs include 5 per softmax element).\n\n",
      roofF32, roofBf16, roofI8, spec.name);
  llvm::outs() << "| kernel | shape | threads | G(FL)OP/s best (median) | "
                  "% of measured roof | measured ms | predicted ms | "
                  "measured ÷ predicted | reference | reference ms |\n"
                  "|---|---|---|---|---|---|---|---|---|---|\n";
  for (const KernelRecord &r : records) {
    double pred = std::max(r.modelFlop / (r.modelPeak * 1e9 * r.threads),
                           r.bytes / (bw * 1e9 * r.threads));
    double g = gflops(r.flop, r.time.best);
    // No peak of the precision in the catalogue or measured (bf16 on an
    // AVX2 CPU): no roof, no prediction.
    auto cell = [](bool known, double v, const char *fmt) {
      return known ? llvm::formatv(fmt, v).str() : std::string("n/a");
    };
    llvm::outs() << llvm::formatv(
        "| {0} | {1} | {2} | {3:f1} ({4:f1}) | {5} | {6:f3} | {7} | "
        "{8} | {9} | {10} |\n",
        r.kernel, r.shape, r.threads, g, gflops(r.flop, r.time.median),
        cell(*r.roof > 0, *r.roof > 0 ? 100.0 * g / (*r.roof * r.threads) : 0,
             "{0:f0} %"),
        r.time.best * 1e3, cell(std::isfinite(pred), pred * 1e3, "{0:f3}"),
        cell(std::isfinite(pred), r.time.best / pred, "{0:f2}"), r.reference,
        cell(std::isfinite(r.refTime.best), r.refTime.best * 1e3, "{0:f3}"));
  }
  if (!rooflineSvg.empty()) {
    // Per core: a kernel on T threads is drawn at its FLOP/s / T, against
    // the one-core roofs.
    accel::RooflineRoofs roofs;
    roofs.name =
        "this CPU (" + llvm::sys::getHostCPUName().str() + "), one core";
    roofs.bandwidthGBps = bw;
    Type f32 = Float32Type::get(&ctx), bf16 = BFloat16Type::get(&ctx),
         i8 = IntegerType::get(&ctx, 8);
    double r32 = roofF32, r16 = roofBf16, r8 = roofI8;
    roofs.peakGflops = [=](Type t) {
      return t == f32 ? r32 : t == bf16 ? r16 : t == i8 ? r8 : 0.0;
    };
    roofs.source = llvm::formatv("peaks measured in this run ({0}), bandwidth "
                                 "of {1}",
                                 amx ? "AMX for bf16/int8"
                                 : __builtin_cpu_supports("avx512f") ? "AVX-512"
                                                                     : "AVX2",
                                 spec.name)
                       .str();
    SmallVector<accel::RooflinePoint> points;
    for (const KernelRecord &r : records) {
      double pred = std::max(r.modelFlop / (r.modelPeak * 1e9 * r.threads),
                             r.bytes / (bw * 1e9 * r.threads));
      Type precision = r.roof == &roofF32    ? f32
                       : r.roof == &roofBf16 ? bf16
                                             : i8;
      std::string label = r.kernel + " " + r.shape;
      if (r.threads > 1)
        label += llvm::formatv(" ({0} threads, per core)", r.threads).str();
      points.push_back(accel::RooflinePoint{
          label,
          accel::RooflineCost{r.flop / r.threads, r.bytes / r.threads,
                              precision},
          pred, r.time.best});
    }
    std::string error;
    if (llvm::Error err =
            llvm::writeToOutput(rooflineSvg, [&](llvm::raw_ostream &os) {
              accel::writeRooflineSvg(
                  os, roofs, points,
                  "accel-bench --mode=table: best of the samples per kernel");
              return llvm::Error::success();
            })) {
      llvm::errs() << "accel-bench: cannot write --roofline '" << rooflineSvg
                   << "': " << llvm::toString(std::move(err)) << "\n";
      std::exit(1);
    }
    llvm::outs() << "\naccel-bench: roofline of " << points.size()
                 << " kernels written to " << rooflineSvg << "\n";
  }
  llvm::outs() << llvm::formatv(
      "\naccel-bench: the table took {0:f0} s\n",
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count());
}

} // namespace


//===----------------------------------------------------------------------===//
// --mode=tune: measured search around the configuration stage's choice
//===----------------------------------------------------------------------===//

static cl::opt<std::string> tuningCachePath(
    "tuning-cache",
    cl::desc("--mode=tune: the tuning cache to write (created, or updated: "
             "entries of other CPUs and shape classes are kept); "
             "docs/configure.md, \"Tuning cache\""));
static cl::opt<double> tuneMinGain(
    "tune-min-gain",
    cl::desc("--mode=tune: keep a candidate only when the model's tiles ÷ "
             "its time, measured again, is at least this"),
    cl::init(1.02));

namespace {
/// One op to tune: its module (no config), how to bind its buffers, its
/// output (to compare each candidate with the model's result) and its
/// cost for the roofline prediction.
struct TuneCase {
  std::string label, text, name, peakKind;
  std::function<void(AccelKernel &)> bind;
  /// Fills the output with what no kernel writes (NaN, INT32_MIN) before a
  /// candidate's checked call, so an element it skips cannot pass.
  std::function<void()> clear;
  std::function<std::vector<double>()> output;
  double flop = 0, bytes = 0, tolerance = 0;
  /// Softmax elements among the FLOPs (the calibrated model's second term;
  /// RooflineCost::scores).
  double scores = 0;
  /// Filled by the search: the kernel, and the median of the tiles the
  /// configuration stage will run (the kept winner's, else the model's).
  std::string kernel;
  double measuredMs = 0, rooflineMs = 0;
  /// The work those tiles execute (accel::getKernelCost): what the
  /// calibrated model prices.
  double kernelFlop = 0, kernelScores = 0;
};

/// `text` with `config` (an #accel.lowering_config) on its accel op.
std::string withConfig(const std::string &text, const std::string &config) {
  size_t outs = text.find("outs(");
  size_t arrow = text.find(") -> ", outs);
  return text.substr(0, arrow + 1) + " {accel.lowering_config = " + config +
         "}" + text.substr(arrow + 1);
}

std::string listText(ArrayRef<int64_t> v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

std::string configText(const accel::CpuTuningEntry &e) {
  std::string s = "#accel.lowering_config<kernel = \"" + e.kernel +
                  "\", tile = " + listText(e.tile);
  if (!e.mma.empty())
    s += ", mma = " + listText(e.mma);
  return s + ">";
}

/// The configuration stage's choice for the op in `text` on the host (or,
/// with `cache`, what it reads from there).
std::optional<accel::CpuTuningEntry>
modelChoice(MLIRContext &ctx, const std::string &text,
            const std::string &features, const std::string &cache = "") {
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &ctx);
  if (!module)
    return std::nullopt;
  PassManager pm(&ctx);
  accel::AccelCpuConfigurePassOptions o;
  o.features = features;
  o.tuningCache = cache;
  o.threads = benchThreads;
  pm.addPass(accel::createAccelCpuConfigurePass(o));
  if (failed(pm.run(*module)))
    return std::nullopt;
  std::optional<accel::CpuTuningEntry> e;
  module->walk([&](Operation *op) {
    auto config = op->getAttrOfType<accel::LoweringConfigAttr>(
        accel::kLoweringConfigAttrName);
    if (!config)
      return;
    e.emplace();
    e->key = accel::cpuTuningKey(op);
    e->kernel = config.getKernel().str();
    e->tile.assign(config.getTile().begin(), config.getTile().end());
    e->mma.assign(config.getMma().begin(), config.getMma().end());
  });
  return e;
}

/// Candidates around the model's tiles `m`: cache blocks halved and
/// doubled (rounded to the register tile and the instruction's k), the
/// attention tiles over 64..256.
std::vector<accel::CpuTuningEntry> candidatesAround(
    const accel::CpuTuningEntry &m) {
  std::vector<accel::CpuTuningEntry> out;
  auto add = [&](SmallVector<int64_t, 3> tile, SmallVector<int64_t, 3> mma) {
    accel::CpuTuningEntry e = m;
    e.tile = tile;
    e.mma = mma;
    for (const accel::CpuTuningEntry &o : out)
      if (o.tile == e.tile && o.mma == e.mma)
        return;
    out.push_back(e);
  };
  auto roundTo = [](int64_t x, int64_t q) {
    return std::max(q, x / q * q);
  };
  if (m.kernel == "cpu-flash" || m.kernel == "cpu-flash-amx") {
    add(m.tile, m.mma);
    for (int64_t q : {64, 128, 256})
      for (int64_t kv : {64, 128, 256})
        add({q, kv}, m.mma);
    return out;
  }
  if (m.kernel == "cpu-row-dot" && m.mma.size() == 3) {
    // Its tile is [0, 0, Kc] (or none: K whole); the register tiles that
    // fit AVX-512's 32 vectors around the model's.
    add(m.tile, m.mma);
    for (int64_t kc : {0, 128, 256, 512, 1024})
      add(kc ? SmallVector<int64_t, 3>{0, 0, kc} : SmallVector<int64_t, 3>{},
          m.mma);
    for (auto [mr, nr] : {std::pair<int64_t, int64_t>{4, 4}, {4, 6}, {2, 8}})
      add(m.tile, {mr, nr, 16});
    return out;
  }
  if (m.tile.size() != 3 || m.mma.size() != 3)
    return {m};
  int64_t mr = m.mma[0], kq = m.kernel == "cpu-fma" ? 1 : m.mma[2];
  if (m.kernel == "cpu-amx-bf16" || m.kernel == "cpu-amx-int8")
    mr = 16; // an M block is whole 16-row tiles
  add(m.tile, m.mma);
  for (int64_t mf : {1, 2, 4})
    for (int64_t kf : {1, 2, 4}) {
      SmallVector<int64_t, 3> t = m.tile;
      t[0] = roundTo(m.tile[0] * mf / 2, mr);
      t[2] = roundTo(m.tile[2] * kf / 2, std::max<int64_t>(kq, 64));
      add(t, m.mma);
    }
  if (m.kernel == "cpu-fma" && m.mma[1] == 64) {
    add(m.tile, {4, 64, 1});
    add(m.tile, {8, 32, 1});
  }
  return out;
}
} // namespace

/// The calibrated time model (docs/configure.md, "Calibrated time
/// model"): per kernel, this run's cases join the samples the cache's
/// calibration holds (a case measured again replaces its old sample), the
/// rates are fitted to all of them and written back. Each case's time is
/// predicted three ways: by the calibration the cache held before this run
/// (out of sample unless the case was among its samples), by a fit that
/// leaves the case out, and by the catalogue roofline.
static void calibrateTimeModel(MLIRContext &ctx, accel::CpuTuningCache &cache,
                               std::vector<TuneCase> &cases,
                               const std::string &cpu) {
  int64_t threads = benchThreads;
  accel::TargetAttr target = accel::lookupTarget(&ctx, cpu);
  // The byte term counts operands larger than the cores' L2 (the bound of
  // accel::getCalibratedSeconds uses the same size).
  double cacheBytes = double(target.getL2Kib()) * 1024 * threads;
  llvm::outs() << llvm::formatv(
      "\nCalibrated time model on {0}, {1} thread(s): time = FLOPs / rate + "
      "softmax elements x their cost + bytes beyond the L2 x their cost + a "
      "call's cost, fitted per kernel to the medians above (the tiles the configuration stage "
      "runs) and the cache's earlier samples; predicted ÷ measured by the "
      "cache's calibration before this run (\"in fit\": the case was "
      "among its samples), by a fit leaving the case out, and by the "
      "catalogue roofline\n",
      cpu, threads);
  llvm::outs() << "| case | kernel | measured ms | before this run | "
                  "leave one out | roofline |\n|---|---|---|---|---|---|\n";
  std::vector<std::string> kernels;
  for (const TuneCase &c : cases)
    if (!c.kernel.empty() && !llvm::is_contained(kernels, c.kernel))
      kernels.push_back(c.kernel);
  std::vector<std::string> summary;
  for (const std::string &kernel : kernels) {
    const accel::CpuKernelCalibration *before =
        cache.findCalibration(cpu, kernel, threads);
    std::vector<accel::CpuTimingSample> samples;
    if (before)
      for (const accel::CpuTimingSample &s : before->samples)
        if (llvm::none_of(cases, [&](const TuneCase &c) {
              return c.kernel == kernel && c.label == s.label;
            }))
          samples.push_back(s);
    size_t earlier = samples.size();
    for (const TuneCase &c : cases)
      if (c.kernel == kernel)
        samples.push_back(
            {c.label, c.kernelFlop, c.kernelScores, c.bytes, c.measuredMs});
    auto ratio = [](double predicted, double measured) {
      return llvm::formatv("{0:f2}", predicted / measured).str();
    };
    double worst = 0;
    size_t loo = 0;
    for (size_t i = earlier; i < samples.size(); ++i) {
      const accel::CpuTimingSample &s = samples[i];
      const TuneCase &c = *llvm::find_if(cases, [&](const TuneCase &c) {
        return c.kernel == kernel && c.label == s.label;
      });
      // What a calibration predicts for this case, in ms.
      auto predict = [&](const accel::CpuKernelCalibration &cal) {
        accel::RooflineCost cost;
        cost.flops = s.flops;
        cost.scores = s.scores;
        cost.bytes = s.bytes;
        return accel::getCalibratedSeconds(cost, cal, target, threads) * 1e3;
      };
      std::string beforeText = "-";
      if (before) {
        bool inFit = llvm::any_of(before->samples,
                                  [&](auto &o) { return o.label == s.label; });
        beforeText = ratio(predict(*before), s.ms) + (inFit ? " (in fit)" : "");
      }
      std::vector<accel::CpuTimingSample> others = samples;
      others.erase(others.begin() + i);
      std::optional<accel::CpuKernelCalibration> without =
          accel::fitCpuKernelCalibration(cpu, kernel, threads, cacheBytes,
                                         others);
      std::string looText = "-";
      if (without) {
        double r = predict(*without) / s.ms;
        worst = std::max(worst, std::fabs(r - 1));
        ++loo;
        looText = ratio(r, 1.0);
      }
      llvm::outs() << llvm::formatv("| {0} | {1} | {2:f3} | {3} | {4} | "
                                    "{5} |\n",
                                    s.label, kernel, s.ms, beforeText, looText,
                                    ratio(c.rooflineMs, s.ms));
    }
    std::optional<accel::CpuKernelCalibration> fit =
        accel::fitCpuKernelCalibration(cpu, kernel, threads, cacheBytes,
                                       samples);
    if (!fit)
      continue;
    cache.putCalibration(*fit);
    summary.push_back(llvm::formatv(
        "| {0} | {1:f1} | {2:f3} | {3:f4} | {4:f1} | {5} ({6} earlier) | {7} "
        "|",
        kernel, fit->gflops, fit->nsPerScore, fit->nsPerByte, fit->usPerCall,
        samples.size(), earlier,
        loo ? llvm::formatv("{0:f0} %", worst * 100).str() : std::string("-")));
  }
  llvm::outs() << "\n| kernel | rate GFLOP/s | ns a softmax element | ns a "
                  "byte | us a call | samples | worst leave-one-out error |\n"
                  "|---|---|---|---|---|---|---|\n";
  for (const std::string &row : summary)
    llvm::outs() << row << "\n";
}

void benchTune(MLIRContext &ctx, const accel::TargetSpec &spec) {
  accel::AccelCpuPipelineOptions hostOptions;
  std::string features = accel::hostCompileFeatures(hostOptions);
  std::string cpu = accel::cpuTuningCpu(features, ModuleOp());
  accel::CpuTuningCache cache;
  if (llvm::sys::fs::exists(tuningCachePath)) {
    auto loaded = accel::loadCpuTuningCache(tuningCachePath);
    if (!loaded) {
      llvm::errs() << "accel-bench: " << tuningCachePath << ": "
                   << llvm::toString(loaded.takeError()) << "\n";
      std::exit(1);
    }
    cache = std::move(*loaded);
  }
  bool amx = accel::hasCpuFeature(features, "amx-tile"),
       bf16 = amx || accel::hasCpuFeature(features, "avx512bf16"),
       i8 = amx || accel::hasCpuFeature(features, "avx512vnni");
  std::vector<GemmShape> shapes;
  for (int64_t n : quick ? std::vector<int64_t>{256, 512}
                         : std::vector<int64_t>{256, 512, 1024, 2048})
    shapes.push_back({n, n, n, false});
  if (!gemmShapes.empty()) {
    std::vector<Shape> given;
    if (!parseGemmShapes(given))
      std::exit(1);
    shapes.clear();
    for (const Shape &g : given)
      shapes.push_back({g.m, g.n, g.k, g.transB});
  }
  std::vector<int64_t> lengths(attnLengths.begin(), attnLengths.end()),
      dims(attnHeadDims.begin(), attnHeadDims.end());
  if (lengths.empty())
    lengths = quick ? std::vector<int64_t>{512} : std::vector<int64_t>{1024,
                                                                       2048};
  if (dims.empty())
    dims = {64, 128};
  std::vector<TuneCase> cases;
  for (const char *dtype : {"f32", "bf16", "i8"}) {
    if ((std::string(dtype) == "bf16" && !bf16) ||
        (std::string(dtype) == "i8" && !i8))
      continue;
    for (const GemmShape &s : shapes) {
      int64_t m = s.m, n = s.n, k = s.k;
      SmallVector<int64_t, 2> bDims = s.transB ? SmallVector<int64_t, 2>{n, k}
                                               : SmallVector<int64_t, 2>{k, n};
      TuneCase c;
      c.label = std::string(dtype) + " GEMM " + s.label();
      c.name = "mm";
      c.flop = 2.0 * m * n * k;
      std::string d = dtype;
      c.peakKind = d;
      // A, B of `In` and C of `Out`, owned by the case's closures; C is
      // filled with `unwritten` before each checked call.
      auto bindGemm = [&](auto a, auto b, auto o, auto unwritten) {
        c.bind = [=](AccelKernel &kern) {
          kern.call.addMemref(a->data(), {m, k});
          kern.call.addMemref(b->data(), bDims);
          kern.call.addMemref(o->data(), {m, n});
          kern.call.addResults({2});
        };
        c.clear = [=] { std::fill(o->begin(), o->end(), unwritten); };
        c.output = [=] { return std::vector<double>(o->begin(), o->end()); };
        c.bytes = double(sizeof((*a)[0])) * (m * k + k * n) +
                  double(sizeof((*o)[0])) * m * n;
      };
      if (d == "f32") {
        bindGemm(std::make_shared<std::vector<float>>(randomBuffer(m * k, 1)),
                 std::make_shared<std::vector<float>>(randomBuffer(k * n, 2)),
                 std::make_shared<std::vector<float>>(m * n), float(NAN));
        c.text = matmulText(s, "f32", "f32");
        c.tolerance = 1e-5 * k;
      } else if (d == "bf16") {
        auto bf16Of = [](const std::vector<float> &f) {
          auto v = std::make_shared<std::vector<uint16_t>>(f.size());
          std::transform(f.begin(), f.end(), v->begin(), toBf16);
          return v;
        };
        bindGemm(bf16Of(randomBuffer(m * k, 1)), bf16Of(randomBuffer(k * n, 2)),
                 std::make_shared<std::vector<float>>(m * n), float(NAN));
        c.text = matmulText(s, "bf16", "f32");
        c.tolerance = 1e-5 * k;
      } else {
        std::mt19937 rng(3);
        auto i8Of = [&](int64_t size) {
          auto v = std::make_shared<std::vector<int8_t>>(size);
          for (int8_t &x : *v)
            x = int8_t(int(rng() % 256) - 128);
          return v;
        };
        bindGemm(i8Of(m * k), i8Of(k * n),
                 std::make_shared<std::vector<int32_t>>(m * n), INT32_MIN);
        c.text = matmulText(s, "i8", "i32");
        c.tolerance = 0;
      }
      cases.push_back(std::move(c));
    }
  }
  // f32 attention, and bf16 where the host multiplies bf16 (AMX: the
  // cpu-flash-amx kernel), so that both kernels get tiles and a
  // calibration.
  std::vector<std::string> attnTypes = {"f32"};
  if (bf16)
    attnTypes.push_back("bf16");
  for (const std::string &dtype : attnTypes)
    for (int64_t L : lengths)
      for (int64_t d : dims)
        for (bool causal : {false, true}) {
          int64_t H = attnHeads, n = H * L * d;
          bool isBf16 = dtype == "bf16";
          TuneCase c;
          c.label = dtype + " attention H" + std::to_string(H) + " L" +
                    std::to_string(L) + " d" + std::to_string(d) +
                    (causal ? " causal" : "");
          c.name = "attn";
          c.peakKind = dtype;
          c.text = attentionText(H, L, d, causal);
          // Q, K, V and O of one element type, owned by the case's
          // closures; O is filled with `unwritten` before each checked call.
          auto bindAttention = [&](auto q, auto kk, auto v, auto o,
                                   auto unwritten, auto toDouble) {
            c.bind = [=](AccelKernel &k) {
              for (auto *buf : {q.get(), kk.get(), v.get(), o.get()})
                k.call.addMemref(buf->data(), {1, H, L, d});
              k.call.addResults({4});
            };
            c.clear = [=] { std::fill(o->begin(), o->end(), unwritten); };
            c.output = [=] {
              std::vector<double> out(o->size());
              std::transform(o->begin(), o->end(), out.begin(), toDouble);
              return out;
            };
            c.bytes = 4.0 * double(sizeof((*o)[0])) * n;
          };
          if (isBf16) {
            // Every operand and the output bf16 (the text is f32's).
            for (size_t at = c.text.find("f32>"); at != std::string::npos;
                 at = c.text.find("f32>", at))
              c.text.replace(at, 3, "bf16");
            auto bf16Of = [](const std::vector<float> &f) {
              auto v = std::make_shared<std::vector<uint16_t>>(f.size());
              std::transform(f.begin(), f.end(), v->begin(), toBf16);
              return v;
            };
            bindAttention(bf16Of(randomBuffer(n, 1)), bf16Of(randomBuffer(n, 2)),
                          bf16Of(randomBuffer(n, 3)),
                          std::make_shared<std::vector<uint16_t>>(n),
                          uint16_t(0x7fc0),
                          [](uint16_t h) { return double(fromBf16(h)); });
            // Other tiles round P to bf16 against other running maxima and
            // the output to bf16: a few bf16 ulps of |O| <= 1.
            c.tolerance = 3e-2;
          } else {
            auto f32Of = [](std::vector<float> f) {
              return std::make_shared<std::vector<float>>(std::move(f));
            };
            bindAttention(f32Of(randomBuffer(n, 1)), f32Of(randomBuffer(n, 2)),
                          f32Of(randomBuffer(n, 3)),
                          std::make_shared<std::vector<float>>(n), float(NAN),
                          [](float x) { return double(x); });
            c.tolerance = 1e-4;
          }
          c.flop = 4.0 * H * L * L * d * (causal ? 0.5 : 1.0);
          c.scores = double(H) * L * L * (causal ? 0.5 : 1.0);
          cases.push_back(std::move(c));
        }

  auto peakOf = [&](const std::string &kind) {
    double tflops = kind == "bf16" ? spec.peakBf16
                    : kind == "i8" ? spec.peakI8
                                   : spec.peakF32;
    return tflops * 1e12 * benchThreads;
  };
  llvm::outs() << llvm::formatv(
      "\nTuning on {0} ({1}), {2} thread(s); cache {3}\n"
      "candidates around the configuration stage's tiles, each checked "
      "against the model's result; ms are medians; tuned/untuned measured "
      "again after the search (kept when >= {4:f2})\n",
      cpu, hostCpuModel(), int(benchThreads), tuningCachePath,
      double(tuneMinGain));
  llvm::outs() << "| case | kernel | model tiles | model ms | best tiles | "
                  "best ms | tuned ÷ untuned | kept | predicted ms | "
                  "predicted ÷ measured |\n|---|---|---|---|---|---|---|---|"
                  "---|---|\n";
  for (TuneCase &c : cases) {
    std::optional<accel::CpuTuningEntry> model =
        modelChoice(ctx, c.text, features);
    if (!model) {
      llvm::errs() << "accel-bench: cannot configure " << c.label << "\n";
      std::exit(1);
    }
    model->cpu = cpu;
    std::vector<accel::CpuTuningEntry> cands = candidatesAround(*model);
    std::vector<std::unique_ptr<AccelKernel>> kernels;
    std::vector<accel::CpuTuningEntry> kept;
    std::vector<double> reference;
    for (const accel::CpuTuningEntry &e : cands) {
      auto k = std::make_unique<AccelKernel>();
      k->name = c.name;
      bool isModel = &e == &cands.front(); // the model's tiles come first
      {
        // A candidate the configuration stage refuses is skipped.
        ScopedDiagnosticHandler silence(&ctx, [](Diagnostic &) {
          return success();
        });
        if (!compile(ctx, withConfig(c.text, configText(e)), *k)) {
          if (isModel) {
            llvm::errs() << "accel-bench: " << c.label
                         << ": the model's own tiles do not compile\n";
            std::exit(1);
          }
          continue;
        }
      }
      c.bind(*k);
      c.clear();
      (*k)();
      std::vector<double> out = c.output();
      if (isModel) {
        reference = out;
      } else {
        double diff = 0;
        for (size_t i = 0; i < out.size(); ++i) {
          double d = std::fabs(out[i] - reference[i]);
          diff = std::isnan(d) ? d : std::max(diff, d);
          if (std::isnan(d))
            break;
        }
        if (!(diff <= c.tolerance)) {
          llvm::outs() << "  " << c.label << ": tiles " << listText(e.tile)
                       << " " << listText(e.mma) << " differ from the model's "
                       << "result by " << diff << ": skipped\n";
          continue;
        }
      }
      kernels.push_back(std::move(k));
      kept.push_back(e);
    }
    std::vector<std::function<void()>> fns;
    for (auto &k : kernels)
      fns.push_back(std::ref(*k));
    std::vector<Timing> t = timeInterleaved(fns);
    size_t best = 0;
    for (size_t i = 1; i < t.size(); ++i)
      if (t[i].median < t[best].median)
        best = i;
    // The winner's time is biased low (the best of many): measure the two
    // again, interleaved.
    double gain = 1.0, untunedMs = t[0].median * 1e3,
           bestMs = t[best].median * 1e3;
    if (best != 0) {
      std::vector<Timing> again = timeInterleaved(
          {std::ref(*kernels[0]), std::ref(*kernels[best])});
      untunedMs = again[0].median * 1e3;
      bestMs = again[1].median * 1e3;
      gain = untunedMs / bestMs;
    }
    // --tune-min-gain <= 0 keeps every case's best, the model's tiles
    // included (tests: a known number of entries to read back).
    bool keep = tuneMinGain <= 0 || (best != 0 && gain >= tuneMinGain);
    double predictedMs =
        std::max(c.flop / peakOf(c.peakKind),
                 c.bytes / (spec.memoryGbps * 1e9 * benchThreads)) *
        1e3;
    double measuredMs = keep ? bestMs : untunedMs;
    c.kernel = model->kernel;
    c.measuredMs = measuredMs;
    c.rooflineMs = predictedMs;
    c.kernelFlop = c.flop;
    c.kernelScores = c.scores;
    {
      const accel::CpuTuningEntry &ran = keep ? kept[best] : kept[0];
      OwningOpRef<ModuleOp> configured = parseSourceString<ModuleOp>(
          withConfig(c.text, configText(ran)), &ctx);
      if (configured)
        configured->walk([&](Operation *op) {
          if (!op->hasAttr(accel::kLoweringConfigAttrName))
            return;
          if (std::optional<accel::RooflineCost> w = accel::getKernelCost(op)) {
            c.kernelFlop = w->flops;
            c.kernelScores = w->scores;
          }
        });
    }
    if (keep) {
      accel::CpuTuningEntry e = kept[best];
      e.untunedMs = untunedMs;
      e.tunedMs = bestMs;
      e.predictedMs = predictedMs;
      e.threads = benchThreads;
      cache.put(e);
    } else {
      // The model's tiles won: an entry from an earlier run goes.
      cache.erase(cpu, model->key, benchThreads);
    }
    auto tiles = [](const accel::CpuTuningEntry &e) {
      return listText(e.tile) + (e.mma.empty() ? "" : " " + listText(e.mma));
    };
    llvm::outs() << llvm::formatv(
        "| {0} | {1} | {2} | {3:f3} | {4} | {5:f3} | {6:f2} | {7} | {8:f3} "
        "| {9:f2} |\n",
        c.label, model->kernel, tiles(*model), untunedMs, tiles(kept[best]),
        bestMs, gain, keep ? "yes" : "no (model)", predictedMs,
        predictedMs / measuredMs);
    llvm::outs().flush();
  }
  calibrateTimeModel(ctx, cache, cases, cpu);
  std::string text = accel::printCpuTuningCache(cache);
  std::error_code ec;
  llvm::raw_fd_ostream file(tuningCachePath, ec);
  if (ec) {
    llvm::errs() << "accel-bench: cannot write " << tuningCachePath << ": "
                 << ec.message() << "\n";
    std::exit(1);
  }
  file << text;
  file.close();
  // The configuration stage reads back what was written.
  int readBack = 0, entries = 0;
  for (TuneCase &c : cases) {
    std::optional<accel::CpuTuningEntry> model =
        modelChoice(ctx, c.text, features);
    const accel::CpuTuningEntry *e =
        model ? cache.find(cpu, model->key, benchThreads) : nullptr;
    if (!e)
      continue;
    ++entries;
    std::optional<accel::CpuTuningEntry> read =
        modelChoice(ctx, c.text, features, tuningCachePath);
    readBack += read && read->tile == e->tile && read->mma == e->mma;
  }
  llvm::outs() << llvm::formatv("\nwrote {0} ({1} entries); the "
                                "configuration stage reads back {2} of the "
                                "{3} for these cases\n",
                                tuningCachePath, cache.entries.size(),
                                readBack, entries);
  if (readBack != entries)
    std::exit(1);
}

//===----------------------------------------------------------------------===//
// --mode=dequant: weight-only int4/int8 GEMV against bf16 weights
//===----------------------------------------------------------------------===//

/// Σ of `n` 64-bit words: integer adds the compiler vectorises, so the
/// loop runs at the speed of the loads, with software prefetch 4 KiB ahead
/// (without it one core kept fewer lines in flight than the dequant
/// kernels, which prefetch too, and read 10.7 GB/s where they reached
/// 13.4).
uint64_t sumWords(const uint64_t *p, size_t n) {
  uint64_t acc[8] = {};
  for (size_t i = 0; i + 8 <= n; i += 8) {
    __builtin_prefetch(p + i + 512, 0, 3);
    for (int j = 0; j < 8; ++j)
      acc[j] += p[i + j];
  }
  uint64_t s = 0;
  for (uint64_t a : acc)
    s += a;
  return s;
}

/// The read bandwidth of this host's memory in GB/s, on `threads` threads:
/// the best of 3 passes over 1 GiB (far past every cache), prefetching.
double measureReadBandwidth(int threads) {
  const size_t bytes = size_t(1) << 30, n = bytes / 8;
  auto *buf = static_cast<uint64_t *>(std::aligned_alloc(64, bytes));
#pragma omp parallel for num_threads(threads) schedule(static)
  for (size_t i = 0; i < n; ++i)
    buf[i] = i;
  double best = 0;
  uint64_t sink = 0;
  for (int s = 0; s < 3; ++s) {
    auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel num_threads(threads) reduction(+ : sink)
    {
      size_t nt = omp_get_num_threads(), chunk = n / nt / 8 * 8;
      sink += sumWords(buf + omp_get_thread_num() * chunk, chunk);
    }
    double t =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
            .count();
    best = std::max(best, double(bytes) / t / 1e9);
  }
  std::free(buf);
  if (sink == 12345)
    llvm::outs() << "";
  return best;
}

static cl::list<int64_t>
    dequantRows("dequant-rows",
                cl::desc("--mode=dequant: rows M of A (default 1, 8, 16)"),
                cl::CommaSeparated);
static cl::opt<std::string> dequantKernel(
    "dequant-kernel",
    cl::desc("--mode=dequant: the kernels' configuration: auto (the "
             "configuration stage's), fma (the table kernel for int4, the "
             "converting one for int8, the stage's register tile for M "
             "rows), amx (cpu-dequant-amx from 1 row)"),
    cl::init("auto"));

/// accel.dequant_matmul (int4 with zero points, int8 symmetric; groups of
/// 128) and oneDNN's bf16 matmul with the same weights in bf16, at the
/// decode shapes of issue 31: M = 1, 8, 16 rows against W [N, K] =
/// 4096 x 4096 and 14336 x 4096. Ratios: int4 ÷ oneDNN bf16 (the issue's
/// "int4 weight-only ÷ bf16 weights", goal 3.0) and the bytes int4 reads ÷
/// the memory's read bandwidth measured in this run (goal 0.8).
void benchDequant(MLIRContext &ctx) {
  if (dequantKernel != "auto" && dequantKernel != "fma" &&
      dequantKernel != "amx") {
    llvm::errs() << "accel-bench: --dequant-kernel must be auto, fma or amx "
                    "(got '"
                 << dequantKernel << "')\n";
    std::exit(1);
  }
  // Why oneDNN has no bf16 matmul here (empty when it has one).
  std::string dnnlMissing;
  std::vector<int64_t> rows(dequantRows.begin(), dequantRows.end());
  if (rows.empty())
    rows = quick ? std::vector<int64_t>{1} : std::vector<int64_t>{1, 8, 16};
  std::vector<std::pair<int64_t, int64_t>> shapes = {{4096, 4096},
                                                     {14336, 4096}};
  if (quick)
    shapes = {{4096, 4096}};
  const int64_t group = 128;
  double stream = measureReadBandwidth(benchThreads);
  llvm::outs() << llvm::formatv(
      "\nWeight-only quantised GEMV, C[M, N] = A[M, K] (bf16) · W[N, K]ᵀ, "
      "{0} thread(s); measured read bandwidth {1:f1} GB/s (1 GiB, "
      "prefetched loads)\n",
      benchThreads, stream);
  llvm::outs() << "  int4: unsigned with zero points, int8: signed; bf16 "
                  "scales per group of 128 K. Times in µs (best of the "
                  "samples); GB/s: the int4 kernel's weight, scale and zero "
                  "point bytes ÷ its time; kernels: "
               << dequantKernel << "\n";
  llvm::outs() << llvm::formatv(
      "{0,-4} {1,-12} {2,9} {3,9} {4,10} {5,9} {6,9} {7,10} {8,10} {9,11} "
      "{10,9}\n",
      "M", "N x K", "int4", "int8", "dnnl bf16", "int4 GB/s", "÷ stream",
      "bf16÷int4", "bw16÷int4", "bf16÷int8", "err/gate");
  dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  dnnl::stream dstream(engine);
  for (auto shape : shapes) {
    int64_t n = shape.first, k = shape.second;
    std::mt19937 rng(31);
    std::uniform_int_distribution<int> byte(0, 255), nib(0, 15);
    std::uniform_real_distribution<float> unit(0.5f, 1.5f);
    int64_t groups = k / group;
    std::vector<int8_t> w4(n * k / 2), w8(n * k);
    for (auto &b : w4)
      b = int8_t(byte(rng));
    for (auto &b : w8)
      b = int8_t(byte(rng));
    std::vector<uint16_t> s4(n * groups), z4(n * groups), s8(n * groups);
    for (int64_t i = 0; i < n * groups; ++i) {
      s4[i] = toBf16(unit(rng) / 64);
      z4[i] = toBf16(float(nib(rng)));
      s8[i] = toBf16(unit(rng) / 1024);
    }
    // The same weights in bf16, [K, N] for oneDNN's matmul.
    auto w4At = [&](int64_t r, int64_t c) {
      int b = uint8_t(w4[r * k / 2 + c / 2]);
      int q = c % 2 ? b >> 4 : b & 15;
      float zf, sf;
      uint32_t zb = uint32_t(z4[r * groups + c / group]) << 16,
               sb = uint32_t(s4[r * groups + c / group]) << 16;
      std::memcpy(&zf, &zb, 4);
      std::memcpy(&sf, &sb, 4);
      return (float(q) - zf) * sf;
    };
    std::vector<uint16_t> wb(k * n);
    for (int64_t r = 0; r < n; ++r)
      for (int64_t c = 0; c < k; ++c)
        wb[c * n + r] = toBf16(w4At(r, c));
    for (int64_t m : rows) {
      auto af = randomBuffer(m * k, 32);
      std::vector<uint16_t> a(m * k);
      for (int64_t i = 0; i < m * k; ++i)
        a[i] = toBf16(af[i]);
      std::vector<float> c4(m * n), c8(m * n), cd(m * n);
      auto tt = [](std::initializer_list<int64_t> d, const char *e) {
        std::string t = "tensor<";
        for (int64_t x : d)
          t += std::to_string(x) + "x";
        return t + e + ">";
      };
      std::string ta = tt({m, k}, "bf16"), tc = tt({m, n}, "f32"),
                  ts = tt({n, groups}, "bf16");
      // A written configuration (--dequant-kernel), the register tile the
      // stage picks for m rows on AVX-512 (accel-cpu-configure).
      auto config = [&](int bits) -> std::string {
        if (dequantKernel == "auto")
          return "";
        std::string mma = m < 2   ? "[1, 8, 32]"
                          : m < 4 ? "[2, 8, 32]"
                                  : "[4, 4, 32]";
        if (dequantKernel == "amx")
          return " {accel.lowering_config = #accel.lowering_config<kernel = "
                 "\"cpu-dequant-amx\", tile = [1, 16], mma = " +
                 mma + ">}";
        return std::string(
                   " {accel.lowering_config = #accel.lowering_config<kernel "
                   "= \"") +
               (bits == 4 ? "cpu-dequant-lut" : "cpu-dequant") +
               "\", mma = " + mma + ">}";
      };
      auto text = [&](int bits) {
        std::string tw = tt({n, k * bits / 8}, "i8");
        std::string zArg = bits == 4 ? ", %z: " + ts : "";
        std::string zUse =
            bits == 4 ? " zero_points(%z : " + ts + ")" : "";
        return "func.func @dq(%a: " + ta + ", %w: " + tw + ", %s: " + ts +
               zArg + ", %c: " + tc + ") -> " + tc +
               " {\n  %0 = accel.dequant_matmul bits(" + std::to_string(bits) +
               ") group(" + std::to_string(group) + ")" +
               (bits == 4 ? " unsigned" : "") + " ins(%a, %w : " + ta + ", " +
               tw + ") scales(%s : " + ts + ")" + zUse + " outs(%c : " + tc +
               ")" + config(bits) + " -> " + tc + "\n  return %0 : " + tc +
               "\n}\n";
      };
      AccelKernel k4, k8;
      k4.name = k8.name = "dq";
      if (!compile(ctx, text(4), k4) || !compile(ctx, text(8), k8))
        std::exit(1);
      // Cold weights, as in a decode step (every layer's weights read
      // once; together far past the caches): each kernel cycles through
      // copies of its weights and scales totalling >= 256 MB, more than
      // twice the largest L3 we meet (105 MiB on Sapphire Rapids).
      auto copiesOf = [](double bytes) {
        return std::max<int64_t>(2, int64_t(std::ceil(256e6 / bytes)));
      };
      int64_t n4 = copiesOf(double(w4.size()) + 4.0 * s4.size()),
              n8 = copiesOf(double(w8.size()) + 2.0 * s8.size()),
              nb = copiesOf(2.0 * double(wb.size()));
      std::vector<std::vector<int8_t>> w4c(n4, w4), w8c(n8, w8);
      std::vector<std::vector<uint16_t>> s4c(n4, s4), z4c(n4, z4),
          s8c(n8, s8), wbc(nb, wb);
      std::deque<accel::PackedCall> calls4(n4), calls8(n8);
      for (int64_t i = 0; i < n4; ++i) {
        calls4[i].addMemref(a.data(), {m, k});
        calls4[i].addMemref(w4c[i].data(), {n, k / 2});
        calls4[i].addMemref(s4c[i].data(), {n, groups});
        calls4[i].addMemref(z4c[i].data(), {n, groups});
        calls4[i].addMemref(c4.data(), {m, n});
        calls4[i].addResults({2});
      }
      for (int64_t i = 0; i < n8; ++i) {
        calls8[i].addMemref(a.data(), {m, k});
        calls8[i].addMemref(w8c[i].data(), {n, k});
        calls8[i].addMemref(s8c[i].data(), {n, groups});
        calls8[i].addMemref(c8.data(), {m, n});
        calls8[i].addResults({2});
      }
      size_t i4 = 0, i8 = 0, ib = 0;
      auto rotate = [](AccelKernel &kernel, std::deque<accel::PackedCall> &calls,
                       size_t &i) {
        if (llvm::Error e = calls[i++ % calls.size()].invoke(*kernel.engine,
                                                             kernel.name)) {
          llvm::errs() << "accel-bench: " << llvm::toString(std::move(e))
                       << "\n";
          std::exit(1);
        }
      };
      auto run4 = [&] { rotate(k4, calls4, i4); };
      auto run8 = [&] { rotate(k8, calls8, i8); };
      DnnlMatmul dnnlBf16(engine, dstream, m, n, k,
                          dnnl::memory::data_type::bf16,
                          dnnl::memory::data_type::f32, a.data(), wb.data(),
                          cd.data());
      // oneDNN's bf16 matmul needs AVX-512: without it the bf16 columns
      // are n/a (dnnlMissing says why, below the table).
      bool haveBf16 = dnnlBf16.missing.empty();
      if (!haveBf16)
        dnnlMissing = dnnlBf16.missing;
      std::vector<dnnl::memory> wbMem;
      if (haveBf16)
        for (auto &copy : wbc)
          wbMem.emplace_back(dnnlBf16.b.get_desc(), engine, copy.data());
      auto runBf16 = [&] {
        dnnlBf16.prim.execute(dstream,
                              {{DNNL_ARG_SRC, dnnlBf16.a},
                               {DNNL_ARG_WEIGHTS, wbMem[ib++ % wbMem.size()]},
                               {DNNL_ARG_DST, dnnlBf16.c}});
        dstream.wait();
      };
      std::vector<Timing> t = haveBf16 ? timeInterleaved({run4, run8, runBf16})
                                       : timeInterleaved({run4, run8});
      // int4 against fp64 on 64 sampled columns of each row: the error ÷
      // the f32 matmul gate γ_K·Σ|a·w| (+ u·|r|).
      run4();
      double worst = 0;
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; j += std::max<int64_t>(1, n / 64)) {
          double dot = 0, mag = 0;
          for (int64_t p = 0; p < k; ++p) {
            uint32_t ab = uint32_t(a[i * k + p]) << 16;
            float x;
            std::memcpy(&x, &ab, 4);
            double y = w4At(j, p);
            dot += double(x) * y;
            mag += std::fabs(double(x) * y);
          }
          double u = std::ldexp(1.0, -24);
          double gate = u * std::fabs(dot) + k * u / (1 - k * u) * mag;
          worst = std::max(worst, std::fabs(c4[i * n + j] - dot) / gate);
        }
      double bytes4 = double(n) * k / 2 + 2.0 * 2 * n * groups;
      double gbs = bytes4 / t[0].best / 1e9;
      // A bf16 GEMV can at best stream its weights at the read bandwidth.
      double bf16AtBandwidth = 2.0 * double(n) * k / (stream * 1e9);
      // The bf16 columns: n/a where oneDNN has no bf16 matmul.
      auto bf16 = [&](const char *fmt, double v) {
        return haveBf16 ? llvm::formatv(fmt, v).str() : std::string("n/a");
      };
      llvm::outs() << llvm::formatv(
          "{0,-4} {1,-12} {2,9:f1} {3,9:f1} {4,10} {5,9:f1} {6,9:f2} "
          "{7,10} {8,10:f2} {9,11} {10,9:f3}\n",
          m, std::to_string(n) + "x" + std::to_string(k), t[0].best * 1e6,
          t[1].best * 1e6, bf16("{0:f1}", haveBf16 ? t[2].best * 1e6 : 0), gbs,
          gbs / stream, bf16("{0:f2}", haveBf16 ? t[2].best / t[0].best : 0),
          bf16AtBandwidth / t[0].best,
          bf16("{0:f2}", haveBf16 ? t[2].best / t[1].best : 0), worst);
      if (!(worst <= 1.0)) {
        llvm::errs() << "accel-bench: the int4 kernel's result is outside "
                        "the fp64 gate (err/gate "
                     << worst << ")\n";
        std::exit(1);
      }
    }
  }
  llvm::outs() << "  oneDNN bf16: matmul primitive, weights [K, N] bf16 (AMX "
                  "or AVX512-BF16 where the CPU has them); bw16: a bf16 GEMV "
                  "reading its weights at the measured bandwidth (the best "
                  "any bf16 kernel can do); every kernel cycles through "
                  ">= 256 MB of weight copies (cold, as in a decode step)\n";
  if (!dnnlMissing.empty())
    llvm::outs() << "  oneDNN bf16 n/a: " << dnnlMissing << "\n";
}

//===----------------------------------------------------------------------===//
// --mode=decode: paged decode attention against the read bandwidth
//===----------------------------------------------------------------------===//

static cl::list<int64_t>
    decodeContexts("decode-contexts",
                   cl::desc("--mode=decode: context lengths (default 4096, "
                            "8192, 16384, 32768)"),
                   cl::CommaSeparated);

/// accel.paged_attention at issue 31's decode shapes: one sequence, 32
/// query heads over 8 KV heads, D = 128, 16-token pages scattered through
/// the pool (a random permutation), the whole context kept; bf16 and f32
/// caches. Ratio: the K and V bytes a call must read ÷ its time ÷ the
/// memory's read bandwidth measured in this run (goal 0.8). Each call reads
/// one of several copies of the pool (>= 256 MB in all), so the cache
/// comes from DRAM, as in a decode step over many layers. The output is
/// checked against a float64 reference of the op on every head.
void benchDecode(MLIRContext &ctx) {
  std::vector<int64_t> contexts(decodeContexts.begin(), decodeContexts.end());
  if (contexts.empty())
    contexts = quick ? std::vector<int64_t>{8192}
                     : std::vector<int64_t>{4096, 8192, 16384, 32768};
  const int64_t hq = 32, hkv = 8, d = 128, page = 16;
  double stream = measureReadBandwidth(benchThreads);
  llvm::outs() << llvm::formatv(
      "\nPaged decode attention (accel.paged_attention): Hq {0}, Hkv {1}, "
      "D {2}, pages of {3} tokens, one sequence, {4} thread(s); measured "
      "read bandwidth {5:f1} GB/s (1 GiB, prefetched loads)\n",
      hq, hkv, d, page, benchThreads, stream);
  llvm::outs() << llvm::formatv("{0,-6} {1,8} {2,10} {3,10} {4,9} {5,9} "
                                "{6,9}\n",
                                "cache", "context", "KV MB", "time µs", "GB/s",
                                "÷ stream", "err/gate");
  for (bool bf16 : {true, false})
    for (int64_t ctxLen : contexts) {
      int64_t pages = ctxLen / page;
      const char *et = bf16 ? "bf16" : "f32";
      size_t elt = bf16 ? 2 : 4;
      auto tt = [&](std::initializer_list<int64_t> dims, const char *e) {
        std::string t = "tensor<";
        for (int64_t x : dims)
          t += std::to_string(x) + "x";
        return t + e + ">";
      };
      std::string tq = tt({1, hq, 1, d}, et),
                  tk = tt({pages, page, hkv, d}, et),
                  tb = tt({1, pages}, "i32"), to = tt({1, hq, 1, d}, "f32");
      std::string text =
          "func.func @decode(%q: " + tq + ", %kc: " + tk + ", %vc: " + tk +
          ", %bt: " + tb + ", %len: tensor<1xi32>, %o: " + to + ") -> " + to +
          " {\n  %0 = accel.paged_attention ins(%q, %kc, %vc : " + tq + ", " +
          tk + ", " + tk + ") block_table(%bt : " + tb +
          ") kv_lengths(%len : tensor<1xi32>) outs(%o : " + to + ") -> " + to +
          "\n  return %0 : " + to + "\n}\n";
      AccelKernel kernel;
      kernel.name = "decode";
      if (!compile(ctx, text, kernel))
        std::exit(1);
      std::mt19937 rng(7);
      std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
      size_t poolElems = size_t(pages) * page * hkv * d;
      double kvBytes = 2.0 * double(poolElems) * double(elt);
      int64_t copies =
          std::max<int64_t>(2, int64_t(std::ceil(256e6 / kvBytes)));
      // Values rounded to the cache's type, kept as floats for the
      // reference; the buffers hold the cache's bytes.
      auto fill = [&](size_t n, std::vector<float> &vals) {
        vals.resize(n);
        for (float &v : vals)
          v = bf16 ? fromBf16(toBf16(unit(rng))) : unit(rng);
      };
      std::vector<float> qv, kv, vv;
      fill(size_t(hq) * d, qv);
      fill(poolElems, kv);
      fill(poolElems, vv);
      auto bytesOf = [&](const std::vector<float> &vals) {
        std::vector<uint8_t> out(vals.size() * elt);
        for (size_t i = 0; i < vals.size(); ++i) {
          if (bf16) {
            uint16_t h = toBf16(vals[i]);
            std::memcpy(&out[2 * i], &h, 2);
          } else {
            std::memcpy(&out[4 * i], &vals[i], 4);
          }
        }
        return out;
      };
      std::vector<uint8_t> qb = bytesOf(qv), kb = bytesOf(kv), vb = bytesOf(vv);
      std::vector<std::vector<uint8_t>> kc(copies, kb), vc(copies, vb);
      std::vector<int32_t> table(pages);
      std::iota(table.begin(), table.end(), 0);
      std::shuffle(table.begin(), table.end(), rng);
      int32_t len = int32_t(ctxLen);
      std::vector<float> out(size_t(hq) * d, NAN);
      std::deque<accel::PackedCall> calls(copies);
      for (int64_t i = 0; i < copies; ++i) {
        calls[i].addMemref(qb.data(), {1, hq, 1, d});
        calls[i].addMemref(kc[i].data(), {pages, page, hkv, d});
        calls[i].addMemref(vc[i].data(), {pages, page, hkv, d});
        calls[i].addMemref(table.data(), {1, pages});
        calls[i].addMemref(&len, {1});
        calls[i].addMemref(out.data(), {1, hq, 1, d});
        calls[i].addResults({4});
      }
      size_t next = 0;
      auto run = [&] {
        if (llvm::Error e = calls[next++ % calls.size()].invoke(*kernel.engine,
                                                                kernel.name)) {
          llvm::errs() << "accel-bench: " << llvm::toString(std::move(e))
                       << "\n";
          std::exit(1);
        }
      };
      std::vector<Timing> t = timeInterleaved({run});
      run();
      // Float64 reference on every head: the keys through the table; the
      // gate is attention's (f32 output: 1e-5 plus the logits' f32
      // rounding, bounded here by 2^-22 · max|s| · max|v|).
      const float *res = reinterpret_cast<const float *>(
          calls[(next - 1) % calls.size()].result(0)[1]);
      double worst = 0;
      for (int64_t h = 0; h < hq; ++h) {
        int64_t hk = h / (hq / hkv);
        std::vector<double> s(ctxLen);
        double mx = -INFINITY, maxS = 0;
        for (int64_t j = 0; j < ctxLen; ++j) {
          size_t base =
              ((size_t(table[j / page]) * page + j % page) * hkv + hk) * d;
          double dot = 0;
          for (int64_t c = 0; c < d; ++c)
            dot += double(qv[h * d + c]) * kv[base + c];
          s[j] = dot / std::sqrt(double(d));
          mx = std::max(mx, s[j]);
          maxS = std::max(maxS, std::fabs(s[j]));
        }
        double l = 0;
        std::vector<double> o(d, 0.0);
        for (int64_t j = 0; j < ctxLen; ++j) {
          double p = std::exp(s[j] - mx);
          l += p;
          size_t base =
              ((size_t(table[j / page]) * page + j % page) * hkv + hk) * d;
          for (int64_t c = 0; c < d; ++c)
            o[c] += p * vv[base + c];
        }
        double gate = 1e-5 + std::ldexp(1.0, -22) * maxS;
        for (int64_t c = 0; c < d; ++c)
          worst = std::max(worst, std::fabs(res[h * d + c] - o[c] / l) / gate);
      }
      double gbs = kvBytes / t[0].best / 1e9;
      llvm::outs() << llvm::formatv("{0,-6} {1,8} {2,10:f1} {3,10:f1} {4,9:f2} "
                                    "{5,9:f2} {6,9:f3}\n",
                                    et, ctxLen, kvBytes / 1e6, t[0].best * 1e6,
                                    gbs, gbs / stream, worst);
      if (!(worst <= 1.0)) {
        llvm::errs() << "accel-bench: the paged attention's result is outside "
                        "the fp64 gate (err/gate "
                     << worst << ")\n";
        std::exit(1);
      }
    }
  llvm::outs() << "  KV MB: the keys and values one call reads; every call "
                  "reads one of several copies of the pool (>= 256 MB in "
                  "all: cold, as in a decode step)\n";
}

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
  if (!llvm::is_contained({"gemm", "attention", "precision", "all", "table",
                           "tune", "epilogue", "dequant", "decode"},
                          mode)) {
    llvm::errs() << "accel-bench: unknown --mode '" << mode
                 << "' (gemm, attention, precision, all, table, tune, "
                    "epilogue, dequant or decode)\n";
    return 1;
  }
  if (modelTarget.empty())
    modelTarget = accel::cpuTargetForFeatures(hostSimdFeatures())->name;
  const accel::TargetSpec *spec = accel::findTargetSpec(modelTarget);
  if (!spec) {
    llvm::errs() << "accel-bench: no catalogue target '" << modelTarget
                 << "'\n";
    return 1;
  }
  std::vector<Shape> parsedShapes;
  if (!parseGemmShapes(parsedShapes))
    return 1;
  if (mode == "tune" && tuningCachePath.empty()) {
    llvm::errs() << "accel-bench: --mode=tune needs --tuning-cache=FILE\n";
    return 1;
  }
  if (mode == "table" && benchThreads != 1) {
    llvm::errs() << "accel-bench: --mode=table runs one and two threads "
                    "itself; leave --bench-threads at 1\n";
    return 1;
  }
  if (mode == "table" && spec->kind != accel::TargetKind::CPU) {
    llvm::errs() << "accel-bench: --mode=table needs a CPU --model-target "
                    "(per-core figures), not '"
                 << modelTarget << "'\n";
    return 1;
  }
  roofF32 = measureF32Roof();
  // Per core on CPU entries: peak and bandwidth scale with the threads.
  double scale = spec->kind == accel::TargetKind::CPU ? benchThreads : 1;
  bandwidthGBs = spec->memoryGbps * scale;
  modelPeakGflops = spec->peakF32 * 1e3 * scale;
  llvm::outs() << llvm::formatv("accel-bench: predictions from the {0} "
                                "catalogue entry: {1:f1} GFLOP/s f32, {2:f1} "
                                "GB/s\n",
                                modelTarget, modelPeakGflops, bandwidthGBs);
  llvm::outs() << "accel-bench: CPU " << hostCpuModel() << " ("
               << llvm::sys::getHostCPUName() << "), features "
               << hostSimdFeatures() << "\n";
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
  if (mode == "table")
    benchTable(ctx, *spec);
  if (mode == "tune")
    benchTune(ctx, *spec);
  if (mode == "epilogue") {
    if (epilogueTypes != "bf16")
      benchEpilogue(ctx);
    if (epilogueTypes != "f32")
      benchEpilogueBf16(ctx);
  }
  if (mode == "decode")
    benchDecode(ctx);
  if (mode == "dequant")
    benchDequant(ctx);
  return 0;
}
