#include "agent/cpu_sampler.h"

#include <signal.h>
#include <time.h>
#include <unistd.h>

namespace stackscope::agent {

bool startThreadTimer(ThreadSlot& slot, int64_t interval_ns) {
  sigevent event{};
  event.sigev_notify = SIGEV_THREAD_ID;  // this thread, not any thread of the process
  event.sigev_signo = SIGPROF;
  event._sigev_un._tid = gettid();  // glibc 2.36 lacks the sigev_notify_thread_id name
  timer_t timer;
  if (timer_create(CLOCK_THREAD_CPUTIME_ID, &event, &timer) != 0) return false;
  itimerspec spec{};
  spec.it_interval.tv_sec = interval_ns / 1'000'000'000;
  spec.it_interval.tv_nsec = interval_ns % 1'000'000'000;
  spec.it_value = spec.it_interval;
  if (timer_settime(timer, 0, &spec, nullptr) != 0) {
    timer_delete(timer);
    return false;
  }
  slot.timer = timer;
  slot.has_timer = true;
  return true;
}

void stopThreadTimer(ThreadSlot& slot) {
  if (!slot.has_timer) return;
  timer_delete(slot.timer);
  slot.has_timer = false;
}

}  // namespace stackscope::agent
