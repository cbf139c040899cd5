#include "agent/proc_task.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>

namespace stackscope::agent {
namespace {

char stateOf(const char* text) {
  TaskStat stat;
  return parseTaskStat(text, std::strlen(text), stat) ? stat.state : 0;
}

TEST(SchedulerState, ParsesTheLetterAfterTheLastParenthesis) {
  const char plain[] = "1234 (java) S 1 1234 1234 0 -1";
  EXPECT_EQ(stateOf(plain), 'S');
  const char tricky[] = "77 (a) R (b)) D 1 2";  // a thread may name itself anything
  EXPECT_EQ(stateOf(tricky), 'D');
  TaskStat stat;
  EXPECT_FALSE(parseTaskStat("77 (java)", 9, stat));
  EXPECT_FALSE(parseTaskStat("", 0, stat));
}

TEST(SchedulerState, ReadsRealThreads) {
  EXPECT_EQ(osSchedulerState(gettid()), 'R');  // the caller runs, by definition
  std::atomic<pid_t> tid{0};
  std::atomic<bool> done{false};
  std::mutex mutex;
  std::condition_variable cv;
  std::thread sleeper([&] {
    tid = gettid();
    std::unique_lock<std::mutex> lock(mutex);
    cv.wait(lock, [&] { return done.load(); });
  });
  while (tid == 0) std::this_thread::yield();
  char state = 0;
  // Until it reaches its wait, the new thread may still run: the state must become 'S'.
  for (int i = 0; i < 2000 && state != 'S'; ++i) {
    state = osSchedulerState(tid);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(state, 'S');
  {
    std::lock_guard<std::mutex> lock(mutex);
    done = true;
  }
  cv.notify_one();
  sleeper.join();
  EXPECT_EQ(osSchedulerState(tid), 0);  // gone
}

TEST(SchedulerState, ReadsTheStartTimeField) {
  const char line[] = "5 (x y) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 98765 20 21";
  TaskStat stat;
  ASSERT_TRUE(parseTaskStat(line, sizeof(line) - 1, stat));
  EXPECT_EQ(stat.start_time, 98765u);  // field 22
  TaskStat self;
  ASSERT_TRUE(readTaskStat(gettid(), self));
  EXPECT_GT(self.start_time, 0u);
}

TEST(TaskNames, ListsThisThreadUnderItsName) {
  pthread_setname_np(pthread_self(), "proc-task-test");
  const std::vector<TaskName> tasks = listTasks();
  const auto it = std::find_if(tasks.begin(), tasks.end(), [](const TaskName& t) { return t.tid == gettid(); });
  ASSERT_NE(it, tasks.end());
  EXPECT_EQ(it->comm, "proc-task-test");
  EXPECT_EQ(osThreadName("Reference Handler"), "Reference Handl");
  EXPECT_EQ(osThreadName("main"), "main");
}

}  // namespace
}  // namespace stackscope::agent
