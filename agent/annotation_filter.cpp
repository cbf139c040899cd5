#include "agent/annotation_filter.h"

#include <fnmatch.h>

namespace stackscope::agent {

int annotationFieldFromName(std::string_view name) {
  for (int field = 0; field < kAnnotationFields; ++field) {
    if (name == format::annotationFieldName(static_cast<format::AnnotationField>(field))) return field;
  }
  return -1;
}

bool AnnotationFilter::parse(std::string_view text, std::string& why) {
  std::vector<std::string> added[kAnnotationFields];
  bool any = false;
  for (size_t start = 0; start <= text.size();) {
    size_t end = text.find(';', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view entry = text.substr(start, end - start);
    start = end + 1;
    if (entry.empty()) continue;  // "a;;b" or a trailing ';'
    // Split at the first ':' so a glob may itself hold ':' (session ids often do).
    const size_t colon = entry.find(':');
    if (colon == std::string_view::npos) {
      why = "expected KEY:GLOB, not '" + std::string(entry) + "'";
      // KEY=VALUE is how report's --where reads; say which syntax this is.
      if (entry.find('=') != std::string_view::npos) why += " (the filter is written user:u1, not user=u1 as in --where)";
      return false;
    }
    const int field = annotationFieldFromName(entry.substr(0, colon));
    if (field < 0) {
      why = "unknown key '" + std::string(entry.substr(0, colon)) +
            "' (known: user, session, request, application, component)";
      return false;
    }
    if (colon + 1 == entry.size()) {
      why = "empty pattern for " + std::string(entry.substr(0, colon)) + " (use * for any value)";
      return false;
    }
    added[field].emplace_back(entry.substr(colon + 1));
    any = true;
  }
  if (!any) {
    why = "expected KEY:GLOB entries separated by ';', e.g. user:u1;application:shop*";
    return false;
  }
  for (int field = 0; field < kAnnotationFields; ++field) {
    for (std::string& glob : added[field]) globs_[field].push_back(std::move(glob));
  }
  return true;
}

std::string AnnotationFilter::text() const {
  std::string text;
  for (int field = 0; field < kAnnotationFields; ++field) {
    for (const std::string& glob : globs_[field]) {
      if (!text.empty()) text += ';';
      text += format::annotationFieldName(static_cast<format::AnnotationField>(field));
      text += ':';
      text += glob;
    }
  }
  return text;
}

bool AnnotationFilter::empty() const {
  for (const auto& globs : globs_) {
    if (!globs.empty()) return false;
  }
  return true;
}

bool AnnotationFilter::matches(const AnnotationValues& values) const {
  for (int field = 0; field < kAnnotationFields; ++field) {
    const std::vector<std::string>& globs = globs_[field];
    if (globs.empty()) continue;
    if (!values.isSet(field)) return false;
    // fnmatch needs a NUL-terminated subject; a value with an embedded NUL (Java allows
    // one) is matched up to it.
    const char* subject = values.value[field].c_str();
    bool any = false;
    for (const std::string& glob : globs) {
      if (fnmatch(glob.c_str(), subject, 0) == 0) {
        any = true;
        break;
      }
    }
    if (!any) return false;
  }
  return true;
}

}  // namespace stackscope::agent
