package io.stackscope.workloads;

import java.util.concurrent.ThreadLocalRandom;

/**
 * Random reads of a 64 MB int array: nearly all the CPU time is the cache misses of the load
 * in {@link #sumRandom}, while {@code ThreadLocalRandom.current()} and {@code nextInt}, both
 * inlined into it, cost a few instructions each. Without debug information between
 * safepoints the samples of the compiled loop land on the inlined callees' safepoints
 * instead. About 3 s of CPU (args[0] overrides, in ms).
 */
public final class RandomReads {
    private static final int SIZE = 16 << 20;  // ints: 64 MB, far beyond any cache

    public static void main(String[] args) {
        long totalNs = Cpu.millis(args, 0, 3000) * 1_000_000L;
        int[] data = new int[SIZE];
        for (int i = 0; i < SIZE; i++) data[i] = i;
        long end = Cpu.threadNs() + totalNs;
        long sum = 0;
        while (Cpu.threadNs() < end) sum += sumRandom(data);
        Cpu.sink = sum;
    }

    static long sumRandom(int[] data) {
        long sum = 0;
        for (int i = 0; i < 100_000; i++) {
            sum += data[ThreadLocalRandom.current().nextInt(SIZE)];
        }
        return sum;
    }
}
