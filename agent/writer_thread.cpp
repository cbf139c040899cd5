#include "agent/writer_thread.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "agent/clocks.h"
#include "agent/cpu_sampler.h"
#include "agent/recording_parts.h"
#include "agent/stack_capture.h"
#include "agent/vm_pauses.h"
#include "format/part_names.h"
#include "native/unwind_modules.h"

namespace stackscope::agent {

namespace {
// Crash consistency: a complete chunk reaches the file at least this often.
constexpr int64_t kMaxFlushPeriodNs = 1'000'000'000;
// Mixed mode: the native threads are scanned whenever the thread count changes, and at least
// this often (a thread that started as another ended leaves the count as it was).
constexpr int64_t kNativeScanPeriodNs = 1'000'000'000;
// A thread whose stack is not known yet but left its stack pointer gets a scan sooner, yet
// not every cycle: a pointer in no readable mapping is left again by its next sample.
constexpr int64_t kPendingStackScanGapNs = 100'000'000;
}  // namespace

WriterThread::WriterThread(const WriterInputs& in)
    : in_(in),
      methods_(in.jvmti, *in.writer),
      carrier_frames_(in.jvmti),
      class_init_locks_(in.jvmti),
      // Samples come in signal handlers, which cannot wake a long sleep (writer_pacing.h).
      pacing_(in.options->mode == SampleMode::None ? WriterPacing::kLongestNs : WriterPacing::kShortestNs) {}

bool WriterThread::start(JNIEnv* jni) {
  const int64_t now = monotonicNs();
  next_status_ns_ = now + in_.options->status_interval_ns;
  next_flush_ns_ = now + std::min(kMaxFlushPeriodNs, in_.options->status_interval_ns);
  rotation_.emplace(*in_.options, *in_.file_path, now);
  last_cycle_ns_ = now;
  in_.wake->attach([this] { thread_.wake(); });
  return thread_.start(in_.jvmti, jni, "stackscope-writer", run, this);
}

void WriterThread::run(void* self_ptr, JNIEnv* jni, AgentThread& thread) {
  auto& self = *static_cast<WriterThread*>(self_ptr);
  for (;;) {
    const int64_t period = self.pacing_.periodNs();
    const int64_t now = monotonicNs();
    // An owner look the budget allows before the period ends, but not sooner than the shortest sleep.
    const int64_t look = std::max(self.next_look_ns_, now + WriterPacing::kShortestNs);
    const int64_t until = std::min({now + period, self.next_status_ns_, self.next_flush_ns_, look});
    // A nudge between this and the sleep is not lost: it makes sleepUntil return at once.
    if (period > WriterPacing::kShortestNs) self.in_.wake->sleepingLong(true);
    const bool go_on = thread.sleepUntil(until);
    self.in_.wake->sleepingLong(false);
    if (!go_on) return;
    std::lock_guard<std::timed_mutex> lock(self.io_mutex_);
    if (self.failed_) return;
    self.cycle(jni, false);
  }
}

bool WriterThread::finish(JNIEnv* jni, int64_t timeout_ns) {
  thread_.stop(timeout_ns);
  std::unique_lock<std::timed_mutex> lock(io_mutex_, std::chrono::nanoseconds(timeout_ns));
  if (!lock.owns_lock()) {
    std::fprintf(stderr, "stackscope: the writer thread did not stop; '%s' is left unfinished\n",
                 in_.options->file.c_str());
    return false;
  }
  if (failed_) return false;
  cycle(jni, true);
  finished_.store(true, std::memory_order_release);
  return !failed_;
}

bool WriterThread::lockAndFlush(JNIEnv* jni, std::unique_lock<std::timed_mutex>& lock, int64_t timeout_ns,
                                std::string& error) {
  lock = std::unique_lock<std::timed_mutex>(io_mutex_, std::chrono::nanoseconds(timeout_ns));
  if (!lock.owns_lock()) {
    error = "the writer is busy (no answer within the time limit)";
    return false;
  }
  if (failed_ || finished()) {
    error = failed_ ? "the recording stopped on a write error" : "the recording is finished";
    return false;
  }
  next_flush_ns_ = 0;  // this cycle flushes
  cycle(jni, false);
  if (failed_) {
    error = in_.writer->lastError();
    return false;
  }
  return true;
}

bool WriterThread::flushNow(JNIEnv* jni, int64_t timeout_ns, std::string& error) {
  std::unique_lock<std::timed_mutex> lock;
  return lockAndFlush(jni, lock, timeout_ns, error);
}

bool WriterThread::dumpTo(JNIEnv* jni, const std::string& path, int64_t timeout_ns, DumpedParts& dumped,
                          std::string& error) {
  std::unique_lock<std::timed_mutex> lock;
  if (!lockAndFlush(jni, lock, timeout_ns, error)) return false;
  // The finished parts are opened while the writer waits: no maxfiles= deletion comes between.
  const PartCopies copies(*in_.file_path, part(), in_.options->max_files);
  if (!copies.mayWrite(path, error) || !in_.writer->copyTo(format::partName(path, copies.current()), error))
    return false;
  lock.unlock();  // the writer goes on while the finished parts are copied
  if (!copies.copy(path, error)) return false;
  dumped = {copies.firstPart(), copies.current(), copies.files()};
  return true;
}

WriterThread::FileFigures WriterThread::fileFigures() const {
  std::lock_guard<std::mutex> lock(figures_mutex_);
  return {part(), committedBytes(), bytes_before_};
}

void WriterThread::publish() {
  {
    std::lock_guard<std::mutex> lock(figures_mutex_);
    committed_bytes_.store(in_.writer->bytesWritten(), std::memory_order_release);
  }
  samples_written_.store(sessionSamples(), std::memory_order_relaxed);
}

void WriterThread::cycle(JNIEnv* jni, bool last) {
  const int64_t now = monotonicNs();
  const int64_t time_ns = now - in_.start_ns;
  if (in_.native_threads && !last &&
      (now >= next_scan_ns_ || in_.native_threads->threadCountChanged() ||
       (now >= next_scan_ns_ - kNativeScanPeriodNs + kPendingStackScanGapNs && in_.native_threads->stackPending()))) {
    in_.native_threads->scan();  // before drainMeta: the records of the threads it found
    next_scan_ns_ = now + kNativeScanPeriodNs;
  }
  // Mixed mode: the unwinding tables of libraries loaded since (one look at the loader's
  // counts when none was).
  if (in_.options->native && !last) native::refreshLoadedUnwindModules();
  releaseStoppedRings();
  fullest_ = 0;
  new_stacks_ = false;
  drainMeta();
  drainRing(jni);
  if (in_.lock_owners && !last) in_.lock_owners->look(jni, now);  // before the waits are drained
  drainTraces(jni, last);
  next_look_ns_ = in_.lock_owners && !last ? in_.lock_owners->nextLookNs() : INT64_MAX;
  pacing_.next(fullest_, now - last_cycle_ns_, new_stacks_ || next_look_ns_ <= now + WriterPacing::kShortestNs);
  last_cycle_ns_ = now;

  if (last || now >= next_status_ns_) {
    in_.writer->writeStatus(in_.status->take(jni, now, time_ns));
    for (const std::string& warning : in_.status->samplingWarnings(sessionSamples())) {
      std::fprintf(stderr, "stackscope: warning: %s\n", warning.c_str());
      in_.writer->writeAgentWarning({time_ns, warning});
    }
    next_status_ns_ += in_.options->status_interval_ns;
    if (next_status_ns_ <= now) next_status_ns_ = now + in_.options->status_interval_ns;
  }
  if (last) {
    writeLostDeltas(time_ns);
    if (!in_.writer->finish(time_ns)) fail();
    publish();
    return;
  }
  if (now >= next_flush_ns_) {
    writeLostDeltas(time_ns);
    if (!in_.writer->flush()) fail();
    next_flush_ns_ = now + std::min(kMaxFlushPeriodNs, in_.options->status_interval_ns);
  }
  // After the flush, which made the file's size known; a file ends between two cycles, so it
  // is at most one cycle's events longer or larger than asked.
  if (!failed_ && rotation_->on() && rotation_->due(now, in_.writer->bytesWritten())) rotate(jni, now, time_ns);
  publish();
  // Threads that ended before the previous drain can have nothing left in the ring now.
  for (uint32_t thread : ended_before_) {
    last_stack_.erase(thread);
    last_frames_.erase(thread);
    thread_records_.erase(thread);
  }
  ended_before_.swap(ended_);
  ended_.clear();
}

void WriterThread::noteDrained(size_t count, size_t capacity) {
  fullest_ = std::max(fullest_, static_cast<double>(count) / static_cast<double>(std::max<size_t>(capacity, 1)));
}

void WriterThread::drainMeta() {
  in_.meta->takeAll(meta_batch_);
  noteDrained(meta_batch_.size(), MetaQueue::kPacedCapacity);
  for (const MetaEvent& event : meta_batch_) {
    if (event.has_record) {
      in_.writer->writeThread(event.record);
      threads_written_.insert(event.thread);
      auto& kept = event.record.is_virtual ? virtual_records_ : thread_records_;
      if (event.record.is_virtual && virtual_records_.size() >= kMaxVirtualRecords) virtual_records_.clear();
      kept[event.thread] = event.record;
    }
    switch (event.kind) {
      case MetaEvent::Kind::ThreadStart:
        in_.writer->writeThreadStart({event.time_ns, event.thread});
        // An id that ended and starts again (one OS thread, thread_tracker.h) keeps its stacks.
        std::erase(ended_, event.thread);
        std::erase(ended_before_, event.thread);
        break;
      case MetaEvent::Kind::Rename:
        break;
      case MetaEvent::Kind::ThreadEnd:
        in_.writer->writeThreadEnd({event.time_ns, event.thread});
        ended_.push_back(event.thread);
        break;
      case MetaEvent::Kind::Marker:
        in_.writer->writeMarker({event.time_ns, event.thread, event.marker, in_.writer->internString(event.name)});
        break;
      case MetaEvent::Kind::AnnotationChange:
        ensureAnnotation(event.annotation);
        in_.writer->writeAnnotationChange({event.time_ns, event.thread, event.annotation});
        break;
    }
  }
}

void WriterThread::ensureAnnotation(uint32_t id) {
  if (id == 0 || (id < annotations_written_.size() && annotations_written_[id])) return;
  format::AnnotationRecord record;
  record.id = id;
  AnnotationValues values;
  if (in_.annotations->valuesOf(id, values)) {
    for (int field = 0; field < kAnnotationFields; ++field) {
      if (values.isSet(field)) record.fields[field] = in_.writer->internString(values.value[field]);
    }
  }
  in_.writer->writeAnnotation(record);
  if (id >= annotations_written_.size()) annotations_written_.resize(id + 1);
  annotations_written_[id] = true;
}

void WriterThread::ensureThreadRecord(uint32_t thread) {
  // A thread queues its record before it can be sampled, but it may have started after this
  // cycle took the queue: take it again so the record precedes the sample.
  if (!threads_written_.count(thread)) drainMeta();
}

void WriterThread::drainRing(JNIEnv* jni) {
  size_t drained = 0;
  for (; const SampleSlot* slot = in_.ring->front(); ++drained) {
    if (slot->kind == SlotKind::Stack) {
      writeStack(jni, *slot);
    } else if (slot->kind == SlotKind::Repeat) {
      writeRepeats(*slot);
    }
    in_.ring->pop();
  }
  noteDrained(drained, in_.ring->capacity());
}

void WriterThread::writeStack(JNIEnv* jni, const SampleSlot& slot) {
  ensureThreadRecord(slot.thread);
  const std::span<const RawFrame> frames(slot.frames, slot.count);
  // Only platform threads are repeated; virtual ones, maybe millions, are not remembered.
  const bool keeps_frames = slot.carrier == 0 && in_.options->mode == SampleMode::Wall;
  // Naming every frame and walking the prefix tree was most of the writer's work per sample;
  // a stack seen before is one hash of its raw frames. Wall mode and pauses need the frames.
  const uint32_t stack = keeps_frames || pauseFrameName(slot.state) ? internRawStack(jni, 0, frames, 0)
                                                                     : traceStack(jni, 0, frames);
  if (slot.carrier == 0) {
    last_stack_[slot.thread] = stack;
    if (keeps_frames) last_frames_[slot.thread] = frames_;
  }
  ensureAnnotation(slot.annotation);
  format::SampleRecord sample{slot.time_ns, slot.thread, stackInState(stack, frames_, slot.state),
                              static_cast<format::ThreadState>(slot.state),
                              slot.weight, slot.annotation, slot.carrier};
  sample.cpu_us = slot.cpu_us;
  sample.alloc_bytes = slot.alloc_bytes;
  in_.writer->writeSample(sample);
}

format::Frame WriterThread::frameOf(JNIEnv* jni, const RawFrame& raw) {
  if (raw.bci == kStubFrameBci) {
    const auto region = static_cast<int32_t>(reinterpret_cast<uintptr_t>(raw.method) - 1);
    return {methods_.stubId(in_.code_regions->name(region)), -1};
  }
  if (raw.bci == kNativeFrameBci) return {methods_.nativeId(reinterpret_cast<uintptr_t>(raw.method)), -1};
  return {methods_.idFor(jni, raw.method), raw.bci};
}

void WriterThread::writeRepeats(const SampleSlot& slot) {
  for (uint16_t i = 0; i < slot.count; ++i) {
    const RepeatEntry& entry = slot.repeats[i];
    auto it = last_stack_.find(entry.thread);
    if (it == last_stack_.end()) {  // cannot happen: a repeat follows a captured stack
      in_.lost->add(format::LostReason::UnknownState);
      continue;
    }
    ensureAnnotation(entry.annotation);
    const uint32_t stack = stackInState(it->second, last_frames_[entry.thread], entry.state);
    in_.writer->writeSample({slot.time_ns, entry.thread, stack, static_cast<format::ThreadState>(entry.state),
                             entry.weight, entry.annotation});
  }
}

uint32_t WriterThread::stackInState(uint32_t stack, const std::vector<format::Frame>& frames, uint8_t state) {
  const char* pause = pauseFrameName(state);
  if (!pause) return stack;
  auto [it, inserted] = paused_stacks_.try_emplace((uint64_t{stack} << 8) | state, 0);
  if (inserted) {
    paused_frames_.assign(1, {methods_.namedId(pause), -1});
    paused_frames_.insert(paused_frames_.end(), frames.begin(), frames.end());
    it->second = in_.writer->internStack(paused_frames_.data(), paused_frames_.size());
  }
  return it->second;
}

void WriterThread::writeLostDeltas(int64_t time_ns) {
  for (int reason = 1; reason <= format::kLostReasonMax; ++reason) {
    const uint64_t count = in_.lost->get(static_cast<format::LostReason>(reason));
    if (count > lost_reported_[reason]) {
      in_.writer->writeLost({time_ns, static_cast<format::LostReason>(reason), count - lost_reported_[reason]});
      lost_reported_[reason] = count;
    }
  }
}

void WriterThread::rotate(JNIEnv* jni, int64_t now, int64_t time_ns) {
  writeLostDeltas(time_ns);
  const uint64_t samples = in_.writer->samplesWritten();
  if (!in_.writer->continueIn(rotation_->next(now), time_ns)) {
    fail();
    return;
  }
  samples_before_ += samples;
  {
    // Readers of the file as it grows (the control server's stream) find the new file empty
    // before they find it current.
    std::lock_guard<std::mutex> lock(figures_mutex_);
    bytes_before_ += in_.writer->finishedFileBytes();
    committed_bytes_.store(0, std::memory_order_release);
    part_.fetch_add(1, std::memory_order_release);
  }
  if (std::string error; !rotation_->opened(error)) std::fprintf(stderr, "stackscope: warning: %s\n", error.c_str());
  startFileTables(jni);
}

void WriterThread::startFileTables(JNIEnv* jni) {
  methods_.restart();
  stack_cache_.forget();
  in_.wake->forgetNamed();
  decltype(exception_frames_)().swap(exception_frames_);
  decltype(paused_stacks_)().swap(paused_stacks_);
  std::vector<bool>().swap(annotations_written_);
  decltype(threads_written_)().swap(threads_written_);
  // Every live thread is described again: events of this file may name any of them.
  for (const auto* records : {&thread_records_, &virtual_records_}) {
    for (const auto& [thread, record] : *records) {
      in_.writer->writeThread(record);
      threads_written_.insert(thread);
    }
  }
  // Wall mode repeats a thread's last stack until the thread runs again (wall_sampler.h),
  // which may be hours: that stack is named again in this file.
  decltype(last_stack_)().swap(last_stack_);
  for (auto& [thread, frames] : last_frames_) {
    for (format::Frame& frame : frames) frame.method = methods_.renamed(jni, frame.method);
    last_stack_[thread] = in_.writer->internStack(frames.data(), frames.size());
  }
  methods_.forgetPrevious();
}

void WriterThread::fail() {
  failed_ = true;
  setCaptureActive(false);
  std::fprintf(stderr, "stackscope: cannot write '%s': %s; recording stopped\n", in_.options->file.c_str(),
               in_.writer->lastError().c_str());
}

}  // namespace stackscope::agent
