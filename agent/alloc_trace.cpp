#include "agent/alloc_trace.h"

#include "agent/calling_thread.h"
#include "agent/clocks.h"
#include "agent/java_names.h"
#include "agent/thread_registry.h"
#include "common/class_glob.h"

namespace stackscope::agent {

AllocTrace::AllocTrace(jvmtiEnv* jvmti, int64_t start_ns, const Options& options, WriterWake* wake)
    : start_ns_(start_ns),
      interval_(static_cast<uint64_t>(options.alloc_interval)),
      classes_(options.classes),
      live_(options.traces & kTraceLive),
      queue_(kMaxQueued, wake),
      freed_(live_ ? kFreedCapacity : 1),
      class_names_(jvmti) {}

void AllocTrace::setClasses(std::vector<std::string> classes) {
  std::lock_guard<std::mutex> lock(classes_mutex_);
  classes_ = std::move(classes);
}

std::string AllocTrace::classesText() const {
  std::lock_guard<std::mutex> lock(classes_mutex_);
  std::string text;
  for (const std::string& glob : classes_) text += (text.empty() ? "" : ";") + glob;
  return text;
}

bool AllocTrace::wanted(const std::string& class_name) const {
  std::lock_guard<std::mutex> lock(classes_mutex_);
  if (classes_.empty()) return true;
  for (const std::string& glob : classes_)
    if (matchClassGlob(glob, class_name)) return true;
  return false;
}

void AllocTrace::onSampledAlloc(jvmtiEnv* jvmti, JNIEnv* jni, jobject object, jlong size) {
  const ThreadSlot* slot = callingThreadSlot();
  // A thread the collection-time filter leaves out pays nothing more.
  if (slot && slot->excluded.load(std::memory_order_relaxed)) return;
  SampledAllocation sampled;
  sampled.time_ns = monotonicNs() - start_ns_;
  // The thread's last few classes are remembered: GetClassSignature and a string per sample
  // cost more than the memo's stack (docs/benchmarks.md).
  sampled.class_name = class_names_.nameOf(jni, object);
  if (!wanted(*sampled.class_name)) return;
  if (queue_.full()) {  // before the stack walk; push decides
    queue_.drop();
    return;
  }
  if (slot) {
    const uint32_t vthread = slot->mounted_vthread.load(std::memory_order_relaxed);
    sampled.thread = vthread != 0 ? vthread : slot->id;
    sampled.annotation = slot->annotation.load(std::memory_order_relaxed);
  }
  sampled.size = size > 0 ? static_cast<uint64_t>(size) : 0;
  if (live_) {
    const uint64_t tag = next_tag_.fetch_add(1, std::memory_order_relaxed);
    if (jvmti->SetTag(object, static_cast<jlong>(tag)) == JVMTI_ERROR_NONE) {
      sampled.tag = tag;
    } else {
      untagged_.fetch_add(1, std::memory_order_relaxed);
    }
  }
  sampled.frames = own_stacks_.stack(jvmti, jni, slot, 0);
  queue_.push(std::move(sampled));
}

void AllocTrace::onObjectFree(jlong tag) {
  const MpscRing<FreedObject>::Claim claim = freed_.tryClaim();
  if (!claim) {
    frees_dropped_.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  claim.slot->time_ns = monotonicNs() - start_ns_;
  claim.slot->tag = static_cast<uint64_t>(tag);
  freed_.publish(claim);
}

std::string javaClassName(jvmtiEnv* jvmti, jclass klass) {
  char* signature = nullptr;
  std::string name = "<unknown>";
  if (klass && jvmti->GetClassSignature(klass, &signature, nullptr) == JVMTI_ERROR_NONE && signature) {
    name = javaNameFromSignature(signature);
    jvmti->Deallocate(reinterpret_cast<unsigned char*>(signature));
  }
  return name;
}

}  // namespace stackscope::agent
