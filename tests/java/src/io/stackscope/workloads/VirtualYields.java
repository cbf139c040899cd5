package io.stackscope.workloads;

/**
 * Virtual threads (JDK 21+) that yield between bursts of CPU deep in their stacks: args[0]
 * threads (default 4), for args[1] ms of wall time (default 1500). Each descends 40 calls
 * (descend) before it loops: burn(), then Thread.yield(), which unmounts it. Mounted again, it
 * runs with only its top frames back on the carrier's stack (HotSpot thaws a large stack
 * lazily), the descend frames frozen below them. Each burn also throws and catches one
 * IllegalStateException in fail(). Truth by construction: every frame of a virtual thread's
 * sample or exception lies above java.lang.VirtualThread.run. Built for Java 17 (virtual
 * threads through reflection); without them it prints "no virtual threads". Prints
 * "thrown N", the exceptions fail() threw.
 */
public final class VirtualYields {
    static final int DEPTH = 40;
    static final java.util.concurrent.atomic.AtomicLong THROWN = new java.util.concurrent.atomic.AtomicLong();

    public static void main(String[] args) throws Exception {
        int count = (int) Cpu.millis(args, 0, 4);
        long end = System.nanoTime() + Cpu.millis(args, 1, 1500) * 1_000_000L;
        if (!VirtualThreads.runAll(count, () -> descend(DEPTH, end))) {
            return;
        }
        System.out.println("thrown " + THROWN.get());
    }

    static void descend(int depth, long end) {
        if (depth > 0) {
            descend(depth - 1, end);
            return;
        }
        while (System.nanoTime() < end) {
            burn();
            try {
                fail();
            } catch (IllegalStateException e) {
                THROWN.incrementAndGet();
            }
            Thread.yield();
        }
    }

    static void fail() {
        throw new IllegalStateException("yield");
    }

    static void burn() {
        long x = 1;
        for (int i = 0; i < 200_000; i++) {
            x = x * 6364136223846793005L + 1442695040888963407L;
            x ^= x >>> 29;
        }
        Cpu.sink = x;
    }
}
