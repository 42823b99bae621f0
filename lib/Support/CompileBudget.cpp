//===- CompileBudget.cpp - limits on a compilation ------------------------===//
//
// Part of the accel project, under the Apache License v2.0 with LLVM
// Exceptions.
//
//===----------------------------------------------------------------------===//
//
// The child talks to the parent over one pipe, in records that end with a
// NUL byte (a path may hold any other byte, a newline included) and are at
// most PIPE_BUF bytes long, so each write is atomic: "R<path>" (remove if
// stopped), "E<path>" (remove if stopped and empty), "U<path>" (withdraw an
// "R") and "C" (may I commit?). The parent answers "C" on a second pipe with one byte, 'y', or
// not at all: a parent that has decided to stop the child kills it
// instead. Signals reach the parent's loop through a pipe of their own (the
// self-pipe trick), so one that arrives just before poll() is not missed.
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
#include <string>
#include <sys/prctl.h>
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

/// The write end of the parent's signal pipe, -1 when none.
int signalPipeFd = -1;

/// The signals the parent passes on to the child.
constexpr int kPassedOnSignals[] = {SIGINT, SIGTERM, SIGHUP};

/// Which of kPassedOnSignals the process was started with ignored (`nohup`
/// ignores SIGHUP), read before main runs: llvm::InitLLVM puts its own
/// handlers in place of the dispositions it found. An ignored signal stays
/// ignored under a budget too.
struct InitiallyIgnored {
  bool ignored[3] = {false, false, false};
  InitiallyIgnored() {
    for (int i = 0; i < 3; ++i) {
      struct sigaction old = {};
      if (::sigaction(kPassedOnSignals[i], nullptr, &old) == 0)
        ignored[i] = old.sa_handler == SIG_IGN;
    }
  }
};
const InitiallyIgnored initiallyIgnored;

void onSignal(int signal) {
  int saved = errno;
  unsigned char byte = static_cast<unsigned char>(signal);
  if (signalPipeFd >= 0)
    (void)!::write(signalPipeFd, &byte, 1);
  errno = saved;
}

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
  std::string record;
  record += kind;
  record += path.str();
  record += '\0';
  // A longer record could not be sent atomically; such a path cannot be
  // made on Linux anyway (PATH_MAX and PIPE_BUF are both 4096). A path with
  // a NUL byte cannot exist.
  if (record.size() <= PIPE_BUF && !path.contains('\0'))
    (void)writeAll(toParentFd, record);
}

/// What the parent removes once a stopped child is dead.
struct Cleanup {
  std::vector<std::string> trees;
  std::vector<std::string> emptyFolders;

