// Turns jmethodIDs from stack walks into method ids of the recording, writing each method's
// record (class, name, signature, source file, line table) the first time it is seen.
// Writer thread only (or the VM-death callback once the writer thread is stopped).
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "agent/class_sources.h"
#include "agent/native_frame_addresses.h"
#include "format/writer.h"

namespace stackscope::agent {

class MethodResolver {
 public:
  MethodResolver(jvmtiEnv* jvmti, format::RecordingWriter& writer) : jvmti_(jvmti), writer_(writer) {}

  // The method's id; a method JVMTI cannot describe (its class was unloaded meanwhile, or a
  // null id) gets a record with "<unknown>" names rather than failing the sample.
  uint32_t idFor(JNIEnv* jni, const void* method);
  // The pseudo-method "[truncated]" (no class) that stands, as the outermost frame, for the
  // frames of a stack deeper than the walk keeps (docs/format.md).
  uint32_t truncatedId();
  // The pseudo-method "[stub] NAME" (no class) for a frame in generated code that is not a
  // Java method (code_regions.h); one per name, however many regions carry it.
  uint32_t stubId(const char* name);
  // A pseudo-method with no class named `name`, one per name: the exception's class on top
  // of an exception's stack (exception_trace.h).
  uint32_t namedId(const std::string& name);
  // The pseudo-method for a native frame at `pc` (mixed mode: a frame of the JVM, a JNI
  // library, libc, the kernel): its module, build id and address, which the front-end names
  // (native_frame_addresses.h); one per pc.
  uint32_t nativeId(uintptr_t pc);
  // How many times nativeId gave a pc in no module (yet) its placeholder: a stack that holds
  // one may name that frame otherwise later, so it is not memoized (writer_thread.h).
  uint64_t placeholdersGiven() const { return placeholders_given_; }

  // Rotation: the writer went on in a new file, where no method is known yet. Ids are given
  // again as methods are next seen; until forgetPrevious(), `renamed` gives the new id of a
  // method by its id in the file before (for the stacks the writer keeps across files).
  void restart();
  uint32_t renamed(JNIEnv* jni, uint32_t previous_id);
  void forgetPrevious() { std::vector<Origin>().swap(previous_); }

 private:
  // What an id stands for, to name it again in the next file.
  struct Origin {
    enum class Kind : uint8_t { None, Java, Truncated, Stub, Named, Native } kind = Kind::None;
    const void* method = nullptr;  // Java
    uintptr_t pc = 0;              // Native
    std::string name;              // Stub, Named
  };

  format::MethodRecord describe(JNIEnv* jni, jmethodID method, uint32_t id);

  jvmtiEnv* jvmti_;
  format::RecordingWriter& writer_;
  std::unordered_map<const void*, uint32_t> ids_;
  uint32_t next_id_ = 1;
  uint64_t placeholders_given_ = 0;
  uint32_t truncated_id_ = 0;
  std::unordered_map<std::string, uint32_t> stub_ids_;
  std::unordered_map<std::string, uint32_t> named_ids_;
  ClassSources class_sources_;
  NativeFrameAddresses native_addresses_;
  std::unordered_map<uintptr_t, uint32_t> native_ids_;  // pcs in a known module
  std::vector<Origin> previous_;  // by id in the file before a rotation, until forgetPrevious()
};

}  // namespace stackscope::agent
