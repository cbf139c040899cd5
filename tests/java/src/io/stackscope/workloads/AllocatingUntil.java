package io.stackscope.workloads;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * For the control server's filter test: allocates, in equal bytes, byte[1024] (1040 bytes each)
 * and Allocations$Pair (32 bytes: 32 of them per buffer) in one loop until the file args[0]
 * exists, so that a sampled-allocation recording holds both classes all along unless a classes
 * filter leaves one out. Prints "allocating" once the loop runs; stops after 120 s at the latest.
 */
public final class AllocatingUntil {
    private static final long LIMIT_NS = 120_000_000_000L;

    public static void main(String[] args) {
        Path until = Path.of(args[0]);
        long end = System.nanoTime() + LIMIT_NS;
        System.out.println("allocating");
        System.out.flush();
        long i = 0;
        while (System.nanoTime() < end) {
            Allocations.allocateBuffers(1000);
            Allocations.allocatePairs(32_000);
            if (++i % 10 == 0 && Files.exists(until)) break;
        }
    }
}
