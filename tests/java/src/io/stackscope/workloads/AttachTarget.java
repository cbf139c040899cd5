package io.stackscope.workloads;

/**
 * ThreeWay's 50/30/20 split of one thread's CPU time among alpha, beta and gamma, in rounds
 * of 100 ms of CPU, for args[0] ms of CPU in all (default 6000), announced by "ready" on
 * stdout so that a test attaches to a JVM that is up, and closed by "done" and the truth
 * lines. Any window of several rounds splits its CPU time 50/30/20 too: what a recording
 * made by attaching for part of the run must show.
 */
public final class AttachTarget {
    private static final long MS = 1_000_000L;
    private static final long ROUND_MS = 100;

    public static void main(String[] args) {
        long totalMs = Cpu.millis(args, 0, 6000);
        System.out.println("ready");
        System.out.flush();
        long[] spent = new long[3];
        long x = 1;
        for (long round = 0; round < totalMs / ROUND_MS; round++) {
            long t0 = Cpu.threadNs();
            x = ThreeWay.alpha(x, 50 * MS);
            long t1 = Cpu.threadNs();
            x = ThreeWay.beta(x, 30 * MS);
            long t2 = Cpu.threadNs();
            x = ThreeWay.gamma(x, 20 * MS);
            long t3 = Cpu.threadNs();
            spent[0] += t1 - t0;
            spent[1] += t2 - t1;
            spent[2] += t3 - t2;
        }
        Cpu.sink = x;
        System.out.println("done");
        System.out.println("truth alpha " + spent[0]);
        System.out.println("truth beta " + spent[1]);
        System.out.println("truth gamma " + spent[2]);
    }
}
