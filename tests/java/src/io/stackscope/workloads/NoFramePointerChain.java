package io.stackscope.workloads;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * A native method whose C functions keep no frame pointer
 * (tests/native_programs/jni_no_frame_pointer.c): main calls run, whose C function calls
 * jni_chain_c, jni_chain_b and jni_chain_a, which burns the CPU. Every sample of jni_chain_a
 * has the whole chain below it.
 *
 * <p>Arguments: milliseconds of the main thread's CPU time to run (after a second's wait), the
 * library's path.
 */
public final class NoFramePointerChain {
  static volatile long sink;

  static native long run(int rounds);

  public static void main(String[] args) throws InterruptedException {
    System.load(args[1]);
    // The agent looks for libraries loaded since its last look at most once a second
    // (agent/native_frame_addresses.h): until then the C functions would have no name.
    Thread.sleep(1100);
    // CPU time, not wall time: a loaded machine gives the test as many samples as a quiet one.
    final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    final long end = threads.getCurrentThreadCpuTime() + Long.parseLong(args[0]) * 1_000_000L;
    while (threads.getCurrentThreadCpuTime() < end) sink += run(1_000_000);
  }
}
