// Gives each distinct combination of the five annotation values one small id, the
// annotation id of the recording (docs/format.md), and remembers once whether it passes the
// collection-time filter, so a thread that annotates itself per request pays one hash
// lookup, not a glob match.
//
// Bounded: a long session that annotates with ever new values (a request id per request)
// must not grow without bound. Beyond max_annotations distinct combinations, or max_bytes of
// stored values, a new combination gets one shared "overflow" id whose five values read
// "(overflow)"; each such use is counted (the agent reports the count at the end). Its
// filter result is still computed from the real values, so a filter keeps working.
//
// The filter may be replaced while the table is in use (the control's filter command): every
// known combination's result is then computed again.
//
// Thread-safe (one mutex, held for a lookup only); pure otherwise, unit-tested on its own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

#include "agent/annotation_filter.h"
#include "agent/annotation_values.h"

namespace stackscope::agent {

class AnnotationTable {
 public:
  static constexpr uint32_t kDefaultMaxAnnotations = 100'000;
  static constexpr size_t kDefaultMaxBytes = 64u << 20;
  static constexpr const char* kOverflowValue = "(overflow)";

  // A copy of `filter` is kept; an empty filter matches everything.
  explicit AnnotationTable(AnnotationFilter filter, uint32_t max_annotations = kDefaultMaxAnnotations,
                           size_t max_bytes = kDefaultMaxBytes)
      : filter_(std::move(filter)), max_annotations_(max_annotations), max_bytes_(max_bytes) {}

  struct Lookup {
    uint32_t id = 0;       // 0 for "no annotation" (every value unset)
    bool matches = false;  // passes the filter
  };
  Lookup lookup(const AnnotationValues& values);

  // The values of id (the overflow id's are all "(overflow)"); false for 0 or an unknown id.
  bool valuesOf(uint32_t id, AnnotationValues& out) const;

  // Replaces the filter; lookups from now on answer for the new one.
  void setFilter(AnnotationFilter filter);
  bool filterEmpty() const;
  std::string filterText() const;  // the filter in force (AnnotationFilter::text)
  // Whether a thread holding annotation `id` passes the filter now; nothing for the overflow
  // id or an unknown one (their values are not kept).
  std::optional<bool> matchesNow(uint32_t id) const;

  uint64_t overflowCount() const;  // lookups that fell to the overflow id
  uint32_t overflowId() const;     // 0 until the first overflow
  size_t size() const;             // distinct combinations with an id of their own

 private:
  struct Hash {
    size_t operator()(const AnnotationValues& values) const;
  };
  struct Equal {
    bool operator()(const AnnotationValues& a, const AnnotationValues& b) const;
  };
  struct Entry {
    uint32_t id;
    bool matches;
  };

  AnnotationFilter filter_;  // under mutex_
  const uint32_t max_annotations_;
  const size_t max_bytes_;
  mutable std::mutex mutex_;
  std::unordered_map<AnnotationValues, Entry, Hash, Equal> ids_;
  std::vector<const AnnotationValues*> by_id_;  // [id - 1]; null for the overflow id
  uint32_t overflow_id_ = 0;
  uint64_t overflowed_ = 0;
  size_t bytes_ = 0;
};

}  // namespace stackscope::agent
