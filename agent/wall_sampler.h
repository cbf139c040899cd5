// wall mode: every interval, one sample of every live Java thread whatever its state.
// Threads that did not run since their last captured stack are not interrupted: their
// previous stack is repeated (a Repeat slot in the ring), so a thousand idle threads cost a
// CPU-clock read each per tick, not a signal and a stack walk each. Foreign threads
// (thread_registry.h) cannot be signalled: their stacks are read here, through JVMTI.
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <cstdint>
#include <vector>

#include "agent/agent_thread.h"
#include "agent/lost_counters.h"
#include "agent/sample_slot.h"
#include "agent/thread_registry.h"
#include "agent/wall_pending.h"

namespace stackscope::agent {

class WallSampler {
 public:
  WallSampler(jvmtiEnv* jvmti, ThreadRegistry& registry, SampleRing& ring, LostCounters& lost,
              int64_t interval_ns, int64_t start_ns)
      : jvmti_(jvmti),
        registry_(registry),
        ring_(ring),
        lost_(lost),
        interval_ns_(interval_ns),
        start_ns_(start_ns),
        max_pending_weight_(maxPendingWeight(interval_ns)),
        frames_(kMaxFrames) {}

  bool start(JNIEnv* jni) { return thread_.start(jvmti_, jni, "stackscope-wall-sampler", run, this); }
  bool stop(int64_t timeout_ns) { return thread_.stop(timeout_ns); }
  bool isSamplerThread(JNIEnv* jni, jthread thread) const { return thread_.is(jni, thread); }

 private:
  static void run(void* self, JNIEnv* jni, AgentThread& thread);
  void tick();
  void sampleThread(ThreadSlot& slot, pid_t pid, int64_t time_ns);
  void sampleForeign(ThreadSlot& slot, int64_t time_ns);
  // Queues the foreign thread's stack, read through JVMTI.
  void captureForeign(ThreadSlot& slot, uint8_t state, int64_t time_ns);
  // The thread's state (format::ThreadState) if it is alive.
  bool liveState(const ThreadSlot& slot, uint8_t& state);
  // Queues this tick's repeat of the thread's last stack, unless the filter now leaves it out.
  void repeat(ThreadSlot& slot, uint8_t state);
  void pushRepeats(int64_t time_ns);

  jvmtiEnv* jvmti_;
  ThreadRegistry& registry_;
  SampleRing& ring_;
  LostCounters& lost_;
  const int64_t interval_ns_;
  const int64_t start_ns_;
  const uint32_t max_pending_weight_;
  AgentThread thread_;
  std::vector<jvmtiFrameInfo> frames_;  // a foreign thread's stack, before it goes to the ring
  std::vector<RepeatEntry> repeats_;  // this tick's idle threads
  uint64_t sampled_ = 0;              // threads this tick sampled (the filter left out the others)
};

}  // namespace stackscope::agent
