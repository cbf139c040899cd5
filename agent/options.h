// The agent's option string, "event=cpu,interval=10ms,file=out.ssr,status=1s,strict",
// where event= takes a comma list, "event=cpu,gc,exception": the names right after event=
// that are not key=value items belong to its list (at most one sampling mode, cpu or wall,
// and any traces; a list of traces only records no samples),
// optionally with "alloc=512k" (the alloc trace's mean sampling interval, in bytes with an
// optional k or m), "classes=com.shop.*;byte[]" (the alloc trace records only objects of
// these classes, class_glob.h), "filter=user:u1;application:shop*" (annotation_filter.h; repeated filter=
// items add their entries to one filter; any other option given twice is an error, since
// silently taking one of two values hides a mistake), "overwrite=no", "children=yes|no" and
// "native=yes|no" (mixed mode, native_threads.h), "exception=created|thrown" (what the
// exception trace counts, exception_trace.h), "lock=1ms" (the lock trace's threshold:
// shorter waits are not recorded, lock_trace.h), "metrics=cpu,alloc" (the per-thread deltas
// each sample carries, thread_metrics.h; a comma list like event='s, or none), and
// "histo=10s|gc|gc:N" (the class histogram, class_histogram.h), and
// "control=PORT|IPv4:PORT|unix:PATH" (the control server, control_server.h: PORT alone listens
// on 127.0.0.1, port 0 picks a free one), and "rotate=1h|256m" with "maxfiles=N" (the recording
// goes on in a new file each hour or each 256 MiB, keeping the newest N; rotation.h).
// Pure parsing: no JVMTI, no I/O, so it is unit-tested on its own, and `stackscope record`
// runs the same parser on the string it is about to pass, so a mistake fails before the JVM
// starts with exactly the agent's message (target stackscope_agent_options).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "agent/annotation_filter.h"
#include "format/records.h"
#include "protocol/endpoint.h"

