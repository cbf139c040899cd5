// The exception trace (event=...,exception): every exception thrown in a recorded thread,
// with its class, the stack it was thrown from, and whether a Java frame of the thread
// catches it.
//
// JVMTI's Exception event, which needs the can_generate_exception_events capability: that
// capability alone makes C2 compile throws differently (every throw goes through the
// runtime to post the event), so the agent asks for it only when the trace is on.
// The callback runs on the throwing thread, a Java thread in the VM: JVMTI calls are fine
// there (GetStackTrace, the class's signature), so it takes the stack itself and queues
// it; the writer thread names the methods, as it does for samples.
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <cstdint>
#include <string>
#include <vector>

#include "agent/bounded_queue.h"
#include "agent/sample_slot.h"

namespace stackscope::agent {

struct ThrownException {
  int64_t time_ns = 0;  // since the recording's time 0
  uint32_t thread = 0;  // registry id, 0 = a thread the agent does not know
  uint32_t annotation = 0;
  bool caught = false;  // a Java frame of the thread has a handler for it
  std::string class_name;          // "java.lang.IllegalStateException"
  std::vector<RawFrame> frames;    // the throw site first
};

class ExceptionTrace {
 public:
  // More than this many exceptions waiting for the writer are counted, not queued: the
  // queue's memory stays bounded whatever the program throws.
  static constexpr size_t kMaxQueued = 1 << 16;

  explicit ExceptionTrace(int64_t start_ns) : start_ns_(start_ns), queue_(kMaxQueued) {}

  // The JVMTI Exception event. `catch_method` is null when no Java frame catches it.
  void onException(jvmtiEnv* jvmti, JNIEnv* jni, jobject exception, jmethodID catch_method);

  // Writer thread: moves every queued exception into `out` (cleared first).
  void takeAll(std::vector<ThrownException>& out) { queue_.takeAll(out); }
  uint64_t dropped() const { return queue_.dropped(); }

 private:
  const int64_t start_ns_;
  BoundedQueue<ThrownException> queue_;
};

// The name of the pseudo-method on top of an exception's stack (docs/format.md, Exception).
std::string exceptionFrameName(const std::string& class_name, bool caught);

}  // namespace stackscope::agent
