package io.stackscope.workloads;

/**
 * A thread a C library attaches through JNI ("late-tables") calls work from a second library
 * it has just loaded with dlopen (tests/native_programs/late_tables.c): the native frames below
 * its Java frames are described only by that library's unwinding tables, which the agent reads
 * after the call began (tests/integration/mixed_mode_below_test.cpp). work runs early, then
 * late, in one call.
 *
 * <p>Arguments: the first library's path, the second's, milliseconds of CPU time for early and
 * for late.
 */
public final class LateTables {
  static volatile long sink;

  static native boolean start(String callerLibrary, long earlyNs, long lateNs);

  static native void join();

  // Called once by the attached thread, from the library it loaded.
  static void work(long earlyNs, long lateNs) {
    early(earlyNs);
    late(lateNs);
  }

  static void early(long ns) {
    sink = Cpu.mix(sink | 1, ns);
  }

  static void late(long ns) {
    sink = Cpu.shuffle(sink | 1, ns);
  }

  public static void main(String[] args) throws InterruptedException {
    System.load(args[0]);
    // The agent looks for libraries loaded since its last look at most once a second
    // (agent/native_frame_addresses.h): until then the first library's functions would have no
    // name. The second one's are named by the time late runs.
    Thread.sleep(1100);
    if (!start(args[1], Long.parseLong(args[2]) * 1_000_000L, Long.parseLong(args[3]) * 1_000_000L)) {
      throw new IllegalStateException("no attached thread");
    }
    join();
  }
}
