#include "analysis/selection_notes.h"

#include <algorithm>
#include <stdexcept>

#include "analysis/status_series.h"
#include "common/duration.h"

namespace stackscope::analysis {

namespace {

bool keepsAny(const Selection& selection, const Recording& recording, EventKind kind) {
  const EventPredicate keep = selectionPredicate(selection, recording);
  if (recording.isFolded(kind)) {
    if (keep) throw std::logic_error("a predicate cannot narrow events folded per stack");
    return recording.folded[static_cast<size_t>(kind)].events != 0;
  }
  return std::any_of(recording.events.begin(), recording.events.end(),
                     [&](const Event& e) { return e.kind == kind && (!keep || keep(e)); });
}

// What the view counts: a sample of cpu or wall, one event of the other kinds.
std::string eventNoun(EventKind kind) {
  return kind == EventKind::Cpu || kind == EventKind::Wall ? "sample" : std::string(eventKindName(kind)) + " event";
}

std::string windowText(const TimeWindow& w) {
  return formatDuration(w.from_ns) + ".." + (w.to_ns == TimeWindow::kOpen ? std::string("end") : formatDuration(w.to_ns));
}

// The selection narrowed by nothing but its time and, when `filters`, its --where filters.
Selection timeOnly(const Selection& selection, bool filters) {
  Selection narrowed;
  narrowed.intervals = selection.intervals;
  if (filters) narrowed.filters = selection.filters;
  narrowed.resource.elements = {ResourceElement{selection.resource.view().type, {}}};
  return narrowed;
}

// Why a selection with some time keeps no event: the first of time, filters, and the
// resource name's steps, in that order, that leaves nothing.
std::string emptinessReason(const Selection& selection, const Recording& recording, EventKind kind) {
  const TimeWindow hull = selection.hull();
  if (recording.end_ns > 0 && hull.from_ns >= recording.end_ns)
    return "the selected time starts at " + formatDuration(hull.from_ns) + ", after the recording's end (" +
           formatDuration(recording.end_ns) + "): nothing is selected";
  if (!keepsAny(timeOnly(selection, false), recording, kind))
    return "the selected time (" + windowText(hull) + ") holds no " + eventNoun(kind);
  if (!selection.filters.empty() && !keepsAny(timeOnly(selection, true), recording, kind)) {
    std::string filters;
    for (const std::string& f : selection.filters) filters += (filters.empty() ? "'" : " and '") + f + "'";
    return "the filter " + filters + " keeps no " + eventNoun(kind) + " of the selected time";
  }
  // Each navigation step on top of the previous ones: name the first that empties the view.
  Selection steps = timeOnly(selection, true);
  for (const ResourceElement& element : selection.resource.elements) {
    if (element.values.empty()) continue;
    steps.resource.elements.insert(steps.resource.elements.end() - 1, element);
    if (!keepsAny(steps, recording, kind)) {
      ResourceName step;
      step.elements = {element};
      return "the navigation step '" + step.toString() + "' matches no " + eventNoun(kind) +
             (steps.resource.elements.size() > 2 ? " of the steps before it" : std::string(" of the selection"));
    }
  }
  return "the selection keeps no " + eventNoun(kind);
}

}  // namespace

std::vector<std::string> selectionNotes(const Selection& selection, const Recording& recording, EventKind kind) {
  std::vector<std::string> notes;
  if (selection.snapshot) notes = selection.snapshot->notes;
  if (selection.intervals.empty()) {
    // A snapshot that itself selects nothing has said why; otherwise --from/--to missed it.
    if (!selection.snapshot || !selection.snapshot->intervals.empty())
      notes.push_back("snapshot '" + (selection.snapshot ? selection.snapshot->name : std::string()) +
                      "' has no part inside --from/--to: nothing is selected");
    else if (notes.empty())
      notes.push_back("snapshot '" + selection.snapshot->name + "' selects no time");
    return notes;
  }
  const ResourceType view = selection.resource.view().type;
  if (view == ResourceType::Status) {
    // Status reports belong to the process, not to a thread or a stack.
    const bool narrowed = !selection.filters.empty() ||
                          std::any_of(selection.resource.elements.begin(), selection.resource.elements.end(),
                                      [](const ResourceElement& e) { return !e.values.empty(); });
    if (narrowed)
      notes.push_back("status reports are process-wide: only time narrows them; --where and navigation steps narrow only "
                      "the gc trace's pauses beside them");
    if (statusSeries(recording, selection, {}).empty()) notes.push_back("the selected time holds no status report");
    return notes;
  }
  // A kind without stacks leaves the stack views empty whatever is selected: say where it shows.
  const bool stack_view = view == ResourceType::Methods || view == ResourceType::Tree || view == ResourceType::Graph ||
                          view == ResourceType::Callers;
  if (const char* own_view = eventKindInfo(kind).stackless_view; stack_view && own_view) {
    notes.push_back(std::string(eventKindName(kind)) + " events carry no stack: the " + resourceTypeName(view) +
                    " view has nothing to show of them; see --view " + own_view);
    return notes;
  }
  // Without the gc trace the gc view says so itself.
  if (view == ResourceType::Gc && kind != EventKind::Gc) return notes;
  if (!keepsAny(selection, recording, kind)) notes.push_back(emptinessReason(selection, recording, kind));
  return notes;
}

}  // namespace stackscope::analysis
