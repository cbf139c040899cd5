// The writer thread's part for the traces other than sampling (gc, exception): their events
// reach the file in the same chunks as the samples, each within a drain period of happening.
#include <cstdio>

#include "agent/writer_thread.h"

namespace stackscope::agent {

void WriterThread::drainTraces(JNIEnv* jni, bool last) {
  if (GcTrace* gc = in_.gc_trace) {
    gc->drain([&](const GcCollection& c) {
      const std::string collector = gc->collectorNames(c.collectors);
      in_.writer->writeGc({c.start_ns, c.end_ns - c.start_ns, collector.empty() ? 0 : in_.writer->internString(collector),
                           c.cause[0] ? in_.writer->internString(c.cause) : 0});
    });
  }
  if (ExceptionTrace* exceptions = in_.exceptions) {
    exceptions->takeAll(exception_batch_);
    for (const ThrownException& thrown : exception_batch_) {
      if (thrown.thread != 0) ensureThreadRecord(thrown.thread);
      frames_.clear();
      frames_.push_back({methods_.namedId(exceptionFrameName(thrown.class_name, thrown.caught)), -1});
      for (const RawFrame& raw : thrown.frames) frames_.push_back(frameOf(jni, raw));
      if (thrown.frames.size() == kMaxFrames) frames_.push_back({methods_.truncatedId(), -1});
      ensureAnnotation(thrown.annotation);
      in_.writer->writeException(
          {thrown.time_ns, thrown.thread, in_.writer->internStack(frames_.data(), frames_.size()), thrown.annotation});
    }
  }
  if (!last) return;
  // Nothing silent: what a trace could not keep is said in the recording and on stderr.
  const uint64_t gc_dropped = in_.gc_trace ? in_.gc_trace->dropped() : 0;
  const uint64_t exceptions_dropped = in_.exceptions ? in_.exceptions->dropped() : 0;
  for (const auto& [count, what] : {std::pair{gc_dropped, "garbage collections"}, std::pair{exceptions_dropped, "exceptions"}}) {
    if (count == 0) continue;
    const std::string warning = std::to_string(count) + " " + what + " were not recorded: the writer fell behind";
    std::fprintf(stderr, "stackscope: warning: %s\n", warning.c_str());
    in_.writer->writeAgentWarning({0, warning});
  }
}

}  // namespace stackscope::agent
