// Ctrl-C as the end of a long-running front-end command (connect's stream, top): while an
// InterruptScope lives, SIGINT (and SIGTERM, SIGHUP: a terminal closed, a `timeout`) sets a
// flag the command's loop polls instead of killing it, so that it ends cleanly (its file
// complete, its connection closed, an agent it loaded detached). SIGPIPE is ignored meanwhile:
// a reader that went away (`top --json | head`) makes the next write to stdout fail, which
// the command takes as the same end, instead of dying with the JVM left recording. Another
// ending signal a second or more after the first ends the process at once, as without the
// scope: a command blocked (writing to a reader that stopped reading, a JVM that does not
// answer) still obeys a second Ctrl-C. Sooner it is the same request: `timeout` sends its
// SIGTERM to the command and to its process group, which holds the command too.
#pragma once

#include <array>
#include <csignal>
#include <cstdint>
#include <ctime>

namespace stackscope::cli {

class InterruptScope {
 public:
  InterruptScope() {
    flag() = 0;
    for (size_t i = 0; i < kEnding.size(); ++i) previous_[i] = std::signal(kEnding[i], onEnding);
    previous_pipe_ = std::signal(SIGPIPE, SIG_IGN);
  }
  ~InterruptScope() {
    for (size_t i = 0; i < kEnding.size(); ++i) std::signal(kEnding[i], previous_[i]);
    std::signal(SIGPIPE, previous_pipe_);
  }
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;

  bool interrupted() const { return flag() != 0; }

 private:
  static constexpr std::array<int, 3> kEnding = {SIGINT, SIGTERM, SIGHUP};

  // signal(), raise() and clock_gettime() are async-signal-safe.
  static void onEnding(int signal_number) {
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    const int64_t now_ns = int64_t{now.tv_sec} * 1'000'000'000 + now.tv_nsec;
    if (flag() == 0) {
      flag() = 1;
      first_ns() = now_ns;
      return;
    }
    if (now_ns - first_ns() < 1'000'000'000) return;
    std::signal(signal_number, SIG_DFL);
    std::raise(signal_number);
  }
  // When the first ending signal came (monotonic); a 64-bit store, whole on x86-64 and arm64.
  static volatile int64_t& first_ns() {
    static volatile int64_t first = 0;
    return first;
  }

  static volatile std::sig_atomic_t& flag() {
    static volatile std::sig_atomic_t interrupted = 0;
    return interrupted;
  }
  std::array<void (*)(int), 3> previous_{};
  void (*previous_pipe_)(int) = nullptr;
};

}  // namespace stackscope::cli
