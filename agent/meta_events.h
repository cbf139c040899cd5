// Events that do not come from the sampler, queued for the writer thread: thread start/end
// from JVMTI callbacks, and markers and annotation changes from the Java API's natives
// (java_api.cpp). All run on ordinary threads (not signal handlers), so a mutex is fine.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "format/records.h"

namespace stackscope::agent {

struct MetaEvent {
  enum class Kind : uint8_t { ThreadStart, ThreadEnd, Marker, AnnotationChange, Rename };
  Kind kind = Kind::ThreadStart;
  int64_t time_ns = 0;
  uint32_t thread = 0;
  bool has_record = false;     // write `record` first: a new thread, or one that was renamed (Rename: only that)
  format::ThreadRecord record;
  format::MarkerKind marker = format::MarkerKind::Point;  // Marker
  std::string name;                                        // Marker
  uint32_t annotation = 0;                                 // AnnotationChange: the new id
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
