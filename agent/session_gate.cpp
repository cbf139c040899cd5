#include "agent/session_gate.h"

#include <time.h>

#include "agent/clocks.h"

namespace stackscope::agent {

bool waitForNoUsers(const std::atomic<int64_t>& users, int64_t timeout_ns) {
  const int64_t deadline = monotonicNs() + timeout_ns;
  while (users.load() != 0) {
    if (monotonicNs() >= deadline) return false;
    const timespec step{0, 1'000'000};
    nanosleep(&step, nullptr);
  }
  return true;
}

void openSessionGate() { gate_detail::open.store(true); }

bool closeSessionGate(int64_t timeout_ns) {
  gate_detail::open.store(false);
  return waitForNoUsers(gate_detail::users, timeout_ns);
}

}  // namespace stackscope::agent
