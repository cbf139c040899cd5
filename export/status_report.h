// `report --view status`: every status report of the selection, as a table or JSON, with
// the units in the column names (text) and the key names (JSON).
#pragma once

#include <ostream>
#include <vector>

#include "analysis/status_series.h"
#include "export/report_header.h"

namespace stackscope::exporting {

// `totals`: the events of the selection, for the common header.
void writeStatusText(std::ostream& out, const analysis::Recording& recording, const std::vector<analysis::StatusRow>& rows,
                     const analysis::ViewTotals& totals, const ReportOptions& options);
Json statusJson(const analysis::Recording& recording, const std::vector<analysis::StatusRow>& rows,
                const analysis::ViewTotals& totals, const ReportOptions& options);

}  // namespace stackscope::exporting
