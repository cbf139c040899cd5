package io.stackscope.bench;

import java.util.ArrayList;
import java.util.List;

/**
 * Holds about args[0] MB (default 200) in the heap for args[1] ms (default 5000), so that the
 * class histogram's heap walk has a heap of known size to cross: half in small objects (a
 * header and two longs, 32 bytes each, about 3.3 M of them: a walk's cost grows with the
 * number of objects), half in 64 KiB byte arrays. Prints "objects N".
 */
public final class HeapHold {
    static final class Small {
        long a;
        long b;

        Small(long a) {
            this.a = a;
            this.b = ~a;
        }
    }

    static final List<Object> held = new ArrayList<>();

    public static void main(String[] args) throws InterruptedException {
        long bytes = (args.length > 0 ? Long.parseLong(args[0]) : 200) << 20;
        long holdMs = args.length > 1 ? Long.parseLong(args[1]) : 5000;
        for (long i = 0; i < bytes / 2 / 32; i++) held.add(new Small(i));
        for (long i = 0; i < bytes / 2 / 65536; i++) held.add(new byte[65536 - 16]);
        System.out.println("objects " + held.size());
        Thread.sleep(holdMs);
    }
}
