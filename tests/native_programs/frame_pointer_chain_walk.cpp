// The signal side of frame_pointer_chain.c: a SIGPROF handler that walks the frame-pointer
// chain of the interrupted thread (native/frame_pointer_walk.h) into a fixed array, as the
// agent's handler does; the symbolizing happens after, outside the handler.
#include <pthread.h>
#include <signal.h>
#include <sys/time.h>
#include <ucontext.h>
#include <unistd.h>

#include <cstdio>

#include "native/frame_pointer_walk.h"
#include "native/symbolizer.h"

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

extern "C" int armWalkOnSigprof() {
  pthread_attr_t attributes;
  if (pthread_getattr_np(pthread_self(), &attributes) != 0) return 0;
  void* low = nullptr;
  size_t size = 0;
  pthread_attr_getstack(&attributes, &low, &size);
  pthread_attr_destroy(&attributes);
  stack.low = reinterpret_cast<uintptr_t>(low);
  stack.base = stack.low + size;

  struct sigaction action = {};
  action.sa_sigaction = walkInterruptedThread;
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&action.sa_mask);
  if (sigaction(SIGPROF, &action, nullptr) != 0) return 0;
  // Fires after 1 ms of the process's CPU time: while leaf spins, as it is the one running.
  itimerval timer = {{0, 1000}, {0, 1000}};
  return setitimer(ITIMER_PROF, &timer, nullptr) == 0;
}

extern "C" int printWalk() {
  itimerval off = {};
  setitimer(ITIMER_PROF, &off, nullptr);
  native::Symbolizer symbolizer(getpid());
  for (int i = 0; i < frame_count; i++) {
    // Above the first frame the words are return addresses: name the call, one byte before.
    uintptr_t pc = i == 0 ? frames[i] : frames[i] - 1;
    std::printf("%s\n", native::display(symbolizer.symbolize(pc)).c_str());
  }
  return frame_count > 0;
}
