// The views of `stackscope report` as text: the header, then one table.
#pragma once

#include <ostream>

#include "analysis/call_tree.h"
#include "analysis/method_stats.h"
#include "analysis/thread_stats.h"
#include "export/report_header.h"

namespace stackscope::exporting {

void writeMethodsText(std::ostream& out, const analysis::Recording& recording, const analysis::MethodStats& stats,
                      const ReportOptions& options);
void writeTreeText(std::ostream& out, const analysis::Recording& recording, const analysis::CallTree& tree,
                   const ReportOptions& options);
void writeThreadsText(std::ostream& out, const analysis::Recording& recording, const analysis::ThreadStats& stats,
                      const ReportOptions& options);

}  // namespace stackscope::exporting
