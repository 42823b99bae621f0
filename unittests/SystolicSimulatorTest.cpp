//===- SystolicSimulatorTest.cpp - the systolic array simulator -----------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// Hand-built programs: exact results against naive references, every vector
// op, every run-time fault, the default timing model's formulas and the
// SCALE-Sim v2 golden cycle counts.
//
//===----------------------------------------------------------------------===//

#include "accel/Systolic/Simulator.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <random>

using namespace sysarray;

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

MachineConfig machine(uint32_t r, uint32_t c, ElemType in) {
  MachineConfig m;
  m.rows = r;
  m.cols = c;
  m.inputType = in;
  m.accType = in == ElemType::I8 ? ElemType::I32 : ElemType::F32;
  m.spadRows = 256;
  m.accRows = 64;
  return m;
}

Buffer buffer(const std::string &name, ElemType t, std::vector<int64_t> shape,
              BufferRole role = BufferRole::Arg) {
  Buffer b;
  b.name = name;
  b.type = t;
  b.shape = std::move(shape);
  b.role = role;
  return b;
}

Instruction config(Dataflow df) {
  Instruction i;
  i.op = Opcode::Config;
  i.dataflow = df;
  return i;
}

Instruction mvin(uint32_t buf, uint64_t offset, uint32_t stride, Space space,
                 uint32_t row, uint32_t rows, uint32_t cols,
                 bool transpose = false) {
  Instruction i;
  i.op = Opcode::Mvin;
  i.buffer = buf;
  i.offset = offset;
  i.stride = stride;
  i.space = space;
  i.row = row;
  i.rows = rows;
  i.cols = cols;
  i.transpose = transpose;
  return i;
}

Instruction mvout(Space space, uint32_t row, uint32_t rows, uint32_t cols,
                  uint32_t buf, uint64_t offset, uint32_t stride,
                  bool transpose = false) {
  Instruction i = mvin(buf, offset, stride, space, row, rows, cols, transpose);
  i.op = Opcode::Mvout;
  return i;
}

Instruction preload(uint32_t bRow, uint32_t cRow, uint32_t k, uint32_t n,
                    uint32_t m, bool accumulate) {
  Instruction i;
  i.op = Opcode::Preload;
  i.bRow = bRow;
  i.cRow = cRow;
  i.k = k;
  i.n = n;
  i.m = m;
  i.accumulate = accumulate;
  return i;
}

Instruction compute(uint32_t aRow, uint32_t bRow, uint32_t m, uint32_t k,
                    uint32_t n, bool preloaded) {
  Instruction i;
  i.op = Opcode::Compute;
  i.aRow = aRow;
  i.bRow = bRow;
  i.m = m;
  i.k = k;
  i.n = n;
  i.preloaded = preloaded;
  return i;
}

Instruction vec(VecOp op, uint32_t dst, uint32_t srcA, uint32_t srcB,
                uint32_t rows, uint32_t cols, Bcast bcast = Bcast::None,
                uint8_t flags = 0, float fimm = 0.0f, int64_t iimm = 0) {
  Instruction i;
  i.op = Opcode::Vector;
  i.vop = op;
  i.dst = dst;
  i.srcA = srcA;
  i.srcB = srcB;
  i.rows = rows;
  i.cols = cols;
  i.bcast = bcast;
  i.vflags = flags;
  i.fimm = fimm;
  i.iimm = iimm;
  return i;
}

Instruction fence() { return Instruction(); }

/// r[reg] = element `offset` of i32 buffer `buf`, in [lo, hi].
Instruction sload(uint8_t reg, uint32_t buf, uint64_t offset, int64_t lo,
                  int64_t hi) {
  Instruction i;
  i.op = Opcode::Sload;
  i.reg = reg;
  i.buffer = buf;
  i.offset = offset;
  i.lo = lo;
  i.hi = hi;
  return i;
}

