#include "agent/carrier_frames.h"

#include <cstring>

namespace stackscope::agent {

bool CarrierFrames::isContinuation(JNIEnv* jni, const void* method) {
  if (auto it = known_.find(method); it != known_.end()) return it->second;
  bool continuation = false;
  jclass klass = nullptr;
  if (method && jvmti_->GetMethodDeclaringClass(static_cast<jmethodID>(const_cast<void*>(method)), &klass) ==
                    JVMTI_ERROR_NONE) {
    char* signature = nullptr;
    if (jvmti_->GetClassSignature(klass, &signature, nullptr) == JVMTI_ERROR_NONE && signature) {
      continuation = std::strcmp(signature, "Ljdk/internal/vm/Continuation;") == 0;
      jvmti_->Deallocate(reinterpret_cast<unsigned char*>(signature));
    }
    jni->DeleteLocalRef(klass);  // the writer thread never returns to Java to free it
  }
  known_.emplace(method, continuation);
  return continuation;
}

}  // namespace stackscope::agent
