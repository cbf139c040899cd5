package io.stackscope.workloads;

import java.util.ArrayList;
import java.util.List;

/**
 * Known numbers of objects of its own classes in the heap at two moments, for the class
 * histogram (record --histo gc). Phase 1 holds 1000 Held and 200 Released objects, then calls
 * System.gc() (a histogram after it) and waits args[0] ms (default 3000) for the agent's walk.
 * Phase 2 creates 3000 more Held, drops the Released ones, calls System.gc() and waits
 * again; the program then ends (a last histogram at the end). Both classes are created only
 * here, so the heap holds exactly those numbers: 1000 and 200, then 4000 and 0.
 */
public final class HeldObjects {
    static final class Held {
        long a;
        long b;

        Held(long a) {
            this.a = a;
            this.b = ~a;
        }
    }

    static final class Released {
        final int[] payload = new int[4];
    }

    static final List<Held> held = new ArrayList<>();
    static List<Released> released = new ArrayList<>();

    public static void main(String[] args) throws InterruptedException {
        long waitMs = Cpu.millis(args, 0, 3000);
        for (int i = 0; i < 1000; i++) held.add(new Held(i));
        for (int i = 0; i < 200; i++) released.add(new Released());
        System.gc();
        System.out.println("truth phase1.held " + held.size() + "\ntruth phase1.released " + released.size());
        Thread.sleep(waitMs);
        for (int i = 0; i < 3000; i++) held.add(new Held(i));
        released = null;
        System.gc();
        System.out.println("truth phase2.held " + held.size() + "\ntruth phase2.released 0");
        Thread.sleep(waitMs);
    }
}
