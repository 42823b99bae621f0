//===- CompileBudgetTest.cpp - the supervised child of a time budget ------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// runWithCompileBudget forks; each test plays the child's part in the
// branch that gets nullopt and ends it with _exit. The budgets are short
// and the children's sleeps long, so that no test depends on how fast the
// machine is. accel-compile's use is tested by lit
// (test/Tools/accel-compile/compile-budget.test).
//
//===----------------------------------------------------------------------===//

#include "accel/Support/CompileBudget.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>

using namespace mlir::accel;

namespace {

/// A fresh folder with a `staging` folder in it.
std::string makeFolder() {
  llvm::SmallString<128> dir;
  EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory("accel-budget", dir));
  llvm::SmallString<128> staging(dir);
  llvm::sys::path::append(staging, "staging");
  EXPECT_FALSE(llvm::sys::fs::create_directory(staging));
  EXPECT_FALSE(
      llvm::sys::fs::create_directory(std::string(staging) + "/inner"));
  return std::string(dir);
}

/// A time budget, named --budget in the errors.
CompileBudget seconds(double s) {
  CompileBudget budget;
  budget.seconds = s;
  budget.secondsOption = "--budget";
  return budget;
}

uint64_t residentBytesOfThisProcess() {
  unsigned long long size = 0, resident = 0;
  if (FILE *f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%llu %llu", &size, &resident) != 2)
      resident = 0;
    std::fclose(f);
  }
  return uint64_t(resident) * uint64_t(::sysconf(_SC_PAGESIZE));
}

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                       start)
      .count();
}

TEST(CompileBudget, NoBudgetRunsInProcess) {
  std::string errors;
  llvm::raw_string_ostream os(errors);
  EXPECT_FALSE(runWithCompileBudget(seconds(0), "tool", os));
  EXPECT_FALSE(hasCompileBudget());
  EXPECT_TRUE(mayCommit());
  removeIfStopped("/nonexistent"); // no-ops
  EXPECT_TRUE(errors.empty());
}

TEST(CompileBudget, ASlowChildIsStoppedAndItsFoldersRemoved) {
  std::string dir = makeFolder();
  std::string errors;
  llvm::raw_string_ostream os(errors);
  auto start = std::chrono::steady_clock::now();
  std::optional<int> code = runWithCompileBudget(seconds(1.5), "tool", os);
  if (!code) {
    removeIfStopped(dir + "/staging");
    removeIfStoppedAndEmpty(dir);
    ::sleep(30);
    ::_exit(0);
  }
  EXPECT_EQ(*code, 1);
  EXPECT_LT(secondsSince(start), 10.0);
  EXPECT_NE(errors.find("tool: error: the compilation took longer than "
                        "--budget=1.5 and was stopped; nothing was written"),
            std::string::npos)
      << errors;
  // The staging folder, with what is in it, and the then empty folder.
  EXPECT_FALSE(llvm::sys::fs::exists(dir));
}

TEST(CompileBudget, AFolderThatIsNotEmptyStays) {
  std::string dir = makeFolder();
  std::string errors;
  llvm::raw_string_ostream os(errors);
  std::optional<int> code = runWithCompileBudget(seconds(1.5), "tool", os);
  if (!code) {
    // Only the empty-folder rule for `dir`, which holds `staging`.
    removeIfStoppedAndEmpty(dir);
    ::sleep(30);
    ::_exit(0);
  }
  EXPECT_EQ(*code, 1);
  EXPECT_TRUE(llvm::sys::fs::exists(dir + "/staging"));
  (void)llvm::sys::fs::remove_directories(dir);
}

TEST(CompileBudget, ACommitGrantedInTimeIsNotCutShort) {
  std::string dir = makeFolder();
  std::string errors;
  llvm::raw_string_ostream os(errors);
  std::optional<int> code = runWithCompileBudget(seconds(1.5), "tool", os);
  if (!code) {
    removeIfStopped(dir + "/staging");
    if (!hasCompileBudget() || !mayCommit())
      ::_exit(3);
    // Committing past the deadline: the parent waits.
    ::sleep(3);
    ::_exit(7);
  }
  EXPECT_EQ(*code, 7); // the child's own code
  EXPECT_TRUE(errors.empty()) << errors;
  EXPECT_TRUE(llvm::sys::fs::exists(dir + "/staging"));
  (void)llvm::sys::fs::remove_directories(dir);
}

