#include "agent/native_threads.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <unordered_set>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/clocks.h"
#include "agent/cpu_sampler.h"
#include "native/process_threads.h"

namespace stackscope::agent {

namespace {

// Put before the OS name of these threads, so that `--where 'not thread=jvm:*'`
// leaves them out (a plain glob: brackets would be a character class).
constexpr const char *kNamePrefix = "jvm:";

} // namespace

NativeThreads::NativeThreads(ThreadRegistry &registry, MetaQueue &meta,
                             const AnnotationTable &annotations,
                             int64_t interval_ns, int64_t start_ns,
                             bool sample_unannounced)
    : registry_(registry), meta_(meta), annotations_(annotations),
      interval_ns_(interval_ns), start_ns_(start_ns),
      sample_unannounced_(sample_unannounced), entries_(new Entry[kCapacity]),
      task_dir_(open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) {}

ThreadSlot *NativeThreads::find(pid_t tid) const {
  for (uint32_t i = 0; i < kCapacity; ++i) {
    if (entries_[i].tid.load(std::memory_order_acquire) == tid)
      return entries_[i].slot.load(std::memory_order_acquire);
  }
  return nullptr;
}

// procfs gives /proc/self/task a link count of 2 + the number of threads,
// counted when asked (fstat of the directory kept open: stat by path cost the
// writer thread a quarter of its CPU time at 1 ms, in the path's lookup).
uint64_t NativeThreads::threadCount() const {
  struct stat task {};
  return task_dir_ >= 0 && fstat(task_dir_, &task) == 0 ? task.st_nlink : 0;
}

bool NativeThreads::threadCountChanged() const {
  return threadCount() != thread_count_.load(std::memory_order_relaxed);
}

bool NativeThreads::stackPending() const {
  for (uint32_t i = 0; i < kCapacity; ++i) {
    if (entries_[i].tid.load(std::memory_order_acquire) == 0)
      continue;
    const ThreadSlot &slot = *entries_[i].slot.load(std::memory_order_acquire);
    if (!slot.stack_ready.load(std::memory_order_acquire) &&
        slot.native_sp.load(std::memory_order_relaxed) != 0)
      return true;
  }
  return false;
}

void NativeThreads::scan() {
  thread_count_.store(
      threadCount(),
      std::memory_order_relaxed); // before the listing: none is missed
  std::unordered_set<pid_t> java{static_cast<pid_t>(
      gettid())}; // the scanning (writer) thread: never sampled
  registry_.forEachLocked([&](const ThreadSlot &slot) {
    if (slot.tid != 0)
      java.insert(slot.tid);
  });
  const std::vector<native::ProcessThread> tasks = native::listThreads(getpid());
  std::lock_guard<std::mutex> lock(mutex_);
  if (closed_)
    return;
  ++scans_;
  std::unordered_set<pid_t> alive;
  for (const native::ProcessThread &task : tasks)
    alive.insert(task.tid);
  for (uint32_t i = 0; i < kCapacity; ++i) {
    Entry &entry = entries_[i];
    const pid_t tid = entry.tid.load(std::memory_order_relaxed);
    if (tid == 0)
      continue;
    if (!alive.contains(tid) || java.contains(tid)) {
      retireLocked(entry);
      continue;
    }
    // A thread first seen running has no known stack yet: its samples since
    // then left their stack pointer, and a blocked thread tells its own.
    ThreadSlot &slot = *entry.slot.load(std::memory_order_relaxed);
    if (!slot.stack_ready.load(std::memory_order_acquire)) {
      uintptr_t sp = blockedStackPointer(tid);
      if (sp == 0)
        sp = slot.native_sp.load(std::memory_order_relaxed);
      if (sp != 0) {
        slot.stack = mappingHolding(sp);
        if (slot.stack.base != 0)
          slot.stack_ready.store(true, std::memory_order_release);
        else // not a stack after all: pending again only once a sample leaves another
          slot.native_sp.store(0, std::memory_order_relaxed);
      }
    }
  }
  if (!sample_unannounced_)
    return;
  for (const native::ProcessThread &task : tasks) {
    if (!java.contains(task.tid) && !find(task.tid))
      startLocked(task.tid, task.name);
  }
}

void NativeThreads::startLocked(pid_t tid, const std::string &comm) {
  Entry *entry = freeEntryLocked();
  if (!entry)
    return;
  ThreadSlot *slot = nullptr;
  auto reusable =
      std::find_if(retired_.begin(), retired_.end(),
                   [&](const auto &r) { return r.second + 2 <= scans_; });
  if (reusable != retired_.end()) {
    slot = reusable->first;
    retired_.erase(reusable);
    slot->~ThreadSlot();
    new (slot) ThreadSlot;
  } else {
    slot = new ThreadSlot;
  }
  slot->id = registry_.nextId();
  slot->tid = tid;
  slot->metric_base = readThreadCounters(tid);
  slot->name = kNamePrefix + comm;
  // Unannotated, it matches no filter (as a Java thread without an annotation).
  slot->excluded.store(!annotations_.filterEmpty(), std::memory_order_relaxed);

  // Its record precedes its samples: queued before the timer exists.
  MetaEvent start;
  start.kind = MetaEvent::Kind::ThreadStart;
  start.time_ns = monotonicNs() - start_ns_;
  start.thread = slot->id;
  start.has_record = true;
  start.record = {slot->id, slot->name, tid, 0};
  meta_.push(std::move(start));
  fillLocked(*entry, slot, false);
}

NativeThreads::Entry *NativeThreads::freeEntryLocked() {
  for (uint32_t i = 0; i < kCapacity; ++i) {
    if (entries_[i].tid.load(std::memory_order_relaxed) == 0)
      return &entries_[i];
  }
  left_out_.fetch_add(1, std::memory_order_relaxed);
  return nullptr;
}

void NativeThreads::fillLocked(Entry &entry, ThreadSlot *slot, bool adopted) {
  const uintptr_t sp = slot->stack.base != 0 ? 0 : blockedStackPointer(slot->tid);
  if (sp != 0)
    slot->stack = mappingHolding(sp);
  slot->stack_ready.store(slot->stack.base != 0, std::memory_order_relaxed);
  entry.adopted = adopted;
  entry.slot.store(slot, std::memory_order_release);
  entry.tid.store(slot->tid, std::memory_order_release);
  // a thread that already ended: no timer, no samples
  startThreadTimer(*slot, interval_ns_,
                   adopted || !slot->excluded.load(std::memory_order_relaxed));
}

void NativeThreads::adopt(ThreadSlot *slot) {
  std::lock_guard<std::mutex> lock(mutex_);
  // A scan that ran between the writer thread's start and this adoption took the
  // Java thread for one of the JVM's own ("jvm:" and its OS name, which a pool's
  // threads share when cut to 15 bytes): the adoption wins, else find() would
  // keep answering with that slot.
  for (uint32_t i = 0; i < kCapacity && !closed_; ++i) {
    if (!entries_[i].adopted && entries_[i].tid.load(std::memory_order_relaxed) == slot->tid)
      retireLocked(entries_[i]);
  }
  Entry *entry = closed_ ? nullptr : freeEntryLocked();
  if (entry)
    fillLocked(*entry, slot, true);
  else
    retired_.emplace_back(slot, scans_); // freed with the table
}

void NativeThreads::retire(pid_t tid) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (closed_)
    return;
  for (uint32_t i = 0; i < kCapacity; ++i) {
    if (entries_[i].tid.load(std::memory_order_relaxed) == tid)
      retireLocked(entries_[i]);
  }
}

