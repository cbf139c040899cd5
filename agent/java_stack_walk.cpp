// See java_stack_walk.h. The SIGNAL HANDLER RULES at the top of stack_capture.cpp hold for
// everything here.
#include "agent/java_stack_walk.h"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstring>

#include "agent/compiled_frame_edges.h"
#include "agent/stack_capture.h"
#include "agent/stub_unwind.h"
#include "agent/stub_walk_cache.h"
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

AsyncGetCallTraceFn g_walk = nullptr;
const CodeRegions* g_code_regions = nullptr;

// The VM's structures the x86-64 walks read (stack_capture.h's setters): null until bound.
std::atomic<const CompiledCode*> g_compiled_code{nullptr};
std::atomic<const VmThreadAnchor*> g_vm_thread_anchor{nullptr};
std::atomic<const EntryFrames*> g_entry_frames{nullptr};

}  // namespace

#if defined(__x86_64__)
WalkRegisters registersOf(const ucontext_t& context) {
  const greg_t* gregs = context.uc_mcontext.gregs;
  return {static_cast<uintptr_t>(gregs[REG_RIP]), static_cast<uintptr_t>(gregs[REG_RSP]),
          static_cast<uintptr_t>(gregs[REG_RBP])};
}

uintptr_t readStackWord(uintptr_t addr) { return *reinterpret_cast<const uintptr_t*>(addr); }

uint8_t readCodeByte(uintptr_t addr) { return *reinterpret_cast<const uint8_t*>(addr); }

const CompiledCode* boundCompiledCode() { return g_compiled_code.load(std::memory_order_acquire); }
const VmThreadAnchor* boundVmThreadAnchor() { return g_vm_thread_anchor.load(std::memory_order_acquire); }
const EntryFrames* boundEntryFrames() { return g_entry_frames.load(std::memory_order_acquire); }
const CodeRegions* boundCodeRegions() { return g_code_regions; }
#endif

