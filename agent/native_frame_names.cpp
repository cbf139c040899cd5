#include "agent/native_frame_names.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <utility>

namespace stackscope::agent {

namespace {
// x86-64's kernel half of the address space.
constexpr uintptr_t kKernelStart = 0xffff800000000000;
}  // namespace

NativeFrameNames::NativeFrameNames(std::string symbolizer_library, std::chrono::milliseconds reread_interval)
    : library_path_(std::move(symbolizer_library)), reread_interval_(reread_interval) {}

NativeFrameNames::~NativeFrameNames() {
  // The library stays loaded: libdw's own state may outlive the symbolizer, and unloading
  // buys nothing at the JVM's end.
  if (symbolizer_ != nullptr) destroy_(symbolizer_);
}

std::string NativeFrameNames::besideThisLibrary() {
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&NativeFrameNames::besideThisLibrary), &info) == 0 || info.dli_fname == nullptr)
    return "libstackscope_native.so";  // dlopen's own search, then
  const std::string self = info.dli_fname;
  const size_t slash = self.rfind('/');
  return (slash == std::string::npos ? std::string() : self.substr(0, slash + 1)) + "libstackscope_native.so";
}

void NativeFrameNames::loadSymbolizer() {
  tried_ = true;
  void* library = dlopen(library_path_.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const char* error = dlerror();
    problem_ = error ? error : ("cannot load " + library_path_);
    return;
  }
  auto abi = reinterpret_cast<StackscopeSymbolizerAbiFn>(dlsym(library, "stackscope_symbolizer_abi"));
  auto create = reinterpret_cast<StackscopeSymbolizerCreateFn>(dlsym(library, "stackscope_symbolizer_create"));
  name_ = reinterpret_cast<StackscopeSymbolizerNameFn>(dlsym(library, "stackscope_symbolizer_name"));
  destroy_ = reinterpret_cast<StackscopeSymbolizerDestroyFn>(dlsym(library, "stackscope_symbolizer_destroy"));
  if (abi == nullptr || create == nullptr || name_ == nullptr || destroy_ == nullptr || abi() != STACKSCOPE_SYMBOLIZER_ABI) {
    problem_ = library_path_ + " is not the symbolizer of this agent's version";
  } else if ((symbolizer_ = create(static_cast<int>(getpid()), reread_interval_.count())) == nullptr) {
    problem_ = "the symbolizer of " + library_path_ + " could not be made";
  }
  if (symbolizer_ == nullptr) dlclose(library);
}

NativeFrameNames::Function NativeFrameNames::nameFromMaps(uintptr_t pc) {
  char text[48];
  // A kernel frame (a system call's, above the user frames): no map lists it, and it is
  // named as the symbolizer names one it cannot find in /proc/kallsyms.
  if (pc >= kKernelStart) {
    std::snprintf(text, sizeof text, "[kernel]+0x%" PRIxPTR, pc);
    return {text, "[kernel]"};
  }
  const native::MappedModule* module = native::moduleHolding(modules_, pc);
  const auto now = std::chrono::steady_clock::now();
  if (module == nullptr && now - modules_read_ >= reread_interval_) {  // maybe a library loaded since
    modules_ = native::readModuleMaps(getpid());
    modules_read_ = now;
    module = native::moduleHolding(modules_, pc);
  }
  if (module == nullptr) {
    std::snprintf(text, sizeof text, "[unknown] 0x%" PRIxPTR, pc);
    return {text, ""};
  }
  std::snprintf(text, sizeof text, "+0x%" PRIx64, static_cast<uint64_t>(pc) - module->base);
  return {module->name + text, module->name};
}

uint32_t NativeFrameNames::functionOf(uintptr_t pc) {
  if (auto known = by_pc_.find(pc); known != by_pc_.end()) return known->second;
  if (!tried_) {
    loadSymbolizer();
    if (!problem_.empty())
      std::fprintf(stderr, "stackscope: native frames are named module+offset only: %s\n", problem_.c_str());
  }
  Function function;
  if (symbolizer_ != nullptr) {
    const StackscopeNativeName name = name_(symbolizer_, pc);
    function = {name.name, name.module};
  } else {
    function = nameFromMaps(pc);
  }
  const bool known = !function.module.empty();
  auto [entry, added] = by_name_.try_emplace(function.module + '\n' + function.name, static_cast<uint32_t>(functions_.size()));
  if (added) functions_.push_back(std::move(function));
  if (known) by_pc_.emplace(pc, entry->second);
  return entry->second;
}

}  // namespace stackscope::agent
