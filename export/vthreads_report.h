// The vthreads view (virtual threads, JDK 21+) as text and JSON:
//   text: the header, a summary (virtual threads, carriers, the metric by state), then the
//         hottest stacks: the metric, Pct (of the view), Threads, and the stack from its top
//         frame down to the virtual thread's entry, "a.B.c <- a.B.d <- ...";
//   JSON: the header's members, then "virtual_threads", "carriers", "virtual_METRIC",
//         "states": {state: value}, "stacks": [{METRIC, pct, threads, frames: [method,
//         ... innermost first]}], hottest first; METRIC is the metric's name ("samples"…).
#pragma once

#include <ostream>

#include "analysis/vthread_stats.h"
#include "export/report_header.h"

namespace stackscope::exporting {

void writeVirtualThreadsText(std::ostream& out, const analysis::Recording& recording,
                             const analysis::VirtualThreadStats& stats, const ReportOptions& options);
Json virtualThreadsJson(const analysis::Recording& recording, const analysis::VirtualThreadStats& stats,
                        const ReportOptions& options);

}  // namespace stackscope::exporting
