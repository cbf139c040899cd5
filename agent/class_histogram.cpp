#include "agent/class_histogram.h"

#include <algorithm>

#include "agent/clocks.h"
#include "agent/java_names.h"

namespace stackscope::agent {

namespace {

// How often the thread looks whether enough collections finished (histo=gc:N).
constexpr int64_t kGcPollNs = 50'000'000;

struct ObjectCount {
  uint64_t instances = 0;
  uint64_t bytes = 0;
};

struct WalkCounts {
  std::vector<ObjectCount>* by_class;  // index = class tag - 1
};

// Runs inside the walk, the world stopped: no JNI, no JVMTI, no allocation.
jint JNICALL countObject(jlong class_tag, jlong size, jlong*, jint, void* user_data) {
  std::vector<ObjectCount>& counts = *static_cast<WalkCounts*>(user_data)->by_class;
  if (class_tag > 0 && static_cast<uint64_t>(class_tag) <= counts.size()) {
    ObjectCount& c = counts[static_cast<size_t>(class_tag - 1)];
    ++c.instances;
    c.bytes += static_cast<uint64_t>(std::max<jlong>(size, 0));
  }
  return 0;  // go on
}

std::string className(jvmtiEnv* jvmti, jclass klass) {
  char* signature = nullptr;
  std::string name = "<unknown>";
  if (jvmti->GetClassSignature(klass, &signature, nullptr) == JVMTI_ERROR_NONE && signature) {
    name = javaNameFromSignature(signature);
    jvmti->Deallocate(reinterpret_cast<unsigned char*>(signature));
  }
  return name;
}

}  // namespace

bool ClassHistogram::init(JavaVM* vm, std::string& error) {
  if (vm->GetEnv(reinterpret_cast<void**>(&jvmti_), JVMTI_VERSION_1_2) != JNI_OK || !jvmti_) {
    error = "cannot get a JVMTI environment for the class histogram";
    return false;
  }
  jvmtiCapabilities caps{};
  caps.can_tag_objects = 1;
  if (jvmti_->AddCapabilities(&caps) != JVMTI_ERROR_NONE) {
    error = "this JVM cannot tag objects: no class histogram";
    return false;
  }
  return true;
}

void ClassHistogram::dispose() {
  if (jvmti_) jvmti_->DisposeEnvironment();
  jvmti_ = nullptr;
}

bool ClassHistogram::start(JNIEnv* jni) { return thread_.start(jvmti_, jni, "stackscope-histogram", run, this); }

void ClassHistogram::run(void* self_ptr, JNIEnv* jni, AgentThread& thread) {
  auto& self = *static_cast<ClassHistogram*>(self_ptr);
  int64_t next_time = self.interval_ns_ > 0 ? monotonicNs() + self.interval_ns_ : INT64_MAX;
  uint64_t next_gcs = self.every_gcs_;
  for (;;) {
    const int64_t wake = self.every_gcs_ > 0 ? std::min(next_time, monotonicNs() + kGcPollNs) : next_time;
    if (!thread.sleepUntil(wake)) return;
    const uint64_t gcs = self.gcs_finished_.load(std::memory_order_relaxed);
    const bool by_gcs = self.every_gcs_ > 0 && gcs >= next_gcs;
    const bool by_time = monotonicNs() >= next_time;
    if (!by_gcs && !by_time) continue;
    self.take(jni);
    // Collections and intervals that passed during the walk are not owed: the next is due
    // N collections, or an interval, after this one.
    if (by_gcs) next_gcs = self.gcs_finished_.load(std::memory_order_relaxed) + self.every_gcs_;
    if (by_time) next_time = std::max(next_time + self.interval_ns_, monotonicNs());
  }
}

void ClassHistogram::finish(JNIEnv* jni, int64_t timeout_ns) {
  if (thread_.stop(timeout_ns)) take(jni);
}

bool ClassHistogram::takeNow(JNIEnv* jni, HistogramTotals& totals, std::string& error) {
  JavaVM* vm = nullptr;
  if (!jvmti_ && (jni->GetJavaVM(&vm) != JNI_OK || !init(vm, error))) {
    dispose();  // an environment without the capability: the next histo asks again
    if (error.empty()) error = "no JavaVM for the class histogram";
    return false;
  }
  if (!take(jni, &totals)) {
    error = "the heap walk failed";
    return false;
  }
  return true;
}

bool ClassHistogram::take(JNIEnv* jni, HistogramTotals* totals) {
  std::lock_guard<std::mutex> one_walk(walk_mutex_);
  jint count = 0;
  jclass* classes = nullptr;
  if (jvmti_->GetLoadedClasses(&count, &classes) != JVMTI_ERROR_NONE) return false;
  for (jint i = 0; i < count; ++i) jvmti_->SetTag(classes[i], i + 1);
  std::vector<ObjectCount> counts(static_cast<size_t>(count));
  WalkCounts walk{&counts};
  jvmtiHeapCallbacks callbacks{};
  callbacks.heap_iteration_callback = countObject;
  Histogram histogram;
  const int64_t begin = monotonicNs();
  histogram.time_ns = begin - start_ns_;
  const jvmtiError error = jvmti_->IterateThroughHeap(0, nullptr, &callbacks, &walk);
  histogram.pause_ns = monotonicNs() - begin;
  if (error == JVMTI_ERROR_NONE) {
    for (jint i = 0; i < count; ++i) {
      const ObjectCount& c = counts[static_cast<size_t>(i)];
      if (c.instances > 0) histogram.classes.push_back({className(jvmti_, classes[i]), c.instances, c.bytes});
    }
  }
  // The class list's local references: this thread lives as long as the recording.
  for (jint i = 0; i < count; ++i) jni->DeleteLocalRef(classes[i]);
  jvmti_->Deallocate(reinterpret_cast<unsigned char*>(classes));
  if (error != JVMTI_ERROR_NONE) return false;
  if (totals) {
    *totals = {histogram.time_ns, histogram.pause_ns, histogram.classes.size(), 0, 0};
    for (const ClassCount& c : histogram.classes) {
      totals->instances += c.instances;
      totals->bytes += c.bytes;
    }
  }
  std::lock_guard<std::mutex> lock(mutex_);
  queue_.push_back(std::move(histogram));
  return true;
}

void ClassHistogram::takeAll(std::vector<Histogram>& out) {
  out.clear();
  std::lock_guard<std::mutex> lock(mutex_);
  out.swap(queue_);
}

}  // namespace stackscope::agent
