#include "agent/gc_trace.h"

#include <cstring>

namespace stackscope::agent {

namespace {
// What HotSpot's cause counter says between collections (GCCause::_no_gc).
constexpr char kNoGc[] = "No GC";
}  // namespace

void GcTrace::bind(const PerfMemoryBlock& block) {
  // Numbers need not start at 0: ZGC has only sun.gc.collector.2 (JDK 17).
  int count = 0;
  for (int i = 0; i < kMaxCollectors; ++i) {
    const std::string prefix = "sun.gc.collector." + std::to_string(i) + ".";
    const volatile int64_t* invocations = findLongCounter(block, prefix + "invocations");
    size_t capacity = 0;
    const volatile char* name = findStringCounter(block, prefix + "name", capacity);
    if (!invocations || !name) continue;
    char text[128];
    copyPerfString(name, capacity, text, sizeof text);
    names_[i] = text;
    if (names_[i].find("concurrent") != std::string::npos) causeless_ |= 1u << i;
    invocations_[i] = invocations;
    seen_invocations_[i] = *invocations;
    count = i + 1;
  }
  collector_count_ = count;
  cause_ = findStringCounter(block, "sun.gc.cause", cause_capacity_);
  last_cause_ = findStringCounter(block, "sun.gc.lastCause", last_cause_capacity_);
  bound_.store(true, std::memory_order_release);
}

void GcTrace::onStart(int64_t now_ns) { started_ns_.store(now_ns - start_ns_, std::memory_order_relaxed); }

void GcTrace::onFinish(int64_t now_ns) {
  const MpscRing<GcCollection>::Claim claim = ring_.tryClaim();
  if (!claim) {
    dropped_.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  GcCollection& out = *claim.slot;
  out.start_ns = started_ns_.load(std::memory_order_relaxed);
  out.end_ns = now_ns - start_ns_;
  out.collectors = 0;
  out.cause[0] = '\0';
  if (bound_.load(std::memory_order_acquire)) {
    for (int i = 0; i < collector_count_; ++i) {
      if (!invocations_[i]) continue;
      const int64_t now = *invocations_[i];
      if (now != seen_invocations_[i]) out.collectors |= 1u << i;
      seen_invocations_[i] = now;
    }
    copyPerfString(cause_, cause_capacity_, out.cause, sizeof out.cause);
    if (out.cause[0] == '\0' || std::strcmp(out.cause, kNoGc) == 0) {
      // A pause of a concurrent cycle (G1's remark and cleanup) is given no cause: the last
      // cause is the collection's before it.
      if (out.collectors & ~causeless_) {
        copyPerfString(last_cause_, last_cause_capacity_, out.cause, sizeof out.cause);
      } else {
        out.cause[0] = '\0';
      }
    }
  }
  ring_.publish(claim);
}

std::string GcTrace::collectorNames(uint32_t collectors) const {
  std::string names;
  for (int i = 0; i < collector_count_; ++i) {
    if (collectors & (1u << i)) names.append(names.empty() ? "" : " + ").append(names_[i]);
  }
  return names;
}

}  // namespace stackscope::agent
