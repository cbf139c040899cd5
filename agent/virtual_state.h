// A virtual thread's state in its JVMTI thread-local storage (JDK 21+): one 64-bit word, kept
// by the JVM for the thread, written only by the carrier it is mounted on (one at a time):
//   bits  0-31  its id, as numbered by the session that wrote the word (ThreadTracker)
//   bits 32-33  the WaitSource of a wait under way (virtual_waits.h); None: no wait
//   bits 34-63  with no wait: the generation of the session that wrote the word, modulo 2^30;
//               with a wait: the wait's monotonic start in units of 2^16 ns (65.5 µs), modulo
//               2^30: a wait's length is the difference modulo 2^30 units, right for waits
//               shorter than 19.5 hours (a longer one is taken for its length modulo that).
// The storage outlives a session, and each session numbers its threads from 1: a word written
// by an earlier session holds an id that may be another thread's now. A word is this
// session's when its generation is this session's, or when its wait began after the unit of
// 2^16 ns in which this session began (enableVirtualThreadEvents waits for the next unit
// before it lets a mount write a word). One case escapes: a virtual thread left unmounted by
// an earlier session with a wait noted, and not mounted since for a multiple of 19.5 hours
// give or take this session's age, is taken for this session's.
#pragma once

#include <jni.h>

#include <cstdint>

#include "agent/lock_trace.h"

namespace stackscope::agent {

// A session's mark on the words it writes.
struct VirtualEpoch {
  uint32_t generation = 0;  // one more than the previous session's (nextVirtualGeneration)
  int64_t start_ns = 0;     // monotonic; no word of this session's notes a wait in its unit
};

// Sessions one after the other (under the agent's control mutex): 1, 2, ...
uint32_t nextVirtualGeneration();

// The first monotonic time at which a word of the session may note a wait: the next unit.
int64_t firstWaitNs(const VirtualEpoch& epoch);

uint32_t virtualIdOf(uint64_t word);
WaitSource waitSourceOf(uint64_t word);
// `id` with no wait under way, marked as `epoch`'s.
uint64_t idleWord(uint32_t id, const VirtualEpoch& epoch);
// `word` with a wait of `source` begun at `now_ns` (monotonic).
uint64_t withWait(uint64_t word, WaitSource source, int64_t now_ns);
// How long the wait noted in `word` has lasted at `now_ns`, to the unit.
int64_t waitedNs(uint64_t word, int64_t now_ns);
// Whether `word` (nonzero id) was written by the session of `epoch`; `now_ns` after any wait
// it notes began.
bool writtenBy(uint64_t word, const VirtualEpoch& epoch, int64_t now_ns);

// JNI's IsVirtualThread (JDK 21+): false on a JVM without it, whose JNI function table ends
// before it (JDK 17's). Resolved once, by the first call.
bool isVirtualThread(JNIEnv* jni, jobject thread);
// The entry itself, null when this JVM's JNI is older than 21 (its table lacks the entry).
using IsVirtualThreadFn = jboolean(JNICALL*)(JNIEnv* jni, jobject thread);
IsVirtualThreadFn resolveIsVirtualThread(JNIEnv* jni);

}  // namespace stackscope::agent
