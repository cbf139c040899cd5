package io.stackscope.workloads;

/**
 * Throws a known number of exceptions of known classes at known sites: args[0] (default 1000)
 * IllegalStateExceptions from throwState, caught by its caller; half as many
 * IllegalArgumentExceptions from throwArgument, caught two frames up; and args[1] (default 3)
 * UnsupportedOperationExceptions from throwUncaught, each ending a thread of its own (no Java
 * frame catches them). Nothing else in the program throws once it is running, so the counts
 * by class and throw site are exact. args[2] (default 0): milliseconds to sleep first, so
 * that the burst comes after a quiet spell.
 *
 * Ground truth printed: "truth state N", "truth argument N", "truth uncaught N".
 */
public final class Throws {
    static volatile int sink;

    static void throwState(int i) {
        if (i >= 0) throw new IllegalStateException();
        sink = i;
    }

    static void throwArgument(int i) {
        if (i >= 0) throw new IllegalArgumentException();
        sink = i;
    }

    static void passArgument(int i) {
        throwArgument(i);
    }

    static void throwUncaught() {
        throw new UnsupportedOperationException();
    }

    public static void main(String[] args) throws InterruptedException {
        int caught = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
        int uncaught = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        Thread.sleep(args.length > 2 ? Long.parseLong(args[2]) : 0);
        int states = 0;
        int arguments = 0;
        for (int i = 0; i < caught; ++i) {
            try {
                throwState(i);
            } catch (IllegalStateException e) {
                ++states;
            }
            if (i % 2 == 0) {
                try {
                    passArgument(i);
                } catch (IllegalArgumentException e) {
                    ++arguments;
                }
            }
        }
        for (int i = 0; i < uncaught; ++i) {
            Thread thread = new Thread(Throws::throwUncaught, "uncaught-" + i);
            thread.setUncaughtExceptionHandler((t, e) -> { });
            thread.start();
            thread.join();
        }
        System.out.println("truth state " + states);
        System.out.println("truth argument " + arguments);
        System.out.println("truth uncaught " + uncaught);
    }
}
