#include "agent/object_class.h"

#include "agent/alloc_trace.h"

namespace stackscope::agent {

std::string classNameOf(jvmtiEnv* jvmti, JNIEnv* jni, jobject object) {
  jclass klass = jni->GetObjectClass(object);
  std::string name = javaClassName(jvmti, klass);
  if (klass) jni->DeleteLocalRef(klass);
  return name;
}

}  // namespace stackscope::agent
