// Ctrl-C as the end of a long-running front-end command (connect's stream, top): while an
// InterruptScope lives, SIGINT sets a flag the command's loop polls instead of killing it, so
// that it ends cleanly (its file complete, its connection closed).
#pragma once

#include <csignal>

namespace stackscope::cli {

class InterruptScope {
 public:
  InterruptScope() {
    flag() = 0;
    previous_ = std::signal(SIGINT, [](int) { flag() = 1; });
  }
  ~InterruptScope() { std::signal(SIGINT, previous_); }
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;

  bool interrupted() const { return flag() != 0; }

 private:
  static volatile std::sig_atomic_t& flag() {
    static volatile std::sig_atomic_t interrupted = 0;
    return interrupted;
  }
  void (*previous_)(int) = nullptr;
};

}  // namespace stackscope::cli