  void run() {
    // Staging folders first, then the folders they were made in, the
    // innermost first (they were reported outermost first).
    for (auto it = trees.rbegin(); it != trees.rend(); ++it)
      (void)llvm::sys::fs::remove_directories(*it);
    // rmdir: an empty folder goes, nothing else (not a file or a link
    // that took the name meanwhile, not a folder with something in it).
    for (auto it = emptyFolders.rbegin(); it != emptyFolders.rend(); ++it)
      (void)::rmdir(it->c_str());
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

/// Budgets past this many seconds (31 years) count as this: a longer one
/// would overflow the clock's arithmetic.
constexpr double kLongestBudgetSeconds = 1e9;

class Supervisor {
public:
  Supervisor(pid_t child, int fromChild, int toChild, int signals,
             const CompileBudget &budget)
      : child(child), fromChild(fromChild), toChild(toChild),
        signals(signals), budget(budget),
        deadline(std::chrono::steady_clock::now() +
                 std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                     std::chrono::duration<double>(std::min(
                         budget.seconds, kLongestBudgetSeconds)))) {}

  /// Waits for the child; see runWithCompileBudget.
  int run(StringRef tool, llvm::raw_ostream &errs) {
    while (true) {
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
      struct pollfd pfds[2] = {{fromChild, POLLIN, 0}, {signals, POLLIN, 0}};
      int ready =
          ::poll(pfds, 2, int(std::min<long long>(timeoutMs, INT_MAX)));
      if (ready < 0) {
        if (errno == EINTR)
          continue;
        stop();
        llvm::WithColor::error(errs, tool)
            << "cannot wait for the compilation: " << strerror(errno) << "\n";
        return 1;
      }
      if (pfds[1].revents & POLLIN) {
        unsigned char signal = 0;
        if (::read(signals, &signal, 1) == 1 && signal != 0) {
          // A commit already granted is let finish: stopping it halfway
          // would leave part of the output.
          if (committing)
            (void)reap(tool, errs, /*report=*/false);
          else
            stop();
          return 128 + signal;
        }
      }
      if (ready == 0 || !(pfds[0].revents & (POLLIN | POLLHUP | POLLERR))) {
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
    while ((end = pending.find('\0')) != std::string::npos) {
      StringRef record = StringRef(pending).take_front(end);
      if (record == "C") {
        committing = true;
        (void)writeAll(toChild, "y");
      } else if (record.consume_front("R")) {
        cleanup.trees.push_back(record.str());
      } else if (record.consume_front("E")) {
        cleanup.emptyFolders.push_back(record.str());
      } else if (record.consume_front("U")) {
        llvm::erase(cleanup.trees, record.str());
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
    // The records it sent before it died.
    char buffer[4096];
    ssize_t n;
    while ((n = ::read(fromChild, buffer, sizeof(buffer))) > 0)
      pending.append(buffer, size_t(n));
    handleMessages();
    cleanup.run();
  }

  /// Waits for a child that is done (or committing), then ends what it
  /// left running in its group.
  int reap(StringRef tool, llvm::raw_ostream &errs, bool report = true) {
    // Waited for without reaping first: while the child is a zombie its
    // pid, and so its group's id, cannot be taken by another process.
    siginfo_t info = {};
    while (::waitid(P_PID, id_t(child), &info, WEXITED | WNOWAIT) < 0 &&
           errno == EINTR)
      ;
    ::kill(-child, SIGKILL);
    int status = 0;
    while (::waitpid(child, &status, 0) < 0 && errno == EINTR)
      ;
    // Whatever it staged goes unless it had leave to commit: a child that
    // failed removes its own, but not one that ended in `LLVM ERROR`
    // (exit(1) without the destructors) or a signal.
    if (!committing)
      cleanup.run();
    if (WIFEXITED(status))
      return WEXITSTATUS(status);
    int signal = WIFSIGNALED(status) ? WTERMSIG(status) : SIGKILL;
    if (report)
      llvm::WithColor::error(errs, tool)
          << "the compilation died of " << signalName(signal)
          << (committing ? "" : "; nothing was written") << "\n";
    return 128 + signal;
  }

  pid_t child;
  int fromChild, toChild, signals;
  CompileBudget budget;
  std::chrono::steady_clock::time_point deadline;
  bool committing = false;
  std::string pending;
  Cleanup cleanup;
};

/// A pipe whose ends are closed on exec, the read end non-blocking when
/// asked.
bool makePipe(int fds[2], bool nonBlocking = false) {
  if (::pipe(fds) != 0)
    return false;
  for (int i = 0; i < 2; ++i) {
    ::fcntl(fds[i], F_SETFD, FD_CLOEXEC);
    if (nonBlocking)
      ::fcntl(fds[i], F_SETFL, ::fcntl(fds[i], F_GETFL) | O_NONBLOCK);
  }
  return true;
}

} // namespace

std::optional<int>
mlir::accel::runWithCompileBudget(const CompileBudget &budget, StringRef tool,
                                  llvm::raw_ostream &errs) {
  if (budget.seconds < 0) {
    llvm::WithColor::error(errs, tool)
        << budget.secondsOption << " must be 0 (no limit) or more\n";
    return 1;
  }
  if (!(budget.seconds > 0) && budget.residentBytes == 0)
    return std::nullopt;
  // Every pipe is closed on exec: a program the child runs must not hold
  // an end (the parent would wait for it after the child is gone).
  int up[2], down[2], signals[2];
  if (!makePipe(up) || !makePipe(down) ||
      !makePipe(signals, /*nonBlocking=*/true)) {
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
    // In a process group of its own the child is in the background of a
    // terminal: with `stty tostop` its diagnostics would stop it.
    ::signal(SIGTTOU, SIG_IGN);
    ::close(up[0]);
    ::close(down[1]);
    ::close(signals[0]);
    ::close(signals[1]);
    toParentFd = up[1];
    fromParentFd = down[0];
    return std::nullopt;
  }
  // Both sides set the group, so it exists before either relies on it.
  ::setpgid(child, child);
  ::close(up[1]);
  ::close(down[0]);
  signalPipeFd = signals[1];
  struct sigaction action = {};
  action.sa_handler = onSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  // One that was ignored at the start is ignored again explicitly: LLVM's
  // handler in its place would restore every disposition LLVM found,
  // SIG_DFL for SIGTERM included, before it re-raises (measured: SIGHUP
  // under nohup, then SIGTERM killed the parent outright).
  struct sigaction ignoreIt = {}, previous[3] = {};
  ignoreIt.sa_handler = SIG_IGN;
  sigemptyset(&ignoreIt.sa_mask);
  for (int i = 0; i < 3; ++i)
    ::sigaction(kPassedOnSignals[i],
                initiallyIgnored.ignored[i] ? &ignoreIt : &action,
                &previous[i]);
  // A child that is gone must not kill the parent by a write to its pipe.
  struct sigaction ignore = {}, previousPipe = {};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGPIPE, &ignore, &previousPipe);
  Supervisor supervisor(child, up[0], down[1], signals[0], budget);
  int code = supervisor.run(tool, errs);
  // As it was: the caller may go on (a test does).
  for (int i = 0; i < 3; ++i)
    ::sigaction(kPassedOnSignals[i], &previous[i], nullptr);
  ::sigaction(SIGPIPE, &previousPipe, nullptr);
  signalPipeFd = -1;
  for (int fd : {up[0], down[1], signals[0], signals[1]})
    ::close(fd);
  return code;
}

bool mlir::accel::hasCompileBudget() { return toParentFd >= 0; }

void mlir::accel::removeIfStopped(StringRef path) { tellParent('R', path); }

void mlir::accel::removeIfStoppedAndEmpty(StringRef path) {
  tellParent('E', path);
}

void mlir::accel::keepIfStopped(StringRef path) { tellParent('U', path); }

bool mlir::accel::mayCommit() {
  if (toParentFd < 0)
    return true;
  if (!writeAll(toParentFd, StringRef("C\0", 2)))
    return false;
  char answer = 0;
  ssize_t n;
  while ((n = ::read(fromParentFd, &answer, 1)) < 0 && errno == EINTR)
    ;
  return n == 1 && answer == 'y';
}
