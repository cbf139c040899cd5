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

TEST(OsThreadName, IsTheJavaNamesFirst15Bytes) {
  EXPECT_EQ(osThreadName("Reference Handler"), "Reference Handl");
  EXPECT_EQ(osThreadName("main"), "main");
}

}  // namespace
}  // namespace stackscope::agent
