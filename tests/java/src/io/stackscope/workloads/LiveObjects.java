package io.stackscope.workloads;

import java.util.ArrayList;
import java.util.List;

/**
 * Allocates args[0] (default 10000) long[512] in keep, each kept reachable to the end in a
 * static list, and as many int[1024] in drop, each dropped at once (a static ring holds the
 * last few, cleared before the end). Then two forced collections free every int[1024], and a
 * pause leaves the JVM time to report their deaths (ObjectFree) before it exits.
 *
 * Both arrays are 4112 bytes on HotSpot x64 (16 bytes of header).
 *
 * Ground truth printed: "truth kept N", "truth dropped N".
 */
public final class LiveObjects {
    static final List<long[]> KEPT = new ArrayList<>();
    static final Object[] SINK = new Object[256];

    static void keep() {
        KEPT.add(new long[512]);
    }

    static void drop(int i) {
        SINK[i & 255] = new int[1024];
    }

    public static void main(String[] args) throws InterruptedException {
        int count = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
        for (int i = 0; i < count; ++i) {
            keep();
            drop(i);
        }
        java.util.Arrays.fill(SINK, null);
        System.gc();
        System.gc();
        Thread.sleep(500);
        System.out.println("truth kept " + KEPT.size());
        System.out.println("truth dropped " + count);
    }
}
