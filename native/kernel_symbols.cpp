#include "native/kernel_symbols.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace stackscope::native {

namespace {

// The whole of /proc/kallsyms (its size is unknown before reading: stat says 0).
std::string readKallsyms() {
  std::string text;
  int fd = open("/proc/kallsyms", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return text;
  char buffer[65536];
  while (true) {
    ssize_t n = read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buffer, static_cast<size_t>(n));
  }
  close(fd);
  return text;
}

}  // namespace

void KernelSymbols::load(std::string text) {
  loaded_ = true;
  text_ = std::move(text);
  // Each line: "ADDRESS TYPE NAME" then, for a module's symbol, "\t[MODULE]".
  char* line = text_.data();
  char* end = line + text_.size();
  while (line < end) {
    char* newline = static_cast<char*>(std::memchr(line, '\n', static_cast<size_t>(end - line)));
    char* line_end = newline ? newline : end;
    *line_end = '\0';  // the text's last byte is '\n' or the string's own terminator
    char* after_address = nullptr;
    uint64_t address = std::strtoull(line, &after_address, 16);
    if (after_address != line && after_address + 3 < line_end && after_address[0] == ' ' &&
        after_address[2] == ' ' && address != 0 && std::strchr("tTwW", after_address[1])) {
      char* name = after_address + 3;
      name[std::strcspn(name, "\t ")] = '\0';
      char type = after_address[1];
      if (*name != '\0')
        functions_.add(address, 0, name,
                       type == 'T'   ? SymbolTable::Binding::kGlobal
                       : type == 'W' ? SymbolTable::Binding::kWeak
                                     : SymbolTable::Binding::kLocal);
    }
    line = line_end + 1;
  }
  functions_.finish();
}

SymbolTable::Match KernelSymbols::find(uint64_t address) {
  if (!loaded_) load(readKallsyms());
  return functions_.find(address);
}

}  // namespace stackscope::native
