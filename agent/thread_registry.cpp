#include "agent/thread_registry.h"

#include <atomic>

#include "agent/cpu_sampler.h"

namespace stackscope::agent {

namespace {
// initial-exec: a dlopen'ed library's TLS otherwise goes through __tls_get_addr, which may
// allocate on first use and so is not async-signal-safe. The handler reads this pointer.
// A slot is the thread's only for the generation it was set in: a session that ends cannot
// reach every thread's TLS to clear it, so it moves the generation on instead, and the
// pointers left behind (to slots about to be freed) are never read again.
thread_local ThreadSlot* tls_slot __attribute__((tls_model("initial-exec"))) = nullptr;
thread_local uint64_t tls_generation __attribute__((tls_model("initial-exec"))) = 0;
std::atomic<uint64_t> g_generation{1};
}  // namespace

ThreadSlot* currentThreadSlot() {
  ThreadSlot* slot = tls_slot;
  const uint64_t generation = tls_generation;
  std::atomic_signal_fence(std::memory_order_acquire);
  return generation == g_generation.load(std::memory_order_acquire) ? slot : nullptr;
}

void setCurrentThreadSlot(ThreadSlot* slot) {
  // The fences keep the stores ordered with what the thread does to the slot around it, as
  // seen by a signal handler interrupting this thread: the generation is set last.
  std::atomic_signal_fence(std::memory_order_seq_cst);
  tls_generation = 0;
  std::atomic_signal_fence(std::memory_order_seq_cst);
  tls_slot = slot;
  std::atomic_signal_fence(std::memory_order_seq_cst);
  tls_generation = g_generation.load(std::memory_order_acquire);
  std::atomic_signal_fence(std::memory_order_seq_cst);
}

void forgetThreadSlots() { g_generation.fetch_add(1); }

void ThreadRegistry::insertLocked(ThreadSlot* slot, MetaEvent&& start) {
  meta_.push(std::move(start));
  slots_[slot->id] = slot;
  ++generation_;
  if (slot->foreign) foreign_.push_back(slot);
}

ThreadSlot* ThreadRegistry::foreignSlotOf(pid_t tid) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (ThreadSlot* slot : foreign_) {
    if (tid != 0 && slot->tid == tid) return slot;
  }
  return nullptr;
}

ThreadRegistry::AddResult ThreadRegistry::add(ThreadSlot* slot, int64_t timer_interval_ns, JNIEnv* jni,
                                              MetaEvent start) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (closed_) return AddResult::Closed;
  for (const ThreadSlot* other : foreign_) {
    if (jni->IsSameObject(other->thread_ref, slot->thread_ref)) return AddResult::Present;
  }
  insertLocked(slot, std::move(start));
  if (timer_interval_ns > 0 &&
      !startThreadTimer(*slot, timer_interval_ns, !slot->excluded.load(std::memory_order_relaxed))) {
    return AddResult::AddedWithoutTimer;
  }
  return AddResult::Added;
}

ThreadRegistry::AddResult ThreadRegistry::addForeign(ThreadSlot* slot, JNIEnv* jni, MetaEvent start) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (closed_) return AddResult::Closed;
  for (const auto& [id, other] : slots_) {
    if (jni->IsSameObject(other->thread_ref, slot->thread_ref)) return AddResult::Present;
  }
  insertLocked(slot, std::move(start));
  return AddResult::Added;
}

void ThreadRegistry::setTimerArmed(ThreadSlot& slot, bool armed) {
  // Under the mutex: close() and remove() delete timers, and the fd must not be reused
  // under us.
  std::lock_guard<std::mutex> lock(mutex_);
  if (closed_) return;
  auto it = slots_.find(slot.id);
  if (it == slots_.end() || it->second != &slot) return;
  armThreadTimer(slot, armed);
}

ThreadSlot* ThreadRegistry::remove(uint32_t id) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = slots_.find(id);
  if (it == slots_.end()) return nullptr;
  ThreadSlot* slot = it->second;
  slots_.erase(it);
  ++generation_;
  stopThreadTimer(*slot);
  return slot;
}

ThreadSlot* ThreadRegistry::removeForeign(JNIEnv* jni, jthread thread) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto it = foreign_.begin(); it != foreign_.end(); ++it) {
    ThreadSlot* slot = *it;
    if (!jni->IsSameObject(slot->thread_ref, thread)) continue;
    foreign_.erase(it);
    slots_.erase(slot->id);
    ++generation_;
    return slot;
  }
  return nullptr;
}

void ThreadRegistry::removeAllForeign(std::vector<ThreadSlot*>& out) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (ThreadSlot* slot : foreign_) slots_.erase(slot->id);
  ++generation_;
  out = std::move(foreign_);
  foreign_.clear();
}

void ThreadRegistry::close() {
  std::lock_guard<std::mutex> lock(mutex_);
  closed_ = true;
  for (auto& [id, slot] : slots_) stopThreadTimer(*slot);
}

void ThreadRegistry::removeAll(std::vector<ThreadSlot*>& out) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& [id, slot] : slots_) out.push_back(slot);
  slots_.clear();
  foreign_.clear();
  ++generation_;
}

size_t ThreadRegistry::size() {
  std::lock_guard<std::mutex> lock(mutex_);
  return slots_.size();
}

}  // namespace stackscope::agent
