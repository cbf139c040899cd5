// HotSpot's PerfData file (/tmp/hsperfdata_<user>/<pid>), read from outside the JVM: named
// counters and strings such as sun.rt.javaCommand (the main class and its arguments) and
// sun.rt.jvmCapabilities (its first character '1' when dynamic attach is on). The layout
// (HotSpot's perfMemory.hpp): a prologue with the magic 0xcafec0c0, the byte order, the
// offset and count of the entries; each entry its length, name offset, vector length, type
// and data offset, relative to the entry's start.
#pragma once

#include <string>

namespace stackscope::native {

// The string entry `name` of the PerfData file at `path` (trailing NULs dropped); false if
// the file is unreadable, not PerfData, or has no such string.
bool perfDataString(const std::string& path, const std::string& name, std::string& value);

}  // namespace stackscope::native
