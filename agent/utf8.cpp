#include "agent/utf8.h"

namespace stackscope::agent {

namespace {

bool isHigh(uint16_t unit) { return unit >= 0xD800 && unit <= 0xDBFF; }
bool isLow(uint16_t unit) { return unit >= 0xDC00 && unit <= 0xDFFF; }

}  // namespace

size_t appendUtf8FromUtf16(const uint16_t* units, size_t count, size_t max_bytes, std::string& out) {
  size_t written = 0;
  size_t i = 0;
  while (i < count) {
    uint32_t code = units[i];
    size_t used = 1;
    if (isHigh(units[i]) && i + 1 < count && isLow(units[i + 1])) {
      code = 0x10000 + ((static_cast<uint32_t>(units[i]) - 0xD800) << 10) + (units[i + 1] - 0xDC00);
      used = 2;
    } else if (isHigh(units[i]) || isLow(units[i])) {
      code = 0xFFFD;
    }
    char bytes[4];
    size_t n;
    if (code < 0x80) {
      bytes[0] = static_cast<char>(code);
      n = 1;
    } else if (code < 0x800) {
      bytes[0] = static_cast<char>(0xC0 | (code >> 6));
      bytes[1] = static_cast<char>(0x80 | (code & 0x3F));
      n = 2;
    } else if (code < 0x10000) {
      bytes[0] = static_cast<char>(0xE0 | (code >> 12));
      bytes[1] = static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      bytes[2] = static_cast<char>(0x80 | (code & 0x3F));
      n = 3;
    } else {
      bytes[0] = static_cast<char>(0xF0 | (code >> 18));
      bytes[1] = static_cast<char>(0x80 | ((code >> 12) & 0x3F));
      bytes[2] = static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      bytes[3] = static_cast<char>(0x80 | (code & 0x3F));
      n = 4;
    }
    if (written + n > max_bytes) break;
    out.append(bytes, n);
    written += n;
    i += used;
  }
  return i;
}

}  // namespace stackscope::agent
