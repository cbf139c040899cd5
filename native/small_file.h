// A small file read whole (/proc entries, whose size stat() does not tell), "" when it cannot
// be opened. For the attach client and the JVM listing, outside any signal handler.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <string>

namespace stackscope::native {

inline std::string readSmallFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  std::string text;
  char buffer[8192];
  ssize_t got = 0;
  while ((got = ::read(fd, buffer, sizeof buffer)) > 0) text.append(buffer, static_cast<size_t>(got));
  ::close(fd);
  return text;
}

}  // namespace stackscope::native
