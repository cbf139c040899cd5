package io.stackscope.workloads;

/**
 * Short critical sections on one monitor, for the lock trace's owner stacks: args[0] threads
 * (default 8) each run for args[1] ms (default 2000) a loop of holdBriefly (a Ledger's monitor
 * held args[2] µs, default 50, spinning) and outside (args[3] µs, default 100, spinning with
 * no lock held). An owner look (agent/lock_owners.h) often reaches the owner after it has let
 * go: the owner's stack is right only in holdBriefly. Each method spins in its own loop, so
 * that no frame of one is ever a frame of the other.
 *
 * Ground truth printed: "truth holds N" (all threads together).
 */
public final class ShortHolds {
    static final class Ledger {}

    static final Ledger ledger = new Ledger();
    static long shared;
    static long elsewhere;

    static void holdBriefly(long ns) {
        synchronized (ledger) {
            final long end = System.nanoTime() + ns;
            long turns = 0;
            while (System.nanoTime() < end) turns++;
            shared += turns;
        }
    }

    static long outside(long ns) {
        final long end = System.nanoTime() + ns;
        long turns = 0;
        while (System.nanoTime() < end) turns++;
        return turns;
    }

    public static void main(String[] args) throws InterruptedException {
        final int threads = args.length > 0 ? Integer.parseInt(args[0]) : 8;
        final long runMs = args.length > 1 ? Long.parseLong(args[1]) : 2000;
        final long holdNs = (args.length > 2 ? Long.parseLong(args[2]) : 50) * 1000;
        final long outsideNs = (args.length > 3 ? Long.parseLong(args[3]) : 100) * 1000;
        final long[] holds = new long[threads];
        final long stop = System.nanoTime() + runMs * 1_000_000;
        Thread[] workers = new Thread[threads];
        for (int t = 0; t < threads; ++t) {
            final int index = t;
            workers[t] = new Thread(() -> {
                long away = 0;
                while (System.nanoTime() < stop) {
                    holdBriefly(holdNs);
                    away += outside(outsideNs);
                    holds[index]++;
                }
                synchronized (ShortHolds.class) {
                    elsewhere += away;
                }
            }, "short-" + t);
            workers[t].start();
        }
        long total = 0;
        for (int t = 0; t < threads; ++t) {
            workers[t].join();
            total += holds[t];
        }
        System.out.println("truth holds " + total);
    }
}
