package io.stackscope.workloads;

/**
 * One thread splits its CPU time 50/30/20 among alpha, beta and gamma, in rounds of
 * 50 + 30 + 20 ms of CPU time, for about 3 s of CPU in all (args[0] overrides, in ms).
 * Prints "truth NAME NANOS" per method: the CPU time measured around each call, which is
 * what each method's total samples must be proportional to.
 *
 * Each method owns its loop (no shared helper) so its samples land in it, and main calls
 * each only a few dozen times, too few for the JIT to compile main and inline them into it.
 */
public final class ThreeWay {
    private static final long MS = 1_000_000L;
    private static final long ROUND_MS = 100;

    public static void main(String[] args) {
        long totalMs = Cpu.millis(args, 0, 3000);
        long[] spent = new long[3];
        long x = 1;
        for (long round = 0; round < totalMs / ROUND_MS; round++) {
            long t0 = Cpu.threadNs();
            x = alpha(x, 50 * MS);
            long t1 = Cpu.threadNs();
            x = beta(x, 30 * MS);
            long t2 = Cpu.threadNs();
            x = gamma(x, 20 * MS);
            long t3 = Cpu.threadNs();
            spent[0] += t1 - t0;
            spent[1] += t2 - t1;
            spent[2] += t3 - t2;
        }
        Cpu.sink = x;
        System.out.println("truth alpha " + spent[0]);
        System.out.println("truth beta " + spent[1]);
        System.out.println("truth gamma " + spent[2]);
    }

    /** Integer multiply-xorshift chain. */
    static long alpha(long x, long budgetNs) {
        long end = Cpu.threadNs() + budgetNs;
        do {
            for (int i = 0; i < 20_000; i++) {
                x = x * 6364136223846793005L + 1442695040888963407L;
                x ^= x >>> 31;
            }
        } while (Cpu.threadNs() < end);
        return x;
    }

    /** Array shuffling and summing, so beta's code differs from alpha's. */
    static long beta(long x, long budgetNs) {
        long end = Cpu.threadNs() + budgetNs;
        int[] a = new int[1024];
        do {
            for (int i = 0; i < 20_000; i++) {
                int j = (int) (x & 1023);
                a[j] += (int) x ^ a[(j + 511) & 1023];
                x = (x << 13 | x >>> 51) + a[j];
            }
        } while (Cpu.threadNs() < end);
        return x;
    }

    /** Floating-point recurrence. */
    static long gamma(long x, long budgetNs) {
        long end = Cpu.threadNs() + budgetNs;
        double d = (x & 0xffff) + 1.5;
        do {
            for (int i = 0; i < 20_000; i++) {
                d = Math.sqrt(d * 1.000001 + i) + 1.0 / d;
            }
        } while (Cpu.threadNs() < end);
        return x ^ Double.doubleToRawLongBits(d);
    }
}
