// The metric's value of the events grouped by one property of the event: its thread state,
// one field of its thread's annotation (user, session, request, application, component), the
// thrown class of an exception, one of its labels (a collection's collector or cause, the class
// of the object it is about: event_kinds.h; a lock's), its age: how long before the end of the window it happened (for live objects, how long
// ago they were allocated: the leak hunter's view), or a lock event's owner thread (with the
// owner's own methods where a look took its stack). Unset values form their own group, named
// "(none)" and marked unset.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/view.h"

namespace stackscope::analysis {

enum class GroupBy { State, User, Session, Request, Application, Component, Exception, Collector, Cause, Class, Age, Owner };

// A group's value (`value`, in the metric) and the rest of what its events add up to: how
// many, the largest single value and when, the first and last time (EventAggregate).
// Where an owner held the lock: its own method as a look saw it, and how many of the owner's
// events had that look.
struct HeldIn {
  std::string method;
  uint64_t events = 0;
};

struct GroupStat : EventAggregate {
  std::string name;  // the state, annotation value or label; kNoValue when unset
  bool unset = false;  // tells the unset group from a value that happens to read "(none)"
  std::vector<HeldIn> held_in;  // owners only: most events first; empty where no look saw the owner
};

struct GroupStats {
  ViewTotals totals;              // of the view
  std::vector<GroupStat> groups;  // value descending, then the group's name; ages youngest first
};

// The age groups, by how long before the end of the window an event happened: bounds in ns.
inline constexpr int64_t kAgeBounds[] = {100'000'000, 1'000'000'000, 10'000'000'000, 60'000'000'000,
                                         600'000'000'000, 3'600'000'000'000};

inline constexpr const char* kNoValue = "(none)";

GroupStats computeGroupStats(const Recording& recording, GroupBy by, const EventScope& scope);

}  // namespace stackscope::analysis
