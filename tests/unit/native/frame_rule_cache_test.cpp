// The memo of CFI rules by pc (native/frame_rule_cache.h): it gives back exactly what the
// tables say, only for the pc and the modules' generation it was stored under, and never an
// answer torn between two writers.
#include "native/frame_rule_cache.h"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <thread>

#include "native/unwind_modules.h"
#include "tests/unit/native/hand_made_cfi.h"

namespace stackscope::native {
namespace {

bool sameAnswer(CfiResult a, const FrameRule& rule_a, CfiResult b, const FrameRule& rule_b) {
  if (a != b) return false;
  if (a != CfiResult::Found) return true;
  return rule_a.cfa_register == rule_b.cfa_register && rule_a.cfa_offset == rule_b.cfa_offset &&
         rule_a.rbp_saved == rule_b.rbp_saved && rule_a.rbp_offset == rule_b.rbp_offset &&
         rule_a.outermost == rule_b.outermost;
}

// A rule that can be told from any other pc's: what the concurrent test stores for each pc.
FrameRule ruleMadeFrom(uintptr_t pc) {
  FrameRule rule;
  rule.cfa_register = pc & 1 ? FrameRule::Cfa::Rbp : FrameRule::Cfa::Rsp;
  rule.cfa_offset = static_cast<int64_t>(pc & 0xffff) * 8;
  rule.rbp_saved = (pc & 2) != 0;
  rule.rbp_offset = -static_cast<int64_t>(pc & 0x7f) * 8;
  return rule;
}

TEST(FrameRuleCache, GivesTheTablesAnswersFirstReadThenRemembered) {
  // A frameless function at 0x100 (push, sub, an epilogue) and a frame-pointer one at 0x200;
  // pcs around and between them have no entry.
  HandMadeTables made;
  const size_t cie = made.cie();
  made.fde(cie, 0x100, 0x30, joined({advance(1), defCfaOffset(16), offsetOf(3, 2), advance(4), defCfaOffset(48),
                                     advance(0x20), defCfaOffset(8)}));
  made.fde(cie, 0x200, 0x28, framePointerFunction());
  const CfiTables tables = made.finish();
  const UnwindModule module{made.code(0), made.code(0x1000), tables};
  auto cache = std::make_unique<FrameRuleCache>();
  const UnwindModules memoized{&module, 1, cache.get(), 1};
  int found = 0;
  for (uintptr_t offset = 0xf0; offset < 0x240; ++offset) {
    const uintptr_t pc = made.code(offset);
    FrameRule expected, first, second;
    const CfiResult truth = frameRuleAt(tables, pc, expected);
    found += truth == CfiResult::Found;
    const CfiResult read = memoized.ruleAt(module, pc, first);
    CfiResult remembered;
    ASSERT_TRUE(cache->find(1, pc, remembered, second)) << std::hex << offset;
    EXPECT_TRUE(sameAnswer(truth, expected, read, first)) << std::hex << offset;
    EXPECT_TRUE(sameAnswer(truth, expected, remembered, second)) << std::hex << offset;
    EXPECT_TRUE(sameAnswer(truth, expected, memoized.ruleAt(module, pc, second), second)) << std::hex << offset;
  }
  EXPECT_EQ(found, 0x30 + 0x28);
}

TEST(FrameRuleCache, AnswersOnlyForThePcAndGenerationStored) {
  auto cache = std::make_unique<FrameRuleCache>();
  const uintptr_t pc = 0x7f0012345678;
  cache->store(3, pc, CfiResult::Found, ruleMadeFrom(pc));
  CfiResult result;
  FrameRule rule;
  ASSERT_TRUE(cache->find(3, pc, result, rule));
  EXPECT_TRUE(sameAnswer(result, rule, CfiResult::Found, ruleMadeFrom(pc)));
  EXPECT_FALSE(cache->find(4, pc, result, rule));  // a later table of the modules
  EXPECT_FALSE(cache->find(3, pc + 1, result, rule));
  // Many more pcs than entries: each is found with its own answer or not at all.
  for (uintptr_t other = 0x400000; other < 0x400000 + 4 * FrameRuleCache::kEntries; ++other) {
    cache->store(3, other, other % 3 ? CfiResult::Found : CfiResult::NoEntry, ruleMadeFrom(other));
  }
  int kept = 0;
  for (uintptr_t other = 0x400000; other < 0x400000 + 4 * FrameRuleCache::kEntries; ++other) {
    if (!cache->find(3, other, result, rule)) continue;
    ++kept;
    EXPECT_TRUE(sameAnswer(result, rule, other % 3 ? CfiResult::Found : CfiResult::NoEntry, ruleMadeFrom(other)));
  }
  EXPECT_GT(kept, 0);
  EXPECT_LE(kept, static_cast<int>(FrameRuleCache::kEntries));
}

TEST(FrameRuleCache, LeavesOutOffsetsTooLargeToKeep) {
  auto cache = std::make_unique<FrameRuleCache>();
  FrameRule huge;
  huge.cfa_offset = int64_t{1} << 40;
  cache->store(1, 0x1000, CfiResult::Found, huge);
  CfiResult result;
  FrameRule rule;
  EXPECT_FALSE(cache->find(1, 0x1000, result, rule));
  FrameRule deep;
  deep.rbp_saved = true;
  deep.rbp_offset = -(int64_t{1} << 20);
  cache->store(1, 0x2000, CfiResult::Found, deep);
  EXPECT_FALSE(cache->find(1, 0x2000, result, rule));
}

// Two writers store, for pcs that share entries, answers made from each pc while a reader
// looks them up: a hit is always the answer of the pc asked, never one torn between writers.
TEST(FrameRuleCache, NeverGivesAnAnswerTornBetweenWriters) {
  auto cache = std::make_unique<FrameRuleCache>();
  constexpr uintptr_t kPcs = 3 * FrameRuleCache::kEntries;
  std::atomic<bool> done{false};
  const auto write = [&](uintptr_t first) {
    for (int round = 0; round < 200; ++round) {
      for (uintptr_t pc = first; pc < first + kPcs; pc += 2) cache->store(1, pc, CfiResult::Found, ruleMadeFrom(pc));
    }
  };
  std::thread even(write, uintptr_t{0x10000}), odd(write, uintptr_t{0x10001});
  long hits = 0, wrong = 0;
  std::thread reader([&] {
    do {
      for (uintptr_t pc = 0x10000; pc < 0x10000 + kPcs; ++pc) {
        CfiResult result;
        FrameRule rule;
        if (!cache->find(1, pc, result, rule)) continue;
        ++hits;
        wrong += !sameAnswer(result, rule, CfiResult::Found, ruleMadeFrom(pc));
      }
    } while (!done.load());
  });
  even.join();
  odd.join();
  done.store(true);
  reader.join();
  EXPECT_EQ(wrong, 0);
  EXPECT_GT(hits, 0);
}

}  // namespace
}  // namespace stackscope::native
