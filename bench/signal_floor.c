// The platform's floor under a signal sampler: what a CPU-time timer that signals its thread
// costs that thread when the handler does nothing. bench/overhead.sh runs it beside the agent
// so that the agent's ratio can be read as this floor plus the agent's own work.
//
// One thread runs a fixed floating-point loop (no memory traffic, no system call) under one
// timer of the kinds agent/cpu_sampler.h uses, all signalling SIGPROF to that thread:
//   none          no timer: the baseline;
//   task-clock    a perf_event software task-clock counter of the thread, overflowing every
//                 interval (high-resolution timers: each expiry is a timer interrupt);
//   task-clock-kernel-chain  the same, each overflow also writing a sample record with the
//                 kernel part of the call chain into a mapped ring, as mixed mode asks where
//                 the kernel allows it (the record is not read here: the ring just wraps);
//   cpu-timer     a POSIX timer on the thread's CPU clock, which the kernel checks at its tick.
// Usage: signal_floor KIND INTERVAL_US ITERATIONS
// Prints "cpu_ns N signals M": the thread's CPU time over the loop, and the signals handled.
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t signals;

static void on_sigprof(int signo, siginfo_t* info, void* context) {
  (void)signo;
  (void)info;
  (void)context;
  signals = signals + 1;
}

static int fail(const char* what) {
  perror(what);
  return 0;
}

static int open_task_clock(long interval_ns, int kernel_chain, int exclude_kernel) {
  struct perf_event_attr attr;
  memset(&attr, 0, sizeof attr);
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_TASK_CLOCK;
  attr.sample_period = (unsigned long long)interval_ns;
  attr.disabled = 1;
  attr.exclude_kernel = exclude_kernel;
  attr.exclude_hv = 1;
  if (kernel_chain) {
    attr.sample_type = PERF_SAMPLE_CALLCHAIN;
    attr.exclude_callchain_user = 1;
    attr.wakeup_events = 1;
  }
  return (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

// A task-clock counter of this thread that signals it every interval_ns of its CPU time.
// Counting kernel time too where allowed, else user time only, as the agent falls back
// (perf_event_paranoid 2 without privileges); a kernel chain is never asked of the latter.
static int start_task_clock(long interval_ns, int kernel_chain) {
  int fd = open_task_clock(interval_ns, kernel_chain, 0);
  if (fd < 0 && !kernel_chain) fd = open_task_clock(interval_ns, 0, 1);
  if (fd < 0) return fail("signal_floor: perf_event_open");
  const pid_t tid = (pid_t)syscall(SYS_gettid);
  // One metadata page and one data page, as the agent maps (agent/cpu_sampler.cpp).
  if (kernel_chain && mmap(NULL, 2 * (size_t)sysconf(_SC_PAGESIZE), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) ==
                          MAP_FAILED) {
    return fail("signal_floor: mmap of the perf ring");
  }
  struct f_owner_ex owner = {F_OWNER_TID, tid};
  if (fcntl(fd, F_SETOWN_EX, &owner) != 0 || fcntl(fd, F_SETSIG, SIGPROF) != 0 ||
      fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_ASYNC) != 0 || ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) != 0) {
    return fail("signal_floor: routing the task-clock's signal");
  }
  return 1;
}

// A POSIX timer on this thread's CPU clock, signalling it every interval_ns.
static int start_cpu_timer(long interval_ns) {
  struct sigevent event;
  memset(&event, 0, sizeof event);
  event.sigev_notify = SIGEV_THREAD_ID;
  event.sigev_signo = SIGPROF;
  event._sigev_un._tid = (pid_t)syscall(SYS_gettid);
  timer_t timer;
  if (timer_create(CLOCK_THREAD_CPUTIME_ID, &event, &timer) != 0) return fail("signal_floor: timer_create");
  struct itimerspec spec;
  spec.it_interval.tv_sec = interval_ns / 1000000000L;
  spec.it_interval.tv_nsec = interval_ns % 1000000000L;
  spec.it_value = spec.it_interval;
  if (timer_settime(timer, 0, &spec, NULL) != 0) return fail("signal_floor: timer_settime");
  return 1;
}

static long long thread_cpu_ns(void) {
  struct timespec now;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return now.tv_sec * 1000000000LL + now.tv_nsec;
}

static int usage(void) {
  fprintf(stderr, "usage: signal_floor none|task-clock|task-clock-kernel-chain|cpu-timer INTERVAL_US ITERATIONS\n");
  return 2;
}

int main(int argc, char** argv) {
  if (argc != 4) return usage();
  const char* kind = argv[1];
  const long interval_us = atol(argv[2]);
  const long long iterations = atoll(argv[3]);
  if (interval_us <= 0 || iterations <= 0) return usage();
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_sigaction = on_sigprof;
  action.sa_flags = SA_SIGINFO | SA_RESTART;  // as the agent installs its handler
  sigemptyset(&action.sa_mask);
  if (sigaction(SIGPROF, &action, NULL) != 0) {
    perror("signal_floor: sigaction");
    return 1;
  }
  const long interval_ns = interval_us * 1000;
  int started;
  if (strcmp(kind, "none") == 0) {
    started = 1;
  } else if (strcmp(kind, "task-clock") == 0) {
    started = start_task_clock(interval_ns, 0);
  } else if (strcmp(kind, "task-clock-kernel-chain") == 0) {
    started = start_task_clock(interval_ns, 1);
  } else if (strcmp(kind, "cpu-timer") == 0) {
    started = start_cpu_timer(interval_ns);
  } else {
    return usage();
  }
  if (!started) return 1;
  const long long start = thread_cpu_ns();
  // Each step depends on the last through a volatile: the compiler keeps every iteration.
  volatile double sum = 0;
  for (long long i = 0; i < iterations; ++i) sum += (double)i * 0.5;
  printf("cpu_ns %lld signals %ld\n", thread_cpu_ns() - start, (long)signals);
  return 0;
}
