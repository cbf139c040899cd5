// A buffer JVMTI allocated (a name, a signature, bytecodes, a constant pool), deallocated when
// it goes out of scope.
#pragma once

#include <jvmti.h>

namespace stackscope::agent {

template <typename T>
class JvmtiBuffer {
 public:
  explicit JvmtiBuffer(jvmtiEnv* jvmti) : jvmti_(jvmti) {}
  ~JvmtiBuffer() {
    if (ptr) jvmti_->Deallocate(reinterpret_cast<unsigned char*>(ptr));
  }
  JvmtiBuffer(const JvmtiBuffer&) = delete;
  JvmtiBuffer& operator=(const JvmtiBuffer&) = delete;
  T* ptr = nullptr;

 private:
  jvmtiEnv* jvmti_;
};

}  // namespace stackscope::agent
