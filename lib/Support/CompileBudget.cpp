//===- CompileBudget.cpp - a time limit on a compilation ------------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The child talks to the parent over one pipe, in lines of at most
// PIPE_BUF bytes (so each write is atomic): "R <path>" (remove if stopped),
// "E <path>" (remove if stopped and empty) and "C" (may I commit?). The
// parent answers "C" on a second pipe with one byte, 'y' or nothing at all:
// a parent that has decided to stop the child kills it instead.
//
//===----------------------------------------------------------------------===//

#include "accel/Support/CompileBudget.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <string>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace mlir;
using namespace mlir::accel;
using llvm::StringRef;

namespace {

/// The child's ends of the pipes; -1 when not supervised.
int toParentFd = -1;
int fromParentFd = -1;

/// A signal the parent got (SIGINT, SIGTERM, SIGHUP), or 0.
volatile sig_atomic_t parentSignal = 0;

void recordSignal(int signal) { parentSignal = signal; }

bool writeAll(int fd, StringRef bytes) {
  while (!bytes.empty()) {
    ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    bytes = bytes.drop_front(size_t(n));
  }
  return true;
}

void tellParent(char kind, StringRef path) {
  if (toParentFd < 0)
    return;
  std::string line = (llvm::Twine(kind) + " " + path + "\n").str();
  // A longer path could not be sent atomically; such a path cannot be
  // created on Linux anyway (PATH_MAX is 4096, PIPE_BUF too).
  if (line.size() <= PIPE_BUF)
    (void)writeAll(toParentFd, line);
}

/// What the parent removes once a stopped child is dead.
struct Cleanup {
  std::vector<std::string> trees;
  std::vector<std::string> emptyFolders;

  void run() {
    // Staging folders first, then the folders they were made in.
    for (auto it = trees.rbegin(); it != trees.rend(); ++it)
      (void)llvm::sys::fs::remove_directories(*it);
    for (auto it = emptyFolders.rbegin(); it != emptyFolders.rend(); ++it)
      (void)llvm::sys::fs::remove(*it); // fails, harmlessly, if not empty
  }
};

std::string signalName(int signal) {
  const char *name = strsignal(signal);
  return (llvm::Twine("signal ") + llvm::Twine(signal) +
          (name ? (llvm::Twine(" (") + name + ")") : llvm::Twine("")))
      .str();
}

/// The resident bytes of process `pid` (/proc/PID/statm), or 0.
uint64_t residentBytesOf(pid_t pid) {
  std::string path = ("/proc/" + llvm::Twine(pid) + "/statm").str();
  FILE *file = std::fopen(path.c_str(), "r");
  if (!file)
    return 0;
  unsigned long long sizePages = 0, residentPages = 0;
  int read = std::fscanf(file, "%llu %llu", &sizePages, &residentPages);
  std::fclose(file);
  if (read != 2)
    return 0;
  return uint64_t(residentPages) * uint64_t(::sysconf(_SC_PAGESIZE));
}

class Supervisor {
public:
  Supervisor(pid_t child, int fromChild, int toChild,
             const CompileBudget &budget)
      : child(child), fromChild(fromChild), toChild(toChild), budget(budget),
        deadline(std::chrono::steady_clock::now() +
                 std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                     std::chrono::duration<double>(budget.seconds))) {}

  /// Waits for the child; see runWithCompileBudget.
  int run(StringRef tool, llvm::raw_ostream &errs) {
    while (true) {
      if (parentSignal) {
        int signal = parentSignal;
        stop();
        return 128 + signal;
      }
      bool timed = budget.seconds > 0 && !committing;
      bool sampled = budget.residentBytes > 0 && !committing;
      long long timeoutMs = -1;
      if (timed)
        timeoutMs = std::max<long long>(
            0, std::chrono::duration_cast<std::chrono::milliseconds>(
                   deadline - std::chrono::steady_clock::now())
                   .count());
      if (sampled)
        timeoutMs = timeoutMs < 0 ? 20 : std::min<long long>(timeoutMs, 20);
      struct pollfd pfd = {fromChild, POLLIN, 0};
      int ready =
          ::poll(&pfd, 1, int(std::min<long long>(timeoutMs, INT_MAX)));
      if (ready < 0) {
        if (errno == EINTR)
          continue;
        stop();
        llvm::WithColor::error(errs, tool)
            << "cannot wait for the compilation: " << strerror(errno) << "\n";
        return 1;
      }
      if (ready == 0) {
        // A limit may be reached, and no commit was asked for.
        if (sampled) {
          uint64_t resident = residentBytesOf(child);
          if (resident > budget.residentBytes) {
            stop();
            llvm::WithColor::error(errs, tool)
                << "the compilation used more than "
                << budget.residentBytesOption << "=" << budget.residentBytes
                << " bytes of memory (" << resident
                << " resident) and was stopped; nothing was written\n";
            return 1;
          }
        }
        if (timed && std::chrono::steady_clock::now() >= deadline) {
          stop();
          llvm::WithColor::error(errs, tool)
              << "the compilation took longer than " << budget.secondsOption
              << "=" << llvm::format("%g", budget.seconds)
              << " and was stopped; nothing was written\n";
          return 1;
        }
        continue;
      }
      char buffer[4096];
      ssize_t n = ::read(fromChild, buffer, sizeof(buffer));
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return reap(tool, errs); // the child closed its end: it is done
      pending.append(buffer, size_t(n));
      handleMessages();
    }
  }

private:
  void handleMessages() {
    size_t end;
    while ((end = pending.find('\n')) != std::string::npos) {
      StringRef line = StringRef(pending).take_front(end);
      if (line == "C") {
        committing = true;
        (void)writeAll(toChild, "y");
      } else if (line.consume_front("R ")) {
        cleanup.trees.push_back(line.str());
      } else if (line.consume_front("E ")) {
        cleanup.emptyFolders.push_back(line.str());
      }
      pending.erase(0, end + 1);
    }
  }

