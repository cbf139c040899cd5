// The gate in front of the current session's data. Everything that may run on an
// application thread at any time and reaches into a session — JVMTI callbacks, the natives
// of the Java API, the park wrapper — holds a SessionUse while it does; a session that ends
// closes the gate and waits until nobody is inside before its memory is freed (session.h).
// The SIGPROF handler has its own in-flight count (stack_capture.h), on the same pattern.
//
// Lock-free: a counter and a flag, so the GC's callbacks may use it too. A use taken while
// the gate is closed is empty and must not touch the session.
#pragma once

#include <atomic>
#include <cstdint>

namespace stackscope::agent {

namespace gate_detail {
inline std::atomic<int64_t> users{0};
inline std::atomic<bool> open{false};
}  // namespace gate_detail

class SessionUse {
 public:
  // Counted before the flag is read (both sequentially consistent): a closer that sees no
  // user after closing can be sure every later use sees the gate closed.
  SessionUse() {
    gate_detail::users.fetch_add(1);
    inside_ = gate_detail::open.load();
  }
  ~SessionUse() { gate_detail::users.fetch_sub(1); }
  SessionUse(const SessionUse&) = delete;
  SessionUse& operator=(const SessionUse&) = delete;

  explicit operator bool() const { return inside_; }

 private:
  bool inside_ = false;
};

// Opens the gate once the session's data is complete.
void openSessionGate();
// Closes it and waits, at most timeout_ns, until no use is left; false if one still was
// (then the session's memory must not be freed). Never called while holding a SessionUse.
bool closeSessionGate(int64_t timeout_ns);

// Sleeps in steps of a millisecond until `users` reads 0, at most timeout_ns; whether it did.
// Shared with the SIGPROF handler's in-flight count.
bool waitForNoUsers(const std::atomic<int64_t>& users, int64_t timeout_ns);

}  // namespace stackscope::agent
