// The CFI unwinder (native/cfi_rules.h, native/native_stack_walk.h) on hand-made tables whose
// rules are known by construction, on this test binary's own .eh_frame, and on a C program
// built without frame pointers (tests/native_programs/cfi_chain.c).
#include "native/cfi_rules.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "child_process.h"
#include "native/native_stack_walk.h"
#include "native/unwind_modules.h"
#include "tests/unit/native/hand_made_cfi.h"

namespace stackscope::native {
namespace {

FrameRule ruleAt(const CfiTables& tables, uintptr_t pc, CfiResult expected = CfiResult::Found) {
  FrameRule rule;
  EXPECT_EQ(frameRuleAt(tables, pc, rule), expected) << std::hex << pc;
  return rule;
}

// A frameless function: push rbx (1 byte), sub $0x20,%rsp (4), body, an early return between
// remember_state and restore_state at 0x30, the final epilogue at 0x40.
Bytes framelessFunction() {
  return joined({advance(1), defCfaOffset(16), offsetOf(3, 2), advance(4), defCfaOffset(48), advance(0x2b),
                 rememberState(), defCfaOffset(8), advance(1), restoreState(), advance(0xf), defCfaOffset(8)});
}


// Both functions, the frameless one at 0x100, the other at 0x200, under one CIE.
CfiTables bothFunctions(HandMadeTables& made) {
  const size_t cie = made.cie();
  made.fde(cie, 0x100, 0x48, framelessFunction());
  made.fde(cie, 0x200, 0x28, framePointerFunction());
  return made.finish();
}

TEST(CfiRules, FollowTheCfaOffsetInstructionByInstructionOfAFramelessFunction) {
  HandMadeTables made;
  made.fde(made.cie(), 0x100, 0x48, framelessFunction());
  const CfiTables tables = made.finish();
  const uintptr_t f = made.code(0x100);
  struct Expected {
    uintptr_t pc;
    int64_t cfa_offset;
  };
  for (const Expected& at : {Expected{f, 8}, {f + 1, 16}, {f + 4, 16}, {f + 5, 48}, {f + 0x2f, 48}, {f + 0x30, 8},
                             {f + 0x31, 48}, {f + 0x3f, 48}, {f + 0x40, 8}, {f + 0x47, 8}}) {
    const FrameRule rule = ruleAt(tables, at.pc);
    EXPECT_EQ(rule.cfa_register, FrameRule::Cfa::Rsp) << std::hex << at.pc - f;
    EXPECT_EQ(rule.cfa_offset, at.cfa_offset) << std::hex << at.pc - f;
    EXPECT_FALSE(rule.rbp_saved);
    EXPECT_FALSE(rule.outermost);
  }
}

TEST(CfiRules, FindRbpSavedAndTheCfaOnRbpInAFramePointerFunction) {
  HandMadeTables made;
  made.fde(made.cie(), 0x200, 0x28, framePointerFunction());
  const CfiTables tables = made.finish();
  const uintptr_t f = made.code(0x200);
  FrameRule rule = ruleAt(tables, f + 3);
  EXPECT_EQ(rule.cfa_register, FrameRule::Cfa::Rsp);
  EXPECT_EQ(rule.cfa_offset, 16);
  EXPECT_TRUE(rule.rbp_saved);
  EXPECT_EQ(rule.rbp_offset, -16);
  rule = ruleAt(tables, f + 0x10);
  EXPECT_EQ(rule.cfa_register, FrameRule::Cfa::Rbp);
  EXPECT_EQ(rule.cfa_offset, 16);
  EXPECT_TRUE(rule.rbp_saved);
  rule = ruleAt(tables, f + 0x20);
  EXPECT_EQ(rule.cfa_register, FrameRule::Cfa::Rsp);
  EXPECT_EQ(rule.cfa_offset, 8);
}

TEST(CfiRules, PickTheFunctionByTheSearchTableAndKnowNoneOutsideTheFdes) {
  HandMadeTables made;
  const size_t cie = made.cie();
  made.fde(cie, 0x300, 0x10, joined({advance(1), defCfaOffset(24)}));
  made.fde(cie, 0x100, 0x48, framelessFunction());
  made.fde(cie, 0x200, 0x28, framePointerFunction());
  const CfiTables tables = made.finish();
  EXPECT_EQ(ruleAt(tables, made.code(0x105)).cfa_offset, 48);
  EXPECT_EQ(ruleAt(tables, made.code(0x210)).cfa_register, FrameRule::Cfa::Rbp);
  EXPECT_EQ(ruleAt(tables, made.code(0x305)).cfa_offset, 24);
  ruleAt(tables, made.code(0xff), CfiResult::NoEntry);   // before the first function
  ruleAt(tables, made.code(0x148), CfiResult::NoEntry);  // past the first one's end
  ruleAt(tables, made.code(0x310), CfiResult::NoEntry);  // past the last one
}

TEST(CfiRules, GiveNoRuleForACfaExpressionAnUnknownInstructionOrAReturnAddressElsewhere) {
  HandMadeTables made;
  const size_t cie = made.cie();
  // A PLT entry's: CFA = rsp + 8 + ((rip & 15) >= 11) * 8, as a DWARF expression.
  made.fde(cie, 0x100, 0x10, Bytes{0x0f, 0x0b, 0x77, 0x08, 0x80, 0x00, 0x3f, 0x1a, 0x3b, 0x2a, 0x33, 0x24, 0x22});
  made.fde(cie, 0x200, 0x10, Bytes{0x3c});                             // no such instruction
  made.fde(cie, 0x300, 0x10, joined({advance(1), {0x09, 16, 0}}));     // return address in rax
  const CfiTables tables = made.finish();
  ruleAt(tables, made.code(0x104), CfiResult::Unsupported);
  ruleAt(tables, made.code(0x204), CfiResult::Unsupported);
  ruleAt(tables, made.code(0x300), CfiResult::Found);  // before the rule changes
  ruleAt(tables, made.code(0x304), CfiResult::Unsupported);
}

TEST(CfiRules, SayTheOutermostFrameHasNoCaller) {
  HandMadeTables made;
  made.fde(made.cie(), 0x100, 0x20, undefinedRegister(16));
  EXPECT_TRUE(ruleAt(made.finish(), made.code(0x110)).outermost);
}

// Every cut of the tables and every byte changed: an answer or a refusal, never a read outside
// the bytes (run under a sanitizer to see one; here at least no crash and no loop).
TEST(CfiRules, SurviveTruncatedAndCorruptedTables) {
  HandMadeTables made;
  const CfiTables whole = bothFunctions(made);
  Bytes copy(whole.bytes, whole.bytes + whole.size);
  const uintptr_t pcs[] = {made.code(0x105), made.code(0x131), made.code(0x210)};
  for (size_t size = 0; size < whole.size; ++size) {
    Bytes cut(whole.bytes, whole.bytes + size);
    const CfiTables tables{cut.data(), whole.address, size, whole.address};
    FrameRule rule;
    for (uintptr_t pc : pcs) frameRuleAt(tables, pc, rule);
  }
  int found = 0;
  for (size_t at = 0; at < copy.size(); ++at) {
    for (uint8_t value : {uint8_t{0x00}, uint8_t{0xff}, uint8_t{0x80}, uint8_t{0x0f}}) {
      Bytes changed = copy;
      changed[at] = value;
      const CfiTables tables{changed.data(), whole.address, changed.size(), whole.address};
      FrameRule rule;
      for (uintptr_t pc : pcs) found += frameRuleAt(tables, pc, rule) == CfiResult::Found;
    }
  }
  EXPECT_GT(found, 0);  // a change in padding leaves the answers as they were
}

// A stack built by hand: frameless function f (CFA rsp + 48) called by frame-pointer function
// g (CFA rbp + 16, rbp saved at CFA - 16), called from code without CFI whose frame pointer
// chain goes on to a return address 0 (the end). The walk reads all three callers.
TEST(NativeStackWalk, StepsByTheCfiThenByTheFramePointerWhereThereIsNone) {
  HandMadeTables made;
  const CfiTables tables = bothFunctions(made);
  const UnwindModule module{made.code(0), made.code(0x1000), tables};
  const UnwindModules modules{&module, 1};

  uintptr_t words[64] = {};
  const auto at = [&words](int index) { return reinterpret_cast<uintptr_t>(&words[index]); };
  const StackBounds stack{at(0), at(64)};
  // f interrupted at 0x10 with rsp = words[2]: CFA = rsp + 48 = words[8], return at words[7].
  const uintptr_t return_into_g = made.code(0x211);
  words[7] = return_into_g;
  // g: CFA = rbp + 16 with rbp = words[10]: its caller's rbp at words[10], return at words[11].
  const uintptr_t return_into_no_cfi = made.code(0x2000);
  words[10] = at(20);  // the caller's frame pointer
  words[11] = return_into_no_cfi;
  // Code without CFI, by its frame pointer words[20]: the next return address, then 0.
  const uintptr_t return_outer = made.code(0x3000);
  words[20] = at(30);
  words[21] = return_outer;
  words[30] = at(40);
  words[31] = 0;
  const WalkRegisters regs{made.code(0x110), at(2), at(10)};  // f keeps g's rbp untouched
  uintptr_t out[8];
  const auto read = [](uintptr_t address) { return *reinterpret_cast<const uintptr_t*>(address); };
  const int count = walkNativeStack(regs, stack, &modules, read, [](uintptr_t) { return false; }, out, 8);
  ASSERT_EQ(count, 4);
  EXPECT_EQ(out[0], made.code(0x110));
  EXPECT_EQ(out[1], return_into_g);
  EXPECT_EQ(out[2], return_into_no_cfi);
  EXPECT_EQ(out[3], return_outer);

  // By frame pointers alone the frameless f hides g: rbp is g's, whose return address comes next.
  const int by_fp = walkFramePointers(regs, stack, read, [](uintptr_t) { return false; }, out, 8);
  ASSERT_GE(by_fp, 2);
  EXPECT_EQ(out[1], return_into_no_cfi);
}

// A CFA the rule puts outside the used stack ends the walk there: no frame is guessed.
TEST(NativeStackWalk, EndsWhereTheCfaLeavesTheStack) {
  HandMadeTables made;
  made.fde(made.cie(), 0x100, 0x48, framelessFunction());
  const CfiTables tables = made.finish();
  const UnwindModule module{made.code(0), made.code(0x1000), tables};
  const UnwindModules modules{&module, 1};
  uintptr_t words[4] = {};
  const StackBounds stack{reinterpret_cast<uintptr_t>(&words[0]), reinterpret_cast<uintptr_t>(&words[4])};
  const WalkRegisters regs{made.code(0x110), reinterpret_cast<uintptr_t>(&words[0]), 0};
  uintptr_t out[4];
  const auto read = [](uintptr_t address) { return *reinterpret_cast<const uintptr_t*>(address); };
  EXPECT_EQ(walkNativeStack(regs, stack, &modules, read, [](uintptr_t) { return false; }, out, 4), 1);
}

// To the thread's first function: a chain counts only when it ends at a function whose CFI
// says it has no caller (clone3's child half). A function g with a frame pointer (at 0x200)
// was called by the first function (at 0x400); code without CFI whose frame pointer leads to
// a zero return address is no end, and neither is running out of room.
TEST(NativeStackWalk, ToTheFirstFunctionOnlyAWholeChainCounts) {
  HandMadeTables made;
  const size_t cie = made.cie();
  made.fde(cie, 0x200, 0x28, framePointerFunction());
  made.fde(cie, 0x400, 0x20, undefinedRegister(16));
  const CfiTables tables = made.finish();
  const UnwindModule module{made.code(0), made.code(0x1000), tables};
  const UnwindModules modules{&module, 1};
  uintptr_t words[32] = {};
  const auto at = [&words](int index) { return reinterpret_cast<uintptr_t>(&words[index]); };
  const StackBounds stack{at(0), at(32)};
  const auto read = [](uintptr_t address) { return *reinterpret_cast<const uintptr_t*>(address); };
  // g's frame: rbp = words[10], its caller's rbp there, the return into the first function next.
  words[10] = at(20);
  words[11] = made.code(0x411);
  const WalkRegisters returned_into_g{made.code(0x211), at(4), at(10)};
  uintptr_t out[4];
  ASSERT_EQ(walkToFirstFunction(returned_into_g, at(0), stack, &modules, read, out, 4), 2);
  EXPECT_EQ(out[0], made.code(0x211));
  EXPECT_EQ(out[1], made.code(0x411));
  EXPECT_EQ(walkToFirstFunction(returned_into_g, at(0), stack, &modules, read, out, 1), -1) << "no room for the end";

  words[11] = made.code(0x3000);  // returns into code without CFI, whose frame pointer leads to 0
  words[20] = at(24);
  words[21] = 0;
  EXPECT_EQ(walkToFirstFunction(returned_into_g, at(0), stack, &modules, read, out, 4), -1);
  EXPECT_EQ(walkToFirstFunction(returned_into_g, at(0), stack, nullptr, read, out, 4), -1) << "no CFI, no end";
}

__attribute__((noinline)) int ownFunction(int x) { return x * 7 + 1; }

// This binary's own .eh_frame, found through the loader's list: at a function's first
// instruction the CFA is rsp + 8 (the call just pushed the return address), by the ABI.
TEST(UnwindModules, FindThisBinarysFunctionsAndTheirEntryRule) {
  refreshLoadedUnwindModules();
  const UnwindModules* modules = loadedUnwindModules();
  ASSERT_NE(modules, nullptr);
  const auto entry = reinterpret_cast<uintptr_t>(&ownFunction);
  const UnwindModule* module = modules->find(entry);
  ASSERT_NE(module, nullptr);
  ASSERT_NE(module->tables.bytes, nullptr);
  const FrameRule rule = ruleAt(module->tables, entry);
  EXPECT_EQ(rule.cfa_register, FrameRule::Cfa::Rsp);
  EXPECT_EQ(rule.cfa_offset, 8);
  EXPECT_FALSE(rule.outermost);
  const auto libc_function = reinterpret_cast<uintptr_t>(&::strlen);
  ASSERT_NE(modules->find(libc_function), nullptr);
  EXPECT_EQ(modules->find(0x10), nullptr);
  EXPECT_EQ(ownFunction(1), 8);
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::istringstream stream(text);
  for (std::string part; std::getline(stream, part, separator);) parts.push_back(part);
  return parts;
}

// cfi_chain.c's main -> chain_c -> chain_b -> chain_a without frame pointers, walked 200 times
// from a SIGPROF in chain_a. Truth by construction: each walk from chain_a is chain_a,
// chain_b, chain_c, main and then libc's start of the program down to _start, whose CFI says
// it has no caller. Tolerance: none for the CFI walk (the CFI describes every instruction);
// the frame-pointer walk of the same signals must miss the chain (or the program kept frame
// pointers and the test proves nothing).
TEST(NativeStackWalk, WalksAChainWithoutFramePointersFromASignalContextInOrder) {
  testing::ChildProcess chain(CFI_CHAIN, {});
  ASSERT_GT(chain.pid(), 0);
  const std::vector<std::string> lines = chain.readAllLines();
  ASSERT_EQ(chain.finish(), 0);
  int cfi_in_a = 0, cfi_whole = 0, fp_in_a = 0, fp_whole = 0;
  std::string wrong;
  for (const std::string& line : lines) {
    const bool cfi = line.starts_with("cfi:");
    if (!cfi && !line.starts_with("fp:")) continue;
    const std::vector<std::string> frames = split(line.substr(line.find(':') + 1), ';');
    if (frames.empty() || frames[0] != "chain_a") continue;
    const bool whole = frames.size() >= 5 && frames[1] == "chain_b" && frames[2] == "chain_c" && frames[3] == "main" &&
                       frames.back() == "_start";
    (cfi ? cfi_in_a : fp_in_a)++;
    (cfi ? cfi_whole : fp_whole) += whole;
    if (cfi && !whole) wrong += line + "\n";
  }
  ASSERT_GT(cfi_in_a, 100) << "too few walks in chain_a to judge";
  EXPECT_EQ(cfi_whole, cfi_in_a) << wrong;
  EXPECT_LT(fp_whole, fp_in_a / 2) << "the program kept frame pointers: the test proves nothing";
}

}  // namespace
}  // namespace stackscope::native