  /// Kills the child's group, waits for it and removes its folders.
  void stop() {
    ::kill(-child, SIGKILL);
    ::kill(child, SIGKILL); // in case it had not made its group yet
    int status;
    while (::waitpid(child, &status, 0) < 0 && errno == EINTR)
      ;
    // The messages it sent before it died.
    char buffer[4096];
    ssize_t n;
    while ((n = ::read(fromChild, buffer, sizeof(buffer))) > 0)
      pending.append(buffer, size_t(n));
    handleMessages();
    cleanup.run();
  }

  int reap(StringRef tool, llvm::raw_ostream &errs) {
    int status = 0;
    while (::waitpid(child, &status, 0) < 0 && errno == EINTR)
      ;
    // What it left running in its group (nothing, normally).
    ::kill(-child, SIGKILL);
    if (WIFEXITED(status)) {
      // A child that failed cleaned up after itself; one that was refused
      // leave to commit cannot get here (it was killed).
      return WEXITSTATUS(status);
    }
    int signal = WIFSIGNALED(status) ? WTERMSIG(status) : SIGKILL;
    if (!committing)
      cleanup.run();
    llvm::WithColor::error(errs, tool)
        << "the compilation died of " << signalName(signal)
        << (committing ? "" : "; nothing was written") << "\n";
    return 128 + signal;
  }

  pid_t child;
  int fromChild, toChild;
  CompileBudget budget;
  std::chrono::steady_clock::time_point deadline;
  bool committing = false;
  std::string pending;
  Cleanup cleanup;
};

} // namespace

std::optional<int>
mlir::accel::runWithCompileBudget(const CompileBudget &budget, StringRef tool,
                                  llvm::raw_ostream &errs) {
  if (!(budget.seconds > 0) && budget.residentBytes == 0)
    return std::nullopt;
  parentSignal = 0;
  int up[2], down[2];
  if (::pipe(up) != 0 || ::pipe(down) != 0) {
    llvm::WithColor::error(errs, tool)
        << "cannot start the supervised compilation: " << strerror(errno)
        << "\n";
    return 1;
  }
  // Output buffered before the fork would be written twice.
  errs.flush();
  llvm::outs().flush();
  std::fflush(nullptr);
  pid_t parent = ::getpid();
  pid_t child = ::fork();
  if (child < 0) {
    llvm::WithColor::error(errs, tool)
        << "cannot start the supervised compilation: " << strerror(errno)
        << "\n";
    return 1;
  }
  if (child == 0) {
    ::setpgid(0, 0);
    // A child whose parent is gone (killed with SIGKILL, which it cannot
    // pass on) dies too, rather than compile on unsupervised.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent)
      ::_exit(1);
    ::close(up[0]);
    ::close(down[1]);
    toParentFd = up[1];
    fromParentFd = down[0];
    // The programs the child runs must not inherit the pipes: a grandchild
    // holding the write end would keep the parent waiting after the child
    // is gone.
    ::fcntl(toParentFd, F_SETFD, FD_CLOEXEC);
    ::fcntl(fromParentFd, F_SETFD, FD_CLOEXEC);
    return std::nullopt;
  }
  // Both sides set the group, so it exists before either relies on it.
  ::setpgid(child, child);
  ::close(up[1]);
  ::close(down[0]);
  struct sigaction action = {};
  action.sa_handler = recordSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0; // no SA_RESTART: poll returns EINTR
  for (int signal : {SIGINT, SIGTERM, SIGHUP})
    ::sigaction(signal, &action, nullptr);
  // A child that is gone must not kill the parent by a write to its pipe.
  ::signal(SIGPIPE, SIG_IGN);
  Supervisor supervisor(child, up[0], down[1], budget);
  int code = supervisor.run(tool, errs);
  ::close(up[0]);
  ::close(down[1]);
  return code;
}

bool mlir::accel::hasCompileBudget() { return toParentFd >= 0; }

void mlir::accel::removeIfStopped(StringRef path) { tellParent('R', path); }

void mlir::accel::removeIfStoppedAndEmpty(StringRef path) {
  tellParent('E', path);
}

bool mlir::accel::mayCommit() {
  if (toParentFd < 0)
    return true;
  if (!writeAll(toParentFd, "C\n"))
    return false;
  char answer = 0;
  ssize_t n;
  while ((n = ::read(fromParentFd, &answer, 1)) < 0 && errno == EINTR)
    ;
  return n == 1 && answer == 'y';
}
