// The signal side of cfi_chain.c: a SIGPROF handler that walks the interrupted thread's stack
// twice into fixed arrays, as the agent's handler does, by the CFI of the loaded modules
// (native/native_stack_walk.h) and by frame pointers alone (native/frame_pointer_walk.h); the
// symbolizing happens after, outside the handler.
#include <signal.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "native/native_stack_walk.h"
#include "native/symbolizer.h"
#include "sigprof_walks.h"

namespace native = stackscope::native;

// Set by the handler once it has walked kWalks times; read by chain_a in cfi_chain.c.
extern "C" {
volatile int walks_done = 0;
}

namespace {

constexpr int kWalks = 200;
constexpr int kMaxFrames = 32;

struct Walk {
  uintptr_t frames[kMaxFrames];
  int count = 0;
};

native::StackBounds stack;
Walk cfi_walks[kWalks];
Walk fp_walks[kWalks];
int walks = 0;
// What a walk costs, warm (printed, never asserted on): at the last signal, kTimedWalks more
// of each kind from the same registers, the thread's CPU time divided.
constexpr int kTimedWalks = 2000;
int64_t cfi_ns = 0, fp_ns = 0;

int64_t threadCpuNs() {
  timespec now;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return now.tv_sec * 1000000000LL + now.tv_nsec;
}

template <typename WalkOnce>
int64_t nsPerWalk(WalkOnce walk_once) {
  const int64_t start = threadCpuNs();
  for (int i = 0; i < kTimedWalks; i++) walk_once();
  return (threadCpuNs() - start) / kTimedWalks;
}

uintptr_t readWord(uintptr_t address) { return *reinterpret_cast<const uintptr_t*>(address); }

void walkInterruptedThread(int, siginfo_t*, void* context) {
  if (walks == kWalks) return;
  const mcontext_t& machine = static_cast<ucontext_t*>(context)->uc_mcontext;
  native::WalkRegisters regs;
  regs.pc = static_cast<uintptr_t>(machine.gregs[REG_RIP]);
  regs.sp = static_cast<uintptr_t>(machine.gregs[REG_RSP]);
  regs.fp = static_cast<uintptr_t>(machine.gregs[REG_RBP]);
  const auto never = [](uintptr_t) { return false; };
  Walk& cfi = cfi_walks[walks];
  Walk& fp = fp_walks[walks];
  const auto walk_cfi = [&] {
    cfi.count = native::walkNativeStack(regs, stack, native::loadedUnwindModules(), readWord, never, cfi.frames,
                                        kMaxFrames);
  };
  const auto walk_fp = [&] { fp.count = native::walkFramePointers(regs, stack, readWord, never, fp.frames, kMaxFrames); };
  walk_cfi();
  walk_fp();
  if (walks == kWalks - 1) {
    cfi_ns = nsPerWalk(walk_cfi);
    fp_ns = nsPerWalk(walk_fp);
  }
  if (++walks == kWalks) walks_done = 1;
}

void printWalk(native::Symbolizer& symbolizer, const char* kind, const Walk& walk) {
  std::string line = kind;
  for (int i = 0; i < walk.count; i++) {
    // Above the first frame the words are return addresses: name the call, one byte before.
    const uintptr_t pc = i == 0 ? walk.frames[i] : walk.frames[i] - 1;
    line += (i == 0 ? "" : ";") + native::display(symbolizer.symbolize(pc));
  }
  std::printf("%s\n", line.c_str());
}

}  // namespace

extern "C" int armWalksOnSigprof() {
  native::refreshLoadedUnwindModules();
  return stackscope::testing::armSigprofWalks(walkInterruptedThread, stack);
}

extern "C" int printWalks() {
  stackscope::testing::disarmSigprofWalks();
  native::Symbolizer symbolizer(getpid());
  for (int i = 0; i < walks; i++) {
    printWalk(symbolizer, "cfi:", cfi_walks[i]);
    printWalk(symbolizer, "fp:", fp_walks[i]);
  }
  if (walks == kWalks) {
    const Walk& last = cfi_walks[kWalks - 1];
    std::printf("cost: cfi %lld ns a walk of %d frames, fp %lld ns a walk of %d\n", static_cast<long long>(cfi_ns),
                last.count, static_cast<long long>(fp_ns), fp_walks[kWalks - 1].count);
  }
  return walks > 0;
}
