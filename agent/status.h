// Status reports: process CPU load, GC count and time, heap, live threads.
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <cstdint>
#include <string>
#include <vector>

#include "agent/lost_counters.h"
#include "agent/machine_load.h"
#include "agent/options.h"
#include "agent/sampling_health.h"
#include "agent/vm_pauses.h"
#include "format/records.h"

namespace stackscope::agent {

class StatusSampler {
 public:
  using AgentThreadTest = bool (*)(JNIEnv* jni, jthread thread);

  StatusSampler(const GcClock& gc, const LostCounters& lost, const Options& options)
      // With a collection-time filter, CPU timers of threads it leaves out are disarmed by
      // design: a process busy only in those is not a silent timer.
      : gc_(gc), lost_(lost), health_(options.mode == SampleMode::Cpu && options.filter.empty(), options.interval_ns) {}

  // Live phase: looks up java.lang.Runtime for the heap figures, and starts the CPU clocks.
  // `is_agent_thread` tells the agent's own threads, which live thread counts leave out.
  void init(jvmtiEnv* jvmti, JNIEnv* jni, int64_t now_ns, AgentThreadTest is_agent_thread);
  // A status report at recording time `time_ns` (monotonic `now_ns`); CPU loads are over the
  // time since the previous report.
  format::StatusRecord take(JNIEnv* jni, int64_t now_ns, int64_t time_ns);
  // After a report: what is wrong with the sampling itself (sampling_health.h), each warning
  // once, given the samples written so far.
  std::vector<std::string> samplingWarnings(uint64_t samples_written);

 private:
  void readHeap(JNIEnv* jni, format::StatusRecord& status);
  // Every live Java thread the JVM reports (JVMTI GetAllThreads) but the agent's own: the
  // same figure in cpu and wall mode, whichever threads the mode samples.
  uint32_t liveThreads(JNIEnv* jni);

  const GcClock& gc_;
  const LostCounters& lost_;
  SamplingHealth health_;
  int64_t start_cpu_ns_ = 0;  // process CPU time at init
  jvmtiEnv* jvmti_ = nullptr;
  AgentThreadTest is_agent_thread_ = nullptr;
  uint32_t last_live_threads_ = 0;  // repeated if a count fails
  MachineCpuTimes last_machine_{};
  bool machine_known_ = false;
  jclass runtime_class_ = nullptr;  // global reference
  jmethodID get_runtime_ = nullptr;
  jmethodID total_memory_ = nullptr;
  jmethodID free_memory_ = nullptr;
  int64_t last_wall_ns_ = 0;
  int64_t last_cpu_ns_ = 0;
};

}  // namespace stackscope::agent
