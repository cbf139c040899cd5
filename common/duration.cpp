#include "common/duration.h"

#include <cstdio>
#include <limits>

namespace stackscope {

namespace {
struct Unit {
  std::string_view name;
  int64_t ns;
};
// Longer names first so "ms" is not read as "m" followed by garbage.
constexpr Unit kUnits[] = {{"ns", 1},          {"us", 1000},           {"ms", 1000000},
                           {"s", 1000000000LL}, {"m", 60000000000LL}, {"h", 3600000000000LL}};

constexpr size_t kMaxFractionDigits = 18;

// Reads digits at text[i..] into `value` (stopping before overflowing int64); returns how many.
size_t readDigits(std::string_view text, size_t& i, int64_t& value) {
  const size_t start = i;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
    if (value > (std::numeric_limits<int64_t>::max() - 9) / 10) return 0;
    value = value * 10 + (text[i] - '0');
    ++i;
  }
  return i - start;
}

const Unit* readUnit(std::string_view text, size_t& i) {
  for (const Unit& candidate : kUnits) {
    if (text.substr(i, candidate.name.size()) == candidate.name) {
      i += candidate.name.size();
      return &candidate;
    }
  }
  return nullptr;
}
}  // namespace

std::optional<int64_t> parseDuration(std::string_view text) {
  if (text.empty()) return std::nullopt;
  // 128-bit so "<18 digits>.<18 digits>h" cannot overflow before the final range check.
  __int128 total = 0;
  size_t i = 0;
  while (i < text.size()) {
    int64_t whole = 0;
    if (readDigits(text, i, whole) == 0) return std::nullopt;
    // The fraction is kept as integer digits over a power of ten, never as a double, so
    // "2.6s" is exactly 2600000000 ns.
    int64_t fraction = 0;
    __int128 fraction_scale = 1;
    if (i < text.size() && text[i] == '.') {
      ++i;
      const size_t digits = readDigits(text, i, fraction);
      // 18 digits are finer than a nanosecond of any unit; more (even zeros) would overflow
      // the scale below, so they are refused.
      if (digits == 0 || digits > kMaxFractionDigits) return std::nullopt;
      for (size_t d = 0; d < digits; ++d) fraction_scale *= 10;
    }
    const Unit* unit = readUnit(text, i);
    if (!unit) return std::nullopt;
    const __int128 fraction_ns = __int128(fraction) * unit->ns;
    // A fraction finer than a nanosecond ("1.5ns") cannot be represented: refuse, never round.
    if (fraction_ns % fraction_scale != 0) return std::nullopt;
    total += __int128(whole) * unit->ns + fraction_ns / fraction_scale;
    if (total > std::numeric_limits<int64_t>::max()) return std::nullopt;
  }
  return static_cast<int64_t>(total);
}

std::string formatDuration(int64_t ns) {
  if (ns == 0) return "0s";
  char buf[64];
  const char* sign = ns < 0 ? "-" : "";
  const uint64_t v = ns < 0 ? static_cast<uint64_t>(-(ns + 1)) + 1 : static_cast<uint64_t>(ns);
  constexpr uint64_t kMinute = 60000000000ULL, kHour = 60 * kMinute;
  if (v >= kHour) {
    const uint64_t m = (v % kHour) / kMinute;
    if (m) std::snprintf(buf, sizeof buf, "%s%lluh%llum", sign, (unsigned long long)(v / kHour), (unsigned long long)m);
    else std::snprintf(buf, sizeof buf, "%s%lluh", sign, (unsigned long long)(v / kHour));
  } else if (v >= kMinute) {
    const double s = double(v % kMinute) / 1e9;
    if (s >= 0.05) std::snprintf(buf, sizeof buf, "%s%llum%.1fs", sign, (unsigned long long)(v / kMinute), s);
    else std::snprintf(buf, sizeof buf, "%s%llum", sign, (unsigned long long)(v / kMinute));
  } else if (v >= 1000000000ULL) {
    std::snprintf(buf, sizeof buf, "%s%.3gs", sign, double(v) / 1e9);
  } else if (v >= 1000000ULL) {
    std::snprintf(buf, sizeof buf, "%s%.3gms", sign, double(v) / 1e6);
  } else if (v >= 1000ULL) {
    std::snprintf(buf, sizeof buf, "%s%.3gus", sign, double(v) / 1e3);
  } else {
    std::snprintf(buf, sizeof buf, "%s%lluns", sign, (unsigned long long)v);
  }
  return buf;
}

}  // namespace stackscope
