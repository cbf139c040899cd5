#include "format/file_copy.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace stackscope::format {

namespace {

bool writeAll(int fd, const char* data, size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

bool copyFileTo(int source, uint64_t bytes, std::string_view tail, const std::string& path, std::string& error) {
  // O_NONBLOCK: a FIFO without a reader fails at once instead of blocking the caller (the
  // control server's thread, maybe with the writer's lock held) forever.
  const int target = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | O_NONBLOCK, 0644);
  struct stat target_stat {};
  struct stat source_stat {};
  const bool regular = target >= 0 && ::fstat(target, &target_stat) == 0 && S_ISREG(target_stat.st_mode);
  // Truncating the source would destroy what is to be copied: the recording itself.
  const bool itself = regular && ::fstat(source, &source_stat) == 0 && source_stat.st_dev == target_stat.st_dev &&
                      source_stat.st_ino == target_stat.st_ino;
  if (target < 0 || !regular || itself || ::ftruncate(target, 0) != 0) {
    error = target < 0  ? "cannot create '" + path + "': " + std::strerror(errno)
            : !regular  ? "'" + path + "' is not a regular file"
            : itself    ? "'" + path + "' is the recording itself"
                        : "cannot truncate '" + path + "': " + std::strerror(errno);
    if (target >= 0) ::close(target);
    return false;
  }
  bool ok = true;
  char buffer[64 * 1024];
  for (uint64_t copied = 0; ok && copied < bytes;) {
    const ssize_t n = ::pread(source, buffer, std::min<uint64_t>(sizeof buffer, bytes - copied), static_cast<off_t>(copied));
    if (n < 0 && errno == EINTR) continue;
    if (n == 0 && bytes == kWholeFile) break;
    ok = n > 0 && writeAll(target, buffer, static_cast<size_t>(n));
    copied += n > 0 ? static_cast<uint64_t>(n) : 0;
  }
  ok = ok && writeAll(target, tail.data(), tail.size());
  if (!ok) error = "cannot write '" + path + "': " + std::strerror(errno);
  if (::close(target) != 0 && ok) {
    error = "cannot write '" + path + "': " + std::strerror(errno);
    ok = false;
  }
  return ok;
}

}  // namespace stackscope::format
