// Follows Java threads through JVMTI ThreadStart/ThreadEnd: registers them for sampling,
// arms their CPU timers (cpu mode) and queues their thread records and events.
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <atomic>
#include <cstdint>
#include <string>

#include "agent/meta_events.h"
#include "agent/options.h"
#include "agent/thread_registry.h"

namespace stackscope::agent {

class ThreadTracker {
 public:
  ThreadTracker(jvmtiEnv* jvmti, ThreadRegistry& registry, MetaQueue& meta, const Options& options,
                int64_t start_ns)
      : jvmti_(jvmti), registry_(registry), meta_(meta), options_(options), start_ns_(start_ns) {}

  // Live phase, before threads are followed: looks up Thread.getId for the Java thread ids.
  void init(JNIEnv* jni);
  // Both run on the thread that starts or ends (VMInit registers the main thread this way;
  // a second start of an already registered thread is ignored).
  void onStart(JNIEnv* jni, jthread thread);
  void onEnd(JNIEnv* jni, jthread thread);

 private:
  std::string threadName(jthread thread);
  int64_t javaId(JNIEnv* jni, jthread thread);

  jvmtiEnv* jvmti_;
  ThreadRegistry& registry_;
  MetaQueue& meta_;
  const Options& options_;
  const int64_t start_ns_;
  std::atomic<jmethodID> get_id_{nullptr};
  std::atomic<bool> timer_warned_{false};
};

}  // namespace stackscope::agent
