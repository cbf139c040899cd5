package io.stackscope.workloads;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * CPU-time helpers shared by the workloads. cpu-mode sampling is proportional to a thread's
 * CPU time, so the truth the workloads print and the budgets they burn are CPU time, never
 * wall time: a busy machine then changes how long a test takes, not what it must find.
 */
final class Cpu {
    private static final ThreadMXBean MX = ManagementFactory.getThreadMXBean();

    /** Written with every result so the JIT cannot prove the work dead and remove it. */
    static volatile long sink;

    private Cpu() {}

    /** CPU time consumed so far by the calling thread, in nanoseconds. */
    static long threadNs() {
        return MX.getCurrentThreadCpuTime();
    }

    /** Burns budgetNs of the calling thread's CPU time on integer mixing. */
    static void burn(long budgetNs) {
        long end = threadNs() + budgetNs;
        long x = sink | 1;
        do {
            // Enough work between clock reads that the reads stay a small share of the time.
            for (int i = 0; i < 20_000; i++) {
                x = x * 6364136223846793005L + 1442695040888963407L;
                x ^= x >>> 29;
            }
        } while (threadNs() < end);
        sink = x;
    }

    static long millis(String[] args, int index, long fallback) {
        return args.length > index ? Long.parseLong(args[index]) : fallback;
    }
}
