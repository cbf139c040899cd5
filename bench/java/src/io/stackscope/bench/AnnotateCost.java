package io.stackscope.bench;

import io.stackscope.Annotation;
import io.stackscope.Stackscope;

/**
 * Microbenchmark for bench/annotation.sh (no JMH): the cost of one Stackscope call, in ns per
 * call, with whatever agent the JVM was started with (or none). Each case is warmed up with
 * WARM calls, then timed over CALLS calls, best of 5 timed runs. Prints "case NAME NS_PER_CALL".
 *
 *   same       annotate() with the same five values every call (no change: the Java side
 *              compares with the current annotation and does not call the agent)
 *   alternate  annotate() switching between two annotations (a change on every call)
 *   scope      enter(b) then close() under annotation a: a request-scoped annotation, two
 *              changes per call
 *   flip       alternate between an annotation a filter user:u1 matches and one it does not
 *              (with that filter, the thread's CPU timer is disarmed and re-armed each time)
 */
public final class AnnotateCost {
    private static final int WARM = 200_000;

    interface Case {
        void run(int calls);
    }

    public static void main(String[] args) {
        int calls = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        System.out.println("active " + Stackscope.isActive());
        Annotation a = Annotation.of("u1", "session-0001", "request-000001", "shop", "cart");
        Annotation b = Annotation.of("u1", "session-0001", "request-000002", "shop", "cart");
        Annotation other = Annotation.of("u2", "session-0002", "request-000003", "shop", "cart");
        report("same", calls, n -> {
            for (int i = 0; i < n; i++) Stackscope.annotate("u1", "session-0001", "request-000001", "shop", "cart");
        });
        report("alternate", calls, n -> {
            for (int i = 0; i < n; i++) Stackscope.annotate((i & 1) == 0 ? a : b);
        });
        Stackscope.annotate(a);
        report("scope", calls, n -> {
            for (int i = 0; i < n; i++) {
                try (Stackscope.Scope s = Stackscope.enter(b)) {
                    // the request's work would run here
                }
            }
        });
        report("flip", calls, n -> {
            for (int i = 0; i < n; i++) Stackscope.annotate((i & 1) == 0 ? a : other);
        });
    }

    private static void report(String name, int calls, Case c) {
        c.run(WARM);
        long best = Long.MAX_VALUE;
        for (int run = 0; run < 5; run++) {
            long start = System.nanoTime();
            c.run(calls);
            best = Math.min(best, System.nanoTime() - start);
        }
        System.out.printf("case %s %.1f%n", name, (double) best / calls);
    }
}
