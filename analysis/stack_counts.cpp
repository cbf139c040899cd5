#include "analysis/stack_counts.h"

#include <algorithm>
#include <stdexcept>

#include "analysis/parallel.h"

namespace stackscope::analysis {

namespace {

// Below this many events per thread, a thread costs more than it saves.
constexpr size_t kMinEventsPerThread = size_t{1} << 22;

// The values of events [begin, end) of the table.
StackValues partOfValues(const Recording& recording, const EventScope& scope, size_t begin, size_t end) {
  StackValues values;
  values.by_stack.assign(recording.stacks.size(), 0);
  values.samples_by_stack.assign(recording.stacks.size(), 0);
  values.totals = forEachEvent(
      recording, scope,
      [&](const Event& event, uint64_t value) {
        values.by_stack[event.stack] += value;
        values.samples_by_stack[event.stack] += event.weight;
      },
      begin, end);
  return values;
}

// The values of a kind folded while loading (Recording::folded): its sums are already per stack.
StackValues foldedValues(const Recording& recording, const EventScope& scope) {
  if (scope.keep) throw std::logic_error("a predicate cannot narrow events folded per stack");
  const StackSums& sums = recording.folded[static_cast<size_t>(scope.kind)];
  const MetricValue value(recording, *scope.metric);
  StackValues values;
  values.by_stack.assign(recording.stacks.size(), 0);
  values.samples_by_stack.assign(recording.stacks.size(), 0);
  for (uint32_t stack = 0; stack < std::min(sums.weight.size(), recording.stacks.size()); ++stack) {
    values.by_stack[stack] = value(sums, stack);
    values.samples_by_stack[stack] = sums.weight[stack];
    values.totals.samples += values.samples_by_stack[stack];
    values.totals.value += values.by_stack[stack];
  }
  return values;
}

}  // namespace

StackValues valuesByStack(const Recording& recording, const EventScope& scope, size_t threads) {
  if (recording.isFolded(scope.kind)) return foldedValues(recording, scope);
  const size_t events = recording.events.size();
  if (threads == 0) threads = scope.keep ? 1 : std::min(usableCpus(), events / kMinEventsPerThread);
  threads = std::clamp<size_t>(threads, 1, std::max<size_t>(events, 1));
  // Part p is events [p * events / threads, (p + 1) * events / threads), the first on this thread.
  const auto bound = [&](size_t part) { return part * events / threads; };
  std::vector<StackValues> parts(threads);
  runParts(threads, [&](size_t p) { parts[p] = partOfValues(recording, scope, bound(p), bound(p + 1)); });
  StackValues& values = parts[0];
  for (size_t p = 1; p < threads; ++p) {  // sums of integers: the order of the parts changes nothing
    for (size_t s = 0; s < values.by_stack.size(); ++s) {
      values.by_stack[s] += parts[p].by_stack[s];
      values.samples_by_stack[s] += parts[p].samples_by_stack[s];
    }
    values.totals.samples += parts[p].totals.samples;
    values.totals.value += parts[p].totals.value;
  }
  return std::move(values);
}

}  // namespace stackscope::analysis