TEST(CompileBudget, AChildThatFailsKeepsItsCode) {
  std::string errors;
  llvm::raw_string_ostream os(errors);
  std::optional<int> code = runWithCompileBudget(seconds(30), "tool", os);
  if (!code)
    ::_exit(1);
  EXPECT_EQ(*code, 1);
  EXPECT_TRUE(errors.empty()) << errors;
}

TEST(CompileBudget, AChildThatDiesIsReportedAndCleanedUp) {
  std::string dir = makeFolder();
  std::string errors;
  llvm::raw_string_ostream os(errors);
  std::optional<int> code = runWithCompileBudget(seconds(30), "tool", os);
  if (!code) {
    removeIfStopped(dir + "/staging");
    std::signal(SIGABRT, SIG_DFL);
    std::abort();
  }
  EXPECT_EQ(*code, 128 + SIGABRT);
  EXPECT_NE(errors.find("tool: error: the compilation died of signal 6"),
            std::string::npos)
      << errors;
  EXPECT_FALSE(llvm::sys::fs::exists(dir + "/staging"));
  (void)llvm::sys::fs::remove_directories(dir);
}

TEST(CompileBudget, AChildThatExitsWithoutCleaningUpIsCleanedUpAfter) {
  // As a child that ends in `LLVM ERROR` does: exit(1), no destructors.
  std::string dir = makeFolder();
  std::string errors;
  llvm::raw_string_ostream os(errors);
  std::optional<int> code = runWithCompileBudget(seconds(30), "tool", os);
  if (!code) {
    removeIfStopped(dir + "/staging");
    ::_exit(1);
  }
  EXPECT_EQ(*code, 1);
  EXPECT_FALSE(llvm::sys::fs::exists(dir + "/staging"));
  (void)llvm::sys::fs::remove_directories(dir);
}

TEST(CompileBudget, PathsWithNewlinesAndWithdrawnPaths) {
  // A newline in a path must not split its record: `dir/a\nb` goes, the
  // folder `dir/a` stays. A withdrawn path stays too.
  std::string dir = makeFolder();
  ASSERT_FALSE(llvm::sys::fs::create_directory(dir + "/a"));
  ASSERT_FALSE(llvm::sys::fs::create_directory(dir + "/a\nb"));
  ASSERT_FALSE(llvm::sys::fs::create_directory(dir + "/kept"));
  std::string errors;
  llvm::raw_string_ostream os(errors);
  std::optional<int> code = runWithCompileBudget(seconds(1.5), "tool", os);
  if (!code) {
    removeIfStopped(dir + "/a\nb");
    removeIfStopped(dir + "/kept");
    keepIfStopped(dir + "/kept");
    ::sleep(30);
    ::_exit(0);
  }
  EXPECT_EQ(*code, 1);
  EXPECT_FALSE(llvm::sys::fs::exists(dir + "/a\nb"));
  EXPECT_TRUE(llvm::sys::fs::exists(dir + "/a"));
  EXPECT_TRUE(llvm::sys::fs::exists(dir + "/kept"));
  (void)llvm::sys::fs::remove_directories(dir);
}

TEST(CompileBudget, ASignalDuringAGrantedCommitLetsItFinish) {
  std::string dir = makeFolder();
  std::string errors;
  llvm::raw_string_ostream os(errors);
  std::optional<int> code = runWithCompileBudget(seconds(30), "tool", os);
  if (!code) {
    removeIfStopped(dir + "/staging");
    if (!mayCommit())
      ::_exit(3);
    ::kill(::getppid(), SIGTERM);
    ::usleep(300 * 1000); // the commit, still going when the signal lands
    llvm::SmallString<128> done(dir);
    llvm::sys::path::append(done, "committed");
    (void)llvm::sys::fs::create_directory(done);
    ::_exit(0);
  }
  EXPECT_EQ(*code, 128 + SIGTERM);
  EXPECT_TRUE(llvm::sys::fs::exists(dir + "/committed"));
  EXPECT_TRUE(llvm::sys::fs::exists(dir + "/staging")); // the child's to handle
  (void)llvm::sys::fs::remove_directories(dir);
}

