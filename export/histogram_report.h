// `report --view histogram` and `--view histogram-growth`: the class histograms' objects per
// class at one moment, or their growth between two, as a table or JSON.
#pragma once

#include <ostream>

#include "analysis/histogram_stats.h"
#include "export/report_header.h"

namespace stackscope::exporting {

// `totals`: the histogram events of the selection, for the common header.
void writeHistogramText(std::ostream& out, const analysis::Recording& recording, const analysis::HistogramStats& stats,
                        bool growth, const analysis::ViewTotals& totals, const ReportOptions& options);
Json histogramJson(const analysis::Recording& recording, const analysis::HistogramStats& stats, bool growth,
                   const analysis::ViewTotals& totals, const ReportOptions& options);

}  // namespace stackscope::exporting
