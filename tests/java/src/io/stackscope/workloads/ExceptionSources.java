package io.stackscope.workloads;

import java.util.NoSuchElementException;

/**
 * Exceptions that the two sources of the exception trace count differently, each of its own
 * class at its own site, in known numbers:
 *  - one NoSuchElementException created in makeReused and thrown args[0] (default 100) times
 *    from throwReused (a cached exception, like a rethrow: one creation, many throws);
 *  - args[1] (default 50) Stackless exceptions (writableStackTrace false: no stack trace is
 *    filled in) created and thrown in throwStackless;
 *  - args[2] (default 20) IllegalStateExceptions created in createUnthrown and never thrown.
 * Every throw is caught by main. Nothing else in the program creates or throws these classes.
 *
 * Ground truth printed: "truth reused_throws N", "truth stackless N", "truth unthrown N".
 */
public final class ExceptionSources {
    /** An exception without a stack trace, as programs make for cheap control flow. */
    static final class Stackless extends RuntimeException {
        Stackless() {
            super("stackless", null, false, false);
        }
    }

    static volatile Object sink;

    static NoSuchElementException makeReused() {
        return new NoSuchElementException("cached");
    }

    static void throwReused(NoSuchElementException cached) {
        throw cached;
    }

    static void throwStackless() {
        throw new Stackless();
    }

    static void createUnthrown() {
        sink = new IllegalStateException("kept, never thrown");
    }

    public static void main(String[] args) {
        int reusedThrows = args.length > 0 ? Integer.parseInt(args[0]) : 100;
        int stackless = args.length > 1 ? Integer.parseInt(args[1]) : 50;
        int unthrown = args.length > 2 ? Integer.parseInt(args[2]) : 20;
        NoSuchElementException cached = makeReused();
        int caught = 0;
        for (int i = 0; i < reusedThrows; ++i) {
            try {
                throwReused(cached);
            } catch (NoSuchElementException e) {
                ++caught;
            }
        }
        int stacklessCaught = 0;
        for (int i = 0; i < stackless; ++i) {
            try {
                throwStackless();
            } catch (Stackless e) {
                ++stacklessCaught;
            }
        }
        for (int i = 0; i < unthrown; ++i) createUnthrown();
        System.out.println("truth reused_throws " + caught);
        System.out.println("truth stackless " + stacklessCaught);
        System.out.println("truth unthrown " + unthrown);
    }
}
