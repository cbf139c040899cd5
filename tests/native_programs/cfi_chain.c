/* A known native call chain main -> chain_c -> chain_b -> chain_a built WITHOUT frame pointers
   (-O2 -fomit-frame-pointer, no inlining, no sibling calls: each function keeps a frame of its
   own, described only by its CFI). chain_a burns the CPU until the SIGPROF handler
   (cfi_chain_walk.cpp) has walked the interrupted stack kWalks times, both by the CFI
   (native/native_stack_walk.h) and by frame pointers alone; main then prints each walk,
   symbolized, as one line "cfi:" or "fp:" then the frames innermost first, separated by ';',
   then a line "cost: ..." with what the walks cost.
   Exit 0, or 1 if no walk was taken. */
#include <stdio.h>

/* In cfi_chain_walk.cpp. chain_a reads the flag itself rather than through a call, so that
   the signals land in chain_a's own code. */
extern volatile int walks_done;
int armWalksOnSigprof(void);
int printWalks(void);

volatile unsigned long sink = 0;

/* Keeps its counter and a buffer on its own stack: a frame with a CFA offset of its own. */
__attribute__((noinline)) unsigned long chain_a(unsigned long seed) {
  volatile unsigned long buffer[8];
  unsigned long x = seed;
  while (!walks_done) {
    x = x * 6364136223846793005UL + 1442695040888963407UL;
    buffer[x & 7] = x;
  }
  return buffer[seed & 7] + x;
}

/* seed lives on across the call, in a callee-saved register pushed on the stack. */
__attribute__((noinline)) unsigned long chain_b(unsigned long seed) {
  const unsigned long kept = seed * 3;
  return chain_a(seed + 1) ^ kept;
}

__attribute__((noinline)) unsigned long chain_c(unsigned long seed) {
  const unsigned long kept = seed * 5;
  return chain_b(seed + 2) + kept;
}

int main(void) {
  if (!armWalksOnSigprof()) return 2;
  sink = chain_c(sink);
  return printWalks() ? 0 : 1;
}