namespace {

#if defined(__x86_64__)
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
// frames is kept, the one before on a tie: the code before a call computes its arguments, in
// the calling method, while the code after may be a sibling's (an OSR-compiled loop calls the
// arraycopy stub from deleteCharAt's inlined shift, and the next record is the inlined
// append's, as deep: before, 35-64 % of the copy went to ensureCapacityInternal in one run in
// four on JDK 17). A guess, which holds when the code around the call belongs to outer or
// sibling methods (the cases above, checked by tests); an earlier record of a deeper inlined
// callee that has already returned would be taken wrongly.
bool walkFromLeafCall(const WalkRegisters& regs, ASGCT_CallTrace& trace, jint depth, const ucontext_t& context) {
  if (!walkFrom(regs, trace, depth, context)) return false;
  const jint after = trace.num_frames;
  const CompiledCode* code = g_compiled_code.load(std::memory_order_acquire);
  CompiledMethodCode method;
  uintptr_t record_pc = 0;
  if (after >= depth || !code || !code->find(regs.pc, method) || !code->recordBeforeCall(method, regs.pc, record_pc)) {
    return true;
  }
  if (walkAt(record_pc - 1, regs, trace, depth, context) && trace.num_frames >= after) return true;
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
  const CodeRegions* regions = g_code_regions;
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

// Puts the stub holding pc on top of the Java frames walked from its caller; the outermost
// frame gives way when the walk filled the slot.
jint addStubFrame(RawFrame* frames, jint num_frames, jint depth, uintptr_t pc) {
  if (!g_code_regions) return num_frames;
  const int32_t region = g_code_regions->find(pc);
  if (region < 0) return num_frames;
  const jint kept = std::min<jint>(num_frames, depth - 1);
  std::memmove(frames + 1, frames, static_cast<size_t>(kept) * sizeof(RawFrame));
  frames[0] = {kStubFrameBci, reinterpret_cast<const void*>(static_cast<uintptr_t>(region) + 1)};
  return kept + 1;
}

// A compiled method entered for the first time since a collection armed it calls the entry
// barrier's stub from its prologue, its frame built, and the stub calls the VM as a leaf
// (BarrierSetNMethod::nmethod_stub_entry_barrier: state _thread_in_Java, no anchor), where
// AsyncGetCallTrace sees no Java frame: 31-40 % of the samples of a thread that entered many
// methods between collections kept VM frames alone (JDK 25). `stub` is the stub's frame the
// native frames lead to. Walked from the method's caller, one frame size up, with the method
// on top (bci 0, its entry, as at a frame edge) and the stub above it.
bool walkFromEntryBarrier(const ThreadSlot& thread, const WalkRegisters& stub, ASGCT_CallTrace& trace, jint depth,
                          const ucontext_t& context) {
  const CompiledCode* code = g_compiled_code.load(std::memory_order_acquire);
  const int32_t region = g_code_regions ? g_code_regions->find(stub.pc) : -1;
  if (!code || depth < 3 || region < 0 || !std::strstr(g_code_regions->name(region), "entry_barrier")) return false;
  const uintptr_t sp = registersOf(context).sp;
  WalkRegisters entered, caller;
  CompiledMethodCode method;
  if (!callerOfEntryBarrierStub(stub, sp, thread.stack, readStackWord, entered) || !code->find(entered.pc, method) ||
      !callerOfStubFrame(entered, method.frame_words, sp, thread.stack, readStackWord, caller)) {
    return false;
  }
  const void* method_id = code->methodId(method.method);
  ASGCT_CallTrace below{trace.env, 0, trace.frames + 1};
  if (!method_id || !walkFrom(caller, below, depth - 2, context)) return false;
  trace.frames[0] = {0, static_cast<jmethodID>(const_cast<void*>(method_id))};
  trace.num_frames = addStubFrame(reinterpret_cast<RawFrame*>(trace.frames), below.num_frames + 1, depth, stub.pc);
  return true;
}

// A thread in Java whose pc is in native code (a leaf call from compiled code into the VM or
// libc, stub_unwind.h; AsyncGetCallTrace answers "unknown Java", or "not walkable Java" when
// the native code's frame pointers looked like a frame to it): walked again from the compiled
// caller the native frames lead to, by their CFI where mixed mode loaded it (libc's
// pthread_cond_signal, which releasing a contended monitor calls, keeps no frame pointer on its
// way to the kernel), else by the frame-pointer chain; or from the method whose entry
// barrier's stub the native frames lead to.
bool walkFromNativeLeaf(const ThreadSlot& thread, ASGCT_CallTrace& trace, jint depth, void* ucontext) {
  const CompiledCode* code = g_compiled_code.load(std::memory_order_acquire);
  const auto& context = *static_cast<const ucontext_t*>(ucontext);
  const WalkRegisters regs = registersOf(context);
  if (!code || code->contains(regs.pc) || !thread.stack_ready.load(std::memory_order_acquire)) return false;
  const auto inJava = [code](uintptr_t pc) { return code->contains(pc); };
  if (const native::UnwindModules* modules = native::loadedUnwindModules()) {
    uintptr_t pcs[kMaxLeafFrames];
    WalkRegisters caller;
    native::walkNativeStack(regs, thread.stack, modules, readStackWord, inJava, pcs, kMaxLeafFrames, &caller);
    // A compiled caller the CFI found is the one: frame pointers through the same libc code
    // (which uses rbp as it likes) would only guess.
    if (caller.pc != 0) {
      return walkFromEntryBarrier(thread, caller, trace, depth, context) || walkFromLeafCall(caller, trace, depth, context);
    }
  }
  WalkRegisters caller;
  return callerOfNativeLeaf(regs, thread.stack, readStackWord, inJava, caller) &&
         (walkFromEntryBarrier(thread, caller, trace, depth, context) || walkFromLeafCall(caller, trace, depth, context));
}

uintptr_t interruptedPc(const void* ucontext) {
  return static_cast<uintptr_t>(static_cast<const ucontext_t*>(ucontext)->uc_mcontext.gregs[REG_RIP]);
}

// A thread in a runtime stub called from compiled Java code (a contended monitor's enter,
// C1's exception dispatch, vm_thread_anchor.h): walked again from the stub's compiled caller,
// with the stub on top. The stub's frame is the one the thread was interrupted in, when the
// code cache says it is built there, else the one its frame anchor holds (the stub called into
// the VM). The walk goes through the signal context while the thread runs the stub's own code
// (its anchor may be half written), through its frame anchor once it has called out of the code
// cache: AsyncGetCallTrace prefers an anchor with a pc to the context, and fails from the
// context of a thread still in Java state with a half-made anchor (C1's exception handler
// lookup runs so: a third or more of a C1-compiled loop's throwing samples kept VM frames
// alone). Only a caller the code cache holds as a compiled method is tried.
bool walkFromRuntimeStub(ThreadSlot& thread, JNIEnv* env, ASGCT_CallTrace& trace, jint depth, void* ucontext) {
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
  if (state == VmThreadAnchor::State::InJava && code->contains(regs.pc)) {
    walkFrom(caller, below, depth - 1, context);
  } else {
    anchor->walkWithAnchorAt(env, caller, [&] { g_walk(&below, depth - 1, ucontext); });
  }
  if (below.num_frames <= 0) return false;
  trace.num_frames = addStubFrame(reinterpret_cast<RawFrame*>(trace.frames), below.num_frames, depth, stub.pc);
  // For when the thread blocks in the VM from these frames (stub_walk_cache.h): walked from the
  // anchor, in the VM or in the stub's call still in Java state.
  if (!in_built_stub) {
    rememberStubWalk(env, thread, reinterpret_cast<const RawFrame*>(trace.frames), trace.num_frames,
                     state == VmThreadAnchor::State::InJava);
  }
  return true;
}
#endif

}  // namespace

jint walkJava(ThreadSlot& thread, JNIEnv* env, RawFrame* frames, jint depth, void* ucontext) {
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
    if ((first == kUnknownJava || first == kNotWalkableJava) && walkFromNativeLeaf(thread, trace, depth, ucontext)) {
      return trace.num_frames;
    }
  }
  if ((first == kNotInJava || first == kNotWalkableVm || first == kUnknownJava || first == kNotWalkableJava) &&
      walkFromRuntimeStub(thread, env, trace, depth, ucontext)) {
    return trace.num_frames;
  }
  // Blocked in the VM for a contended monitor: the frames its walk from the same stub found.
  if (first < 0) {
    if (const int kept = recallStubWalk(env, thread, frames, depth); kept > 0) return kept;
  }
  return first;
#else
  return trace.num_frames;
#endif
}

#if defined(__x86_64__)
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
#endif

void bindJavaStackWalk(void* async_get_call_trace, const CodeRegions* code_regions) {
  g_walk = reinterpret_cast<AsyncGetCallTraceFn>(async_get_call_trace);
  g_code_regions = code_regions;
}

int walkThreadInNative(JNIEnv* jni, RawFrame* frames, int depth) {
  if (!g_walk) return 0;
  ASGCT_CallTrace trace{jni, 0, reinterpret_cast<ASGCT_CallFrame*>(frames)};
  // A thread outside Java code is walked from its last Java frame: no context is read.
  g_walk(&trace, depth, nullptr);
  return trace.num_frames;
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

}  // namespace stackscope::agent
