#include "agent/file_name.h"

namespace stackscope::agent {

namespace {

bool isDigit(char c) { return c >= '0' && c <= '9'; }

// How many leading characters of `text` a %p (digits) or %t (8 digits '-' 6 digits) matches;
// 0 when it does not.
size_t placeholderLength(char kind, std::string_view text) {
  if (kind == 'p') {
    size_t n = 0;
    while (n < text.size() && isDigit(text[n])) ++n;
    return n;
  }
  constexpr std::string_view kShape = "dddddddd-dddddd";
  if (text.size() < kShape.size()) return 0;
  for (size_t i = 0; i < kShape.size(); ++i) {
    if (kShape[i] == 'd' ? !isDigit(text[i]) : text[i] != kShape[i]) return 0;
  }
  return kShape.size();
}

// Whole-string match of `name` against `pattern`. %p takes all the digits there are (a pid
// is followed by a non-digit in every name the agent makes), so no backtracking is needed.
bool matches(std::string_view pattern, std::string_view name) {
  while (!pattern.empty()) {
    if (pattern[0] == '%' && pattern.size() > 1 && (pattern[1] == 'p' || pattern[1] == 't')) {
      const size_t n = placeholderLength(pattern[1], name);
      if (n == 0) return false;
      pattern.remove_prefix(2);
      name.remove_prefix(n);
      continue;
    }
    const size_t literal = pattern.size() > 1 && pattern.substr(0, 2) == "%%" ? 2 : 1;
    if (name.empty() || name[0] != pattern[literal - 1]) return false;
    pattern.remove_prefix(literal);
    name.remove_prefix(1);
  }
  return name.empty();
}

}  // namespace

std::string expandFileName(std::string_view pattern, int64_t pid, std::string_view local_time) {
  std::string name;
  for (size_t i = 0; i < pattern.size(); ++i) {
    const char next = i + 1 < pattern.size() ? pattern[i + 1] : '\0';
    if (pattern[i] != '%' || (next != 'p' && next != 't' && next != '%')) {
      name += pattern[i];
      continue;
    }
    if (next == 'p') name += std::to_string(pid);
    if (next == 't') name.append(local_time);
    if (next == '%') name += '%';
    ++i;
  }
  return name;
}

std::string withPid(std::string_view path, std::string_view pid) {
  const size_t slash = path.rfind('/');
  const size_t base = slash == std::string_view::npos ? 0 : slash + 1;
  size_t dot = path.rfind('.');
  if (dot == std::string_view::npos || dot <= base) dot = path.size();
  std::string name(path.substr(0, dot));
  name += '.';
  name.append(pid);
  name.append(path.substr(dot));
  return name;
}

bool isFileNameOf(std::string_view pattern, std::string_view name) {
  return matches(pattern, name) || matches(withPid(pattern, "%p"), name);
}

}  // namespace stackscope::agent
