// Mixed mode (cpu mode, on by default): the JVM's own threads are sampled as "jvm:NAME" with
// their native frames, native frames sit above the Java frames that called into them, and
// together the samples account for the process's CPU time.
#include <unistd.h>

#include <fstream>

#include "annotation_helpers.h"

namespace it {
namespace {

class MixedMode : public RecordingTest {};

// Samples of the threads whose names match `pattern`, in the threads view of `view`.
double threadSamples(const json& view, const std::function<bool(const std::string&)>& pattern) {
  double samples = 0;
  for (const json& thread : view.at("threads"))
    if (pattern(thread.at("name").get<std::string>())) samples += thread.at("samples").get<double>();
  return samples;
}

bool startsWith(const std::string& text, const std::string& prefix) { return text.rfind(prefix, 0) == 0; }

// GcHeavy spends most of its CPU in the serial collector, which runs in the "VM Thread". The
// truth is the process's CPU time over the work phase (getProcessCpuTime), less the agent's
// own writer thread, which is never sampled, and each thread's CPU time from /proc (10 ms
// ticks). Tolerance: the samples of the phase (10 ms each) within 5 % of the process's CPU
// time; the VM Thread's and main's within 5 % of the process's time of their own truth.
TEST_F(MixedMode, SamplesAddUpToTheProcessCpuTimeWithTheJvmThreadsIn) {
  ProcessResult rec = recordApi({"-e", "cpu"}, file("gc.ssr"), "GcHeavy", {"1500"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  const auto t = truth(rec.out);
  double agent_ns = 0;
  for (const auto& [name, ns] : t)
    if (startsWith(name, "thread:stackscope")) agent_ns += ns;
  const double process_ns = t.at("process") - agent_ns;
  const json threads = report(file("gc.ssr"), {"--snapshot", "work", "--view", "threads", "--top", "0"});
  const double interval_ns = threads.at("interval_ns").get<double>();
  const double sampled_ns = threads.at("samples").get<double>() * interval_ns;
  EXPECT_NEAR(sampled_ns / process_ns, 1.0, 0.05) << rec.out << threads.dump(1);

  const double vm_thread_ns = threadSamples(threads, [](const std::string& n) { return n == "jvm:VM Thread"; }) * interval_ns;
  EXPECT_GT(t.at("thread:VM_Thread") / process_ns, 0.3) << "the workload should spend a good share in GC: " << rec.out;
  EXPECT_NEAR(vm_thread_ns / process_ns, t.at("thread:VM_Thread") / process_ns, 0.05) << rec.out << threads.dump(1);
  const double main_ns =
      threadSamples(threads, [](const std::string& n) { return n == "main" || n == "DestroyJavaVM"; }) * interval_ns;
  EXPECT_NEAR(main_ns / process_ns, t.at("main") / process_ns, 0.05) << rec.out << threads.dump(1);
}

// The VM Thread's samples are native stacks named from libjvm.so's symbols, demangled, from
// the thread's start up: every one of them runs under VMThread::run(), and the collection's
// own functions are C++ names of kind native. Tolerance: VMThread::run() in at least 95 % of
// the thread's samples (a frame without a frame pointer may cut a chain short).
TEST_F(MixedMode, JvmThreadsShowTheirNativeFramesDemangled) {
  ProcessResult rec = recordApi({"-e", "cpu"}, file("gc.ssr"), "GcHeavy", {"1000"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  const json methods = report(file("gc.ssr"), {"--where", "thread='jvm:VM Thread'", "--top", "0", "--kinds"});
  ASSERT_GT(methods.at("samples").get<double>(), 30) << methods.dump(1);
  const json* run = find(methods, "methods", "method", "VMThread::run()");
  ASSERT_NE(run, nullptr) << methods.dump(1);
  EXPECT_GE(run->at("total_pct").get<double>(), 95.0) << methods.dump(1);
  double collector = 0;
  for (const json& m : methods.at("methods")) {
    const std::string name = m.at("method").get<std::string>();
    if (name.find("Generation::") != std::string::npos || name.find("Closure") != std::string::npos)
      collector = std::max(collector, m.at("total_pct").get<double>());
    // "[unknown] 0x…": an address in no module, as a frame pointer that lost its chain gives.
    if (!name.starts_with("[")) {  // braces: gtest's macros end in an if/else (-Wdangling-else)
      EXPECT_EQ(m.at("kind").get<std::string>(), "native") << name;
    }
  }
  EXPECT_GE(collector, 50.0) << "the serial collector's own functions: " << methods.dump(1);
}

// The JVM's threads carry the "jvm:" prefix, so one glob leaves them out; what is left is the
// application's own threads.
TEST_F(MixedMode, WhereLeavesTheJvmThreadsOut) {
  ProcessResult rec = recordApi({"-e", "cpu"}, file("gc.ssr"), "GcHeavy", {"800"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  const json all = report(file("gc.ssr"), {"--view", "threads", "--top", "0"});
  ASSERT_GT(threadSamples(all, [](const std::string& n) { return startsWith(n, "jvm:"); }), 0) << all.dump(1);
  const json app = report(file("gc.ssr"), {"--view", "threads", "--top", "0", "--where", "not thread=jvm:*"});
  ASSERT_GT(app.at("samples").get<double>(), 0) << app.dump(1);
  for (const json& thread : app.at("threads"))
    EXPECT_FALSE(startsWith(thread.at("name").get<std::string>(), "jvm:")) << app.dump(1);
}

// Deflating's CPU is in zlib, called through the JNI method Deflater.deflateBytesBytes. With
// native frames the zlib functions are on top and the JNI method only passes the time on;
// without them (--no-native) the JNI method looks as if it did the work. Tolerance: the JNI
// method's self share at most 10 % with native frames, at least 85 % without; its total at
// least 85 % of the main thread's samples either way.
TEST_F(MixedMode, NativeCodeCalledThroughJniIsAboveTheJavaMethod) {
  const std::string jni_method = "java.util.zip.Deflater.deflateBytesBytes";
  for (bool native : {true, false}) {
    SCOPED_TRACE(native ? "mixed mode" : "--no-native");
    std::vector<std::string> options = {"-e", "cpu"};
    if (!native) options.push_back("--no-native");
    const std::string path = file(native ? "mixed.ssr" : "java.ssr");
    ProcessResult rec = record(options, path, "Deflating", {"1500"});
    ASSERT_EQ(rec.exit_code, 0) << rec.err;
    const json methods = report(path, {"--where", "thread=main or thread=DestroyJavaVM", "--top", "0"});
    ASSERT_GT(methods.at("samples").get<double>(), 80) << methods.dump(1);
    const json* deflate = find(methods, "methods", "method", jni_method);
    ASSERT_NE(deflate, nullptr) << methods.dump(1);
    EXPECT_GE(deflate->at("total_pct").get<double>(), 85.0) << methods.dump(1);
    if (native) {
      EXPECT_LE(deflate->at("self_pct").get<double>(), 10.0) << methods.dump(1);
    } else {
      EXPECT_GE(deflate->at("self_pct").get<double>(), 85.0) << methods.dump(1);
    }
  }
}

// Where the kernel lets a process see its own kernel call chains (root, or
// perf_event_paranoid <= 1), a sample in a system call carries the kernel's functions above
// the user-space ones. KernelReads spends about half its CPU in the kernel's read_zero.
// Tolerance: read_zero in at least 25 % of the thread's samples, under do_syscall_64.
TEST_F(MixedMode, KernelFramesAreAboveTheSystemCallWhereAllowed) {
  std::ifstream paranoid_file("/proc/sys/kernel/perf_event_paranoid");
  int paranoid = 3;
  paranoid_file >> paranoid;
  if (geteuid() != 0 && paranoid > 1) GTEST_SKIP() << "perf_event_paranoid " << paranoid << " hides the kernel";
  ProcessResult rec = record({"-e", "cpu"}, file("reads.ssr"), "KernelReads", {"1500"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  const json methods = report(file("reads.ssr"), {"--where", "thread=main or thread=DestroyJavaVM", "--top", "0"});
  ASSERT_GT(methods.at("samples").get<double>(), 60) << methods.dump(1);
  const json* read_zero = find(methods, "methods", "method", "read_zero");
  ASSERT_NE(read_zero, nullptr) << methods.dump(1);
  EXPECT_GE(read_zero->at("total_pct").get<double>(), 25.0) << methods.dump(1);
  const json* syscall = find(methods, "methods", "method", "do_syscall_64");
  ASSERT_NE(syscall, nullptr) << methods.dump(1);
  EXPECT_GE(syscall->at("total_pct").get<double>(), read_zero->at("total_pct").get<double>()) << methods.dump(1);
}

// --no-native: no thread of the JVM's own is sampled, and no native frame is recorded (the
// JVM's functions are C++ names with "::").
TEST_F(MixedMode, NoNativeRecordsOnlyJavaThreadsAndFrames) {
  ProcessResult rec = recordApi({"-e", "cpu", "--no-native"}, file("gc.ssr"), "GcHeavy", {"800"});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  const json threads = report(file("gc.ssr"), {"--view", "threads", "--top", "0"});
  EXPECT_EQ(threadSamples(threads, [](const std::string& n) { return startsWith(n, "jvm:"); }), 0) << threads.dump(1);
  const json methods = report(file("gc.ssr"), {"--top", "0"});
  ASSERT_GT(methods.at("samples").get<double>(), 0) << methods.dump(1);
  for (const json& m : methods.at("methods"))
    EXPECT_EQ(m.at("method").get<std::string>().find("::"), std::string::npos) << "a native frame: " << m.dump();
}

}  // namespace
}  // namespace it
