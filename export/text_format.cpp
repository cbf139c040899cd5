#include "export/text_format.h"

#include <fmt/format.h>

#include <ctime>

#include "common/duration.h"

namespace stackscope::exporting {

namespace {
constexpr size_t kLabelWidth = 11;  // fits the longest label, "Recording:"
}

std::string formatPercent(double pct) { return fmt::format("{:.2f}%", pct); }

std::string formatBytes(uint64_t bytes) {
  if (bytes < 1024) return fmt::format("{} B", bytes);
  constexpr const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes) / 1024;
  size_t unit = 0;
  while (value >= 1024 && unit + 1 < std::size(kUnits)) {
    value /= 1024;
    ++unit;
  }
  return fmt::format("{:.1f} {}", value, kUnits[unit]);
}

std::string formatUtc(int64_t epoch_ns) {
  const std::time_t seconds = static_cast<std::time_t>(epoch_ns / 1000000000);
  std::tm tm{};
  if (!gmtime_r(&seconds, &tm)) return "?";
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", &tm);
  return buf;
}

std::string describeRecording(const format::RecordingInfo& info) {
  return fmt::format("{} mode, interval {}, started {}", info.mode, formatDuration(info.interval_ns),
                     formatUtc(info.start_epoch_ns));
}

void writeField(std::ostream& out, std::string_view label, std::string_view value) {
  std::string head(label);
  if (!label.empty()) head += ':';
  if (head.size() < kLabelWidth) head.resize(kLabelWidth, ' ');
  else head += ' ';
  out << head << value << '\n';
}

std::string frameLabel(const analysis::MethodNames& names, uint32_t method, uint32_t line) {
  return line == 0 ? names[method].display : names[method].display + ":" + std::to_string(line);
}

void writeCutNote(std::ostream& out, size_t shown, size_t available, std::string_view what) {
  if (shown < available) out << fmt::format("({} of {} {} shown; --top 0 shows all)\n", shown, available, what);
}

}  // namespace stackscope::exporting
