// Samples grouped by one property of the sample: its thread state, or one field of its
// thread's annotation (user, session, request, application, component). Unset values form
// their own group, named "(none)" and marked unset.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/view.h"

namespace stackscope::analysis {

enum class GroupBy { State, User, Session, Request, Application, Component };

struct GroupStat {
  std::string value;  // kNoValue when unset
  uint64_t samples = 0;
  bool unset = false;  // tells the unset group from a value that happens to read "(none)"
};

struct GroupStats {
  uint64_t samples = 0;           // in the view
  std::vector<GroupStat> groups;  // samples descending, then value
};

inline constexpr const char* kNoValue = "(none)";

GroupStats computeGroupStats(const Recording& recording, GroupBy by, const SamplePredicate& keep = {});

}  // namespace stackscope::analysis
