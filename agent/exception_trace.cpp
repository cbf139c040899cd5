#include "agent/exception_trace.h"

#include "agent/alloc_trace.h"
#include "agent/clocks.h"
#include "agent/object_class.h"
#include "agent/thread_registry.h"

namespace stackscope::agent {

void ExceptionTrace::onException(jvmtiEnv* jvmti, JNIEnv* jni, jobject exception, jmethodID catch_method) {
  const ThreadSlot* slot = currentThreadSlot();
  // A thread the collection-time filter leaves out pays nothing more.
  if (slot && slot->excluded.load(std::memory_order_relaxed)) return;
  ThrownException thrown;
  thrown.time_ns = monotonicNs() - start_ns_;
  if (slot) {
    const uint32_t vthread = slot->mounted_vthread.load(std::memory_order_relaxed);
    thrown.thread = vthread != 0 ? vthread : slot->id;
    thrown.annotation = slot->annotation.load(std::memory_order_relaxed);
  }
  thrown.caught = catch_method != nullptr;
  if (queue_.full()) {  // before the work; push decides
    queue_.drop();
    return;
  }
  thrown.class_name = classNameOf(jvmti, jni, exception);
  jvmtiFrameInfo frames[kMaxFrames];
  jint count = 0;
  if (jvmti->GetStackTrace(nullptr, 0, kMaxFrames, frames, &count) != JVMTI_ERROR_NONE) count = 0;
  thrown.frames.resize(static_cast<size_t>(count));
  for (jint i = 0; i < count; ++i) {
    // GetStackTrace's location is the bytecode index for Java frames, -1 for native ones.
    thrown.frames[i] = {static_cast<int32_t>(frames[i].location), frames[i].method};
  }
  queue_.push(std::move(thrown));
}

std::string exceptionFrameName(const std::string& class_name, bool caught) {
  return caught ? class_name : class_name + " (uncaught)";
}

}  // namespace stackscope::agent
