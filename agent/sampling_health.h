// Whether sampling works at all, told in the recording rather than left to a profile that is
// silently empty: SIGPROF taken from someone else at load time, taken from us later, or CPU
// timers that never fire (cpu mode) while the process clearly uses CPU.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace stackscope::agent {

// The warning for a SIGPROF handler that installCaptureHandler replaced.
std::string foreignHandlerWarning();

class SamplingHealth {
 public:
  SamplingHealth(bool cpu_mode, int64_t interval_ns);

  // Called by the writer thread at every status report with the process CPU time since the
  // recording began, the samples written plus the samples counted as lost so far, and whether
  // SIGPROF still reaches the capture handler. Returns each warning once, when first due.
  std::vector<std::string> check(int64_t process_cpu_ns, uint64_t samples_and_losses, bool handler_ours);

  // CPU time the process must have used, with no sample and no loss, before cpu mode calls
  // its timers silent: far more than JIT and GC threads use on their own while a program
  // starts, and 100 intervals (so even a coarse interval had many chances to fire).
  int64_t silentThresholdNs() const { return silent_threshold_ns_; }

 private:
  bool cpu_mode_;
  int64_t silent_threshold_ns_;
  bool warned_replaced_ = false;
  bool warned_silent_ = false;
};

}  // namespace stackscope::agent
