package io.stackscope.workloads;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
/**
 * A native method that calls back into Java (tests/native_programs/jni_callback.c): main calls
 * callBack, whose C function calls work through JNI, and work burns the CPU, in Java and in
 * the native method spin. Every sample of work has, between it and callBack, the C function
 * and the JVM's JNI call.
 *
 * <p>Arguments: milliseconds of the main thread's CPU time to run (after a second's wait), the
 * library's path.
 */
public final class JniCallback {
  static volatile long sink;

  static native void callBack(int rounds);

  static native long spin(int rounds);

  // Part in Java, part in native code (spin).
  static void work(int rounds) {
    long x = sink;
    for (int i = 0; i < rounds; i++) x = x * 6364136223846793005L + 1442695040888963407L;
    sink = x + spin(rounds);
  }

  public static void main(String[] args) throws InterruptedException {
    System.load(args[1]);
    // The agent looks for libraries loaded since its last look at most once a second
    // (agent/native_frame_addresses.h): until then the C function would have no name.
    Thread.sleep(1100);
    // CPU time, not wall time: a loaded machine gives the test as many samples as a quiet one.
    final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    final long end = threads.getCurrentThreadCpuTime() + Long.parseLong(args[0]) * 1_000_000L;
    while (threads.getCurrentThreadCpuTime() < end) callBack(200_000);
  }
}
