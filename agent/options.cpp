#include "agent/options.h"

#include <algorithm>
#include <iterator>
#include <vector>

#include "common/duration.h"

namespace stackscope::agent {

namespace {

constexpr std::string_view kKnownKeys =
    "event, interval, file, overwrite, children, native, vthreads, status, filter, alloc, classes, lock, exception, "
    "metrics, histo, control, rotate, maxfiles, strict";
constexpr std::string_view kValueKeys[] = {"event",  "interval", "file",  "overwrite", "children", "native", "vthreads", "status",
                                           "filter", "alloc",    "classes", "lock",    "exception", "metrics",  "histo",
                                           "control", "rotate", "maxfiles"};

std::string badOption(std::string_view item, std::string_view why) {
  std::string message = "stackscope: bad agent option '";
  message.append(item);
  message.append("': ");
  message.append(why);
  return message;
}

// Parses a duration within [min, max]; on failure returns false and sets `why`.
bool parseBoundedDuration(std::string_view value, int64_t min, int64_t max, const char* range,
                          int64_t& out, std::string& why) {
  const std::optional<int64_t> parsed = parseDuration(value);
  if (!parsed) {
    why = "expected a duration such as 10ms";
    return false;
  }
  if (*parsed < min || *parsed > max) {
    why = std::string("must be between ") + range;
    return false;
  }
  out = *parsed;
  return true;
}

bool parseYesNo(std::string_view value, bool& out, std::string& why) {
  if (value != "yes" && value != "no") {
    why = "expected yes or no";
    return false;
  }
  out = value == "yes";
  return true;
}

// "512k", "1m", "65536": bytes, k and m (either case) in units of 1024.
bool parseAllocInterval(std::string_view value, int64_t& out, std::string& why) {
  why = "expected a size in bytes between 1k and 1g, such as 512k or 1m";
  int64_t unit = 1;
  if (!value.empty()) {
    const char last = value.back();
    if (last == 'k' || last == 'K') unit = 1024;
    if (last == 'm' || last == 'M') unit = 1024 * 1024;
    if (last == 'g' || last == 'G') unit = 1024 * 1024 * 1024;
    if (unit != 1) value.remove_suffix(1);
  }
  if (value.empty() || value.size() > 10 || value.find_first_not_of("0123456789") != std::string_view::npos) return false;
  int64_t number = 0;
  for (char c : value) number = number * 10 + (c - '0');
  if (number > kMaxAllocInterval / unit) return false;  // before the product can overflow
  number *= unit;
  if (number < kMinAllocInterval || number > kMaxAllocInterval) return false;
  out = number;
  return true;
}

// rotate=: a size when the value is a number with k, m or g (KiB, MiB, GiB: "256m"), else a
// duration ("1h", "30s", "1h30m"): "30m" is 30 MiB, half an hour is "1800s".
bool parseRotate(std::string_view value, Options& options, std::string& why) {
  const size_t digits = value.find_first_not_of("0123456789");
  const bool sized = digits != std::string_view::npos && digits > 0 && digits + 1 == value.size() &&
                     std::string_view("kKmMgG").find(value.back()) != std::string_view::npos;
  if (!sized) {
    if (!parseDuration(value)) {
      why = "expected a duration such as 1h or 30s, or a size such as 256m (k, m, g: KiB, MiB, GiB)";
      return false;
    }
    return parseBoundedDuration(value, kMinRotateInterval, kMaxRotateInterval, "1s and 7 days (168h)",
                                options.rotate_ns, why);
  }
  const char unit = static_cast<char>(value.back() | 0x20);
  const int shift = unit == 'k' ? 10 : unit == 'm' ? 20 : 30;
  uint64_t number = 0;  // at most 12 digits: no overflow below, and anything longer is too big
  for (char c : value.substr(0, std::min<size_t>(digits, 13))) number = number * 10 + static_cast<uint64_t>(c - '0');
  if (digits > 12 || number > (kMaxRotateBytes >> shift) || (number << shift) < kMinRotateBytes) {
    why = "a size must be between 64k and 1024g";
    return false;
  }
  options.rotate_bytes = number << shift;
  return true;
}

bool parseMaxFiles(std::string_view value, uint32_t& out, std::string& why) {
  uint64_t n = 0;
  for (char c : value) n = c >= '0' && c <= '9' && n <= kMaxMaxFiles ? n * 10 + static_cast<uint64_t>(c - '0') : UINT64_MAX;
  if (value.empty() || n < 1 || n > kMaxMaxFiles) {
    why = "expected a count of files from 1 to 1000000";
    return false;
  }
  out = static_cast<uint32_t>(n);
  return true;
}

// "com.shop.*;byte[]": globs over class names as Java writes them, ';' between them.
bool parseClassGlobs(std::string_view value, std::vector<std::string>& out, std::string& why) {
  for (size_t start = 0; start <= value.size();) {
    size_t end = value.find(';', start);
    if (end == std::string_view::npos) end = value.size();
    const std::string_view glob = value.substr(start, end - start);
    start = end + 1;
    if (glob.empty()) continue;
    if (glob.find_first_of("/ ") != std::string_view::npos) {
      why = "expected class names as Java writes them, such as com.shop.*;byte[] (dots, not slashes)";
      return false;
    }
    out.emplace_back(glob);
  }
  if (out.empty()) {
    why = "expected one or more class globs separated by ';', such as com.shop.*;byte[]";
    return false;
  }
  return true;
}

bool isValueKey(std::string_view key) {
  for (std::string_view known : kValueKeys)
    if (key == known) return true;
  return false;
}

// Adds one name of event='s list: a sampling mode (one at most) or a trace (once each).
bool addEvent(std::string_view name, Options& options, std::string& why) {
  if (name == "cpu" || name == "wall") {
    if (options.mode != SampleMode::None) {
      why = "one sampling mode at most (cpu or wall), given twice";
      return false;
    }
    options.mode = name == "cpu" ? SampleMode::Cpu : SampleMode::Wall;
    return true;
  }
  for (const TraceName& trace : kTraceNames) {
    if (name != trace.name) continue;
    if (options.traces & trace.trace) {
      why = std::string(name) + " is given twice";
      return false;
    }
    options.traces |= trace.trace;
    return true;
  }
  why = "expected a comma list of cpu or wall and traces (";
  for (size_t i = 0; i < std::size(kTraceNames); ++i) why.append(i ? ", " : "").append(kTraceNames[i].name);
  why.append(")");
  return false;
}

// metrics=none while its list is parsed, so that nothing may follow it; cleared at the end.
constexpr uint32_t kMetricsNone = 1u << 31;

// Adds one name of metrics='s list: cpu or alloc (once each), or none alone.
bool addMetric(std::string_view name, Options& options, std::string& why) {
  const uint32_t bit = name == "cpu" ? uint32_t{format::kSampleCpuTime} : name == "alloc" ? uint32_t{format::kSampleAllocBytes} : 0u;
  if (name == "none" && options.sample_metrics == 0) {
    options.sample_metrics = kMetricsNone;
    return true;
  }
  if (bit == 0 || (options.sample_metrics & kMetricsNone)) {
    why = "expected a comma list of cpu and alloc, or none";
    return false;
  }
  if (options.sample_metrics & bit) {
    why = std::string(name) + " is given twice";
    return false;
  }
  options.sample_metrics |= bit;
  return true;
}

// histo=D (every D), histo=gc (every collection) or histo=gc:N (every Nth).
bool parseHisto(std::string_view value, Options& options, std::string& why) {
  if (value == "gc" || value.substr(0, 3) == "gc:") {
    const std::string_view count = value == "gc" ? std::string_view("1") : value.substr(3);
    uint64_t n = 0;
    for (char c : count) n = c >= '0' && c <= '9' && n < 1'000'000 ? n * 10 + static_cast<uint64_t>(c - '0') : UINT64_MAX;
    if (count.empty() || n == 0 || n > 1'000'000) {
      why = "expected gc:N with N a count of collections from 1 to 1000000";
      return false;
    }
    options.histo_gcs = static_cast<uint32_t>(n);
    return true;
  }
  if (!parseDuration(value)) {
    why = "expected a duration such as 10s, or gc, or gc:N";
    return false;
  }
  return parseBoundedDuration(value, kMinHistoInterval, kMaxHistoInterval, "100ms and 24h", options.histo_interval_ns, why);
}

// Applies one "key=value" or "key" item; returns false with `why` set on error.
bool applyItem(std::string_view item, Options& options, std::string& why) {
  const size_t eq = item.find('=');
  const std::string_view key = item.substr(0, eq);
  const bool has_value = eq != std::string_view::npos;
  const std::string_view value = has_value ? item.substr(eq + 1) : std::string_view();

  if (key == "strict") {
    if (has_value) {
      why = "strict takes no value";
      return false;
    }
    options.strict = true;
    return true;
  }
  if (!isValueKey(key)) {
    why = std::string("unknown option (known: ").append(kKnownKeys).append(")");
    return false;
  }
  if (!has_value) {
    why = "expected " + std::string(key) + "=VALUE";
    return false;
  }
  if (key == "event") {
    options.mode = SampleMode::None;
    return addEvent(value, options, why);
  }
  if (key == "metrics") {
    options.sample_metrics = 0;
    return addMetric(value, options, why);
  }
  if (key == "interval") {
    return parseBoundedDuration(value, kMinInterval, kMaxInterval, "100us and 10s", options.interval_ns, why);
  }
  if (key == "status") {
    return parseBoundedDuration(value, kMinStatusInterval, kMaxStatusInterval, "10ms and 1h",
                                options.status_interval_ns, why);
  }
  if (key == "lock") {
    return parseBoundedDuration(value, kMinLockThreshold, kMaxLockThreshold, "1us and 1h", options.lock_threshold_ns,
                                why);
  }
  if (key == "exception") {
    if (value != "created" && value != "thrown") {
      why = "expected created or thrown";
      return false;
    }
    options.exceptions_thrown = value == "thrown";
    return true;
  }
  if (key == "filter") return options.filter.parse(value, why);
  if (key == "alloc") return parseAllocInterval(value, options.alloc_interval, why);
  if (key == "classes") return parseClassGlobs(value, options.classes, why);
  if (key == "histo") return parseHisto(value, options, why);
  if (key == "control") {
    options.has_control = protocol::parseEndpoint(value, options.control, why);
    return options.has_control;
  }
  if (key == "rotate") return parseRotate(value, options, why);
  if (key == "maxfiles") return parseMaxFiles(value, options.max_files, why);
  if (key == "overwrite") return parseYesNo(value, options.overwrite, why);
  if (key == "native") return parseYesNo(value, options.native, why);
  if (key == "vthreads") return parseYesNo(value, options.vthreads, why);
  if (key == "children") {
    bool follow = false;
    if (!parseYesNo(value, follow, why)) return false;
    options.children = follow ? Children::Follow : Children::Ignore;
    return true;
  }
  // key == "file"
  if (value.empty()) {
    why = "expected a file path";
    return false;
  }
  options.file = std::string(value);
  return true;
}

}  // namespace

ParseResult parseOptions(std::string_view text, int64_t pid) {
  ParseResult result;
  // "strict" decides what a failure does, so look for it before anything can fail.
  for (size_t start = 0; start <= text.size();) {
    size_t end = text.find(',', start);
    if (end == std::string_view::npos) end = text.size();
    if (text.substr(start, end - start) == "strict") result.strict = true;
    start = end + 1;
  }

  Options options;
  std::string_view list_key;  // "event" or "metrics": bare names after it extend its list
  std::vector<std::string_view> seen_keys;  // a handful of items: a linear search is fine
  std::vector<std::string_view> alloc_items;  // alloc= and classes=, checked against event= at the end
  std::string_view exception_item;            // exception=, likewise
  std::string_view maxfiles_item;             // maxfiles=, checked against rotate= at the end
  for (size_t start = 0; start <= text.size();) {
    size_t end = text.find(',', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view item = text.substr(start, end - start);
    start = end + 1;
    if (item.empty()) continue;  // "a,,b" or a trailing comma: nothing to apply
    const std::string_view key = item.substr(0, item.find('='));
    std::string why;
    if (!list_key.empty() && key == item && item != "strict") {
      if (!(list_key == "event" ? addEvent(item, options, why) : addMetric(item, options, why))) {
        result.error = badOption(item, why);
        return result;
      }
      continue;
    }
    list_key = key == "event" || key == "metrics" ? key : std::string_view();
    if (key != "filter" && std::find(seen_keys.begin(), seen_keys.end(), key) != seen_keys.end()) {
      result.error = badOption(item, std::string(key) + " is given twice");
      return result;
    }
    seen_keys.push_back(key);
    if (key == "alloc" || key == "classes") alloc_items.push_back(item);
    if (key == "exception") exception_item = item;
    if (key == "maxfiles") maxfiles_item = item;
    if (!applyItem(item, options, why)) {
      result.error = badOption(item, why);
      return result;
    }
  }
  if (options.file.empty()) options.file = "stackscope-" + std::to_string(pid) + ".ssr";
  // Deaths are followed for the sampled allocations: live samples allocations too.
  if (options.traces & kTraceLive) options.traces |= kTraceAlloc;
  // An alloc option while the trace is off is a mistake that would go unnoticed otherwise.
  if (!(options.traces & kTraceAlloc)) {
    for (std::string_view item : alloc_items) {
      result.error = badOption(item, "only the alloc trace uses it: add alloc or live to event=");
      return result;
    }
  }
  if (!exception_item.empty() && !(options.traces & kTraceException)) {
    result.error = badOption(exception_item, "only the exception trace uses it: add exception to event=");
    return result;
  }
  if (!maxfiles_item.empty() && options.rotate_ns == 0 && options.rotate_bytes == 0) {
    result.error = badOption(maxfiles_item, "only rotation uses it: add rotate=DURATION or rotate=SIZE");
    return result;
  }
  options.sample_metrics &= ~kMetricsNone;
  result.options = std::move(options);
  result.ok = true;
  return result;
}

const char* modeName(SampleMode mode) {
  switch (mode) {
    case SampleMode::Cpu: return "cpu";
    case SampleMode::Wall: return "wall";
    case SampleMode::None: return "";
  }
  return "";
}

std::string eventList(const Options& options) {
  std::string list = modeName(options.mode);
  for (const TraceName& trace : kTraceNames) {
    if (options.traces & trace.trace) list.append(list.empty() ? "" : ",").append(trace.name);
  }
  return list;
}

}  // namespace stackscope::agent
