// The exported functions of libstackscope_native.so (native/symbolizer_library.h).
#include "native/symbolizer_library.h"

#include <new>
#include <string>

#include "native/symbolizer.h"

namespace {

struct LibrarySymbolizer {
  LibrarySymbolizer(int pid, int64_t interval_ms) : symbolizer(pid, std::chrono::milliseconds(interval_ms)) {}
  stackscope::native::Symbolizer symbolizer;
  std::string name;  // the last answer, kept for the caller
  std::string module;
};

}  // namespace

extern "C" {

__attribute__((visibility("default"))) int stackscope_symbolizer_abi(void) { return STACKSCOPE_SYMBOLIZER_ABI; }

__attribute__((visibility("default"))) void* stackscope_symbolizer_create(int pid, int64_t interval_ms) {
  return new (std::nothrow) LibrarySymbolizer(pid, interval_ms);
}

__attribute__((visibility("default"))) void stackscope_symbolizer_destroy(void* symbolizer) {
  delete static_cast<LibrarySymbolizer*>(symbolizer);
}

__attribute__((visibility("default"))) StackscopeNativeName stackscope_symbolizer_name(void* symbolizer, uint64_t pc) {
  auto* self = static_cast<LibrarySymbolizer*>(symbolizer);
  const stackscope::native::NativeSymbol symbol = self->symbolizer.symbolize(pc);
  self->name = stackscope::native::display(symbol);
  self->module = symbol.module;
  return {self->name.c_str(), self->module.c_str()};
}

}  // extern "C"