template <typename T> std::vector<uint8_t> bytesOf(const std::vector<T> &v) {
  std::vector<uint8_t> b(v.size() * sizeof(T));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

template <typename T> std::vector<T> valuesOf(const std::vector<uint8_t> &b) {
  std::vector<T> v(b.size() / sizeof(T));
  std::memcpy(v.data(), b.data(), b.size());
  return v;
}

std::vector<std::vector<uint8_t>> zeroBuffers(const Program &p) {
  std::vector<std::vector<uint8_t>> bufs;
  for (const Buffer &b : p.buffers)
    bufs.emplace_back(b.sizeBytes(), 0);
  return bufs;
}

SimStats run(const Program &p, std::vector<std::vector<uint8_t>> &bufs,
             TimingMode mode = TimingMode::Default) {
  SimOptions o;
  o.mode = mode;
  llvm::Expected<SimStats> s = simulate(p, bufs, o);
  if (!s) {
    ADD_FAILURE() << llvm::toString(s.takeError());
    return SimStats();
  }
  return *s;
}

SimStats runZero(const Program &p, TimingMode mode = TimingMode::Default) {
  auto bufs = zeroBuffers(p);
  return run(p, bufs, mode);
}

/// The error message of running `p` on `bufs`, "" when it succeeds.
std::string errorOf(const Program &p, std::vector<std::vector<uint8_t>> bufs) {
  llvm::Expected<SimStats> s = simulate(p, bufs);
  if (s)
    return "";
  return llvm::toString(s.takeError());
}

float bitsToFloat(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

//===----------------------------------------------------------------------===//
// Functional model
//===----------------------------------------------------------------------===//

// int8 WS, K = 8 over a 4-row array (two weight folds accumulating into the
// same rows), on top of accumulator contents close to INT32_MAX/MIN so the
// i32 sums wrap; bit-exact against a uint32 reference, and the i8 mvout
// saturates.
TEST(SystolicSimulatorTest, Int8WeightStationaryTwoFoldsWraps) {
  const uint32_t M = 6, K = 8, N = 4;
  Program p;
  p.name = "ws_i8";
  p.config = machine(4, 4, ElemType::I8);
  p.buffers = {buffer("a", ElemType::I8, {M, K}),
               buffer("w", ElemType::I8, {K, N}),
               buffer("c0", ElemType::I32, {M, N}),
               buffer("c", ElemType::I32, {M, N}, BufferRole::Result),
               buffer("c8", ElemType::I8, {M, N}, BufferRole::Result)};
  std::mt19937 rng(7);
  std::vector<int8_t> a(M * K), w(K * N);
  std::vector<int32_t> c0(M * N);
  for (auto &x : a)
    x = int8_t(int(rng() % 256) - 128);
  for (auto &x : w)
    x = int8_t(int(rng() % 256) - 128);
  // Row 0 and 1 of A and column 0 of W at the extremes: -128 * -128 * K.
  for (uint32_t k = 0; k < K; ++k) {
    a[0 * K + k] = -128;
    a[1 * K + k] = -128;
    w[k * N + 0] = -128;
    w[k * N + 1] = 127;
  }
  for (uint32_t i = 0; i < M * N; ++i)
    c0[i] = (i % 3 == 0)   ? std::numeric_limits<int32_t>::max() - 5
            : (i % 3 == 1) ? std::numeric_limits<int32_t>::min() + 3
                           : int32_t(rng() % 1000) - 500;
  p.instructions = {
      config(Dataflow::WS),
      mvin(0, 0, K, Space::Spad, 0, M, 4),  // A[:, 0:4]
      mvin(0, 4, K, Space::Spad, 8, M, 4),  // A[:, 4:8]
      mvin(1, 0, N, Space::Spad, 16, 4, N), // W[0:4]
      mvin(1, 16, N, Space::Spad, 20, 4, N),
      mvin(2, 0, N, Space::Acc, 0, M, N),
      preload(16, 0, 4, N, M, /*accumulate=*/true),
      compute(0, kNone, M, 4, N, /*preloaded=*/true),
      preload(20, 0, 4, N, M, true),
      compute(8, kNone, M, 4, N, true),
      mvout(Space::Acc, 0, M, N, 3, 0, N),
      mvout(Space::Acc, 0, M, N, 4, 0, N),
  };
  auto bufs = zeroBuffers(p);
  bufs[0] = bytesOf(a);
  bufs[1] = bytesOf(w);
  bufs[2] = bytesOf(c0);
  SimStats s = run(p, bufs);
  auto c = valuesOf<int32_t>(bufs[3]);
  auto c8 = valuesOf<int8_t>(bufs[4]);
  bool wrapped = false;
  for (uint32_t i = 0; i < M; ++i)
    for (uint32_t j = 0; j < N; ++j) {
      uint32_t ref = uint32_t(c0[i * N + j]);
      int64_t exact = c0[i * N + j];
      for (uint32_t k = 0; k < K; ++k) {
        ref += uint32_t(int32_t(a[i * K + k]) * int32_t(w[k * N + j]));
        exact += int32_t(a[i * K + k]) * int32_t(w[k * N + j]);
      }
      wrapped |= exact != int64_t(int32_t(ref));
      EXPECT_EQ(c[i * N + j], int32_t(ref)) << i << "," << j;
      EXPECT_EQ(c8[i * N + j],
                int8_t(std::clamp<int32_t>(int32_t(ref), -128, 127)));
    }
  EXPECT_TRUE(wrapped) << "the test data must make a sum wrap";
  // A[0] . W[:,0] = 8 * 16384 added to INT32_MAX - 5 wraps negative.
  EXPECT_EQ(c[0], int32_t(uint32_t(std::numeric_limits<int32_t>::max() - 5) +
                          8u * 16384u));
  EXPECT_EQ(s.macs, uint64_t(M) * K * N);
  EXPECT_EQ(s.folds, 2u);
  EXPECT_DOUBLE_EQ(s.mappingEfficiency, 1.0);
  EXPECT_EQ(s.dramReadBytes, uint64_t(M * K + K * N + 4 * M * N));
  EXPECT_EQ(s.dramWriteBytes, uint64_t(4 * M * N + M * N));
  EXPECT_EQ(s.instructions, p.instructions.size());
}

// OS: K = 8 over two computes of k = 4 into one fold, a partial 3x4 tile
// (mapping efficiency 12/16), flushed by the next preload; a second fold that
// accumulates, flushed by a fence.
TEST(SystolicSimulatorTest, Int8OutputStationarySplitK) {
  const uint32_t M = 3, K = 8, N = 4;
  Program p;
  p.config = machine(4, 4, ElemType::I8);
  p.buffers = {buffer("a", ElemType::I8, {M, K}),
               buffer("b", ElemType::I8, {K, N}),
               buffer("c", ElemType::I32, {2 * M, N}, BufferRole::Result)};
  std::mt19937 rng(3);
  std::vector<int8_t> a(M * K), b(K * N);
  for (auto &x : a)
    x = int8_t(int(rng() % 256) - 128);
  for (auto &x : b)
    x = int8_t(int(rng() % 256) - 128);
  p.instructions = {
      config(Dataflow::OS),
      mvin(0, 0, K, Space::Spad, 0, M, 4),
      mvin(0, 4, K, Space::Spad, 4, M, 4),
      mvin(1, 0, N, Space::Spad, 8, 8, N), // B rows 8..15
      // Garbage in the target: the first fold overwrites it.
      mvin(2, 0, N, Space::Acc, 0, M, N),
      preload(kNone, 0, 4, N, M, /*accumulate=*/false),
      compute(0, 8, M, 4, N, false),
      compute(4, 12, M, 4, N, false),
      // Fold 2: C[3:6] = A . B, twice (the second accumulates).
      preload(kNone, 3, 8, N, M, false),
      compute(0, 8, M, 4, N, false),
      compute(4, 12, M, 4, N, false),
      preload(kNone, 3, 8, N, M, true),
      compute(0, 8, M, 4, N, false),
      compute(4, 12, M, 4, N, false),
      fence(),
      mvout(Space::Acc, 0, 2 * M, N, 2, 0, N),
  };
  auto bufs = zeroBuffers(p);
  bufs[0] = bytesOf(a);
  bufs[1] = bytesOf(b);
  std::vector<int32_t> garbage(2 * M * N, 12345);
  bufs[2] = bytesOf(garbage);
  SimStats s = run(p, bufs);
  auto c = valuesOf<int32_t>(bufs[2]);
  for (uint32_t i = 0; i < M; ++i)
    for (uint32_t j = 0; j < N; ++j) {
      int32_t ref = 0;
      for (uint32_t k = 0; k < K; ++k)
        ref += int32_t(a[i * K + k]) * b[k * N + j];
      EXPECT_EQ(c[i * N + j], ref);
      EXPECT_EQ(c[(M + i) * N + j], 2 * ref);
    }
  EXPECT_EQ(s.folds, 3u);
  EXPECT_DOUBLE_EQ(s.mappingEfficiency, 12.0 / 16.0);
  EXPECT_EQ(s.macs, 3u * M * K * N);
}

/// C = A (MxK) . B (KxN) of `type` on a 4x4 array through both dataflows,
/// results in f32 and bf16 buffers.
struct FloatRun {
  std::vector<float> a, b, c;
  std::vector<uint16_t> c16;
};

FloatRun floatMatmul(ElemType type, Dataflow df, uint32_t M, uint32_t K,
                     uint32_t N) {
  Program p;
  p.config = machine(4, 4, type);
  p.buffers = {buffer("a", type, {M, K}), buffer("b", type, {K, N}),
               buffer("c", ElemType::F32, {M, N}, BufferRole::Result),
               buffer("c16", ElemType::BF16, {M, N}, BufferRole::Result)};
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  FloatRun r;
  r.a.resize(M * K);
  r.b.resize(K * N);
  for (auto &x : r.a)
    x = dist(rng);
  for (auto &x : r.b)
    x = dist(rng);
  auto bufs = zeroBuffers(p);
  if (type == ElemType::BF16) {
    std::vector<uint16_t> a16, b16;
    for (float &x : r.a) {
      a16.push_back(floatToBF16(x));
      x = bf16ToFloat(a16.back());
    }
    for (float &x : r.b) {
      b16.push_back(floatToBF16(x));
      x = bf16ToFloat(b16.back());
    }
    bufs[0] = bytesOf(a16);
    bufs[1] = bytesOf(b16);
  } else {
    bufs[0] = bytesOf(r.a);
    bufs[1] = bytesOf(r.b);
  }
  p.instructions.push_back(config(df));
  // Garbage in the target: the first fold must overwrite it.
  p.instructions.push_back(
      vec(VecOp::Fill, 0, 0, 0, M, N, Bcast::None, 0, 99.0f));
  // A as K/4 column blocks of M rows at spad rows 32*kt, B's row blocks at
  // 128 + 4*kt.
  for (uint32_t kt = 0; kt < K / 4; ++kt) {
    p.instructions.push_back(mvin(0, kt * 4, K, Space::Spad, 32 * kt, M, 4));
    p.instructions.push_back(
        mvin(1, uint64_t(kt) * 4 * N, N, Space::Spad, 128 + 4 * kt, 4, N));
  }
  if (df == Dataflow::WS) {
    for (uint32_t kt = 0; kt < K / 4; ++kt) {
      p.instructions.push_back(preload(128 + 4 * kt, 0, 4, N, M, kt > 0));
      p.instructions.push_back(compute(32 * kt, kNone, M, 4, N, true));
    }
  } else {
    p.instructions.push_back(preload(kNone, 0, 4, N, M, false));
    for (uint32_t kt = 0; kt < K / 4; ++kt)
      p.instructions.push_back(compute(32 * kt, 128 + 4 * kt, M, 4, N, false));
    p.instructions.push_back(fence());
  }
  p.instructions.push_back(mvout(Space::Acc, 0, M, N, 2, 0, N));
  p.instructions.push_back(mvout(Space::Acc, 0, M, N, 3, 0, N));
  run(p, bufs);
  r.c = valuesOf<float>(bufs[2]);
  r.c16 = valuesOf<uint16_t>(bufs[3]);
  return r;
}

// f32 and bf16 matmuls in both dataflows: within K*2^-24*sum|a||b| of an
// fp64 reference, and bit-exact against an f32 reference in the documented
// order (WS: each 4-deep fold summed from 0 then added to the accumulator;
// OS: one running sum over all of K).
TEST(SystolicSimulatorTest, FloatMatmulsAgainstReferences) {
  const uint32_t M = 4, K = 8, N = 4;
  for (ElemType type : {ElemType::F32, ElemType::BF16})
    for (Dataflow df : {Dataflow::WS, Dataflow::OS}) {
      SCOPED_TRACE(std::string(elemTypeName(type)) +
                   (df == Dataflow::WS ? " WS" : " OS"));
      FloatRun r = floatMatmul(type, df, M, K, N);
      for (uint32_t i = 0; i < M; ++i)
        for (uint32_t j = 0; j < N; ++j) {
          double ref = 0, mag = 0;
          float exact = 0.0f;
          for (uint32_t kt = 0; kt < K / 4; ++kt) {
            float part = 0.0f;
            for (uint32_t kk = 0; kk < 4; ++kk) {
              uint32_t k = kt * 4 + kk;
              float prod = r.a[i * K + k] * r.b[k * N + j];
              if (df == Dataflow::WS)
                part = part + prod;
              else
                exact = exact + prod;
              ref += double(r.a[i * K + k]) * r.b[k * N + j];
              mag += std::fabs(double(r.a[i * K + k]) * r.b[k * N + j]);
            }
            if (df == Dataflow::WS)
              exact = kt == 0 ? part : exact + part;
          }
          float got = r.c[i * N + j];
          EXPECT_NEAR(got, ref, K * std::ldexp(1.0, -24) * mag);
          EXPECT_EQ(got, exact);
          EXPECT_EQ(r.c16[i * N + j], floatToBF16(got));
        }
    }
}

// f32 -> bf16 rounds to nearest even, NaN stays NaN, overflow goes to inf;
// bf16 -> f32 widening on mvin into the accumulator is exact.
TEST(SystolicSimulatorTest, Bf16Conversions) {
  EXPECT_EQ(floatToBF16(1.0f), 0x3F80);
  EXPECT_EQ(floatToBF16(bitsToFloat(0x3F808000)), 0x3F80); // tie -> even
  EXPECT_EQ(floatToBF16(bitsToFloat(0x3F818000)), 0x3F82); // tie -> even up
  EXPECT_EQ(floatToBF16(bitsToFloat(0x3F808001)), 0x3F81); // above tie
  EXPECT_EQ(floatToBF16(bitsToFloat(0xBF807FFF)), 0xBF80); // below tie
  EXPECT_EQ(floatToBF16(std::numeric_limits<float>::max()), 0x7F80);
  EXPECT_EQ(floatToBF16(-kInf), 0xFF80);
  uint16_t nan = floatToBF16(std::numeric_limits<float>::quiet_NaN());
  EXPECT_TRUE(std::isnan(bf16ToFloat(nan)));
  // A NaN whose payload lives only in the low bits must not become inf.
  EXPECT_TRUE(std::isnan(bf16ToFloat(floatToBF16(bitsToFloat(0x7F800001)))));
  EXPECT_EQ(bf16ToFloat(0xC0A0), -5.0f);

  // Through the machine: f32 -> acc -> bf16 buffer, bf16 -> acc -> f32.
  Program p;
  p.config = machine(4, 4, ElemType::F32);
  std::vector<float> in = {bitsToFloat(0x3F808000), bitsToFloat(0x3F818000),
                           bitsToFloat(0x3F808001),
                           std::numeric_limits<float>::quiet_NaN()};
  std::vector<uint16_t> in16 = {0x3F81, 0xC0A0, 0x7F80, 0x0001};
  p.buffers = {buffer("x", ElemType::F32, {4}),
               buffer("y", ElemType::BF16, {4}, BufferRole::Result),
               buffer("x16", ElemType::BF16, {4}),
               buffer("y32", ElemType::F32, {4}, BufferRole::Result)};
  p.instructions = {
      mvin(0, 0, 4, Space::Acc, 0, 1, 4), mvout(Space::Acc, 0, 1, 4, 1, 0, 4),
      mvin(2, 0, 4, Space::Acc, 1, 1, 4), mvout(Space::Acc, 1, 1, 4, 3, 0, 4)};
  auto bufs = zeroBuffers(p);
  bufs[0] = bytesOf(in);
  bufs[2] = bytesOf(in16);
  run(p, bufs);
  auto y = valuesOf<uint16_t>(bufs[1]);
  EXPECT_EQ(y[0], 0x3F80);
  EXPECT_EQ(y[1], 0x3F82);
  EXPECT_EQ(y[2], 0x3F81);
  EXPECT_TRUE(std::isnan(bf16ToFloat(y[3])));
  auto y32 = valuesOf<float>(bufs[3]);
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(y32[i], bf16ToFloat(in16[i]));
}

// Transposed mvin and mvout with offsets and strides, into the scratchpad
// (same type) and into the accumulator (bf16 widened, converted back).
TEST(SystolicSimulatorTest, TransposedMoves) {
  Program p;
  p.config = machine(8, 8, ElemType::I8);
  p.buffers = {buffer("x", ElemType::I8, {4, 7}),
               buffer("y", ElemType::I8, {6, 4}, BufferRole::Result)};
  std::vector<int8_t> x(28);
  for (int i = 0; i < 28; ++i)
    x[i] = int8_t(i * 3 - 40);
  p.instructions = {
      // The 3x5 DRAM block of x at (1, 2) lands as 5 SRAM rows of 3:
      // SRAM (r, c) = x[1 + c][2 + r] = x[offset 9 + c*7 + r].
      mvin(0, 1 * 7 + 2, 7, Space::Spad, 10, 5, 3, /*transpose=*/true),
      // SRAM rows 10..13 go out transposed: SRAM (r, c) -> y[4 + c*4 + r],
      // i.e. y[1 + c][r] = x[1 + c][2 + r] for r < 4, c < 3.
      mvout(Space::Spad, 10, 4, 3, 1, 4, 4, /*transpose=*/true),
  };
  auto bufs = zeroBuffers(p);
  bufs[0] = bytesOf(x);
  run(p, bufs);
  auto y = valuesOf<int8_t>(bufs[1]);
  for (int r = 0; r < 6; ++r)
    for (int c = 0; c < 4; ++c) {
      int8_t want = r >= 1 && r < 4 ? x[r * 7 + 2 + c] : 0;
      EXPECT_EQ(y[r * 4 + c], want) << r << "," << c;
    }

  // The accumulator path with conversion: a bf16 2x3 block in transposed
  // (3 acc rows of 2), out transposed again to bf16 and plain to f32.
  Program q;
  q.config = machine(4, 4, ElemType::BF16);
  q.buffers = {buffer("x", ElemType::BF16, {2, 3}),
               buffer("y", ElemType::BF16, {2, 3}, BufferRole::Result),
               buffer("yt", ElemType::F32, {3, 2}, BufferRole::Result)};
  std::vector<uint16_t> x16 = {0x3F80, 0x4000, 0x4040, 0xBF80, 0xC000, 0x4080};
  q.instructions = {mvin(0, 0, 3, Space::Acc, 2, 3, 2, true),
                    mvout(Space::Acc, 2, 3, 2, 1, 0, 3, true),
                    mvout(Space::Acc, 2, 3, 2, 2, 0, 2, false)};
  auto qb = zeroBuffers(q);
  qb[0] = bytesOf(x16);
  run(q, qb);
  EXPECT_EQ(valuesOf<uint16_t>(qb[1]), x16);
  auto yt = valuesOf<float>(qb[2]);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 2; ++c)
      EXPECT_EQ(yt[r * 2 + c], bf16ToFloat(x16[c * 3 + r]));
}

// mvin's unpacking (weight-only quantised weights): an i8 buffer's bytes
// as integers, one or two a byte, into bf16 and f32 scratchpads and the
// f32 accumulator, plain and transposed, at odd nibble offsets; the DMA
// moves the packed bytes. `mask` reads a byte as a boolean: 0 where it is
// nonzero, -inf where it is zero.
TEST(SystolicSimulatorTest, UnpackedMoves) {
  // Bytes 0x00..0xFF: every nibble and byte value.
  std::vector<uint8_t> all(256);
  for (int i = 0; i < 256; ++i)
    all[i] = uint8_t(i * 37 + 11);
  // For booleans, every third byte zero too (the others hold 1..255).
  std::vector<uint8_t> booleans = all;
  for (int i = 0; i < 256; i += 3)
    booleans[i] = 0;
  auto value = [&](Unpack u, uint64_t i) -> float {
    const std::vector<uint8_t> &bytes = u == Unpack::Mask ? booleans : all;
    switch (u) {
    case Unpack::Mask:
      return bytes[i] ? 0.0f : -std::numeric_limits<float>::infinity();
    case Unpack::S8:
      return int8_t(bytes[i]);
    case Unpack::U8:
      return bytes[i];
    case Unpack::S4:
    case Unpack::U4: {
      int v = (bytes[i / 2] >> (i % 2 ? 4 : 0)) & 0xF;
      return u == Unpack::S4 && v >= 8 ? v - 16 : v;
    }
    case Unpack::None:
      break;
    }
    return 0;
  };
  for (ElemType in : {ElemType::BF16, ElemType::F32})
    for (Unpack u :
         {Unpack::S8, Unpack::U8, Unpack::S4, Unpack::U4, Unpack::Mask})
      for (bool transpose : {false, true})
        for (Space space : {Space::Spad, Space::Acc}) {
          SCOPED_TRACE(std::string(elemTypeName(in)) + " " + unpackName(u) +
                       (transpose ? " transposed" : "") +
                       (space == Space::Acc ? " acc" : " spad"));
          Program p;
          p.config = machine(8, 8, in);
          p.buffers = {buffer("w", ElemType::I8, {256}),
                       buffer("y", in, {5, 7}, BufferRole::Result),
                       buffer("yf", ElemType::F32, {5, 7}, BufferRole::Result)};
          // A 5 x 7 block at an odd element offset and an odd stride.
          Instruction load = mvin(0, 13, 21, space, 3, 5, 7, transpose);
          load.unpack = u;
          p.instructions = {load};
          if (space == Space::Spad)
            p.instructions.push_back(mvout(Space::Spad, 3, 5, 7, 1, 0, 7));
          else
            p.instructions.push_back(mvout(Space::Acc, 3, 5, 7, 2, 0, 7));
          auto bufs = zeroBuffers(p);
          bufs[0] = u == Unpack::Mask ? booleans : all;
          SimStats st = run(p, bufs);
          int removed = 0;
          for (uint64_t r = 0; r < 5; ++r)
            for (uint64_t c = 0; c < 7; ++c) {
              uint64_t i = transpose ? 13 + c * 21 + r : 13 + r * 21 + c;
              float want = value(u, i);
              removed += std::isinf(want);
              float got;
              if (space == Space::Acc)
                got = valuesOf<float>(bufs[2])[r * 7 + c];
              else if (in == ElemType::F32)
                got = valuesOf<float>(bufs[1])[r * 7 + c];
              else
                got = bf16ToFloat(valuesOf<uint16_t>(bufs[1])[r * 7 + c]);
              EXPECT_EQ(got, want) << r << "," << c;
            }
          // The boolean block holds both kinds of element.
          if (u == Unpack::Mask)
            EXPECT_TRUE(removed > 0 && removed < 35) << removed;
          // The bytes that hold the block's elements: a row of 7 nibbles
          // from an odd nibble takes 4 bytes, from an even one 4 too (the
          // last one half used); rows alternate parity at stride 21.
          uint64_t want = 5 * 7;
          if (unpackPerByte(u) == 2) {
            want = 0;
            uint64_t outer = transpose ? 7 : 5, inner = transpose ? 5 : 7;
            for (uint64_t o = 0; o < outer; ++o)
              want += ((13 + o * 21) % 2 + inner + 1) / 2;
          }
          EXPECT_EQ(st.dramReadBytes, want);
        }

  // Unpacking reads i8 buffers into float SRAMs only.
  Program bad;
  bad.config = machine(8, 8, ElemType::I8);
  bad.buffers = {buffer("w", ElemType::I8, {64})};
  Instruction load = mvin(0, 0, 8, Space::Spad, 0, 2, 8);
  load.unpack = Unpack::S4;
  bad.instructions = {load};
  EXPECT_NE(errorOf(bad, zeroBuffers(bad))
                .find("cannot unpack (s4) i8 buffer "
                      "0 'w' into the spad of "
                      "i8"),
            std::string::npos)
      << errorOf(bad, zeroBuffers(bad));
  bad.config = machine(8, 8, ElemType::F32);
  bad.buffers = {buffer("w", ElemType::BF16, {64})};
  EXPECT_NE(errorOf(bad, zeroBuffers(bad)).find("cannot unpack (s4) bf16"),
            std::string::npos);
  // Nibbles count as elements: 64 bytes hold 128, not 129.
  bad.buffers = {buffer("w", ElemType::I8, {64})};
  bad.instructions[0] = mvin(0, 121, 8, Space::Spad, 0, 1, 8);
  bad.instructions[0].unpack = Unpack::S4;
  EXPECT_NE(errorOf(bad, zeroBuffers(bad)).find("reaches element 128"),
            std::string::npos)
      << errorOf(bad, zeroBuffers(bad));
  bad.instructions[0].offset = 120;
  EXPECT_EQ(errorOf(bad, zeroBuffers(bad)), "");
  // mvout never unpacks (nor counts nibbles: no write past the buffer).
  bad.instructions = {mvout(Space::Spad, 0, 1, 8, 0, 120, 8)};
  bad.instructions[0].unpack = Unpack::S4;
  EXPECT_NE(errorOf(bad, zeroBuffers(bad)).find("mvout does not unpack: its unpack mode must be none"),
            std::string::npos)
      << errorOf(bad, zeroBuffers(bad));
}

// Scalar registers: sload checks its range; an mvin through a page
// register reads the page the table names, a bound register cuts its lines
// (zeros, nothing read, no address formed); masks add a register.
TEST(SystolicSimulatorTest, RegisterAddressing) {
  // A pool of 4 pages of 4 tokens x 8 elements; element (p, t, e) = 100p +
  // 10t + e + 1 (never 0).
  std::vector<float> pool(4 * 4 * 8);
  for (int pg = 0; pg < 4; ++pg)
    for (int t = 0; t < 4; ++t)
      for (int e = 0; e < 8; ++e)
        pool[(pg * 4 + t) * 8 + e] = float(100 * pg + 10 * t + e + 1);
  auto program = [&](bool transpose) {
    Program p;
    p.config = machine(8, 8, ElemType::F32);
    p.buffers = {buffer("pool", ElemType::F32, {4, 4, 8}),
                 buffer("table", ElemType::I32, {3}),
                 buffer("out", ElemType::F32, {8, 8}, BufferRole::Result)};
    // r3 = table[1] (a page), r5 = table[2] (a length).
    Instruction load = mvin(0, 8, 8, Space::Spad, 0, transpose ? 6 : 3,
                            transpose ? 3 : 6, transpose);
    load.pageReg = 3;
    load.pageStride = 32;
    load.boundReg = 5;
    load.boundBase = 1;
    p.instructions = {sload(3, 1, 1, 0, 3), sload(5, 1, 2, -10, 10), load,
                      mvout(Space::Spad, 0, 8, 8, 2, 0, 8)};
    return p;
  };
  for (bool transpose : {false, true}) {
    SCOPED_TRACE(transpose ? "transposed" : "rows");
    Program p = program(transpose);
    for (int32_t len : {-3, 0, 1, 2, 3, 4, 9}) {
      SCOPED_TRACE("length " + std::to_string(len));
      auto bufs = zeroBuffers(p);
      bufs[0] = bytesOf(pool);
      // Page 2; the lines past len - 1 are zeros.
      bufs[1] = bytesOf(std::vector<int32_t>{7, 2, len});
      // NaN everywhere the block does not write.
      bufs[2] = bytesOf(std::vector<float>(64, std::nanf("")));
      SimStats st = run(p, bufs);
      std::vector<float> out = valuesOf<float>(bufs[2]);
      const int lines = 3, valid = std::clamp(len - 1, 0, lines);
      for (int line = 0; line < lines; ++line)
        for (int e = 0; e < 6; ++e) {
          // Token 1 + line of page 2, element e.
          float want = line < valid ? float(200 + 10 * (1 + line) + e + 1) : 0;
          int r = transpose ? e : line, c = transpose ? line : e;
          EXPECT_EQ(out[r * 8 + c], want) << line << "," << e;
        }
      EXPECT_EQ(st.dramReadBytes, uint64_t(8 + valid * 6 * 4));
    }
    // The page is checked when a line is read: page 4 is past the pool.
    auto bufs = zeroBuffers(p);
    bufs[1] = bytesOf(std::vector<int32_t>{0, 3, 3});
    p.instructions[0].hi = 4;
    bufs[1] = bytesOf(std::vector<int32_t>{0, 4, 3});
    EXPECT_NE(errorOf(p, bufs).find("instruction 2 (mvin): page register r3 "
                                    "holds 4: page 4 of 32 elements is "
                                    "outside buffer 0 'pool' (128 "
                                    "elements)"),
              std::string::npos)
        << errorOf(p, bufs);
    // ... and not when the bound leaves nothing to read (a page past the
    // sequence's end may hold anything).
    bufs[1] = bytesOf(std::vector<int32_t>{0, 4, 1});
    EXPECT_EQ(errorOf(p, bufs), "");
    p.instructions[0].lo = -5;
    bufs[1] = bytesOf(std::vector<int32_t>{0, -1, 3});
    EXPECT_NE(errorOf(p, bufs).find("page register r3 holds -1"),
              std::string::npos)
        << errorOf(p, bufs);
    // sload's range.
    bufs[1] = bytesOf(std::vector<int32_t>{0, 2, 11});
    EXPECT_EQ(errorOf(p, bufs),
              "instruction 1 (sload): element 2 of buffer 1 'table' is 11, "
              "outside [-10, 10]");
    p.instructions[1].lo = 11;
    EXPECT_EQ(errorOf(p, bufs), "instruction 1 (sload): the range [11, 10] "
                                "is empty");
    // Registers address mvins only.
    p.instructions[1].lo = -10;
    bufs[1] = bytesOf(std::vector<int32_t>{0, 2, 3});
    p.instructions[3].pageReg = 3;
    EXPECT_EQ(errorOf(p, bufs), "instruction 3 (mvout): page and bound "
                                "registers apply to mvin only");
  }

  // Timing: the mvin waits for its registers' sloads (a DMA latency).
  {
    Program p = program(false);
    p.config.dramLatency = 100;
    auto bufs = zeroBuffers(p);
    bufs[1] = bytesOf(std::vector<int32_t>{0, 1, 4});
    uint64_t with = run(p, bufs).cycles;
    p.instructions[2].pageReg = kNoReg;
    p.instructions[2].boundReg = kNoReg;
    p.instructions.erase(p.instructions.begin(), p.instructions.begin() + 2);
    uint64_t without = run(p, bufs).cycles;
    EXPECT_GE(with, without + 100);
  }

  // Masks: offset + register.
  {
    Program p;
    p.config = machine(4, 4, ElemType::F32);
    p.buffers = {buffer("len", ElemType::I32, {1}),
                 buffer("out", ElemType::F32, {4, 4}, BufferRole::Result)};
    Instruction keys = vec(VecOp::MaskKeys, 0, 0, 0, 2, 4);
    keys.iimm = -2;
    keys.reg = 0;
    Instruction causal = vec(VecOp::MaskCausal, 2, 2, 0, 2, 4);
    causal.iimm = -3;
    causal.reg = 0;
    p.instructions = {sload(0, 0, 0, 0, 8),
                      vec(VecOp::Fill, 0, 0, 0, 4, 4, Bcast::None, 0, 1.0f),
                      keys, causal, mvout(Space::Acc, 0, 4, 4, 1, 0, 4)};
    auto bufs = zeroBuffers(p);
    bufs[0] = bytesOf(std::vector<int32_t>{3});
    run(p, bufs);
    std::vector<float> out = valuesOf<float>(bufs[1]);
    // Rows 0-1: keys j > 1 masked; rows 2-3: j > i + 0 masked.
    std::vector<float> want = {1, 1,     -kInf, -kInf, 1, 1, -kInf, -kInf,
                               1, -kInf, -kInf, -kInf, 1, 1, -kInf, -kInf};
    EXPECT_EQ(out, want);
    // mask_rows (rows i > -3 + r5) and mask_lower on rows 0-1 (j - i <=
    // -3 + r5), with r5 = ssub: r0 - r6 = 3 - (-1) = 4, or 0 - r6 = 1.
    for (bool zeroA : {false, true}) {
      SCOPED_TRACE(zeroA ? "0 - r6" : "r0 - r6");
      Program q = p;
      Instruction negOne = sload(6, 0, 1, -8, 8);
      Instruction sub;
      sub.op = Opcode::Ssub;
      sub.reg = 5;
      sub.regA = zeroA ? kNoReg : 0;
      sub.regB = 6;
      Instruction rows = vec(VecOp::MaskRows, 0, 0, 0, 4, 4);
      rows.iimm = -3;
      rows.reg = 5;
      Instruction lower = vec(VecOp::MaskLower, 0, 0, 0, 2, 4);
      lower.iimm = -3;
      lower.reg = 5;
      q.buffers[0].shape = {2};
      q.instructions = {p.instructions[0], negOne, sub,
                        p.instructions[1], rows,   lower,
                        p.instructions[4]};
      auto qb = zeroBuffers(q);
      qb[0] = bytesOf(std::vector<int32_t>{3, -1});
      run(q, qb);
      const int64_t r5 = zeroA ? 1 : 4;
      std::vector<float> expect(16, 1.0f);
      for (int64_t i = 0; i < 4; ++i)
        for (int64_t j = 0; j < 4; ++j)
          if (i > -3 + r5 || (i < 2 && j - i <= -3 + r5))
            expect[i * 4 + j] = -kInf;
      EXPECT_EQ(valuesOf<float>(qb[1]), expect);
    }
    // ssub stops on overflow: r0 = 3 doubled (r1 = 0 - r0, r0 = r0 - r1)
    // until it passes 2^63.
    {
      Program q = p;
      q.instructions = {p.instructions[0]};
      Instruction neg, twice;
      neg.op = twice.op = Opcode::Ssub;
      neg.reg = 1;
      neg.regB = 0;
      twice.reg = 0;
      twice.regA = 0;
      twice.regB = 1;
      for (int i = 0; i < 62; ++i) {
        q.instructions.push_back(neg);
        q.instructions.push_back(twice);
      }
      auto qb = zeroBuffers(q);
      qb[0] = bytesOf(std::vector<int32_t>{3});
      // 3 * 2^61 - (-3 * 2^61) = 3 * 2^62 > 2^63 - 1: the 62nd doubling.
      EXPECT_EQ(errorOf(q, qb),
                "instruction 124 (ssub): r0 - r1 (6917529027641081856 - "
                "-6917529027641081856) overflows");
    }
    // Only masks take a register.
    p.instructions[1].reg = 0;
    EXPECT_NE(errorOf(p, bufs).find("a register applies to the masks, not "
                                    "fill"),
              std::string::npos);
    p.instructions[1].reg = kNoReg;
    p.instructions[2].reg = 16;
    EXPECT_NE(errorOf(p, bufs).find("offset register r16 does not exist"),
              std::string::npos);
  }
}

// skip: the next `count` instructions do not run when the register is at
// most the bound; what follows issues once the register is loaded.
TEST(SystolicSimulatorTest, Skip) {
  Program p;
  p.config = machine(4, 4, ElemType::F32);
  p.config.dramLatency = 50;
  p.buffers = {buffer("len", ElemType::I32, {1}),
               buffer("out", ElemType::F32, {1, 4}, BufferRole::Result)};
  Instruction load = sload(7, 0, 0, -100, 100);
  Instruction skip;
  skip.op = Opcode::Skip;
  skip.reg = 7;
  skip.iimm = 3;
  skip.count = 1;
  p.instructions = {vec(VecOp::Fill, 0, 0, 0, 1, 4, Bcast::None, 0, 1.0f), load,
                    skip, vec(VecOp::Fill, 0, 0, 0, 1, 4, Bcast::None, 0, 2.0f),
                    mvout(Space::Acc, 0, 1, 4, 1, 0, 4)};
  for (int32_t len : {-7, 3, 4, 90}) {
    SCOPED_TRACE(len);
    auto bufs = zeroBuffers(p);
    bufs[0] = bytesOf(std::vector<int32_t>{len});
    SimStats st = run(p, bufs);
    const bool skipped = len <= 3;
    EXPECT_EQ(valuesOf<float>(bufs[1]),
              std::vector<float>(4, skipped ? 1.0f : 2.0f));
    EXPECT_EQ(st.skippedInstructions, skipped ? 1u : 0u);
    EXPECT_EQ(st.instructions, skipped ? 4u : 5u);
    // The store issues after the sload landed (50 cycles and more).
    EXPECT_GT(st.cycles, 50u);
  }
  // It skips instructions that exist.
  p.instructions[2].count = 3;
  auto bufs = zeroBuffers(p);
  EXPECT_EQ(errorOf(p, bufs), "instruction 2 (skip): skips 3 instructions; 2 "
                              "follow it");
  p.instructions[2].count = 1;
  p.instructions[2].reg = 16;
  EXPECT_EQ(errorOf(p, bufs), "instruction 2 (skip): condition register r16 "
                              "does not exist (the machine has r0..r15)");
}

//===----------------------------------------------------------------------===//
// Vector unit
//===----------------------------------------------------------------------===//

/// Runs `v` on a 4x4 f32 machine whose accumulator holds X at rows 0..3, Y
/// at rows 4..7 and D at rows 8..11; returns acc rows 0..11.
std::vector<float> runVector(const Instruction &v, const std::vector<float> &x,
                             const std::vector<float> &y,
                             const std::vector<float> &d) {
  Program p;
  p.config = machine(4, 4, ElemType::F32);
  p.buffers = {buffer("in", ElemType::F32, {12, 4}),
               buffer("out", ElemType::F32, {12, 4}, BufferRole::Result)};
  std::vector<float> in = x;
  in.insert(in.end(), y.begin(), y.end());
  in.insert(in.end(), d.begin(), d.end());
  p.instructions = {mvin(0, 0, 4, Space::Acc, 0, 12, 4), v,
                    mvout(Space::Acc, 0, 12, 4, 1, 0, 4)};
  auto bufs = zeroBuffers(p);
  bufs[0] = bytesOf(in);
  run(p, bufs);
  return valuesOf<float>(bufs[1]);
}

TEST(SystolicSimulatorTest, VectorOps) {
  std::vector<float> x = {1, -2, 3,  0.5f, -1, 4, -kInf, 2,
                          0, 7,  -3, 1.5f, 2,  2, 2,     2};
  std::vector<float> y = {2, 3, -1, 0,     -kInf, 1, 2,  4,
                          0, 5, 0,  -kInf, 3,     3, -4, 1};
  std::vector<float> d(16, 10.0f);
  using Fn = std::function<float(int, int)>;
  auto check = [&](const char *name, const Instruction &v, const Fn &want) {
    SCOPED_TRACE(name);
    std::vector<float> got = runVector(v, x, y, d);
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) {
        float w = want(i, j), g = got[(8 + i) * 4 + j];
        if (std::isnan(w))
          EXPECT_TRUE(std::isnan(g)) << i << "," << j;
        else
          EXPECT_EQ(g, w) << i << "," << j;
      }
    // Sources untouched.
    for (int e = 0; e < 32; ++e)
      EXPECT_EQ(got[e], e < 16 ? x[e] : y[e - 16]);
  };
  auto X = [&](int i, int j) { return x[i * 4 + j]; };
  auto Y = [&](int i, int j) { return y[i * 4 + j]; };
  const float nan = std::numeric_limits<float>::quiet_NaN();

  check("fill", vec(VecOp::Fill, 8, 0, 0, 4, 4, Bcast::None, 0, 2.5f),
        [](int, int) { return 2.5f; });
  check("copy", vec(VecOp::Copy, 8, 0, 0, 4, 4),
        [&](int i, int j) { return X(i, j); });
  check("add", vec(VecOp::Add, 8, 0, 4, 4, 4),
        [&](int i, int j) { return X(i, j) + Y(i, j); });
  check("sub row", vec(VecOp::Sub, 8, 0, 4, 4, 4, Bcast::Row),
        [&](int i, int j) { return X(i, j) - Y(i, 0); });
  check("sub inf-is-zero",
        vec(VecOp::Sub, 8, 0, 4, 4, 4, Bcast::None, kVecInfIsZero),
        [&](int i, int j) {
          return X(i, j) - (Y(i, j) == -kInf ? 0.0f : Y(i, j));
        });
  check("sub scalar -inf inf-is-zero",
        vec(VecOp::Sub, 8, 0, 0, 4, 4, Bcast::Scalar, kVecInfIsZero, -kInf),
        [&](int i, int j) { return X(i, j); });
  check("sub scalar -inf",
        vec(VecOp::Sub, 8, 0, 0, 4, 4, Bcast::Scalar, 0, -kInf),
        [&](int i, int j) { return X(i, j) + kInf; });
  check("mul scalar", vec(VecOp::Mul, 8, 0, 0, 4, 4, Bcast::Scalar, 0, 0.5f),
        [&](int i, int j) { return X(i, j) * 0.5f; });
  check("div", vec(VecOp::Div, 8, 0, 4, 4, 4),
        [&](int i, int j) { return X(i, j) / Y(i, j); });
  check(
      "div inf-is-zero",
      vec(VecOp::Div, 8, 0, 4, 4, 4, Bcast::None, kVecInfIsZero),
      [&](int i, int j) { return Y(i, j) == 0.0f ? 0.0f : X(i, j) / Y(i, j); });
  check("div row", vec(VecOp::Div, 8, 0, 4, 4, 4, Bcast::Row),
        [&](int i, int j) { return X(i, j) / Y(i, 0); });
  check("max", vec(VecOp::Max, 8, 0, 4, 4, 4),
        [&](int i, int j) { return std::max(X(i, j), Y(i, j)); });
  check("exp", vec(VecOp::Exp, 8, 0, 0, 4, 4),
        [&](int i, int j) { return std::exp(X(i, j)); });
  check("rsqrt", vec(VecOp::Rsqrt, 8, 0, 0, 4, 4),
        [&](int i, int j) { return 1.0f / std::sqrt(X(i, j)); });
  // round_bf16 on values chosen for it: ties to even (1 + 2^-8 down to 1,
  // 1 + 3·2^-8 up to 1 + 2^-6), just past a tie, exact, an overflow to
  // inf, a subnormal, NaN and -inf kept.
  {
    std::vector<float> r = {1.00390625f,
                            1.01171875f,
                            1.0f + 0x1p-8f + 0x1p-20f,
                            -2.5f,
                            3.4e38f,
                            1e-40f,
                            -0.3f,
                            nan,
                            -kInf,
                            0.0f,
                            -0.0f,
                            65504.0f,
                            1.0f / 3.0f,
                            -7.0f,
                            0x1p-126f,
                            0x1.fffffep+127f};
    std::vector<float> want = {1.0f,       0x1.04p+0f, 0x1.02p+0f,  -2.5f,
                               kInf,       0x1p-133f,  -0x1.34p-2f, nan,
                               -kInf,      0.0f,       -0.0f,       65536.0f,
                               0x1.56p-2f, -7.0f,      0x1p-126f,   kInf};
    std::vector<float> gotRound =
        runVector(vec(VecOp::RoundBf16, 8, 0, 0, 4, 4), r, y, d);
    for (int e = 0; e < 16; ++e) {
      float g = gotRound[32 + e];
      if (std::isnan(want[e]))
        EXPECT_TRUE(std::isnan(g)) << e;
      else
        EXPECT_EQ(g, want[e]) << e << ": " << r[e];
      EXPECT_EQ(std::signbit(g), std::signbit(want[e])) << e;
    }
  }
  check("mask causal", vec(VecOp::MaskCausal, 8, 0, 0, 4, 4),
        [&](int i, int j) { return j > i ? -kInf : X(i, j); });
  check("mask causal -1",
        vec(VecOp::MaskCausal, 8, 0, 0, 4, 4, Bcast::None, 0, 0, -1),
        [&](int i, int j) { return j > i - 1 ? -kInf : X(i, j); });
  check("mask causal +2",
        vec(VecOp::MaskCausal, 8, 0, 0, 4, 4, Bcast::None, 0, 0, 2),
        [&](int i, int j) { return j > i + 2 ? -kInf : X(i, j); });
  auto rowMax = [&](int i) {
    return std::max(std::max(X(i, 0), X(i, 1)), std::max(X(i, 2), X(i, 3)));
  };
  auto rowSum = [&](int i) {
    float s = 0.0f;
    for (int j = 0; j < 4; ++j)
      s = s + X(i, j);
    return s;
  };
  check("rowmax", vec(VecOp::RowMax, 8, 0, 0, 4, 4),
        [&](int i, int j) { return j == 0 ? rowMax(i) : 10.0f; });
  check(
      "rowmax acc",
      vec(VecOp::RowMax, 8, 0, 0, 4, 4, Bcast::None, kVecAccumulate),
      [&](int i, int j) { return j == 0 ? std::max(10.0f, rowMax(i)) : 10.f; });
  check("rowsum", vec(VecOp::RowSum, 8, 0, 0, 4, 4),
        [&](int i, int j) { return j == 0 ? rowSum(i) : 10.0f; });
  check("rowsum acc",
        vec(VecOp::RowSum, 8, 0, 0, 4, 4, Bcast::None, kVecAccumulate),
        [&](int i, int j) { return j == 0 ? 10.0f + rowSum(i) : 10.0f; });
  // A partial block: 2 rows x 3 columns, the rest of dst kept.
  check("partial add", vec(VecOp::Add, 9, 0, 4, 2, 3), [&](int i, int j) {
    return i >= 1 && i < 3 && j < 3 ? X(i - 1, j) + Y(i - 1, j) : 10.0f;
  });
  // NaN propagates through max and rowmax.
  std::vector<float> xn = x;
  xn[5] = nan;
  std::vector<float> got =
      runVector(vec(VecOp::RowMax, 8, 0, 0, 4, 4), xn, y, d);
  EXPECT_TRUE(std::isnan(got[9 * 4]));
  got = runVector(vec(VecOp::Max, 8, 0, 4, 4, 4), xn, y, d);
  EXPECT_TRUE(std::isnan(got[9 * 4 + 1]));

  // In place with a row broadcast from the destination itself: all sources
  // are read before anything is written.
  got = runVector(vec(VecOp::Sub, 0, 0, 0, 4, 4, Bcast::Row), x, y, d);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      float w = X(i, j) - X(i, 0);
      if (std::isnan(w))
        EXPECT_TRUE(std::isnan(got[i * 4 + j]));
      else
        EXPECT_EQ(got[i * 4 + j], w);
    }
}