namespace stackscope::agent {

// None: event= named traces only (event=gc): no sampler runs, no thread gets a timer.
enum class SampleMode : uint8_t { Cpu, Wall, None };

// Traces that run beside the sampling mode, each off unless event= names it. A bit each;
// traceNames() lists them in the order the recording's mode string names them.
enum Trace : uint32_t {
  kTraceGc = 1u << 0,         // every garbage collection: start, pause, collector, cause (gc_trace.h)
  kTraceException = 1u << 1,  // every exception created (or thrown): class, stack (exception_trace.h)
  kTraceAlloc = 1u << 2,      // sampled allocations: stack, class, size (alloc_trace.h)
  kTraceLive = 1u << 3,       // the sampled objects' deaths (alloc_trace.h); implies kTraceAlloc
  kTraceLock = 1u << 4,       // contended monitors, Object.wait and park at least lock= long (lock_trace.h)
};
struct TraceName {
  Trace trace;
  const char* name;
};
inline constexpr TraceName kTraceNames[] = {{kTraceGc, "gc"},
                                            {kTraceException, "exception"},
                                            {kTraceAlloc, "alloc"},
                                            {kTraceLive, "live"},
                                            {kTraceLock, "lock"}};

// What JVMs started by the profiled one inherit. Keep: whatever their environment says (a
// JAVA_TOOL_OPTIONS carrying the agent loads it in them too). Follow: the agent puts itself
// into JAVA_TOOL_OPTIONS so every JVM started from this one is profiled as well, each into
// its own file. Ignore: the agent takes itself out of JAVA_TOOL_OPTIONS.
enum class Children : uint8_t { Keep, Follow, Ignore };

struct Options {
  SampleMode mode = SampleMode::Cpu;
  uint32_t traces = 0;  // Trace bits
  int64_t interval_ns = 10'000'000;         // 10ms
  std::string file;                         // stackscope-<pid>.ssr when not given; %p, %t not expanded yet
  bool overwrite = true;                    // false: a non-empty file is never replaced (file_name.h)
  Children children = Children::Keep;
  // Mixed mode: native frames on top of Java ones, and in cpu mode the JVM's own threads
  // (GC, compilers) sampled too. Off with a collection-time filter: those threads have no
  // annotation, and other users pay nothing.
  bool native = true;
  // JDK 21+: carriers' samples become their virtual threads', and the lock trace follows
  // their waits, through the mount events. Off (vthreads=no): no mount event, no callback at
  // every switch (docs/benchmarks.md, virtual_handoff.sh); a carrier is sampled as itself.
  bool vthreads = true;
  int64_t status_interval_ns = 1'000'000'000;  // 1s
  int64_t alloc_interval = 512 * 1024;  // bytes: JVMTI heap sampling's mean interval
  std::vector<std::string> classes;     // the alloc trace's class globs; empty: every class
  int64_t lock_threshold_ns = 1'000'000;       // lock trace: waits shorter than this are not recorded
  // The exception trace's source (exception_trace.h): false, every exception created, where
  // its stack trace is filled in (cheap); true (exception=thrown), every throw, through JVMTI's
  // Exception event (exact throw counts and caught or not, but HotSpot then deoptimizes throws).
  bool exceptions_thrown = false;
  bool strict = false;
  AnnotationFilter filter;  // empty: every thread is recorded
  // format::SampleMetric bits: what each sample carries of its thread's CPU time and
  // allocated bytes since its previous sample.
  uint32_t sample_metrics = 0;  // off: they cost bytes per sample (docs/benchmarks.md)
  // The class histogram (class_histogram.h), off when both are 0: histo=D takes one every D,
  // histo=gc:N after every Nth garbage collection (histo=gc: every one); and one at the end.
  int64_t histo_interval_ns = 0;
  uint32_t histo_gcs = 0;
  // Rotation (rotation.h), off when both are 0: a new file once the current one is this old
  // or this big; at most max_files files kept (0: all).
  int64_t rotate_ns = 0;
  uint64_t rotate_bytes = 0;
  uint32_t max_files = 0;
  // The control server (docs/protocol.md), off unless control= is given.
  bool has_control = false;
  protocol::Endpoint control;
};

struct ParseResult {
  bool ok = false;
  Options options;    // defaults filled in; meaningful when ok
  std::string error;  // the whole one-line message for stderr when !ok
  bool strict = false;  // "strict" appeared anywhere, even when parsing failed
};

inline constexpr int64_t kMinInterval = 100'000;             // 100us
inline constexpr int64_t kMaxInterval = 10'000'000'000;      // 10s
inline constexpr int64_t kMinHistoInterval = 100'000'000;       // 100ms: each walk stops the world
inline constexpr int64_t kMaxHistoInterval = 86'400'000'000'000;  // a day
inline constexpr int64_t kMinStatusInterval = 10'000'000;    // 10ms
inline constexpr int64_t kMaxStatusInterval = 3'600'000'000'000;  // 1h
inline constexpr int64_t kMinAllocInterval = 1024;                 // 1k: smaller costs the program too much
inline constexpr int64_t kMaxAllocInterval = int64_t{1} << 30;     // 1g: JVMTI takes a jint
inline constexpr int64_t kMinLockThreshold = 1'000;                // 1us
inline constexpr int64_t kMaxLockThreshold = 3'600'000'000'000;   // 1h
inline constexpr int64_t kMinRotateInterval = 1'000'000'000;         // 1s: a file holds at least one flush
inline constexpr int64_t kMaxRotateInterval = 604'800'000'000'000;   // a week
inline constexpr uint64_t kMinRotateBytes = 64 * 1024;                // 64k: a few chunks
inline constexpr uint64_t kMaxRotateBytes = uint64_t{1} << 40;        // 1024g
inline constexpr uint32_t kMaxMaxFiles = 1'000'000;

// `text` may be empty (no options). `pid` names the default output file.
ParseResult parseOptions(std::string_view text, int64_t pid);

const char* modeName(SampleMode mode);  // "cpu", "wall" or "" (None)
// What the recording's info names as its mode: the sampling mode, then the traces, as a
// comma list ("cpu,gc"; "gc" alone without samples): the kinds of events it holds.
std::string eventList(const Options& options);

}  // namespace stackscope::agent
