package io.stackscope.workloads;

import java.lang.management.ManagementFactory;

/**
 * Known per-thread CPU time and allocation, for the per-thread metric deltas that samples
 * carry. Side by side: "burn-60" and "burn-30" burn 60 % and 30 % of args[0] ms (default
 * 2000) of CPU; "alloc" allocates args[1] MB (default 400) in 4 KiB arrays while it burns
 * the remaining 10 %; "sleeper" sleeps until they are done (wall mode samples it, with no CPU
 * and no allocation). Each prints "truth cpu.NAME NANOS" (its own CPU clock) and
 * "truth alloc.NAME BYTES" (the JVM's count of the bytes it allocated) at its end.
 */
public final class MetricTruth {
    private static final com.sun.management.ThreadMXBean MX =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    /** The arrays last allocated, kept so escape analysis cannot remove the allocation. */
    private static final byte[][] kept = new byte[64][];

    public static void main(String[] args) throws InterruptedException {
        long totalMs = Cpu.millis(args, 0, 2000);
        long allocBytes = (args.length > 1 ? Long.parseLong(args[1]) : 400) << 20;
        Thread[] workers = {
            new Thread(() -> burn(totalMs * 600_000L), "burn-60"),
            new Thread(() -> burn(totalMs * 300_000L), "burn-30"),
            new Thread(() -> allocate(allocBytes, totalMs * 100_000L), "alloc"),
        };
        Thread sleeper = new Thread(MetricTruth::sleep, "sleeper");
        sleeper.start();
        for (Thread t : workers) t.start();
        for (Thread t : workers) t.join();
        sleeper.interrupt();
        sleeper.join();
    }

    private static void burn(long budgetNs) {
        Cpu.burn(budgetNs);
        report();
    }

    /** Allocates `bytes` in 4 KiB arrays, spreading `budgetNs` of CPU burning between them. */
    private static void allocate(long bytes, long budgetNs) {
        final int size = 4096;
        long arrays = bytes / (size + 16);  // with its array header
        long slices = 100;
        for (long slice = 0; slice < slices; slice++) {
            for (long i = slice * arrays / slices; i < (slice + 1) * arrays / slices; i++) {
                kept[(int) (i & 63)] = new byte[size];
            }
            Cpu.burn(budgetNs / slices);
        }
        report();
    }

    private static void sleep() {
        try {
            Thread.sleep(Long.MAX_VALUE);
        } catch (InterruptedException e) {
            report();
        }
    }

    private static void report() {
        long cpuNs = MX.getCurrentThreadCpuTime();
        long allocated = MX.getCurrentThreadAllocatedBytes();
        // A StringBuilder, not string concatenation: the first `+` of a run bootstraps its call
        // site (tens of ms of CPU), which would come after the clocks were read.
        String name = Thread.currentThread().getName();
        StringBuilder lines = new StringBuilder();
        lines.append("truth cpu.").append(name).append(' ').append(cpuNs).append('\n');
        lines.append("truth alloc.").append(name).append(' ').append(allocated);
        // One println call for both lines keeps them whole among the other threads'.
        System.out.println(lines);
    }
}
