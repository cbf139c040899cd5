// The records of the stackscope recording format, version 1 (docs/format.md is the spec).
// Shared by the agent (writer) and the front-end (reader): no JVMTI, no exceptions here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace stackscope::format {

// Version 2: chunk payloads checked by the lane checksum (kFeatureLaneChecksums). This reader
// reads version 1 files too.
inline constexpr uint16_t kFormatVersion = 2;
inline constexpr uint16_t kOldestReaderVersion = 2;  // oldest reader that can read what we write

// Feature bits in the file header. A reader refuses a file with a bit it does not know
// only when that bit is in kRequiredFeatureMask; other unknown bits are informational.
enum Feature : uint32_t {
  kFeatureZstdChunks = 1u << 0,
  // Stacks are StackBranch records (7): a reader that skipped them would lose every stack,
  // so the bit is a required one and a reader older than them refuses the file.
  kFeatureStackBranches = 1u << 1,
  // Chunk payloads are checked by laneChecksum (format/bytes.h), not FNV-1a: a reader that
  // checked them by FNV-1a would find every chunk corrupted, so the bit is a required one.
  kFeatureLaneChecksums = 1u << 2,
  // Time samples are SampleRun records (33): a reader that skipped them would lose every
  // sample, so the bit is a required one and a reader older than them refuses the file.
  kFeatureSampleRuns = 1u << 3,
  // A Method record's line table is deltas, each entry's bci and line from the entry before:
  // a reader that took them for absolute values would show wrong lines, so the bit is a
  // required one.
  kFeatureLineDeltas = 1u << 4,
};
inline constexpr uint32_t kKnownRequiredFeatures =
    kFeatureZstdChunks | kFeatureStackBranches | kFeatureLaneChecksums | kFeatureSampleRuns | kFeatureLineDeltas;
inline constexpr uint32_t kRequiredFeatureMask = 0x0000ffffu;

enum class ChunkKind : uint8_t { Map = 1, Event = 2 };

enum class RecordType : uint32_t {
  // map records: referred to by id, each written once, before any event that uses it
  RecordingInfo = 1,
  String = 2,
  Method = 3,
  Stack = 4,         // a whole stack (files of writers before StackBranch)
  Thread = 5,
  Annotation = 6,
  StackBranch = 7,   // a stack as the outer frames of a known stack plus its own (the prefix tree)
  // event records: carry a time
  Sample = 16,
  ThreadStart = 17,
  ThreadEnd = 18,
  Status = 19,
  Lost = 20,
  RecordingEnd = 21,
  Marker = 22,
  AnnotationChange = 23,
  AgentWarning = 24,
  KindSample = 25,  // a Sample that names its sampler (a recording of several modes)
  Gc = 26,          // one garbage collection (the gc trace)
  Exception = 27,   // one thrown exception (the exception trace)
  Alloc = 28,       // one sampled allocation (the alloc trace)
  ObjectFree = 29,  // a sampled object the GC freed (the live trace)
  Lock = 30,        // one wait for a lock or a condition (the lock trace)
  ClassHistogram = 31,  // objects in the heap per class at one moment (histo=)
  ThreadParent = 32,    // which thread started a thread, and where (map data, with a time)
  SampleRun = 33,       // consecutive time samples of an event chunk, column by column
};

// The columns of a SampleRun record, in the order they are written (docs/format.md). Bit c of
// the record's column set says column c is present; the first four always are, an absent
// optional column holds its default for every sample.
enum SampleRunColumn : uint32_t {
  kRunTime,        // dt s, from the running time, which each sample moves
  kRunThread,
  kRunStack,
  kRunState,
  kRunKind,        // SampleKind, default 0 = the recording's mode
  kRunWeight,      // default 1
  kRunAnnotation,  // default 0
  kRunCarrier,     // default 0
  kRunCpuUs,       // default 0
  kRunAllocBytes,  // default 0
  kSampleRunColumns
};
inline constexpr uint32_t kRunRequiredColumns = (1u << kRunTime) | (1u << kRunThread) | (1u << kRunStack) | (1u << kRunState);

