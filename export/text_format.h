// Small formatting rules shared by the text outputs, so every table and header writes
// percentages, sizes and times the same way.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>

#include "analysis/names.h"
#include "format/records.h"

namespace stackscope::exporting {

std::string formatPercent(double pct);        // "12.34%"
std::string formatBytes(uint64_t bytes);      // "980 B", "1.5 KiB", "12.0 MiB"
std::string formatUtc(int64_t epoch_ns);      // "2024-05-01 12:00:00 UTC"
// "wall mode, interval 10ms, started 2024-05-01 12:00:00 UTC"
std::string describeRecording(const format::RecordingInfo& info);
// One "Label:  value" line of a header block, the values aligned; an empty label continues
// the field above.
void writeField(std::ostream& out, std::string_view label, std::string_view value);
// A row's method as text: its display name (names.h), and with --lines ":line" when known.
std::string frameLabel(const analysis::MethodNames& names, uint32_t method, uint32_t line);
// Says what --top left out, so a cut table is never mistaken for the whole.
void writeCutNote(std::ostream& out, size_t shown, size_t available, std::string_view what);

}  // namespace stackscope::exporting