// kVecToSpad: a copy from the accumulator into the scratchpad, rounded to
// bf16 (nearest even), then used as a matmul operand (times the identity,
// also copied in from the accumulator).
TEST(SystolicSimulatorTest, VectorToScratchpad) {
  Program p;
  p.config = machine(4, 4, ElemType::BF16);
  std::vector<float> x = {bitsToFloat(0x3F808000), bitsToFloat(0x3F818000),
                          bitsToFloat(0x3F808001), -3.0f};
  std::vector<float> eye = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  p.buffers = {buffer("x", ElemType::F32, {1, 4}),
               buffer("y", ElemType::BF16, {1, 4}, BufferRole::Result),
               buffer("z", ElemType::F32, {1, 4}, BufferRole::Result),
               buffer("eye", ElemType::F32, {4, 4})};
  p.instructions = {
      mvin(0, 0, 4, Space::Acc, 0, 1, 4),
      vec(VecOp::Copy, 5, 0, 0, 1, 4, Bcast::None, kVecToSpad),
      mvout(Space::Spad, 5, 1, 4, 1, 0, 4),
      mvin(3, 0, 4, Space::Acc, 40, 4, 4),
      vec(VecOp::Copy, 20, 40, 0, 4, 4, Bcast::None, kVecToSpad),
      config(Dataflow::OS),
      preload(kNone, 30, 4, 4, 1, false),
      compute(5, 20, 1, 4, 4, false),
      fence(),
      mvout(Space::Acc, 30, 1, 4, 2, 0, 4),
  };
  auto bufs = zeroBuffers(p);
  bufs[0] = bytesOf(x);
  bufs[3] = bytesOf(eye);
  SimStats s = run(p, bufs);
  auto y = valuesOf<uint16_t>(bufs[1]);
  EXPECT_EQ(y[0], 0x3F80);
  EXPECT_EQ(y[1], 0x3F82);
  EXPECT_EQ(y[2], 0x3F81);
  EXPECT_EQ(y[3], 0xC040);
  auto z = valuesOf<float>(bufs[2]);
  for (int j = 0; j < 4; ++j)
    EXPECT_EQ(z[j], bf16ToFloat(y[j]));
  EXPECT_EQ(s.vectorInstructions, 2u);
  EXPECT_EQ(s.spadWriteBytes, 5u * 4 * 2);
}

