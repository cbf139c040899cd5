// Mixed mode's native frames below a Java thread's outermost Java frame (agent/native_below.h):
// the launcher's main thread shows JavaMain and the thread's start under main, a thread Java
// started shows thread_native_entry under Thread.run, and a thread a C library attached
// through JNI shows the C function that called Java, never the one of an earlier call. In a
// recording made from the start and after an attach. A thread whose outermost Java method
// calls itself again from the call its bottom frame is in shows none (a walk that ended early
// at an upper frame of it could not be told apart); a thread whose caller's unwinding tables
// the agent reads only after its call into Java began shows them once they are read.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "folded_stacks.h"
#include "harness.h"

namespace it {
namespace {

using namespace std::chrono_literals;

class MixedModeBelow : public RecordingTest {};

const std::string kBottoms = kWorkloads + "StackBottoms.";

bool isJavaFrame(const std::string& frame) {
  for (const char* package : {"io.", "java.", "jdk.", "sun."}) {
    if (frame.starts_with(package)) return true;
  }
  return false;
}

// Whether, outermost first, the stack begins with __clone3 and start_thread, then has native
// frames only, among them `callers` in this order (each a name's beginning: C++ names carry
// their parameters) and then JavaCalls::call_helper, then the call stub's frame and the Java
// frame `outermost_java`.
bool bottomIs(const FoldedStack& stack, const std::vector<std::string>& callers, const std::string& outermost_java) {
  const std::vector<std::string>& frames = stack.frames;
  const auto java = std::find_if(frames.begin(), frames.end(), isJavaFrame);
  if (java == frames.end() || *java != outermost_java) return false;
  const auto call_stub = static_cast<size_t>(java - frames.begin()) - 1;
  if (call_stub < 2 || frames[0] != "__clone3" || frames[1] != "start_thread" || frames[call_stub] != "[stub] call_stub") {
    return false;
  }
  std::vector<std::string> wanted = callers;
  wanted.push_back("JavaCalls::call_helper");
  size_t at = 2;
  for (const std::string& name : wanted) {
    while (at < call_stub && !frames[at].starts_with(name)) ++at;
    if (at == call_stub) return false;
    ++at;
  }
  return true;
}

bool contains(const FoldedStack& stack, const std::string& frame) {
  return std::find(stack.frames.begin(), stack.frames.end(), frame) != stack.frames.end();
}

struct Tally {
  double samples = 0, right = 0, wrong = 0;
  std::string others;
};

// Over the stacks of `thread` that hold `work`: how many have the bottom `callers` ...
// `outermost_java`, and how many hold `forbidden` (another call's C function).
Tally tally(const std::string& path, const std::string& thread, const std::string& work,
            const std::vector<std::string>& callers, const std::string& outermost_java,
            const std::string& forbidden = "") {
  Tally result;
  for (const FoldedStack& stack : foldedStacks(path, "thread=" + thread)) {
    if (!contains(stack, work)) continue;
    result.samples += stack.samples;
    if (!forbidden.empty() && std::any_of(stack.frames.begin(), stack.frames.end(), [&](const std::string& frame) {
          return frame.starts_with(forbidden);
        })) {
      result.wrong += stack.samples;
      result.others += "WRONG " + describe(stack);
    } else if (bottomIs(stack, callers, outermost_java)) {
      result.right += stack.samples;
    } else {
      result.others += describe(stack);
    }
  }
  return result;
}

// Truth by construction (tests/java StackBottoms, tests/native_programs/stack_bottoms.c): the
// main thread runs main, called by the launcher's JavaMain through jni_CallStaticVoidMethod,
// on a thread the launcher started (ThreadJavaMain <- start_thread <- __clone3); the thread
// Java started runs Thread.run, called by the VM's thread_entry on a thread the VM started
// (thread_native_entry <- start_thread <- __clone3); the attached thread runs work, and in it
// workA, called by call_via_a, and work, and in it workB, called by call_via_b, from
// stack_bottoms_attached_main, the function its pthread started, in turns of 3 ms: the same
// outermost Java method from the same place, so only the stack words tell the two calls
// apart (a check of the entry frame alone would show one turn's C function under the other
// turn's work). Names of libc's functions need its debug file
// (libc6-dbg, scripts/setup.sh). Tolerance: at least 90 % of each work's samples show the
// whole bottom (one taken while a frame below is being built or torn down, a call into Java
// starting or returning, shows none); not one shows the other turn's C function.
void expectBottoms(const std::string& path) {
  struct Case {
    const char* thread;
    std::string work;
    std::vector<std::string> callers;
    std::string outermost_java;
    std::string forbidden;
  };
  for (const Case& c : {
           Case{"main", kBottoms + "main", {"ThreadJavaMain", "JavaMain", "jni_CallStaticVoidMethod"},
                kBottoms + "main", ""},
           Case{"java-started", kWorkloads + "Cpu.burn", {"thread_native_entry", "thread_entry"},
                "java.lang.Thread.run", ""},
           Case{"jni-attached", kBottoms + "workA", {"stack_bottoms_attached_main", "call_via_a", "jni_CallStaticVoidMethod"},
                kBottoms + "work", "call_via_b"},
           Case{"jni-attached", kBottoms + "workB", {"stack_bottoms_attached_main", "call_via_b", "jni_CallStaticVoidMethod"},
                kBottoms + "work", "call_via_a"},
       }) {
    SCOPED_TRACE(std::string(c.thread) + " " + c.work);
    const Tally seen = tally(path, c.thread, c.work, c.callers, c.outermost_java, c.forbidden);
    ASSERT_GT(seen.samples, 50) << "too few samples to judge";
    EXPECT_GE(seen.right / seen.samples, 0.90) << seen.right << " of " << seen.samples << "; the others:\n"
                                               << seen.others.substr(0, 6000);
    EXPECT_EQ(seen.wrong, 0) << seen.others.substr(0, 6000);
  }
}

TEST_F(MixedModeBelow, EachThreadShowsTheNativeFramesThatCalledItsJava) {
  const std::string path = file("bottoms.ssr");
  ProcessResult rec = record({"-e", "cpu", "-i", "2ms"}, path, "StackBottoms", {"1500", STACK_BOTTOMS_LIBRARY});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  expectBottoms(path);
}

// --no-native keeps the stacks as they were: not one frame below the Java frames.
TEST_F(MixedModeBelow, NoNativeShowsNoneOfThem) {
  const std::string path = file("java-only.ssr");
  ProcessResult rec =
      record({"-e", "cpu", "-i", "2ms", "--no-native"}, path, "StackBottoms", {"600", STACK_BOTTOMS_LIBRARY});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  double samples = 0;
  std::string others;
  for (const FoldedStack& stack : foldedStacks(path, "thread=main or thread=java-started or thread=jni-attached")) {
    samples += stack.samples;
    if (!isJavaFrame(stack.frames.front())) others += describe(stack);
  }
  ASSERT_GT(samples, 100) << "too few samples to judge";
  EXPECT_EQ(others, "");
}

// The same after an attach: the threads were running, the attached one calling Java in turns,
// when the agent came; each finds its frames below on its own first samples.
TEST_F(MixedModeBelow, ThreadsRunningBeforeAnAttachShowThemToo) {
  Child jvm(javaCommand("StackBottoms", {"8000", STACK_BOTTOMS_LIBRARY}));
  ASSERT_TRUE(jvm.waitForStdout("ready", 60s));
  const std::string path = file("attached.ssr");
  ProcessResult attached = run({STACKSCOPE_BIN, "attach", std::to_string(jvm.pid()), "-e", "cpu", "-i", "2ms",
                                "--duration", "2s", "-o", path},
                               60s);
  ASSERT_EQ(attached.exit_code, 0) << attached.err;
  expectBottoms(path);
}

// Truth by construction (tests/java RecursiveRun): "recursive" runs Cpu.burn under 20 frames
// of its run method, 19 of them at the one call where run calls itself, the outermost one
// among them; "flat" the same under its run once and 19 frames of another method. The list
// of Java frames alone cannot tell a walk that reached the outermost frame from one that
// ended early at another frame at that same call, so "recursive" must show nothing below its
// Java frames, and never fewer than its 20 frames of run; "flat" shows its bottom (at least
// 90 % of its samples, as above).
TEST_F(MixedModeBelow, AnOutermostCallThatRecursShowsNothingBelowAndOtherRecursionDoes) {
  const std::string path = file("recursive.ssr");
  ProcessResult rec = record({"-e", "cpu", "-i", "2ms"}, path, "RecursiveRun", {"1200"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  const std::string recursive_run = kWorkloads + "RecursiveRun$Recursive.run";
  double samples = 0, with_bottom = 0, cut = 0;
  std::string others;
  for (const FoldedStack& stack : foldedStacks(path, "thread=recursive")) {
    if (!contains(stack, kWorkloads + "Cpu.burn")) continue;
    samples += stack.samples;
    if (!isJavaFrame(stack.frames.front())) {
      with_bottom += stack.samples;
      others += describe(stack);
    }
    if (std::count(stack.frames.begin(), stack.frames.end(), recursive_run) != 20) {
      cut += stack.samples;
      others += "CUT " + describe(stack);
    }
  }
  ASSERT_GT(samples, 50) << "too few samples to judge";
  EXPECT_EQ(with_bottom, 0) << others.substr(0, 6000);
  EXPECT_EQ(cut, 0) << others.substr(0, 6000);
  const Tally flat = tally(path, "flat", kWorkloads + "Cpu.burn", {"thread_native_entry", "thread_entry"},
                           kWorkloads + "RecursiveRun$Flat.run");
  ASSERT_GT(flat.samples, 50) << "too few samples to judge";
  EXPECT_GE(flat.right / flat.samples, 0.90) << flat.right << " of " << flat.samples << "; the others:\n"
                                             << flat.others.substr(0, 6000);
}

// Truth by construction (tests/native_programs/late_tables.c): the attached thread calls
// LateTables.work, which runs early then late (1.5 s of CPU each), once, from
// late_tables_call_java, in a library it loaded with dlopen just before; no JNI method of that
// library is bound, so the agent reads its unwinding tables at its writer's next look (within
// 20 ms), and without them the walk below stops at that function (no frame pointer). The
// thread's first samples mostly come before: its first walk below fails and is kept, with the
// words it read, which hold for the whole call. The tables published since must make the
// thread walk again: late's samples show late_tables_call_java <- late_tables_thread_main <-
// start_thread <- __clone3 (at least 90 %, as above). Whether the first walk did fail is not
// seen from here (the test can only fail when it did: in most runs).
TEST_F(MixedModeBelow, AThreadGainsItsBottomWhenItsCallersTablesArrive) {
  const std::string path = file("late-tables.ssr");
  ProcessResult rec = record({"-e", "cpu", "-i", "2ms"}, path, "LateTables",
                             {LATE_TABLES_LIBRARY, LATE_TABLES_CALLER_LIBRARY, "1500", "1500"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  const Tally late = tally(path, "late-tables", kWorkloads + "LateTables.late",
                           {"late_tables_thread_main", "late_tables_call_java", "jni_CallStaticVoidMethod"},
                           kWorkloads + "LateTables.work");
  ASSERT_GT(late.samples, 50) << "too few samples to judge";
  EXPECT_GE(late.right / late.samples, 0.90) << late.right << " of " << late.samples << "; the others:\n"
                                             << late.others.substr(0, 6000);
  // For the reader: early's samples without the bottom say the tables came after its first.
  const Tally early = tally(path, "late-tables", kWorkloads + "LateTables.early",
                            {"late_tables_thread_main", "late_tables_call_java", "jni_CallStaticVoidMethod"},
                            kWorkloads + "LateTables.work");
  std::printf("early: %.0f of %.0f samples without the bottom; late: %.0f of %.0f with it\n",
              early.samples - early.right, early.samples, late.right, late.samples);
}

}  // namespace
}  // namespace it
