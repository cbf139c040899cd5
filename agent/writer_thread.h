// The writer thread: drains the sample ring and the meta-event queue into the recording,
// resolving methods and deduplicating stacks, writes status reports and lost-sample counts,
// and flushes a complete chunk at least every second so a kill -9 loses at most that much.
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "agent/agent_thread.h"
#include "agent/alloc_trace.h"
#include "agent/annotation_table.h"
#include "agent/carrier_frames.h"
#include "agent/class_histogram.h"
#include "agent/class_init_lock.h"
#include "agent/thread_parents.h"
#include "agent/code_regions.h"
#include "agent/exception_trace.h"
#include "agent/gc_trace.h"
#include "agent/lock_owners.h"
#include "agent/lock_trace.h"
#include "agent/lost_counters.h"
#include "agent/meta_events.h"
#include "agent/method_resolver.h"
#include "agent/native_threads.h"
#include "agent/options.h"
#include "agent/raw_stack_cache.h"
#include "agent/rotation.h"
#include "agent/sample_slot.h"
#include "agent/status.h"
#include "agent/thread_registry.h"
#include "agent/writer_pacing.h"
#include "format/writer.h"

namespace stackscope::agent {

struct WriterInputs {
  jvmtiEnv* jvmti;
  format::RecordingWriter* writer;  // open, RecordingInfo already written
  SampleRing* ring;
  LostCounters* lost;
  MetaQueue* meta;
  ThreadRegistry* registry;
  StatusSampler* status;
  const AnnotationTable* annotations;
  const Options* options;
  const CodeRegions* code_regions;  // names the stub frames of the stack capture
  NativeThreads* native_threads;    // threads found by tid (mixed mode, adopted at attach): scanned every second; null when none
  GcTrace* gc_trace;                // the traces, each null when off
  ExceptionTrace* exceptions;
  AllocTrace* allocs;  // also the live trace's deaths
  LockTrace* locks;
  LockOwners* lock_owners;  // with locks: finds the owners of long waits at each drain
  ClassHistogram* histogram;        // with histo=, or a histo command
  ThreadParents* thread_parents;    // which thread started which (always)
  WriterWake* wake;                 // how the producers above end the writer's long sleeps
  int64_t start_ns;  // monotonic time 0
  const std::string* file_path;  // the file `writer` opened: the first of a rotation
};

class WriterThread {
 public:
  explicit WriterThread(const WriterInputs& in);

  bool start(JNIEnv* jni);
  bool isWriterThread(JNIEnv* jni, jthread thread) const { return thread_.is(jni, thread); }
  AgentThread& agentThread() { return thread_; }  // a session's end checks and releases it

  // At VM death: stops the thread (waiting at most timeout_ns), drains what is left and
  // finishes the file. Never blocks longer than about twice the timeout.
  bool finish(JNIEnv* jni, int64_t timeout_ns);

  // For the control server, from its own thread. Both drain what is pending and write a
  // complete chunk now (waiting at most timeout_ns for the writer); dumpTo then copies the
  // recording so far to `path` (format::RecordingWriter::copyTo). False with `error` set.
  // With rotation, dumpTo copies every part still on disk, each as the same part of `path`
  // (recording_parts.h): `dumped` says which.
  struct DumpedParts {
    uint64_t first = 0;  // the oldest part copied
    uint64_t last = 0;   // the current one
    size_t files = 0;
  };
  bool flushNow(JNIEnv* jni, int64_t timeout_ns, std::string& error);
  bool dumpTo(JNIEnv* jni, const std::string& path, int64_t timeout_ns, DumpedParts& dumped, std::string& error);

  // What the writer has written, as of its last cycle: read by any thread. The recording's
  // first committedBytes() bytes are complete chunks (and, once finished(), the whole file);
  // with rotation, of the current file. samplesWritten() counts every file's.
  uint64_t committedBytes() const { return committed_bytes_.load(std::memory_order_acquire); }
  // Which file of a rotation the writer is in: 0 for the first (file_path), N for
  // format::partName(file_path, N). Read it before and after committedBytes(): when the two
  // differ, a rotation came between and the bytes may be either file's.
  uint64_t part() const { return part_.load(std::memory_order_acquire); }
  uint64_t samplesWritten() const { return samples_written_.load(std::memory_order_relaxed); }
  // part(), committedBytes() and the sizes of the parts before, taken together (status).
  struct FileFigures {
    uint64_t part = 0;
    uint64_t part_bytes = 0;    // complete chunks of the current part
    uint64_t bytes_before = 0;  // every earlier part's size as written, those deleted included
  };
  FileFigures fileFigures() const;
  bool finished() const { return finished_.load(std::memory_order_acquire); }

