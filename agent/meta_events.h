// Events that do not come from the sampler, queued for the writer thread: thread start/end
// from JVMTI callbacks, and markers and annotation changes from the Java API's natives
// (java_api.cpp). All run on ordinary threads (not signal handlers), so a mutex is fine.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "agent/writer_pacing.h"
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
  // Not bounded, but paced as if this were its capacity (writer_pacing.h): a quarter of it
  // wakes the writer from a long sleep. Its events have no stacks: they may wait.
  static constexpr size_t kPacedCapacity = 1 << 14;

  // `wake`: the writer's, or null (nobody to wake).
  explicit MetaQueue(WriterWake* wake) : wake_(wake) {}

  void push(MetaEvent event) {
    size_t size = 0;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      events_.push_back(std::move(event));
      size = events_.size();
    }
    if (wake_ && size == kPacedCapacity / 4) wake_->nudge();
  }
  // Moves every queued event into `out` (which is cleared first).
  void takeAll(std::vector<MetaEvent>& out) {
    out.clear();
    std::lock_guard<std::mutex> lock(mutex_);
    out.swap(events_);
  }

 private:
  WriterWake* const wake_;
  std::mutex mutex_;
  std::vector<MetaEvent> events_;
};

}  // namespace stackscope::agent