//===----------------------------------------------------------------------===//
// Faults
//===----------------------------------------------------------------------===//

/// A valid int8 WS program on a 4x4 array with buffers a (4x4 i8) and
/// c (4x4 i32).
Program validProgram() {
  Program p;
  p.name = "ok";
  p.config = machine(4, 4, ElemType::I8);
  p.buffers = {buffer("a", ElemType::I8, {4, 4}),
               buffer("c", ElemType::I32, {4, 4}, BufferRole::Result)};
  p.instructions = {config(Dataflow::WS), mvin(0, 0, 4, Space::Spad, 0, 4, 4),
                    preload(0, 0, 4, 4, 4, false),
                    compute(0, kNone, 4, 4, 4, true),
                    mvout(Space::Acc, 0, 4, 4, 1, 0, 4)};
  return p;
}

struct FaultCase {
  const char *what;
  std::function<void(Program &, std::vector<std::vector<uint8_t>> &)> edit;
  const char *message;
};

TEST(SystolicSimulatorTest, Faults) {
  ASSERT_EQ(errorOf(validProgram(), zeroBuffers(validProgram())), "");
  using P = Program &;
  using B = std::vector<std::vector<uint8_t>> &;
  auto at = [](P p, size_t i) -> Instruction & { return p.instructions[i]; };
  std::vector<FaultCase> cases = {
      // Program and machine.
      {"buffer size", [](P, B b) { b[0].pop_back(); },
       "buffer 0 'a' holds 15 bytes, expected 16 (16 elements of i8)"},
      {"buffer count", [](P, B b) { b.pop_back(); },
       "program 'ok' has 2 buffers but 1 were given"},
      {"buffer type", [](P p, B) { p.buffers[1].type = ElemType(9); },
       "buffer 1 'c' has an unknown element type"},
      {"negative dim", [](P p, B) { p.buffers[0].shape = {-4, -4}; },
       "buffer 0 'a' has a negative dimension"},
      {"array size", [](P p, B) { p.config.rows = 0; },
       "machine: a 0x4 array is not simulated"},
      {"machine type", [](P p, B) { p.config.accType = ElemType(7); },
       "machine: unknown element type"},
      {"acc type", [](P p, B) { p.config.accType = ElemType::F32; },
       "machine: inputs of i8 cannot accumulate in f32"},
      {"sram rows", [](P p, B) { p.config.accRows = 0; },
       "machine: the scratchpad and the accumulator need at least one row"},
      {"sram size", [](P p, B) { p.config.spadRows = 1u << 30; },
       "exceed the simulator's limit"},
      {"bandwidth", [](P p, B) { p.config.dramBytesPerCycle = 0; },
       "machine: dramBytesPerCycle must be a positive number"},
      {"lanes", [](P p, B) { p.config.vectorLanes = 0; },
       "machine: vectorLanes must be at least 1"},
      // Instructions.
      {"opcode", [&](P p, B) { at(p, 1).op = Opcode(42); },
       "instruction 1 (unknown): unknown opcode 42"},
      {"dataflow", [&](P p, B) { at(p, 0).dataflow = Dataflow(5); },
       "instruction 0 (config): unknown dataflow 5"},
      {"space", [&](P p, B) { at(p, 1).space = Space(3); },
       "instruction 1 (mvin): unknown SRAM space 3"},
      {"address overflow",
       [&](P p, B) {
         at(p, 1).offset = ~uint64_t(0) - 2;
         at(p, 1).stride = 0xFFFFFFFFu;
       },
       "instruction 1 (mvin): DRAM block of buffer 0 'a' (offset "
       "18446744073709551613, stride 4294967295) overflows 64-bit addressing"},
      {"empty", [&](P p, B) { at(p, 1).rows = 0; },
       "instruction 1 (mvin): destination block of 0x4 elements is empty"},
      {"too wide", [&](P p, B) { at(p, 4).cols = 5; },
       "instruction 4 (mvout): source block of 5 columns is wider than the "
       "acc (4 columns)"},
      {"sram rows overflow", [&](P p, B) { at(p, 1).row = 254; },
       "instruction 1 (mvin): destination rows 254..257 are outside the spad "
       "(256 rows)"},
      {"dram out of bounds", [&](P p, B) { at(p, 1).offset = 1; },
       "instruction 1 (mvin): DRAM block reaches element 16 of buffer 0 'a', "
       "which has 16 elements"},
      {"dram out of bounds out", [&](P p, B) { at(p, 4).stride = 5; },
       "instruction 4 (mvout): DRAM block reaches element 18 of buffer 1 'c'"},
      {"dram transposed",
       [&](P p, B) {
         at(p, 1).transpose = true;
         at(p, 1).rows = 2;
         at(p, 1).stride = 8;
       },
       "instruction 1 (mvin): DRAM block reaches element 25 of buffer 0 'a', "
       "which has 16 elements (offset 0, stride 8, 2x4, transposed)"},
      {"dram overflow", [&](P p, B) { at(p, 1).offset = ~uint64_t(0) - 2; },
       "overflows 64-bit addressing"},
      {"no buffer", [&](P p, B) { at(p, 1).buffer = 2; },
       "instruction 1 (mvin): buffer 2 does not exist (the program has 2)"},
      {"no buffer out", [&](P p, B) { at(p, 4).buffer = 7; },
       "instruction 4 (mvout): buffer 7 does not exist"},
      {"mvin type", [&](P p, B) { at(p, 1).buffer = 1; },
       "instruction 1 (mvin): cannot move i32 buffer 1 'c' into the spad of "
       "i8"},
      {"mvout type", [&](P p, B) { at(p, 4).space = Space::Spad; },
       "instruction 4 (mvout): cannot move the spad of i8 out to i32 buffer "
       "1 'c'"},
      {"preload before config", [&](P p, B) { at(p, 0).op = Opcode::Fence; },
       "instruction 2 (preload): preload before any config"},
      {"compute before config",
       [&](P p, B) {
         p.instructions.erase(p.instructions.begin(),
                              p.instructions.begin() + 3);
       },
       "instruction 0 (compute): compute before any config"},
      {"compute without preload",
       [&](P p, B) { p.instructions.erase(p.instructions.begin() + 2); },
       "instruction 2 (compute): compute without a preceding preload"},
      {"ws weights too big", [&](P p, B) { at(p, 2).k = 5; },
       "instruction 2 (preload): WS weight tile of 5x4 does not fit the 4x4 "
       "array"},
      {"ws weights rows", [&](P p, B) { at(p, 2).bRow = 253; },
       "instruction 2 (preload): weight rows 253..256 are outside the spad"},
      {"ws target rows", [&](P p, B) { at(p, 2).cRow = 62; },
       "instruction 2 (preload): target rows 62..65 are outside the acc"},
      {"shape mismatch", [&](P p, B) { at(p, 3).m = 3; },
       "instruction 3 (compute): compute of m=3 k=4 n=4 does not agree with "
       "its preload (m=4 k=4 n=4)"},
      {"ws bRow", [&](P p, B) { at(p, 3).bRow = 0; },
       "instruction 3 (compute): a WS compute takes its weights from the "
       "preload: bRow must be none"},
      {"ws no weights", [&](P p, B) { at(p, 2).bRow = kNone; },
       "instruction 3 (compute): WS compute without preloaded weights"},
      {"ws preloaded without weights",
       [&](P p, B) {
         p.instructions.insert(p.instructions.begin() + 4,
                               {preload(kNone, 0, 4, 4, 4, true),
                                compute(0, kNone, 4, 4, 4, true)});
       },
       "instruction 5 (compute): compute says its weights come from the "
       "preceding preload, but that preload (bRow = none) loaded none"},
      {"ws kept but new", [&](P p, B) { at(p, 3).preloaded = false; },
       "instruction 3 (compute): compute says its weights are kept from an "
       "earlier preload, but the preceding preload loaded new ones"},
      {"ws kept weights shape",
       [&](P p, B) {
         p.instructions.insert(p.instructions.begin() + 4,
                               {preload(kNone, 0, 2, 4, 4, true),
                                compute(0, kNone, 4, 2, 4, false)});
       },
       "instruction 5 (compute): compute of k=2 n=4 does not match the 4x4 "
       "weights in the array"},
      {"A rows", [&](P p, B) { at(p, 3).aRow = 254; },
       "instruction 3 (compute): A rows 254..257 are outside the spad"},
      {"os preload bRow", [&](P p, B) { at(p, 0).dataflow = Dataflow::OS; },
       "instruction 2 (preload): an OS preload has no weights: bRow must be "
       "none"},
      {"os tile",
       [&](P p, B) {
         at(p, 0).dataflow = Dataflow::OS;
         at(p, 2).bRow = kNone;
         at(p, 2).m = 8;
       },
       "instruction 2 (preload): OS output tile of 8x4 does not fit the 4x4 "
       "array"},
      {"os compute bRow",
       [&](P p, B) {
         at(p, 0).dataflow = Dataflow::OS;
         at(p, 2).bRow = kNone;
       },
       "instruction 3 (compute): an OS compute needs B: bRow must name "
       "scratchpad rows"},
      {"os k zero",
       [&](P p, B) {
         at(p, 0).dataflow = Dataflow::OS;
         at(p, 2).bRow = kNone;
         at(p, 3).bRow = 0;
         at(p, 3).k = 0;
       },
       "instruction 3 (compute): compute with k = 0"},
      {"os k too big",
       [&](P p, B) {
         at(p, 0).dataflow = Dataflow::OS;
         at(p, 2).bRow = kNone;
         at(p, 3).bRow = 0;
         at(p, 3).k = 5;
       },
       "instruction 3 (compute): compute with k = 5 exceeds the scratchpad "
       "width 4"},
      {"os B rows",
       [&](P p, B) {
         at(p, 0).dataflow = Dataflow::OS;
         at(p, 2).bRow = kNone;
         at(p, 3).bRow = 253;
       },
       "instruction 3 (compute): B rows 253..256 are outside the spad"},
      {"vector on i32",
       [&](P p, B) { at(p, 4) = vec(VecOp::Copy, 0, 0, 0, 1, 1); },
       "instruction 4 (vector): vector instructions work on an f32 "
       "accumulator; this machine's is i32"},
  };
  for (const FaultCase &c : cases) {
    SCOPED_TRACE(c.what);
    Program p = validProgram();
    auto bufs = zeroBuffers(p);
    c.edit(p, bufs);
    std::string msg = errorOf(p, bufs);
    EXPECT_NE(msg.find(c.message), std::string::npos) << "got: '" << msg << "'";
  }
}

