// Text inside XML (and SVG) documents: attribute values and comments.
#pragma once

#include <string>
#include <string_view>

namespace stackscope::exporting {

// `text` as an attribute value or element text: the five markup characters as entities, and
// control characters XML 1.0 forbids replaced by '?'.
inline std::string xmlEscaped(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        out += (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r') ? '?' : c;
    }
  }
  return out;
}

// `text` as the inside of a comment, which may not hold "--" (nor end with '-').
inline std::string xmlCommentText(std::string_view text) {
  std::string out;
  for (char c : xmlEscaped(text)) {
    if (c == '-' && !out.empty() && out.back() == '-') out += ' ';
    out += c;
  }
  if (!out.empty() && out.back() == '-') out += ' ';
  return out;
}

}  // namespace stackscope::exporting
