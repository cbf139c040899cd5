// Follows Java threads through JVMTI ThreadStart/ThreadEnd: registers them for sampling,
// arms their CPU timers (cpu mode) and queues their thread records and events. In wall mode
// it also registers, at VMInit, the threads that were running before (foreign slots,
// thread_registry.h), with their OS tids found by name in /proc.
//
// One thread, one id: a Java thread that starts on the OS thread of one that ended (the
// launcher's main thread detaches as "main" and attaches again as "DestroyJavaVM"; native
// code attaching a thread again) gets the id of the earlier one, and its record is a rename.
// Renames are recorded as a new record with the same id (docs/format.md).
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <atomic>
#include <functional>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>

#include "agent/annotation_table.h"
#include "agent/lost_counters.h"
#include "agent/meta_events.h"
#include "agent/native_threads.h"
#include "agent/options.h"
#include "agent/thread_registry.h"
#include "agent/virtual_state.h"

namespace stackscope::agent {

class ThreadTracker {
 public:
  // `annotations` tells whether a collection-time filter leaves new threads out at first.
  ThreadTracker(jvmtiEnv* jvmti, ThreadRegistry& registry, MetaQueue& meta, LostCounters& lost,
                const Options& options, const AnnotationTable& annotations, int64_t start_ns)
      : jvmti_(jvmti),
        registry_(registry),
        meta_(meta),
        lost_(lost),
        options_(options),
        annotations_(annotations),
        start_ns_(start_ns),
        virtual_epoch_{nextVirtualGeneration(), start_ns} {}

  // Live phase, before threads are followed: looks up Thread.getId for the Java thread ids.
  void init(JNIEnv* jni);
  // Both run on the thread that starts or ends (VMInit registers the main thread this way;
  // a second start of an already registered thread is ignored).
  void onStart(JNIEnv* jni, jthread thread);
  void onEnd(JNIEnv* jni, jthread thread);

  // VMInit, once the agent's threads exist (is_agent_thread tells them): registers every
  // live thread not registered yet as a foreign slot (wall mode, and traces without sampling).
  void registerRunning(JNIEnv* jni, bool (*is_agent_thread)(JNIEnv* jni, jthread thread));
  // After an attach, cpu mode: every live thread (but the agent's) is sampled through
  // `table` by its tid (native_threads.h), its record queued first.
  void adoptRunning(JNIEnv* jni, bool (*is_agent_thread)(JNIEnv* jni, jthread thread), NativeThreads& table);
  // VM death, once the recording is finished: frees the foreign slots, which no ThreadEnd
  // will remove any more.
  void dropForeign(JNIEnv* jni);
  // A session's end, once no callback or signal handler can reach a slot any more
  // (session_gate.h, stopCapture): frees every slot.
  void dropAll(JNIEnv* jni);

  // Virtual threads (virtual_threads.h), on the carrier: the mounted thread's id (a new one
  // and its record at its first mount in this session) goes into the carrier's slot, and out
  // again. Returns the virtual thread's JVMTI thread-local storage word (virtual_state.h) as
  // this session's: as read when this session wrote it, else the new id's; 0 when the carrier
  // is not registered.
  uintptr_t onVirtualMount(JNIEnv* jni, jthread vthread);
  void onVirtualUnmount();
  // The mark of this session on the virtual threads' words; no mount writes one before
  // firstWaitNs(virtualEpoch()) (enableVirtualThreadEvents).
  const VirtualEpoch& virtualEpoch() const { return virtual_epoch_; }

  // Queues a new record for the thread if its name changed since it was last read. Cheap
  // when it did not: the name field compared by identity. Registry mutex held.
  void noticeRename(JNIEnv* jni, ThreadSlot& slot);

 private:
  std::string threadName(jthread thread);
  int64_t javaId(JNIEnv* jni, jthread thread);
  // A new slot for `thread`, and in `start` its ThreadStart event with its record.
  ThreadSlot* newSlot(JNIEnv* jni, jthread thread, pid_t tid, MetaEvent& start);
  // A live thread as the VM tells it: tid 0 when not found by name, stack zeros when not asked
  // for or the VM's account of it cannot be read or checked, java_thread 0 when not read.
  struct Running {
    jthread thread;
    pid_t tid;
    StackBounds stack;
    uintptr_t java_thread;
  };
  void registerForeign(JNIEnv* jni, const Running& running);
  // fn for every live thread but the agent's; stacks only `with_stacks`.
  void forEachRunning(JNIEnv* jni, bool (*is_agent_thread)(JNIEnv* jni, jthread thread), bool with_stacks,
                      const std::function<void(const Running&)>& fn);
  void release(JNIEnv* jni, ThreadSlot* slot);
  // The id of the thread that ran on this OS thread before (0 if none) and forgets it.
  uint32_t earlierIdOnOsThread(pid_t tid, uint64_t os_start);
  void rememberOsThread(const ThreadSlot& slot);

  jvmtiEnv* jvmti_;
  ThreadRegistry& registry_;
  MetaQueue& meta_;
  LostCounters& lost_;
  const Options& options_;
  const AnnotationTable& annotations_;
  const int64_t start_ns_;
  const VirtualEpoch virtual_epoch_;
  std::atomic<jmethodID> get_id_{nullptr};
  std::atomic<jfieldID> name_field_{nullptr};
  // Ended threads by tid, with their OS threads' start times (callbacks, under ended_mutex_).
  struct EndedThread {
    uint32_t id;
    uint64_t os_start;
  };
  std::mutex ended_mutex_;
  std::unordered_map<pid_t, EndedThread> ended_;
  std::atomic<bool> timer_warned_{false};
};

}  // namespace stackscope::agent
