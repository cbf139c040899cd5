// The one write into the VM (vm_thread_anchor.h): a thread's frame anchor gets the pc HotSpot
// would compute (the word below its sp) only in the states where no other thread reads the
// anchor, only when it has an sp and no pc. Over a fake JavaThread found through fake
// structure tables (fake_vm_tables.h) and a fake stack.
#include "agent/vm_thread_anchor.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <map>
#include <string>

#include "fake_vm_tables.h"

namespace stackscope::agent {
namespace {

// HotSpot's JavaThreadState values (the same on JDK 17 and 25).
constexpr int32_t kInNative = 4, kInVm = 6, kInVmTrans = 7, kInJava = 8, kBlocked = 10, kBlockedTrans = 11;

// Shaped like the parts of a JavaThread the anchor reads: found by offset, as in the VM.
struct FakeAnchor {
  uintptr_t last_sp = 0, last_fp = 0, last_pc = 0;
};
struct FakeJavaThread {
  uint64_t other = 0;
  FakeAnchor anchor;
  int32_t state = 0;
  void* jni_environment = nullptr;  // where its JNIEnv lies
};

struct FakeVm {
  FakeStructEntry structs[6] = {
      {"JavaThread", "_anchor", "JavaFrameAnchor", 0, offsetof(FakeJavaThread, anchor), nullptr},
      {"JavaFrameAnchor", "_last_Java_sp", "intptr_t*", 0, offsetof(FakeAnchor, last_sp), nullptr},
      {"JavaFrameAnchor", "_last_Java_fp", "intptr_t*", 0, offsetof(FakeAnchor, last_fp), nullptr},
      {"JavaFrameAnchor", "_last_Java_pc", "address", 0, offsetof(FakeAnchor, last_pc), nullptr},
      {"JavaThread", "_thread_state", "JavaThreadState", 0, offsetof(FakeJavaThread, state), nullptr},
      {nullptr, nullptr, nullptr, 0, 0, nullptr}};
  FakeTypeEntry types[2] = {{"JavaThreadState", nullptr, 0, 1, 0, 4}, {nullptr, nullptr, 0, 0, 0, 0}};
  FakeIntConstant constants[7] = {{"_thread_in_native", kInNative}, {"_thread_in_vm", kInVm},
                                  {"_thread_in_vm_trans", kInVmTrans}, {"_thread_in_Java", kInJava},
                                  {"_thread_blocked", kBlocked}, {"_thread_blocked_trans", kBlockedTrans},
                                  {nullptr, 0}};
  FakeStructEntry* structs_pointer = structs;
  FakeTypeEntry* types_pointer = types;
  FakeIntConstant* constants_pointer = constants;
  std::map<std::string, uint64_t> layout = fakeTableLayout();
};

FakeVm* g_vm = nullptr;

void* fakeLookup(const char* name) {
  if (std::strcmp(name, "gHotSpotVMStructs") == 0) return &g_vm->structs_pointer;
  if (std::strcmp(name, "gHotSpotVMTypes") == 0) return &g_vm->types_pointer;
  if (std::strcmp(name, "gHotSpotVMIntConstants") == 0) return &g_vm->constants_pointer;
  auto it = g_vm->layout.find(name);
  return it == g_vm->layout.end() ? nullptr : &it->second;
}

constexpr uintptr_t kReturnAddress = 0x7f00'1234'5678;

class VmThreadAnchorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    g_vm = &vm_;
    ASSERT_TRUE(structs_.bind(fakeLookup));
    ASSERT_TRUE(anchor_.bind(structs_, offsetof(FakeJavaThread, jni_environment)));
    // The thread's stack: interrupted at stack_[2], its last Java frame's sp at stack_[6],
    // the call that left Java pushed its return address just below that sp.
    bounds_ = {reinterpret_cast<uintptr_t>(&stack_[0]), reinterpret_cast<uintptr_t>(&stack_[16])};
    stack_[5] = kReturnAddress;
    thread_.anchor.last_sp = reinterpret_cast<uintptr_t>(&stack_[6]);
  }
  void TearDown() override { g_vm = nullptr; }

  bool makeWalkableIn(int32_t state) {
    thread_.state = state;
    return anchor_.makeWalkable(env(), reinterpret_cast<uintptr_t>(&stack_[2]), bounds_);
  }
  JNIEnv* env() { return reinterpret_cast<JNIEnv*>(&thread_.jni_environment); }

  FakeVm vm_;
  VmStructs structs_;
  VmThreadAnchor anchor_;
  FakeJavaThread thread_;
  uintptr_t stack_[16] = {};
  StackBounds bounds_;
};

TEST_F(VmThreadAnchorTest, AThreadInTheVmGetsThePcBelowItsLastJavaSp) {
  EXPECT_TRUE(makeWalkableIn(kInVm));
  EXPECT_EQ(thread_.anchor.last_pc, kReturnAddress);
}

// On its way out of the VM (polling for a safepoint before it blocks or returns), the thread
// is no more safepoint-safe than in it: HotSpot 17 samples there kept a VM frame alone.
TEST_F(VmThreadAnchorTest, AThreadLeavingTheVmGetsItToo) {
  EXPECT_TRUE(makeWalkableIn(kInVmTrans));
  EXPECT_EQ(thread_.anchor.last_pc, kReturnAddress);
}

// Blocked or in native, other threads may walk the stack from the anchor; in Java it is not
// the thread's last frame.
TEST_F(VmThreadAnchorTest, NoOtherStateIsWrittenTo) {
  for (const int32_t state : {kInNative, kInJava, kBlocked, kBlockedTrans}) {
    EXPECT_FALSE(makeWalkableIn(state)) << state;
    EXPECT_EQ(thread_.anchor.last_pc, 0u) << state;
  }
}

TEST_F(VmThreadAnchorTest, AnAnchorWithAPcOrWithoutAnSpIsLeftAlone) {
  thread_.anchor.last_pc = 0x42;
  EXPECT_FALSE(makeWalkableIn(kInVm));
  EXPECT_EQ(thread_.anchor.last_pc, 0x42u);
  thread_.anchor.last_pc = 0;
  thread_.anchor.last_sp = 0;
  EXPECT_FALSE(makeWalkableIn(kInVmTrans));
  EXPECT_EQ(thread_.anchor.last_pc, 0u);
}

// The word below the sp must lie in the thread's used stack: an sp outside it is not read.
TEST_F(VmThreadAnchorTest, AnSpOutsideTheUsedStackIsNotRead) {
  // The word below this sp lies under the interrupted sp (stack_[2]).
  thread_.anchor.last_sp = reinterpret_cast<uintptr_t>(&stack_[2]);
  EXPECT_FALSE(makeWalkableIn(kInVm));
  EXPECT_EQ(thread_.anchor.last_pc, 0u);
}

TEST_F(VmThreadAnchorTest, AVmThatDoesNotNameTheLeavingStateWritesOnlyInTheVm) {
  vm_.constants[2] = {"_thread_unknown", 99};
  VmStructs structs;
  ASSERT_TRUE(structs.bind(fakeLookup));
  ASSERT_TRUE(anchor_.bind(structs, offsetof(FakeJavaThread, jni_environment)));
  EXPECT_FALSE(makeWalkableIn(kInVmTrans));
  EXPECT_EQ(thread_.anchor.last_pc, 0u);
  EXPECT_TRUE(makeWalkableIn(kInVm));
}

}  // namespace
}  // namespace stackscope::agent
