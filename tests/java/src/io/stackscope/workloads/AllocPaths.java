package io.stackscope.workloads;

/**
 * Two allocation sites in one method reached by several call paths, for the alloc trace's memo
 * of allocation-site stacks (agent/own_stacks.h): args[0] rounds (default 3000000); round i
 * calls make through viaFirst, viaSecond or a recursion of depth 1 to 3 (viaRecursion), in turn
 * (i % 5), and make allocates an AllocPaths$Left or an AllocPaths$Right, in turn ((i / 5) % 2).
 * Both are 32 bytes (12 of header, 4 of padding, two longs), so either class's allocations
 * split 1:1:3 between viaFirst, viaSecond and viaRecursion, a fifth of them at each depth.
 *
 * Ground truth printed: "truth rounds N".
 */
public final class AllocPaths {
    record Left(long a, long b) {}

    record Right(long a, long b) {}

    static final Object[] SINK = new Object[4096];

    static void make(int i) {
        if ((i / 5) % 2 == 0) {
            SINK[i & 4095] = new Left(i, -i);
        } else {
            SINK[i & 4095] = new Right(i, -i);
        }
    }

    static void viaFirst(int i) {
        make(i);
    }

    static void viaSecond(int i) {
        make(i);
    }

    static void viaRecursion(int depth, int i) {
        if (depth == 0) {
            make(i);
        } else {
            viaRecursion(depth - 1, i);
        }
    }

    static void round(int i) {
        switch (i % 5) {
            case 0 -> viaFirst(i);
            case 1 -> viaSecond(i);
            default -> viaRecursion(i % 5 - 1, i);
        }
    }

    public static void main(String[] args) {
        final int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 3_000_000;
        for (int i = 0; i < rounds; ++i) round(i);
        System.out.println("truth rounds " + rounds);
    }
}
