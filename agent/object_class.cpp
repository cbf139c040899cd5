#include "agent/object_class.h"

#include <atomic>

#include "agent/alloc_trace.h"

namespace stackscope::agent {

namespace {
std::atomic<uint64_t> g_generations{0};  // ObjectClassNames::generation_'s source

// The calling thread's last few classes and their interned names: code that throws two or
// three classes in turn (a parser's checked and unchecked failures) finds each without a JVMTI
// call. An entry counts only for the set of its generation.
struct KnownClass {
  jweak klass = nullptr;
  const std::string* name = nullptr;
  uint64_t generation = 0;
};
constexpr size_t kKnownClasses = 4;
thread_local KnownClass t_known[kKnownClasses];
thread_local size_t t_next_known = 0;  // the entry a new class replaces, round robin
}  // namespace

ObjectClassNames::ObjectClassNames(jvmtiEnv* jvmti) : jvmti_(jvmti), generation_(++g_generations) {}

const std::string* ObjectClassNames::nameOf(JNIEnv* jni, jobject object) {
  jclass klass = jni->GetObjectClass(object);
  if (klass) {
    for (const KnownClass& known : t_known) {
      if (known.generation == generation_ && known.klass && jni->IsSameObject(klass, known.klass)) {
        jni->DeleteLocalRef(klass);
        return known.name;
      }
    }
  }
  std::string name = javaClassName(jvmti_, klass);
  const std::string* interned = nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    interned = &*names_.insert(std::move(name)).first;
  }
  if (klass) {
    KnownClass& slot = t_known[t_next_known];
    t_next_known = (t_next_known + 1) % kKnownClasses;
    if (slot.klass) jni->DeleteWeakGlobalRef(slot.klass);
    slot = {jni->NewWeakGlobalRef(klass), interned, generation_};
    jni->DeleteLocalRef(klass);
  }
  return interned;
}

}  // namespace stackscope::agent
