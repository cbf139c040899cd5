// cpu mode: one CPU-time timer per Java thread, signalling that very thread with SIGPROF
// each time it has used `interval` of CPU, so samples are proportional to CPU time.
//
// Two drivers, tried in this order:
//  * a perf_event software task-clock counter of the thread, overflowing every interval and
//    signalling the thread (F_SETOWN_EX/F_SETSIG). It runs on high-resolution timers, so it
//    keeps its rate at 1 ms and below;
//  * a POSIX timer on the thread's CPU clock (timer_create on its per-thread CPU clock). The
//    kernel checks those only at its tick (HZ=250 here: every 4 ms), so asking 1 ms gives
//    about 250 samples/s, each standing for the ticks since the last (cpu_intervals.h); it
//    is the fallback where perf_event_open is not allowed (perf_event_paranoid 3, seccomp).
// setitimer is not used: it is process-wide and tick-bound as well.
#pragma once

#include <signal.h>

#include <cstdint>

#include "agent/thread_registry.h"

namespace stackscope::agent {

// Creates the timer of thread slot.tid (of this process), armed or not. Its signals go to
// that thread and identify the slot: a POSIX timer's si_value is the slot, a task-clock's
// si_fd is slot.perf_fd.
bool startThreadTimer(ThreadSlot& slot, int64_t interval_ns, bool armed);
// Whether the SIGPROF described by `info` came from `slot`'s own timer. Async-signal-safe.
bool signalFromTimerOf(const ThreadSlot& slot, const siginfo_t* info);
// Mixed mode: task-clock timers that may see the kernel (perf_event_paranoid <= 1, or root)
// also record each sample's kernel call chain. Set once, before the first timer.
void setKernelCallChains(bool on);
// The kernel call chain of the sample whose signal is being handled, innermost first, into
// `out` (at most `max`): 0 when the thread's timer has none (in user code, or not allowed).
// Async-signal-safe; the thread's own handler only.
int takeKernelCallChain(ThreadSlot& slot, uintptr_t* out, int max);
// Unmaps the rings of timers stopped more than a second ago (a handler may still have been
// reading one when it stopped). Not for signal handlers; the writer thread calls it.
void releaseStoppedRings();

// Arms or disarms an existing timer (registry mutex held). A thread the annotation filter
// leaves out is not interrupted at all: its timer stops counting, not just its samples.
void armThreadTimer(ThreadSlot& slot, bool armed);
// Deletes the slot's timer if it has one; any thread may call it (registry mutex held).
void stopThreadTimer(ThreadSlot& slot);

}  // namespace stackscope::agent
