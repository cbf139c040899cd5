#include "analysis/stack_counts.h"

namespace stackscope::analysis {

StackValues valuesByStack(const Recording& recording, const EventScope& scope) {
  StackValues values;
  values.by_stack.assign(recording.stacks.size(), 0);
  values.samples_by_stack.assign(recording.stacks.size(), 0);
  values.totals = forEachEvent(recording, scope, [&](const Event& event, uint64_t value) {
    values.by_stack[event.stack] += value;
    values.samples_by_stack[event.stack] += event.weight;
  });
  return values;
}

}  // namespace stackscope::analysis