enum class ThreadState : uint8_t {
  Unknown = 0,
  Running = 1,       // runnable, on or waiting for a CPU
  Blocked = 2,       // blocked entering a monitor
  Waiting = 3,       // Object.wait / join without timeout
  TimedWaiting = 4,  // Object.wait / join with a timeout
  Sleeping = 5,      // Thread.sleep
  Native = 6,        // running native code (may be blocked in a system call)
  Parked = 7,        // LockSupport.park / parkNanos (locks, queues, pools), with or without timeout
  Idle = 8,          // runnable for the JVM, asleep for the kernel (a JVM lock, a safepoint, no Java code)
  Safepoint = 9,     // running Java code when the VM stopped every thread (a safepoint other than a GC)
  Gc = 10,           // running Java code when the VM stopped every thread for a garbage collection
};
inline constexpr int kThreadStateCount = 11;
const char* threadStateName(ThreadState state);

// Why a sample that was due was not taken. Values are stable: they are written to files.
enum class LostReason : uint8_t {
  NoJavaFrame = 1,      // thread had no Java frame on its stack
  NotWalkable = 2,      // the JVM could not walk the stack at that instant
  GcActive = 3,         // a GC was running
  ClassLoad = 4,        // a method on the stack was being loaded
  ThreadExiting = 5,    // the thread was exiting
  Deopt = 6,            // a frame was being deoptimized
  Safepoint = 7,        // the thread was at a safepoint transition
  UnknownState = 8,     // any other stack walk failure
  BufferFull = 9,       // the sample buffer was full
  ThreadUnknown = 10,   // the signal hit a thread the agent does not know (yet)
  TimerOverrun = 11,    // the timer fired while an earlier signal was still pending
  NotInJava = 12,       // the thread ran JVM or native code with no Java frame to walk
  StoppedNoStack = 13,  // the VM stopped the thread (safepoint, GC) before its first stack was taken
};
inline constexpr int kLostReasonMax = 13;
const char* lostReasonName(LostReason reason);

enum class NonSafepointDebug : uint8_t {
  NotRecorded = 0,  // a file from a writer that did not say
  Off = 1,          // the agent could not turn it on (samples in compiled code may be skewed)
  On = 2,
};
const char* nonSafepointDebugName(NonSafepointDebug value);

struct RecordingInfo {
  int64_t start_epoch_ns = 0;  // wall-clock time of time 0
  std::string mode;            // "cpu" or "wall"
  int64_t interval_ns = 0;     // sampling interval
  int64_t status_interval_ns = 0;
  int64_t pid = 0;
  std::string jvm;             // VM name and version
  std::string options;         // the agent options as given
  // Whether compiled code kept debug information between safepoints, which places samples
  // in compiled code on the right (inlined) method and bci. Optional trailing field.
  NonSafepointDebug non_safepoint_debug = NonSafepointDebug::NotRecorded;
  // The per-thread metrics the samples carry (SampleMetric bits; optional trailing field, 0 in
  // older files): a metric not listed was not recorded, whatever the samples say.
  uint32_t sample_metrics = 0;
  // The kernel's boot id (/proc/sys/kernel/random/boot_id) when the recording was made:
  // kernel frames are named from /proc/kallsyms only in that boot. Optional trailing field.
  std::string boot_id;
};

struct LineEntry {
  uint32_t bci = 0;
  uint32_t line = 0;
};

struct MethodRecord {
  uint32_t id = 0;
  uint32_t class_name = 0;    // string id: Java name, "pkg.Outer$Inner"
  uint32_t method_name = 0;   // string id
  uint32_t signature = 0;     // string id: JVM descriptor "(I)V"
  uint32_t source_file = 0;   // string id, 0 = unknown
  std::vector<LineEntry> lines;  // sorted by bci
  // A native frame's code, named by the reader (optional trailing fields, docs/format.md):
  // the module's file path, "[vdso]" or "[kernel]" (string id, 0 = not a native address), its
  // GNU build id in hex (string id, 0 = unknown), and the address: an ELF address of that file,
  // or the kernel's own.
  uint32_t native_module = 0;
  uint32_t native_build_id = 0;
  uint64_t native_address = 0;
  // A Java method's library (optional trailing field, after the native ones, which are then
  // 0): its class's named module ("java.base") or its code source's path (a jar or class
  // directory); string id, 0 = unknown.
  uint32_t code_source = 0;
};

struct Frame {
  uint32_t method = 0;  // method id
  int32_t bci = 0;      // bytecode index; negative = no bci (native method, unknown)
  bool operator==(const Frame&) const = default;
};