 private:
  static void run(void* self, JNIEnv* jni, AgentThread& thread);
  // One round of draining and writing; `last` finishes the file. io_mutex_ held.
  void cycle(JNIEnv* jni, bool last);
  void drainMeta();
  // A buffer this drain found `count` full of its `capacity`: for the next sleep (writer_pacing.h).
  void noteDrained(size_t count, size_t capacity);
  void drainRing(JNIEnv* jni);
  void writeStack(JNIEnv* jni, const SampleSlot& slot);
  format::Frame frameOf(JNIEnv* jni, const RawFrame& raw);
  void writeRepeats(const SampleSlot& slot);
  // `stack` (whose frames are `frames`) as a sample in `state` shows it: in a pause, with
  // that pause's pseudo-frame on top (vm_pauses.h), else as it is.
  uint32_t stackInState(uint32_t stack, const std::vector<format::Frame>& frames, uint8_t state);
  // The traces' events (writer_traces.cpp); `last` also says what they could not record.
  void drainTraces(JNIEnv* jni, bool last);
  void drainAllocs(JNIEnv* jni);
  // The stack of a trace's event taken with GetStackTrace, or of a cpu sample, with `top` (a
  // method id, 0 = none) above its frames: its id in the recording, from stack_cache_ when the
  // same raw frames were seen. `construction`: a created exception's trace, whose construction
  // frames are left out (exception_trace.h).
  uint32_t traceStack(JNIEnv* jni, uint32_t top, std::span<const RawFrame> frames,
                      ExceptionTrace* construction = nullptr);
  // The same without the memo, the stack's frames left in frames_ (for those who keep them).
  uint32_t internRawStack(JNIEnv* jni, uint32_t top, std::span<const RawFrame> frames, size_t skip);
  void drainLocks(JNIEnv* jni);
  void ensureThreadRecord(uint32_t thread);
  // Writes the Annotation record of `id` the first time an event uses it: only the
  // annotations of recorded threads reach the file when a filter leaves others out.
  void ensureAnnotation(uint32_t id);
  void writeLostDeltas(int64_t time_ns);
  // Rotation (rotation.h): ends the file, goes on in the next one, and starts its tables anew.
  void rotate(JNIEnv* jni, int64_t now, int64_t time_ns);
  void startFileTables(JNIEnv* jni);
  uint64_t sessionSamples() const { return samples_before_ + in_.writer->samplesWritten(); }
  void fail();
  void publish();  // io_mutex_ held
  // Locks io_mutex_ within timeout_ns and flushes; false with `error` set. Leaves it locked on success.
  bool lockAndFlush(JNIEnv* jni, std::unique_lock<std::timed_mutex>& lock, int64_t timeout_ns, std::string& error);

  WriterInputs in_;
  MethodResolver methods_;
  CarrierFrames carrier_frames_;
  ClassInitLocks class_init_locks_;  // names the initialization locks lock waits were for
  AgentThread thread_;
  std::timed_mutex io_mutex_;  // one consumer of the ring, one user of the writer
  bool failed_ = false;
  // The writer changes committed_bytes_, part_ and bytes_before_ under figures_mutex_, so
  // that fileFigures() finds them consistent; the stream reads the atomics on their own.
  mutable std::mutex figures_mutex_;
  std::atomic<uint64_t> committed_bytes_{0};
  std::atomic<uint64_t> part_{0};
  uint64_t bytes_before_ = 0;
  std::atomic<uint64_t> samples_written_{0};
  std::atomic<bool> finished_{false};
  int64_t next_status_ns_ = 0;  // monotonic
  int64_t next_flush_ns_ = 0;   // monotonic
  int64_t next_scan_ns_ = 0;    // monotonic: the next look for native threads
  int64_t next_look_ns_ = INT64_MAX;  // monotonic: the lock owners' next look (lock_owners.h)
  WriterPacing pacing_;
  int64_t last_cycle_ns_ = 0;  // monotonic
  double fullest_ = 0;           // of this cycle's buffers, as noteDrained saw them
  bool new_stacks_ = false;      // this cycle named a stack not seen before (traceStack)
  std::optional<Rotation> rotation_;  // set by start()
  uint64_t samples_before_ = 0;       // in the files before the current one
  uint64_t lost_reported_[format::kLostReasonMax + 1] = {};
  std::vector<MetaEvent> meta_batch_;
  std::vector<ThrownException> exception_batch_;
  std::vector<RawFrame> exception_batch_frames_;  // exception_batch_'s frames (FrameRange)
  std::vector<SampledAllocation> alloc_batch_;
  std::vector<LockWait> lock_batch_;
  std::vector<Histogram> histogram_batch_;
  std::vector<ThreadStartNote> thread_start_batch_;
  std::vector<format::Frame> frames_;
  RawStackCache stack_cache_;  // the traces' and samples' stacks already interned (traceStack)
  // The class frame's method id by (interned class name, uncaught) (exception_trace.h).
  std::map<std::pair<const std::string*, bool>, uint32_t> exception_frames_;
  std::unordered_set<uint32_t> threads_written_;  // in the current file
  // The last record of each thread not yet ended: what the next file of a rotation begins with.
  // Virtual threads have no end event: theirs are kept apart, at most kMaxVirtualRecords of the
  // latest (virtual_records_ starts again empty beyond), so millions of them cannot grow it.
  static constexpr size_t kMaxVirtualRecords = 1 << 16;
  std::unordered_map<uint32_t, format::ThreadRecord> thread_records_;
  std::unordered_map<uint32_t, format::ThreadRecord> virtual_records_;
  std::vector<bool> annotations_written_;  // by annotation id
  std::unordered_map<uint32_t, uint32_t> last_stack_;  // thread -> its last captured stack
  // wall mode, where pauses are sampled: thread -> the frames of its last captured stack,
  // and (stack << 8 | state) -> that stack under its pause's pseudo-frame.
  std::unordered_map<uint32_t, std::vector<format::Frame>> last_frames_;
  std::unordered_map<uint64_t, uint32_t> paused_stacks_;
  std::vector<format::Frame> paused_frames_;
  std::vector<uint32_t> ended_;          // threads ended in this cycle
  std::vector<uint32_t> ended_before_;   // ... in the previous one: forgotten after this one
};

}  // namespace stackscope::agent
