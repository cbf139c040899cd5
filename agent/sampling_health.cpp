#include "agent/sampling_health.h"

#include <algorithm>
#include <cstdio>

namespace stackscope::agent {

namespace {
constexpr int64_t kMinSilentCpuNs = 2'000'000'000;  // 2 s of CPU
constexpr int64_t kSilentIntervals = 100;

std::string seconds(int64_t ns) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1fs", static_cast<double>(ns) / 1e9);
  return text;
}
}  // namespace

std::string foreignHandlerWarning() {
  return "SIGPROF already had a handler (another profiler or a native library) when stackscope loaded; "
         "stackscope replaced it, so that other tool gets no more signals";
}

SamplingHealth::SamplingHealth(bool cpu_mode, int64_t interval_ns)
    : cpu_mode_(cpu_mode), silent_threshold_ns_(std::max(kMinSilentCpuNs, kSilentIntervals * interval_ns)) {}

std::vector<std::string> SamplingHealth::check(int64_t process_cpu_ns, uint64_t samples_and_losses, bool handler_ours) {
  std::vector<std::string> warnings;
  if (!handler_ours && !warned_replaced_) {
    warned_replaced_ = true;
    warnings.push_back("another handler replaced stackscope's SIGPROF handler while it ran (another profiler or a "
                       "native library); samples after this point are missing");
  }
  if (cpu_mode_ && !warned_silent_ && samples_and_losses == 0 && process_cpu_ns >= silent_threshold_ns_) {
    warned_silent_ = true;
    warnings.push_back("the process used " + seconds(process_cpu_ns) +
                       " of CPU but the CPU timers produced no sample and no loss: the timer signals do not reach "
                       "stackscope (is another tool handling or blocking SIGPROF?)");
  }
  return warnings;
}

}  // namespace stackscope::agent
