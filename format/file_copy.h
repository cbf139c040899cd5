// Copies of a recording's files, for the control's dump (docs/protocol.md): the agent writes
// them as the JVM's user, so a copy goes only to a regular file (a FIFO or device is refused,
// never waited on) and never over the file it copies.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace stackscope::format {

// `bytes` of kWholeFile: up to the source's end.
inline constexpr uint64_t kWholeFile = UINT64_MAX;

// Writes the first `bytes` bytes of the open file `source`, then `tail`, to `path` (created
// with mode 0644, or truncated). False with `error` set: `path` is not a regular file, is
// `source` itself, or an I/O error.
bool copyFileTo(int source, uint64_t bytes, std::string_view tail, const std::string& path, std::string& error);

}  // namespace stackscope::format
