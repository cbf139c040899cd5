package io.stackscope.workloads;

import java.util.concurrent.locks.ReentrantLock;

/**
 * Fixed work on two contended locks, for the lock trace's overhead (bench/traces.sh): args[0]
 * threads (default 4) each run args[1] iterations (default 200000), alternately inside a
 * synchronized block and a ReentrantLock, each a short computation; every 2000th iteration
 * holds its lock 2 ms (a sleep), so that some waits pass the trace's 1 ms threshold and are
 * recorded while most are shorter.
 *
 * Ground truth printed: "truth iterations N" (all threads together).
 */
public final class LockContention {
    static final Object monitor = new Object();
    static final ReentrantLock lock = new ReentrantLock();
    static long shared;

    static long work(long x) {
        for (int i = 0; i < 50; ++i) x = x * 6364136223846793005L + 1442695040888963407L;
        return x;
    }

    static void iterate(int i) throws InterruptedException {
        final boolean slow = i % 2000 == 0;
        if (i % 2 == 0) {
            synchronized (monitor) {
                shared = work(shared);
                if (slow) Thread.sleep(2);
            }
        } else {
            lock.lock();
            try {
                shared = work(shared);
                if (slow) Thread.sleep(2);
            } finally {
                lock.unlock();
            }
        }
    }

    public static void main(String[] args) throws InterruptedException {
        final int threads = args.length > 0 ? Integer.parseInt(args[0]) : 4;
        final int iterations = args.length > 1 ? Integer.parseInt(args[1]) : 200000;
        Thread[] workers = new Thread[threads];
        for (int t = 0; t < threads; ++t) {
            workers[t] = new Thread(() -> {
                try {
                    for (int i = 1; i <= iterations; ++i) iterate(i);
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }, "contender-" + t);
            workers[t].start();
        }
        for (Thread worker : workers) worker.join();
        System.out.println("truth iterations " + (long) threads * iterations);
    }
}