NativeThreads::~NativeThreads() {
  for (uint32_t i = 0; i < kCapacity; ++i) {
    if (entries_[i].tid.load(std::memory_order_relaxed) != 0)
      delete entries_[i].slot.load(std::memory_order_relaxed);
  }
  for (auto &[slot, scan] : retired_)
    delete slot;
  delete[] entries_;
  if (task_dir_ >= 0)
    ::close(task_dir_);
}

void NativeThreads::retireLocked(Entry &entry) {
  ThreadSlot *slot = entry.slot.load(std::memory_order_relaxed);
  stopThreadTimer(*slot);
  entry.tid.store(0, std::memory_order_release);
  retirements_.fetch_add(1, std::memory_order_acq_rel);
  MetaEvent event;
  event.kind = MetaEvent::Kind::ThreadEnd;
  event.time_ns = monotonicNs() - start_ns_;
  event.thread =
      slot->id; // one now registered as a Java thread goes on under its Java id
  meta_.push(std::move(event));
  retired_.emplace_back(slot, scans_);
}

void NativeThreads::close() {
  std::lock_guard<std::mutex> lock(mutex_);
  closed_ = true;
  for (uint32_t i = 0; i < kCapacity; ++i) {
    if (entries_[i].tid.load(std::memory_order_relaxed) != 0)
      stopThreadTimer(*entries_[i].slot.load());
  }
}

std::vector<Mapping> processMappings() {
  std::vector<Mapping> mappings;
  FILE *maps = std::fopen("/proc/self/maps", "re");
  if (!maps)
    return mappings;
  char line[512];
  while (std::fgets(line, sizeof line, maps)) {
    uintptr_t low = 0, high = 0;
    char perms[5] = {};
    if (std::sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %4s", &low, &high,
                    perms) == 3)
      mappings.push_back({low, high, perms[0] == 'r'});
  }
  std::fclose(maps);
  return mappings;
}

StackBounds mappingHolding(uintptr_t sp, const std::vector<Mapping> &mappings) {
  for (const Mapping &mapping : mappings) {
    // Only a readable mapping is a stack the handler may read.
    if (sp >= mapping.low && sp < mapping.high)
      return mapping.readable ? StackBounds{mapping.low, mapping.high}
                              : StackBounds{};
  }
  return {};
}

StackBounds mappingHolding(uintptr_t sp) {
  return mappingHolding(sp, processMappings());
}

uintptr_t blockedStackPointer(pid_t tid) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/self/task/%d/syscall",
                static_cast<int>(tid));
  FILE *file = std::fopen(path, "re");
  if (!file)
    return 0;
  // "NR arg1 … arg6 sp pc" while in a system call; "running" or "-1 sp pc"
  // otherwise.
  char text[256] = {};
  const size_t size = std::fread(text, 1, sizeof text - 1, file);
  std::fclose(file);
  if (size == 0 || std::strncmp(text, "running", 7) == 0)
    return 0;
  uintptr_t values[8] = {};
  long nr = 0;
  const int fields =
      std::sscanf(text,
                  "%ld %" SCNxPTR " %" SCNxPTR " %" SCNxPTR " %" SCNxPTR
                  " %" SCNxPTR " %" SCNxPTR " %" SCNxPTR " %" SCNxPTR,
                  &nr, &values[0], &values[1], &values[2], &values[3],
                  &values[4], &values[5], &values[6], &values[7]);
  if (fields == 9)
    return values[6];
  return fields == 3 && nr == -1 ? values[0] : 0;
}

} // namespace stackscope::agent