TEST(SystolicSimulatorTest, VectorFaults) {
  struct Case {
    Instruction v;
    const char *message;
  };
  Instruction badOp = vec(VecOp::Copy, 8, 0, 0, 4, 4);
  badOp.vop = VecOp(16);
  Instruction badBcast = vec(VecOp::Add, 8, 0, 4, 4, 4);
  badBcast.bcast = Bcast(3);
  std::vector<Case> cases = {
      {badOp, "instruction 1 (vector): unknown vector op 16"},
      {badBcast, "instruction 1 (vector): unknown broadcast 3"},
      {vec(VecOp::Copy, 8, 0, 0, 4, 4, Bcast::None, 0x10),
       "unknown vector flags 0x10"},
      {vec(VecOp::Exp, 8, 0, 0, 4, 4, Bcast::None, kVecToSpad),
       "kVecToSpad needs op copy, not exp"},
      {vec(VecOp::Add, 8, 0, 4, 4, 4, Bcast::None, kVecAccumulate),
       "kVecAccumulate applies to rowmax/rowsum, not add"},
      {vec(VecOp::Mul, 8, 0, 4, 4, 4, Bcast::None, kVecInfIsZero),
       "kVecInfIsZero applies to sub/div, not mul"},
      {vec(VecOp::Add, 8, 0, 62, 4, 4),
       "instruction 1 (vector): srcB rows 62..65 are outside the acc"},
      {vec(VecOp::Add, 8, 62, 4, 4, 4), "srcA rows 62..65 are outside"},
      {vec(VecOp::Add, 62, 0, 4, 4, 4), "dst rows 62..65 are outside the acc"},
      {vec(VecOp::Copy, 255, 0, 0, 4, 4, Bcast::None, kVecToSpad),
       "dst rows 255..258 are outside the spad"},
      {vec(VecOp::Copy, 8, 0, 0, 4, 5), "srcA block of 5 columns is wider"},
      {vec(VecOp::Fill, 8, 0, 0, 0, 4), "dst block of 0x4 elements is empty"},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.message);
    Program p;
    p.config = machine(4, 4, ElemType::F32);
    p.instructions = {fence(), c.v};
    std::string msg = errorOf(p, {});
    EXPECT_NE(msg.find(c.message), std::string::npos) << "got: '" << msg << "'";
  }
}

