// The symbolizer as its own shared library, libstackscope_native.so, beside libstackscope.so:
// the agent dlopen's it at the first native frame, so the agent itself needs neither libdw nor
// libelf to load (the JDK does not depend on them; a missing library must not stop the JVM).
// A C interface: each library links its own libstdc++, so no C++ object crosses between them.
#pragma once

#include <stdint.h>

extern "C" {

// Changes whenever these declarations do: the agent refuses a library of another version.
#define STACKSCOPE_SYMBOLIZER_ABI 1

struct StackscopeNativeName {
  const char* name;    // display() of the symbol (native/symbolizer.h)
  const char* module;  // "" when in no module
};

typedef int (*StackscopeSymbolizerAbiFn)(void);
// A symbolizer of process `pid` re-reading its module list at most once per `interval_ms`;
// null if it cannot be made.
typedef void* (*StackscopeSymbolizerCreateFn)(int pid, int64_t interval_ms);
typedef void (*StackscopeSymbolizerDestroyFn)(void* symbolizer);
// Names `pc`. The strings stay valid until the next call with this symbolizer.
typedef StackscopeNativeName (*StackscopeSymbolizerNameFn)(void* symbolizer, uint64_t pc);

}  // extern "C"
