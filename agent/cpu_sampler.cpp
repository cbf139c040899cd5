#include "agent/cpu_sampler.h"

#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <mutex>
#include <utility>
#include <vector>

#include "agent/clocks.h"

namespace stackscope::agent {

namespace {

// Whether perf_event_open refused once (not allowed, not supported): then every thread goes
// straight to POSIX timers.
std::atomic<bool> g_perf_unavailable{false};

std::atomic<bool> g_kernel_call_chains{false};

int openTaskClock(pid_t tid, int64_t interval_ns, bool exclude_kernel) {
  perf_event_attr attr{};
  attr.size = sizeof(attr);
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_TASK_CLOCK;  // this thread's CPU time, in ns
  attr.sample_period = static_cast<uint64_t>(interval_ns);
  if (!exclude_kernel && g_kernel_call_chains.load(std::memory_order_relaxed)) {
    // Each overflow also writes a sample record, with the kernel part of its call chain only
    // (the user part comes from the signal's context), into the ring mapped below.
    attr.sample_type = PERF_SAMPLE_CALLCHAIN;
    attr.exclude_callchain_user = 1;
    attr.wakeup_events = 1;
  }
  attr.disabled = 1;  // armed once the signal is routed
  // perf_event_paranoid 2 (the usual default) lets an unprivileged process count its own
  // threads only in user mode; a tick landing in kernel mode is then skipped by the kernel.
  attr.exclude_kernel = exclude_kernel ? 1 : 0;
  attr.exclude_hv = 1;
  return static_cast<int>(syscall(SYS_perf_event_open, &attr, tid, -1, -1, PERF_FLAG_FD_CLOEXEC));
}

// One metadata page and one data page: the handler consumes the one record of each signal,
// so a page holds it even at the deepest kernel chain (127 frames, about 1 KiB).
constexpr size_t kRingPages = 2;
const size_t g_page_size = static_cast<size_t>(sysconf(_SC_PAGESIZE));  // at load: the handler reads it
size_t pageSize() { return g_page_size; }

// Rings of stopped timers and when they stopped, unmapped a second later (releaseStoppedRings).
std::mutex g_stopped_rings_mutex;
std::vector<std::pair<void*, int64_t>> g_stopped_rings;

bool startTaskClock(ThreadSlot& slot, int64_t interval_ns, bool armed) {
  int fd = openTaskClock(slot.tid, interval_ns, false);
  const bool sees_kernel = fd >= 0;
  if (fd < 0) fd = openTaskClock(slot.tid, interval_ns, true);
  if (fd < 0) return false;
  if (sees_kernel && g_kernel_call_chains.load(std::memory_order_relaxed)) {
    void* ring = mmap(nullptr, kRingPages * pageSize(), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    // Without its ring the timer still samples; its samples just have no kernel frames.
    if (ring != MAP_FAILED) slot.kernel_ring.store(ring, std::memory_order_release);
  }
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
  // Before the timer: its first signal may come at once. (cpu_intervals.h)
  slot.cpu_sampled.arm(threadCpuTimeNs(slot.tid));
  if (!g_perf_unavailable.load(std::memory_order_relaxed)) {
    if (startTaskClock(slot, interval_ns, armed)) return true;
    // A thread that ended meanwhile (mixed mode times threads it did not start) says
    // nothing about perf_event_open: it gets no timer of either kind.
    if (errno == ESRCH) return false;
    g_perf_unavailable.store(true, std::memory_order_relaxed);
  }
  return startPosixTimer(slot, interval_ns, armed);
}

void setKernelCallChains(bool on) { g_kernel_call_chains.store(on, std::memory_order_relaxed); }

namespace {
// Copies `size` bytes at ring offset `at` (wrapping around the data page) into `out`.
void copyFromRing(const char* data, size_t data_size, uint64_t at, void* out, size_t size) {
  for (size_t i = 0; i < size; ++i) static_cast<char*>(out)[i] = data[(at + i) % data_size];
}
}  // namespace

int takeKernelCallChain(ThreadSlot& slot, uintptr_t* out, int max) {
  auto* page = static_cast<perf_event_mmap_page*>(slot.kernel_ring.load(std::memory_order_acquire));
  if (!page) return 0;
  const char* data = reinterpret_cast<const char*>(page) + pageSize();
  const size_t data_size = (kRingPages - 1) * pageSize();
  const uint64_t head = __atomic_load_n(&page->data_head, __ATOMIC_ACQUIRE);
  uint64_t tail = page->data_tail;
  int count = 0;
  // Records the kernel wrote since the last signal; the last sample among them is this one's
  // (signals of overflows that came before it were merged into this one).
  while (tail < head && head - tail <= data_size) {
    perf_event_header header;
    copyFromRing(data, data_size, tail, &header, sizeof header);
    if (header.size < sizeof header || header.size > head - tail) break;
    if (header.type == PERF_RECORD_SAMPLE && tail + header.size == head) {
      uint64_t entries = 0;
      copyFromRing(data, data_size, tail + sizeof header, &entries, sizeof entries);
      for (uint64_t i = 0; i < entries && count < max && sizeof header + 8 * (i + 2) <= header.size; ++i) {
        uint64_t pc = 0;
        copyFromRing(data, data_size, tail + sizeof header + 8 * (i + 1), &pc, sizeof pc);
        if (pc < static_cast<uint64_t>(PERF_CONTEXT_MAX)) out[count++] = static_cast<uintptr_t>(pc);  // not a marker
      }
    }
    tail += header.size;
  }
  __atomic_store_n(&page->data_tail, head, __ATOMIC_RELEASE);
  return count;
}

void releaseStoppedRings() {
  const int64_t cutoff = monotonicNs() - 1'000'000'000;
  std::lock_guard<std::mutex> lock(g_stopped_rings_mutex);
  std::erase_if(g_stopped_rings, [&](const std::pair<void*, int64_t>& ring) {
    if (ring.second > cutoff) return false;
    munmap(ring.first, kRingPages * pageSize());
    return true;
  });
}

bool signalFromTimerOf(const ThreadSlot& slot, const siginfo_t* info) {
  if (info->si_code == SI_TIMER) return slot.has_timer && info->si_value.sival_ptr == &slot;
  return slot.perf_fd >= 0 && info->si_fd == slot.perf_fd;
}

void armThreadTimer(ThreadSlot& slot, bool armed) {
  // A disabled task-clock keeps what is left of its period, so a thread that matches again
  // resumes its count where it stopped. The CPU time it used while disarmed is no sample's.
  if (armed) slot.cpu_sampled.arm(threadCpuTimeNs(slot.tid));
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
  if (void* ring = slot.kernel_ring.exchange(nullptr, std::memory_order_acq_rel)) {
    std::lock_guard<std::mutex> lock(g_stopped_rings_mutex);
    g_stopped_rings.emplace_back(ring, monotonicNs());
  }
  if (slot.has_timer) {
    timer_delete(slot.timer);
    slot.has_timer = false;
  }
}

}  // namespace stackscope::agent
