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

    /**
     * Burns budgetNs of the calling thread's CPU time on integer mixing; returns the CPU time
     * it took. The samples land in the caller's total, which is what the tests check.
     */
    static long burn(long budgetNs) {
        long start = threadNs();
        sink = mix(sink | 1, budgetNs);
        return threadNs() - start;
    }

    /** An integer multiply-xorshift chain, for budgetNs of CPU time. */
    static long mix(long x, long budgetNs) {
        long end = threadNs() + budgetNs;
        do {
            // Enough work between clock reads that the reads stay a small share of the time.
            for (int i = 0; i < 20_000; i++) {
                x = x * 6364136223846793005L + 1442695040888963407L;
                x ^= x >>> 29;
            }
        } while (threadNs() < end);
        return x;
    }

    /** Array shuffling and summing, for budgetNs of CPU time: other code than mix's. */
    static long shuffle(long x, long budgetNs) {
        long end = threadNs() + budgetNs;
        int[] a = new int[1024];
        do {
            for (int i = 0; i < 20_000; i++) {
                int j = (int) (x & 1023);
                a[j] += (int) x ^ a[(j + 511) & 1023];
                x = (x << 13 | x >>> 51) + a[j];
            }
        } while (threadNs() < end);
        return x;
    }

    /** A floating-point recurrence, for budgetNs of CPU time. */
    static long sqrtChain(long x, long budgetNs) {
        long end = threadNs() + budgetNs;
        double d = (x & 0xffff) + 1.5;
        do {
            for (int i = 0; i < 20_000; i++) {
                d = Math.sqrt(d * 1.000001 + i) + 1.0 / d;
            }
        } while (threadNs() < end);
        return x ^ Double.doubleToRawLongBits(d);
    }

    static long millis(String[] args, int index, long fallback) {
        return args.length > index ? Long.parseLong(args[index]) : fallback;
    }
}
