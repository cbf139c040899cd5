#include "native/jvm_perf_data.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace stackscope::native {

namespace {

constexpr uint32_t kMagic = 0xcafec0c0;
constexpr size_t kPrologueSize = 32;
constexpr size_t kEntryHeaderSize = 20;
constexpr uint8_t kLittleEndian = 1;
constexpr char kByteType = 'B';  // strings are byte vectors

uint32_t readU32(const std::vector<char>& data, size_t at) {
  uint32_t value = 0;
  std::memcpy(&value, data.data() + at, sizeof value);
  return value;
}

bool readFile(const std::string& path, std::vector<char>& data) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char buffer[65536];
  ssize_t got = 0;
  constexpr size_t kMaxSize = 16 << 20;  // PerfData is 32-64 kB; anything huge is not it
  while ((got = ::read(fd, buffer, sizeof buffer)) > 0 && data.size() < kMaxSize)
    data.insert(data.end(), buffer, buffer + got);
  ::close(fd);
  return got >= 0;
}

}  // namespace

bool perfDataString(const std::string& path, const std::string& name, std::string& value) {
  std::vector<char> data;
  if (!readFile(path, data) || data.size() < kPrologueSize) return false;
  // The magic is written big-endian; the rest in the JVM's byte order (x86: little).
  const uint8_t* bytes = reinterpret_cast<const uint8_t*>(data.data());
  const uint32_t magic = uint32_t{bytes[0]} << 24 | uint32_t{bytes[1]} << 16 | uint32_t{bytes[2]} << 8 | bytes[3];
  if (magic != kMagic || bytes[4] != kLittleEndian) return false;
  size_t entry = readU32(data, 24);
  const uint32_t count = readU32(data, 28);
  for (uint32_t i = 0; i < count; ++i) {
    if (entry + kEntryHeaderSize > data.size()) return false;
    const uint32_t length = readU32(data, entry);
    const uint32_t name_offset = readU32(data, entry + 4);
    const uint32_t vector_length = readU32(data, entry + 8);
    const char type = data[entry + 12];
    const uint32_t data_offset = readU32(data, entry + 16);
    if (length < kEntryHeaderSize || entry + length > data.size() || name_offset >= length || data_offset > length)
      return false;
    const char* entry_name = data.data() + entry + name_offset;
    const size_t name_room = length - name_offset;
    if (type == kByteType && strnlen(entry_name, name_room) == name.size() &&
        std::memcmp(entry_name, name.data(), name.size()) == 0 && data_offset + vector_length <= length) {
      value.assign(data.data() + entry + data_offset, vector_length);
      value.resize(strnlen(value.c_str(), value.size()));
      return true;
    }
    entry += length;
  }
  return false;
}

}  // namespace stackscope::native
