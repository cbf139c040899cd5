// The native frames below a Java thread's outermost call into Java (agent/native_below.h) on a
// stack built by hand in memory, with unwinding tables written by hand: what the walk finds
// and reads is known by construction.
#include "agent/native_below.h"

#include <gtest/gtest.h>

#include <cstdint>

#include "tests/unit/native/hand_made_cfi.h"

namespace stackscope::agent {
namespace {

using native::HandMadeTables;

constexpr JavaFrameLayout kLayout{-6, -1, 0, 8, 16};
const void* const kMain = reinterpret_cast<const void*>(0x5150);
const void* const kInlined = reinterpret_cast<const void*>(0x5250);
const void* const kWork = reinterpret_cast<const void*>(0x5350);
// The bottom Java frame: main at bci 12, with a method inlined into it at bci 3.
constexpr int32_t kMainCall = 12;
const RawFrame kBottom[] = {{3, kInlined}, {kMainCall, kMain}};

// words[0, 128) is the stack, sp at words[0]. Innermost first:
//   words[40]  the outermost entry frame (the call stub's rbp); its JavaCallWrapper pointer at
//              words[34] (6 words under), the wrapper at words[50] with no saved anchor
//   words[60]  call_helper's frame (code at 0x200, a frame pointer), returned into at 0x211
//   words[70]  JavaMain's frame (0x300, a frame pointer), returned into at 0x311
//   the thread's first function (0x400, no caller by its CFI), returned into at 0x411
class BelowStack : public ::testing::Test {
 protected:
  void SetUp() override {
    const size_t cie = made_.cie();
    made_.fde(cie, 0x200, 0x28, native::framePointerFunction());
    made_.fde(cie, 0x300, 0x28, native::framePointerFunction());
    made_.fde(cie, 0x400, 0x20, native::undefinedRegister(16));
    tables_ = made_.finish();
    module_ = {made_.code(0), made_.code(0x1000), tables_};
    modules_ = {&module_, 1};
    words_[34] = at(50);  // the wrapper
    words_[50] = 0;       // its anchor's sp: no Java frame under the call
    words_[40] = at(60);
    words_[41] = made_.code(0x211);
    words_[60] = at(70);
    words_[61] = made_.code(0x311);
    words_[70] = 0;
    words_[71] = made_.code(0x411);
  }
  uintptr_t at(int index) const { return reinterpret_cast<uintptr_t>(&words_[index]); }
  StackBounds stack() const { return {at(0), at(128)}; }
  void walk(NativeFramesBelow& below) {
    walkBelow(below, at(40), at(0), stack(), kLayout, &modules_);
    keepBottomFrame(below, kBottom, 2);
  }

