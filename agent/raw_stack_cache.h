// The writer thread's memo of the trace and sample stacks it interned: (top frame's method id,
// the raw frames a callback or the signal handler took) -> the stack's id in the recording. The
// stacks repeat (one throw site, one allocation site, a hot loop sampled every millisecond),
// and a hit costs one hash of the raw frames and one compare instead of naming every frame and
// walking the prefix tree (the writer's ids stay valid for the whole recording). Bounded: past
// kMaxEntries stacks or kMaxFramesHeld frames it starts again empty, which only costs the next
// events their full path.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <unordered_map>
#include <vector>

#include "agent/sample_slot.h"

namespace stackscope::agent {

class RawStackCache {
 public:
  static constexpr size_t kMaxEntries = 1 << 16;
  static constexpr size_t kMaxFramesHeld = 1 << 20;  // 16 MiB of RawFrame

  // FNV-1a over the top id and each frame's method and bci (RawFrame has padding: not memcmp).
  static uint64_t hashOf(uint32_t top, std::span<const RawFrame> frames) {
    uint64_t h = 1469598103934665603ull;
    const auto mix = [&h](uint64_t v) { h = (h ^ v) * 1099511628211ull; };
    mix(top);
    for (const RawFrame& f : frames) {
      mix(reinterpret_cast<uintptr_t>(f.method));
      mix(static_cast<uint32_t>(f.bci));
    }
    return h;
  }

  // The stack's id, 0 when not known.
  uint32_t find(uint32_t top, std::span<const RawFrame> frames) const {
    const auto it = entries_.find(hashOf(top, frames));
    return it != entries_.end() && it->second.top == top && same(it->second.frames, frames) ? it->second.stack : 0;
  }

  // Rotation: the ids belong to the file before (method_resolver.h, restart).
  void forget() {
    std::unordered_map<uint64_t, Entry>().swap(entries_);
    frames_held_ = 0;
  }

  void remember(uint32_t top, std::span<const RawFrame> frames, uint32_t stack) {
    if (entries_.size() >= kMaxEntries || frames_held_ + frames.size() > kMaxFramesHeld) {
      entries_.clear();
      frames_held_ = 0;
    }
    Entry& entry = entries_[hashOf(top, frames)];
    frames_held_ += frames.size() - entry.frames.size();
    entry = {top, std::vector<RawFrame>(frames.begin(), frames.end()), stack};
  }

 private:
  struct Entry {
    uint32_t top;
    std::vector<RawFrame> frames;
    uint32_t stack;
  };

  static bool same(const std::vector<RawFrame>& a, std::span<const RawFrame> b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (a[i].bci != b[i].bci || a[i].method != b[i].method) return false;
    return true;
  }

  std::unordered_map<uint64_t, Entry> entries_;  // by hash; a collision just replaces the entry
  size_t frames_held_ = 0;                         // in entries_
};

}  // namespace stackscope::agent