//===----------------------------------------------------------------------===//
// Default timing
//===----------------------------------------------------------------------===//

TEST(SystolicSimulatorTest, DmaCost) {
  Program p;
  p.config = machine(16, 16, ElemType::I8);
  p.config.dramBytesPerCycle = 16;
  p.config.dramLatency = 100;
  p.buffers = {buffer("a", ElemType::I8, {64, 16})};
  p.instructions = {mvin(0, 0, 16, Space::Spad, 0, 16, 16)};
  SimStats s = runZero(p);
  EXPECT_EQ(s.cycles, 100u + 256 / 16);
  EXPECT_EQ(s.dmaBusyCycles, s.cycles);
  EXPECT_EQ(s.dramReadBytes, 256u);
  EXPECT_EQ(s.spadWriteBytes, 256u);
  EXPECT_EQ(s.computeCycles, 0u);
  EXPECT_EQ(s.stallCycles, s.cycles);
  // Back-to-back requests overlap their latency: 4 x 16 channel cycles.
  for (uint32_t t = 1; t < 4; ++t)
    p.instructions.push_back(mvin(0, t * 256, 16, Space::Spad, 16 * t, 16, 16));
  s = runZero(p);
  EXPECT_EQ(s.cycles, 100u + 4 * 16);
  // A bandwidth whose quotient is an integer only in exact arithmetic.
  p.config.dramBytesPerCycle = 12.8;
  p.instructions.resize(1);
  EXPECT_EQ(runZero(p).cycles, 100u + 20);
  // The store channel is separate: an mvout of other rows runs alongside.
  p.config.dramBytesPerCycle = 16;
  p.buffers.push_back(buffer("o", ElemType::I8, {16, 16}));
  p.instructions.push_back(mvout(Space::Spad, 32, 16, 16, 1, 0, 16));
  EXPECT_EQ(runZero(p).cycles, 100u + 16);
  // ... but waits for the load when it reads the loaded rows.
  p.instructions.back().row = 0;
  EXPECT_EQ(runZero(p).cycles, 2 * (100u + 16));
}

