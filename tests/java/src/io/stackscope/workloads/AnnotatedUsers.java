package io.stackscope.workloads;

import io.stackscope.Stackscope;

/**
 * Two worker threads annotated as users u1 and u2 burn CPU at the same time: u1 about twice as
 * much as u2 (args[0]: u2's CPU in ms, default 1000), u1's split 80/20 between U1Work.burn and
 * U1Work.hash, u2's all in U2Work.burn. Prints "truth u1.burn|u1.hash|u2.burn NANOS", the CPU
 * time measured around each method: per-user samples must be proportional to the sums, and
 * u1's two methods to its two figures, with or without a filter that leaves u2 out.
 *
 * Main stays unannotated and idle while the workers run.
 */
public final class AnnotatedUsers {
    private static final long MS = 1_000_000L;

    public static void main(String[] args) throws InterruptedException {
        long u2Ms = Cpu.millis(args, 0, 1000);
        long[] u1 = new long[2];
        long[] u2 = new long[1];
        Thread w1 = new Thread(() -> {
            Stackscope.annotate("u1", "s1", null, "shop", "cart");
            long x = 1;
            // Rounds of 20 + 5 ms interleave the two methods over the run. cpu sampling is
            // periodic in CPU time, so each part is a multiple of the tests' 5 ms interval:
            // with 8 + 2 ms, say, a part would get 1 or 2 samples per round depending on a
            // phase that drifts only slowly, and the shares would swing by 10 points.
            for (long round = 0; round < 2 * u2Ms / 25; round++) {
                long t0 = Cpu.threadNs();
                x = U1Work.burn(x, 20 * MS);
                long t1 = Cpu.threadNs();
                x = U1Work.hash(x, 5 * MS);
                long t2 = Cpu.threadNs();
                u1[0] += t1 - t0;
                u1[1] += t2 - t1;
            }
            Cpu.sink = x;
        }, "worker-u1");
        Thread w2 = new Thread(() -> {
            Stackscope.annotate("u2", "s2", null, "bank", "ledger");
            long x = 1;
            for (long round = 0; round < u2Ms / 10; round++) {
                long t0 = Cpu.threadNs();
                x = U2Work.burn(x, 10 * MS);
                u2[0] += Cpu.threadNs() - t0;
            }
            Cpu.sink = x;
        }, "worker-u2");
        w1.start();
        w2.start();
        w1.join();
        w2.join();
        System.out.println("truth u1.burn " + u1[0]);
        System.out.println("truth u1.hash " + u1[1]);
        System.out.println("truth u2.burn " + u2[0]);
    }

    static final class U1Work {
        static long burn(long x, long budgetNs) { return Cpu.mix(x, budgetNs); }
        static long hash(long x, long budgetNs) { return Cpu.shuffle(x, budgetNs); }
    }

    static final class U2Work {
        static long burn(long x, long budgetNs) { return Cpu.sqrtChain(x, budgetNs); }
    }
}
