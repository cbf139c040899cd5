package io.stackscope.workloads;

/**
 * One contended monitor reached by several call paths, for the lock trace's memo of waiter
 * stacks (agent/own_stacks.h): args[0] threads (default 4) each run args[1] rounds (default
 * 20000); a round enters the monitor through viaFirst, viaSecond, or a recursion of depth 1 to
 * 3 (viaRecursion), in turn, each thread from its own place in the turn (threads that run in
 * step, as contended ones do, would all wait on the path of the one holding the monitor).
 * Every 500th entry holds the monitor 2 ms, so that waits pass the trace's 1 ms threshold,
 * early (interpreted) and late (compiled).
 *
 * Ground truth printed: "truth entries N" (all threads together).
 */
public final class LockPaths {
    static final Object monitor = new Object();
    static long shared;
    static int entries;

    static long work(long x) {
        for (int i = 0; i < 50; ++i) x = x * 6364136223846793005L + 1442695040888963407L;
        return x;
    }

    static void enter() throws InterruptedException {
        synchronized (monitor) {
            shared = work(shared);
            if (++entries % 500 == 0) Thread.sleep(2);
        }
    }

    static void viaFirst() throws InterruptedException {
        enter();
    }

    static void viaSecond() throws InterruptedException {
        enter();
    }

    static void viaRecursion(int depth) throws InterruptedException {
        if (depth == 0) {
            enter();
        } else {
            viaRecursion(depth - 1);
        }
    }

    static void round(int i) throws InterruptedException {
        switch (i % 5) {
            case 0 -> viaFirst();
            case 1 -> viaSecond();
            default -> viaRecursion(i % 5 - 1);
        }
    }

    public static void main(String[] args) throws InterruptedException {
        final int threads = args.length > 0 ? Integer.parseInt(args[0]) : 4;
        final int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 20000;
        Thread[] workers = new Thread[threads];
        for (int t = 0; t < threads; ++t) {
            final int first = t;
            workers[t] = new Thread(() -> {
                try {
                    for (int i = 0; i < rounds; ++i) round(first + i);
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }, "path-" + t);
            workers[t].start();
        }
        for (Thread worker : workers) worker.join();
        System.out.println("truth entries " + (long) threads * rounds);
    }
}
