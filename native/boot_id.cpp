#include "native/boot_id.h"

#include <fcntl.h>
#include <unistd.h>

namespace stackscope::native {

std::string currentBootId() {
  const int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  char text[64];
  const ssize_t size = read(fd, text, sizeof text);
  close(fd);
  std::string id(text, size > 0 ? static_cast<size_t>(size) : 0);
  while (!id.empty() && (id.back() == '\n' || id.back() == ' ')) id.pop_back();
  return id;
}

}  // namespace stackscope::native
