// `report --view gc`: the gc trace's collections by collector (count, total and longest
// pause, first and last) with their causes, as a table or JSON.
#pragma once

#include <ostream>

#include "analysis/gc_stats.h"
#include "export/report_header.h"

namespace stackscope::exporting {

// `totals`: the events of the selection, for the common header.
void writeGcText(std::ostream& out, const analysis::Recording& recording, const analysis::GcStats& stats,
                 const analysis::ViewTotals& totals, const ReportOptions& options);
Json gcJson(const analysis::Recording& recording, const analysis::GcStats& stats, const analysis::ViewTotals& totals,
            const ReportOptions& options);

}  // namespace stackscope::exporting