  HandMadeTables made_;
  native::CfiTables tables_;
  native::UnwindModule module_;
  native::UnwindModules modules_;
  uintptr_t words_[128] = {};
};

TEST_F(BelowStack, WalksDownToTheThreadsFirstFunction) {
  NativeFramesBelow below;
  walk(below);
  EXPECT_EQ(below.entry_fp, at(40));
  ASSERT_EQ(below.count, 3);
  EXPECT_EQ(below.pcs[0], made_.code(0x211));
  EXPECT_EQ(below.pcs[1], made_.code(0x311));
  EXPECT_EQ(below.pcs[2], made_.code(0x411));
  EXPECT_EQ(below.words, 8) << "the wrapper's 2 words, the entry frame's 2, call_helper's 2, JavaMain's 2";

  RawFrame out[8];
  const RawFrame call_stub{kStubFrameBci, reinterpret_cast<const void*>(7)};
  const RawFrame list[] = {{40, kWork}, kBottom[0], kBottom[1]};
  ASSERT_EQ(framesBelow(below, list, 3, &call_stub, out, 8), 4);
  EXPECT_EQ(out[0].bci, kStubFrameBci);
  EXPECT_EQ(out[0].method, call_stub.method);
  for (int i = 1; i < 4; ++i) {
    EXPECT_EQ(out[i].bci, kNativeFrameBci);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(out[i].method), below.pcs[i - 1] - 1) << "inside the call";
  }
  EXPECT_EQ(framesBelow(below, list, 3, nullptr, out, 8), 3);
  EXPECT_EQ(framesBelow(below, list, 3, &call_stub, out, 3), 0) << "shown whole or not at all";
}

TEST_F(BelowStack, HoldWhileEveryWordReadIsUnchangedAndTheTablesAreTheSame) {
  NativeFramesBelow below;
  walk(below);
  EXPECT_TRUE(belowStillHolds(below, &modules_, at(0), stack()));
  words_[45] = 0x1234;  // a word the walk did not read
  EXPECT_TRUE(belowStillHolds(below, &modules_, at(0), stack()));
  for (int index : {34, 50, 40, 41, 60, 61, 70, 71}) {
    const uintptr_t kept = words_[index];
    words_[index] = kept ^ 0x10;
    EXPECT_FALSE(belowStillHolds(below, &modules_, at(0), stack())) << "word " << index;
    words_[index] = kept;
  }
  EXPECT_FALSE(belowStillHolds(below, &modules_, at(42), stack())) << "a word read below the sp is no longer in use";
  EXPECT_FALSE(belowStillHolds(NativeFramesBelow{}, &modules_, at(0), stack())) << "nothing kept";
  const native::UnwindModules published_since{&module_, 1};
  EXPECT_FALSE(belowStillHolds(below, &published_since, at(0), stack()))
      << "tables published since (a library loaded) may walk further";
}

// A list shows the frames below only when it ends with the bottom Java frame's entries, each
// method and bci: one that ended early at another frame of the outermost method, at another
// call or under another inlined method, is not given them.
TEST_F(BelowStack, JavaFramesMustEndWithTheBottomFramesEntries) {
  NativeFramesBelow below;
  walk(below);
  RawFrame out[8];
  const RawFrame whole[] = {{40, kWork}, kBottom[0], kBottom[1]};
  EXPECT_NE(endsAtBottomFrame(below, whole, 3), nullptr);
  EXPECT_EQ(framesBelow(below, whole, 3, nullptr, out, 8), 3);
  const RawFrame other_call[] = {{40, kWork}, kBottom[0], {kMainCall + 5, kMain}};
  const RawFrame other_inlined[] = {{40, kWork}, {4, kInlined}, kBottom[1]};
  const RawFrame not_inlined[] = {{40, kWork}, {kMainCall, kMain}};
  const RawFrame other_method[] = {{40, kWork}, kBottom[0], {kMainCall, kWork}};
  for (const RawFrame* list : {other_call, other_inlined, other_method}) {
    EXPECT_EQ(endsAtBottomFrame(below, list, 3), nullptr);
    EXPECT_EQ(framesBelow(below, list, 3, nullptr, out, 8), 0);
  }
  EXPECT_EQ(endsAtBottomFrame(below, not_inlined, 2), nullptr);
  EXPECT_EQ(endsAtBottomFrame(below, kBottom + 1, 1), nullptr) << "shorter than the bottom frame";
  EXPECT_EQ(endsAtBottomFrame(NativeFramesBelow{}, whole, 3), nullptr) << "no bottom frame checked yet";
}

// A loop in main calling a few methods in turn: the last kMaxBottomCalls calls checked are
// kept, the oldest given up first.
TEST_F(BelowStack, TheLastCallsCheckedAreKept) {
  NativeFramesBelow below;
  walk(below);
  RawFrame calls[kMaxBottomCalls][2];
  for (int i = 0; i < kMaxBottomCalls; ++i) {
    calls[i][0] = {40, kWork};
    calls[i][1] = {kMainCall + 1 + i, kMain};
    keepBottomFrame(below, calls[i] + 1, 1);
  }
  RawFrame out[8];
  const RawFrame first[] = {{40, kWork}, kBottom[0], kBottom[1]};
  EXPECT_EQ(framesBelow(below, first, 3, nullptr, out, 8), 0) << "the oldest call, given up";
  EXPECT_EQ(framesBelow(below, calls[0], 2, nullptr, out, 8), 3);
  EXPECT_EQ(framesBelow(below, calls[kMaxBottomCalls - 1], 2, nullptr, out, 8), 3);
  walk(below);
  EXPECT_EQ(framesBelow(below, calls[kMaxBottomCalls - 1], 2, nullptr, out, 8), 0) << "a walk again forgets them";
}

// main calling itself again from the bottom frame's call: a list that ended early at the upper
// frame would end as the whole one does, so neither gets the frames below.
TEST_F(BelowStack, NothingBelowWhenTheBottomFramesCallRecurs) {
  NativeFramesBelow below;
  walk(below);
  RawFrame out[8];
  const RawFrame recursive[] = {{40, kWork}, kBottom[0], kBottom[1], {7, kWork}, kBottom[0], kBottom[1]};
  EXPECT_NE(endsAtBottomFrame(below, recursive, 6), nullptr);
  EXPECT_EQ(framesBelow(below, recursive, 6, nullptr, out, 8), 0);
  const RawFrame other_call_above[] = {{40, kWork}, {kMainCall + 5, kMain}, kBottom[0], kBottom[1]};
  EXPECT_EQ(framesBelow(below, other_call_above, 4, nullptr, out, 8), 3) << "main above, at another call";
}

TEST_F(BelowStack, KeepNothingForACallThatIsNotTheOutermost) {
  words_[50] = at(90);  // the wrapper saved an anchor: Java frames lie under this call
  words_[51] = at(92);
  words_[52] = made_.code(0x2000);
  NativeFramesBelow below;
  walk(below);
  EXPECT_EQ(below.entry_fp, 0u);
  EXPECT_FALSE(belowStillHolds(below, &modules_, at(0), stack()));
}

TEST_F(BelowStack, AChainNotKnownWholeIsKeptAsNoFrame) {
  words_[61] = made_.code(0x3000);  // into code without CFI whose frame pointer leads to 0
  words_[71] = 0;
  NativeFramesBelow below;
  walk(below);
  EXPECT_EQ(below.entry_fp, at(40)) << "kept, so the same stack is not walked again";
  EXPECT_EQ(below.count, 0);
  EXPECT_TRUE(belowStillHolds(below, &modules_, at(0), stack()));
  RawFrame out[8];
  EXPECT_EQ(framesBelow(below, kBottom, 2, nullptr, out, 8), 0);
}

}  // namespace
}  // namespace stackscope::agent
