// The collection-time filter on thread annotations, agent option
//   filter=user:u1;user:u2;application:shop*
// Entries are KEY:GLOB separated by ';' (the option string itself is split on ','), KEY one
// of user, session, request, application, component. Globs of one key are alternatives;
// every key named must hold. A thread with no annotation, or with the field unset, does not
// match a key that names it. Globs are fnmatch(3) patterns matched on the UTF-8 bytes (no
// flags: '*' crosses '/', '?' is one byte).
//
// Pure: no JVMTI, no I/O, so it is unit-tested on its own (tests/unit/agent).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "agent/annotation_values.h"

namespace stackscope::agent {

class AnnotationFilter {
 public:
  // Adds the entries of `text` to this filter (a repeated filter= option adds to it).
  // Returns false with `why` set, leaving the filter unchanged, on a malformed entry.
  bool parse(std::string_view text, std::string& why);

  bool empty() const;
  // The filter in the filter= syntax ("user:u1;user:u2;application:shop*"), fields in their
  // order; "" when empty. parse() of it gives this filter again.
  std::string text() const;
  bool matches(const AnnotationValues& values) const;
  // The globs for one field (format::AnnotationField order), for tests and messages.
  const std::vector<std::string>& globs(int field) const { return globs_[field]; }

 private:
  std::vector<std::string> globs_[kAnnotationFields];
};

// "user" -> 0 … "component" -> 4, -1 for anything else.
int annotationFieldFromName(std::string_view name);

}  // namespace stackscope::agent
