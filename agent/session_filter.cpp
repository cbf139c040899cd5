#include "agent/session_filter.h"

#include <unistd.h>

#include "agent/cpu_sampler.h"
#include "agent/session.h"

namespace stackscope::agent {

namespace {

// Includes or leaves out `slot` by its current annotation under the table's filter; arms or
// disarms its CPU timer when `timer` says so. The thread may annotate itself meanwhile
// (java_api.cpp, under the new filter already): the annotation is read again after the
// write, and settled again if it moved.
void settle(Session& session, ThreadSlot& slot, bool timer) {
  for (;;) {
    const uint32_t id = slot.annotation.load();
    const std::optional<bool> matches = session.annotations.matchesNow(id);
    if (!matches) return;  // the overflow id: its real values are not kept
    const bool excluded = !*matches;
    if (slot.excluded.load() != excluded) {
      slot.has_stack.store(false);  // wall mode: a stack from before must not be repeated
      slot.excluded.store(excluded);
      if (timer) armThreadTimer(slot, !excluded);
    }
    if (slot.annotation.load() == id) return;
  }
}

// Every thread the session samples, as if it had just annotated itself: the registered ones
// (foreign ones too: they reach their slot through the Java API), and in cpu mode those
// found by tid, the JVM's own (never annotated) and the Java threads adopted after an
// attach. Each table's mutex is held: no slot goes away, and arming timers needs it.
void settleThreads(Session& session) {
  const bool cpu_timers = session.options.mode == SampleMode::Cpu;
  session.registry.forEachLocked([&](ThreadSlot& slot) { settle(session, slot, cpu_timers); });
  if (!session.findsThreadsByTid()) return;
  // An adopted thread's timer stays armed (native_threads.h): its handler drops the ticks.
  session.native_threads.forEachLocked([&](ThreadSlot& slot, bool adopted) { settle(session, slot, !adopted); });
}

}  // namespace

bool changeSessionFilters(Session& session, const FilterChange& change, std::string& message) {
  // Parsed by the agent's option parser, as filter= and classes= are at a start.
  Options parsed_annotations;
  if (change.has_annotations && !change.annotations.empty()) {
    const ParseResult parsed = parseOptions("filter=" + change.annotations, getpid());
    if (!parsed.ok) {
      message = parsed.error;
      return false;
    }
    parsed_annotations = parsed.options;
  }
  Options parsed_classes;
  if (change.has_classes) {
    if (!(session.options.traces & kTraceAlloc)) {
      message = "classes filter the alloc trace, which this recording does not run";
      return false;
    }
    if (!change.classes.empty()) {
      const ParseResult parsed = parseOptions("event=cpu,alloc,classes=" + change.classes, getpid());
      if (!parsed.ok) {
        message = parsed.error;
        return false;
      }
      parsed_classes = parsed.options;
    }
  }
  if (change.has_classes) session.allocs.setClasses(parsed_classes.classes);
  if (change.has_annotations) {
    session.annotations.setFilter(parsed_annotations.filter);
    settleThreads(session);
  }
  message = "filters changed:";
  if (change.has_annotations) message += " annotations '" + change.annotations + "'";
  if (change.has_classes) message += " classes '" + change.classes + "'";
  return true;
}

}  // namespace stackscope::agent
