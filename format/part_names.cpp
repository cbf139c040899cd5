#include "format/part_names.h"

namespace stackscope::format {

namespace {

// Where the extension begins in `path`: its last '.' within the file name when that is not
// the name's first character, else the end.
size_t extensionStart(std::string_view path) {
  const size_t slash = path.rfind('/');
  const size_t name = slash == std::string_view::npos ? 0 : slash + 1;
  const size_t dot = path.rfind('.');
  return dot != std::string_view::npos && dot > name ? dot : path.size();
}

}  // namespace

std::string partName(std::string_view first, uint64_t n) {
  if (n == 0) return std::string(first);
  const size_t ext = extensionStart(first);
  std::string name(first.substr(0, ext));
  name += '-';
  name += std::to_string(n);
  name += first.substr(ext);
  return name;
}

std::optional<uint64_t> partNumber(std::string_view first, std::string_view name) {
  const size_t ext = extensionStart(first);
  const std::string_view stem = first.substr(0, ext);
  const std::string_view extension = first.substr(ext);
  if (name.size() < stem.size() + extension.size() + 2 || name.substr(0, stem.size()) != stem ||
      name.substr(name.size() - extension.size()) != extension || name[stem.size()] != '-')
    return std::nullopt;
  const std::string_view digits = name.substr(stem.size() + 1, name.size() - extension.size() - stem.size() - 1);
  if (digits.empty() || digits.size() > 18 || digits[0] == '0' || digits.find_first_not_of("0123456789") != std::string_view::npos)
    return std::nullopt;
  uint64_t n = 0;
  for (char c : digits) n = n * 10 + static_cast<uint64_t>(c - '0');
  return n;
}

}  // namespace stackscope::format
