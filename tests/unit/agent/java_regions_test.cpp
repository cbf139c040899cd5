#include "agent/java_regions.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>

namespace stackscope::agent {
namespace {

// A fake stack [0x1000, 0x2000) built as HotSpot lays out a JNI method calling back into Java,
// innermost first (addresses grow toward the base):
//   0x1100  compiled callback frame, 4 words, called from
//   0x1180  an interpreted frame (fp), called by the call stub
//   0x1300  entry frame (the call stub's fp); its JavaCallWrapper at 0x1320
//   0x1340, 0x1380, 0x13c0  native frames: JavaCalls::call_helper, jni_Call..., the C function
//   0x13d0  the native method's compiled wrapper (sp), 6 words, called by the call stub
//   0x1500  the outermost entry frame; its wrapper at 0x1520 saved no anchor
// Reading a word nobody wrote, or outside the stack, fails the test.
constexpr StackBounds kStack{0x1000, 0x2000};
constexpr uintptr_t kInterruptedSp = 0x1100;
constexpr uintptr_t kCallback = 0xa000, kNativeWrapper = 0xa100, kInterpreter = 0xb000, kCallStubReturn = 0xc000;
constexpr uintptr_t kCallHelper = 0xd000, kJniCall = 0xd100, kCFunction = 0xd200;
constexpr JavaFrameLayout kLayout{-6, -1, 0, 8, 16};

struct FakeStack {
  std::map<uintptr_t, uint64_t> words;
  uint64_t operator()(uintptr_t addr) const {
    EXPECT_TRUE(addr >= kInterruptedSp && addr + 8 <= kStack.base && addr % 8 == 0) << std::hex << addr;
    auto it = words.find(addr);
    EXPECT_NE(it, words.end()) << "read of an unwritten word at " << std::hex << addr;
    return it == words.end() ? 0 : it->second;
  }
};

FakeStack jniCallback() {
  FakeStack s;
  s.words[0x1118] = kInterpreter;      // the callback's return address
  s.words[0x1110] = 0x1180;            // the interpreted caller's fp, saved by the callback
  s.words[0x1188] = kCallStubReturn;   // the interpreted frame returns into the call stub
  s.words[0x1180] = 0x1300;            // the call stub's fp
  s.words[0x1178] = 0x1190;            // the interpreted frame's sender sp
  s.words[0x1300 - 48] = 0x1320;       // the entry frame's JavaCallWrapper
  s.words[0x1320] = 0x13d0;            // its anchor: the native wrapper's sp, fp, no pc
  s.words[0x1328] = 0x13f0;
  s.words[0x1330] = 0;
  s.words[0x1308] = kCallHelper + 5;   // the native chain below the entry frame
  s.words[0x1300] = 0x1340;
  s.words[0x1348] = kJniCall + 5;
  s.words[0x1340] = 0x1380;
  s.words[0x1388] = kCFunction + 5;
  s.words[0x1380] = 0x13c0;
  s.words[0x13c8] = kNativeWrapper;    // the C function returns into the native wrapper
  s.words[0x13c0] = 0x13f0;
  s.words[0x13f8] = kCallStubReturn;   // the native wrapper returns into the outer call stub
  s.words[0x13f0] = 0x1500;
  s.words[0x1500 - 48] = 0x1520;
  s.words[0x1520] = 0;                 // no anchor: native code with no Java frame under it
  return s;
}

CodeAtPc classify(uintptr_t pc) {
  if (pc == kCallStubReturn) return {CodeAtPc::Kind::CallStubReturn, 0};
  if (pc == kInterpreter) return {CodeAtPc::Kind::Interpreter, 0};
  if (pc == kCallback) return {CodeAtPc::Kind::Framed, 4};
  if (pc == kNativeWrapper) return {CodeAtPc::Kind::Framed, 6};
  return {};
}

bool inCodeCache(uintptr_t pc) { return classify(pc).kind != CodeAtPc::Kind::Unknown; }

TEST(JavaRegions, EachRegionEndsAtItsEntryFrameAndTheWrapperGivesTheNext) {
  const FakeStack stack = jniCallback();
  uintptr_t entry_fp = 0;
  WalkRegisters called;
  ASSERT_TRUE(entryFrameOf({kCallback, 0x1100, 0x9999}, kInterruptedSp, kStack, stack, classify, kLayout, entry_fp, called));
  EXPECT_EQ(entry_fp, 0x1300u) << "through the compiled frame's size and the interpreted frame's rbp";
  EXPECT_EQ(called.pc, kInterpreter) << "the interpreted frame is the one the call stub called";
  EXPECT_EQ(called.sp, 0x1120u);
  EXPECT_EQ(called.fp, 0x1180u);
  WalkRegisters below;
  bool bottom = true;
  ASSERT_TRUE(regionBelow(entry_fp, kInterruptedSp, kStack, stack, kLayout, below, bottom));
  EXPECT_FALSE(bottom);
  EXPECT_EQ(below.sp, 0x13d0u);
  EXPECT_EQ(below.fp, 0x13f0u);
  EXPECT_EQ(below.pc, kNativeWrapper) << "an anchor without a pc: the word below its sp";

  ASSERT_TRUE(entryFrameOf(below, kInterruptedSp, kStack, stack, classify, kLayout, entry_fp, called));
  EXPECT_EQ(entry_fp, 0x1500u);
  EXPECT_EQ(called.pc, kNativeWrapper) << "a region's top may be the frame the call stub called";
  EXPECT_EQ(called.sp, 0x13d0u);
  ASSERT_TRUE(regionBelow(entry_fp, kInterruptedSp, kStack, stack, kLayout, below, bottom));
  EXPECT_TRUE(bottom) << "the outermost call into Java";
}

TEST(JavaRegions, TheNativeFramesBetweenEndAtTheNextRegionsTop) {
  const FakeStack stack = jniCallback();
  uintptr_t pcs[8];
  ASSERT_EQ(nativeFramesBetween(0x1300, 0x13d0, kInterruptedSp, kStack, nullptr, stack, inCodeCache, pcs, 8), 3);
  EXPECT_EQ(pcs[0], kCallHelper + 5);
  EXPECT_EQ(pcs[1], kJniCall + 5);
  EXPECT_EQ(pcs[2], kCFunction + 5);
  EXPECT_EQ(nativeFramesBetween(0x1300, 0x13d0, kInterruptedSp, kStack, nullptr, stack, inCodeCache, pcs, 2), 2) << "at most max";
  // The anchor may be stored a few words above where the call is made (the stack aligned, an
  // intermediate call in the interpreter); a chain that reaches Java code further from the
  // next region's top is another stack's.
  EXPECT_EQ(nativeFramesBetween(0x1300, 0x13d0 + kMaxCallPadding, kInterruptedSp, kStack, nullptr, stack, inCodeCache, pcs, 8), 3);
  EXPECT_EQ(nativeFramesBetween(0x1300, 0x13d0 + kMaxCallPadding + 8, kInterruptedSp, kStack, nullptr, stack, inCodeCache, pcs, 8),
            -1);
}

TEST(JavaRegions, AFunctionWithoutAFramePointerCutsTheNativeFramesShort) {
  FakeStack stack = jniCallback();
  stack.words[0x1380] = 0x42;  // the C function's rbp was a plain register
  uintptr_t pcs[8];
  ASSERT_EQ(nativeFramesBetween(0x1300, 0x13d0, kInterruptedSp, kStack, nullptr, stack, inCodeCache, pcs, 8), 3);
  EXPECT_EQ(pcs[2], kCFunction + 5) << "its return address is still right";
}

TEST(JavaRegions, GivesUpOnCodeItDoesNotKnowOrAFrameThatDoesNotClimb) {
  FakeStack stack = jniCallback();
  uintptr_t entry_fp = 0;
  WalkRegisters called;
  EXPECT_FALSE(entryFrameOf({0x7777, 0x1100, 0}, kInterruptedSp, kStack, stack, classify, kLayout, entry_fp, called));
  stack.words[0x1178] = 0x1100;  // an interpreted frame whose sender sp lies above it
  EXPECT_FALSE(entryFrameOf({kCallback, 0x1100, 0}, kInterruptedSp, kStack, stack, classify, kLayout, entry_fp, called));
  // A wrapper that is not under the entry frame, or an anchor above it, is not one.
  stack = jniCallback();
  stack.words[0x1300 - 48] = 0x1200;
  WalkRegisters below;
  bool bottom = false;
  EXPECT_FALSE(regionBelow(0x1300, kInterruptedSp, kStack, stack, kLayout, below, bottom));
  stack = jniCallback();
  stack.words[0x1320] = 0x1200;
  EXPECT_FALSE(regionBelow(0x1300, kInterruptedSp, kStack, stack, kLayout, below, bottom));
}

}  // namespace
}  // namespace stackscope::agent
