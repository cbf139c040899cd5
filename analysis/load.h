// Loads a recording file into the event model.
#pragma once

#include <string>

#include "analysis/recording.h"

namespace stackscope::analysis {

// Reads every map record and the samples, status reports and lost counts inside `window`
// (event chunks wholly outside it are not decoded). Throws format::FormatError when the file
// is missing or not a recording; a torn or damaged file loads what is readable and says what
// was skipped in Recording::warnings. Event chunks are decoded on `threads` threads; 0 lets
// the loader choose: one per usable CPU, as far as there are megabytes to share out. The
// model does not depend on the number.
//
// With SampleRows::Folded, time samples (cpu, wall) get no row in Recording::events: they are
// summed per stack while decoding (Recording::folded), which is all a view needs that only sums
// per stack (methods, graph) over a selection no predicate narrows; the window is still
// applied sample by sample. Every other view needs SampleRows::Kept.
enum class SampleRows { Kept, Folded };
Recording loadRecording(const std::string& path, const TimeWindow& window = {}, size_t threads = 0,
                        SampleRows rows = SampleRows::Kept);

// How an agent warning record reads in a report's warnings.
std::string agentWarningText(const format::AgentWarningRecord& warning);

// Only the map data (names, stacks, markers) and the time of the last event chunk in end_ns:
// what is needed to resolve snapshots before choosing which events to read. No event is decoded.
Recording loadMapData(const std::string& path);

}  // namespace stackscope::analysis
