package io.stackscope.workloads;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;

/**
 * The main thread allocates for args[0] ms of wall time (default 4000) while keeping a window
 * of recent arrays alive, so young collections copy something and take time, and asks for a
 * full collection (System.gc()) every args[1] ms (default 200). Run with a small heap.
 *
 * Ground truth printed: "truth wall NANOS" (the main thread's time in the loop), "truth gc
 * NANOS" (the collection time the JVM's own GarbageCollectorMXBeans report for the loop,
 * which they measure in milliseconds) and "truth collections N".
 */
public final class GcPauses {
    /** Written with every result so the JIT cannot prove the allocations dead. */
    static volatile long sink;

    public static void main(String[] args) {
        long runNs = Cpu.millis(args, 0, 4000) * 1_000_000L;
        long fullGcEveryNs = Cpu.millis(args, 1, 200) * 1_000_000L;
        long gcMsBefore = collectionMs();
        long collectionsBefore = collections();
        long start = System.nanoTime();
        long nextFullGc = start + fullGcEveryNs;
        Object[] window = new Object[1 << 14];
        long now;
        int i = 0;
        while ((now = System.nanoTime()) - start < runNs) {
            allocate(window, i++);
            if (now >= nextFullGc) {
                System.gc();
                nextFullGc += fullGcEveryNs;
            }
        }
        long wall = System.nanoTime() - start;
        System.out.println("truth wall " + wall);
        System.out.println("truth gc " + (collectionMs() - gcMsBefore) * 1_000_000L);
        System.out.println("truth collections " + (collections() - collectionsBefore));
    }

    /**
     * A batch of small arrays, every eighth kept in the window until it is overwritten, and
     * some arithmetic, so the collections take a share of the time, not all of it.
     */
    static void allocate(Object[] window, int round) {
        long sum = 0;
        for (int k = 0; k < 64; k++) {
            long[] array = new long[32 + (k & 31)];
            array[k & 31] = round;
            sum += array.length;
            if ((k & 7) == 0) {
                window[(round * 8 + k / 8) & (window.length - 1)] = array;
            }
        }
        sink += Cpu.mix(sum, 0);
    }

    private static long collectionMs() {
        long ms = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            ms += Math.max(gc.getCollectionTime(), 0);
        }
        return ms;
    }

    private static long collections() {
        long count = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            count += Math.max(gc.getCollectionCount(), 0);
        }
        return count;
    }
}
