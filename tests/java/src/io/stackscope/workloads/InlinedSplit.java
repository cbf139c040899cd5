package io.stackscope.workloads;

/**
 * A hot loop, "caller", whose two small callees the JIT inlines into it: "threeQuarters"
 * runs three times as many rounds of the same multiply-xorshift step as "oneQuarter", so
 * they do 3/4 and 1/4 of the work, for args[0] ms of CPU time (default 3000). The step's
 * result feeds the next one, so the JIT can neither skip nor merge rounds.
 *
 * Ground truth printed: "truth caller_cpu NANOS".
 */
public final class InlinedSplit {
    private static final int ROUNDS = 1000;

    public static void main(String[] args) {
        long budgetNs = Cpu.millis(args, 0, 3000) * 1_000_000L;
        long start = Cpu.threadNs();
        long end = start + budgetNs;
        long x = 1;
        do {
            x = caller(x);
        } while (Cpu.threadNs() < end);
        Cpu.sink = x;
        System.out.println("truth caller_cpu " + (Cpu.threadNs() - start));
    }

    /** Enough calls between clock reads that the reads are a small share of the time. */
    static long caller(long x) {
        for (int i = 0; i < 1000; i++) {
            x = threeQuarters(x);
            x = oneQuarter(x);
        }
        return x;
    }

    static long threeQuarters(long x) {
        for (int i = 0; i < 3 * ROUNDS; i++) {
            x = x * 6364136223846793005L + 1442695040888963407L;
            x ^= x >>> 29;
        }
        return x;
    }

    static long oneQuarter(long x) {
        for (int i = 0; i < ROUNDS; i++) {
            x = x * 6364136223846793005L + 1442695040888963407L;
            x ^= x >>> 29;
        }
        return x;
    }
}
