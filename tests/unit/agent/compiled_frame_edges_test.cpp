// The prologue and epilogue reader, on the instruction bytes HotSpot emitted for small methods
// on JDK 17 and 25 (seen at the pcs where AsyncGetCallTrace gave up in a megamorphic loop).
#include "agent/compiled_frame_edges.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <vector>

namespace stackscope::agent {
namespace {

constexpr StackBounds kStack{0x1000, 0x2000};
constexpr uintptr_t kSp = 0x1800;
constexpr uintptr_t kFp = 0x1f00;       // the caller's rbp, untouched until the prologue saves it
constexpr uintptr_t kCodeBase = 0x40000;  // code_begin

// Stack words: a read outside the used stack, or of a word nobody wrote, fails the test.
struct FakeStack {
  std::map<uintptr_t, uint64_t> words;
  uint64_t operator()(uintptr_t addr) const {
    EXPECT_TRUE(usedStackWord(addr, kSp, kStack)) << std::hex << addr;
    auto it = words.find(addr);
    EXPECT_NE(it, words.end()) << "read of an unwritten word at " << std::hex << addr;
    return it == words.end() ? 0 : it->second;
  }
};

// Code bytes: a read outside the method's code fails the test.
struct FakeCode {
  std::vector<uint8_t> bytes;
  uint8_t operator()(uintptr_t addr) const {
    EXPECT_TRUE(addr >= kCodeBase && addr < kCodeBase + bytes.size()) << std::hex << addr;
    return addr >= kCodeBase && addr < kCodeBase + bytes.size() ? bytes[addr - kCodeBase] : 0;
  }
};

// A method laid out as C2 emits it: `entry` bytes of inline-cache check, then the prologue at
// the verified entry, the frame complete at `complete`, a body of nops, then `epilogue`.
struct Method {
  FakeCode code;
  CompiledMethodCode nm;
  uintptr_t epilogue = 0;

