// Merges the parts of a rotated recording (agent option rotate=, format/part_names.h) into one
// event model. Each part is a whole recording with its own ids for strings, methods and stacks,
// which restart in every file: they are re-keyed here, the same name or stack of two parts
// becoming one. Threads and annotations keep their ids, which the agent gives once per session.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "analysis/recording.h"

namespace stackscope::analysis {

class RecordingMerger {
 public:
  // `first`: the earliest part, which the others are added to.
  explicit RecordingMerger(Recording& first);
  // Adds the next part (later than every part added before). Its events go after theirs, or
  // among the last of them where a few overlap (a trace's event written after a rotation).
  void add(Recording&& part);
  // After the last add: an object allocated in one part and freed in a later one is not
  // live. Its alloc event gets its time of death, its live copy goes.
  void finish();

 private:
  struct FramesHash {
    size_t operator()(const std::vector<format::Frame>& frames) const;
  };
  struct MethodKey {
    uint32_t class_name, method_name, signature, source_file;
    bool operator==(const MethodKey&) const = default;
  };
  struct MethodKeyHash {
    size_t operator()(const MethodKey& key) const;
  };
  uint32_t stringId(const std::string& value);
  uint32_t methodId(const MethodInfo& method);  // its string ids already the merged ones
  uint32_t stackId(std::vector<format::Frame> frames, bool defined);
  void mergeThread(uint32_t id, ThreadInfo&& thread, const std::vector<uint32_t>& stacks);
  void appendEvents(Recording& part, const std::vector<uint32_t>& stacks, const std::vector<uint32_t>& strings);
  // Keeps the events (and their columns) whose `drop` is false.
  void removeEvents(const std::vector<bool>& drop);

  Recording& rec_;
  std::unordered_map<std::string, uint32_t> strings_;
  std::unordered_map<MethodKey, uint32_t, MethodKeyHash> methods_;
  std::unordered_map<std::vector<format::Frame>, uint32_t, FramesHash> stacks_;
  std::vector<std::pair<uint64_t, int64_t>> later_frees_;  // the added parts' unmatched deaths
};

}  // namespace stackscope::analysis
