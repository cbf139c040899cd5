// `stackscope info`: what a recording file is made of, as text or JSON.
#pragma once

#include <ostream>
#include <string>

#include "analysis/file_inspection.h"
#include "export/report_header.h"

namespace stackscope::exporting {

struct InfoOptions {
  std::string file;           // the path as the user gave it
  bool list_chunks = false;   // one line (or JSON item) per chunk
};

void writeInfoText(std::ostream& out, const analysis::FileInspection& inspection, const InfoOptions& options);
Json infoJson(const analysis::FileInspection& inspection, const InfoOptions& options);

}  // namespace stackscope::exporting
