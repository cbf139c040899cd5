// The ProfilerJ snapshot format (seeds/003): an XML document other tools of that family read.
//   <doc>
//     <sampler>  per thread (name, cumulated, cpuTime, cumulatedElapsed, elapsedTime, isAlive)
//                its call tree of time samples, per node: name, hits, elapsed, cumulated,
//                cumulatedElapsed. "hits"/"cumulated" count samples of the thread running
//                (ProfilerJ's RUNNABLE), "elapsed"/"cumulatedElapsed" samples in any state.
//     <memory>   per thread, per class of the objects it allocated: count (objects still live at
//                the end of the selection) and max (the most that were live at once), both
//                estimates of the true counts from the alloc trace's samples.
//   </doc>
// <profile> (method tracing) and <coverage> are written when a recording has such data; no
// trace of stackscope records it yet, so they are left out rather than written empty.
#pragma once

#include <ostream>
#include <string>

#include "analysis/view.h"

namespace stackscope::exporting {

// `keep` narrows every kind of event the same way (a selection's predicate; empty: all).
// `source` names the recording in the document's opening comment.
void writeProfilerJXml(std::ostream& out, const analysis::Recording& recording, const analysis::EventPredicate& keep,
                       const std::string& source);

}  // namespace stackscope::exporting
