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

    // Three kinds of work, each in its own method so its samples count for it.
    static long alpha(long x, long budgetNs) { return Cpu.mix(x, budgetNs); }
    static long beta(long x, long budgetNs) { return Cpu.shuffle(x, budgetNs); }
    static long gamma(long x, long budgetNs) { return Cpu.sqrtChain(x, budgetNs); }
}
