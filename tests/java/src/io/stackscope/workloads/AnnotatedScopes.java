package io.stackscope.workloads;

import io.stackscope.Annotation;
import io.stackscope.Stackscope;

/**
 * Nested annotation scopes, each restoring the outer annotation when closed; the program
 * checks that itself with Stackscope.annotation() and exits 3 if any check fails. It burns
 * args[0] ms of CPU (default 300) in a method of its own at each level:
 *
 * <pre>
 *   Outer.before   user u1, session s1, application shop
 *   Inner.work     the same plus request r1, component cart
 *   Innermost.work user admin only
 *   Outer.after    back to the outer annotation
 *   Plain.work     no annotation (the last scope closed)
 * </pre>
 *
 * Prints "active true|false" (false without the agent, when every call must be a no-op and
 * the annotation always empty) and "truth LEVEL NANOS" of CPU per level.
 */
public final class AnnotatedScopes {
    private static final long MS = 1_000_000L;
    private static boolean failed;

    public static void main(String[] args) {
        long ms = Cpu.millis(args, 0, 300);
        boolean active = Stackscope.isActive();
        System.out.println("active " + active);
        Annotation outer = Annotation.of("u1", "s1", null, "shop", null);
        Annotation inner = outer.withRequest("r1").withComponent("cart");
        Annotation innermost = Annotation.EMPTY.withUser("admin");
        long[] truth = new long[5];

        check("at start", Annotation.EMPTY);
        try (Stackscope.Scope a = Stackscope.enter(outer)) {
            check("outer", active ? outer : Annotation.EMPTY);
            truth[0] = Levels.before(ms * MS);
            try (Stackscope.Scope b = Stackscope.enter(inner)) {
                check("inner", active ? inner : Annotation.EMPTY);
                truth[1] = Levels.inner(ms * MS);
                try (Stackscope.Scope c = Stackscope.enter("admin", null, null, null, null)) {
                    check("innermost", active ? innermost : Annotation.EMPTY);
                    truth[2] = Levels.innermost(ms * MS);
                }
                check("inner restored", active ? inner : Annotation.EMPTY);
            }
            check("outer restored", active ? outer : Annotation.EMPTY);
            truth[3] = Levels.after(ms * MS);
        }
        check("none restored", Annotation.EMPTY);
        truth[4] = Levels.plain(ms * MS);

        // The other entry points must be harmless with and without the agent.
        Stackscope.mark("scopes-done");
        Stackscope.begin("tail");
        Stackscope.end("tail");
        Stackscope.annotate(null, null, null, null, null);
        Stackscope.annotate((Annotation) null);
        Stackscope.clear();
        check("cleared", Annotation.EMPTY);

        String[] names = {"before", "inner", "innermost", "after", "plain"};
        for (int i = 0; i < names.length; i++) System.out.println("truth " + names[i] + " " + truth[i]);
        if (failed) System.exit(3);
    }

    private static void check(String where, Annotation expected) {
        Annotation actual = Stackscope.annotation();
        if (!expected.equals(actual)) {
            System.err.println("scope check failed " + where + ": expected " + expected + ", got " + actual);
            failed = true;
        }
    }

    /** One method per level: a level's samples have it on the stack (the tests check totals). */
    static final class Levels {
        static long before(long ns) { return Cpu.burn(ns); }
        static long inner(long ns) { return Cpu.burn(ns); }
        static long innermost(long ns) { return Cpu.burn(ns); }
        static long after(long ns) { return Cpu.burn(ns); }
        static long plain(long ns) { return Cpu.burn(ns); }
    }
}
