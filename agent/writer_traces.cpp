// The writer thread's part for the traces other than sampling (gc, exception, alloc, live, lock,
// histogram): their events
// reach the file in the same chunks as the samples, each within a drain period of happening.
#include <cstdio>

#include "agent/clocks.h"
#include "agent/writer_thread.h"

namespace stackscope::agent {

void WriterThread::drainTraces(JNIEnv* jni, bool last) {
  if (GcTrace* gc = in_.gc_trace) {
    size_t drained = 0;
    gc->drain([&](const GcCollection& c) {
      ++drained;
      const std::string collector = gc->collectorNames(c.collectors);
      in_.writer->writeGc({c.start_ns, c.end_ns - c.start_ns, collector.empty() ? 0 : in_.writer->internString(collector),
                           c.cause[0] ? in_.writer->internString(c.cause) : 0});
    });
    noteDrained(drained, GcTrace::kCapacity);
  }
  if (ExceptionTrace* exceptions = in_.exceptions) {
    exceptions->takeAll(exception_batch_, exception_batch_frames_);
    noteDrained(exception_batch_.size(), ExceptionTrace::kMaxQueued);
    for (const ThrownException& thrown : exception_batch_) {
      if (thrown.thread != 0) ensureThreadRecord(thrown.thread);
      uint32_t& top = exception_frames_[{thrown.class_name, thrown.uncaught}];
      if (top == 0) top = methods_.namedId(exceptionFrameName(*thrown.class_name, thrown.uncaught));
      // A created exception's stack begins at the code that created it (exception_trace.h).
      const uint32_t stack = traceStack(jni, top, thrown.frames.in(exception_batch_frames_), thrown.created ? exceptions : nullptr);
      ensureAnnotation(thrown.annotation);
      in_.writer->writeException({thrown.time_ns, thrown.thread, stack, thrown.annotation});
    }
  }
  if (in_.allocs) drainAllocs(jni);
  if (in_.locks) drainLocks(jni);
  if (ClassHistogram* histogram = in_.histogram) {
    histogram->takeAll(histogram_batch_);
    for (const Histogram& h : histogram_batch_) {
      format::ClassHistogramRecord record{h.time_ns, h.pause_ns, {}};
      record.classes.reserve(h.classes.size());
      for (const ClassCount& c : h.classes) {
        const format::Frame frame{methods_.namedId(c.class_name), -1};
        record.classes.push_back({in_.writer->internStack(&frame, 1), c.instances, c.bytes});
      }
      in_.writer->writeClassHistogram(record);
    }
  }
  if (ThreadParents* parents = in_.thread_parents) {
    parents->takeAll(thread_start_batch_);
    noteDrained(thread_start_batch_.size(), ThreadParents::kMaxQueued);
    for (const ThreadStartNote& start : thread_start_batch_) {
      if (start.parent != 0) ensureThreadRecord(start.parent);
      in_.writer->writeThreadParent({start.time_ns, start.parent, traceStack(jni, 0, start.frames), start.child_java_id});
    }
  }
  if (!last) return;
  // Nothing silent: what a trace could not keep is said in the recording and on stderr, at
  // the recording's end, when it is known.
  const int64_t end_ns = monotonicNs() - in_.start_ns;
  const auto warn = [&](const std::string& warning) {
    std::fprintf(stderr, "stackscope: warning: %s\n", warning.c_str());
    in_.writer->writeAgentWarning({end_ns, warning});
  };
  const uint64_t gc_dropped = in_.gc_trace ? in_.gc_trace->dropped() : 0;
  const uint64_t exceptions_dropped = in_.exceptions ? in_.exceptions->dropped() : 0;
  const uint64_t allocs_dropped = in_.allocs ? in_.allocs->dropped() : 0;
  const uint64_t locks_dropped = in_.locks ? in_.locks->dropped() : 0;
  const uint64_t starts_dropped = in_.thread_parents ? in_.thread_parents->dropped() : 0;
  for (const auto& [count, what] : {std::pair{gc_dropped, "garbage collections"}, std::pair{exceptions_dropped, "exceptions"},
                                    std::pair{allocs_dropped, "sampled allocations"}, std::pair{locks_dropped, "lock waits"},
                                    std::pair{starts_dropped, "thread starts (which thread started which)"}}) {
    if (count == 0) continue;
    warn(std::to_string(count) + " " + what + " were not recorded: the writer fell behind");
  }
  // Only the waits that had a look have their owner's stack (and a park's, its owner): say how
  // many had none for budget.
  if (in_.lock_owners && in_.lock_owners->skipped() != 0) {
    warn(std::to_string(in_.lock_owners->skipped()) + " lock waits have no owner's stack: the owner looks (" +
         std::to_string(LockOwners::kLooksPerSecond) + " a second and " + std::to_string(LockOwners::kLooksAtOnce) +
         " at once for waits of " + std::to_string(LockOwners::kLongWaitNs / 1'000'000) + " ms or more, " +
         std::to_string(LockOwners::kShortLooksPerSecond) + " and " + std::to_string(LockOwners::kShortLooksAtOnce) +
         " for shorter ones) were spent (a monitor's owner is named without it, a lock's other than a monitor is not)");
  }
  // Tests ask for the own stacks' check (own_stacks.h): its counts, whatever they are.
  for (const auto& [stacks, what] : {std::pair{in_.locks ? &in_.locks->ownStacks() : nullptr, "lock trace, monitor enters' "},
                                      std::pair{in_.allocs ? &in_.allocs->ownStacks() : nullptr, "alloc trace, allocation sites' "},
                                      std::pair{in_.exceptions ? &in_.exceptions->ownStacks() : nullptr, "exception trace, throw sites' "}}) {
    if (stacks && stacks->checking() && !stacks->summary().empty()) warn(what + stacks->summary());
  }
  if (in_.exceptions && in_.exceptions->blind()) {
    warn("the exception trace saw nothing: the agent could not wrap Throwable.fillInStackTrace");
  }
  // A death not recorded leaves its object live for ever in the live view: say how many.
  const uint64_t frees_dropped = in_.allocs ? in_.allocs->freesDropped() : 0;
  const uint64_t untagged = in_.allocs ? in_.allocs->untagged() : 0;
  for (const auto& [count, what] : {std::pair{frees_dropped, " sampled objects died unrecorded (the writer fell behind): they count as live"},
                                    std::pair{untagged, " sampled objects could not be tagged: they do not count as live"}}) {
    if (count == 0) continue;
    warn(std::to_string(count) + what);
  }
}

void WriterThread::drainAllocs(JNIEnv* jni) {
  in_.allocs->takeAll(alloc_batch_);
  noteDrained(alloc_batch_.size(), AllocTrace::kMaxQueued);
  for (const SampledAllocation& sampled : alloc_batch_) {
    if (sampled.thread != 0) ensureThreadRecord(sampled.thread);
    const uint32_t stack = traceStack(jni, 0, sampled.frames);
    ensureAnnotation(sampled.annotation);
    in_.writer->writeAlloc({sampled.time_ns, sampled.thread, stack, in_.writer->internString(*sampled.class_name),
                            sampled.size, in_.allocs->interval(), sampled.annotation, sampled.tag});
  }
  // After the allocations: a death drained now may be of an object queued a moment before.
  size_t freed_count = 0;
  in_.allocs->drainFreed([&](const FreedObject& freed) {
    ++freed_count;
    in_.writer->writeObjectFree({freed.time_ns, freed.tag});
  });
  noteDrained(freed_count, AllocTrace::kFreedCapacity);
}

uint32_t WriterThread::traceStack(JNIEnv* jni, uint32_t top, std::span<const RawFrame> frames,
                                  ExceptionTrace* construction) {
  if (const uint32_t known = stack_cache_.find(top, frames)) {
    in_.wake->named(frames);  // again: another stack may have pushed it out of the table
    return known;
  }
  new_stacks_ = true;
  const size_t skip = construction ? construction->constructionFrames(jni, frames) : 0;
  const uint64_t placeholders = methods_.placeholdersGiven();
  const uint32_t stack = internRawStack(jni, top, frames, skip);
  // A native frame in no module yet is named again next time (method_resolver.h): not kept.
  if (methods_.placeholdersGiven() == placeholders) {
    stack_cache_.remember(top, frames, stack);
    in_.wake->named(frames);
  }
  return stack;
}

uint32_t WriterThread::internRawStack(JNIEnv* jni, uint32_t top, std::span<const RawFrame> frames, size_t skip) {
  frames_.clear();
  if (top != 0) frames_.push_back({top, -1});
  // A continuation's frames (a virtual thread's) end where its carrier's begin, or where the
  // walk stepped over those still frozen in the heap, which the stack says (carrier_frames.h).
  // Here, not per event: a stack seen before is found by its raw frames (traceStack).
  for (size_t i = skip; i < frames.size(); ++i) {
    const RawFrame& raw = frames[i];
    const bool java = raw.bci != kStubFrameBci && raw.bci != kNativeFrameBci;
    const CarrierFrames::Kind kind = java ? carrier_frames_.kindOf(jni, raw.method) : CarrierFrames::Kind::Other;
    if (kind == CarrierFrames::Kind::CarrierSide) frames_.push_back({methods_.namedId("[frozen callers]"), -1});
    if (kind != CarrierFrames::Kind::Other) return in_.writer->internStack(frames_.data(), frames_.size());
    frames_.push_back(frameOf(jni, raw));
  }
  // A full walk may have been cut: say so where the missing (outer) frames would be.
  if (frames.size() == kMaxFrames) frames_.push_back({methods_.truncatedId(), -1});
  return in_.writer->internStack(frames_.data(), frames_.size());
}

void WriterThread::drainLocks(JNIEnv* jni) {
  in_.locks->takeAll(lock_batch_);
  noteDrained(lock_batch_.size(), LockTrace::kMaxQueued);
  for (const LockWait& wait : lock_batch_) {
    if (wait.thread != 0) ensureThreadRecord(wait.thread);
    ensureAnnotation(wait.annotation);
    format::LockRecord record{wait.time_ns, wait.thread, traceStack(jni, 0, wait.frames), wait.annotation,
                              wait.duration_ns, wait.kind};
    if (wait.class_name) {
      const bool init_lock = wait.zero_length_int_array && !wait.frames.empty();
      record.lock_class = in_.writer->internString(init_lock ? class_init_locks_.nameAt(jni, wait.frames[0]) : *wait.class_name);
    }
    LockCulprit culprit;
    // Only locks have owners (docs/format.md, Lock). A look's owner comes with its stack; a
    // wait no look saw names the monitor's owner when it began, without a stack.
    if (in_.lock_owners->take(wait.slot_id, wait.start_ns, culprit) && wait.kind == format::WaitKind::Lock) {
      ensureThreadRecord(culprit.owner);
      record.owner = culprit.owner;
      record.owner_stack = traceStack(jni, 0, culprit.frames);
    } else if (wait.kind == format::WaitKind::Lock && wait.owner != 0) {
      ensureThreadRecord(wait.owner);
      record.owner = wait.owner;
    }
    in_.writer->writeLock(record);
  }
  in_.lock_owners->forgetEnded();
}

}  // namespace stackscope::agent
