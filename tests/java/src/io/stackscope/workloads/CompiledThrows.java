package io.stackscope.workloads;

/**
 * Exceptions thrown and caught in compiled code for args[0] ms (default 2000): throwing calls
 * depth1, depth2 and depth3, which throws one preallocated exception (no stack trace to fill,
 * so the time goes to finding the handler and unwinding) every other call, and catches it.
 * Run with -XX:TieredStopAtLevel=1, C1 compiles all of it, whose exception dispatch looks up
 * the handler in the VM while the thread is still in Java state (the stack capture's case in
 * java_stack_walk.cpp). The main thread does nothing else, so all its samples after start-up
 * belong under throwing.
 *
 * Ground truth printed: "truth caught N", the exceptions caught.
 */
public final class CompiledThrows {
    /** Thrown without a stack trace, so each throw costs the dispatch alone. */
    static final class Thrown extends RuntimeException {
        Thrown() {
            super("preallocated", null, false, false);
        }
    }

    static final Thrown PREALLOCATED = new Thrown();

    static int depth3(int i) {
        if ((i & 1) == 0) throw PREALLOCATED;
        return i;
    }

    static int depth2(int i) {
        return depth3(i) + 1;
    }

    static int depth1(int i) {
        return depth2(i) + 1;
    }

    static long throwing(int calls, long[] caught) {
        long sum = 0;
        for (int i = 0; i < calls; i++) {
            try {
                sum += depth1(i);
            } catch (Thrown e) {
                caught[0]++;
            }
        }
        return sum;
    }

    public static void main(String[] args) {
        final long millis = args.length > 0 ? Long.parseLong(args[0]) : 2000;
        final long end = System.nanoTime() + millis * 1_000_000L;
        final long[] caught = new long[1];
        long sum = 0;
        while (System.nanoTime() < end) sum += throwing(10000, caught);
        System.out.println("sum " + sum);
        System.out.println("truth caught " + caught[0]);
    }
}
