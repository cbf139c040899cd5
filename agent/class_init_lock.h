// A thread that needs a class another thread is linking or initializing waits for HotSpot's
// initialization lock of that class: a zero-length int[] the VM made, which the program never
// sees. The lock trace then shows a lock of class int[] where the program synchronized on
// nothing (Jetty's first connections, H2's parser: docs/benchmarks.md). The waiter stands at
// the bytecode that needed the class (new, getstatic, putstatic or invokestatic), and its
// class's constant pool names that class: the lock is named "int[] (initializing C)". Which
// class's lock it is may be a superclass of C that C's initialization needed first.
//
// Done by the writer thread, not in the callback: the waiter holds the lock then, and reading
// a constant pool costs tens of µs.
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "agent/sample_slot.h"

namespace stackscope::agent {

// The class the instruction at `bci` of `code` needs initialized, in internal form
// ("org/eclipse/jetty/server/HttpChannel"): for new, getstatic, putstatic and invokestatic,
// from `pool`, a constant pool table in class-file form of `count` entries (constant_pool_count,
// one more than its entries). Empty for any other instruction, one right after a monitorenter
// (where the interpreter stands while it enters a monitor) or a malformed pool.
std::string classNeededAt(const unsigned char* code, size_t code_size, int64_t bci, const unsigned char* pool,
                          size_t pool_size, int count);

class ClassInitLocks {
 public:
  explicit ClassInitLocks(jvmtiEnv* jvmti) : jvmti_(jvmti) {}

  // The name of a zero-length int[] lock waited for at innermost frame `top`: "int[]
  // (initializing org.eclipse.jetty.server.HttpChannel)", or "int[]" when the frame is not at
  // an instruction that needs a class (a program's own int[0] as a lock). Writer thread only.
  const std::string& nameAt(JNIEnv* jni, const RawFrame& top);

 private:
  std::string lookUp(JNIEnv* jni, const RawFrame& top);

  static constexpr size_t kMaxNames = 4096;  // forgotten all at once past this
  jvmtiEnv* const jvmti_;
  std::map<std::pair<const void*, int32_t>, std::string> names_;  // by frame (method, bci)
};

}  // namespace stackscope::agent