  Method(std::vector<uint8_t> prologue, uint32_t complete_after, uint32_t frame_words, std::vector<uint8_t> tail) {
    constexpr uint32_t kEntry = 16;
    code.bytes.assign(kEntry, 0x90);
    code.bytes.insert(code.bytes.end(), prologue.begin(), prologue.end());
    code.bytes.insert(code.bytes.end(), 8, 0x90);  // the body
    epilogue = kCodeBase + code.bytes.size();
    code.bytes.insert(code.bytes.end(), tail.begin(), tail.end());
    nm = {kCodeBase, kCodeBase + code.bytes.size(), kCodeBase + kEntry, kCodeBase + kEntry + complete_after,
          frame_words, reinterpret_cast<const void*>(0x8000)};
  }
  uintptr_t at(uint32_t prologue_offset) const { return nm.verified_entry + prologue_offset; }
};

// JDK 17 and 25, C2, no stack bang: sub $0x18,%rsp; mov %rbp,0x10(%rsp); then the nmethod
// entry barrier (cmpl $0,0x20(%r15); jne), all before the frame is complete; a 4-word frame.
const std::vector<uint8_t> kSubPrologue = {0x48, 0x81, 0xec, 0x18, 0, 0, 0, 0x48, 0x89, 0x6c, 0x24, 0x10,
                                           0x41, 0x81, 0x7f, 0x20, 0, 0, 0, 0, 0x0f, 0x85, 1, 0, 0, 0};
// JDK 17's return: add $0x10,%rsp; pop %rbp; cmp 0x340(%r15),%rsp; ja stub; ret
const std::vector<uint8_t> kEpilogue17 = {0x48, 0x83, 0xc4, 0x10, 0x5d, 0x49, 0x3b, 0xa7, 0x40, 0x03, 0,
                                          0,    0x0f, 0x87, 1,    0,    0,    0,    0xc3};
// JDK 25's: the poll word is at 0x28(%r15), a one-byte displacement.
const std::vector<uint8_t> kEpilogue25 = {0x48, 0x83, 0xc4, 0x10, 0x5d, 0x49, 0x3b, 0x67, 0x28,
                                          0x0f, 0x87, 1,    0,    0,    0,    0xc3};

Method subMethod() { return Method(kSubPrologue, static_cast<uint32_t>(kSubPrologue.size()), 4, kEpilogue17); }

TEST(CompiledFrameEdges, BeforeTheFirstInstructionTheReturnAddressIsOnTop) {
  const Method method = subMethod();
  FakeStack stack;
  stack.words[kSp] = 0xca11e4;
  for (const uintptr_t pc : {method.nm.code_begin, method.nm.code_begin + 5, method.at(0)}) {
    WalkRegisters caller;
    ASSERT_TRUE(callerOfFrameEdge(method.nm, {pc, kSp, kFp}, kStack, stack, method.code, caller)) << std::hex << pc;
    EXPECT_EQ(caller.pc, 0xca11e4u);
    EXPECT_EQ(caller.sp, kSp + 8);
    EXPECT_EQ(caller.fp, kFp);
  }
}

TEST(CompiledFrameEdges, AfterTheSubTheReturnAddressIsAboveTheNewFrame) {
  const Method method = subMethod();
  FakeStack stack;
  stack.words[kSp + 0x18] = 0xca11e4;
  // At the save of rbp, at the entry barrier and at its jne: sp moved by 0x18 in every case.
  for (const uint32_t offset : {7u, 12u, 20u}) {
    WalkRegisters caller;
    ASSERT_TRUE(callerOfFrameEdge(method.nm, {method.at(offset), kSp, kFp}, kStack, stack, method.code, caller))
        << offset;
    EXPECT_EQ(caller.pc, 0xca11e4u);
    EXPECT_EQ(caller.sp, kSp + 0x20);
    EXPECT_EQ(caller.fp, kFp) << "rbp is saved, not changed";
  }
}

TEST(CompiledFrameEdges, AnUnknownInstructionIsPassedOnlyWithTheWholeFrameBuilt) {
  // The same code, but the blob says the frame has 5 words: the 0x18 bytes seen do not make
  // the frame, so what the instruction at 12 (the entry barrier) did to sp is not known at its
  // jne. At 12 itself it has not run yet: sp moved by the 0x18 seen.
  Method method = subMethod();
  method.nm.frame_words = 5;
  FakeStack stack;
  stack.words[kSp + 0x18] = 0xca11e4;
  WalkRegisters caller;
  EXPECT_FALSE(callerOfFrameEdge(method.nm, {method.at(20), kSp, kFp}, kStack, stack, method.code, caller));
  EXPECT_TRUE(callerOfFrameEdge(method.nm, {method.at(12), kSp, kFp}, kStack, stack, method.code, caller));
}

TEST(CompiledFrameEdges, StackBangThenPush) {
  // C1 and C2 with a stack bang: mov %eax,-0x14000(%rsp); push %rbp; sub $0x20,%rsp (6 words).
  const Method method({0x89, 0x84, 0x24, 0x00, 0xc0, 0xfe, 0xff, 0x55, 0x48, 0x83, 0xec, 0x20}, 12, 6, kEpilogue25);
  FakeStack stack;
  stack.words[kSp] = 0xca11e4;
  stack.words[kSp + 8] = 0xca11e5;
  WalkRegisters caller;
  ASSERT_TRUE(callerOfFrameEdge(method.nm, {method.at(7), kSp, kFp}, kStack, stack, method.code, caller));
  EXPECT_EQ(caller.pc, 0xca11e4u) << "at the push, after the bang: nothing pushed yet";
  ASSERT_TRUE(callerOfFrameEdge(method.nm, {method.at(8), kSp, kFp}, kStack, stack, method.code, caller));
  EXPECT_EQ(caller.pc, 0xca11e5u) << "after the push";
  EXPECT_EQ(caller.sp, kSp + 16);
  EXPECT_EQ(caller.fp, kFp);
}

TEST(CompiledFrameEdges, PreserveFramePointerTakesTheCallersFpFromItsSlot) {
  // push %rbp; mov %rsp,%rbp; sub $0x10,%rsp: from the mov on, rbp is this frame's.
  const Method method({0x55, 0x48, 0x89, 0xe5, 0x48, 0x83, 0xec, 0x10}, 8, 4, kEpilogue25);
  FakeStack stack;
  stack.words[kSp] = 0x1ee0;  // pushed rbp, sp = entry sp - 8
  stack.words[kSp + 8] = 0xca11e4;
  WalkRegisters caller;
  ASSERT_TRUE(callerOfFrameEdge(method.nm, {method.at(4), kSp, kSp}, kStack, stack, method.code, caller));
  EXPECT_EQ(caller.pc, 0xca11e4u);
  EXPECT_EQ(caller.sp, kSp + 16);
  EXPECT_EQ(caller.fp, 0x1ee0u);
}

TEST(CompiledFrameEdges, APcInsideAnInstructionIsNotAPrologueKnownHere) {
  const Method method = subMethod();
  FakeStack stack;
  WalkRegisters caller;
  EXPECT_FALSE(callerOfFrameEdge(method.nm, {method.at(3), kSp, kFp}, kStack, stack, method.code, caller));
}

TEST(CompiledFrameEdges, AnUnknownPrologueGivesUp) {
  // enter $0x10,$0: a frame set-up HotSpot does not emit, so not one to guess about.
  const Method method({0xc8, 0x10, 0x00, 0x00}, 4, 4, kEpilogue25);
  FakeStack stack;
  WalkRegisters caller;
  EXPECT_FALSE(callerOfFrameEdge(method.nm, {method.at(4) - 1, kSp, kFp}, kStack, stack, method.code, caller));
}

TEST(CompiledFrameEdges, EpilogueAtPopRbp) {
  const Method method = subMethod();
  FakeStack stack;
  stack.words[kSp] = 0x1ee0;  // the saved rbp
  stack.words[kSp + 8] = 0xca11e4;
  WalkRegisters caller;
  ASSERT_TRUE(callerOfFrameEdge(method.nm, {method.epilogue + 4, kSp, 0x1234}, kStack, stack, method.code, caller));
  EXPECT_EQ(caller.pc, 0xca11e4u);
  EXPECT_EQ(caller.sp, kSp + 16);
  EXPECT_EQ(caller.fp, 0x1ee0u);
}

TEST(CompiledFrameEdges, EpilogueAfterPopRbpOnBothPollEncodings) {
  FakeStack stack;
  stack.words[kSp] = 0xca11e4;
  const Method jdk17 = subMethod();
  const Method jdk25(kSubPrologue, static_cast<uint32_t>(kSubPrologue.size()), 4, kEpilogue25);
  // The poll, the ja after it, the ret.
  for (const auto& [method, offsets] : {std::pair{&jdk17, std::vector<uint32_t>{5, 12, 18}},
                                        std::pair{&jdk25, std::vector<uint32_t>{5, 9, 15}}}) {
    for (const uint32_t offset : offsets) {
      WalkRegisters caller;
      ASSERT_TRUE(callerOfFrameEdge(method->nm, {method->epilogue + offset, kSp, kFp}, kStack, stack, method->code,
                                    caller))
          << offset;
      EXPECT_EQ(caller.pc, 0xca11e4u);
      EXPECT_EQ(caller.sp, kSp + 8);
      EXPECT_EQ(caller.fp, kFp) << "pop %rbp gave the caller's back";
    }
  }
}

TEST(CompiledFrameEdges, TheBodyIsNotAnEdge) {
  const Method method = subMethod();
  FakeStack stack;
  WalkRegisters caller;
  EXPECT_FALSE(callerOfFrameEdge(method.nm, {method.nm.frame_complete + 2, kSp, kFp}, kStack, stack, method.code,
                                 caller))
      << "a nop in the body";
  EXPECT_FALSE(callerOfFrameEdge(method.nm, {method.epilogue, kSp, kFp}, kStack, stack, method.code, caller))
      << "at the add: the frame is whole, AsyncGetCallTrace's business";
}

TEST(CompiledFrameEdges, APollWithoutPopBeforeItIsNotAReturn) {
  // The poll encoding in the body (not after pop %rbp): the frame is still there.
  const Method method(kSubPrologue, static_cast<uint32_t>(kSubPrologue.size()), 4,
                      {0x90, 0x49, 0x3b, 0xa7, 0x40, 0x03, 0, 0, 0x0f, 0x87, 1, 0, 0, 0});
  FakeStack stack;
  WalkRegisters caller;
  EXPECT_FALSE(callerOfFrameEdge(method.nm, {method.epilogue + 1, kSp, kFp}, kStack, stack, method.code, caller));
  EXPECT_FALSE(callerOfFrameEdge(method.nm, {method.epilogue + 8, kSp, kFp}, kStack, stack, method.code, caller));
}

TEST(CompiledFrameEdges, NoReadOutsideTheUsedStack) {
  const Method method = subMethod();
  FakeStack stack;
  WalkRegisters caller;
  // sp 8 bytes below the base: the return slot 0x18 above it is past the base.
  EXPECT_FALSE(callerOfFrameEdge(method.nm, {method.at(7), kStack.base - 8, kFp}, kStack, stack, method.code, caller));
  EXPECT_FALSE(callerOfFrameEdge(method.nm, {method.at(0), kSp, kFp}, StackBounds{}, stack, method.code, caller))
      << "unknown stack";
  EXPECT_FALSE(callerOfFrameEdge(method.nm, {method.nm.code_end, kSp, kFp}, kStack, stack, method.code, caller))
      << "pc outside the method";
}

}  // namespace
}  // namespace stackscope::agent
