// The five values of a thread annotation as the agent handles them: UTF-8 text, each either
// set (possibly to the empty string) or unset (Java null). Pure data, shared by the filter,
// the annotation id table and the Java API natives.
#pragma once

#include <cstdint>
#include <string>

#include "format/records.h"

namespace stackscope::agent {

inline constexpr int kAnnotationFields = format::kAnnotationFieldCount;

// A value longer than this is cut at the last whole UTF-8 character that fits: annotation
// values name users and requests, and a runaway value (a request body passed by mistake)
// must not cost the recording megabytes per distinct value.
inline constexpr size_t kMaxAnnotationValueBytes = 4096;

struct AnnotationValues {
  std::string value[kAnnotationFields];  // indexed by format::AnnotationField
  uint8_t set = 0;                       // bit i: value[i] is set

  bool isSet(int field) const { return (set >> field) & 1u; }
  void assign(int field, std::string text) {
    value[field] = std::move(text);
    set = static_cast<uint8_t>(set | (1u << field));
  }
  bool empty() const { return set == 0; }
};

}  // namespace stackscope::agent
