#include "agent/carrier_frames.h"

#include <cstring>

namespace stackscope::agent {
namespace {

bool isEntry(const char* name) {
  return std::strcmp(name, "enter0") == 0 || std::strcmp(name, "enter") == 0;
}

}  // namespace

CarrierFrames::Kind CarrierFrames::kindOf(JNIEnv* jni, const void* method) {
  if (auto it = known_.find(method); it != known_.end()) return it->second;
  Kind kind = Kind::Other;
  auto* id = static_cast<jmethodID>(const_cast<void*>(method));
  jclass klass = nullptr;
  if (method && jvmti_->GetMethodDeclaringClass(id, &klass) == JVMTI_ERROR_NONE) {
    char* signature = nullptr;
    if (jvmti_->GetClassSignature(klass, &signature, nullptr) == JVMTI_ERROR_NONE && signature) {
      if (std::strcmp(signature, "Ljdk/internal/vm/Continuation;") == 0) {
        char* name = nullptr;
        const bool named = jvmti_->GetMethodName(id, &name, nullptr, nullptr) == JVMTI_ERROR_NONE && name;
        kind = named && isEntry(name) ? Kind::Entry : Kind::CarrierSide;
        if (name) jvmti_->Deallocate(reinterpret_cast<unsigned char*>(name));
      }
      jvmti_->Deallocate(reinterpret_cast<unsigned char*>(signature));
    }
    jni->DeleteLocalRef(klass);  // the writer thread never returns to Java to free it
  }
  known_.emplace(method, kind);
  return kind;
}

}  // namespace stackscope::agent
