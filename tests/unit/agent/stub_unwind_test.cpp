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

}  // namespace
}  // namespace stackscope::agent
