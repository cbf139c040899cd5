// Chrome's trace-event format (JSON, read by Perfetto's UI and chrome://tracing) for what has a
// duration: every event of a kind with a time quantity (gc pauses, lock and wait times) as a
// complete event on its thread's track (gc pauses on a "gc" track), and the recording's markers
// as instant events. Timestamps are microseconds from the recording's start.
#pragma once

#include <ostream>
#include <string>

#include "analysis/view.h"

namespace stackscope::exporting {

// Events of the kinds with a time metric that `keep` keeps; every marker in the window.
void writeChromeTrace(std::ostream& out, const analysis::Recording& recording, const analysis::EventPredicate& keep,
                      const std::string& title);

}  // namespace stackscope::exporting
