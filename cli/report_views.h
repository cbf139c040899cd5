// Computes one view of a loaded recording and renders it as text or JSON: the dispatch from
// a resource name's last element to a statistic and its writer.
#pragma once

#include <ostream>

#include "analysis/load.h"
#include "analysis/selection.h"
#include "export/report_header.h"

namespace stackscope::cli {

// The rows the view needs of a recording loaded for `selection`: the methods and graph views
// only sum per stack (valuesByStack), so, when no predicate narrows the selection, their time
// samples are folded per stack while loading.
analysis::SampleRows sampleRowsFor(const analysis::Selection& selection);

// Throws UserError for a view that cannot be computed (callers without a method selection).
void writeView(std::ostream& out, const analysis::Recording& recording, const analysis::Selection& selection,
               const exporting::ReportOptions& options, bool json);

}  // namespace stackscope::cli
