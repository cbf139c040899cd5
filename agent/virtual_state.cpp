#include "agent/virtual_state.h"

#include <atomic>
#include <cstddef>

namespace stackscope::agent {

namespace {

static_assert(sizeof(void*) == sizeof(uint64_t), "the state is one 64-bit word");
static_assert(static_cast<unsigned>(WaitSource::Park) < 4, "a source fits in two bits");
constexpr int kSourceShift = 32;
constexpr int kFieldShift = 34;  // the generation or the wait's start
constexpr int kUnitShift = 16;   // a unit of the start: 2^16 ns
constexpr uint64_t kFieldMask = (uint64_t{1} << (64 - kFieldShift)) - 1;

uint64_t units(int64_t monotonic_ns) { return (static_cast<uint64_t>(monotonic_ns) >> kUnitShift) & kFieldMask; }
uint64_t fieldOf(uint64_t word) { return word >> kFieldShift; }

std::atomic<uint32_t> g_generation{0};

constexpr jint kJniVersion21 = 0x00150000;  // JNI_VERSION_21, which JDK 17's headers lack
// IsVirtualThread is the entry after GetModule, the last one JDK 17's table has.
constexpr size_t kIsVirtualThreadEntry = offsetof(JNINativeInterface_, GetModule) / sizeof(void*) + 1;

IsVirtualThreadFn resolved(JNIEnv* jni) {
  // Resolved by the first caller; any other caller finds the same entry of the same table.
  static std::atomic<IsVirtualThreadFn> function{nullptr};
  static std::atomic<bool> known{false};
  if (known.load(std::memory_order_acquire)) return function.load(std::memory_order_relaxed);
  function.store(resolveIsVirtualThread(jni), std::memory_order_relaxed);
  known.store(true, std::memory_order_release);
  return function.load(std::memory_order_relaxed);
}

}  // namespace

uint32_t nextVirtualGeneration() { return g_generation.fetch_add(1, std::memory_order_relaxed) + 1; }

int64_t firstWaitNs(const VirtualEpoch& epoch) { return ((epoch.start_ns >> kUnitShift) + 1) << kUnitShift; }

uint32_t virtualIdOf(uint64_t word) { return static_cast<uint32_t>(word); }

WaitSource waitSourceOf(uint64_t word) { return static_cast<WaitSource>((word >> kSourceShift) & 3); }

uint64_t idleWord(uint32_t id, const VirtualEpoch& epoch) {
  return id | (uint64_t{epoch.generation} & kFieldMask) << kFieldShift;
}

uint64_t withWait(uint64_t word, WaitSource source, int64_t now_ns) {
  return virtualIdOf(word) | static_cast<uint64_t>(source) << kSourceShift | units(now_ns) << kFieldShift;
}

int64_t waitedNs(uint64_t word, int64_t now_ns) {
  return static_cast<int64_t>(((units(now_ns) - fieldOf(word)) & kFieldMask) << kUnitShift);
}

bool writtenBy(uint64_t word, const VirtualEpoch& epoch, int64_t now_ns) {
  if (waitSourceOf(word) == WaitSource::None) return fieldOf(word) == (epoch.generation & kFieldMask);
  // Its wait began in a later unit than the session: fewer units ago than the session began.
  const uint64_t since_wait = (units(now_ns) - fieldOf(word)) & kFieldMask;
  const uint64_t since_session = (units(now_ns) - units(epoch.start_ns)) & kFieldMask;
  return since_wait < since_session;
}

IsVirtualThreadFn resolveIsVirtualThread(JNIEnv* jni) {
  if (jni->GetVersion() < kJniVersion21) return nullptr;
  return reinterpret_cast<IsVirtualThreadFn>(reinterpret_cast<void* const*>(jni->functions)[kIsVirtualThreadEntry]);
}

bool isVirtualThread(JNIEnv* jni, jobject thread) {
  const IsVirtualThreadFn is_virtual = resolved(jni);
  return is_virtual && thread && is_virtual(jni, thread);
}

}  // namespace stackscope::agent
