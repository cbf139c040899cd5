package io.stackscope.workloads;

import io.stackscope.Stackscope;

/**
 * Annotation changes from many threads at once while the JVM ends under them: args[0]
 * threads (default 8) each flip their annotation between user "u1" (which the test's filter
 * matches) and "u2" as fast as they can, in scopes and plain calls, with markers between,
 * while main exits through System.exit after args[1] ms (default 1000) without waiting for
 * them. The agent must neither crash nor hang nor leave the file unfinished; main prints
 * "flips N" (the total so far) just before exiting.
 */
public final class AnnotatedStress {
    private static final java.util.concurrent.atomic.AtomicLong FLIPS = new java.util.concurrent.atomic.AtomicLong();

    public static void main(String[] args) throws InterruptedException {
        int threads = (int) Cpu.millis(args, 0, 8);
        long ms = Cpu.millis(args, 1, 1000);
        for (int t = 0; t < threads; t++) {
            final int id = t;
            Thread worker = new Thread(() -> {
                long x = id;
                for (long i = 0; ; i++) {
                    Stackscope.annotate((i & 1) == 0 ? "u1" : "u2", "s" + id, "r" + (i % 1000), null, null);
                    try (Stackscope.Scope s = Stackscope.enter("u1", null, "nested", null, null)) {
                        for (int k = 0; k < 2_000; k++) x = x * 6364136223846793005L + k;
                    }
                    if (i % 10_000 == 0) Stackscope.mark("m" + id);
                    FLIPS.incrementAndGet();
                    Cpu.sink = x;
                }
            }, "flipper-" + t);
            worker.setDaemon(true);
            worker.start();
        }
        Thread.sleep(ms);
        System.out.println("flips " + FLIPS.get());
        System.exit(0);
    }
}
