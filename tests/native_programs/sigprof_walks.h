// What frame_pointer_chain and cfi_chain share: the calling thread's stack bounds, and a
// SIGPROF handler fired by a CPU-time timer every 1 ms of the process's CPU (while the chain's
// leaf spins, as it is the one running).
#pragma once

#include <pthread.h>
#include <signal.h>
#include <sys/time.h>

#include "native/frame_pointer_walk.h"

namespace stackscope::testing {

// False if the bounds, the handler or the timer could not be had.
inline bool armSigprofWalks(void (*handler)(int, siginfo_t*, void*), native::StackBounds& stack) {
  pthread_attr_t attributes;
  if (pthread_getattr_np(pthread_self(), &attributes) != 0) return false;
  void* low = nullptr;
  size_t size = 0;
  pthread_attr_getstack(&attributes, &low, &size);
  pthread_attr_destroy(&attributes);
  stack.low = reinterpret_cast<uintptr_t>(low);
  stack.base = stack.low + size;

  struct sigaction action = {};
  action.sa_sigaction = handler;
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&action.sa_mask);
  if (sigaction(SIGPROF, &action, nullptr) != 0) return false;
  itimerval timer = {{0, 1000}, {0, 1000}};
  return setitimer(ITIMER_PROF, &timer, nullptr) == 0;
}

inline void disarmSigprofWalks() {
  itimerval off = {};
  setitimer(ITIMER_PROF, &off, nullptr);
}

}  // namespace stackscope::testing
