// The signal side of frame_pointer_chain.c: a SIGPROF handler that walks the frame-pointer
// chain of the interrupted thread (native/frame_pointer_walk.h) into a fixed array, as the
// agent's handler does; the symbolizing happens after, outside the handler.
#include <signal.h>
#include <ucontext.h>
#include <unistd.h>

#include <cstdio>

#include "native/frame_pointer_walk.h"
#include "native/symbolizer.h"
#include "sigprof_walks.h"

namespace native = stackscope::native;

// Set by the handler once it has walked; read by leaf in frame_pointer_chain.c.
extern "C" {
volatile int walk_taken = 0;
}

namespace {

constexpr int kMaxFrames = 32;
native::StackBounds stack;
uintptr_t frames[kMaxFrames];
int frame_count = 0;

void walkInterruptedThread(int, siginfo_t*, void* context) {
  if (walk_taken) return;
  const mcontext_t& machine = static_cast<ucontext_t*>(context)->uc_mcontext;
  native::WalkRegisters regs;
  regs.pc = static_cast<uintptr_t>(machine.gregs[REG_RIP]);
  regs.sp = static_cast<uintptr_t>(machine.gregs[REG_RSP]);
  regs.fp = static_cast<uintptr_t>(machine.gregs[REG_RBP]);
  frame_count = native::walkFramePointers(
      regs, stack, [](uintptr_t address) { return *reinterpret_cast<const uintptr_t*>(address); },
      [](uintptr_t) { return false; }, frames, kMaxFrames);
  walk_taken = 1;
}

}  // namespace

extern "C" int armWalkOnSigprof() { return stackscope::testing::armSigprofWalks(walkInterruptedThread, stack); }

extern "C" int printWalk() {
  stackscope::testing::disarmSigprofWalks();
  native::Symbolizer symbolizer(getpid());
  for (int i = 0; i < frame_count; i++) {
    // Above the first frame the words are return addresses: name the call, one byte before.
    uintptr_t pc = i == 0 ? frames[i] : frames[i] - 1;
    std::printf("%s\n", native::display(symbolizer.symbolize(pc)).c_str());
  }
  return frame_count > 0;
}
