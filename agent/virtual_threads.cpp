#include "agent/virtual_threads.h"

#include <chrono>
#include <cstdarg>
#include <cstring>
#include <thread>

#include "agent/clocks.h"
#include "agent/session_gate.h"
#include "agent/thread_tracker.h"
#include "agent/virtual_waits.h"

namespace stackscope::agent {

namespace {

constexpr const char* kMountEvent = "com.sun.hotspot.events.VirtualThreadMount";
constexpr const char* kUnmountEvent = "com.sun.hotspot.events.VirtualThreadUnmount";

ThreadTracker* g_tracker = nullptr;  // the session's, read under a SessionUse
VirtualWaits* g_waits = nullptr;     // likewise; null when the lock trace is off
// The extension events' indices once enabled (-1: not), for disableVirtualThreadEvents.
jint g_mount_index = -1;
jint g_unmount_index = -1;

// The bit index of the one capability set in `caps`, or -1.
int onlyBitOf(const jvmtiCapabilities& caps) {
  unsigned char bytes[sizeof(caps)];
  std::memcpy(bytes, &caps, sizeof(caps));
  for (size_t i = 0; i < sizeof(caps) * 8; ++i) {
    if (bytes[i / 8] & (1u << (i % 8))) return static_cast<int>(i);
  }
  return -1;
}

bool hasBit(const jvmtiCapabilities& caps, int bit) {
  unsigned char bytes[sizeof(caps)];
  std::memcpy(bytes, &caps, sizeof(caps));
  return (bytes[bit / 8] >> (bit % 8)) & 1u;
}

void setBit(jvmtiCapabilities& caps, int bit) {
  unsigned char bytes[sizeof(caps)];
  std::memcpy(bytes, &caps, sizeof(caps));
  bytes[bit / 8] |= static_cast<unsigned char>(1u << (bit % 8));
  std::memcpy(&caps, bytes, sizeof(caps));
}

int virtualThreadCapabilityBit() {
  jvmtiCapabilities probe{};
  probe.can_generate_sampled_object_alloc_events = 1;
  const int sampled_alloc = onlyBitOf(probe);
  return sampled_alloc < 0 ? -1 : sampled_alloc + 1;
}

// The extension events' callbacks are varargs: (jvmtiEnv*, JNIEnv*, jthread virtual_thread).
void JNICALL onMount(jvmtiEnv* jvmti, ...) {
  va_list args;
  va_start(args, jvmti);
  JNIEnv* jni = va_arg(args, JNIEnv*);
  jthread vthread = va_arg(args, jthread);
  va_end(args);
  SessionUse use;
  if (!use || !g_tracker) return;
  // First: gives a new virtual thread its id, and reads its storage for the waits.
  const uintptr_t stored = g_tracker->onVirtualMount(jni, vthread);
  if (g_waits && stored != 0) g_waits->onMount(jni, vthread, stored);
}

// The virtual thread is the calling thread still: what it needs of it, it reads as the current one.
void JNICALL onUnmount(jvmtiEnv*, ...) {
  SessionUse use;
  if (!use || !g_tracker) return;
  if (g_waits) g_waits->onUnmount();
  g_tracker->onVirtualUnmount();
}

}  // namespace

void requestVirtualThreadSupport(jvmtiEnv* jvmti, jvmtiCapabilities& caps) {
  const int bit = virtualThreadCapabilityBit();
  jvmtiCapabilities potential{};
  if (bit < 0 || jvmti->GetPotentialCapabilities(&potential) != JVMTI_ERROR_NONE || !hasBit(potential, bit)) return;
  setBit(caps, bit);
}

bool enableVirtualThreadEvents(jvmtiEnv* jvmti, ThreadTracker* tracker, VirtualWaits* waits) {
  jvmtiCapabilities have{};
  const int bit = virtualThreadCapabilityBit();
  if (bit < 0 || jvmti->GetCapabilities(&have) != JVMTI_ERROR_NONE || !hasBit(have, bit)) return false;
  jint count = 0;
  jvmtiExtensionEventInfo* events = nullptr;
  if (jvmti->GetExtensionEvents(&count, &events) != JVMTI_ERROR_NONE) return false;
  jint mount = -1;
  jint unmount = -1;
  for (jint i = 0; i < count; ++i) {
    if (std::strcmp(events[i].id, kMountEvent) == 0) mount = events[i].extension_event_index;
    if (std::strcmp(events[i].id, kUnmountEvent) == 0) unmount = events[i].extension_event_index;
  }
  // The list and every string and array in it are JVMTI allocations.
  for (jint i = 0; i < count; ++i) {
    jvmti->Deallocate(reinterpret_cast<unsigned char*>(events[i].id));
    jvmti->Deallocate(reinterpret_cast<unsigned char*>(events[i].short_description));
    for (jint p = 0; p < events[i].param_count; ++p) {
      jvmti->Deallocate(reinterpret_cast<unsigned char*>(events[i].params[p].name));
    }
    jvmti->Deallocate(reinterpret_cast<unsigned char*>(events[i].params));
  }
  jvmti->Deallocate(reinterpret_cast<unsigned char*>(events));
  if (mount < 0 || unmount < 0) return false;
  // No mount of this session notes a wait in the clock unit in which it began, so that a word
  // noting one is told from an earlier session's (virtual_state.h): at most 65.5 µs.
  const int64_t first_wait = firstWaitNs(tracker->virtualEpoch());
  for (int64_t now = monotonicNs(); now < first_wait; now = monotonicNs()) {
    std::this_thread::sleep_for(std::chrono::nanoseconds(first_wait - now));
  }
  g_tracker = tracker;
  g_waits = waits;
  g_mount_index = mount;
  g_unmount_index = unmount;
  if (jvmti->SetExtensionEventCallback(mount, reinterpret_cast<jvmtiExtensionEvent>(onMount)) != JVMTI_ERROR_NONE ||
      jvmti->SetExtensionEventCallback(unmount, reinterpret_cast<jvmtiExtensionEvent>(onUnmount)) != JVMTI_ERROR_NONE) {
    return false;
  }
  return jvmti->SetEventNotificationMode(JVMTI_ENABLE, static_cast<jvmtiEvent>(mount), nullptr) == JVMTI_ERROR_NONE &&
         jvmti->SetEventNotificationMode(JVMTI_ENABLE, static_cast<jvmtiEvent>(unmount), nullptr) == JVMTI_ERROR_NONE;
}

void disableVirtualThreadEvents(jvmtiEnv* jvmti) {
  for (jint index : {g_mount_index, g_unmount_index}) {
    if (index >= 0) jvmti->SetExtensionEventCallback(index, nullptr);  // null disables the event
  }
  g_mount_index = g_unmount_index = -1;
  g_tracker = nullptr;
  g_waits = nullptr;
}

}  // namespace stackscope::agent
