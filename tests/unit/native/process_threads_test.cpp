// The thread list and CPU-time readers on a process with known threads
// (tests/native_programs/named_threads.c), and the stat parser on hostile command names.
#include "native/process_threads.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <sstream>

#include <gtest/gtest.h>

#include "child_process.h"

namespace stackscope::native {
namespace {

using testing::ChildProcess;

bool hasThread(const std::vector<ProcessThread>& threads, const std::string& name) {
  return std::any_of(threads.begin(), threads.end(),
                     [&](const ProcessThread& thread) { return thread.name == name; });
}

TEST(ListThreads, FindsEveryNamedThreadOfAnotherProcess) {
  ChildProcess child(NAMED_THREADS, {});
  ASSERT_GT(child.pid(), 0);
  std::string ready;
  ASSERT_TRUE(child.readLine(ready));
  std::vector<ProcessThread> threads = listThreads(child.pid());
  EXPECT_EQ(threads.size(), 4u);
  EXPECT_TRUE(hasThread(threads, "named_threads"));  // the main thread: the program's name
  EXPECT_TRUE(hasThread(threads, "ss-spinner"));
  EXPECT_TRUE(hasThread(threads, "ss-sleeper-1"));
  EXPECT_TRUE(hasThread(threads, "ss-sleeper-2"));
  ASSERT_FALSE(threads.empty());
  EXPECT_EQ(threads.front().tid, child.pid());  // tid order: the main thread's tid is the pid
  EXPECT_TRUE(std::is_sorted(threads.begin(), threads.end(),
                             [](const auto& a, const auto& b) { return a.tid < b.tid; }));
  EXPECT_EQ(child.finish(), 0);
}

TEST(ListThreads, ListsOnlyWholeEntriesWhileThreadsComeAndGo) {
  ChildProcess child(NAMED_THREADS, {"churn"});
  ASSERT_GT(child.pid(), 0);
  std::string ready;
  ASSERT_TRUE(child.readLine(ready));
  for (int scan = 0; scan < 300; scan++) {
    std::vector<ProcessThread> threads = listThreads(child.pid());
    ASSERT_TRUE(hasThread(threads, "named_threads")) << "scan " << scan;
    ASSERT_TRUE(hasThread(threads, "ss-churner")) << "scan " << scan;
    for (const ProcessThread& thread : threads) {
      ASSERT_GT(thread.tid, 0);
      // A brief thread is seen before or after it names itself, never with a torn name.
      ASSERT_TRUE(thread.name == "named_threads" || thread.name == "ss-churner" ||
                  thread.name == "ss-churn")
          << "'" << thread.name << "'";
    }
  }
  EXPECT_EQ(child.finish(), 0);
}

TEST(ListThreads, IsEmptyForAProcessThatDoesNotExist) {
  EXPECT_TRUE(listThreads(4194304 + 17).empty());
}

TEST(CpuTime, ThreadAndProcessTimesMatchWhatTheThreadSpent) {
  ChildProcess child(NAMED_THREADS, {});
  ASSERT_GT(child.pid(), 0);
  std::string ready;
  ASSERT_TRUE(child.readLine(ready));
  std::istringstream words(ready);
  std::string word;
  pid_t spinner = 0;
  long long spinner_own_ns = 0;
  words >> word >> spinner >> spinner_own_ns;
  ASSERT_EQ(word, "ready");
  ASSERT_GT(spinner, 0);
  // The spinner spun about 200 ms by its own clock, then went to sleep.
  ASSERT_GE(spinner_own_ns, 200000000LL);
  ASSERT_LT(spinner_own_ns, 400000000LL);

  int64_t spinner_ns = threadCpuTimeNs(child.pid(), spinner);
  int64_t process_ns = processCpuTimeNs(child.pid());
  // Generous: the kernel's figure moves in 10 ms ticks and is sampled at the tick.
  EXPECT_GT(spinner_ns, spinner_own_ns / 2);
  EXPECT_LT(spinner_ns, spinner_own_ns * 3 / 2);
  // The process's time holds the spinner's and little else (the other threads sleep). The
  // kernel scales a process's and each thread's tick counts apart (cputime_adjust), so the
  // process can read a tick or two below its thread: CI saw 190 ms against 200 ms.
  EXPECT_GE(process_ns, spinner_ns - 20000000);
  EXPECT_LT(process_ns, spinner_own_ns * 3 / 2);
  // A sleeping thread has spent next to nothing.
  std::vector<ProcessThread> threads = listThreads(child.pid());
  for (const ProcessThread& thread : threads) {
    if (thread.name.rfind("ss-sleeper", 0) == 0) {
      EXPECT_LT(threadCpuTimeNs(child.pid(), thread.tid), 50000000) << thread.name;
    }
  }
  EXPECT_EQ(child.finish(), 0);
}

TEST(CpuTime, IsMinusOneForAThreadOrProcessThatDoesNotExist) {
  EXPECT_EQ(threadCpuTimeNs(getpid(), 4194304 + 17), -1);
  EXPECT_EQ(processCpuTimeNs(4194304 + 17), -1);
}

TEST(ParseStatCpuTicks, ReadsTheFieldsAfterTheLastParenthesis) {
  // A thread may name itself "a) b c": the fields start after the last ')'.
  const char* stat =
      "1234 (a) b c 1 2) S 1 1234 1234 0 -1 4194560 100 0 0 0 37 5 0 0 20 0 1 0 12345 0 0\n";
  EXPECT_EQ(parseStatCpuTicks(stat, std::strlen(stat)), 42);
}

TEST(ParseStat, ReadsTheStateAfterTheLastParenthesis) {
  ThreadStat stat;
  const char plain[] = "1234 (java) S 1 1234 1234 0 -1";
  ASSERT_TRUE(parseStat(plain, sizeof plain - 1, stat));
  EXPECT_EQ(stat.state, 'S');
  EXPECT_EQ(stat.cpu_ticks, -1);  // the text stops before utime
  const char tricky[] = "77 (a) R (b)) D 1 2";  // a thread may name itself anything
  ASSERT_TRUE(parseStat(tricky, sizeof tricky - 1, stat));
  EXPECT_EQ(stat.state, 'D');
  EXPECT_FALSE(parseStat("77 (java)", 9, stat));
  EXPECT_FALSE(parseStat("", 0, stat));
}

TEST(ParseStat, ReadsTheStartTimeField) {
  const char line[] = "5 (x y) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 98765 20 21";
  ThreadStat stat;
  ASSERT_TRUE(parseStat(line, sizeof line - 1, stat));
  EXPECT_EQ(stat.start_time, 98765u);  // field 22
  EXPECT_EQ(stat.cpu_ticks, 11 + 12);  // fields 14 and 15
  ThreadStat self;
  ASSERT_TRUE(readThreadStat(getpid(), gettid(), self));
  EXPECT_EQ(self.state, 'R');  // the caller runs, by definition
  EXPECT_GT(self.start_time, 0u);
  EXPECT_FALSE(readThreadStat(getpid(), 4194304 + 17, self));
}

TEST(ParseStatCpuTicks, RefusesATruncatedOrDamagedText) {
  const char* truncated = "1234 (java) S 1 1234 1234 0 -1 4194560 100 0 0 0 37";
  EXPECT_EQ(parseStatCpuTicks(truncated, std::strlen(truncated)), -1);
  const char* no_name = "1234 java S 1 1234 1234 0 -1 4194560 100 0 0 0 37 5 0";
  EXPECT_EQ(parseStatCpuTicks(no_name, std::strlen(no_name)), -1);
  const char* not_a_number = "1234 (java) S 1 1234 1234 0 -1 4194560 100 0 0 0 3x 5 0";
  EXPECT_EQ(parseStatCpuTicks(not_a_number, std::strlen(not_a_number)), -1);
}

}  // namespace
}  // namespace stackscope::native
