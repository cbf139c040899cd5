// The memo of the traces' own stacks (own_stacks.h): a thread's chain of physical frames, as
// its callback read them from its own stack (own_frame_chain.h), -> the frames GetStackTrace
// gave for that chain the first time. The chain names each frame by identities the VM never
// gives to other code (own_frame_chain.h), so an entry never goes stale and nothing clears
// the memo but its bound.
//
// Used by the callbacks of many threads at once: kShards parts, each with its own mutex, the
// part chosen by the chain's hash; a lookup holds one part's mutex for a hash-table find and
// a copy of the frames, and never calls the VM under it. The whole chain is compared, never
// its hash alone. Bounded: a part past kMaxEntriesPerShard chains or kMaxFramesPerShard frames
// starts again empty (counted), which only costs the next callbacks of its chains their walk.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "agent/sample_slot.h"

namespace stackscope::agent {

class StackMemo {
 public:
  static constexpr size_t kShards = 16;
  static constexpr size_t kMaxEntriesPerShard = 256;
  static constexpr size_t kMaxFramesPerShard = 8192;  // 128 KiB of RawFrame a part, 2 MiB in all

  // The frames remembered for `chain` (its bytes), copied into `out` (room for kMaxFrames);
  // false when it is not known.
  bool find(std::string_view chain, RawFrame* out, size_t& count) const {
    const size_t hash = std::hash<std::string_view>{}(chain);
    const Shard& shard = shards_[hash % kShards];
    std::lock_guard<std::mutex> hold(shard.mutex);
    const auto it = shard.entries.find(chain);
    if (it == shard.entries.end()) return false;
    count = it->second.size();
    std::copy(it->second.begin(), it->second.end(), out);
    return true;
  }

  void remember(std::string_view chain, std::span<const RawFrame> frames) {
    const size_t hash = std::hash<std::string_view>{}(chain);
    Shard& shard = shards_[hash % kShards];
    std::lock_guard<std::mutex> hold(shard.mutex);
    if (shard.entries.find(chain) != shard.entries.end()) return;  // another thread was first
    if (shard.entries.size() >= kMaxEntriesPerShard || shard.frames + frames.size() > kMaxFramesPerShard) {
      shard.entries.clear();
      shard.frames = 0;
      restarts_.fetch_add(1, std::memory_order_relaxed);
    }
    if (frames.size() > kMaxFramesPerShard) return;
    shard.entries.emplace(std::string(chain), std::vector<RawFrame>(frames.begin(), frames.end()));
    shard.frames += frames.size();
  }

  // How many times a part started again empty.
  uint64_t restarts() const { return restarts_.load(std::memory_order_relaxed); }
  size_t size() const {
    size_t total = 0;
    for (const Shard& shard : shards_) {
      std::lock_guard<std::mutex> hold(shard.mutex);
      total += shard.entries.size();
    }
    return total;
  }

 private:
  // Lookups by string_view: no copy of the chain unless it is remembered.
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view bytes) const { return std::hash<std::string_view>{}(bytes); }
  };
  struct Shard {
    mutable std::mutex mutex;
    std::unordered_map<std::string, std::vector<RawFrame>, Hash, std::equal_to<>> entries;
    size_t frames = 0;
  };
  std::array<Shard, kShards> shards_;
  std::atomic<uint64_t> restarts_{0};
};

}  // namespace stackscope::agent