TEST(CompileBudget, AnEndlessBudgetIsNoDeadlineInThePast) {
  std::string errors;
  llvm::raw_string_ostream os(errors);
  std::optional<int> code =
      runWithCompileBudget(seconds(1e300), "tool", os);
  if (!code) {
    ::usleep(100 * 1000);
    ::_exit(mayCommit() ? 5 : 3);
  }
  EXPECT_EQ(*code, 5);
  EXPECT_TRUE(errors.empty()) << errors;
}

TEST(CompileBudget, ASignalToTheParentStopsTheChild) {
  std::string dir = makeFolder();
  std::string errors;
  llvm::raw_string_ostream os(errors);
  auto start = std::chrono::steady_clock::now();
  // Until the parent's handler is in place, a SIGTERM must not end this
  // test process: ignored meanwhile (the handler goes in all the same, as
  // SIGTERM was not ignored when the process started), and sent until the
  // parent stops the child.
  std::signal(SIGTERM, SIG_IGN);
  std::optional<int> code = runWithCompileBudget(seconds(30), "tool", os);
  if (!code) {
    removeIfStopped(dir + "/staging");
    for (int i = 0; i < 600; ++i) {
      ::kill(::getppid(), SIGTERM);
      ::usleep(50 * 1000);
    }
    ::_exit(0);
  }
  std::signal(SIGTERM, SIG_DFL);
  EXPECT_EQ(*code, 128 + SIGTERM);
  EXPECT_LT(secondsSince(start), 10.0);
  EXPECT_FALSE(llvm::sys::fs::exists(dir + "/staging"));
  (void)llvm::sys::fs::remove_directories(dir);
}

TEST(CompileBudget, AChildThatGrowsPastTheMemoryLimitIsStopped) {
  std::string dir = makeFolder();
  std::string errors;
  llvm::raw_string_ostream os(errors);
  CompileBudget budget;
  // What the forked child starts with (the test process's pages), and
  // 128 MiB more.
  budget.residentBytes = residentBytesOfThisProcess() + (uint64_t(128) << 20);
  budget.residentBytesOption = "--memory";
  auto start = std::chrono::steady_clock::now();
  std::optional<int> code = runWithCompileBudget(budget, "tool", os);
  if (!code) {
    removeIfStopped(dir + "/staging");
    // 512 MiB, touched page by page, then held.
    size_t bytes = size_t(512) << 20;
    volatile char *block = static_cast<char *>(std::malloc(bytes));
    for (size_t i = 0; block && i < bytes; i += 4096)
      block[i] = 1;
    ::sleep(30);
    ::_exit(0);
  }
  EXPECT_EQ(*code, 1);
  EXPECT_LT(secondsSince(start), 10.0);
  EXPECT_NE(errors.find("tool: error: the compilation used more than "
                        "--memory=" +
                        std::to_string(budget.residentBytes) +
                        " bytes of memory ("),
            std::string::npos)
      << errors;
  EXPECT_FALSE(llvm::sys::fs::exists(dir + "/staging"));
  (void)llvm::sys::fs::remove_directories(dir);
}

TEST(CompileBudget, AChildWithinTheMemoryLimitRunsOn) {
  std::string errors;
  llvm::raw_string_ostream os(errors);
  CompileBudget budget;
  budget.residentBytes = uint64_t(4) << 30;
  std::optional<int> code = runWithCompileBudget(budget, "tool", os);
  if (!code) {
    ::usleep(100 * 1000); // a few samples
    ::_exit(hasCompileBudget() && mayCommit() ? 5 : 3);
  }
  EXPECT_EQ(*code, 5);
  EXPECT_TRUE(errors.empty()) << errors;
}

} // namespace
