#include "agent/stub_unwind.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>

namespace stackscope::agent {
namespace {

// A fake stack [0x1000, 0x2000); reading a word nobody wrote, or outside the stack, fails
// the test: the functions must only read what usedStackWord allows.
constexpr StackBounds kStack{0x1000, 0x2000};

struct FakeMemory {
  std::map<uintptr_t, uint64_t> words;
  uint64_t operator()(uintptr_t addr) const {
    EXPECT_TRUE(addr >= kStack.low && addr + 8 <= kStack.base && addr % 8 == 0) << std::hex << addr;
    auto it = words.find(addr);
    EXPECT_NE(it, words.end()) << "read of an unwritten word at " << std::hex << addr;
    return it == words.end() ? 0 : it->second;
  }
};

TEST(UsedStackWord, OnlyAlignedWordsBetweenSpAndTheBase) {
  EXPECT_TRUE(usedStackWord(0x1800, 0x1800, kStack));
  EXPECT_TRUE(usedStackWord(0x1ff8, 0x1800, kStack)) << "the last word below the base";
  EXPECT_FALSE(usedStackWord(0x1ffc, 0x1800, kStack)) << "straddles the base, and misaligned";
  EXPECT_FALSE(usedStackWord(0x2000, 0x1800, kStack)) << "at the base";
  EXPECT_FALSE(usedStackWord(0x17f8, 0x1800, kStack)) << "below sp: free stack";
  EXPECT_FALSE(usedStackWord(0x1804, 0x1800, kStack)) << "misaligned";
  EXPECT_FALSE(usedStackWord(0x1800, 0x0ff8, kStack)) << "sp below the stack";
  EXPECT_FALSE(usedStackWord(0x2008, 0x2008, kStack)) << "sp above the stack";
  EXPECT_FALSE(usedStackWord(UINTPTR_MAX - 7, 0x1800, kStack));
}

TEST(UsedStackWord, NothingWhenTheStackIsUnknownOrNonsense) {
  EXPECT_FALSE(usedStackWord(0x1800, 0x1800, StackBounds{}));
  EXPECT_FALSE(usedStackWord(0, 0, StackBounds{}));
  EXPECT_FALSE(usedStackWord(0x1800, 0x1800, StackBounds{0x2000, 0x1000})) << "base below low";
  EXPECT_FALSE(usedStackWord(0, 0, StackBounds{0, 4})) << "smaller than a word";
}

TEST(StubUnwind, FramelessStubReturnsToTheWordOnTop) {
  FakeMemory memory;
  memory.words[0x1800] = 0xc0de;  // the return address the call pushed
  WalkRegisters caller;
  ASSERT_TRUE(callerOfFramelessStub({0x5000, 0x1800, 0x1900}, kStack, memory, caller));
  EXPECT_EQ(caller.pc, 0xc0deu);
  EXPECT_EQ(caller.sp, 0x1808u) << "the return address popped";
  EXPECT_EQ(caller.fp, 0x1900u) << "a leaf leaves fp alone";
}

TEST(StubUnwind, FramedStubReturnsThroughItsFramePointer) {
  FakeMemory memory;
  memory.words[0x1840] = 0x1a00;  // [fp]: the caller's fp
  memory.words[0x1848] = 0xc0de;  // [fp + 8]: the return address
  WalkRegisters caller;
  ASSERT_TRUE(callerOfFramedStub({0x5000, 0x1800, 0x1840}, kStack, memory, caller));
  EXPECT_EQ(caller.pc, 0xc0deu);
  EXPECT_EQ(caller.sp, 0x1850u);
  EXPECT_EQ(caller.fp, 0x1a00u);
}

TEST(StubUnwind, FrameAtTheVeryTopOfTheStack) {
  FakeMemory memory;
  memory.words[0x1ff0] = 0;
  memory.words[0x1ff8] = 0xc0de;
  WalkRegisters caller;
  ASSERT_TRUE(callerOfFramedStub({0x5000, 0x1800, 0x1ff0}, kStack, memory, caller));
  EXPECT_EQ(caller.pc, 0xc0deu);
  EXPECT_EQ(caller.sp, 0x2000u);
}

TEST(StubUnwind, RefusesWithoutReadingWhatItMayNotRead) {
  const FakeMemory memory;  // any read would fail the test
  WalkRegisters caller{1, 2, 3};
  EXPECT_FALSE(callerOfFramelessStub({0x5000, 0x1804, 0}, kStack, memory, caller)) << "misaligned sp";
  EXPECT_FALSE(callerOfFramelessStub({0x5000, 0x2000, 0}, kStack, memory, caller)) << "sp at the base";
  EXPECT_FALSE(callerOfFramelessStub({0x5000, 0x0800, 0}, kStack, memory, caller)) << "sp below the stack";
  EXPECT_FALSE(callerOfFramelessStub({0x5000, 0x1800, 0}, StackBounds{}, memory, caller)) << "unknown stack";
  EXPECT_FALSE(callerOfFramedStub({0x5000, 0x1800, 0x17f0}, kStack, memory, caller)) << "fp below sp";
  EXPECT_FALSE(callerOfFramedStub({0x5000, 0x1800, 0x1ff8}, kStack, memory, caller)) << "fp + 8 at the base";
  EXPECT_FALSE(callerOfFramedStub({0x5000, 0x1800, 0x1844}, kStack, memory, caller)) << "misaligned fp";
  EXPECT_FALSE(callerOfFramedStub({0x5000, 0x1800, 0}, kStack, memory, caller)) << "no frame pointer";
  EXPECT_FALSE(callerOfFramedStub({0x5000, 0x1800, UINTPTR_MAX - 7}, kStack, memory, caller)) << "no overflow";
  EXPECT_FALSE(callerOfFramedStub({0x5000, 0x1800, 0x1840}, StackBounds{}, memory, caller)) << "unknown stack";
  EXPECT_EQ(caller.pc, 1u) << "the output is left alone on refusal";
}

// Java code is at 0xc000-0xd000 here; anything else is native.
bool inJava(uintptr_t pc) { return pc >= 0xc000 && pc < 0xd000; }

TEST(NativeLeaf, FollowsFramePointersToTheFirstReturnIntoJava) {
  // pthread_cond_signal (no frame: rbp is still its caller's) <- ObjectMonitor::exit (frame at
  // 0x1840) <- the runtime's entry (frame at 0x1880) <- compiled Java code.
  FakeMemory memory;
  memory.words[0x1840] = 0x1880;
  memory.words[0x1848] = 0x7f0000001234;  // into the runtime's entry: native
  memory.words[0x1880] = 0x1f00;           // whatever rbp the Java code had
  memory.words[0x1888] = 0xc0de;           // into the Java method
  WalkRegisters caller;
  ASSERT_TRUE(callerOfNativeLeaf({0x7f0000005000, 0x1800, 0x1840}, kStack, memory, inJava, caller));
  EXPECT_EQ(caller.pc, 0xc0deu);
  EXPECT_EQ(caller.sp, 0x1890u) << "the Java frame's sp: above the return address";
  EXPECT_EQ(caller.fp, 0x1f00u);
}

TEST(NativeLeaf, ABrokenOrLoopingChainFindsNothing) {
  FakeMemory memory;
  memory.words[0x1840] = 0x1840;  // points at itself
  memory.words[0x1848] = 0x7f0000001234;
  WalkRegisters caller;
  EXPECT_FALSE(callerOfNativeLeaf({0x7f0000005000, 0x1800, 0x1840}, kStack, memory, inJava, caller));
  memory.words[0x1840] = 0x1820;  // goes down the stack
  EXPECT_FALSE(callerOfNativeLeaf({0x7f0000005000, 0x1800, 0x1840}, kStack, memory, inJava, caller));
  const FakeMemory nothing;  // no read allowed
  EXPECT_FALSE(callerOfNativeLeaf({0x7f0000005000, 0x1800, 0x17f0}, kStack, nothing, inJava, caller)) << "fp below sp";
  EXPECT_FALSE(callerOfNativeLeaf({0x7f0000005000, 0x1800, 0}, kStack, nothing, inJava, caller)) << "no frame pointer";
  EXPECT_FALSE(callerOfNativeLeaf({0x7f0000005000, 0x1800, 0x1840}, StackBounds{}, nothing, inJava, caller));
}

TEST(NativeLeaf, GivesUpAfterSoManyFrames) {
  FakeMemory memory;
  for (int i = 0; i <= kMaxLeafFrames; ++i) {
    const uintptr_t fp = 0x1800 + 16 * i;
    memory.words[fp] = fp + 16;
    memory.words[fp + 8] = i == kMaxLeafFrames ? 0xc0de : 0x7f0000001234;
  }
  WalkRegisters caller;
  EXPECT_FALSE(callerOfNativeLeaf({0x7f0000005000, 0x1800, 0x1800}, kStack, memory, inJava, caller));
}

// A runtime stub's frame of 4 words at sp 0x1800 (the frame anchor's): its caller's sp is
// 0x1820, the return address the word below, the saved fp the one below that.
TEST(RuntimeStubFrame, TheCallerIsOneFrameSizeUp) {
  FakeMemory memory;
  memory.words[0x1810] = 0x1a00;  // the caller's fp, saved
  memory.words[0x1818] = 0xc0de;  // the return address into the caller
  WalkRegisters caller;
  ASSERT_TRUE(callerOfStubFrame({0x5000, 0x1800, 0}, 4, 0x1700, kStack, memory, caller));
  EXPECT_EQ(caller.pc, 0xc0deu);
  EXPECT_EQ(caller.sp, 0x1820u);
  EXPECT_EQ(caller.fp, 0x1a00u);
}

TEST(RuntimeStubFrame, RefusesAFrameThatLeavesTheStackOrIsTooSmall) {
  FakeMemory memory;  // nothing may be read
  WalkRegisters caller;
  EXPECT_FALSE(callerOfStubFrame({0x5000, 0x1800, 0}, 0x200, 0x1700, kStack, memory, caller)) << "past the base";
  EXPECT_FALSE(callerOfStubFrame({0x5000, 0x1800, 0}, 1, 0x1700, kStack, memory, caller))
      << "one word: no room for the saved fp";
  EXPECT_FALSE(callerOfStubFrame({0x5000, 0x1800, 0}, 4, 0x1900, kStack, memory, caller)) << "below the used stack";
  EXPECT_FALSE(callerOfStubFrame({0x5000, UINTPTR_MAX - 15, 0}, 4, 0x1700, kStack, memory, caller)) << "wraps";
}

// The entry barrier's stub at fp 0x1800: the method's saved fp at 0x1800, the stub's cookie
// at 0x1808 (not a return address, never read), the return address into the method's
// prologue at 0x1810; the method's sp at the call was 0x1818.
TEST(EntryBarrierStub, TheEnteredMethodIsAboveTheCookie) {
  FakeMemory memory;
  memory.words[0x1800] = 0x1a00;
  memory.words[0x1810] = 0xc0de;
  WalkRegisters entered;
  ASSERT_TRUE(callerOfEntryBarrierStub({0x5000, 0x1700, 0x1800}, 0x1700, kStack, memory, entered));
  EXPECT_EQ(entered.pc, 0xc0deu);
  EXPECT_EQ(entered.sp, 0x1818u);
  EXPECT_EQ(entered.fp, 0x1a00u);
}

TEST(EntryBarrierStub, RefusesAFramePointerOutsideTheUsedStack) {
  FakeMemory memory;  // nothing may be read
  WalkRegisters entered;
  EXPECT_FALSE(callerOfEntryBarrierStub({0x5000, 0x1700, 0x1600}, 0x1700, kStack, memory, entered)) << "below sp";
  EXPECT_FALSE(callerOfEntryBarrierStub({0x5000, 0x1700, 0x1ff0}, 0x1700, kStack, memory, entered)) << "past the base";
  EXPECT_FALSE(callerOfEntryBarrierStub({0x5000, 0x1700, UINTPTR_MAX - 8}, 0x1700, kStack, memory, entered)) << "wraps";
}

}  // namespace
}  // namespace stackscope::agent