struct StackRecord {
  uint32_t id = 0;
  std::vector<Frame> frames;  // innermost (top) frame first
};

struct ThreadRecord {
  uint32_t id = 0;
  std::string name;
  int64_t os_tid = 0;
  int64_t java_id = 0;  // java.lang.Thread id, 0 when unknown
  bool is_virtual = false;  // a virtual thread (JDK 21+): its samples name their carrier
};

enum class SampleKind : uint8_t { Mode = 0, Cpu = 1, Wall = 2 };

// Per-thread metric deltas a sample may carry: what its thread consumed since the thread's
// previous sample (RecordingInfo::sample_metrics says which a recording has).
enum SampleMetric : uint32_t {
  kSampleCpuTime = 1u << 0,     // the thread's CPU clock
  kSampleAllocBytes = 1u << 1,  // HotSpot's count of the bytes the thread allocated
};
// "cpu-time", "alloc-bytes": the names of the bits set, as reports' --metric takes them.
std::vector<std::string> sampleMetricNames(uint32_t metrics);

struct SampleRecord {
  int64_t time_ns = 0;  // since the recording's time 0 (monotonic)
  uint32_t thread = 0;
  uint32_t stack = 0;
  ThreadState state = ThreadState::Running;
  uint32_t weight = 1;      // samples this record stands for
  uint32_t annotation = 0;  // the thread's annotation at the sample (Annotation id), 0 = none
  uint32_t carrier = 0;     // a virtual thread's sample: the platform thread it ran on, 0 = none
  // Which sampler took it: Mode for the recording's mode, the first of a comma list. Writers
  // since SampleRun write every sample in a run (the kind column); older ones wrote another
  // kind as a KindSample record, which readers older than it skip.
  SampleKind kind = SampleKind::Mode;
  // Optional trailing fields (RecordingInfo::sample_metrics): the thread's CPU time in
  // microseconds and the bytes it allocated since its previous sample. 0: none, or not recorded.
  uint64_t cpu_us = 0;
  uint64_t alloc_bytes = 0;
};

// Who and what a thread works for. Each distinct combination is one map record; fields are
// string ids, 0 = unset.
inline constexpr int kAnnotationFieldCount = 5;
enum class AnnotationField : uint8_t { User = 0, Session = 1, Request = 2, Application = 3, Component = 4 };
const char* annotationFieldName(AnnotationField field);

struct AnnotationRecord {
  uint32_t id = 0;
  uint32_t fields[kAnnotationFieldCount] = {};  // indexed by AnnotationField
};

struct AnnotationChangeRecord {
  int64_t time_ns = 0;
  uint32_t thread = 0;
  uint32_t annotation = 0;  // 0 = cleared
};

enum class MarkerKind : uint8_t { Point = 0, Begin = 1, End = 2 };

// A snapshot marker written by the application (Stackscope.mark / begin / end).
struct MarkerRecord {
  int64_t time_ns = 0;
  uint32_t thread = 0;
  MarkerKind kind = MarkerKind::Point;
  uint32_t name = 0;  // string id
};

struct ThreadEventRecord {  // ThreadStart and ThreadEnd
  int64_t time_ns = 0;
  uint32_t thread = 0;
};

struct StatusRecord {
  int64_t time_ns = 0;
  uint32_t cpu_load_permille = 0;  // process CPU over the last interval, 1000 = all cores busy
  uint64_t gc_count = 0;           // cumulative
  uint64_t gc_time_ns = 0;         // cumulative
  uint64_t heap_used = 0;          // bytes
  uint64_t heap_committed = 0;     // bytes
  uint32_t live_threads = 0;       // live Java threads but the agent's own, whatever the mode
  // Optional trailing fields (0 in older files: not measured).
  uint32_t machine_cpu_permille_plus1 = 0;  // whole-machine CPU load + 1 (/proc/stat); 0 = unknown
  uint32_t cpus = 0;                        // online CPUs the process load is a share of; 0 = unknown
};

// Something the agent found wrong with its own recording while it ran (another profiler owns
// SIGPROF, the CPU timers never fire…): reports show it with the reader's warnings.
struct AgentWarningRecord {
  int64_t time_ns = 0;
  std::string text;
};

struct LostRecord {
  int64_t time_ns = 0;
  LostReason reason = LostReason::UnknownState;
  uint64_t count = 0;  // samples lost for that reason since the previous Lost record
};

