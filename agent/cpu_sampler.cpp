#include "agent/cpu_sampler.h"

#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>

namespace stackscope::agent {

namespace {

// Whether perf_event_open refused once (not allowed, not supported): then every thread goes
// straight to POSIX timers.
std::atomic<bool> g_perf_unavailable{false};

int openTaskClock(pid_t tid, int64_t interval_ns, bool exclude_kernel) {
  perf_event_attr attr{};
  attr.size = sizeof(attr);
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_TASK_CLOCK;  // this thread's CPU time, in ns
  attr.sample_period = static_cast<uint64_t>(interval_ns);
  attr.disabled = 1;  // armed once the signal is routed
  // perf_event_paranoid 2 (the usual default) lets an unprivileged process count its own
  // threads only in user mode; a tick landing in kernel mode is then skipped by the kernel.
  attr.exclude_kernel = exclude_kernel ? 1 : 0;
  attr.exclude_hv = 1;
  return static_cast<int>(syscall(SYS_perf_event_open, &attr, tid, -1, -1, PERF_FLAG_FD_CLOEXEC));
}

bool startTaskClock(ThreadSlot& slot, int64_t interval_ns, bool armed) {
  int fd = openTaskClock(slot.tid, interval_ns, false);
  if (fd < 0) fd = openTaskClock(slot.tid, interval_ns, true);
  if (fd < 0) return false;
  f_owner_ex owner{F_OWNER_TID, slot.tid};  // signal that thread, not the process
  if (fcntl(fd, F_SETOWN_EX, &owner) != 0 || fcntl(fd, F_SETSIG, SIGPROF) != 0 ||
      fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_ASYNC) != 0 || (armed && ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) != 0)) {
    const int error = errno;  // ESRCH from F_SETOWN_EX: the thread ended (startThreadTimer)
    close(fd);
    errno = error;
    return false;
  }
  slot.perf_fd = fd;
  return true;
}

itimerspec periodic(int64_t interval_ns) {
  itimerspec spec{};
  spec.it_interval.tv_sec = interval_ns / 1'000'000'000;
  spec.it_interval.tv_nsec = interval_ns % 1'000'000'000;
  spec.it_value = spec.it_interval;
  return spec;
}

// The CPU clock of thread `tid` of this process: the kernel's encoding of a per-thread CPU
// clock id (what pthread_getcpuclockid returns), which needs no pthread_t.
clockid_t threadCpuClock(pid_t tid) { return static_cast<clockid_t>((~static_cast<unsigned>(tid) << 3) | 6); }

bool startPosixTimer(ThreadSlot& slot, int64_t interval_ns, bool armed) {
  sigevent event{};
  event.sigev_notify = SIGEV_THREAD_ID;  // that thread, not any thread of the process
  event.sigev_signo = SIGPROF;
  event.sigev_value.sival_ptr = &slot;   // tells the handler whose timer fired
  event._sigev_un._tid = slot.tid;  // glibc 2.36 lacks the sigev_notify_thread_id name
  timer_t timer;
  if (timer_create(threadCpuClock(slot.tid), &event, &timer) != 0) return false;
  const itimerspec spec = periodic(interval_ns);
  if (armed && timer_settime(timer, 0, &spec, nullptr) != 0) {
    timer_delete(timer);
    return false;
  }
  slot.timer = timer;
  slot.has_timer = true;
  return true;
}

}  // namespace

bool startThreadTimer(ThreadSlot& slot, int64_t interval_ns, bool armed) {
  slot.timer_interval_ns = interval_ns;
  if (!g_perf_unavailable.load(std::memory_order_relaxed)) {
    if (startTaskClock(slot, interval_ns, armed)) return true;
    // A thread that ended meanwhile (mixed mode times threads it did not start) says
    // nothing about perf_event_open: it gets no timer of either kind.
    if (errno == ESRCH) return false;
    g_perf_unavailable.store(true, std::memory_order_relaxed);
  }
  return startPosixTimer(slot, interval_ns, armed);
}

bool signalFromTimerOf(const ThreadSlot& slot, const siginfo_t* info) {
  if (info->si_code == SI_TIMER) return slot.has_timer && info->si_value.sival_ptr == &slot;
  return slot.perf_fd >= 0 && info->si_fd == slot.perf_fd;
}

void armThreadTimer(ThreadSlot& slot, bool armed) {
  // A disabled task-clock keeps what is left of its period, so a thread that matches again
  // resumes its count where it stopped.
  if (slot.perf_fd >= 0) ioctl(slot.perf_fd, armed ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0);
  if (slot.has_timer) {
    const itimerspec spec = armed ? periodic(slot.timer_interval_ns) : itimerspec{};
    timer_settime(slot.timer, 0, &spec, nullptr);
  }
}

void stopThreadTimer(ThreadSlot& slot) {
  if (slot.perf_fd >= 0) {
    ioctl(slot.perf_fd, PERF_EVENT_IOC_DISABLE, 0);
    close(slot.perf_fd);
    slot.perf_fd = -1;
  }
  if (slot.has_timer) {
    timer_delete(slot.timer);
    slot.has_timer = false;
  }
}

}  // namespace stackscope::agent
