package io.stackscope.workloads;

/**
 * Allocates args[0] (default 200000) byte[1024] in allocateBuffers and args[1] (default
 * 3000000) Allocations$Pair in allocatePairs, nothing else worth counting. Every object escapes
 * into a static ring, so the JIT cannot take the allocations away.
 *
 * Sizes on HotSpot x64 with compressed class pointers (the default on JDK 17 and 25): a
 * byte[1024] is 16 bytes of header and 1024 of data; a Pair is 12 bytes of header, 4 of padding
 * (a long is 8-aligned) and two longs: 32 bytes.
 *
 * Ground truth printed: "truth buffers N", "truth buffer_bytes 1040", "truth pairs N",
 * "truth pair_bytes 32".
 */
public final class Allocations {
    static final class Pair {
        final long first;
        final long second;

        Pair(long first, long second) {
            this.first = first;
            this.second = second;
        }
    }

    static final Object[] SINK = new Object[4096];

    static void allocateBuffers(int count) {
        for (int i = 0; i < count; ++i) SINK[i & 4095] = new byte[1024];
    }

    static void allocatePairs(int count) {
        for (int i = 0; i < count; ++i) SINK[i & 4095] = new Pair(i, -i);
    }

    public static void main(String[] args) {
        int buffers = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
        int pairs = args.length > 1 ? Integer.parseInt(args[1]) : 3_000_000;
        allocateBuffers(buffers);
        allocatePairs(pairs);
        System.out.println("truth buffers " + buffers);
        System.out.println("truth buffer_bytes 1040");
        System.out.println("truth pairs " + pairs);
        System.out.println("truth pair_bytes 32");
    }
}