TEST(SystolicSimulatorTest, ArrayTimingFormulas) {
  // WS: weights k = 16 cycles, then m = 16 rows streamed, results after
  // R + C - 1 = 31 more: 16 + 16 + 31.
  Program p;
  p.config = machine(16, 16, ElemType::I8);
  p.instructions = {config(Dataflow::WS), preload(0, 0, 16, 16, 16, false),
                    compute(32, kNone, 16, 16, 16, true)};
  SimStats s = runZero(p);
  EXPECT_EQ(s.cycles, 16u + 16 + 31);
  EXPECT_EQ(s.computeCycles, s.cycles);
  EXPECT_EQ(s.stallCycles, 0u);
  EXPECT_DOUBLE_EQ(s.peUtilization, 4096.0 / (256.0 * 63));
  // A second fold's weights load while the first streams: +m only.
  p.instructions.push_back(preload(64, 16, 16, 16, 16, false));
  p.instructions.push_back(compute(32, kNone, 16, 16, 16, true));
  EXPECT_EQ(runZero(p).cycles, 16u + 2 * 16 + 31);
  // Two computes accumulating into the same rows pipeline too.
  p.instructions[3] = preload(64, 0, 16, 16, 16, true);
  EXPECT_EQ(runZero(p).cycles, 16u + 2 * 16 + 31);
  // A third fold whose weights come from the same rows as the second:
  // still hidden behind the second fold's streaming.
  p.instructions.push_back(preload(64, 0, 16, 16, 16, true));
  p.instructions.push_back(compute(32, kNone, 16, 16, 16, true));
  EXPECT_EQ(runZero(p).cycles, 16u + 3 * 16 + 31);

  // OS: R = 16 cycles to shift the preload in, k = 16 streamed, then the
  // flush: R + (R + C - 1).
  Program q;
  q.config = machine(16, 16, ElemType::I8);
  q.instructions = {config(Dataflow::OS), preload(kNone, 0, 16, 16, 16, false),
                    compute(0, 100, 16, 16, 16, false)};
  s = runZero(q);
  EXPECT_EQ(s.cycles, 16u + 16 + 16 + 31);
  EXPECT_EQ(s.bankConflictCycles, 0u);
}

TEST(SystolicSimulatorTest, VectorUnitHasItsOwnQueue) {
  // Two WS streams (m = 200 each) with, between them in program order, a
  // vector op that reads the first stream's results. The vector op waits
  // for those results; the second stream does not wait for the vector op
  // (only data orders the queues), so the program is as long as the two
  // streams alone.
  Program p;
  p.config = machine(16, 16, ElemType::F32);
  p.config.spadRows = 512;
  p.config.accRows = 512;
  p.instructions = {config(Dataflow::WS), preload(0, 0, 16, 16, 200, false),
                    compute(16, kNone, 200, 16, 16, true),
                    preload(kNone, 200, 16, 16, 200, false),
                    compute(16, kNone, 200, 16, 16, false)};
  SimStats streams = runZero(p);
  p.instructions.insert(p.instructions.begin() + 3,
                        vec(VecOp::Copy, 400, 0, 0, 64, 16));
  SimStats withVector = runZero(p);
  EXPECT_EQ(withVector.cycles, streams.cycles) << streams.cycles;
  EXPECT_GT(withVector.vectorCycles, 0u);
}

TEST(SystolicSimulatorTest, BankConflicts) {
  Program q;
  q.config = machine(16, 16, ElemType::I8);
  q.config.spadRows = 1024;
  q.config.spadBanks = 4; // 256 rows per bank
  q.instructions = {config(Dataflow::OS), preload(kNone, 0, 16, 16, 16, false),
                    compute(0, 256, 16, 16, 16, false)};
  SimStats apart = runZero(q);
  q.instructions.back().bRow = 16; // same bank as A
  SimStats same = runZero(q);
  EXPECT_EQ(same.bankConflictCycles, 16u);
  EXPECT_EQ(same.cycles, apart.cycles + 16);
  // Across a bank boundary: A in banks 0..1 (rows 250..265), B in bank 1.
  q.instructions.back().aRow = 250;
  q.instructions.back().bRow = 300;
  EXPECT_EQ(runZero(q).bankConflictCycles, 16u);

  // Vector: element-wise A and B in one accumulator bank take twice as
  // long; a row broadcast reads one column and does not conflict.
  Program v;
  v.config = machine(16, 16, ElemType::F32);
  v.config.accRows = 64;
  v.config.accBanks = 2; // 32 rows per bank
  v.config.vectorLanes = 16;
  v.instructions = {vec(VecOp::Add, 48, 0, 32, 16, 16)};
  SimStats va = runZero(v);
  EXPECT_EQ(va.cycles, 16 + kVectorLatency);
  EXPECT_EQ(va.vectorCycles, 16u);
  v.instructions.back().srcB = 16;
  SimStats vs = runZero(v);
  EXPECT_EQ(vs.cycles, 32 + kVectorLatency);
  EXPECT_EQ(vs.bankConflictCycles, 16u);
  v.instructions.back().bcast = Bcast::Row;
  EXPECT_EQ(runZero(v).bankConflictCycles, 0u);
  v.instructions.back() = vec(VecOp::Exp, 48, 0, 0, 16, 16);
  EXPECT_EQ(runZero(v).cycles, 16 * kVectorExpFactor + kVectorLatency);
}

/// WS over `tiles` A tiles of 16x16 streamed through one set of weights;
/// the A tiles come from DRAM into the same spad rows (single buffered) or
/// alternating halves (double buffered).
Program streamingProgram(bool doubleBuffered, uint32_t tiles) {
  Program p;
  p.config = machine(16, 16, ElemType::I8);
  p.config.accRows = 16 * tiles;
  p.buffers = {
      buffer("a", ElemType::I8, {16 * tiles, 16}),
      buffer("w", ElemType::I8, {16, 16}),
      buffer("c", ElemType::I32, {16 * tiles, 16}, BufferRole::Result)};
  p.instructions = {config(Dataflow::WS),
                    mvin(1, 0, 16, Space::Spad, 100, 16, 16),
                    preload(100, 0, 16, 16, 16, false)};
  for (uint32_t t = 0; t < tiles; ++t) {
    uint32_t row = doubleBuffered ? 16 * (t % 2) : 0;
    p.instructions.push_back(
        mvin(0, uint64_t(t) * 256, 16, Space::Spad, row, 16, 16));
    if (t > 0)
      p.instructions.push_back(preload(kNone, 16 * t, 16, 16, 16, false));
    p.instructions.push_back(compute(row, kNone, 16, 16, 16, t == 0));
  }
  p.instructions.push_back(mvout(Space::Acc, 0, 16 * tiles, 16, 2, 0, 16));
  return p;
}

