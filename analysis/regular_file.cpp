#include "analysis/regular_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace stackscope::analysis {

std::optional<std::string> readRegularFile(const std::string& path, size_t max_bytes) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    if (errno == ENOENT) return std::nullopt;
    throw SideFileError("cannot open '" + path + "': " + std::strerror(errno));
  }
  struct stat st {};
  std::string error;
  std::string content;
  if (::fstat(fd, &st) != 0) {
    error = "cannot stat '" + path + "': " + std::strerror(errno);
  } else if (!S_ISREG(st.st_mode)) {
    error = "'" + path + "' is not a regular file";
  } else if (static_cast<uint64_t>(st.st_size) > max_bytes) {
    error = "'" + path + "' is too large (" + std::to_string(st.st_size) + " bytes, at most " + std::to_string(max_bytes) + ")";
  } else {
    // One byte more than the size stat gave, to notice a file that grows while read.
    const size_t expected = static_cast<size_t>(st.st_size);
    content.resize(expected + 1);
    size_t got = 0;
    while (got < content.size()) {
      const ssize_t n = ::read(fd, content.data() + got, content.size() - got);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        error = "cannot read '" + path + "': " + std::strerror(errno);
        break;
      }
      if (n == 0) break;
      got += static_cast<size_t>(n);
    }
    if (error.empty() && got > expected) error = "'" + path + "' changed while it was read";
    content.resize(got);
  }
  ::close(fd);
  if (!error.empty()) throw SideFileError(error);
  return content;
}

}  // namespace stackscope::analysis
