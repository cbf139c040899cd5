// Reading the small side files the front-end keeps next to a recording (saved snapshots,
// cached views) without trusting what is at their path: a FIFO, a device or a directory put
// there must give a clear error or a miss, never a hang or an endless read.
#pragma once

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>

namespace stackscope::analysis {

class SideFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The whole content of `path`; nullopt when nothing is there. Throws SideFileError when
// the path is not a regular file (FIFO, device, directory…), is larger than `max_bytes`,
// or cannot be read. Opens without blocking, so a FIFO is refused rather than waited on.
std::optional<std::string> readRegularFile(const std::string& path, size_t max_bytes);

}  // namespace stackscope::analysis
