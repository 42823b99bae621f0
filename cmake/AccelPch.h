//===- AccelPch.h - the precompiled MLIR and LLVM headers -------*- C++ -*-===//
//
// The upstream headers most of accel's C++ files include, parsed once into a
// precompiled header that the libraries, tools and unit tests reuse
// (CMakeLists.txt, ACCEL_PCH). Parsing these took three quarters of a
// typical file's compile time (lib/Transforms/DotGemm.cpp: 22.3 s, 16.9 of
// them before code generation; 3.5 s with the header precompiled; a Zen 3
// vCPU with lit running beside it, 2026-12-07). Only
// upstream headers belong here: every file still includes what it uses, so
// a build without ACCEL_PCH compiles the same code.
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"
