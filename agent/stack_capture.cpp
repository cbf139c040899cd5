// SIGNAL HANDLER RULES — everything reachable from onSigprof runs inside a signal handler
// that may interrupt any code of the thread, including malloc, a lock holder or the JVM:
//   * async-signal-safe calls only (clock_gettime, memmove, AsyncGetCallTrace, which is made
//     for it, CodeRegions::find, readOwnCounters);
//     it never blocks: a full ring is counted as lost, not waited on;
//   * no allocation, no locks (only lock-free atomics), no C++ exceptions, no JVMTI or JNI;
//   * the only memory it reads besides its own data is the interrupted thread's stack, and
//     only words that stub_unwind.h's usedStackWord allows (a fault here kills the JVM), and
//     in mixed mode the loaded modules' unwinding tables, each read checked against the
//     module's segment that holds them (native/cfi_rules.h, native/unwind_modules.h);
//   * errno is saved and restored;
//   * a signal can still arrive after the recording has ended: the handler counts itself in
//     g_in_handler before it checks the global "active" flag, and a session frees the data it
//     touches (ring, counters, regions, slots) only after stopCapture saw no handler left.
#include "agent/stack_capture.h"

#include <dlfcn.h>
#include <jni.h>
#include <signal.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstring>

#include "agent/clocks.h"
#include "agent/session_gate.h"
#include "agent/compiled_frame_edges.h"
#include "agent/cpu_sampler.h"
#include "agent/native_below.h"
#include "agent/native_between.h"
#include "agent/stub_unwind.h"
#include "agent/thread_metrics.h"
#include "agent/thread_registry.h"
#include "agent/vm_pauses.h"
#include "agent/wall_pending.h"
#include "native/native_stack_walk.h"

