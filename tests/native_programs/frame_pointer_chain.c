/* A known native call chain main -> outer -> middle -> leaf, built with frame pointers and
   without inlining or sibling calls, so each function keeps a frame of its own. leaf spins
   until a CPU-time SIGPROF has interrupted it and the handler (frame_pointer_chain_walk.cpp)
   has walked the frame-pointer chain from the signal's ucontext; main then prints the
   symbolized chain, one frame a line, innermost first. Exit 0, or 1 if no walk was taken. */
#include <stdio.h>

/* In frame_pointer_chain_walk.cpp. leaf reads the flag itself rather than through a call, so
   that the signal lands in leaf's own code. */
extern volatile int walk_taken;
int armWalkOnSigprof(void);
int printWalk(void);

static volatile unsigned long spins = 0;

/* gcc 12 sets up no frame for a function that needs none, whatever -fno-omit-frame-pointer
   says (a walk from inside it would then skip middle): leaf keeps its counter on its stack. */
__attribute__((noinline)) void leaf(void) {
  volatile unsigned long local_spins = 0;
  while (!walk_taken) local_spins++;
  spins += local_spins;
}

__attribute__((noinline)) void middle(void) {
  leaf();
  spins++;
}

__attribute__((noinline)) void outer(void) {
  middle();
  spins++;
}

int main(void) {
  if (!armWalkOnSigprof()) return 2;
  outer();
  return printWalk() ? 0 : 1;
}
