// Names of recording files. `file=` may hold %p (the JVM's pid), %t (its start time,
// YYYYmmdd-HHMMSS, local time) and %% (a '%'), so that every JVM of a run that starts several
// (a launcher and its children) can get its own file. When the named file cannot be taken (another
// process is writing it, or overwrite=no and it already holds a recording) the agent writes
// the alternative name, the pid inserted before the extension: run.ssr -> run.4242.ssr.
//
// Pure: no I/O. The agent expands names; `stackscope record` matches the files a run wrote.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace stackscope::agent {

// `pattern` with %p, %t and %% replaced; any other '%' is kept as it is.
// `local_time` is the start time as YYYYmmdd-HHMMSS.
std::string expandFileName(std::string_view pattern, int64_t pid, std::string_view local_time);

// run.ssr -> run.<pid>.ssr; /d/run -> /d/run.<pid>; a leading dot (.ssr) is no extension.
std::string withPid(std::string_view path, std::string_view pid);

// True when `name` is a name the agent can write for `pattern`: the pattern expanded with
// any pid and time, or the alternative name of such an expansion.
bool isFileNameOf(std::string_view pattern, std::string_view name);

}  // namespace stackscope::agent