// One garbage collection as JVMTI's GarbageCollectionStart/Finish bound it: for a
// stop-the-world collection, the pause.
struct GcRecord {
  int64_t time_ns = 0;      // its start
  int64_t duration_ns = 0;  // finish - start
  uint32_t collector = 0;   // string id: HotSpot's collector name ("Serial full collection"), 0 = unknown
  uint32_t cause = 0;       // string id: "System.gc()", "Allocation Failure"..., 0 = unknown
};

// One exception thrown. Its stack's innermost frame is a pseudo-method with no class, named
// after the exception's class ("java.lang.IllegalStateException", with " (uncaught)" when no
// Java frame of the thread catches it); the throw site and its callers follow.
struct ExceptionRecord {
  int64_t time_ns = 0;
  uint32_t thread = 0;
  uint32_t stack = 0;
  uint32_t annotation = 0;  // the thread's annotation, 0 = none
};

// One object picked by JVMTI heap sampling (the alloc trace): about one every `interval`
// bytes a thread allocates, the spacing drawn at random with that mean, so an object of
// `size` bytes was picked with probability 1 - exp(-size / interval) (the reader scales it
// back to estimates of the true totals). `tag` names the object for its ObjectFree record
// when the live trace follows its death, 0 when it does not.
struct AllocRecord {
  int64_t time_ns = 0;
  uint32_t thread = 0;
  uint32_t stack = 0;       // the allocating stack, innermost first
  uint32_t class_name = 0;  // string id: "byte[]", "java.lang.String"
  uint64_t size = 0;        // the object's bytes
  uint64_t interval = 0;    // the mean sampling interval in bytes when it was picked; 0 = every object
  uint32_t annotation = 0;  // the thread's annotation, 0 = none
  uint64_t tag = 0;         // 0 = its death is not followed
};

// The garbage collector freed the object of an Alloc record's `tag` (JVMTI ObjectFree).
struct ObjectFreeRecord {
  int64_t time_ns = 0;
  uint64_t tag = 0;
};

// One class's row of a class histogram. Its stack has one frame, a pseudo-method with no
// class named after the class ("java.lang.String", "byte[]"), as an exception's class frame.
struct ClassCountEntry {
  uint32_t stack = 0;
  uint64_t instances = 0;
  uint64_t bytes = 0;  // shallow
};

// The objects in the heap per class at one moment (a heap walk: garbage not yet collected
// counts too); classes with no object are left out.
// A thread started another: the starting thread, its stack at Thread.start and the new
// thread's java.lang.Thread id (its Thread record, written when it runs, has the same java_id).
struct ThreadParentRecord {
  int64_t time_ns = 0;
  uint32_t thread = 0;  // the starting thread, 0 = one the agent does not know
  uint32_t stack = 0;   // its stack at the start, 0 = none
  int64_t child_java_id = 0;
};

struct ClassHistogramRecord {
  int64_t time_ns = 0;   // the walk's start
  int64_t pause_ns = 0;  // how long the walk held the VM stopped
  std::vector<ClassCountEntry> classes;
};

// What a thread waited in: Lock, for a monitor held by another thread (contended monitor
// enter) or for a java.util.concurrent lock (park with an AbstractOwnableSynchronizer
// blocker); Wait, for a condition (Object.wait, park with any other blocker or none).
enum class WaitKind : uint8_t { Lock = 0, Wait = 1 };

// One wait at least the lock trace's threshold long. Its stack is the waiting thread's at the
// wait; the owner is the thread that held the lock when the agent looked during the wait, with
// its stack then, or, for a monitor wait no look saw, its owner when the wait began, without a
// stack (0 when unknown: a wait, an unowned lock, a park over before the agent looked).
struct LockRecord {
  int64_t time_ns = 0;      // the wait's start
  uint32_t thread = 0;
  uint32_t stack = 0;
  uint32_t annotation = 0;  // the waiting thread's annotation, 0 = none
  int64_t duration_ns = 0;
  WaitKind kind = WaitKind::Lock;
  uint32_t lock_class = 0;   // string id: the monitor's or the park blocker's class, 0 = none (park without blocker)
  uint32_t owner = 0;        // thread id, 0 = unknown
  uint32_t owner_stack = 0;  // stack id, 0 = unknown
};

struct RecordingEndRecord {
  int64_t time_ns = 0;
};

}  // namespace stackscope::format
