// Names the native frames of mixed mode (a frame of the JVM, a JNI library, libc) for the
// writer thread. The symbolizer lives in libstackscope_native.so beside the agent, dlopen'ed
// at the first native frame, so the agent loads where libdw is not installed (the JDK does
// not need it). When that library cannot be loaded, the agent says so in one line and names
// frames "module+0xOFF" from /proc/self/maps: a frame is never left out and the JVM runs on.
//
// Every pc of one function has one index (a method of the recording). An answer is kept per
// pc only when the pc was in a known module: a pc asked about before its library's module was
// read (the symbolizer re-reads the module list at most once per interval) is asked again, and
// named once it can be.
//
// Writer thread only: not thread-safe, not async-signal-safe.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "native/module_maps.h"
#include "native/symbolizer_library.h"

namespace stackscope::agent {

class NativeFrameNames {
 public:
  static constexpr std::chrono::milliseconds kDefaultRereadInterval{1000};

  // `symbolizer_library`: the path of libstackscope_native.so, loaded at the first call of
  // functionOf(); `reread_interval`: how often, at most, the module list is read again for a
  // pc in no known module.
  explicit NativeFrameNames(std::string symbolizer_library,
                            std::chrono::milliseconds reread_interval = kDefaultRereadInterval);
  ~NativeFrameNames();
  NativeFrameNames(const NativeFrameNames&) = delete;
  NativeFrameNames& operator=(const NativeFrameNames&) = delete;

  // libstackscope_native.so in the directory of the library (or program) holding this code.
  static std::string besideThisLibrary();

  struct Function {
    std::string name;    // "JavaThread::run()", "libz.so.1.2.13+0x4970", "[unknown] 0x7f…"
    std::string module;  // empty when in no module
  };
  // The index of the function holding `pc` (a return address minus 1 for caller frames).
  uint32_t functionOf(uintptr_t pc);
  const Function& function(uint32_t index) const { return functions_[index]; }

  // Why the symbolizer library is not used, once it was tried; empty when it is.
  const std::string& problem() const { return problem_; }

 private:
  void loadSymbolizer();
  Function nameFromMaps(uintptr_t pc);

  std::string library_path_;
  std::chrono::milliseconds reread_interval_;
  bool tried_ = false;
  std::string problem_;
  void* symbolizer_ = nullptr;
  StackscopeSymbolizerNameFn name_ = nullptr;
  StackscopeSymbolizerDestroyFn destroy_ = nullptr;
  // Without the library: the module list, read again for an unknown pc at most once per interval.
  std::vector<native::MappedModule> modules_;
  std::chrono::steady_clock::time_point modules_read_{};

  std::unordered_map<uintptr_t, uint32_t> by_pc_;       // known answers only
  std::unordered_map<std::string, uint32_t> by_name_;   // module + '\n' + name
  std::vector<Function> functions_;
};

}  // namespace stackscope::agent
