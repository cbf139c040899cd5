// Virtual threads (JDK 21+). A virtual thread runs mounted on a carrier (a platform thread of
// a ForkJoinPool); the carrier is what the OS, our per-thread slots and signals see, and
// JVMTI calls it WAITING all the while. HotSpot's extension events
// com.sun.hotspot.events.VirtualThreadMount / VirtualThreadUnmount, posted on the carrier,
// tell which virtual thread it runs: the carrier's slot holds that thread's id meanwhile, and
// a sample of the carrier is the virtual thread's (its stack, its state) with the carrier
// recorded (docs/format.md). Each virtual thread gets an id at its first mount in a session,
// kept in its JVMTI thread-local storage with the session's mark (virtual_state.h), and a
// thread record flagged virtual.
#pragma once

#include <jvmti.h>

namespace stackscope::agent {

class ThreadTracker;
class VirtualWaits;

// OnLoad, before AddCapabilities: sets can_support_virtual_threads in `caps` when this JVM
// offers it (JDK 21+). The headers we build with (JDK 17) do not name that bit: it is the one
// after can_generate_sampled_object_alloc_events, the order the JVMTI spec fixes.
void requestVirtualThreadSupport(jvmtiEnv* jvmti, jvmtiCapabilities& caps);

// Enables the mount and unmount events, which then call the tracker, and `waits` (null: the
// lock trace is off) after it. False (and nothing enabled) on a JVM without them or without
// the capability.
bool enableVirtualThreadEvents(jvmtiEnv* jvmti, ThreadTracker* tracker, VirtualWaits* waits);
// A session's end: the mount events off and the tracker and waits forgotten.
void disableVirtualThreadEvents(jvmtiEnv* jvmti);

}  // namespace stackscope::agent
