#include "agent/exception_trace.h"

#include "agent/alloc_trace.h"
#include "agent/clocks.h"
#include "agent/object_class.h"
#include "agent/thread_registry.h"
#include "agent/jvmti_stack.h"

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
  thrown.frames = jvmtiStack(jvmti, nullptr);
  queue_.push(std::move(thrown));
}

std::string exceptionFrameName(const std::string& class_name, bool caught) {
  return caught ? class_name : class_name + " (uncaught)";
}

}  // namespace stackscope::agent
