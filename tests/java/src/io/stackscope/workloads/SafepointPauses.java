package io.stackscope.workloads;

import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * Safepoints without a garbage collection: "dumper" asks for every thread's stack
 * (Thread.getAllStackTraces(), which HotSpot answers at a safepoint) in a loop, while
 * args[1] (default 200) "deep-N" threads sleep under 400 frames each, so every dump holds the
 * VM stopped for a while, and "spinner" burns CPU in Java code through it all, alone for
 * its first 100 ms, then for args[0] ms of wall time (default 3000) with the dumps. It allocates next to nothing: no GC is due.
 *
 * Ground truth printed: "truth spin NANOS" (the spinner's time in its loop), "truth dumps
 * NANOS" (the dumper's time inside getAllStackTraces, which holds each safepoint and a little
 * more) and "truth dump_count N".
 */
public final class SafepointPauses {
    private static volatile boolean done;
    /**
     * The spinner spins this long before the dumps begin, so a profiler has seen its stack
     * before the first one stops it: a tick stopped before a thread's first stack has no stack
     * to stand for it (on a loaded machine the dumps, which then hold the VM half the time,
     * stopped a spinner started with them for 140 ms before its first stack).
     */
    private static final long ALONE_NS = 100_000_000L;

    public static void main(String[] args) throws Exception {
        long runMs = Cpu.millis(args, 0, 3000);
        int deep = (int) Cpu.millis(args, 1, 200);
        CountDownLatch ready = new CountDownLatch(deep);
        for (int i = 0; i < deep; i++) {
            Thread t = new Thread(() -> sleepDeep(400, ready), "deep-" + i);
            t.setDaemon(true);
            t.start();
        }
        ready.await();
        CountDownLatch spinning = new CountDownLatch(1);
        Thread spinner = new Thread(() -> {
            long start = System.nanoTime();
            long x = 1;
            while (!done) {
                x = Cpu.mix(x, 0);
                if (System.nanoTime() - start >= ALONE_NS) spinning.countDown();
            }
            Cpu.sink = x;
            System.out.println("truth spin " + (System.nanoTime() - start));
        }, "spinner");
        Thread dumper = new Thread(SafepointPauses::dumpUntilDone, "dumper");
        spinner.start();
        spinning.await();
        dumper.start();
        Thread.sleep(runMs);
        done = true;
        spinner.join();
        dumper.join();
    }

    private static void dumpUntilDone() {
        long inside = 0;
        int count = 0;
        int frames = 0;
        while (!done) {
            long start = System.nanoTime();
            Map<Thread, StackTraceElement[]> stacks = Thread.getAllStackTraces();
            inside += System.nanoTime() - start;
            count++;
            frames += stacks.size();
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                return;
            }
        }
        Cpu.sink = frames;
        System.out.println("truth dumps " + inside);
        System.out.println("truth dump_count " + count);
    }

    private static void sleepDeep(int depth, CountDownLatch ready) {
        if (depth > 0) {
            sleepDeep(depth - 1, ready);
            return;
        }
        ready.countDown();
        try {
            Thread.sleep(Long.MAX_VALUE);
        } catch (InterruptedException e) {
            // a daemon: the JVM's exit ends it
        }
    }
}
