// speedscope's file format (https://www.speedscope.app/file-format-schema.json): shared frames
// and one "sampled" profile whose samples are the distinct stacks (outermost frame first, as
// the format wants) weighted by their value. speedscope's units: "nanoseconds", "bytes",
// "none" for counts.
#include <nlohmann/json.hpp>

#include "export/stack_exports.h"

namespace stackscope::exporting {

namespace {

const char* speedscopeUnit(analysis::MetricUnit unit) {
  switch (unit) {
    case analysis::MetricUnit::Nanoseconds: return "nanoseconds";
    case analysis::MetricUnit::Bytes: return "bytes";
    case analysis::MetricUnit::Count: break;
  }
  return "none";
}

}  // namespace

void writeSpeedscope(std::ostream& out, const analysis::StackProfile& profile, const ProfileMeta& meta) {
  using nlohmann::json;
  json frames = json::array();
  for (const analysis::ProfileFrame& frame : profile.frames) {
    json entry = {{"name", frame.name}};
    if (!frame.file.empty()) entry["file"] = frame.file;
    if (frame.line != 0) entry["line"] = frame.line;
    frames.push_back(std::move(entry));
  }
  json samples = json::array();
  json weights = json::array();
  uint64_t total = 0;
  for (const analysis::ProfileStack& stack : profile.stacks) {
    samples.push_back(stack.frames);
    weights.push_back(stack.value);
    total += stack.value;
  }
  const std::string title = meta.name + " (" + analysis::eventKindName(meta.kind) + ", " + meta.metric->name + ")";
  json document = {
      {"$schema", "https://www.speedscope.app/file-format-schema.json"},
      {"name", title},
      {"exporter", "stackscope"},
      {"activeProfileIndex", 0},
      {"shared", {{"frames", std::move(frames)}}},
      {"profiles", json::array({{{"type", "sampled"},
                                 {"name", title},
                                 {"unit", speedscopeUnit(meta.metric->unit)},
                                 {"startValue", 0},
                                 {"endValue", total},
                                 {"samples", std::move(samples)},
                                 {"weights", std::move(weights)}}})},
  };
  out << document.dump() << '\n';
}

}  // namespace stackscope::exporting
