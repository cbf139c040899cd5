#include "native/frame_rule_cache.h"

#include <limits>

namespace stackscope::native {

namespace {

size_t slotOf(uintptr_t pc) {
  // Fibonacci hashing: nearby pcs (one function's call sites) spread over the table.
  return static_cast<size_t>((static_cast<uint64_t>(pc) * 0x9E3779B97F4A7C15ull) >> 32) % FrameRuleCache::kEntries;
}

// answer: bits 0-31 the CFA offset, 32-47 the rbp offset (both two's complement), 48-49 the
// result, 50 the CFA's register (1: rbp), 51 rbp saved, 52 outermost.
constexpr int kResultShift = 48;

bool fits(int64_t value, int64_t low, int64_t high) { return value >= low && value <= high; }

uint64_t pack(CfiResult result, const FrameRule& rule) {
  uint64_t answer = static_cast<uint64_t>(result) << kResultShift;
  if (result != CfiResult::Found) return answer;
  answer |= static_cast<uint64_t>(static_cast<uint32_t>(rule.cfa_offset));
  answer |= static_cast<uint64_t>(static_cast<uint16_t>(rule.rbp_offset)) << 32;
  answer |= static_cast<uint64_t>(rule.cfa_register == FrameRule::Cfa::Rbp) << 50;
  answer |= static_cast<uint64_t>(rule.rbp_saved) << 51;
  answer |= static_cast<uint64_t>(rule.outermost) << 52;
  return answer;
}

void unpack(uint64_t answer, CfiResult& result, FrameRule& rule) {
  result = static_cast<CfiResult>((answer >> kResultShift) & 3);
  if (result != CfiResult::Found) return;
  rule.cfa_offset = static_cast<int32_t>(static_cast<uint32_t>(answer));
  rule.rbp_offset = static_cast<int16_t>(static_cast<uint16_t>(answer >> 32));
  rule.cfa_register = (answer >> 50) & 1 ? FrameRule::Cfa::Rbp : FrameRule::Cfa::Rsp;
  rule.rbp_saved = (answer >> 51) & 1;
  rule.outermost = (answer >> 52) & 1;
}

}  // namespace

bool FrameRuleCache::find(uint64_t generation, uintptr_t pc, CfiResult& result, FrameRule& rule) const {
  const Entry& entry = entries_[slotOf(pc)];
  const uint64_t before = entry.sequence.load(std::memory_order_acquire);
  if (before & 1) return false;
  const uint64_t stored_pc = entry.pc.load(std::memory_order_relaxed);
  const uint64_t stored_generation = entry.generation.load(std::memory_order_relaxed);
  const uint64_t answer = entry.answer.load(std::memory_order_relaxed);
  // The reads above come before the counter is read again.
  std::atomic_thread_fence(std::memory_order_acquire);
  if (entry.sequence.load(std::memory_order_relaxed) != before) return false;
  if (stored_pc != pc || stored_generation != generation || generation == 0) return false;
  unpack(answer, result, rule);
  return true;
}

void FrameRuleCache::store(uint64_t generation, uintptr_t pc, CfiResult result, const FrameRule& rule) {
  if (result == CfiResult::Found &&
      (!fits(rule.cfa_offset, std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()) ||
       !fits(rule.rbp_offset, std::numeric_limits<int16_t>::min(), std::numeric_limits<int16_t>::max()))) {
    return;
  }
  Entry& entry = entries_[slotOf(pc)];
  uint64_t sequence = entry.sequence.load(std::memory_order_relaxed);
  if ((sequence & 1) ||
      !entry.sequence.compare_exchange_strong(sequence, sequence + 1, std::memory_order_acquire,
                                              std::memory_order_relaxed)) {
    return;  // being written: this answer is simply not kept
  }
  // The odd counter is visible before any of the new values.
  std::atomic_thread_fence(std::memory_order_release);
  entry.pc.store(pc, std::memory_order_relaxed);
  entry.generation.store(generation, std::memory_order_relaxed);
  entry.answer.store(pack(result, rule), std::memory_order_relaxed);
  entry.sequence.store(sequence + 2, std::memory_order_release);
}

}  // namespace stackscope::native
