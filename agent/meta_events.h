// Thread start/end events from JVMTI callbacks, queued for the writer thread. Callbacks are
// ordinary threads (not signal handlers), so a mutex is fine here.
#pragma once

#include <cstdint>
#include <mutex>
#include <vector>

#include "format/records.h"

namespace stackscope::agent {

struct MetaEvent {
  enum class Kind : uint8_t { ThreadStart, ThreadEnd };
  Kind kind = Kind::ThreadStart;
  int64_t time_ns = 0;
  uint32_t thread = 0;
  bool has_record = false;     // write `record` first: a new thread, or one that was renamed
  format::ThreadRecord record;
};

class MetaQueue {
 public:
  void push(MetaEvent event) {
    std::lock_guard<std::mutex> lock(mutex_);
    events_.push_back(std::move(event));
  }
  // Moves every queued event into `out` (which is cleared first).
  void takeAll(std::vector<MetaEvent>& out) {
    out.clear();
    std::lock_guard<std::mutex> lock(mutex_);
    out.swap(events_);
  }

 private:
  std::mutex mutex_;
  std::vector<MetaEvent> events_;
};

}  // namespace stackscope::agent
