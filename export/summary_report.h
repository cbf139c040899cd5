// `stackscope summary` as text and as JSON (analysis/summary.h).
#pragma once

#include <ostream>

#include "analysis/summary.h"
#include "export/report_header.h"

namespace stackscope::exporting {

void writeSummaryText(std::ostream& out, const analysis::Recording& recording, const ReportOptions& options,
                      const analysis::Summary& summary);
Json summaryJson(const analysis::Recording& recording, const ReportOptions& options, const analysis::Summary& summary);

}  // namespace stackscope::exporting