TEST(SystolicSimulatorTest, DoubleBufferingOverlapsDma) {
  const uint32_t tiles = 8;
  Program single = streamingProgram(false, tiles);
  Program dbl = streamingProgram(true, tiles);
  // Same results.
  std::vector<int8_t> a(16 * tiles * 16), w(256);
  std::mt19937 rng(5);
  for (auto &x : a)
    x = int8_t(rng());
  for (auto &x : w)
    x = int8_t(rng());
  auto b1 = zeroBuffers(single), b2 = zeroBuffers(dbl);
  b1[0] = b2[0] = bytesOf(a);
  b1[1] = b2[1] = bytesOf(w);
  SimStats s1 = run(single, b1), s2 = run(dbl, b2);
  EXPECT_EQ(b1[2], b2[2]);
  auto c = valuesOf<int32_t>(b1[2]);
  EXPECT_EQ(c[5 * 16 + 3], [&] {
    int32_t r = 0;
    for (int k = 0; k < 16; ++k)
      r += int32_t(a[5 * 16 + k]) * w[k * 16 + 3];
    return r;
  }());
  std::printf("single buffered %llu cycles, double buffered %llu\n",
              (unsigned long long)s1.cycles, (unsigned long long)s2.cycles);
  // The final mvout of 16*tiles rows of i32: 100 + 16*tiles*64/16 cycles.
  uint64_t out = 100 + 64 * tiles;
  // The weights land at 116 and take 16 cycles to preload; A0 loaded
  // meanwhile. Single buffered, each later mvin waits for the previous
  // compute to finish reading: a DMA round trip (100 + 16) plus the stream
  // (16) per tile; the last results land 31 cycles after their stream.
  uint64_t tile = 100 + 16 + 16;
  EXPECT_EQ(s1.cycles, 116 + 16 + (tiles - 1) * tile + 16 + 31 + out);
  // Double buffered, a load waits only for the compute two tiles back: one
  // round trip per pair of tiles.
  EXPECT_EQ(s2.cycles, 116 + 16 + (tiles / 2 - 1) * tile + 2 * 16 + 31 + out);
  EXPECT_LT(s2.cycles, s1.cycles);
  EXPECT_GT(s1.stallCycles, s2.stallCycles);
  EXPECT_EQ(s1.computeCycles + s1.stallCycles, s1.cycles);
  std::string report = formatStats(dbl, s2, TimingMode::Default);
  EXPECT_NE(report.find("16 DRAM bytes/cycle"), std::string::npos) << report;
  EXPECT_NE(report.find("100-cycle latency"), std::string::npos) << report;
  EXPECT_NE(report.find(std::to_string(s2.cycles) + " cycles"),
            std::string::npos);
}

TEST(SystolicSimulatorTest, FenceWaitsForEverything) {
  Program p;
  p.config = machine(16, 16, ElemType::I8);
  p.buffers = {buffer("a", ElemType::I8, {16, 16}),
               buffer("b", ElemType::I8, {16, 16})};
  // Two independent loads overlap; a fence between them serialises.
  p.instructions = {mvin(0, 0, 16, Space::Spad, 0, 16, 16),
                    mvin(1, 0, 16, Space::Spad, 16, 16, 16)};
  EXPECT_EQ(runZero(p).cycles, 100u + 32);
  p.instructions.insert(p.instructions.begin() + 1, fence());
  EXPECT_EQ(runZero(p).cycles, 2 * (100u + 16));
}

//===----------------------------------------------------------------------===//
// SCALE-Sim mode: the golden GEMM M=256, K=256, N=128 on a 32x32 array
//===----------------------------------------------------------------------===//

MachineConfig goldenMachine() {
  MachineConfig m = machine(32, 32, ElemType::I8);
  m.spadRows = 4096;
  m.accRows = 1024;
  return m;
}

// WS: the 256x32 k-blocks of A at spad rows 256*kt, weight tiles (kt, nt)
// at 2048 + 32*(8*nt + kt); for each n-tile and k-tile one preload and one
// compute streaming all M = 256 rows.
Program goldenWS() {
  Program p;
  p.config = goldenMachine();
  p.instructions.push_back(config(Dataflow::WS));
  for (uint32_t nt = 0; nt < 4; ++nt)
    for (uint32_t kt = 0; kt < 8; ++kt) {
      p.instructions.push_back(
          preload(2048 + 32 * (8 * nt + kt), 256 * nt, 32, 32, 256, kt > 0));
      p.instructions.push_back(compute(256 * kt, kNone, 256, 32, 32, true));
    }
  return p;
}

// OS: for each 32x32 output tile, 8 computes of k = 32.
Program goldenOS() {
  Program p;
  p.config = goldenMachine();
  p.instructions.push_back(config(Dataflow::OS));
  for (uint32_t mt = 0; mt < 8; ++mt)
    for (uint32_t nt = 0; nt < 4; ++nt) {
      p.instructions.push_back(
          preload(kNone, 256 * nt + 32 * mt, 32, 32, 32, false));
      for (uint32_t kt = 0; kt < 8; ++kt)
        p.instructions.push_back(compute(
            256 * kt + 32 * mt, 2048 + 32 * (8 * nt + kt), 32, 32, 32, false));
    }
  return p;
}

// IS = WS on the transposed problem C^T = B^T . A^T: A^T tiles (kt, mt) are
// stationary (8 x 8 folds), the N = 128 rows of B^T stream through each.
Program goldenIS() {
  Program p;
  p.config = goldenMachine();
  p.instructions.push_back(config(Dataflow::WS));
  for (uint32_t mt = 0; mt < 8; ++mt)
    for (uint32_t kt = 0; kt < 8; ++kt) {
      p.instructions.push_back(
          preload(1024 + 32 * (8 * mt + kt), 128 * mt, 32, 32, 128, kt > 0));
      p.instructions.push_back(compute(128 * kt, kNone, 128, 32, 32, true));
    }
  return p;
}

TEST(SystolicSimulatorTest, ScaleSimGoldenGemm) {
  struct Golden {
    const char *name;
    Program program;
    uint64_t cycles, folds;
    double util;
  };
  // SCALE-Sim v2 reports: total cycles minus the first-fold DRAM stall
  // (WS 52447 - 41248, OS 52447 - 42272, IS 19984 - 5777) and its compute
  // utilisation.
  Golden goldens[] = {{"WS", goldenWS(), 11199, 32, 0.6719},
                      {"OS", goldenOS(), 10175, 32, 0.8050},
                      {"IS", goldenIS(), 14207, 64, 0.5059}};
  for (Golden &g : goldens) {
    SCOPED_TRACE(g.name);
    SimStats s = runZero(g.program, TimingMode::ScaleSim);
    EXPECT_EQ(s.computeCycles, g.cycles);
    EXPECT_EQ(s.cycles, g.cycles);
    EXPECT_EQ(s.stallCycles, 0u);
    EXPECT_EQ(s.folds, g.folds);
    EXPECT_EQ(s.macs, 256u * 256 * 128);
    EXPECT_DOUBLE_EQ(s.mappingEfficiency, 1.0);
    EXPECT_NEAR(s.computeUtilization, g.util, 0.001);
    std::string report = formatStats(g.program, s, TimingMode::ScaleSim);
    EXPECT_NE(report.find("DRAM is assumed ideal"), std::string::npos)
        << report;
    // The default model overlaps folds and so is faster than SCALE-Sim's.
    SimStats d = runZero(g.program);
    EXPECT_LT(d.cycles, s.cycles);
    EXPECT_EQ(d.folds, g.folds);
    EXPECT_DOUBLE_EQ(d.mappingEfficiency, 1.0);
  }
}

// Partially mapped folds still pay the full R and C in SCALE-Sim's model.
TEST(SystolicSimulatorTest, ScaleSimPartialFold) {
  Program p;
  p.config = goldenMachine();
  p.instructions = {config(Dataflow::WS), preload(0, 0, 16, 8, 100, false),
                    compute(64, kNone, 100, 16, 8, true)};
  SimStats s = runZero(p, TimingMode::ScaleSim);
  EXPECT_EQ(s.cycles, 2u * 32 + 100 + 32 - 2 - 1);
  EXPECT_DOUBLE_EQ(s.mappingEfficiency, 128.0 / 1024);
  EXPECT_NEAR(s.computeUtilization,
              128.0 * 100 / (1024.0 * (2 * 32 + 2 * 32 + 100 - 3)), 1e-12);
  // A vector op is counted aside, not in the cycles.
  Program v;
  v.config = machine(32, 32, ElemType::F32);
  v.config.spadRows = 4096;
  v.config.accRows = 1024;
  v.instructions = p.instructions;
  v.instructions.push_back(vec(VecOp::Exp, 0, 0, 0, 32, 32));
  SimStats sv = runZero(v, TimingMode::ScaleSim);
  EXPECT_EQ(sv.cycles, s.cycles);
  EXPECT_EQ(sv.vectorInstructions, 1u);
  EXPECT_EQ(sv.vectorCycles, 32u * 32 / 16 * kVectorExpFactor);
}

//===----------------------------------------------------------------------===//
// A large program
//===----------------------------------------------------------------------===//

// 512x512x512 int8 on 16x16 (WS, whole A resident, 1024 folds): every MAC is
// counted and sampled results are exact. The wall time is printed and
// recorded as a property, not gated: a timed assertion failed CI under ASan
// on a loaded machine (2.17 s against a 2 s bound); timings live in bench/.
TEST(SystolicSimulatorTest, LargeMatmulIsExact) {
  const uint32_t S = 512, T = 16, nt = S / T;
  Program p;
  p.config = machine(T, T, ElemType::I8);
  p.config.spadRows = nt * S + nt * nt * T; // A k-blocks + weight tiles
  p.config.accRows = 2 * S;
  p.buffers = {buffer("a", ElemType::I8, {S, S}),
               buffer("b", ElemType::I8, {S, S}),
               buffer("c", ElemType::I32, {S, S}, BufferRole::Result)};
  auto &ins = p.instructions;
  ins.push_back(config(Dataflow::WS));
  for (uint32_t kt = 0; kt < nt; ++kt)
    ins.push_back(mvin(0, kt * T, S, Space::Spad, kt * S, S, T));
  uint32_t wBase = nt * S;
  for (uint32_t kt = 0; kt < nt; ++kt)
    for (uint32_t n = 0; n < nt; ++n)
      ins.push_back(mvin(1, uint64_t(kt) * T * S + n * T, S, Space::Spad,
                         wBase + (kt * nt + n) * T, T, T));
  for (uint32_t n = 0; n < nt; ++n) {
    uint32_t cRow = (n % 2) * S;
    for (uint32_t kt = 0; kt < nt; ++kt) {
      ins.push_back(preload(wBase + (kt * nt + n) * T, cRow, T, T, S, kt > 0));
      ins.push_back(compute(kt * S, kNone, S, T, T, true));
    }
    ins.push_back(mvout(Space::Acc, cRow, S, T, 2, n * T, S));
  }
  std::vector<int8_t> a(S * S), b(S * S);
  std::mt19937 rng(1);
  for (auto &x : a)
    x = int8_t(rng());
  for (auto &x : b)
    x = int8_t(rng());
  auto bufs = zeroBuffers(p);
  bufs[0] = bytesOf(a);
  bufs[1] = bytesOf(b);
  auto t0 = std::chrono::steady_clock::now();
  SimStats s = run(p, bufs);
  double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
          .count();
  RecordProperty("simulate_seconds", std::to_string(secs));
  std::printf("512^3 int8 on 16x16: %.3f s, %llu cycles\n", secs,
              (unsigned long long)s.cycles);
  EXPECT_EQ(s.macs, uint64_t(S) * S * S);
  auto c = valuesOf<int32_t>(bufs[2]);
  for (uint32_t probe = 0; probe < 64; ++probe) {
    uint32_t i = rng() % S, j = rng() % S;
    int32_t ref = 0;
    for (uint32_t k = 0; k < S; ++k)
      ref += int32_t(a[i * S + k]) * b[k * S + j];
    EXPECT_EQ(c[i * S + j], ref) << i << "," << j;
  }
}

} // namespace
