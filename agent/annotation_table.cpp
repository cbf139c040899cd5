#include "agent/annotation_table.h"

#include <functional>
#include <string_view>

namespace stackscope::agent {

namespace {
// What an entry costs besides its text: map node, five string headers, the by-id pointer.
constexpr size_t kEntryOverheadBytes = 5 * sizeof(std::string) + 64;
}  // namespace

size_t AnnotationTable::Hash::operator()(const AnnotationValues& values) const {
  size_t h = values.set;
  for (int field = 0; field < kAnnotationFields; ++field) {
    if (!values.isSet(field)) continue;
    h = h * 1099511628211u ^ std::hash<std::string_view>()(values.value[field]);
  }
  return h;
}

bool AnnotationTable::Equal::operator()(const AnnotationValues& a, const AnnotationValues& b) const {
  if (a.set != b.set) return false;
  for (int field = 0; field < kAnnotationFields; ++field) {
    if (a.isSet(field) && a.value[field] != b.value[field]) return false;
  }
  return true;
}

AnnotationTable::Lookup AnnotationTable::lookup(const AnnotationValues& values) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (values.empty()) return {0, filter_.empty()};  // unannotated threads never match a filter
  auto it = ids_.find(values);
  if (it != ids_.end()) return {it->second.id, it->second.matches};

  size_t bytes = kEntryOverheadBytes;
  for (const std::string& value : values.value) bytes += value.size();
  const bool matches = filter_.empty() || filter_.matches(values);
  if (ids_.size() >= max_annotations_ || bytes_ + bytes > max_bytes_) {
    if (overflow_id_ == 0) {
      by_id_.push_back(nullptr);
      overflow_id_ = static_cast<uint32_t>(by_id_.size());
    }
    ++overflowed_;
    return {overflow_id_, matches};
  }
  // Unset fields may hold stale text in the caller's buffers: store them empty.
  AnnotationValues key;
  key.set = values.set;
  for (int field = 0; field < kAnnotationFields; ++field) {
    if (values.isSet(field)) key.value[field] = values.value[field];
  }
  const uint32_t id = static_cast<uint32_t>(by_id_.size() + 1);
  auto inserted = ids_.emplace(std::move(key), Entry{id, matches}).first;
  by_id_.push_back(&inserted->first);  // map nodes never move
  bytes_ += bytes;
  return {id, matches};
}

void AnnotationTable::setFilter(AnnotationFilter filter) {
  std::lock_guard<std::mutex> lock(mutex_);
  filter_ = std::move(filter);
  for (auto& [values, entry] : ids_) entry.matches = filter_.empty() || filter_.matches(values);
}

std::string AnnotationTable::filterText() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return filter_.text();
}

bool AnnotationTable::filterEmpty() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return filter_.empty();
}

std::optional<bool> AnnotationTable::matchesNow(uint32_t id) const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (id == 0) return filter_.empty();
  if (id > by_id_.size() || !by_id_[id - 1]) return std::nullopt;
  return filter_.empty() || filter_.matches(*by_id_[id - 1]);
}

bool AnnotationTable::valuesOf(uint32_t id, AnnotationValues& out) const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (id == 0 || id > by_id_.size()) return false;
  if (const AnnotationValues* values = by_id_[id - 1]) {
    out = *values;
  } else {
    out = AnnotationValues();
    for (int field = 0; field < kAnnotationFields; ++field) out.assign(field, kOverflowValue);
  }
  return true;
}

uint64_t AnnotationTable::overflowCount() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return overflowed_;
}

uint32_t AnnotationTable::overflowId() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return overflow_id_;
}

size_t AnnotationTable::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return ids_.size();
}

}  // namespace stackscope::agent
