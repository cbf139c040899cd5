// Where the native frames of mixed mode (a frame of the JVM, a JNI library, libc, the kernel)
// are, for the writer thread to record: the module's file, its GNU build id and the ELF address
// of the pc in it. Names are the front-end's work when it reads the recording
// (analysis/native_frame_names.h): building libjvm.so's symbol table and reading
// /proc/kallsyms cost the profiled JVM 100-145 ms of CPU per run when the agent did it.
//
// Modules are the dynamic loader's list (dl_iterate_phdr: no file is read, build ids come from
// the notes in memory), read again for a pc in none of them at most once per interval (a
// library loaded since). Kernel addresses (perf callchains) are kept as they are.
//
// Writer thread only: not thread-safe, not async-signal-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace stackscope::agent {

class NativeFrameAddresses {
 public:
  static constexpr std::chrono::milliseconds kDefaultRereadInterval{1000};

  explicit NativeFrameAddresses(std::chrono::milliseconds reread_interval = kDefaultRereadInterval)
      : reread_interval_(reread_interval) {}

  struct Location {
    std::string module;    // the file's path, "[vdso]", "[kernel]"; empty: in no module
    std::string build_id;  // hex, empty when unknown
    uint64_t address = 0;  // an ELF address of the module's file (the kernel's own address)
    // Code in no module (JIT code is never asked about) is named by its address alone,
    // "[unknown] 0x7f…"; a frame in a module is named by the reader (docs/format.md, Method).
    std::string placeholder;
    std::string module_name;  // the file's name, "[vdso]", "[kernel]"; empty: in no module
  };
  // Where `pc` is (a return address minus 1 for caller frames).
  Location locate(uintptr_t pc);

 private:
  struct Module {
    std::string path;
    std::string build_id;
    uintptr_t load_base = 0;  // ELF address + load_base = pc
    std::vector<std::pair<uintptr_t, uintptr_t>> segments;  // the loaded [start, end)
  };
  void readModules();
  const Module* moduleHolding(uintptr_t pc) const;

  std::chrono::milliseconds reread_interval_;
  std::chrono::steady_clock::time_point read_at_{};
  bool read_ = false;
  std::vector<Module> modules_;
};

}  // namespace stackscope::agent
