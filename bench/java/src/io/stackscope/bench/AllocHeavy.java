package io.stackscope.bench;

/**
 * Fixed allocation-heavy work for bench/alloc.sh: args[0] rounds (default 40), each allocating
 * a mix that escapes into a ring of 64k slots (so neither the JIT nor the GC shortcut it):
 * 1M small objects (24 bytes), 200k Strings of about 20 chars (with their builders' garbage),
 * and 5k byte[] of 64 bytes to 16 KiB. Prints "work_ns N", the rounds' wall time.
 */
public final class AllocHeavy {
    static final class Node {
        final int key;
        final Object value;

        Node(int key, Object value) {
            this.key = key;
            this.value = value;
        }
    }

    static final Object[] RING = new Object[1 << 16];

    static long round(long seed) {
        long x = seed;
        for (int i = 0; i < 1_000_000; ++i) {
            RING[i & 0xffff] = new Node(i, null);
        }
        for (int i = 0; i < 200_000; ++i) {
            x = x * 6364136223846793005L + 1442695040888963407L;
            RING[(i * 7) & 0xffff] = Long.toHexString(x) + Integer.toString(i);
        }
        for (int i = 0; i < 5_000; ++i) {
            x = x * 6364136223846793005L + 1442695040888963407L;
            RING[(i * 13) & 0xffff] = new byte[64 + (int) ((x >>> 40) & 0x3fff)];
        }
        return x;
    }

    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 40;
        long start = System.nanoTime();
        long seed = 1;
        for (int r = 0; r < rounds; ++r) seed = round(seed);
        System.out.println("work_ns " + (System.nanoTime() - start));
        if (seed == 42) System.out.println("unlikely");  // keeps the work observable
    }
}
