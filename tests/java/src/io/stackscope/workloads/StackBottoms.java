package io.stackscope.workloads;

/**
 * Three threads burn the CPU at the bottom of three kinds of stacks
 * (tests/integration/mixed_mode_below_test.cpp): the launcher's main thread in main, a thread
 * Java started ("java-started") in its Runnable, and a thread a C library started and attached
 * through JNI ("jni-attached", tests/native_programs/stack_bottoms.c), which calls work from
 * two C functions in turns of 3 ms of CPU time: from one work runs workA, from the other
 * workB. Prints "ready" once all three run.
 *
 * <p>Arguments: milliseconds of CPU time for each thread (after a second's wait), the library's
 * path.
 */
public final class StackBottoms {
  static volatile long sink;

  static native boolean startAttached(long turnNs, long totalNs);

  static native void joinAttached();

  // Called by the attached thread's C functions: viaA tells which one.
  static void work(long ns, boolean viaA) {
    if (viaA) {
      workA(ns);
    } else {
      workB(ns);
    }
  }

  static void workA(long ns) {
    sink = Cpu.mix(sink | 1, ns);
  }

  static void workB(long ns) {
    sink = Cpu.shuffle(sink | 1, ns);
  }

  public static void main(String[] args) throws InterruptedException {
    final long ns = Long.parseLong(args[0]) * 1_000_000L;
    System.load(args[1]);
    // The agent looks for libraries loaded since its last look at most once a second
    // (agent/native_frame_addresses.h): until then the C functions would have no name.
    Thread.sleep(1100);
    Thread started = new Thread(() -> Cpu.burn(ns), "java-started");
    started.start();
    if (!startAttached(3_000_000L, ns)) throw new IllegalStateException("no attached thread");
    System.out.println("ready");
    Cpu.burn(ns);
    started.join();
    joinAttached();
  }
}