namespace stackscope::agent {

namespace {

// AsyncGetCallTrace is exported by HotSpot but declared in no header.
struct ASGCT_CallFrame {
  jint lineno;  // bci for Java frames, negative for native ones
  jmethodID method_id;
};
struct ASGCT_CallTrace {
  JNIEnv* env;
  jint num_frames;  // > 0 frames, <= 0 an error code
  ASGCT_CallFrame* frames;
};
using AsyncGetCallTraceFn = void (*)(ASGCT_CallTrace* trace, jint depth, void* ucontext);

// The walk writes straight into a ring slot's RawFrame array.
static_assert(sizeof(ASGCT_CallFrame) == sizeof(RawFrame));
static_assert(offsetof(ASGCT_CallFrame, lineno) == offsetof(RawFrame, bci));
static_assert(offsetof(ASGCT_CallFrame, method_id) == offsetof(RawFrame, method));

CaptureConfig g_config;
AsyncGetCallTraceFn g_walk = nullptr;
std::atomic<bool> g_active{false};
// Handlers running now: a session that ends waits for none to be left before its ring,
// counters and regions are freed (session_gate.h has the pattern).
std::atomic<int64_t> g_in_handler{0};

// The VM's structures the x86-64 walks read (stack_capture.h's setters): null until bound.
std::atomic<const CompiledCode*> g_compiled_code{nullptr};
std::atomic<const VmThreadAnchor*> g_vm_thread_anchor{nullptr};
std::atomic<const EntryFrames*> g_entry_frames{nullptr};

// AsyncGetCallTrace's results that matter here (HotSpot's forte.cpp).
constexpr jint kNoJavaFrame = 0;
constexpr jint kGcActive = -2;          // ticks_GC_active
constexpr jint kNotInJava = -3;         // ticks_unknown_not_Java
constexpr jint kNotWalkableVm = -4;     // ticks_not_walkable_not_Java
constexpr jint kUnknownJava = -5;       // ticks_unknown_Java
constexpr jint kNotWalkableJava = -6;   // ticks_not_walkable_Java

#if defined(__x86_64__)
// The registers a walk starts from, as the signal interrupted them.
WalkRegisters registersOf(const ucontext_t& context) {
  const greg_t* gregs = context.uc_mcontext.gregs;
  return {static_cast<uintptr_t>(gregs[REG_RIP]), static_cast<uintptr_t>(gregs[REG_RSP]),
          static_cast<uintptr_t>(gregs[REG_RBP])};
}

// Only ever called on addresses that usedStackWord allowed.
uintptr_t readStackWord(uintptr_t addr) { return *reinterpret_cast<const uintptr_t*>(addr); }

// One walk with the frame on top at pc, sp, fp, on a copy of the interrupted context.
bool walkAt(uintptr_t pc, const WalkRegisters& regs, ASGCT_CallTrace& trace, jint depth, const ucontext_t& context) {
  ucontext_t moved = context;
  moved.uc_mcontext.gregs[REG_RIP] = static_cast<greg_t>(pc);
  moved.uc_mcontext.gregs[REG_RSP] = static_cast<greg_t>(regs.sp);
  moved.uc_mcontext.gregs[REG_RBP] = static_cast<greg_t>(regs.fp);
  trace.num_frames = 0;
  g_walk(&trace, depth, &moved);
  return trace.num_frames > 0;
}

// Walks again from `regs` (a caller frame) on a copy of the interrupted context. regs.pc is a
// return address; AsyncGetCallTrace names a compiled frame by the first debug record at or
// after pc + 1, so one byte back gives the record of a Java call, made at its return address.
bool walkFrom(const WalkRegisters& regs, ASGCT_CallTrace& trace, jint depth, const ucontext_t& context) {
  return walkAt(regs.pc - 1, regs, trace, depth, context);
}

// The same from the caller of a leaf call (a stub, the VM, libc), which has no record of its
// own: the record after it may be the next code's, in an outer method (a digest's stub credited
// to the handler that inlined the digest, at the line after), and the one before it the
// arguments' code, in an outer method too (an arraycopy's credited to the method that inlined
// shift). Both are walked, the second only once the first succeeded, and the walk with more
// frames is kept: a guess, which holds when the code around the call belongs to outer methods
// (the cases above, checked by tests); an earlier record of a deeper inlined callee that has
// already returned would be taken wrongly.
bool walkFromLeafCall(const WalkRegisters& regs, ASGCT_CallTrace& trace, jint depth, const ucontext_t& context) {
  if (!walkFrom(regs, trace, depth, context)) return false;
  const jint after = trace.num_frames;
  const CompiledCode* code = g_compiled_code.load(std::memory_order_acquire);
  CompiledMethodCode method;
  uintptr_t record_pc = 0;
  if (after >= depth || !code || !code->find(regs.pc, method) || !code->recordBeforeCall(method, regs.pc, record_pc)) {
    return true;
  }
  if (walkAt(record_pc - 1, regs, trace, depth, context) && trace.num_frames > after) return true;
  return walkFrom(regs, trace, depth, context);
}

// A walk that failed in a JIT stub (stub_unwind.h), tried again from the Java method that
// called the stub: first as if the stub were a frameless leaf, then as if it had a frame. A
// guess whose return address is outside the code cache is wrong and not tried: given one,
// AsyncGetCallTrace takes it for a native frame and walks on from the frame pointer, which in a
// framed stub leads to its caller but named without its inlined methods (bci 0).
bool walkFromStubCaller(const ThreadSlot& thread, ASGCT_CallTrace& trace, jint depth, void* ucontext) {
  if (!thread.stack_ready.load(std::memory_order_acquire)) return false;
  const CompiledCode* code = g_compiled_code.load(std::memory_order_acquire);
  const auto inCode = [code](const WalkRegisters& caller) { return !code || code->contains(caller.pc); };
  const auto& context = *static_cast<const ucontext_t*>(ucontext);
  const WalkRegisters regs = registersOf(context);
  WalkRegisters caller;
  const CodeRegions* regions = g_config.code_regions;
  const bool java_call = regions && regions->enteredByJavaCall(regions->find(regs.pc));
  const auto walk = [&](const WalkRegisters& caller) {
    return java_call ? walkFrom(caller, trace, depth, context) : walkFromLeafCall(caller, trace, depth, context);
  };
  if (callerOfFramelessStub(regs, thread.stack, readStackWord, caller) && inCode(caller) && walk(caller)) {
    return true;
  }
  return callerOfFramedStub(regs, thread.stack, readStackWord, caller) && inCode(caller) && walk(caller);
}

// A thread in the VM whose frame anchor lacks its pc (vm_thread_anchor.h): completed, so
// AsyncGetCallTrace, tried again, walks the Java frames from the anchor.
bool madeWalkable(const ThreadSlot& thread, JNIEnv* env, const void* ucontext) {
  const VmThreadAnchor* anchor = g_vm_thread_anchor.load(std::memory_order_acquire);
  const auto sp = static_cast<uintptr_t>(static_cast<const ucontext_t*>(ucontext)->uc_mcontext.gregs[REG_RSP]);
  return anchor && thread.stack_ready.load(std::memory_order_acquire) && anchor->makeWalkable(env, sp, thread.stack);
}

// Only called on addresses inside a compiled method's code (compiled_frame_edges.h).
uint8_t readCodeByte(uintptr_t addr) { return *reinterpret_cast<const uint8_t*>(addr); }

enum class EdgeWalk { NotCompiled, Walked, Failed };

// A walk that failed in a compiled Java method's prologue or epilogue, where AsyncGetCallTrace
// misreads the frame: walked again from the caller, the method itself on top (bci 0: its
// entry, as no bytecode of it runs there). A pc in no compiled method is left to the stub
// retry; one in a method's body, or an edge not read with certainty, stays a failure.
EdgeWalk walkFromFrameEdge(const ThreadSlot& thread, ASGCT_CallTrace& trace, jint depth, void* ucontext) {
  const CompiledCode* code = g_compiled_code.load(std::memory_order_acquire);
  const auto& context = *static_cast<const ucontext_t*>(ucontext);
  const WalkRegisters regs = registersOf(context);
  CompiledMethodCode method;
  if (!code || !code->find(regs.pc, method)) return EdgeWalk::NotCompiled;
  const void* method_id = code->methodId(method.method);
  WalkRegisters caller;
  if (!method_id || depth < 2 || !thread.stack_ready.load(std::memory_order_acquire) ||
      !callerOfFrameEdge(method, regs, thread.stack, readStackWord, readCodeByte, caller)) {
    return EdgeWalk::Failed;
  }
  ASGCT_CallTrace below{trace.env, 0, trace.frames + 1};
  if (!walkFrom(caller, below, depth - 1, context)) return EdgeWalk::Failed;
  trace.frames[0] = {0, static_cast<jmethodID>(const_cast<void*>(method_id))};
  trace.num_frames = below.num_frames + 1;
  return EdgeWalk::Walked;
}

// Whether `ra` is where a call into compiled Java code returns to: after a `call rel32` (0xE8,
// how compiled code calls Java methods and their stubs) in a compiled method's body, or in
// the interpreter or the call stub (entry_frames.h).
bool isJavaCallReturn(const CompiledCode& code, uintptr_t ra) {
  CompiledMethodCode caller;
  if (code.find(ra, caller)) return ra >= caller.frame_complete && ra - 5 >= caller.code_begin && readCodeByte(ra - 5) == 0xE8;
  const EntryFrames* entry = g_entry_frames.load(std::memory_order_acquire);
  if (!entry) return false;
  const CodeAtPc::Kind kind = entry->classify(ra).kind;
  return kind == CodeAtPc::Kind::Interpreter || kind == CodeAtPc::Kind::CallStubReturn;
}

// A walk that failed in a compiled method's body, where the frame is built: some intrinsics
// the JIT inlines push a word or two for their length (String.compareTo's, x86-64
// string_compare, pushes a count: `push %rcx` ... `pop %rcx`), and AsyncGetCallTrace, which
// finds the caller from sp and the frame size, reads the wrong word and gives up ("unknown
// Java", -5): 2 % of an H2 server's samples. Walked again at the same pc with sp above the
// pushed words, only when everything says so (a walk that cannot be shown right is not made;
// AsyncGetCallTrace would take a wrong but plausible caller and end its walk quietly there):
// no code address on top (a frame already popped by an epilogue tail the edge walk does not
// know, a reserved-stack check or the poll stub, has its return address there; a pushed
// count never is one), none where the frame size points without a push, and the return
// address of a Java call there with 1 pushed word, else 2 (the fewer first). Frames hold
// stale copies of return addresses (the word above a return address, a frame's lowest slot:
// seen under String.compareTo with G1 and with SerialGC), so only the top word is asked.
bool walkOverPushedWords(const ThreadSlot& thread, ASGCT_CallTrace& trace, jint depth, void* ucontext) {
  const CompiledCode* code = g_compiled_code.load(std::memory_order_acquire);
  const auto& context = *static_cast<const ucontext_t*>(ucontext);
  const WalkRegisters regs = registersOf(context);
  CompiledMethodCode method;
  if (!code || !code->find(regs.pc, method) || regs.pc < method.frame_complete || method.frame_words < 2 ||
      !thread.stack_ready.load(std::memory_order_acquire)) {
    return false;
  }
  const auto holdsCodeAddress = [&](uintptr_t slot) {
    return usedStackWord(slot, regs.sp, thread.stack) && code->contains(readStackWord(slot));
  };
  const uintptr_t frame_bytes = 8 * static_cast<uintptr_t>(method.frame_words);
  if (holdsCodeAddress(regs.sp) || holdsCodeAddress(regs.sp + frame_bytes - 8)) {
    return false;
  }
  uintptr_t walk_sp = 0;
  for (uintptr_t pushed = 1; pushed <= 2 && walk_sp == 0; ++pushed) {
    const uintptr_t return_slot = regs.sp + 8 * pushed + frame_bytes - 8;
    if (usedStackWord(return_slot, regs.sp, thread.stack) && isJavaCallReturn(*code, readStackWord(return_slot))) {
      walk_sp = regs.sp + 8 * pushed;
    }
  }
  if (walk_sp == 0) return false;
  ucontext_t moved = context;
  moved.uc_mcontext.gregs[REG_RSP] = static_cast<greg_t>(walk_sp);
  trace.num_frames = 0;
  g_walk(&trace, depth, &moved);
  return trace.num_frames > 0;
}

// A thread in Java whose pc is in native code (a leaf call from compiled code into the VM or
// libc, stub_unwind.h): walked again from the compiled caller the frame-pointer chain leads to.
bool walkFromNativeLeaf(const ThreadSlot& thread, ASGCT_CallTrace& trace, jint depth, void* ucontext) {
  const CompiledCode* code = g_compiled_code.load(std::memory_order_acquire);
  const auto& context = *static_cast<const ucontext_t*>(ucontext);
  const WalkRegisters regs = registersOf(context);
  if (!code || code->contains(regs.pc) || !thread.stack_ready.load(std::memory_order_acquire)) return false;
  WalkRegisters caller;
  const auto inJava = [code](uintptr_t pc) { return code->contains(pc); };
  return callerOfNativeLeaf(regs, thread.stack, readStackWord, inJava, caller) &&
         walkFromLeafCall(caller, trace, depth, context);
}

// Puts the stub holding pc on top of the Java frames walked from its caller; the outermost
// frame gives way when the walk filled the slot.
jint addStubFrame(RawFrame* frames, jint num_frames, jint depth, uintptr_t pc) {
  if (!g_config.code_regions) return num_frames;
  const int32_t region = g_config.code_regions->find(pc);
  if (region < 0) return num_frames;
  const jint kept = std::min<jint>(num_frames, depth - 1);
  std::memmove(frames + 1, frames, static_cast<size_t>(kept) * sizeof(RawFrame));
  frames[0] = {kStubFrameBci, reinterpret_cast<const void*>(static_cast<uintptr_t>(region) + 1)};
  return kept + 1;
}

uintptr_t interruptedPc(const void* ucontext) {
  return static_cast<uintptr_t>(static_cast<const ucontext_t*>(ucontext)->uc_mcontext.gregs[REG_RIP]);
}

// A thread in a runtime stub called from compiled Java code (a contended monitor's enter,
// vm_thread_anchor.h): walked again from the stub's compiled caller, with the stub on top. The
// stub's frame is the one the thread was interrupted in, when the code cache says it is built
// there, else the one its frame anchor holds (the stub called into the VM). The walk goes
// through the signal context while the thread is still in Java, through its frame anchor once
// it is in the VM. Only a caller the code cache holds as a compiled method is tried.
bool walkFromRuntimeStub(const ThreadSlot& thread, JNIEnv* env, ASGCT_CallTrace& trace, jint depth, void* ucontext) {
  const VmThreadAnchor* anchor = g_vm_thread_anchor.load(std::memory_order_acquire);
  const CompiledCode* code = g_compiled_code.load(std::memory_order_acquire);
  if (!anchor || !code || depth < 2 || !thread.stack_ready.load(std::memory_order_acquire)) return false;
  const auto& context = *static_cast<const ucontext_t*>(ucontext);
  const WalkRegisters regs = registersOf(context);
  WalkRegisters stub = regs, caller;
  VmThreadAnchor::State state = VmThreadAnchor::State::InJava;
  CodeBlobFrame blob;
  CompiledMethodCode caller_code;
  const bool in_built_stub = code->findBlob(regs.pc, blob) && !blob.nmethod && blob.frame_complete != 0 &&
                             regs.pc >= blob.frame_complete;
  if (!in_built_stub && (!anchor->lastJavaFrame(env, regs.sp, thread.stack, stub, state) ||
                         state == VmThreadAnchor::State::InNative || !code->findBlob(stub.pc, blob) || blob.nmethod)) {
    return false;
  }
  if (!callerOfStubFrame(stub, blob.frame_words, regs.sp, thread.stack, readStackWord, caller) ||
      !code->find(caller.pc, caller_code)) {
    return false;
  }
  ASGCT_CallTrace below{trace.env, 0, trace.frames};
  if (state == VmThreadAnchor::State::InJava) {
    walkFrom(caller, below, depth - 1, context);
  } else {
    anchor->walkWithAnchorAt(env, caller, [&] { g_walk(&below, depth - 1, ucontext); });
  }
  if (below.num_frames <= 0) return false;
  trace.num_frames = addStubFrame(reinterpret_cast<RawFrame*>(trace.frames), below.num_frames, depth, stub.pc);
  return true;
}
#endif

// Walks the Java frames of the interrupted thread into `frames` (at most `depth`); returns
// AsyncGetCallTrace's num_frames.
jint walkJava(const ThreadSlot& thread, JNIEnv* env, RawFrame* frames, jint depth, void* ucontext) {
  ASGCT_CallTrace trace{env, 0, reinterpret_cast<ASGCT_CallFrame*>(frames)};
  g_walk(&trace, depth, ucontext);
#if defined(__x86_64__)
  if (trace.num_frames == kNotInJava && madeWalkable(thread, env, ucontext)) {
    trace.num_frames = 0;
    g_walk(&trace, depth, ucontext);
  }
  const jint first = trace.num_frames;
  if (first == kNotInJava || first == kUnknownJava || first == kNotWalkableJava) {
    const EdgeWalk edge = walkFromFrameEdge(thread, trace, depth, ucontext);
    if (edge == EdgeWalk::Failed && first == kUnknownJava && walkOverPushedWords(thread, trace, depth, ucontext)) {
      return trace.num_frames;
    }
    if (edge != EdgeWalk::NotCompiled) return edge == EdgeWalk::Walked ? trace.num_frames : first;
    // A sample recovered this way counts as any other; one that is not, for the first reason.
    if (walkFromStubCaller(thread, trace, depth, ucontext)) {
      return addStubFrame(frames, trace.num_frames, depth, interruptedPc(ucontext));
    }
    if (first == kUnknownJava && walkFromNativeLeaf(thread, trace, depth, ucontext)) return trace.num_frames;
  }
  if ((first == kNotInJava || first == kNotWalkableVm || first == kUnknownJava || first == kNotWalkableJava) &&
      walkFromRuntimeStub(thread, env, trace, depth, ucontext)) {
    return trace.num_frames;
  }
  return first;
#else
  return trace.num_frames;
#endif
}

#if defined(__x86_64__)
// Mixed mode: the native frames the thread was interrupted in (JVM runtime, JNI libraries,
// libc), innermost first, up to the first frame in the code cache, or for a thread with no
// Java frame (the JVM's own) down to its first function (clone3) when the chain holds. 0 when the pc is in Java
// code, or the thread's stack is not known yet.
jint walkNative(ThreadSlot& thread, RawFrame* frames, jint depth, void* ucontext) {
  const CompiledCode* code = g_compiled_code.load(std::memory_order_acquire);
  const WalkRegisters regs = registersOf(*static_cast<const ucontext_t*>(ucontext));
  // Without the code cache's bounds there is no telling where native frames end.
  if (!code || code->contains(regs.pc)) return 0;
  if (!thread.stack_ready.load(std::memory_order_acquire)) {
    frames[0] = {kNativeFrameBci, reinterpret_cast<const void*>(regs.pc)};
    return 1;
  }
  constexpr int kMaxNativeFrames = 128;  // leaves room for the Java frames
  uintptr_t pcs[kMaxNativeFrames];
  const auto in_code_cache = [code](uintptr_t pc) { return code->contains(pc); };
  // By the modules' CFI, frame pointers where there is none (native/native_stack_walk.h).
  const int count = native::walkNativeStack(regs, thread.stack, native::loadedUnwindModules(), readStackWord,
                                            in_code_cache, pcs, std::min<int>(kMaxNativeFrames, depth));
  for (int i = 0; i < count; ++i) {
    // A return address is the instruction after the call, maybe already past the caller's end.
    frames[i] = {kNativeFrameBci, reinterpret_cast<const void*>(i == 0 ? pcs[i] : pcs[i] - 1)};
  }
  return count;
}
#endif

#if defined(__x86_64__)
// How AsyncGetCallTrace is walked again from a Java region's top (native_between.h): through a
// moved copy of the signal's context for a thread in Java (which has no frame anchor then),
// through its frame anchor pointed there for a thread in the VM (vm_thread_anchor.h).
struct RegionWalk {
  JNIEnv* env;
  void* ucontext;
  const VmThreadAnchor* anchor;
  VmThreadAnchor::State state;
};

int32_t walkFromRegionTop(const WalkRegisters& top, RawFrame* out, int32_t depth, void* data) {
  const auto& walk = *static_cast<const RegionWalk*>(data);
  ASGCT_CallTrace trace{walk.env, 0, reinterpret_cast<ASGCT_CallFrame*>(out)};
  if (walk.state == VmThreadAnchor::State::InJava) {
    walkFrom(top, trace, depth, *static_cast<const ucontext_t*>(walk.ucontext));
  } else {
    walk.anchor->walkWithAnchorAt(walk.env, top, [&] { g_walk(&trace, depth, walk.ucontext); });
  }
  return trace.num_frames;
}

// Where the thread's innermost Java frame is, as AsyncGetCallTrace found it: its frame anchor
// (a thread in native code or in the VM, or on its way there), else in Java the interrupted
// frame (the caller, in a compiled method's prologue or epilogue) or the compiled caller of
// the native code it called.
bool innermostJavaFrame(const ThreadSlot& thread, JNIEnv* env, const VmThreadAnchor& anchor, const CompiledCode& code,
                        const WalkRegisters& regs, WalkRegisters& top, VmThreadAnchor::State& state) {
  if (anchor.lastJavaFrame(env, regs.sp, thread.stack, top, state)) return true;
  if (state != VmThreadAnchor::State::InJava) return false;
  const auto inJava = [&code](uintptr_t pc) { return code.contains(pc); };
  if (!code.contains(regs.pc)) return callerOfNativeLeaf(regs, thread.stack, readStackWord, inJava, top);
  CompiledMethodCode method;
  if (code.find(regs.pc, method) && callerOfFrameEdge(method, regs, thread.stack, readStackWord, readCodeByte, top)) {
    return true;
  }
  top = regs;
  return true;
}

// The thread's kept frames below its outermost Java frame (native_below.h) at out[0, room),
// under the call stub's frame; the number written.
jint keptFramesBelow(const ThreadSlot& thread, const EntryFrames& entry, RawFrame* out, jint room) {
  RawFrame call_stub;
  return framesBelow(thread.below, callStubFrame(entry, g_config.code_regions, call_stub) ? &call_stub : nullptr, out,
                     room);
}

// Mixed mode, after a region walk that reached the bottom of the stack: the native frames
// below its outermost Java frame (native_below.h) at frames[0, room), found again only when
// the thread's kept ones do not hold. Before a walk, the Java frames (list[0, count)) must be
// known to end at the frame the outermost call stub called: AsyncGetCallTrace walked again
// from there ends as they do (a walk from the signal's context can end early and quietly at
// a frame it misread, walkOverPushedWords); one from a frame anchor (a thread in native code,
// not walked again) starts at a frame the VM left whole. The number of frames written.
jint framesBelowRegions(ThreadSlot& thread, const RegionsFound& found, const EntryFrames& entry, RawFrame* list,
                        jint count, jint room, uintptr_t sp, WalkJavaFrom walk_again, RegionWalk& walk) {
  if (found.bottom_entry_fp == 0 || found.bottom_java_frame.pc == 0) return 0;
  const void* outermost = list[count - 1].method;
  if (thread.below.entry_fp != found.bottom_entry_fp || !belowStillHolds(thread.below, outermost, sp, thread.stack)) {
    if (walk_again && listFramesFrom(found.bottom_java_frame, list, count, room, walk_again, &walk) < 0) return 0;
    walkBelow(thread.below, found.bottom_entry_fp, outermost, sp, thread.stack, entry.layout(),
              native::loadedUnwindModules());
  }
  return keptFramesBelow(thread, entry, list + count, room);
}

// Mixed mode: frames[native, native + java) are the Java frames; the native frames between
// Java regions (native_between.h) and below the outermost Java frame (native_below.h) are
// put in. The new number of frames after `native`. A thread whose active handle block is the
// one of its single-region stack has one region still (entry_frames.h): one load, and the
// check of the frames below that it kept, with no walk. A list that filled the slot may have
// been cut: it has nothing below.
jint withNativeFramesAround(ThreadSlot& thread, JNIEnv* env, RawFrame* frames, jint native, jint java, void* ucontext) {
  const EntryFrames* entry = g_entry_frames.load(std::memory_order_acquire);
  const VmThreadAnchor* anchor = g_vm_thread_anchor.load(std::memory_order_acquire);
  const CompiledCode* code = g_compiled_code.load(std::memory_order_acquire);
  if (!entry || !anchor || !code || !env || thread.mounted_vthread.load(std::memory_order_relaxed) != 0 ||
      !thread.stack_ready.load(std::memory_order_acquire)) {
    return java;
  }
  const bool whole = native + java < kMaxFrames;
  const uintptr_t handles = entry->activeHandles(env);
  const WalkRegisters regs = registersOf(*static_cast<const ucontext_t*>(ucontext));
  RawFrame* const list = frames + native;
  if (handles == thread.single_region_handles) {
    if (!whole) return java;
    if (belowStillHolds(thread.below, list[java - 1].method, regs.sp, thread.stack)) {
      return java + keptFramesBelow(thread, *entry, list + java, kMaxFrames - native - java);
    }
  }
  BetweenInput input{entry, g_config.code_regions, thread.stack, regs.sp, {}};
  VmThreadAnchor::State state = VmThreadAnchor::State::Other;
  if (!innermostJavaFrame(thread, env, *anchor, *code, regs, input.top, state)) return java;
  RegionWalk walk{env, ucontext, anchor, state};
  RegionsFound found;
  // A thread in native code has its anchor read by the VM at any time: it is not walked again.
  const WalkJavaFrom walk_again = state == VmThreadAnchor::State::InNative ? nullptr : walkFromRegionTop;
  const jint between = insertNativeBetween(input, frames, native, java, walk_again, &walk, found);
  // A call into Java installs its handle block before its entry frame exists, while the thread
  // is in Java state running the VM's code: a single region seen then is not the block's.
  if (found.count == 1 && !(state == VmThreadAnchor::State::InJava && !code->contains(regs.pc))) {
    thread.single_region_handles = handles;
  }
  const jint count = between > 0 ? between : java;
  if (!whole || native + count >= kMaxFrames) return count;
  return count + framesBelowRegions(thread, found, *entry, list, count, kMaxFrames - native - count, regs.sp,
                                    walk_again, walk);
}

// Mixed mode, cpu mode where the kernel allows it: the kernel functions the thread was in
// (a system call, a page fault), innermost first, from its timer's sample (cpu_sampler.h).
jint kernelFrames(ThreadSlot& thread, RawFrame* frames) {
  constexpr int kMaxKernelFrames = 64;
  uintptr_t pcs[kMaxKernelFrames];
  const int count = takeKernelCallChain(thread, pcs, kMaxKernelFrames);
  for (int i = 0; i < count; ++i) {
    frames[i] = {kNativeFrameBci, reinterpret_cast<const void*>(i == 0 ? pcs[i] : pcs[i] - 1)};
  }
  return count;
}
#endif

// The JNIEnv AsyncGetCallTrace needs: a Java thread's own, or for a thread the agent did not
// register (native_threads.h) the VM's answer, null when it is no JavaThread. jni_GetEnv
// only reads the VM's thread-local current thread.
JNIEnv* envOf(const ThreadSlot& thread) {
  if (thread.env || !g_config.vm) return thread.env;
  void* env = nullptr;
  return g_config.vm->GetEnv(&env, JNI_VERSION_1_6) == JNI_OK ? static_cast<JNIEnv*>(env) : nullptr;
}

// Walks the interrupted thread's stack into `frames`: native frames first (mixed mode), then
// the Java frames. Returns the frame count, or AsyncGetCallTrace's error when there is no
// frame at all.
jint walk(ThreadSlot& thread, RawFrame* frames, void* ucontext) {
  jint native = 0;
#if defined(__x86_64__)
  // A thread adopted while it ran (native_threads.h) has no known stack, and every walk that
  // reads it (a stub's caller, native frames) waits for the next scan to find the mapping
  // holding this sp. Left on every sample, wherever the pc: a thread that only runs Java code
  // never blocks to tell its sp otherwise, and after an attach lost 80 % of its samples in an
  // intrinsic stub (Math.sin) for want of the stub retry.
  if (!thread.stack_ready.load(std::memory_order_acquire)) {
    thread.native_sp.store(registersOf(*static_cast<const ucontext_t*>(ucontext)).sp, std::memory_order_relaxed);
  }
  if (g_config.native_frames) {
    native = kernelFrames(thread, frames);
    native += walkNative(thread, frames + native, kMaxFrames - native, ucontext);
  }
#endif
  JNIEnv* env = envOf(thread);
  const jint java = env ? walkJava(thread, env, frames + native, kMaxFrames - native, ucontext) : kNotInJava;
#if defined(__x86_64__)
  if (java > 0 && g_config.native_frames) return native + withNativeFramesAround(thread, env, frames, native, java, ucontext);
#endif
  if (java > 0) return native + java;
  // No Java frame to add: the native ones alone say where the CPU went.
  return native > 0 ? native : java;
}

// Whether a walk with this result still makes a sample. In wall mode a thread outside Java
// (a JVM thread, native code with no Java frame to walk) exists and has a state: its sample
// has an empty stack. In cpu mode the CPU time spent there belongs to no Java method.
bool sampleTaken(jint num_frames) {
  return num_frames > 0 || (g_config.wall && (num_frames == kNoJavaFrame || num_frames == kNotInJava));
}

// wall mode: a thread signalled while a GC runs, which the walk refuses: its time is the
// GC's, at the stack captured before (as the sampler's GC ticks have it, wall_sampler.h).
// Fills the claimed slot with that one repeat, in the thread's own state if the GC does not
// stop it (native code, say).
void fillGcRepeat(SampleSlot& slot, const ThreadSlot& thread, uint8_t state, uint32_t weight, int64_t time_ns) {
  slot.time_ns = time_ns;
  slot.kind = SlotKind::Repeat;
  slot.count = 1;
  slot.repeats[0] = {thread.id, thread.annotation.load(std::memory_order_relaxed),
                     stoppedByPause(state) ? static_cast<uint8_t>(format::ThreadState::Gc) : state,
                     static_cast<uint16_t>(std::min<uint32_t>(weight, UINT16_MAX))};
}

// Walks the stack of the interrupted thread into a claimed slot and queues it; otherwise
// counts the reason, once per tick the sample stands for.
void capture(ThreadSlot& thread, uint8_t state, void* ucontext) {
  const int64_t time_ns = monotonicNs() - g_config.start_ns;
  // A carrier running a virtual thread: the stack walked is the virtual thread's, and so is
  // the sample (virtual_threads.h). One that mounted after the sampler looked is running.
  const uint32_t vthread = thread.mounted_vthread.load(std::memory_order_acquire);
  if (vthread != 0 && g_config.wall && thread.wall_vthread.load(std::memory_order_relaxed) != vthread) {
    state = static_cast<uint8_t>(format::ThreadState::Running);
  }
  const SampleRing::Claim claim = g_config.ring->tryClaim();
  const jint num_frames = claim ? walk(thread, claim.slot->frames, ucontext) : 0;
  const bool taken = claim && sampleTaken(num_frames);
  uint32_t weight = 1;
  if (g_config.wall) {
    if (taken) {
      // So the sampler can tell whether the thread ran since (wall_sampler.cpp); only after
      // a good capture: after a failed one the thread must be signalled again.
      thread.cpu_at_capture.store(currentThreadCpuTimeNs(), std::memory_order_relaxed);
      // A repeat the sampler queues once it sees this is claimed after this slot, so the
      // writer reads this stack first. A virtual thread's stack is not the carrier's: the
      // carrier has none to repeat until it is captured again on its own.
      thread.has_stack.store(vthread == 0, std::memory_order_release);
    }
    // Last: until then the sampler adds its ticks to this capture (wall_pending.h).
    weight = takePendingWeight(thread.wall_pending);
  }
  if (!claim) {
    g_config.lost->add(format::LostReason::BufferFull, weight);
    return;
  }
  if (g_config.wall && num_frames == kGcActive && vthread == 0 && thread.has_stack.load(std::memory_order_acquire)) {
    fillGcRepeat(*claim.slot, thread, state, weight, time_ns);
    g_config.ring->publish(claim);
    return;
  }
  SampleSlot& slot = *claim.slot;
  slot.time_ns = time_ns;
  slot.thread = vthread != 0 ? vthread : thread.id;
  slot.carrier = vthread != 0 ? thread.id : 0;
  slot.annotation = thread.annotation.load(std::memory_order_relaxed);
  slot.state = state;
  slot.weight = weight;
  slot.kind = taken ? SlotKind::Stack : SlotKind::Skip;
  slot.count = taken ? static_cast<uint16_t>(std::max<jint>(num_frames, 0)) : 0;
  // A sample not taken leaves its thread's consumption to the next one that is.
  const MetricDeltas deltas = taken ? takeDeltas(thread.metric_base, readOwnCounters(thread.env)) : MetricDeltas{};
  slot.cpu_us = deltas.cpu_us;
  slot.alloc_bytes = deltas.alloc_bytes;
  g_config.ring->publish(claim);  // a claimed slot must be published, even a failed one
  if (!taken) g_config.lost->add(lostReasonForWalkError(num_frames), weight);
}

void handleSample(siginfo_t* info, void* ucontext) {
  // A POSIX CPU timer that expired again before its signal was delivered: those ticks are
  // lost. (si_overrun is what timer_getoverrun() would return for this delivery; the
  // perf_event driver's signals carry POLL_IN instead and are not tick-bound.)
  if (!g_config.wall && info->si_code == SI_TIMER && info->si_overrun > 0) {
    g_config.lost->add(format::LostReason::TimerOverrun, static_cast<uint64_t>(info->si_overrun));
  }
  ThreadSlot* thread = currentThreadSlot();
  if (!g_config.wall && g_config.native_threads) {
    // Mixed mode: a thread's SIGPROF counts only from its own timer. A Java thread that was
    // still sampled as a native one (registered since, until the next scan retires that
    // timer) would otherwise count its CPU twice.
    if (!thread) thread = g_config.native_threads->find(static_cast<pid_t>(syscall(SYS_gettid)));
    if (thread && !signalFromTimerOf(*thread, info)) return;
  }
  if (!thread) {
    g_config.lost->add(format::LostReason::ThreadUnknown);
    return;
  }
  // wall mode: a SIGPROF the sampler did not send (nothing pending) is due no sample.
  // Acquire: the sampler's store that set it pending published wall_state.
  if (g_config.wall && thread->wall_pending.load(std::memory_order_acquire) == 0) return;
  // The annotation filter left this thread out after the signal was sent (its timer is
  // disarmed and the wall sampler skips it, so this is rare): nothing was due, nothing lost.
  if (thread->excluded.load(std::memory_order_relaxed)) {
    if (g_config.wall) takePendingWeight(thread->wall_pending);
    return;
  }
  const uint8_t state = g_config.wall ? thread->wall_state.load(std::memory_order_relaxed)
                                      : static_cast<uint8_t>(format::ThreadState::Running);
  capture(*thread, state, ucontext);
}

void onSigprof(int, siginfo_t* info, void* ucontext) {
  const int saved_errno = errno;
  g_in_handler.fetch_add(1);
  if (g_active.load()) handleSample(info, ucontext);
  g_in_handler.fetch_sub(1);
  errno = saved_errno;
}

}  // namespace

void* findAsyncGetCallTrace() { return dlsym(RTLD_DEFAULT, "AsyncGetCallTrace"); }

int walkThreadInNative(JNIEnv* jni, RawFrame* frames, int depth) {
  if (!g_walk) return 0;
  ASGCT_CallTrace trace{jni, 0, reinterpret_cast<ASGCT_CallFrame*>(frames)};
  // A thread outside Java code is walked from its last Java frame: no context is read.
  g_walk(&trace, depth, nullptr);
  return trace.num_frames;
}

namespace {
// Whether installCaptureHandler found SIGPROF handled by someone else (set once, at load).
bool g_replaced_foreign_handler = false;
}  // namespace

bool installCaptureHandler(const CaptureConfig& config) {
  // The loaded modules' unwinding tables, before any handler walks by them (the writer
  // thread reads them again as libraries are loaded: refreshUnwindModules).
  if (config.native_frames) native::refreshLoadedUnwindModules();
  g_config = config;
  g_walk = reinterpret_cast<AsyncGetCallTraceFn>(config.async_get_call_trace);
  struct sigaction action{};
  action.sa_sigaction = onSigprof;
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&action.sa_mask);
  struct sigaction previous{};
  if (sigaction(SIGPROF, &action, &previous) != 0) return false;
  // Another profiler or a native library had SIGPROF: it loses its signals from now on, and
  // the user must hear of it (sampling_health.h puts it in the recording).
  g_replaced_foreign_handler = previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN &&
                               !((previous.sa_flags & SA_SIGINFO) && previous.sa_sigaction == onSigprof);
  return true;
}

bool replacedForeignSigprofHandler() { return g_replaced_foreign_handler; }

bool captureHandlerStillInstalled() {
  struct sigaction current{};
  return sigaction(SIGPROF, nullptr, &current) == 0 && (current.sa_flags & SA_SIGINFO) && current.sa_sigaction == onSigprof;
}

namespace {
// Elsewhere than on x86-64 the walks that read them are not built: nothing is kept.
template <typename T>
void publish(std::atomic<const T*>& slot, const T* value) {
#if defined(__x86_64__)
  slot.store(value, std::memory_order_release);
#else
  (void)slot;
  (void)value;
#endif
}
}  // namespace

void setCompiledCode(const CompiledCode* code) { publish(g_compiled_code, code); }
void setVmThreadAnchor(const VmThreadAnchor* anchor) { publish(g_vm_thread_anchor, anchor); }
void setEntryFrames(const EntryFrames* entry) { publish(g_entry_frames, entry); }

void setCaptureActive(bool active) { g_active.store(active); }

bool stopCapture(int64_t timeout_ns) {
  g_active.store(false);
  return waitForNoUsers(g_in_handler, timeout_ns);
}
bool captureActive() { return g_active.load(std::memory_order_acquire); }

}  // namespace stackscope::agent
