package io.stackscope.bench;

import io.stackscope.Stackscope;

import java.lang.management.ManagementFactory;
import java.util.concurrent.CountDownLatch;

/**
 * Benchmark workload for bench/annotation.sh: THREADS busy threads (default 16), thread 0
 * annotated as user "u1", the others as "other-N", each doing the same fixed amount of work
 * (ROUNDS, default 40) at a stack depth of about 40 frames, so that a stack walk costs what it
 * does in a real application. Prints "work_ns N", the wall time from the common start to the
 * last thread's end, which leaves JVM start-up and shutdown out, and "cpu_ns N", the CPU time
 * of the whole process (agent threads and signal handlers included) at that point: on a
 * machine shared with other work the CPU time is the steadier of the two.
 */
public final class AnnotatedBusy {
    private static volatile long sink;

    public static void main(String[] args) throws InterruptedException {
        int threads = args.length > 0 ? Integer.parseInt(args[0]) : 16;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 40;
        CountDownLatch ready = new CountDownLatch(threads);
        CountDownLatch go = new CountDownLatch(1);
        Thread[] workers = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            final String user = t == 0 ? "u1" : "other-" + t;
            workers[t] = new Thread(() -> {
                Stackscope.annotate(user, null, null, "bench", null);
                ready.countDown();
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                long x = 0;
                for (int r = 0; r < rounds; r++) x += deep(40, r);
                sink += x;
            }, "busy-" + t);
            workers[t].start();
        }
        ready.await();
        long start = System.nanoTime();
        go.countDown();
        for (Thread w : workers) w.join();
        System.out.println("work_ns " + (System.nanoTime() - start));
        System.out.println("cpu_ns " + processCpuNs());
    }

    private static long processCpuNs() {
        java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        return os instanceof com.sun.management.OperatingSystemMXBean
                ? ((com.sun.management.OperatingSystemMXBean) os).getProcessCpuTime() : -1;
    }

    /** Recurses `depth` frames, then mixes integers for a fixed count of iterations. */
    static long deep(int depth, long seed) {
        if (depth > 0) return deep(depth - 1, seed) + 1;
        long x = seed | 1;
        for (int i = 0; i < 5_000_000; i++) {
            x = x * 6364136223846793005L + 1442695040888963407L;
            x ^= x >>> 29;
        }
        return x;
    }
}
