// The metric's value of the events grouped by one property of the event: its thread state,
// or one field of its thread's annotation (user, session, request, application, component).
// Unset values form their own group, named "(none)" and marked unset.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/view.h"

namespace stackscope::analysis {

enum class GroupBy { State, User, Session, Request, Application, Component, Exception };

struct GroupStat {
  std::string name;  // the state or annotation value; kNoValue when unset
  uint64_t value = 0;
  bool unset = false;  // tells the unset group from a value that happens to read "(none)"
};

struct GroupStats {
  ViewTotals totals;              // of the view
  std::vector<GroupStat> groups;  // value descending, then the group's name
};

inline constexpr const char* kNoValue = "(none)";

GroupStats computeGroupStats(const Recording& recording, GroupBy by, const EventScope& scope);

}  // namespace stackscope::analysis
