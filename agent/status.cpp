#include "agent/status.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "agent/clocks.h"
#include "agent/stack_capture.h"

namespace stackscope::agent {

namespace {

int64_t processCpuNs() {
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) != 0) return 0;
  auto ns = [](const timeval& tv) { return static_cast<int64_t>(tv.tv_sec) * 1'000'000'000 + tv.tv_usec * 1000; };
  return ns(usage.ru_utime) + ns(usage.ru_stime);
}

}  // namespace

void StatusSampler::init(jvmtiEnv* jvmti, JNIEnv* jni, int64_t now_ns, AgentThreadTest is_agent_thread) {
  jvmti_ = jvmti;
  is_agent_thread_ = is_agent_thread;
  last_wall_ns_ = now_ns;
  last_cpu_ns_ = start_cpu_ns_ = processCpuNs();
  machine_known_ = readMachineCpuTimes(last_machine_);
  jclass runtime = jni->FindClass("java/lang/Runtime");
  if (runtime) {
    runtime_class_ = static_cast<jclass>(jni->NewGlobalRef(runtime));
    get_runtime_ = jni->GetStaticMethodID(runtime, "getRuntime", "()Ljava/lang/Runtime;");
    total_memory_ = jni->GetMethodID(runtime, "totalMemory", "()J");
    free_memory_ = jni->GetMethodID(runtime, "freeMemory", "()J");
    jni->DeleteLocalRef(runtime);
  }
  if (jni->ExceptionCheck()) jni->ExceptionClear();
}

void StatusSampler::readHeap(JNIEnv* jni, format::StatusRecord& status) {
  if (!runtime_class_ || !get_runtime_ || !total_memory_ || !free_memory_) return;
  jobject runtime = jni->CallStaticObjectMethod(runtime_class_, get_runtime_);
  if (runtime && !jni->ExceptionCheck()) {
    const jlong total = jni->CallLongMethod(runtime, total_memory_);
    const jlong free = jni->ExceptionCheck() ? -1 : jni->CallLongMethod(runtime, free_memory_);
    if (!jni->ExceptionCheck() && total >= free && free >= 0) {
      status.heap_committed = static_cast<uint64_t>(total);
      status.heap_used = static_cast<uint64_t>(total - free);
    }
  }
  if (jni->ExceptionCheck()) jni->ExceptionClear();
  if (runtime) jni->DeleteLocalRef(runtime);
}

uint32_t StatusSampler::liveThreads(JNIEnv* jni) {
  jint count = 0;
  jthread* threads = nullptr;
  if (!jvmti_ || jvmti_->GetAllThreads(&count, &threads) != JVMTI_ERROR_NONE) return last_live_threads_;
  uint32_t live = 0;
  for (jint i = 0; i < count; ++i) {
    if (!is_agent_thread_ || !is_agent_thread_(jni, threads[i])) ++live;
    jni->DeleteLocalRef(threads[i]);
  }
  jvmti_->Deallocate(reinterpret_cast<unsigned char*>(threads));
  last_live_threads_ = live;
  return live;
}

format::StatusRecord StatusSampler::take(JNIEnv* jni, int64_t now_ns, int64_t time_ns) {
  format::StatusRecord status;
  status.time_ns = time_ns;
  const int64_t cpu_ns = processCpuNs();
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  status.cpu_load_permille = cpuLoadPermille(cpu_ns - last_cpu_ns_, now_ns - last_wall_ns_, static_cast<int>(cpus));
  status.cpus = cpus > 0 ? static_cast<uint32_t>(cpus) : 0;
  MachineCpuTimes machine;
  if (readMachineCpuTimes(machine)) {
    if (machine_known_) status.machine_cpu_permille_plus1 = machineLoadPlusOne(last_machine_, machine);
    last_machine_ = machine;
    machine_known_ = true;
  }
  last_cpu_ns_ = cpu_ns;
  last_wall_ns_ = now_ns;
  status.gc_count = gc_.count();
  status.gc_time_ns = gc_.timeNs();
  readHeap(jni, status);
  status.live_threads = liveThreads(jni);
  return status;
}

std::vector<std::string> StatusSampler::samplingWarnings(uint64_t samples_written) {
  uint64_t lost = 0;
  for (int reason = 1; reason <= format::kLostReasonMax; ++reason) lost += lost_.get(static_cast<format::LostReason>(reason));
  return health_.check(processCpuNs() - start_cpu_ns_, samples_written + lost, captureHandlerStillInstalled());
}

}  // namespace stackscope::agent
